/* An untrusted byte stream into the protocol receiver (protoex.fbe, which
 * imports proto.fbe), standard and final model. The receiver keeps a log of
 * what it dispatched: each message (its type number and the bytes its value
 * serializes to), each unknown frame and each frame error (status, stream
 * offset, verify position). Oracles: the log is the same
 *  - whether the stream arrives in one call or in chunks (partial frames are
 *    buffered and resumed at any split),
 *  - with and without the verify pass (FBE_RECEIVE_NO_VERIFY),
 *  - with the interpreter's codec and the JIT's. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fbe/buffer.h"
#include "fbe/codec.h"
#include "fbe/jit.h"
#include "fbe/protocol.h"
#include "fuzz_common.h"

static fbe_protocol *proto_interp, *proto_jit;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *path = FBE_SHARED_DIR "/golden/schemas/protoex.fbe";
    fbe_schema *schema = fbe_schema_load(path, NULL, NULL); /* lives as long as the process */
    FUZZ_CHECK(schema, "cannot load %s", path);
    fbe_status st;
    fbe_codec *interp = fbe_interp_create(schema, NULL, &st);
    FUZZ_CHECK(interp, "fbe_interp_create: %s", fbe_strerror(st));
    fbe_jit_options o = {.cache_dir = getenv("FBE_FUZZ_JIT_CACHE")};
    fbe_codec *jit = fbe_jit_compile(schema, &o, &st);
    FUZZ_CHECK(jit, "fbe_jit_compile: %s", fbe_strerror(st));
    proto_interp = fbe_protocol_create(interp, NULL, &st);
    proto_jit = fbe_protocol_create(jit, NULL, &st);
    FUZZ_CHECK(proto_interp && proto_jit, "fbe_protocol_create: %s", fbe_strerror(st));
    return 0;
}

typedef struct event_log {
    fbe_buffer text; /* one line per event */
    fbe_model model;
} event_log;

static void log_line(event_log *log, const char *line)
{
    FUZZ_CHECK(fbe_buffer_append(&log->text, line, strlen(line)) == FBE_OK, "out of memory");
}

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

static void on_message(void *ctx, const fbe_type *type, const void *value)
{
    event_log *log = ctx;
    fbe_buffer b;
    fbe_buffer_init(&b, NULL, NULL);
    fbe_status st = fbe_serialize(type, log->model, value, &b);
    FUZZ_CHECK(st == FBE_OK, "%s: a received message does not serialize: %s", type->ir->full_name,
               fbe_strerror(st));
    char line[128];
    snprintf(line, sizeof line, "message %u %zu %016llx\n", type->ir->type_number, b.size,
             (unsigned long long)fnv1a(b.data, b.size));
    fbe_buffer_free(&b);
    log_line(log, line);
}

static void on_unknown(void *ctx, const fbe_type *type, uint32_t type_number, const uint8_t *frame,
                       size_t size)
{
    (void)type;
    char line[128];
    snprintf(line, sizeof line, "unknown %u %zu %016llx\n", type_number, size,
             (unsigned long long)fnv1a(frame, size));
    log_line(ctx, line);
}

static void on_error(void *ctx, const fbe_frame_error *e)
{
    char line[160];
    snprintf(line, sizeof line, "error %s at %llu size %zu type %u verify %s@%zu\n",
             fbe_status_name(e->status), (unsigned long long)e->stream_offset, e->frame_size,
             e->type_number, fbe_status_name(e->verify.status), (size_t)e->verify.offset);
    log_line(ctx, line);
}

/* The log of one pass; chunk = 0: everything in one call. */
static void run(const fbe_protocol *protocol, fbe_model model, unsigned flags,
                const uint8_t *data, size_t size, size_t chunk, event_log *log)
{
    fbe_buffer_init(&log->text, NULL, NULL);
    log->model = model;
    fbe_receiver_options o = {.model = model, .flags = flags, .ctx = log, .on_message = on_message,
                              .on_unknown = on_unknown, .on_error = on_error,
                              .max_frame_size = 1 << 20};
    fbe_status st;
    fbe_receiver *r = fbe_receiver_create(protocol, &o, &st);
    FUZZ_CHECK(r, "fbe_receiver_create: %s", fbe_strerror(st));
    size_t step = chunk ? chunk : size;
    for (size_t at = 0; at < size; at += step) {
        size_t n = size - at < step ? size - at : step;
        st = fbe_receiver_receive(r, data + at, n);
        if (st == FBE_BAD_FRAME_SIZE)
            break; /* the stream has no next frame boundary: it stops */
    }
    /* Which call reported an error depends on the split; whether the stream
     * stopped and what is left buffered do not. */
    bool stopped = fbe_receiver_receive(r, "", 0) == FBE_BAD_FRAME_SIZE;
    char line[64];
    snprintf(line, sizeof line, "end %s buffered %zu\n", stopped ? "stopped" : "open",
             stopped ? 0 : fbe_receiver_buffered(r));
    log_line(log, line);
    fbe_receiver_free(r);
}

static void expect_same(const event_log *a, const event_log *b, const char *what)
{
    FUZZ_CHECK(a->text.size == b->text.size && !memcmp(a->text.data, b->text.data, a->text.size),
               "%s differs:\n--- one call, interpreter, verify\n%.*s--- %s\n%.*s", what,
               (int)a->text.size, (const char *)a->text.data, what, (int)b->text.size,
               (const char *)b->text.data);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t chunk = 1 + (size ? data[size - 1] % 23 : 0); /* any split, chosen by the input */
    for (int m = 0; m < 2; m++) {
        fbe_model model = (fbe_model)m;
        event_log base, other;
        run(proto_interp, model, 0, data, size, 0, &base);
        run(proto_interp, model, 0, data, size, chunk, &other);
        expect_same(&base, &other, "chunked");
        fbe_buffer_free(&other.text);
        run(proto_interp, model, FBE_RECEIVE_NO_VERIFY, data, size, 0, &other);
        expect_same(&base, &other, "no verify");
        fbe_buffer_free(&other.text);
        run(proto_jit, model, 0, data, size, 0, &other);
        expect_same(&base, &other, "jit");
        fbe_buffer_free(&other.text);
        fbe_buffer_free(&base.text);
    }
    return 0;
}
