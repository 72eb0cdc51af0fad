/* fbec aot [-I DIR]... SCHEMA -o OUT.o [--header OUT.h] [--target TRIPLE] [--cpu NAME]:
 * an object file with native code for every struct of the schema and its IR
 * image, for programs that link fbe_runtime only (docs/aot.md). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fbe/jit.h"
#include "gen_aot_header.h"

static const char usage[] =
    "usage: fbec aot [-I DIR]... SCHEMA -o OUT.o [--header OUT.h] [--target TRIPLE]\n"
    "                [--cpu NAME] [--features LIST] [-O LEVEL] [--max-depth N]\n"
    "                [--require-native] [--stats] [--import-headers DIR]\n"
    "                [-MD] [-MF FILE]\n"
    "\n"
    "Compiles every struct of SCHEMA (and of the packages it imports) to native code\n"
    "and writes one relocatable, position-independent object file. Link it with the\n"
    "runtime library alone (libfbe_runtime.a -lm): no LLVM, no compiler, no\n"
    "interpreter at run time. For package P the object exports\n"
    "  fbe_codec *fbe_P_codec_create(fbe_status *status);   free with fbe_codec_free\n"
    "  const fbe_aot_image fbe_P_aot_image;                 the schema IR + entry points\n"
    "  fbe_<c_name>_<std|final>_<size|serialize|verify|deserialize>\n"
    "                                     (the entry points of P's own structs)\n"
    "See docs/aot.md and <fbe/aot.h>.\n"
    "\n"
    "options:\n"
    "  -I DIR            also search DIR for imported schemas (repeatable)\n"
    "  -o FILE           the object file to write (required)\n"
    "  --header FILE     also write the C header of `fbec header`, followed by the\n"
    "                    declarations of the object's symbols\n"
    "  --target TRIPLE   target triple (default: this machine's); 64-bit little-endian\n"
    "                    targets only (the host layout of values needs one)\n"
    "  --cpu NAME        target CPU (default: the architecture's baseline, x86-64 on\n"
    "                    x86-64, so the object runs on any machine of the target);\n"
    "                    'native' = this machine's CPU and features\n"
    "  --features LIST   extra CPU features, e.g. +sse4.2,+popcnt (default: none)\n"
    "  -O LEVEL          optimization level 1..3 (default 2)\n"
    "  --max-depth N     the codec's nesting limit, the default of verify/deserialize\n"
    "                    (default 64; decode options override it per call)\n"
    "  --require-native  fail if an operation has no native lowering (by default\n"
    "                    such entry points return FBE_UNSUPPORTED, with a note)\n"
    "  --stats           print compile timings to standard error\n"
    FBEC_EXTRAS_HELP
    "  -h, --help        show this help\n"
    "\n"
    "exit status: 0 success, 1 schema or compile error, 2 usage error\n";

typedef struct aot_args {
    const char *header;
    const char *target;
    const char *cpu;
    const char *features;
    const char *opt;
    const char *max_depth;
    bool require_native;
    bool stats;
} aot_args;

/* Takes this command's own options out of argv; the rest goes to fbec_parse_args. */
static int split_args(int argc, char **argv, aot_args *a, int *rest_argc, char **rest)
{
    static const struct {
        const char *name;
        size_t offset;
    } opts[] = {
        {"--header", offsetof(aot_args, header)},     {"--target", offsetof(aot_args, target)},
        {"--cpu", offsetof(aot_args, cpu)},           {"--features", offsetof(aot_args, features)},
        {"--max-depth", offsetof(aot_args, max_depth)}, {"-O", offsetof(aot_args, opt)},
    };
    memset(a, 0, sizeof *a);
    int n = 0;
    rest[n++] = argv[0];
    bool only_inputs = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (only_inputs || arg[0] != '-') {
            rest[n++] = argv[i];
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            only_inputs = true;
            rest[n++] = argv[i];
            continue;
        }
        if (strcmp(arg, "--require-native") == 0) {
            a->require_native = true;
            continue;
        }
        if (strcmp(arg, "--stats") == 0) {
            a->stats = true;
            continue;
        }
        bool mine = false;
        for (size_t k = 0; k < sizeof opts / sizeof *opts && !mine; k++) {
            const char *v = fbec_option_value(argc, argv, &i, opts[k].name);
            if (!v)
                continue;
            if (!*v)
                return fbec_usage("aot", "missing value after", opts[k].name);
            *(const char **)((char *)a + opts[k].offset) = v;
            mine = true;
        }
        if (!mine)
            rest[n++] = argv[i];
    }
    rest[n] = NULL;
    *rest_argc = n;
    return FBEC_OK;
}

static const char *const op_names[4] = {"size", "serialize", "verify", "deserialize"};

int cmd_aot(int argc, char **argv)
{
    aot_args a;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return FBEC_FAIL;
    int rest_argc = 0;
    int status = split_args(argc, argv, &a, &rest_argc, rest);
    fbec_args args;
    if (status == FBEC_OK && !fbec_parse_args("aot", rest_argc, rest, &args))
        status = FBEC_USAGE;
    free(rest);
    if (status != FBEC_OK)
        return status;
    if (args.help) {
        fputs(usage, stdout);
        return FBEC_OK;
    }
    const char *input = fbec_generator_input("aot", &args, "the object to write");
    if (!input)
        return FBEC_USAGE;
    fbe_aot_options o = {.triple = a.target, .cpu = a.cpu, .features = a.features};
    unsigned long v;
    if (a.opt) {
        if (!fbec_parse_uint(a.opt, 1, 3, &v))
            return fbec_usage("aot", "-O takes 1, 2 or 3, not", a.opt);
        o.opt_level = (int)v;
    }
    if (a.max_depth) {
        if (!fbec_parse_uint(a.max_depth, 1, 1u << 20, &v))
            return fbec_usage("aot", "--max-depth takes a number from 1 to 1048576, not", a.max_depth);
        o.max_depth = (unsigned)v;
    }
    if (a.header && strcmp(a.header, args.output) == 0)
        return fbec_usage("aot", "--header and -o name the same file", NULL);

    fbe_schema *schema = fbec_load(&args, input);
    if (!schema)
        return FBEC_FAIL;
    fbe_aot_result res;
    fbe_status st = fbe_aot_compile(schema, &o, args.output, &res);
    if (st != FBE_OK) {
        fprintf(stderr, "fbec aot: %s\n", res.error[0] ? res.error : fbe_strerror(st));
        fbe_schema_free(schema);
        return st == FBE_INVALID_ARGUMENT ? FBEC_USAGE : FBEC_FAIL;
    }
    size_t missing = 0;
    for (int m = 0; m < 2; m++)
        for (int op = 0; op < 4; op++)
            missing += res.missing[m][op];
    if (missing) {
        fprintf(stderr, "fbec aot: %s: no native code for:", a.require_native ? "error" : "note");
        for (int m = 0; m < 2; m++)
            for (int op = 0; op < 4; op++)
                if (res.missing[m][op])
                    fprintf(stderr, " %s %s (%zu of %zu structs)", m == 0 ? "standard" : "final",
                            op_names[op], res.missing[m][op], res.types);
        fprintf(stderr, a.require_native ? "\n" : "; those entry points return FBE_UNSUPPORTED\n");
    }
    bool ok = !(missing && a.require_native);
    if (ok && a.header)
        ok = fbe_gen_aot_header("aot", a.header, schema, (const size_t(*)[4])res.missing);
    if (ok)
        ok = fbec_write_extras("aot", &args, schema, args.output);
    if (!ok)
        remove(args.output); /* never half a result */
    if (ok && a.stats)
        fprintf(stderr,
                "fbec aot: %s: %zu structs, %zu entry points (%zu exported), %zu bytes for %s "
                "(cpu %s); lower %.1f ms, optimize %.1f ms, codegen %.1f ms\n",
                args.output, res.types, res.functions, res.exported, res.object_size, res.triple,
                res.cpu, res.lower_ms, res.optimize_ms, res.codegen_ms);
    fbe_schema_free(schema);
    return ok ? FBEC_OK : FBEC_FAIL;
}
