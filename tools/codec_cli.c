#define _POSIX_C_SOURCE 200809L
#include "codec_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fbe/jit.h"

static bool is_stdin(const char *path)
{
    return !path || strcmp(path, "-") == 0;
}

static void read_error(const char *cmd, const fbec_input *in, const char *why)
{
    if (strcmp(in->name, FBEC_STDIN_NAME) == 0)
        fprintf(stderr, "fbec %s: cannot read standard input: %s\n", cmd, why);
    else
        fprintf(stderr, "fbec %s: cannot read '%s': %s\n", cmd, in->name, why);
}

static void too_large(const char *cmd, const fbec_input *in, size_t limit)
{
    char why[128];
    snprintf(why, sizeof why, "more than %zu bytes, larger than any frame", limit);
    read_error(cmd, in, why);
}

bool fbec_read_input(const char *cmd, const char *path, size_t limit, fbec_input *in)
{
    memset(in, 0, sizeof *in);
    in->name = is_stdin(path) ? FBEC_STDIN_NAME : path;
    int fd = is_stdin(path) ? STDIN_FILENO : open(path, O_RDONLY);
    if (fd < 0) {
        read_error(cmd, in, strerror(errno));
        return false;
    }
    /* Regular files: one allocation of the right size, and an early refusal of
     * oversized input. Pipes and terminals grow the buffer as data arrives. */
    size_t cap = 64 * 1024;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        if ((uintmax_t)st.st_size > limit) {
            too_large(cmd, in, limit);
            goto fail;
        }
        cap = (size_t)st.st_size + 1; /* +1: see EOF without another allocation */
    }
    in->data = malloc(cap);
    if (!in->data) {
        read_error(cmd, in, "out of memory");
        goto fail;
    }
    for (;;) {
        if (in->size == cap) {
            if (cap > limit) {
                too_large(cmd, in, limit);
                goto fail;
            }
            size_t grown = cap > limit / 2 ? limit + 1 : cap * 2;
            uint8_t *p = realloc(in->data, grown);
            if (!p) {
                read_error(cmd, in, "out of memory");
                goto fail;
            }
            in->data = p;
            cap = grown;
        }
        ssize_t n = read(fd, in->data + in->size, cap - in->size);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            read_error(cmd, in, strerror(errno));
            goto fail;
        }
        if (n == 0)
            break;
        in->size += (size_t)n;
    }
    if (in->size > limit) {
        too_large(cmd, in, limit);
        goto fail;
    }
    if (fd != STDIN_FILENO)
        close(fd);
    return true;

fail:
    if (fd != STDIN_FILENO)
        close(fd);
    fbec_input_free(in);
    return false;
}

void fbec_input_free(fbec_input *in)
{
    free(in->data);
    in->data = NULL;
    in->size = 0;
}

int fbec_usage_error(const char *cmd, const char *fmt, ...)
{
    fprintf(stderr, "fbec %s: ", cmd);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nrun 'fbec %s --help' for usage\n", cmd);
    return FBEC_USAGE;
}

bool fbec_single_input(const char *cmd, const fbec_args *args, const char **path)
{
    *path = NULL;
    if (args->input_count > 1) {
        fbec_usage_error(cmd, "expected at most one input file, got %zu", args->input_count);
        return false;
    }
    if (args->input_count == 1)
        *path = args->inputs[0];
    return true;
}

int fbec_check_codec_args(const char *cmd, const fbec_args *args)
{
    if (!args->schema)
        return fbec_usage_error(cmd, "no schema given (--schema FILE)");
    if (!args->type)
        return fbec_usage_error(cmd, "no type given (--type pkg.Type)");
    const char *b = args->backend;
    bool interp = !b || strcmp(b, "interp") == 0;
    if (!interp && strcmp(b, "jit") != 0 && strcmp(b, "auto") != 0)
        return fbec_usage_error(cmd, "unknown backend '%s' (expected interp, jit or auto)", b);
    if (interp && args->cpu)
        return fbec_usage_error(cmd, "--cpu needs the JIT (--backend jit or auto)");
    if (interp && args->stats)
        return fbec_usage_error(cmd, "--stats needs the JIT (--backend jit or auto)");
    if (interp && args->cache)
        return fbec_usage_error(cmd, "--cache needs the JIT (--backend jit or auto)");
    if (interp && args->jit_mode)
        return fbec_usage_error(cmd, "--jit-mode needs the JIT (--backend jit or auto)");
    if (args->jit_mode && strcmp(args->jit_mode, "eager") != 0 &&
        strcmp(args->jit_mode, "background") != 0)
        return fbec_usage_error(cmd, "unknown JIT mode '%s' (expected eager or background)",
                                args->jit_mode);
    return FBEC_OK;
}

bool fbec_parse_model(const char *cmd, const char *opt, const char *value, fbe_model *model)
{
    if (strcmp(value, "standard") == 0) {
        *model = FBE_STANDARD;
        return true;
    }
    if (strcmp(value, "final") == 0) {
        *model = FBE_FINAL;
        return true;
    }
    fbec_usage_error(cmd, "unknown model '%s' after %s (expected standard or final)", value,
                     opt);
    return false;
}

bool fbec_input_model(const char *cmd, const fbec_args *args, fbe_model *model)
{
    *model = args->final ? FBE_FINAL : FBE_STANDARD;
    if (!args->from)
        return true;
    fbe_model from;
    if (!fbec_parse_model(cmd, "--from", args->from, &from))
        return false;
    if (args->final && from != FBE_FINAL) {
        fbec_usage_error(cmd, "--final contradicts --from %s", args->from);
        return false;
    }
    *model = from;
    return true;
}

const char *fbec_model_name(fbe_model model)
{
    return model == FBE_FINAL ? "final" : "standard";
}

static void no_type(const char *cmd, const fbec_args *args, const char *name)
{
    fprintf(stderr, "fbec %s: no type '%s' in schema %s\n", cmd, name, args->schema);
}

fbe_codec *fbec_make_codec(const char *cmd, const fbec_args *args, const fbe_schema *schema,
                           const char *only_type)
{
    const char *b = args->backend ? args->backend : "interp";
    fbe_status st = FBE_OK;
    fbe_codec *codec;
    if (strcmp(b, "interp") == 0) {
        codec = fbe_interp_create(schema, NULL, &st);
    } else {
        /* auto takes whatever fbe_jit_compile gives (the interpreter without
         * LLVM or when compilation fails); jit insists on native code, unless
         * asked to compile in the background (a one-shot command then mostly
         * runs interpreted: the mode is there to show the results agree). A
         * command compiles only the models, sides and type it uses. */
        bool background = args->jit_mode && strcmp(args->jit_mode, "background") == 0;
        const char *types[] = {only_type, NULL};
        fbe_jit_options opts = {.cpu = args->cpu,
                                .require_native = strcmp(b, "jit") == 0 && !background,
                                .cache_dir = args->cache,
                                .models = args->jit_models,
                                .parts = args->jit_parts,
                                .mode = background ? FBE_JIT_BACKGROUND : FBE_JIT_EAGER,
                                .types = only_type ? types : NULL};
        codec = fbe_jit_compile(schema, &opts, &st);
        if (codec && args->stats)
            fbec_print_jit_stats(cmd, codec);
    }
    if (!codec && only_type && st == FBE_INVALID_ARGUMENT) { /* the JIT refused the name */
        no_type(cmd, args, only_type);
    } else if (!codec) {
        const char *what = strcmp(b, "interp") == 0 ? "interpreter" : "JIT";
        if (st == FBE_UNSUPPORTED && !fbe_jit_available())
            fprintf(stderr, "fbec %s: cannot create the %s codec: this fbec was built without "
                            "LLVM (use --backend interp or auto)\n", cmd, what);
        else
            fprintf(stderr, "fbec %s: cannot create the %s codec: %s\n", cmd, what,
                    fbe_strerror(st));
    }
    return codec;
}

void fbec_print_jit_stats(const char *cmd, const fbe_codec *codec)
{
    fbe_jit_stats s = fbe_jit_codec_stats(codec);
    if (s.mode == FBE_JIT_BACKGROUND && fbe_codec_backend(codec) == FBE_BACKEND_JIT) {
        fprintf(stderr,
                "fbec %s: jit codec (background), %zu native entry points, %zu pending; "
                "returned in %.1f ms\n",
                cmd, s.functions, s.pending, s.return_ms);
        return;
    }
    fprintf(stderr,
            "fbec %s: %s codec, %zu native entry points, %zu bytes of machine code; lower %.1f "
            "ms, optimize %.1f ms, codegen %.1f ms (%u threads)%s\n",
            cmd, fbe_backend_name(fbe_codec_backend(codec)), s.functions, s.code_bytes,
            s.lower_ms, s.optimize_ms, s.codegen_ms, s.threads, s.cached ? " (cached object)" : "");
}

int fbec_codec_open(const char *cmd, const fbec_args *args, fbec_codec *c)
{
    memset(c, 0, sizeof *c);
    c->schema = fbec_load(args, args->schema);
    if (!c->schema)
        return FBEC_FAIL;
    c->codec = fbec_make_codec(cmd, args, c->schema, args->type);
    if (!c->codec) {
        fbec_codec_close(c);
        return FBEC_FAIL;
    }
    c->type = fbe_codec_type(c->codec, args->type);
    if (!c->type) {
        no_type(cmd, args, args->type);
        fbec_codec_close(c);
        return FBEC_FAIL;
    }
    return FBEC_OK;
}

void fbec_codec_close(fbec_codec *c)
{
    fbe_codec_free(c->codec);
    fbe_schema_free(c->schema);
    memset(c, 0, sizeof *c);
}

/* Statuses that describe the bytes (as opposed to the machine or the backend). */
static bool is_frame_error(fbe_status st)
{
    switch (st) {
    case FBE_TRUNCATED:
    case FBE_BAD_FRAME_SIZE:
    case FBE_NULL_OFFSET:
    case FBE_BAD_OFFSET:
    case FBE_BAD_STRUCT_SIZE:
    case FBE_BAD_TYPE:
    case FBE_BAD_COUNT:
    case FBE_BAD_LENGTH:
    case FBE_TOO_DEEP:
    case FBE_TRAVERSAL_LIMIT:
    case FBE_FINAL_SIZE:
        return true;
    default:
        return false;
    }
}

/* Both models start with the frame's size (a valid frame fits the input); anything
 * after it is not part of this value: refuse rather than drop it silently. */
static bool whole_input(const char *cmd, const fbec_input *in)
{
    uint32_t frame = (uint32_t)in->data[0] | (uint32_t)in->data[1] << 8 |
                     (uint32_t)in->data[2] << 16 | (uint32_t)in->data[3] << 24;
    if (frame < in->size) {
        fprintf(stderr, "fbec %s: %s: %zu unexpected byte%s after the %" PRIu32 "-byte frame\n",
                cmd, in->name, in->size - frame, in->size - frame == 1 ? "" : "s", frame);
        return false;
    }
    return true;
}

bool fbec_verify_input(const char *cmd, const fbec_codec *c, fbe_model model,
                       const fbec_input *in)
{
    fbe_verify_info info = {0};
    fbe_status st = fbe_verify(c->type, model, in->data, in->size, &info);
    if (st != FBE_OK && !is_frame_error(st)) {
        /* Not the data's fault (out of memory, a backend without this model). */
        fprintf(stderr, "fbec %s: %s: cannot verify: %s\n", cmd, in->name, fbe_strerror(st));
        return false;
    }
    if (st != FBE_OK) {
        fprintf(stderr, "fbec %s: %s: invalid frame at byte %zu: %s", cmd, in->name,
                info.offset, fbe_strerror(st));
        if (info.type && info.field)
            fprintf(stderr, " (in %s.%s)", info.type->full_name, info.field->name);
        else if (info.type)
            fprintf(stderr, " (in %s)", info.type->full_name);
        fputc('\n', stderr);
        return false;
    }
    return whole_input(cmd, in);
}

bool fbec_deserialize_input(const char *cmd, const fbec_codec *c, fbe_model model,
                            const fbec_input *in, void *value, const fbe_decode_options *opts)
{
    fbe_status st = fbe_deserialize(c->type, model, in->data, in->size, value, opts, NULL);
    if (st == FBE_OK)
        return whole_input(cmd, in);
    if (fbec_verify_input(cmd, c, model, in))
        fbec_decode_error(cmd, in->name, st, opts->max_memory, in->size);
    return false;
}

bool fbec_max_memory(const char *cmd, const fbec_args *args, size_t *bytes)
{
    *bytes = 0;
    const char *s = args->max_memory;
    if (!s)
        return true;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = 0;
    if (end != s && *end && !end[1]) {
        const char *units = "kKmMgG";
        const char *u = strchr(units, *end);
        if (u) {
            shift = 10 * (unsigned)(1 + (u - units) / 2);
            end++;
        }
    }
    if (errno || end == s || *end || s[0] == '-' || v == 0 || v > (SIZE_MAX >> shift)) {
        fbec_usage_error(cmd, "invalid size '%s' after --max-memory (bytes, or with a k, M or G "
                              "suffix; not 0)", s);
        return false;
    }
    *bytes = (size_t)v << shift;
    return true;
}

void fbec_decode_error(const char *cmd, const char *name, fbe_status st, size_t max_memory,
                       size_t input)
{
    fprintf(stderr, "fbec %s: %s: cannot decode: %s", cmd, name, fbe_strerror(st));
    if (st == FBE_MEMORY_LIMIT)
        fbec_budget_note(max_memory, input);
    fputc('\n', stderr);
}

void fbec_budget_note(size_t max_memory, size_t input)
{
    fprintf(stderr, " (%zu bytes%s; raise it with --max-memory)",
            max_memory ? max_memory : fbe_decode_memory_default(input),
            max_memory ? "" : ": 64 x the input + 1 MiB");
}

static fbe_status file_flush(void *ctx, const void *data, size_t len)
{
    return fwrite(data, 1, len, ctx) == len ? FBE_OK : FBE_IO;
}

bool fbec_sink_open(const char *cmd, const fbec_args *args, fbec_sink *sink)
{
    sink->file = fbec_open_output(cmd, args);
    if (!sink->file)
        return false;
    fbe_buffer_init_sink(&sink->buf, file_flush, sink->file, 64 * 1024);
    return true;
}

bool fbec_sink_close(const char *cmd, const fbec_args *args, fbec_sink *sink, bool ok)
{
    if (ok)
        ok = fbe_buffer_flush(&sink->buf) == FBE_OK;
    fbe_buffer_free(&sink->buf);
    ok = fbec_close_output(cmd, args, sink->file) && ok;
    if (!ok && sink->file != stdout)
        remove(args->output);
    sink->file = NULL;
    return ok;
}

bool fbec_write_output(const char *cmd, const fbec_args *args, const void *data, size_t len)
{
    FILE *out = fbec_open_output(cmd, args);
    if (!out)
        return false;
    if (len)
        fwrite(data, 1, len, out);
    bool ok = fbec_close_output(cmd, args, out);
    /* Never leave a truncated file behind. */
    if (!ok && out != stdout)
        remove(args->output);
    return ok;
}
