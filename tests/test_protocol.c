/* The protocol API (include/fbe/protocol.h) against the golden streams of
 * ../shared/golden/protocol, with the interpreter and the JIT:
 *
 *   - every stream, fed whole, one byte at a time and in random chunks, yields
 *     exactly its .txt; re-sending the decoded messages reproduces the .bin;
 *   - typed helpers of the generated headers (handler tables, pkg_send_Msg);
 *   - proxy, unknown types, dispatch tables, sender partial writes, logging;
 *   - malformed, oversized and undecodable frames, reentrancy, reset;
 *   - mutated streams (truncations, byte flips, absurd sizes): nothing crashes,
 *     memory stays bounded, everything dispatched is a valid message;
 *   - `fbec decode --stream`. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbe/jit.h"
#include "fbe/protocol.h"
#include "protoex.h" /* generated from the golden protoex.fbe (includes proto.h) */
#include "test_cmd.h"
#include "test_util.h"

/* ---- environment ------------------------------------------------------------------- */

typedef struct stream_case {
    const char *name;
    const char *schema;
    fbe_model model;
} stream_case;

static const stream_case streams[] = {
    {"proto", "proto", FBE_STANDARD},
    {"proto_final", "proto", FBE_FINAL},
    {"proto_reftest", "proto", FBE_STANDARD},
    {"proto_final_reftest", "proto", FBE_FINAL},
    {"protoex", "protoex", FBE_STANDARD},
    {"protoex_final", "protoex", FBE_FINAL},
};
#define STREAM_COUNT (sizeof streams / sizeof streams[0])

typedef struct env {
    fbe_schema *schema;
    fbe_codec *codec;
    fbe_protocol *protocol;
} env;

static void env_open(env *e, const char *schema, bool jit, const char *package)
{
    e->schema = load_golden(schema);
    fbe_status st;
    e->codec = jit ? fbe_jit_compile(e->schema, NULL, &st) : fbe_interp_create(e->schema, NULL, &st);
    assert_non_null(e->codec);
    e->protocol = fbe_protocol_create(e->codec, package, &st);
    assert_int_equal(st, FBE_OK);
    assert_non_null(e->protocol);
}

static void env_close(env *e)
{
    fbe_protocol_free(e->protocol);
    fbe_codec_free(e->codec);
    fbe_schema_free(e->schema);
}

typedef struct golden_stream {
    uint8_t *bin;
    size_t bin_len;
    char *txt;
    size_t txt_len;
    size_t lines;
} golden_stream;

static void stream_load(const stream_case *sc, golden_stream *g)
{
    char rel[128];
    snprintf(rel, sizeof rel, "golden/protocol/%s.bin", sc->name);
    g->bin = read_file(shared_path(rel), &g->bin_len);
    snprintf(rel, sizeof rel, "golden/protocol/%s.txt", sc->name);
    g->txt = (char *)read_file(shared_path(rel), &g->txt_len);
    g->lines = 0;
    for (size_t i = 0; i < g->txt_len; i++)
        g->lines += g->txt[i] == '\n';
}

static void stream_free(golden_stream *g)
{
    free(g->bin);
    free(g->txt);
}

/* ---- capturing what a receiver delivers --------------------------------------------- */

typedef struct capture {
    fbe_buffer text;      /* "<pkg>.<Type>\t<text>\n" per message */
    fbe_sender *resend;   /* decoded messages sent again (may be NULL) */
    size_t messages;
    size_t unknown;
    size_t errors;
    fbe_frame_error last_error;
    fbe_status first_error;
    fbe_receiver *receiver;
    /* Mutation runs: every decoded value must re-encode to a valid frame. */
    fbe_model model;
    bool roundtrip;
    fbe_buffer scratch;
} capture;

static void capture_init(capture *c)
{
    memset(c, 0, sizeof *c);
    fbe_buffer_init(&c->text, NULL, NULL);
    fbe_buffer_init(&c->scratch, NULL, NULL);
}

static void capture_free(capture *c)
{
    fbe_buffer_free(&c->text);
    fbe_buffer_free(&c->scratch);
}

static void append_line(fbe_buffer *out, const fbe_type *t, const void *v)
{
    const char *name = t->ir->full_name;
    assert_int_equal(fbe_buffer_append(out, name, strlen(name)), FBE_OK);
    assert_int_equal(fbe_buffer_append(out, "\t", 1), FBE_OK);
    assert_int_equal(fbe_print(t->ir, v, out), FBE_OK);
    assert_int_equal(fbe_buffer_append(out, "\n", 1), FBE_OK);
}

static void on_message(void *ctx, const fbe_type *t, const void *v)
{
    capture *c = ctx;
    c->messages++;
    if (c->roundtrip) {
        /* Mutated input: the value must be sound enough to encode again. */
        fbe_buffer_clear(&c->scratch);
        assert_int_equal(fbe_serialize(t, c->model, v, &c->scratch), FBE_OK);
        assert_int_equal(fbe_verify(t, c->model, c->scratch.data, c->scratch.size, NULL), FBE_OK);
        fbe_buffer_clear(&c->scratch);
        assert_int_equal(fbe_print(t->ir, v, &c->scratch), FBE_OK);
        return;
    }
    append_line(&c->text, t, v);
    if (c->resend)
        assert_int_equal(fbe_sender_send(c->resend, t, v, NULL), FBE_OK);
}

static void on_unknown(void *ctx, const fbe_type *t, uint32_t number, const uint8_t *frame,
                       size_t size)
{
    capture *c = ctx;
    assert_null(t);
    assert_true(size >= 8);
    (void)number;
    (void)frame;
    c->unknown++;
}

static void on_error(void *ctx, const fbe_frame_error *e)
{
    capture *c = ctx;
    if (c->errors++ == 0)
        c->first_error = e->status;
    c->last_error = *e;
    assert_int_not_equal(e->status, FBE_OK);
}

static fbe_receiver *make_receiver(const fbe_protocol *p, fbe_model model, capture *c,
                                   unsigned flags, size_t max_frame)
{
    fbe_receiver_options o = {
        .model = model,
        .max_frame_size = max_frame,
        .flags = flags,
        .ctx = c,
        .on_message = on_message,
        .on_unknown = on_unknown,
        .on_error = on_error,
    };
    fbe_status st;
    fbe_receiver *r = fbe_receiver_create(p, &o, &st);
    assert_int_equal(st, FBE_OK);
    c->receiver = r;
    c->model = model;
    return r;
}

typedef enum chunking { WHOLE, BYTEWISE, RANDOM_SMALL, RANDOM_LARGE, FIXED_3, CHUNK_COUNT } chunking;
static const char *const chunk_names[] = {"whole", "bytewise", "random 1..17", "random 1..700",
                                          "fixed 3"};

/* Feeds data in the given chunking; every call must return `expect`. */
static void feed(fbe_receiver *r, const uint8_t *data, size_t len, chunking how, uint64_t seed,
                 fbe_status expect)
{
    /* Each chunk is its own heap block, so reading past a chunk is caught. */
    size_t pos = 0;
    while (pos < len || (pos == 0 && len == 0)) {
        size_t n;
        switch (how) {
        case WHOLE: n = len; break;
        case BYTEWISE: n = 1; break;
        case RANDOM_SMALL: n = 1 + (size_t)(rng_next(&seed) % 17); break;
        case RANDOM_LARGE: n = 1 + (size_t)(rng_next(&seed) % 700); break;
        default: n = 3; break;
        }
        if (n > len - pos)
            n = len - pos;
        uint8_t *chunk = malloc(n ? n : 1);
        assert_non_null(chunk);
        if (n)
            memcpy(chunk, data + pos, n);
        fbe_status st = fbe_receiver_receive(r, chunk, n);
        free(chunk);
        if (expect != (fbe_status)-1)
            assert_int_equal(st, expect);
        pos += n;
        if (len == 0)
            break;
    }
}

static void expect_text(const fbe_buffer *got, const golden_stream *g, const char *what)
{
    if (got->size != g->txt_len || memcmp(got->data, g->txt, g->txt_len) != 0) {
        print_message("%s: text differs (%zu bytes, expected %zu)\n", what, got->size, g->txt_len);
        fail();
    }
}

static void expect_bytes(const uint8_t *got, size_t got_len, const golden_stream *g,
                         const char *what)
{
    if (got_len != g->bin_len || memcmp(got, g->bin, g->bin_len) != 0) {
        size_t i = 0;
        while (i < got_len && i < g->bin_len && got[i] == g->bin[i])
            i++;
        print_message("%s: bytes differ at %zu (%zu bytes, expected %zu)\n", what, i, got_len,
                      g->bin_len);
        fail();
    }
}

/* ---- golden streams ----------------------------------------------------------------- */

static void run_golden(bool jit)
{
    /* One codec per schema (JIT compilation is the slow part). */
    env envs[2];
    env_open(&envs[0], "proto", jit, NULL);
    env_open(&envs[1], "protoex", jit, NULL);
    if (jit)
        print_message("  backend %s\n", fbe_backend_name(fbe_codec_backend(envs[0].codec)));
    for (size_t i = 0; i < STREAM_COUNT; i++) {
        const stream_case *sc = &streams[i];
        env e = envs[strcmp(sc->schema, "proto") != 0];
        golden_stream g;
        stream_load(sc, &g);
        for (chunking how = WHOLE; how < CHUNK_COUNT; how++) {
            for (unsigned verify = 0; verify < 2; verify++) {
                capture c;
                capture_init(&c);
                fbe_sender_options so = {.model = sc->model};
                c.resend = fbe_sender_create(e.protocol, &so, NULL);
                assert_non_null(c.resend);
                fbe_receiver *r = make_receiver(e.protocol, sc->model, &c,
                                                verify ? 0 : FBE_RECEIVE_NO_VERIFY, 0);
                feed(r, g.bin, g.bin_len, how, 42 + i, FBE_OK);
                char what[128];
                snprintf(what, sizeof what, "%s (%s, %s%s)", sc->name, chunk_names[how],
                         jit ? "jit" : "interp", verify ? "" : ", no verify");
                assert_int_equal(c.errors, 0);
                assert_int_equal(c.unknown, 0);
                assert_int_equal(c.messages, g.lines);
                assert_int_equal(fbe_receiver_buffered(r), 0);
                assert_int_equal(fbe_receiver_offset(r), g.bin_len);
                expect_text(&c.text, &g, what);
                expect_bytes(fbe_sender_data(c.resend), fbe_sender_pending(c.resend), &g, what);
                fbe_receiver_free(r);
                fbe_sender_free(c.resend);
                capture_free(&c);
            }
        }
        stream_free(&g);
    }
    env_close(&envs[0]);
    env_close(&envs[1]);
}

static void test_golden_interp(void **state)
{
    (void)state;
    run_golden(false);
}

static void test_golden_jit(void **state)
{
    (void)state;
    run_golden(true);
}

/* ---- typed helpers of the generated headers --------------------------------------------- */

typedef struct typed_ctx {
    fbe_sender *sender;
    fbe_buffer text;
    size_t count[6];
} typed_ctx;

static void typed_line(typed_ctx *t, const char *full, const fbe_ir_struct *ir, const void *v)
{
    fbe_buffer_append(&t->text, full, strlen(full));
    fbe_buffer_append(&t->text, "\t", 1);
    assert_int_equal(fbe_print(ir, v, &t->text), FBE_OK);
    fbe_buffer_append(&t->text, "\n", 1);
}

static const fbe_ir_struct *ir_of(typed_ctx *t, const char *name)
{
    return fbe_protocol_message(fbe_sender_protocol(t->sender), name)->ir;
}

static void p_order(void *ctx, const proto_OrderMessage *m)
{
    typed_ctx *t = ctx;
    t->count[0]++;
    typed_line(t, "proto.OrderMessage", ir_of(t, "proto.OrderMessage"), m);
    assert_int_equal(proto_send_OrderMessage(t->sender, m), FBE_OK);
}

static void p_balance(void *ctx, const proto_BalanceMessage *m)
{
    typed_ctx *t = ctx;
    t->count[1]++;
    typed_line(t, "proto.BalanceMessage", ir_of(t, "proto.BalanceMessage"), m);
    assert_int_equal(proto_send_BalanceMessage(t->sender, m), FBE_OK);
}

static void p_account(void *ctx, const proto_AccountMessage *m)
{
    typed_ctx *t = ctx;
    t->count[2]++;
    typed_line(t, "proto.AccountMessage", ir_of(t, "proto.AccountMessage"), m);
    assert_int_equal(proto_send_AccountMessage(t->sender, m), FBE_OK);
}

static void x_order(void *ctx, const protoex_OrderMessage *m)
{
    typed_ctx *t = ctx;
    t->count[3]++;
    typed_line(t, "protoex.OrderMessage", ir_of(t, "protoex.OrderMessage"), m);
    assert_int_equal(protoex_send_OrderMessage(t->sender, m), FBE_OK);
}

static void x_balance(void *ctx, const protoex_BalanceMessage *m)
{
    typed_ctx *t = ctx;
    t->count[4]++;
    typed_line(t, "protoex.BalanceMessage", ir_of(t, "protoex.BalanceMessage"), m);
    assert_int_equal(protoex_send_BalanceMessage(t->sender, m), FBE_OK);
}

static void x_account(void *ctx, const protoex_AccountMessage *m)
{
    typed_ctx *t = ctx;
    t->count[5]++;
    typed_line(t, "protoex.AccountMessage", ir_of(t, "protoex.AccountMessage"), m);
    assert_int_equal(protoex_send_AccountMessage(t->sender, m), FBE_OK);
}

static void test_typed_helpers(void **state)
{
    (void)state;
    for (size_t i = 4; i < 6; i++) { /* the protoex streams: both packages */
        const stream_case *sc = &streams[i];
        env e;
        env_open(&e, "protoex", false, NULL);
        golden_stream g;
        stream_load(sc, &g);
        typed_ctx t = {0};
        fbe_buffer_init(&t.text, NULL, NULL);
        fbe_sender_options so = {.model = sc->model};
        t.sender = fbe_sender_create(e.protocol, &so, NULL);
        fbe_receiver_options ro = {.model = sc->model};
        fbe_receiver *r = fbe_receiver_create(e.protocol, &ro, NULL);
        proto_handlers ph = {.ctx = &t, .on_OrderMessage = p_order,
                             .on_BalanceMessage = p_balance, .on_AccountMessage = p_account};
        protoex_handlers xh = {.ctx = &t, .on_OrderMessage = x_order,
                               .on_BalanceMessage = x_balance, .on_AccountMessage = x_account};
        assert_int_equal(proto_receiver_bind(r, &ph), FBE_OK);
        assert_int_equal(protoex_receiver_bind(r, &xh), FBE_OK);
        feed(r, g.bin, g.bin_len, RANDOM_SMALL, 7, FBE_OK);
        expect_text(&t.text, &g, sc->name);
        expect_bytes(fbe_sender_data(t.sender), fbe_sender_pending(t.sender), &g, sc->name);
        for (int k = 0; k < 6; k++)
            assert_true(t.count[k] > 0);
        fbe_receiver_free(r);
        fbe_sender_free(t.sender);
        fbe_buffer_free(&t.text);
        stream_free(&g);
        env_close(&e);
    }
    /* A handler table of a package the protocol does not dispatch. */
    env e;
    env_open(&e, "protoex", false, "proto");
    fbe_receiver *r = fbe_receiver_create(e.protocol, NULL, NULL);
    protoex_handlers xh = {.on_OrderMessage = x_order};
    assert_int_equal(protoex_receiver_bind(r, &xh), FBE_INVALID_ARGUMENT);
    fbe_receiver_free(r);
    env_close(&e);
}

/* ---- tables, proxy, unknown types ------------------------------------------------------- */

static void test_tables(void **state)
{
    (void)state;
    env e;
    env_open(&e, "protoex", false, NULL);
    const fbe_protocol *p = e.protocol;
    assert_string_equal(fbe_protocol_package(p)->name, "protoex");
    assert_int_equal(fbe_protocol_message_count(p), 6);
    /* Own messages first, then the import's. */
    assert_string_equal(fbe_protocol_message_at(p, 0)->ir->full_name, "protoex.OrderMessage");
    assert_string_equal(fbe_protocol_message_at(p, 3)->ir->full_name, "proto.OrderMessage");
    assert_null(fbe_protocol_message_at(p, 6));
    assert_string_equal(fbe_protocol_dispatch(p, 11)->ir->full_name, "protoex.OrderMessage");
    assert_string_equal(fbe_protocol_dispatch(p, 1)->ir->full_name, "proto.OrderMessage");
    assert_null(fbe_protocol_dispatch(p, 4));
    assert_null(fbe_protocol_dispatch(p, 0xFFFFFFFFu));
    assert_string_equal(fbe_protocol_message(p, "OrderMessage")->ir->full_name,
                        "protoex.OrderMessage");
    assert_string_equal(fbe_protocol_message(p, "proto.AccountMessage")->ir->full_name,
                        "proto.AccountMessage");
    assert_null(fbe_protocol_message(p, "proto.Account")); /* a struct, not a message */
    assert_null(fbe_protocol_message(p, "Order"));
    assert_null(fbe_protocol_message(p, "nope.OrderMessage"));
    env_close(&e);

    env_open(&e, "protoex", false, "proto");
    assert_string_equal(fbe_protocol_package(e.protocol)->name, "proto");
    assert_int_equal(fbe_protocol_message_count(e.protocol), 3);
    assert_null(fbe_protocol_dispatch(e.protocol, 11));
    /* Every message of the codec can still be sent. */
    assert_non_null(fbe_protocol_message(e.protocol, "protoex.OrderMessage"));
    env_close(&e);

    fbe_schema *s = load_golden("proto");
    fbe_codec *c = fbe_interp_create(s, NULL, NULL);
    fbe_status st;
    assert_null(fbe_protocol_create(c, "nope", &st));
    assert_int_equal(st, FBE_UNKNOWN_TYPE);
    assert_null(fbe_protocol_create(NULL, NULL, &st));
    assert_int_equal(st, FBE_INVALID_ARGUMENT);
    fbe_codec_free(c);
    fbe_schema_free(s);

    /* Frame type numbers. */
    uint8_t f[16] = {16, 0, 0, 0, 8, 0, 0, 0, 8, 0, 0, 0, 7, 0, 0, 0};
    uint32_t n = 0;
    assert_int_equal(fbe_frame_type_number(FBE_STANDARD, f, 16, &n), FBE_OK);
    assert_int_equal(n, 7);
    assert_int_equal(fbe_frame_type_number(FBE_FINAL, f, 16, &n), FBE_OK);
    assert_int_equal(n, 8);
    assert_int_equal(fbe_frame_type_number(FBE_STANDARD, f, 15, &n), FBE_BAD_FRAME_SIZE);
    assert_int_equal(fbe_frame_type_number(FBE_FINAL, f, 7, &n), FBE_BAD_FRAME_SIZE);
    f[4] = 9;
    assert_int_equal(fbe_frame_type_number(FBE_STANDARD, f, 16, &n), FBE_BAD_OFFSET);
}

typedef struct proxy_ctx {
    fbe_buffer frames;
    fbe_buffer names;
    size_t count, unknown;
} proxy_ctx;

static void proxy_frame(void *ctx, const fbe_type *t, uint32_t number, const uint8_t *frame,
                        size_t size)
{
    proxy_ctx *p = ctx;
    assert_non_null(t);
    assert_int_equal(t->ir->type_number, number);
    p->count++;
    fbe_buffer_append(&p->frames, frame, size);
    fbe_buffer_append(&p->names, t->ir->full_name, strlen(t->ir->full_name));
    fbe_buffer_append(&p->names, "\n", 1);
}

static void proxy_unknown(void *ctx, const fbe_type *t, uint32_t number, const uint8_t *frame,
                          size_t size)
{
    proxy_ctx *p = ctx;
    assert_null(t);
    (void)number;
    p->unknown++;
    fbe_buffer_append(&p->frames, frame, size);
}

static void test_proxy(void **state)
{
    (void)state;
    for (size_t i = 0; i < STREAM_COUNT; i++) {
        const stream_case *sc = &streams[i];
        golden_stream g;
        stream_load(sc, &g);
        /* Expected names: the first column of .txt. */
        fbe_buffer want;
        fbe_buffer_init(&want, NULL, NULL);
        for (const char *l = g.txt; l < g.txt + g.txt_len;) {
            const char *tab = strchr(l, '\t');
            const char *nl = memchr(l, '\n', (size_t)(g.txt + g.txt_len - l));
            fbe_buffer_append(&want, l, (size_t)(tab - l));
            fbe_buffer_append(&want, "\n", 1);
            l = nl + 1;
        }
        for (int pkg = 0; pkg < 2; pkg++) {
            env e;
            env_open(&e, sc->schema, false, pkg ? "proto" : NULL);
            proxy_ctx p = {0};
            fbe_buffer_init(&p.frames, NULL, NULL);
            fbe_buffer_init(&p.names, NULL, NULL);
            fbe_proxy_options o = {.model = sc->model, .ctx = &p, .on_frame = proxy_frame,
                                   .on_unknown = proxy_unknown};
            fbe_proxy *x = fbe_proxy_create(e.protocol, &o, NULL);
            assert_non_null(x);
            for (size_t k = 0; k < g.bin_len; k += 5)
                assert_int_equal(fbe_proxy_receive(x, g.bin + k, k + 5 <= g.bin_len ? 5 : g.bin_len - k),
                                 FBE_OK);
            assert_int_equal(fbe_proxy_offset(x), g.bin_len);
            assert_int_equal(p.count + p.unknown, g.lines);
            expect_bytes(p.frames.data, p.frames.size, &g, sc->name);
            bool ex = strcmp(sc->schema, "protoex") == 0;
            if (pkg == 0 || !ex) {
                assert_int_equal(p.unknown, 0);
                assert_int_equal(p.names.size, want.size);
                assert_memory_equal(p.names.data, want.data, want.size);
            } else {
                assert_true(p.unknown > 0); /* protoex messages, seen from proto */
            }
            fbe_proxy_reset(x);
            assert_int_equal(fbe_proxy_offset(x), 0);
            fbe_proxy_free(x);
            fbe_buffer_free(&p.frames);
            fbe_buffer_free(&p.names);
            env_close(&e);
        }
        fbe_buffer_free(&want);
        stream_free(&g);
    }
}

static void test_unknown_types(void **state)
{
    (void)state;
    /* protoex streams through a receiver of package proto: the protoex messages
     * are unknown there and skipped; the proto ones still arrive in order. */
    for (size_t i = 4; i < 6; i++) {
        const stream_case *sc = &streams[i];
        env e;
        env_open(&e, "protoex", false, "proto");
        golden_stream g;
        stream_load(sc, &g);
        capture c;
        capture_init(&c);
        fbe_receiver *r = make_receiver(e.protocol, sc->model, &c, 0, 0);
        feed(r, g.bin, g.bin_len, BYTEWISE, 1, FBE_OK);
        /* Expected: only the proto.* lines. */
        fbe_buffer want;
        fbe_buffer_init(&want, NULL, NULL);
        size_t other = 0;
        for (const char *l = g.txt; l < g.txt + g.txt_len;) {
            const char *nl = memchr(l, '\n', (size_t)(g.txt + g.txt_len - l));
            if (strncmp(l, "proto.", 6) == 0)
                fbe_buffer_append(&want, l, (size_t)(nl + 1 - l));
            else
                other++;
            l = nl + 1;
        }
        assert_int_equal(c.unknown, other);
        assert_int_equal(c.errors, 0);
        assert_int_equal(c.text.size, want.size);
        assert_memory_equal(c.text.data, want.data, want.size);
        fbe_buffer_free(&want);
        fbe_receiver_free(r);
        capture_free(&c);
        stream_free(&g);
        env_close(&e);
    }
}

/* ---- sender ------------------------------------------------------------------------------ */

typedef struct wire {
    fbe_buffer out;
    uint64_t seed;
    size_t max;      /* largest chunk accepted at once (0: random 0..max_random) */
    bool fail_next;
    size_t calls;
} wire;

static size_t wire_send(void *ctx, const uint8_t *data, size_t size)
{
    wire *w = ctx;
    w->calls++;
    if (w->fail_next) {
        w->fail_next = false;
        return FBE_SEND_ERROR;
    }
    size_t n = (size_t)(rng_next(&w->seed) % (w->max + 1)); /* may be 0: would block */
    if (n > size)
        n = size;
    fbe_buffer_append(&w->out, data, n);
    return n;
}

typedef struct decoded_stream {
    env e;
    void **values;
    const fbe_type **types;
    size_t count;
    fbe_arena arena;
} decoded_stream;

static void collect(void *ctx, const fbe_type *t, const void *v)
{
    decoded_stream *d = ctx;
    /* Keep a deep copy: decode again from a fresh serialization into our arena. */
    fbe_buffer b;
    fbe_buffer_init(&b, NULL, NULL);
    assert_int_equal(fbe_serialize(t, FBE_FINAL, v, &b), FBE_OK);
    void *copy = fbe_arena_alloc(&d->arena, t->ir->host_size);
    fbe_decode_options o = {.arena = &d->arena};
    assert_int_equal(fbe_deserialize(t, FBE_FINAL, b.data, b.size, copy, &o, NULL), FBE_OK);
    fbe_buffer_free(&b);
    d->values = realloc(d->values, (d->count + 1) * sizeof *d->values);
    d->types = realloc(d->types, (d->count + 1) * sizeof *d->types);
    d->values[d->count] = copy;
    d->types[d->count++] = t;
}

static void decode_all(decoded_stream *d, const stream_case *sc, const golden_stream *g)
{
    memset(d, 0, sizeof *d);
    env_open(&d->e, sc->schema, false, NULL);
    fbe_arena_init(&d->arena, NULL, NULL);
    fbe_receiver_options o = {.model = sc->model, .ctx = d, .on_message = collect};
    fbe_receiver *r = fbe_receiver_create(d->e.protocol, &o, NULL);
    assert_int_equal(fbe_receiver_receive(r, g->bin, g->bin_len), FBE_OK);
    fbe_receiver_free(r);
    assert_int_equal(d->count, g->lines);
}

static void decoded_free(decoded_stream *d)
{
    free(d->values);
    free(d->types);
    fbe_arena_free(&d->arena);
    env_close(&d->e);
}

static void test_sender(void **state)
{
    (void)state;
    for (size_t i = 0; i < STREAM_COUNT; i++) {
        const stream_case *sc = &streams[i];
        golden_stream g;
        stream_load(sc, &g);
        decoded_stream d;
        decode_all(&d, sc, &g);
        /* Partial writes: the transport takes 0..max bytes per call, the rest is
         * offered again with the next send or flush (the reference's onSend). */
        static const size_t maxes[] = {1, 7, 64, 100000};
        for (size_t m = 0; m < sizeof maxes / sizeof maxes[0]; m++) {
            wire w = {.seed = 99 + m, .max = maxes[m]};
            fbe_buffer_init(&w.out, NULL, NULL);
            fbe_sender_options so = {.model = sc->model, .send = wire_send, .send_ctx = &w};
            fbe_sender *s = fbe_sender_create(d.e.protocol, &so, NULL);
            assert_int_equal(fbe_sender_model(s), sc->model);
            size_t total_sent = 0;
            for (size_t k = 0; k < d.count; k++) {
                size_t sent = 0;
                assert_int_equal(fbe_sender_send(s, d.types[k], d.values[k], &sent), FBE_OK);
                total_sent += sent;
                if (k == d.count / 2) {
                    /* A transport error keeps the bytes. */
                    size_t before = fbe_sender_pending(s);
                    w.fail_next = true;
                    assert_int_equal(fbe_sender_flush(s, &sent), before ? FBE_IO : FBE_OK);
                    assert_int_equal(fbe_sender_pending(s), before);
                    w.fail_next = false;
                }
            }
            for (int guard = 0; fbe_sender_pending(s) && guard < 1000000; guard++) {
                size_t sent = 0;
                assert_int_equal(fbe_sender_flush(s, &sent), FBE_OK);
                total_sent += sent;
            }
            assert_int_equal(fbe_sender_pending(s), 0);
            assert_int_equal(total_sent, g.bin_len);
            expect_bytes(w.out.data, w.out.size, &g, sc->name);
            fbe_sender_free(s);
            fbe_buffer_free(&w.out);
        }
        /* Without a callback: take the bytes by hand, in pieces. */
        fbe_sender_options so = {.model = sc->model};
        fbe_sender *s = fbe_sender_create(d.e.protocol, &so, NULL);
        fbe_buffer out;
        fbe_buffer_init(&out, NULL, NULL);
        for (size_t k = 0; k < d.count; k++) {
            assert_int_equal(fbe_sender_send_named(s, d.types[k]->ir->full_name, d.values[k], NULL),
                             FBE_OK);
            size_t take = fbe_sender_pending(s) / 2;
            fbe_buffer_append(&out, fbe_sender_data(s), take);
            fbe_sender_consume(s, take);
        }
        fbe_buffer_append(&out, fbe_sender_data(s), fbe_sender_pending(s));
        fbe_sender_consume(s, SIZE_MAX);
        assert_int_equal(fbe_sender_pending(s), 0);
        expect_bytes(out.data, out.size, &g, sc->name);
        fbe_buffer_free(&out);

        /* Refusals. */
        const fbe_type *plain = fbe_codec_type(d.e.codec, "proto.Order");
        assert_non_null(plain);
        assert_int_equal(fbe_sender_send(s, plain, d.values[0], NULL), FBE_INVALID_ARGUMENT);
        assert_int_equal(fbe_sender_send(s, NULL, d.values[0], NULL), FBE_INVALID_ARGUMENT);
        assert_int_equal(fbe_sender_send_named(s, "proto.Nope", d.values[0], NULL),
                         FBE_UNKNOWN_TYPE);
        env other;
        env_open(&other, sc->schema, false, NULL);
        assert_int_equal(fbe_sender_send(s, fbe_protocol_message_at(other.protocol, 0),
                                         d.values[0], NULL),
                         FBE_INVALID_ARGUMENT); /* a type of another codec */
        env_close(&other);
        assert_int_equal(fbe_sender_pending(s), 0);
        fbe_sender_free(s);

        /* max_pending: a frame that does not fit is refused whole. */
        so.max_pending = 100;
        s = fbe_sender_create(d.e.protocol, &so, NULL);
        size_t accepted = 0;
        for (size_t k = 0; k < d.count; k++) {
            size_t before = fbe_sender_pending(s);
            fbe_status st = fbe_sender_send(s, d.types[k], d.values[k], NULL);
            if (st == FBE_OK) {
                accepted++;
                assert_true(fbe_sender_pending(s) <= 100);
                fbe_sender_consume(s, SIZE_MAX); /* drained by the transport */
            } else {
                assert_int_equal(st, FBE_TOO_SMALL);
                assert_int_equal(fbe_sender_pending(s), before);
            }
        }
        fbe_sender_reset(s);
        assert_int_equal(fbe_sender_pending(s), 0);
        assert_true(accepted > 0 && accepted < d.count);
        fbe_sender_free(s);
        decoded_free(&d);
        stream_free(&g);
    }
}

/* ---- logging ------------------------------------------------------------------------------ */

static void log_line(void *ctx, const fbe_type *t, const char *text, size_t len)
{
    fbe_buffer *b = ctx;
    assert_int_equal(strlen(text), len);
    fbe_buffer_append(b, t->ir->full_name, strlen(t->ir->full_name));
    fbe_buffer_append(b, "\t", 1);
    fbe_buffer_append(b, text, len);
    fbe_buffer_append(b, "\n", 1);
}

static void test_logging(void **state)
{
    (void)state;
    for (size_t i = 0; i < STREAM_COUNT; i++) {
        const stream_case *sc = &streams[i];
        golden_stream g;
        stream_load(sc, &g);
        env e;
        env_open(&e, sc->schema, false, NULL);
        fbe_buffer rx_log, tx_log;
        fbe_buffer_init(&rx_log, NULL, NULL);
        fbe_buffer_init(&tx_log, NULL, NULL);
        fbe_sender_options so = {.model = sc->model, .log = log_line, .log_ctx = &tx_log};
        capture c;
        capture_init(&c);
        c.resend = fbe_sender_create(e.protocol, &so, NULL);
        /* Logging alone makes the receiver decode; no handler is needed. */
        fbe_receiver_options ro = {.model = sc->model, .log = log_line, .log_ctx = &rx_log};
        fbe_receiver *quiet = fbe_receiver_create(e.protocol, &ro, NULL);
        assert_int_equal(fbe_receiver_receive(quiet, g.bin, g.bin_len), FBE_OK);
        expect_text(&rx_log, &g, "receive log");
        /* Off by default, and can be switched off. */
        fbe_receiver_set_log(quiet, NULL, NULL);
        assert_int_equal(fbe_receiver_receive(quiet, g.bin, g.bin_len), FBE_OK);
        expect_text(&rx_log, &g, "receive log");
        fbe_receiver *r = make_receiver(e.protocol, sc->model, &c, 0, 0);
        assert_int_equal(fbe_receiver_receive(r, g.bin, g.bin_len), FBE_OK);
        expect_text(&tx_log, &g, "send log");
        fbe_receiver_free(r);
        fbe_receiver_free(quiet);
        fbe_sender_free(c.resend);
        capture_free(&c);
        fbe_buffer_free(&rx_log);
        fbe_buffer_free(&tx_log);
        env_close(&e);
        stream_free(&g);
    }
}

/* ---- malformed input ----------------------------------------------------------------------- */

/* Offsets of the frames of a golden stream. */
static size_t frame_starts(const golden_stream *g, size_t *starts, size_t max)
{
    size_t n = 0;
    for (size_t pos = 0; pos < g->bin_len && n < max; pos += rd_u32(g->bin + pos))
        starts[n++] = pos;
    return n;
}

typedef struct reenter_ctx {
    fbe_receiver *r;
    size_t seen;
    int mode; /* 0: receive inside, 1: reset inside after the 2nd message */
    fbe_status inner;
} reenter_ctx;

static void reenter(void *ctx, const fbe_type *t, const void *v)
{
    reenter_ctx *x = ctx;
    (void)t;
    (void)v;
    x->seen++;
    if (x->mode == 0) {
        uint8_t byte = 0;
        x->inner = fbe_receiver_receive(x->r, &byte, 1);
    } else if (x->seen == 2) {
        fbe_receiver_reset(x->r);
    }
}

static void test_malformed(void **state)
{
    (void)state;
    const stream_case *sc = &streams[0];
    env e;
    env_open(&e, sc->schema, false, NULL);
    golden_stream g;
    stream_load(sc, &g);
    size_t starts[64];
    size_t frames = frame_starts(&g, starts, 64);
    assert_int_equal(frames, g.lines);
    size_t f2 = starts[2]; /* the third frame */

    for (chunking how = WHOLE; how < CHUNK_COUNT; how++) {
        /* A length below the minimum: no next boundary, the receiver stops. */
        for (uint32_t bad = 0; bad < 16; bad += 5) {
            uint8_t *b = malloc(g.bin_len);
            memcpy(b, g.bin, g.bin_len);
            wr_u32(b + f2, bad);
            capture c;
            capture_init(&c);
            fbe_receiver *r = make_receiver(e.protocol, sc->model, &c, 0, 0);
            feed(r, b, g.bin_len, how, 3, (fbe_status)-1);
            assert_int_equal(c.messages, 2);
            assert_int_equal(c.errors, 1);
            assert_int_equal(c.last_error.status, FBE_BAD_FRAME_SIZE);
            assert_int_equal(c.last_error.stream_offset, f2);
            assert_int_equal(c.last_error.frame_size, bad);
            assert_int_equal(fbe_receiver_receive(r, g.bin, g.bin_len), FBE_BAD_FRAME_SIZE);
            assert_int_equal(c.messages, 2);
            /* Reset recovers. */
            fbe_receiver_reset(r);
            assert_int_equal(fbe_receiver_receive(r, g.bin, g.bin_len), FBE_OK);
            assert_int_equal(c.messages, 2 + g.lines);
            fbe_receiver_free(r);
            capture_free(&c);
            free(b);
        }
        /* Oversized: reported, skipped without storage, the rest arrives. */
        {
            capture c;
            capture_init(&c);
            size_t limit = rd_u32(g.bin + f2) - 1;
            fbe_receiver *r = make_receiver(e.protocol, sc->model, &c, 0, limit);
            feed(r, g.bin, g.bin_len, how, 5, (fbe_status)-1);
            size_t big = 0;
            for (size_t k = 0; k < frames; k++)
                big += rd_u32(g.bin + starts[k]) > limit;
            assert_int_equal(c.errors, big);
            assert_int_equal(c.first_error, FBE_TOO_LARGE);
            assert_int_equal(c.messages, g.lines - big);
            assert_true(fbe_receiver_buffered(r) <= limit);
            fbe_receiver_free(r);
            capture_free(&c);
        }
        /* A frame that fails verification: reported with its offsets, skipped. */
        for (unsigned noverify = 0; noverify < 2; noverify++) {
            uint8_t *b = malloc(g.bin_len);
            memcpy(b, g.bin, g.bin_len);
            wr_u32(b + f2 + 8, 0xFFFFFF); /* the message body's struct size */
            capture c;
            capture_init(&c);
            fbe_receiver *r = make_receiver(e.protocol, sc->model, &c,
                                            noverify ? FBE_RECEIVE_NO_VERIFY : 0, 0);
            feed(r, b, g.bin_len, how, 9, (fbe_status)-1);
            assert_int_equal(c.errors, 1);
            assert_int_equal(c.last_error.status, FBE_BAD_STRUCT_SIZE);
            assert_int_equal(c.last_error.stream_offset, f2);
            assert_int_equal(c.last_error.verify.offset, 8);
            assert_non_null(c.last_error.type);
            assert_int_equal(c.messages, g.lines - 1);
            fbe_receiver_free(r);
            capture_free(&c);
            free(b);
        }
        /* A root offset outside the frame (the reference reads it unchecked). */
        {
            uint8_t *b = malloc(g.bin_len);
            memcpy(b, g.bin, g.bin_len);
            wr_u32(b + f2 + 4, 0x7FFFFFFF);
            capture c;
            capture_init(&c);
            fbe_receiver *r = make_receiver(e.protocol, sc->model, &c, 0, 0);
            feed(r, b, g.bin_len, how, 11, (fbe_status)-1);
            assert_int_equal(c.errors, 1);
            assert_int_equal(c.last_error.status, FBE_BAD_OFFSET);
            assert_int_equal(c.messages, g.lines - 1);
            fbe_receiver_free(r);
            capture_free(&c);
            free(b);
        }
    }
    /* The return value reports the first bad frame of the call. */
    {
        uint8_t *b = malloc(g.bin_len);
        memcpy(b, g.bin, g.bin_len);
        wr_u32(b + f2 + 8, 0xFFFFFF);
        capture c;
        capture_init(&c);
        fbe_receiver *r = make_receiver(e.protocol, sc->model, &c, 0, 0);
        assert_int_equal(fbe_receiver_receive(r, b, g.bin_len), FBE_BAD_STRUCT_SIZE);
        assert_int_equal(fbe_receiver_receive(r, g.bin, g.bin_len), FBE_OK);
        fbe_receiver_free(r);
        capture_free(&c);
        free(b);
    }
    /* The receiver's depth limit applies to its verify as to its deserialize:
     * every message of the stream holds a struct (level 2), so with max_depth 1
     * each is reported TOO_DEEP, verified or not; and a limit above the codec's
     * own (1 here) lets them through. */
    for (int pass = 0; pass < 3; pass++) {
        fbe_codec *small = NULL;
        fbe_protocol *proto = e.protocol;
        if (pass == 2) {
            small = fbe_interp_create(e.schema, &(fbe_codec_options){.max_depth = 1}, NULL);
            assert_non_null(small);
            proto = fbe_protocol_create(small, NULL, NULL);
            assert_non_null(proto);
        }
        capture c;
        capture_init(&c);
        fbe_receiver_options o = {.model = sc->model, .max_depth = pass == 2 ? 64 : 1,
                                  .flags = pass == 1 ? FBE_RECEIVE_NO_VERIFY : 0,
                                  .ctx = &c, .on_message = on_message, .on_error = on_error};
        fbe_receiver *r = fbe_receiver_create(proto, &o, NULL);
        assert_non_null(r);
        fbe_status st = fbe_receiver_receive(r, g.bin, g.bin_len);
        if (pass == 2) {
            assert_int_equal(st, FBE_OK);
            assert_int_equal(c.messages, g.lines);
        } else {
            assert_int_equal(c.errors, g.lines);
            assert_int_equal(c.first_error, FBE_TOO_DEEP);
            assert_int_equal(c.last_error.verify.status, FBE_TOO_DEEP);
        }
        fbe_receiver_free(r);
        capture_free(&c);
        if (small) {
            fbe_protocol_free(proto);
            fbe_codec_free(small);
        }
    }
    /* Decoded-size limit: a message that needs more is reported (NOMEM) and
     * skipped, the receiver goes on. */
    for (int tight = 0; tight < 2; tight++) {
        capture c;
        capture_init(&c);
        fbe_receiver_options o = {.model = sc->model, .max_decoded_size = tight ? 1000 : 8192,
                                  .ctx = &c, .on_message = on_message, .on_error = on_error};
        fbe_receiver *r = fbe_receiver_create(e.protocol, &o, NULL);
        fbe_status st = fbe_receiver_receive(r, g.bin, g.bin_len);
        assert_int_equal(c.messages + c.errors, g.lines);
        assert_int_equal(c.errors, tight ? g.lines : 0);
        assert_int_equal(st, tight ? FBE_NOMEM : FBE_OK);
        if (tight)
            assert_int_equal(c.last_error.status, FBE_NOMEM);
        fbe_receiver_free(r);
        capture_free(&c);
    }
    /* Reentrancy: receive from a handler is refused; reset from a handler drops
     * the rest of the call. */
    {
        reenter_ctx x = {.mode = 0};
        fbe_receiver_options o = {.model = sc->model, .ctx = &x, .on_message = reenter};
        x.r = fbe_receiver_create(e.protocol, &o, NULL);
        assert_int_equal(fbe_receiver_receive(x.r, g.bin, g.bin_len), FBE_OK);
        assert_int_equal(x.inner, FBE_INVALID_ARGUMENT);
        assert_int_equal(x.seen, g.lines);
        x.mode = 1;
        x.seen = 0;
        assert_int_equal(fbe_receiver_receive(x.r, g.bin, g.bin_len), FBE_OK);
        assert_int_equal(x.seen, 2);
        assert_int_equal(fbe_receiver_offset(x.r), 0);
        assert_int_equal(fbe_receiver_receive(x.r, g.bin + starts[5], g.bin_len - starts[5]), FBE_OK);
        assert_int_equal(x.seen, 2 + g.lines - 5);
        fbe_receiver_free(x.r);
    }
    /* Handlers by type, and refusals. */
    {
        capture c;
        capture_init(&c);
        fbe_receiver_options o = {.model = sc->model};
        fbe_receiver *r = fbe_receiver_create(e.protocol, &o, NULL);
        assert_int_equal(fbe_receiver_on_named(r, "proto.OrderMessage", on_message, &c), FBE_OK);
        assert_int_equal(fbe_receiver_on_named(r, "proto.Order", on_message, &c), FBE_UNKNOWN_TYPE);
        assert_int_equal(fbe_receiver_on(r, fbe_codec_type(e.codec, "proto.Order"), on_message, &c),
                         FBE_INVALID_ARGUMENT);
        assert_int_equal(fbe_receiver_receive(r, g.bin, g.bin_len), FBE_OK);
        size_t orders = 0;
        for (const char *l = g.txt; (l = strstr(l, "proto.OrderMessage\t")) != NULL; l++)
            orders++;
        assert_int_equal(c.messages, orders);
        assert_int_equal(fbe_receiver_on_named(r, "proto.OrderMessage", NULL, NULL), FBE_OK);
        assert_int_equal(fbe_receiver_receive(r, g.bin, g.bin_len), FBE_OK);
        assert_int_equal(c.messages, orders);
        assert_int_equal(fbe_receiver_receive(r, NULL, 1), FBE_INVALID_ARGUMENT);
        assert_int_equal(fbe_receiver_receive(r, NULL, 0), FBE_OK);
        fbe_receiver_free(r);
        capture_free(&c);
    }
    stream_free(&g);
    env_close(&e);
}

/* ---- mutations -------------------------------------------------------------------------------- */

typedef struct mutation_stats {
    size_t runs, messages, errors, unknown;
} mutation_stats;

/* One mutated stream, whole and in random chunks: no crash, no overread (each
 * chunk is its own heap block), bounded storage, decoded values re-encode. */
static void mutate_run(const fbe_protocol *p, fbe_model model, const uint8_t *data, size_t len,
                       uint64_t seed, mutation_stats *ms)
{
    /* Two receivers: verify first, no frame limit; and decode-only with a small
     * frame limit. Chunking alternates with the seed. */
    static const size_t limits[] = {0, 512};
    for (size_t li = 0; li < 2; li++) {
        capture c;
        capture_init(&c);
        c.roundtrip = true;
        fbe_receiver *r = make_receiver(p, model, &c, li ? FBE_RECEIVE_NO_VERIFY : 0, limits[li]);
        chunking how = (seed + li) % 2 ? RANDOM_SMALL : WHOLE;
        feed(r, data, len, how, seed, (fbe_status)-1);
        size_t max = limits[li] ? limits[li] : FBE_DEFAULT_MAX_FRAME_SIZE;
        assert_true(fbe_receiver_buffered(r) <= max);
        ms->runs++;
        ms->messages += c.messages;
        ms->errors += c.errors;
        ms->unknown += c.unknown;
        fbe_receiver_free(r);
        capture_free(&c);
    }
}

static void test_mutations(void **state)
{
    (void)state;
    double t0 = now_seconds();
    mutation_stats total = {0};
    for (size_t i = 0; i < STREAM_COUNT; i++) {
        const stream_case *sc = &streams[i];
        env e;
        env_open(&e, sc->schema, false, NULL);
        golden_stream g;
        stream_load(sc, &g);
        mutation_stats ms = {0};
        uint64_t seed = 1000 + i;
        uint8_t *b = malloc(g.bin_len);
        /* Truncations (every 4th length, and the last 40). */
        for (size_t n = 0; n <= g.bin_len; n++)
            if (n % 4 == 0 || n + 40 > g.bin_len)
                mutate_run(e.protocol, sc->model, g.bin, n, rng_next(&seed), &ms);
        /* Byte flips: every position with 0xFF, every 3rd with 0x01 too. */
        for (size_t pos = 0; pos < g.bin_len; pos++) {
            static const uint8_t xors[] = {0xFF, 0x01};
            for (size_t k = 0; k < (pos % 3 ? 1u : 2u); k++) {
                memcpy(b, g.bin, g.bin_len);
                b[pos] ^= xors[k];
                mutate_run(e.protocol, sc->model, b, g.bin_len, rng_next(&seed), &ms);
            }
        }
        /* Absurd sizes and offsets at every frame. */
        size_t starts[64];
        size_t frames = frame_starts(&g, starts, 64);
        static const uint32_t sizes[] = {0,          1,          4,          7,          8,
                                         15,         16,         17,         0x7FFFFFFF, 0x80000000,
                                         0xFFFFFFFF, 0xFFFFFFF0, 1u << 20,   (1u << 24) + 1};
        for (size_t f = 0; f < frames; f++) {
            uint32_t len = rd_u32(g.bin + starts[f]);
            uint32_t extra[] = {len - 1, len + 1, len * 2};
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0] + 3; k++) {
                memcpy(b, g.bin, g.bin_len);
                uint32_t v = k < sizeof sizes / sizeof sizes[0] ? sizes[k]
                                                                : extra[k - sizeof sizes / sizeof sizes[0]];
                wr_u32(b + starts[f], v);
                mutate_run(e.protocol, sc->model, b, g.bin_len, rng_next(&seed), &ms);
                /* The same in the first inner offset / type field. */
                memcpy(b, g.bin, g.bin_len);
                wr_u32(b + starts[f] + 4, v);
                mutate_run(e.protocol, sc->model, b, g.bin_len, rng_next(&seed), &ms);
                if (sc->model == FBE_STANDARD) {
                    memcpy(b, g.bin, g.bin_len);
                    wr_u32(b + starts[f] + 8, v);
                    mutate_run(e.protocol, sc->model, b, g.bin_len, rng_next(&seed), &ms);
                }
            }
        }
        /* Random garbage, and golden frames between garbage. */
        for (int k = 0; k < 200; k++) {
            size_t n = 1 + (size_t)(rng_next(&seed) % 300);
            uint8_t *junk = malloc(n + g.bin_len);
            for (size_t j = 0; j < n; j++)
                junk[j] = (uint8_t)rng_next(&seed);
            if (k % 2)
                memcpy(junk + n, g.bin, g.bin_len);
            mutate_run(e.protocol, sc->model, junk, k % 2 ? n + g.bin_len : n, rng_next(&seed),
                       &ms);
            free(junk);
        }
        free(b);
        print_message("  %-20s %6zu runs, %7zu messages, %6zu errors, %5zu unknown\n", sc->name,
                      ms.runs, ms.messages, ms.errors, ms.unknown);
        total.runs += ms.runs;
        stream_free(&g);
        env_close(&e);
    }
    print_message("  mutations: %zu runs in %.1f s\n", total.runs, now_seconds() - t0);
}

/* ---- fbec decode --stream ---------------------------------------------------------------------- */

static char tmp_dir[1024];

static const char *tmp(const char *name)
{
    static char path[8][4096];
    static int next;
    if (!tmp_dir[0]) {
        snprintf(tmp_dir, sizeof tmp_dir, "%s/protocol_test", FBE_BINARY_DIR);
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", tmp_dir);
        assert_int_equal(run_command(cmd, NULL), 0);
    }
    char *p = path[next++ % 8];
    snprintf(p, 4096, "%.1024s/%.256s", tmp_dir, name);
    return p;
}

static void test_cli_stream(void **state)
{
    (void)state;
    char cmd[16384];
    char schemas[4096];
    snprintf(schemas, sizeof schemas, "%s", shared_path("golden/schemas"));
    for (size_t i = 0; i < STREAM_COUNT; i++) {
        const stream_case *sc = &streams[i];
        golden_stream g;
        stream_load(sc, &g);
        const char *out = tmp("stream.txt");
        remove(out);
        char rel[128];
        snprintf(rel, sizeof rel, "golden/protocol/%s.bin", sc->name);
        /* Half of them from a file, half from standard input. */
        snprintf(cmd, sizeof cmd, "'%s' decode --stream %s -I '%s' --schema '%s/%s.fbe' %s'%s' -o '%s'",
                 FBEC_PATH, sc->model == FBE_FINAL ? "--final" : "", schemas, schemas, sc->schema,
                 i % 2 ? "< " : "", shared_path(rel), out);
        char *text = NULL;
        int rc = run_command(cmd, &text);
        if (rc != 0)
            print_message("$ %s\n%s", cmd, text);
        assert_int_equal(rc, 0);
        assert_string_equal(text, "");
        free(text);
        size_t len;
        uint8_t *got = read_file(out, &len);
        assert_int_equal(len, g.txt_len);
        assert_memory_equal(got, g.txt, len);
        free(got);
        stream_free(&g);
    }

    /* Malformed streams: reported with their byte offsets, exit status 1. */
    golden_stream g;
    stream_load(&streams[0], &g);
    size_t starts[64];
    frame_starts(&g, starts, 64);
    uint8_t *b = malloc(g.bin_len);
    struct {
        const char *what;
        size_t at;      /* byte to patch */
        uint32_t value;
        size_t length;  /* stream length used */
        const char *expect;
    } bad[] = {
        {"corrupt", starts[1] + 8, 0xFFFFFF, g.bin_len, "invalid frame at byte %zu: a struct size"},
        {"small", starts[1], 3, g.bin_len, "invalid frame at byte %zu: frame size 3 is below"},
        {"truncated", 0, 0, g.bin_len - 10, "the stream ends inside the frame at byte %zu"},
    };
    for (size_t k = 0; k < 3; k++) {
        memcpy(b, g.bin, g.bin_len);
        if (bad[k].value)
            wr_u32(b + bad[k].at, bad[k].value);
        const char *in = tmp("bad.bin");
        write_bytes(in, b, bad[k].length);
        snprintf(cmd, sizeof cmd, "'%s' decode --stream --schema '%s/proto.fbe' '%s' > /dev/null",
                 FBEC_PATH, schemas, in);
        char *text = NULL;
        assert_int_equal(run_command(cmd, &text), 1);
        char want[256];
        size_t at = k == 2 ? starts[g.lines - 1] : starts[1];
        snprintf(want, sizeof want, bad[k].expect, at);
        if (!strstr(text, want))
            print_message("%s: expected '%s' in:\n%s", bad[k].what, want, text);
        assert_non_null(strstr(text, want));
        free(text);
    }
    /* Unknown types are a note, not an error. */
    snprintf(cmd, sizeof cmd, "'%s' decode --stream --schema '%s/proto.fbe' '%s' > /dev/null",
             FBEC_PATH, schemas, shared_path("golden/protocol/protoex.bin"));
    char *text = NULL;
    assert_int_equal(run_command(cmd, &text), 0);
    assert_non_null(strstr(text, "frame at byte 0: unknown message type 11 (93 bytes), skipped"));
    free(text);
    /* Usage. */
    snprintf(cmd, sizeof cmd, "'%s' decode --stream --type proto.Order --schema '%s/proto.fbe' /dev/null",
             FBEC_PATH, schemas);
    assert_int_equal(run_command(cmd, NULL), 2);
    snprintf(cmd, sizeof cmd, "'%s' decode --stream /dev/null", FBEC_PATH);
    assert_int_equal(run_command(cmd, NULL), 2);
    snprintf(cmd, sizeof cmd, "'%s' decode --help", FBEC_PATH);
    assert_int_equal(run_command(cmd, &text), 0);
    assert_non_null(strstr(text, "--stream"));
    free(text);
    /* An empty stream is fine. */
    snprintf(cmd, sizeof cmd, "'%s' decode --stream --schema '%s/proto.fbe' /dev/null", FBEC_PATH,
             schemas);
    assert_int_equal(run_command(cmd, &text), 0);
    assert_string_equal(text, "");
    free(text);
    free(b);
    stream_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_interp),
        cmocka_unit_test(test_golden_jit),
        cmocka_unit_test(test_typed_helpers),
        cmocka_unit_test(test_tables),
        cmocka_unit_test(test_proxy),
        cmocka_unit_test(test_unknown_types),
        cmocka_unit_test(test_sender),
        cmocka_unit_test(test_logging),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_cli_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
