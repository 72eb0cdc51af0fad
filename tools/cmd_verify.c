/* fbec verify: is a binary frame safe to decode? Silent when it is, like cmp. */
#include <stdio.h>

#include "cli.h"
#include "codec_cli.h"

static const char usage[] =
    "usage: fbec verify [-I DIR]... --schema SCHEMA --type pkg.Type [--final] [FILE]\n"
    "\n"
    "Checks that FILE (standard input when absent or '-') holds exactly one frame of\n"
    "pkg.Type that decodes without reading outside it: every offset, size, count and\n"
    "type number is checked (docs/codec.md). Prints nothing when the frame is valid;\n"
    "otherwise prints the first problem and exits with status 1:\n"
    "  fbec verify: FILE: invalid frame at byte N: REASON (in pkg.Type.field)\n"
    "Bytes after the end of the frame are an error too.\n"
    "\n"
    "options:\n"
    "  -I DIR           also search DIR for imported schemas (repeatable)\n"
    "  --schema SCHEMA  the .fbe schema that declares the type\n"
    "  --type pkg.Type  the struct or message in the frame\n"
    "  --final          the frame is in the final model (default: standard)\n"
    "  --from MODEL     the frame's model: standard or final\n"
    "  --backend NAME   interp (default); jit: native code compiled at start-up\n"
    "                   with LLVM; auto: the JIT when available, else interp\n"
    "  --cpu NAME       the JIT's target CPU, e.g. x86-64 (default: this machine's)\n"
    "  --cache DIR      the JIT's compiled-object cache: a later run with the same\n"
    "                   schema, CPU and fbe-c/LLVM versions skips LLVM's work\n"
    "  --jit-mode MODE  eager (default): all native code before the work starts;\n"
    "                   background: start interpreted, native code as it is ready\n"
    "  --stats          print the JIT's compile timings, entry points and machine\n"
    "                   code size to standard error\n"
    "  -h, --help       show this help\n"
    "\n"
    "exit status: 0 valid, 1 invalid frame or unreadable schema/input, 2 usage error\n";

int cmd_verify(int argc, char **argv)
{
    static const char cmd[] = "verify";
    fbec_args args;
    if (!fbec_parse_args(cmd, argc, argv, &args))
        return FBEC_USAGE;
    if (args.help) {
        fputs(usage, stdout);
        return FBEC_OK;
    }
    if (args.to)
        return fbec_usage_error(cmd, "--to is not used by this command");
    if (args.format)
        return fbec_usage_error(cmd, "--format is not used by this command");
    if (args.output)
        return fbec_usage_error(cmd, "-o is not used by this command (it prints nothing "
                                     "on success)");
    if (args.max_memory)
        return fbec_usage_error(cmd, "--max-memory is not used by this command (verify "
                                     "allocates nothing)");
    int status = fbec_check_codec_args(cmd, &args);
    if (status != FBEC_OK)
        return status;
    fbe_model model;
    const char *path;
    if (!fbec_input_model(cmd, &args, &model) || !fbec_single_input(cmd, &args, &path))
        return FBEC_USAGE;

    fbec_codec c;
    args.jit_models = FBE_JIT_MODEL(model);
    args.jit_parts = FBE_JIT_VERIFY_OF(model);
    if ((status = fbec_codec_open(cmd, &args, &c)) != FBEC_OK)
        return status;
    fbec_input in;
    if (!fbec_read_input(cmd, path, FBEC_MAX_INPUT, &in)) {
        fbec_codec_close(&c);
        return FBEC_FAIL;
    }
    status = fbec_verify_input(cmd, &c, model, &in) ? FBEC_OK : FBEC_FAIL;
    fbec_input_free(&in);
    fbec_codec_close(&c);
    return status;
}
