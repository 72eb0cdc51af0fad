/* fbec decode: a binary frame as the reference's text form. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "codec_cli.h"
#include "fbe/json.h"
#include "fbe/protocol.h"

static const char usage[] =
    "usage: fbec decode [-I DIR]... --schema SCHEMA --type pkg.Type [--final]\n"
    "                   [--format text|json [--pretty]] [FILE] [-o OUT]\n"
    "       fbec decode --stream [-I DIR]... --schema SCHEMA [--final] [FILE] [-o OUT]\n"
    "\n"
    "Verifies the frame in FILE (standard input when absent or '-') like 'fbec verify'\n"
    "and refuses it with the same message when it is invalid; otherwise decodes it\n"
    "and prints the value in the reference's text form (operator<<) followed by a\n"
    "newline. Strings are printed raw, as the reference does. With --format json it\n"
    "prints the value in the reference's JSON form instead (docs/json.md).\n"
    "\n"
    "options:\n"
    "  -I DIR           also search DIR for imported schemas (repeatable)\n"
    "  --schema SCHEMA  the .fbe schema that declares the type\n"
    "  --type pkg.Type  the struct or message in the frame\n"
    "  --final          the frame is in the final model (default: standard)\n"
    "  --stream         FILE is a protocol stream (what a Sender writes): print one\n"
    "                   line per message, '<package>.<Type>', a tab, its text form;\n"
    "                   frames of unknown types are skipped with a note; malformed\n"
    "                   frames are reported with their byte offset (exit status 1)\n"
    "  --from MODEL     the frame's model: standard or final\n"
    "  --format FMT     text (the default) or json\n"
    "  --pretty         with --format json: indent the JSON (4 spaces)\n"
    "  --backend NAME   interp (default); jit: native code compiled at start-up\n"
    "                   with LLVM; auto: the JIT when available, else interp\n"
    "  --cpu NAME       the JIT's target CPU, e.g. x86-64 (default: this machine's)\n"
    "  --cache DIR      the JIT's compiled-object cache: a later run with the same\n"
    "                   schema, CPU and fbe-c/LLVM versions skips LLVM's work\n"
    "  --jit-mode MODE  eager (default): all native code before the work starts;\n"
    "                   background: start interpreted, native code as it is ready\n"
    "  --stats          print the JIT's compile timings, entry points and machine\n"
    "                   code size to standard error\n"
    "  --max-memory N   the most memory decoding a frame may take, in bytes (k, M, G\n"
    "                   suffixes: binary multiples); default: 64 x the frame + 1 MiB\n"
    "  -o OUT           write to OUT instead of standard output\n"
    "  -h, --help       show this help\n"
    "\n"
    "exit status: 0 success, 1 invalid frame or unreadable schema/input, 2 usage error\n";

static int check_format(const char *cmd, const char *format)
{
    if (!format || strcmp(format, "text") == 0)
        return FBEC_OK;
    if (strcmp(format, "json") == 0)
        return FBEC_OK;
    return fbec_usage_error(cmd, "unknown format '%s' (expected text or json)", format);
}

/* Decodes the verified frame and writes it as text plus a newline to the output as
 * the text is produced (a large value's text is never whole in memory). */
static int decode(const char *cmd, const fbec_codec *c, fbe_model model, const fbec_input *in,
                  const fbec_args *args, size_t max_memory)
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
    fbe_decode_options opts = {
        .arena = &arena, .flags = FBE_DECODE_BORROW, .max_memory = max_memory};
    if (!fbec_deserialize_input(cmd, c, model, in, value, &opts))
        goto done;
    fbe_status st;
    fbec_sink out;
    if (!fbec_sink_open(cmd, args, &out))
        goto done;
    fbe_json_error jerr = {0};
    if (args->format && strcmp(args->format, "json") == 0)
        st = fbe_json_write(c->type->ir, value, args->pretty ? FBE_JSON_PRETTY : 0, &out.buf, &jerr);
    else
        st = fbe_print(c->type->ir, value, &out.buf);
    if (st == FBE_OK)
        st = fbe_buffer_append(&out.buf, "\n", 1);
    if (st != FBE_OK && st != FBE_IO) /* IO: reported when the output is closed */
        fprintf(stderr, "fbec %s: %s: cannot print the value: %s\n", cmd, in->name,
                jerr.status != FBE_OK ? jerr.message : fbe_strerror(st));
    if (fbec_sink_close(cmd, args, &out, st == FBE_OK))
        status = FBEC_OK;
done:
    fbe_arena_free(&arena);
    return status;
}

/* ---- --stream: a protocol stream, one line per message ---------------------------- */

typedef struct stream_state {
    const char *cmd;
    const char *name;
    fbe_receiver *receiver;
    fbe_buffer *text; /* a sink into the output */
    size_t max_memory; /* --max-memory, 0: the default budget */
    bool failed;
    fbe_status print_error;
} stream_state;

static void stream_message(void *ctx, const fbe_type *type, const void *value)
{
    stream_state *s = ctx;
    fbe_status st = fbe_buffer_append(s->text, type->ir->full_name, strlen(type->ir->full_name));
    if (st == FBE_OK)
        st = fbe_buffer_append(s->text, "\t", 1);
    if (st == FBE_OK)
        st = fbe_print(type->ir, value, s->text);
    if (st == FBE_OK)
        st = fbe_buffer_append(s->text, "\n", 1);
    if (st != FBE_OK && s->print_error == FBE_OK)
        s->print_error = st;
}

static void stream_unknown(void *ctx, const fbe_type *type, uint32_t number, const uint8_t *frame,
                           size_t size)
{
    stream_state *s = ctx;
    (void)type;
    (void)frame;
    fprintf(stderr, "fbec %s: %s: frame at byte %llu: unknown message type %lu (%zu bytes), skipped\n",
            s->cmd, s->name, (unsigned long long)fbe_receiver_offset(s->receiver),
            (unsigned long)number, size);
}

static void stream_error(void *ctx, const fbe_frame_error *e)
{
    stream_state *s = ctx;
    s->failed = true;
    fprintf(stderr, "fbec %s: %s: %sframe at byte %llu", s->cmd, s->name,
            e->status == FBE_MEMORY_LIMIT ? "" : "invalid ", (unsigned long long)e->stream_offset);
    switch (e->status) {
    case FBE_BAD_FRAME_SIZE: /* only the length prefix is checked for this */
        fprintf(stderr, ": frame size %zu is below the minimum; the rest of the stream "
                        "cannot be decoded\n", e->frame_size);
        return;
    case FBE_TOO_LARGE:
        fprintf(stderr, ": frame size %zu is over the limit; skipped\n", e->frame_size);
        return;
    case FBE_MEMORY_LIMIT: /* a valid frame, over the budget */
        fprintf(stderr, ": %s", fbe_strerror(e->status));
        fbec_budget_note(s->max_memory, e->frame_size);
        fputs("; skipped\n", stderr);
        return;
    default:
        break;
    }
    fprintf(stderr, ": %s (byte %llu", fbe_strerror(e->status),
            (unsigned long long)(e->stream_offset + e->verify.offset));
    if (e->verify.type && e->verify.field)
        fprintf(stderr, ", in %s.%s", e->verify.type->full_name, e->verify.field->name);
    else if (e->verify.type)
        fprintf(stderr, ", in %s", e->verify.type->full_name);
    else if (e->type)
        fprintf(stderr, ", in %s", e->type->ir->full_name);
    fputs("); skipped\n", stderr);
}

static int decode_stream(const char *cmd, const fbec_args *args)
{
    if (args->type)
        return fbec_usage_error(cmd, "--type is not used with --stream (frames carry their type)");
    if (args->format && strcmp(args->format, "text") != 0)
        return fbec_usage_error(cmd, "--stream prints the text form only (--format text)");
    /* The codec options are those of the other codec commands (a type is not needed). */
    fbec_args check = *args;
    check.type = "-";
    int status = fbec_check_codec_args(cmd, &check);
    if (status != FBEC_OK)
        return status;
    fbe_model model;
    const char *path;
    if (!fbec_input_model(cmd, args, &model) || !fbec_single_input(cmd, args, &path))
        return FBEC_USAGE;

    size_t max_memory;
    if (!fbec_max_memory(cmd, args, &max_memory))
        return FBEC_USAGE;

    fbe_schema *schema = fbec_load(args, args->schema);
    if (!schema)
        return FBEC_FAIL;
    status = FBEC_FAIL;
    fbe_status st = FBE_OK;
    fbec_args codec_args = *args;
    codec_args.jit_models = FBE_JIT_MODEL(model);
    codec_args.jit_parts = FBE_JIT_READ_OF(model);
    fbe_codec *codec = fbec_make_codec(cmd, &codec_args, schema, NULL);
    fbe_protocol *protocol = codec ? fbe_protocol_create(codec, NULL, &st) : NULL;
    bool use_stdin = !path || strcmp(path, "-") == 0;
    const char *name = use_stdin ? FBEC_STDIN_NAME : path;
    FILE *in = NULL;
    fbe_receiver *receiver = NULL;
    fbec_sink out = {0};
    stream_state s = {.cmd = cmd, .name = name, .text = &out.buf, .max_memory = max_memory};
    if (!protocol) {
        if (codec)
            fprintf(stderr, "fbec %s: cannot create the protocol: %s\n", cmd, fbe_strerror(st));
        goto done;
    }
    in = use_stdin ? stdin : fopen(path, "rb");
    if (!in) {
        fprintf(stderr, "fbec %s: cannot read '%s': %s\n", cmd, path, strerror(errno));
        goto done;
    }
    fbe_receiver_options ro = {
        .model = model,
        .max_frame_size = FBEC_MAX_INPUT, /* a local file: any frame the format allows */
        /* each message is held to the decode budget of its own frame, or to this */
        .max_decoded_size = max_memory,
        .decode_flags = FBE_DECODE_BORROW,
        .ctx = &s,
        .on_message = stream_message,
        .on_unknown = stream_unknown,
        .on_error = stream_error,
    };
    receiver = fbe_receiver_create(protocol, &ro, &st);
    if (!receiver) {
        fprintf(stderr, "fbec %s: %s\n", cmd, fbe_strerror(st));
        goto done;
    }
    s.receiver = receiver;
    if (!fbec_sink_open(cmd, args, &out))
        goto done;
    static uint8_t chunk[64 * 1024];
    size_t n;
    bool stopped = false;
    while (!stopped && (n = fread(chunk, 1, sizeof chunk, in)) > 0) {
        st = fbe_receiver_receive(receiver, chunk, n);
        if (st == FBE_NOMEM) {
            fprintf(stderr, "fbec %s: out of memory\n", cmd);
            goto done;
        }
        stopped = st == FBE_BAD_FRAME_SIZE; /* no next frame boundary */
    }
    if (ferror(in)) {
        fprintf(stderr, "fbec %s: cannot read '%s': %s\n", cmd, name, strerror(errno));
        goto done;
    }
    if (s.print_error != FBE_OK) {
        fprintf(stderr, "fbec %s: %s: cannot print a message: %s\n", cmd, name,
                fbe_strerror(s.print_error));
        goto done;
    }
    size_t partial = stopped ? 0 : fbe_receiver_buffered(receiver);
    if (partial) {
        unsigned long long end = (unsigned long long)fbe_receiver_offset(receiver);
        fprintf(stderr, "fbec %s: %s: the stream ends inside the frame at byte %llu (%zu byte%s "
                        "of it present)\n",
                cmd, name, end - partial, partial, partial == 1 ? "" : "s");
        s.failed = true;
    }
    status = FBEC_OK;
done:
    if (out.file && !fbec_sink_close(cmd, args, &out, status == FBEC_OK))
        status = FBEC_FAIL;
    if (status == FBEC_OK && s.failed)
        status = FBEC_FAIL;
    if (in && in != stdin)
        fclose(in);
    fbe_receiver_free(receiver);
    fbe_protocol_free(protocol);
    fbe_codec_free(codec);
    fbe_schema_free(schema);
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
    if (args.pretty && !(args.format && strcmp(args.format, "json") == 0))
        return fbec_usage_error(cmd, "--pretty needs --format json");
    if (args.stream)
        return decode_stream(cmd, &args);
    if ((status = fbec_check_codec_args(cmd, &args)) != FBEC_OK)
        return status;
    fbe_model model;
    const char *path;
    if (!fbec_input_model(cmd, &args, &model) || !fbec_single_input(cmd, &args, &path))
        return FBEC_USAGE;

    size_t max_memory;
    if (!fbec_max_memory(cmd, &args, &max_memory))
        return FBEC_USAGE;

    fbec_codec c;
    args.jit_models = FBE_JIT_MODEL(model);
    /* verify runs only on a frame deserialize refuses, to say where: the interpreter's */
    args.jit_parts = FBE_JIT_DESERIALIZE_OF(model);
    if ((status = fbec_codec_open(cmd, &args, &c)) != FBEC_OK)
        return status;
    fbec_input in;
    if (!fbec_read_input(cmd, path, FBEC_MAX_INPUT, &in)) {
        fbec_codec_close(&c);
        return FBEC_FAIL;
    }
    status = decode(cmd, &c, model, &in, &args, max_memory);
    fbec_input_free(&in);
    fbec_codec_close(&c);
    return status;
}
