/* fbec convert: re-encode a frame, standard <-> final (or into canonical form). */
#include <stdio.h>

#include "cli.h"
#include "codec_cli.h"

static const char usage[] =
    "usage: fbec convert [-I DIR]... --schema SCHEMA --type pkg.Type\n"
    "                    --from standard|final --to standard|final [FILE] [-o OUT]\n"
    "\n"
    "Verifies the frame in FILE (standard input when absent or '-') like 'fbec verify'\n"
    "and refuses it with the same message when it is invalid; otherwise decodes it\n"
    "in the --from model and writes it encoded in the --to model. Converting a model\n"
    "into itself writes the canonical encoding: the bytes the reference would write\n"
    "for the same value (older-schema frames gain this schema's defaults).\n"
    "The output is binary; it goes to standard output unless -o is given.\n"
    "\n"
    "options:\n"
    "  -I DIR           also search DIR for imported schemas (repeatable)\n"
    "  --schema SCHEMA  the .fbe schema that declares the type\n"
    "  --type pkg.Type  the struct or message in the frame\n"
    "  --from MODEL     the input's model: standard or final (required)\n"
    "  --to MODEL       the output's model: standard or final (required)\n"
    "  --backend NAME   interp (default); jit: native code compiled at start-up\n"
    "                   with LLVM; auto: the JIT when available, else interp\n"
    "  --cpu NAME       the JIT's target CPU, e.g. x86-64 (default: this machine's)\n"
    "  --cache DIR      the JIT's compiled-object cache: a later run with the same\n"
    "                   schema, CPU and fbe-c/LLVM versions skips LLVM's work\n"
    "  --jit-mode MODE  eager (default): all native code before the work starts;\n"
    "                   background: start interpreted, native code as it is ready\n"
    "  --stats          print the JIT's compile timings, entry points and machine\n"
    "                   code size to standard error\n"
    "  --max-memory N   the most memory decoding the frame may take, in bytes (k, M,\n"
    "                   G suffixes: binary multiples); default: 64 x the frame + 1 MiB\n"
    "  -o OUT           write to OUT instead of standard output (OUT is only\n"
    "                   created once the conversion has succeeded)\n"
    "  -h, --help       show this help\n"
    "\n"
    "exit status: 0 success, 1 invalid frame or unreadable schema/input, 2 usage error\n";

static int convert(const char *cmd, const fbec_codec *c, fbe_model from, fbe_model to,
                   const fbec_input *in, size_t max_memory, fbe_buffer *out)
{
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    int status = FBEC_FAIL;
    void *value = fbe_arena_alloc(&arena, c->type->ir->host_size);
    if (!value) {
        fprintf(stderr, "fbec %s: out of memory\n", cmd);
        goto done;
    }
    fbe_decode_options opts = {
        .arena = &arena, .flags = FBE_DECODE_BORROW, .max_memory = max_memory};
    if (!fbec_deserialize_input(cmd, c, from, in, value, &opts))
        goto done;
    fbe_status st = fbe_serialize(c->type, to, value, out);
    if (st != FBE_OK) {
        fprintf(stderr, "fbec %s: %s: cannot encode in the %s model: %s\n", cmd, in->name,
                fbec_model_name(to), fbe_strerror(st));
        goto done;
    }
    status = FBEC_OK;
done:
    fbe_arena_free(&arena);
    return status;
}

int cmd_convert(int argc, char **argv)
{
    static const char cmd[] = "convert";
    fbec_args args;
    if (!fbec_parse_args(cmd, argc, argv, &args))
        return FBEC_USAGE;
    if (args.help) {
        fputs(usage, stdout);
        return FBEC_OK;
    }
    if (args.final)
        return fbec_usage_error(cmd, "--final is not used by this command (use --from final)");
    if (args.format)
        return fbec_usage_error(cmd, "--format is not used by this command");
    int status = fbec_check_codec_args(cmd, &args);
    if (status != FBEC_OK)
        return status;
    if (!args.from)
        return fbec_usage_error(cmd, "no input model given (--from standard|final)");
    if (!args.to)
        return fbec_usage_error(cmd, "no output model given (--to standard|final)");
    fbe_model from, to;
    const char *path;
    size_t max_memory;
    if (!fbec_parse_model(cmd, "--from", args.from, &from) ||
        !fbec_parse_model(cmd, "--to", args.to, &to) || !fbec_single_input(cmd, &args, &path) ||
        !fbec_max_memory(cmd, &args, &max_memory))
        return FBEC_USAGE;

    fbec_codec c;
    args.jit_models = FBE_JIT_MODEL(from) | FBE_JIT_MODEL(to);
    /* verify runs only on a frame deserialize refuses, to say where: the interpreter's */
    args.jit_parts = FBE_JIT_DESERIALIZE_OF(from) | FBE_JIT_SERIALIZE_OF(to);
    if ((status = fbec_codec_open(cmd, &args, &c)) != FBEC_OK)
        return status;
    fbec_input in;
    if (!fbec_read_input(cmd, path, FBEC_MAX_INPUT, &in)) {
        fbec_codec_close(&c);
        return FBEC_FAIL;
    }
    fbe_buffer out;
    fbe_buffer_init(&out, NULL, NULL);
    status = FBEC_FAIL;
    if (convert(cmd, &c, from, to, &in, max_memory, &out) == FBEC_OK &&
        fbec_write_output(cmd, &args, out.data, out.size))
        status = FBEC_OK;
    fbe_buffer_free(&out);
    fbec_input_free(&in);
    fbec_codec_close(&c);
    return status;
}
