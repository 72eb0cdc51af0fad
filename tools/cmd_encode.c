/* fbec encode: a JSON document (the reference's JSON form) as a binary frame. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "codec_cli.h"
#include "fbe/json.h"

static const char usage[] =
    "usage: fbec encode [-I DIR]... --schema SCHEMA --type pkg.Type [--final]\n"
    "                   [--backend NAME] [FILE] [-o OUT]\n"
    "\n"
    "Reads one JSON object from FILE (standard input when absent or '-') in the\n"
    "reference's JSON form (docs/json.md) and writes it as a binary frame of the\n"
    "standard model, or of the final model with --final. Unknown members are\n"
    "ignored and missing members keep the schema defaults; anything else that does\n"
    "not fit the type is an error naming the JSON path, e.g.\n"
    "  fbec encode: in.json: $.orders[2].price: expected a number, got a string\n"
    "The output is binary; it goes to standard output unless -o is given.\n"
    "\n"
    "options:\n"
    "  -I DIR           also search DIR for imported schemas (repeatable)\n"
    "  --schema SCHEMA  the .fbe schema that declares the type\n"
    "  --type pkg.Type  the struct or message the JSON describes\n"
    "  --final          write the final model (default: standard)\n"
    "  --to MODEL       the output's model: standard or final\n"
    "  --backend NAME   interp (default); jit: native code compiled at start-up\n"
    "                   with LLVM; auto: the JIT when available, else interp\n"
    "  --cpu NAME       the JIT's target CPU, e.g. x86-64 (default: this machine's)\n"
    "  --cache DIR      the JIT's compiled-object cache: a later run with the same\n"
    "                   schema, CPU and fbe-c/LLVM versions skips LLVM's work\n"
    "  --jit-mode MODE  eager (default): all native code before the work starts;\n"
    "                   background: start interpreted, native code as it is ready\n"
    "  --stats          print the JIT's compile timings, entry points and machine\n"
    "                   code size to standard error\n"
    "  --max-memory N   the most memory reading the JSON may take, in bytes (k, M, G\n"
    "                   suffixes: binary multiples); default: 64 x the text + 1 MiB\n"
    "  -o OUT           write to OUT instead of standard output (OUT is only\n"
    "                   created once the encoding has succeeded)\n"
    "  -h, --help       show this help\n"
    "\n"
    "exit status: 0 success, 1 invalid JSON or unreadable schema/input, 2 usage error\n";

/* JSON text -> value -> frame bytes in *out. */
static int encode(const char *cmd, const fbec_codec *c, fbe_model model, const fbec_input *in,
                  size_t max_memory, fbe_buffer *out)
{
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    int status = FBEC_FAIL;
    void *value = fbe_arena_alloc(&arena, c->type->ir->host_size ? c->type->ir->host_size : 1);
    if (!value) {
        fprintf(stderr, "fbec %s: out of memory\n", cmd);
        goto done;
    }
    fbe_json_read_options opts = {.arena = &arena, .max_memory = max_memory};
    fbe_json_error err;
    if (fbe_json_read(NULL, c->type->ir, (const char *)in->data, in->size, value, &opts, &err) !=
        FBE_OK) {
        fprintf(stderr, "fbec %s: %s: %s%s\n", cmd, in->name, err.message,
                err.status == FBE_MEMORY_LIMIT ? " (raise it with --max-memory)" : "");
        goto done;
    }
    fbe_status st = fbe_serialize(c->type, model, value, out);
    if (st != FBE_OK) {
        fprintf(stderr, "fbec %s: %s: cannot encode the value: %s\n", cmd, in->name,
                fbe_strerror(st));
        goto done;
    }
    status = FBEC_OK;
done:
    fbe_arena_free(&arena);
    return status;
}

int cmd_encode(int argc, char **argv)
{
    static const char cmd[] = "encode";
    fbec_args args;
    if (!fbec_parse_args(cmd, argc, argv, &args))
        return FBEC_USAGE;
    if (args.help) {
        fputs(usage, stdout);
        return FBEC_OK;
    }
    if (args.from)
        return fbec_usage_error(cmd, "--from is not used by this command (the input is JSON)");
    if (args.format && strcmp(args.format, "json") != 0)
        return fbec_usage_error(cmd, "unknown input format '%s' (expected json)", args.format);
    if (args.pretty)
        return fbec_usage_error(cmd, "--pretty is for JSON output (see 'fbec decode')");
    int status = fbec_check_codec_args(cmd, &args);
    if (status != FBEC_OK)
        return status;
    fbe_model model = args.final ? FBE_FINAL : FBE_STANDARD;
    if (args.to) {
        if (!fbec_parse_model(cmd, "--to", args.to, &model))
            return FBEC_USAGE;
        if (args.final && model != FBE_FINAL)
            return fbec_usage_error(cmd, "--final contradicts --to %s", args.to);
    }
    const char *path;
    size_t max_memory;
    if (!fbec_single_input(cmd, &args, &path) || !fbec_max_memory(cmd, &args, &max_memory))
        return FBEC_USAGE;

    fbec_codec c;
    args.jit_models = FBE_JIT_MODEL(model);
    args.jit_parts = FBE_JIT_SERIALIZE_OF(model);
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
    if (encode(cmd, &c, model, &in, max_memory, &out) == FBEC_OK &&
        fbec_write_output(cmd, &args, out.data, out.size))
        status = FBEC_OK;
    fbe_buffer_free(&out);
    fbec_input_free(&in);
    fbec_codec_close(&c);
    return status;
}
