/* fbec decode: a binary frame as the reference's text form. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "codec_cli.h"

static const char usage[] =
    "usage: fbec decode [-I DIR]... --schema SCHEMA --type pkg.Type [--final]\n"
    "                   [--format text] [FILE] [-o OUT]\n"
    "\n"
    "Verifies the frame in FILE (standard input when absent or '-') like 'fbec verify'\n"
    "and refuses it with the same message when it is invalid; otherwise decodes it\n"
    "and prints the value in the reference's text form (operator<<) followed by a\n"
    "newline. Strings are printed raw, as the reference does.\n"
    "\n"
    "options:\n"
    "  -I DIR           also search DIR for imported schemas (repeatable)\n"
    "  --schema SCHEMA  the .fbe schema that declares the type\n"
    "  --type pkg.Type  the struct or message in the frame\n"
    "  --final          the frame is in the final model (default: standard)\n"
    "  --from MODEL     the frame's model: standard or final\n"
    "  --format FMT     text (the default and, for now, the only format; JSON output\n"
    "                   comes with a later release)\n"
    "  --backend NAME   interp (default), auto (= interp), jit (not built yet)\n"
    "  -o OUT           write to OUT instead of standard output\n"
    "  -h, --help       show this help\n"
    "\n"
    "exit status: 0 success, 1 invalid frame or unreadable schema/input, 2 usage error\n";

static int check_format(const char *cmd, const char *format)
{
    if (!format || strcmp(format, "text") == 0)
        return FBEC_OK;
    if (strcmp(format, "json") == 0) {
        fprintf(stderr, "fbec %s: --format json is not implemented yet (JSON output comes "
                        "in a later release); use --format text\n",
                cmd);
        return FBEC_USAGE;
    }
    return fbec_usage_error(cmd, "unknown format '%s' (expected text)", format);
}

/* Decodes the verified frame and renders it as text plus a newline into *text. */
static int decode(const char *cmd, const fbec_codec *c, fbe_model model, const fbec_input *in,
                  fbe_buffer *text)
{
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    int status = FBEC_FAIL;
    void *value = fbe_arena_alloc(&arena, c->type->ir->host_size);
    if (!value) {
        fprintf(stderr, "fbec %s: out of memory\n", cmd);
        goto done;
    }
    /* Strings borrow from the input, which outlives the value. */
    fbe_decode_options opts = {.arena = &arena, .flags = FBE_DECODE_BORROW};
    fbe_status st = fbe_deserialize(c->type, model, in->data, in->size, value, &opts, NULL);
    if (st != FBE_OK) {
        fprintf(stderr, "fbec %s: %s: cannot decode: %s\n", cmd, in->name, fbe_strerror(st));
        goto done;
    }
    st = fbe_print(c->type->ir, value, text);
    if (st == FBE_OK)
        st = fbe_buffer_append(text, "\n", 1);
    if (st != FBE_OK) {
        fprintf(stderr, "fbec %s: %s: cannot print the value: %s\n", cmd, in->name,
                fbe_strerror(st));
        goto done;
    }
    status = FBEC_OK;
done:
    fbe_arena_free(&arena);
    return status;
}

int cmd_decode(int argc, char **argv)
{
    static const char cmd[] = "decode";
    fbec_args args;
    if (!fbec_parse_args(cmd, argc, argv, &args))
        return FBEC_USAGE;
    if (args.help) {
        fputs(usage, stdout);
        return FBEC_OK;
    }
    if (args.to)
        return fbec_usage_error(cmd, "--to is not used by this command (see 'fbec convert')");
    int status = check_format(cmd, args.format);
    if (status != FBEC_OK)
        return status;
    if ((status = fbec_check_codec_args(cmd, &args)) != FBEC_OK)
        return status;
    fbe_model model;
    const char *path;
    if (!fbec_input_model(cmd, &args, &model) || !fbec_single_input(cmd, &args, &path))
        return FBEC_USAGE;

    fbec_codec c;
    if ((status = fbec_codec_open(cmd, &args, &c)) != FBEC_OK)
        return status;
    fbec_input in;
    if (!fbec_read_input(cmd, path, FBEC_MAX_INPUT, &in)) {
        fbec_codec_close(&c);
        return FBEC_FAIL;
    }
    fbe_buffer text;
    fbe_buffer_init(&text, NULL, NULL);
    status = FBEC_FAIL;
    if (fbec_verify_input(cmd, &c, model, &in) &&
        decode(cmd, &c, model, &in, &text) == FBEC_OK &&
        fbec_write_output(cmd, &args, text.data, text.size))
        status = FBEC_OK;
    fbe_buffer_free(&text);
    fbec_input_free(&in);
    fbec_codec_close(&c);
    return status;
}
