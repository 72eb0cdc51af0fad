/* fbec c [-I DIR]... SCHEMA -o OUT.c [--header OUT.h] [--max-depth N]: the static
 * C codec of a schema, with the symbols of an `fbec aot` object (docs/static.md). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "gen_aot_header.h"
#include "gen_c.h"

static const char usage[] =
    "usage: fbec c [-I DIR]... SCHEMA -o OUT.c [--header OUT.h] [--max-depth N]\n"
    "              [--import-headers DIR] [-MD] [-MF FILE]\n"
    "\n"
    "Writes one C11 file implementing every struct of SCHEMA (and of the packages it\n"
    "imports): the schema IR as constant data and straight-line size, serialize,\n"
    "verify and deserialize functions for both models. It exports exactly the\n"
    "symbols of an `fbec aot` object, so a program links either one unchanged:\n"
    "  fbe_codec *fbe_P_codec_create(fbe_status *status);   free with fbe_codec_free\n"
    "  const fbe_aot_image fbe_P_aot_image;                 the schema IR + entry points\n"
    "  fbe_<c_name>_<std|final>_<size|serialize|verify|deserialize>\n"
    "Compile it with -I<fbe-c>/include and link with the runtime library alone\n"
    "(libfbe_runtime.a -lm). See docs/static.md.\n"
    "\n"
    "options:\n"
    "  -I DIR           also search DIR for imported schemas (repeatable)\n"
    "  -o FILE          the C file to write (required)\n"
    "  --header FILE    also write the header of `fbec aot --header` (host structs\n"
    "                   and the declarations of the symbols)\n"
    "  --max-depth N    the codec's nesting limit, the default of verify/deserialize\n"
    "                   (default 64; decode options override it per call)\n"
    FBEC_EXTRAS_HELP
    "  -h, --help       show this help\n"
    "\n"
    "exit status: 0 success, 1 schema or write error, 2 usage error\n";

/* Writes the C file to path.tmp.PID, then renames it: never half a file. */
static bool write_c(const char *path, const fbe_schema *schema, unsigned max_depth)
{
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp) {
        fputs("fbec c: out of memory\n", stderr);
        return false;
    }
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "fbec c: cannot open '%s': %s\n", path, strerror(errno));
        free(tmp);
        return false;
    }
    bool ok = fbe_gen_c(schema, max_depth, f);
    ok = fclose(f) == 0 && ok;
    if (ok && rename(tmp, path) != 0) {
        fprintf(stderr, "fbec c: cannot write '%s': %s\n", path, strerror(errno));
        ok = false;
    }
    if (!ok)
        remove(tmp);
    free(tmp);
    return ok;
}

int cmd_c(int argc, char **argv)
{
    const char *header = NULL, *max_depth = NULL;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (!rest)
        return FBEC_FAIL;
    int rest_argc = 0;
    rest[rest_argc++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *v;
        if ((v = fbec_option_value(argc, argv, &i, "--header")) != NULL) {
            if (!*v) {
                free(rest);
                return fbec_usage("c", "missing value after", "--header");
            }
            header = v;
        } else if ((v = fbec_option_value(argc, argv, &i, "--max-depth")) != NULL) {
            if (!*v) {
                free(rest);
                return fbec_usage("c", "missing value after", "--max-depth");
            }
            max_depth = v;
        } else {
            rest[rest_argc++] = argv[i];
        }
    }
    rest[rest_argc] = NULL;
    fbec_args args;
    bool parsed = fbec_parse_args("c", rest_argc, rest, &args);
    free(rest);
    if (!parsed)
        return FBEC_USAGE;
    if (args.help) {
        fputs(usage, stdout);
        return FBEC_OK;
    }
    const char *input = fbec_generator_input("c", &args, "the C file to write");
    if (!input)
        return FBEC_USAGE;
    if (header && strcmp(header, args.output) == 0)
        return fbec_usage("c", "--header and -o name the same file", NULL);
    unsigned long depth = 0;
    if (max_depth && !fbec_parse_uint(max_depth, 1, 1ul << 20, &depth))
        return fbec_usage("c", "--max-depth takes a number from 1 to 1048576, not", max_depth);

    fbe_schema *schema = fbec_load(&args, input);
    if (!schema)
        return FBEC_FAIL;
    bool ok = write_c(args.output, schema, (unsigned)depth);
    if (ok && header) {
        static const size_t none[2][4];
        ok = fbe_gen_aot_header("c", header, schema, none);
    }
    if (ok)
        ok = fbec_write_extras("c", &args, schema, args.output);
    if (!ok)
        remove(args.output); /* never half a result */
    fbe_schema_free(schema);
    return ok ? FBEC_OK : FBEC_FAIL;
}
