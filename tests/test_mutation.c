/* Hostile input: every golden buffer truncated and mutated, plus crafted attacks,
 * through verify and deserialize of both models.
 *
 * For every run: nothing may crash or read outside the input (the input is always
 * a malloc'd block of exactly the given size, so the sanitizer build catches any
 * overread); verify and deserialize return the SAME status; when they accept,
 * `consumed` is the frame size, and the decoded value survives a round trip
 * (size() == serialize() length, the re-encoded bytes verify, decode and
 * re-encode to the same bytes, print and the other model's writer do not fail).
 *
 * Everything is deterministic: fixed-seed PRNG per buffer, fixed sampling. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden_common.h"
#include "test_util.h"

#define ARENA_LIMIT ((size_t)64 << 20)
#define MAX_DETAILS_PER_BUFFER 8
/* Truncations with the size field rewritten are O(n^2): above this many
 * lengths per buffer they are sampled evenly (plus the first and last 64). */
#define MAX_PATCHED_TRUNCATIONS 600
/* Sampled single-byte mutations per buffer (small buffers get all of them). */
#define SAMPLED_BYTE_MUTATIONS 300
#define SAMPLED_WORD_MUTATIONS 120
/* A round trip is checked for every k-th accepted mutation (all of them for
 * crafted inputs and baselines). */
#define ROUNDTRIP_EVERY 2

/* ---- one run ---------------------------------------------------------------------- */

/* The run in progress: if a run crashes (cmocka catches the signal and moves on),
 * the next test and the teardown name it. */
static char inflight[600];

static void report_crash(void)
{
    if (inflight[0]) {
        fprintf(stderr, "CRASH: the last run before the crash was: %s\n", inflight);
        inflight[0] = 0;
    }
}

typedef struct mctx {
    golden_tracker tracker; /* chunks of `arena` (must not move: mctx lives in mstate) */
    fbe_arena arena, arena2;
    uint8_t *value, *value2;
    size_t value_cap;
    fbe_buffer out, out2, text;
    unsigned long runs, accepted, roundtrips;
    unsigned long by_status[FBE_STATUS_COUNT];
    unsigned long failures;
    unsigned buffer_failures;
    const char *buffer_name;
    golden_report report;
} mctx;

static void ensure_value(mctx *c, size_t size)
{
    if (size <= c->value_cap)
        return;
    free(c->value);
    free(c->value2);
    c->value = malloc(size);
    c->value2 = malloc(size);
    assert_non_null(c->value);
    assert_non_null(c->value2);
    c->value_cap = size;
}

static void mfail(mctx *c, const char *label, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void mfail(mctx *c, const char *label, const char *fmt, ...)
{
    c->failures++;
    if (c->buffer_failures++ >= MAX_DETAILS_PER_BUFFER)
        return;
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    golden_failf(&c->report, "%s: %s: %s", c->buffer_name, label, buf);
}

static const char *model_name(fbe_model m)
{
    return m == FBE_STANDARD ? "standard" : "final";
}

/* decode(E1) -> encode == E1, verify(E1) OK, print and the other model's writer
 * succeed. `value` is what was decoded from the mutated input. */
static void roundtrip(mctx *c, const fbe_type *t, fbe_model m, const char *label)
{
    c->roundtrips++;
    size_t predicted = fbe_size(t, m, c->value);
    fbe_buffer_clear(&c->out);
    fbe_status st = fbe_serialize(t, m, c->value, &c->out);
    if (st != FBE_OK) {
        mfail(c, label, "accepted input, but re-encoding the value returned %s",
              fbe_status_name(st));
        return;
    }
    if (c->out.size != predicted)
        mfail(c, label, "re-encode: size() said %zu, serialize wrote %zu", predicted,
              c->out.size);
    fbe_verify_info info;
    memset(&info, 0, sizeof info);
    st = fbe_verify(t, m, c->out.data, c->out.size, &info);
    if (st != FBE_OK) {
        char s[256];
        mfail(c, label, "re-encoded bytes do not verify: %s",
              golden_status_text(st, &info, s, sizeof s));
        return;
    }
    fbe_arena_reset(&c->arena2);
    memset(c->value2, 0, t->ir->host_size);
    fbe_decode_options o = {.arena = &c->arena2};
    size_t consumed = 0;
    st = fbe_deserialize(t, m, c->out.data, c->out.size, c->value2, &o, &consumed);
    if (st != FBE_OK || consumed != c->out.size) {
        mfail(c, label, "re-encoded bytes do not decode: %s, consumed %zu of %zu",
              fbe_status_name(st), consumed, c->out.size);
        return;
    }
    fbe_buffer_clear(&c->out2);
    st = fbe_serialize(t, m, c->value2, &c->out2);
    if (st != FBE_OK || c->out2.size != c->out.size ||
        memcmp(c->out2.data, c->out.data, c->out.size) != 0) {
        char msg[1200];
        if (st != FBE_OK)
            snprintf(msg, sizeof msg, "serialize returned %s", fbe_status_name(st));
        else
            golden_same_bytes(c->out.data, c->out.size, c->out2.data, c->out2.size, false, msg,
                              sizeof msg);
        mfail(c, label, "decode/encode is not idempotent: %s", msg);
    }
    fbe_model other = m == FBE_STANDARD ? FBE_FINAL : FBE_STANDARD;
    fbe_buffer_clear(&c->out2);
    st = fbe_serialize(t, other, c->value, &c->out2);
    if (st != FBE_OK) {
        mfail(c, label, "%s writer failed on an accepted value: %s", model_name(other),
              fbe_status_name(st));
    } else {
        st = fbe_verify(t, other, c->out2.data, c->out2.size, NULL);
        if (st != FBE_OK)
            mfail(c, label, "%s writer's bytes do not verify: %s", model_name(other),
                  fbe_status_name(st));
    }
    fbe_buffer_clear(&c->text);
    st = fbe_print(t->ir, c->value, &c->text);
    if (st != FBE_OK)
        mfail(c, label, "fbe_print failed on an accepted value: %s", fbe_status_name(st));
}

/* One verify + deserialize of data[0..n) (a malloc'd block of exactly n bytes).
 * Returns the status both agreed on (or the verify status when they disagree). */
static fbe_status run_one_(mctx *c, const fbe_type *t, fbe_model m, const uint8_t *data, size_t n,
                           const char *label, bool want_roundtrip)
{
    c->runs++;
    snprintf(inflight, sizeof inflight, "%s: %s (%s, %zu bytes)", c->buffer_name, label,
             model_name(m), n);
    fbe_verify_info info;
    memset(&info, 0, sizeof info);
    fbe_status vs = fbe_verify(t, m, data, n, &info);
    fbe_arena_reset(&c->arena);
    memset(c->value, (c->runs & 1) ? 0x00 : 0xA5, t->ir->host_size);
    fbe_decode_options o = {.arena = &c->arena,
                            .flags = (c->runs & 2) ? FBE_DECODE_BORROW : 0};
    size_t consumed = SIZE_MAX;
    fbe_status ds = fbe_deserialize(t, m, data, n, c->value, &o, &consumed);
    if (vs < FBE_STATUS_COUNT)
        c->by_status[vs]++;
    if (vs != ds) {
        char s[256];
        mfail(c, label, "verify returned %s but deserialize returned %s",
              golden_status_text(vs, &info, s, sizeof s), fbe_status_name(ds));
    } else if (vs != FBE_OK && (info.status != vs || info.offset > n)) {
        mfail(c, label, "verify returned %s but its info says %s at byte %zu (buffer %zu)",
              fbe_status_name(vs), fbe_status_name(info.status), info.offset, n);
    }
    /* Safe to read whatever the status (docs/codec.md: "incomplete but safe"). */
    c->tracker.extra = (o.flags & FBE_DECODE_BORROW) ? (golden_range){(uintptr_t)data, n}
                                                     : (golden_range){0, 0};
    char why[900];
    if (!golden_value_safe(t->ir, c->value, &c->tracker, why, sizeof why)) {
        mfail(c, label, "after deserialize returned %s (prefill 0x%02x%s) the value is not safe "
              "to read: %s", fbe_status_name(ds), (c->runs & 1) ? 0x00 : 0xA5,
              (o.flags & FBE_DECODE_BORROW) ? ", borrow" : "", why);
        return ds;
    }
    if (vs != ds)
        return vs;
    if (vs != FBE_OK)
        return vs;
    c->accepted++;
    size_t frame = n >= 4 ? rd_u32(data) : 0;
    if (consumed != frame)
        mfail(c, label, "accepted, consumed %zu but the frame size is %zu", consumed, frame);
    if (want_roundtrip)
        roundtrip(c, t, m, label);
    return vs;
}

static fbe_status run_one(mctx *c, const fbe_type *t, fbe_model m, const uint8_t *data, size_t n,
                          const char *label, bool want_roundtrip)
{
    fbe_status st = run_one_(c, t, m, data, n, label, want_roundtrip);
    inflight[0] = 0;
    return st;
}

/* ---- per golden buffer -------------------------------------------------------------- */

typedef struct target {
    char name[400];
    const fbe_type *type;
    fbe_model model;
    uint8_t *data;
    size_t size;
} target;

static void begin_buffer(mctx *c, const target *tg)
{
    c->buffer_name = tg->name;
    c->buffer_failures = 0;
    ensure_value(c, tg->type->ir->host_size ? tg->type->ir->host_size : 1);
}

static void end_buffer(mctx *c)
{
    if (c->buffer_failures > MAX_DETAILS_PER_BUFFER)
        golden_failf(&c->report, "%s: ... and %u more failures for this buffer",
                     c->buffer_name, c->buffer_failures - MAX_DETAILS_PER_BUFFER);
}

typedef struct op {
    const char *name;
    int kind; /* 0 xor, 1 set */
    uint8_t v;
} op;

static const op byte_ops[] = {
    {"xor01", 0, 0x01}, {"xor80", 0, 0x80}, {"xorff", 0, 0xff}, {"set00", 1, 0x00},
    {"setff", 1, 0xff},
};
#define BYTE_OP_COUNT (sizeof byte_ops / sizeof byte_ops[0])

static void byte_mutation(mctx *c, const target *tg, uint8_t *buf, size_t pos, const op *o,
                          unsigned long *count)
{
    uint8_t old = buf[pos];
    uint8_t nv = o->kind == 0 ? (uint8_t)(old ^ o->v) : o->v;
    if (nv == old)
        return;
    buf[pos] = nv;
    char label[96];
    snprintf(label, sizeof label, "%s @%zu (%02x->%02x)", o->name, pos, old, nv);
    run_one(c, tg->type, tg->model, buf, tg->size, label, (*count % ROUNDTRIP_EVERY) == 0);
    buf[pos] = old;
    (*count)++;
}

static void word_mutation(mctx *c, const target *tg, uint8_t *buf, size_t pos, uint32_t v,
                          unsigned long *count)
{
    uint8_t old[4];
    memcpy(old, buf + pos, 4);
    if (rd_u32(old) == v)
        return;
    wr_u32(buf + pos, v);
    char label[96];
    snprintf(label, sizeof label, "u32 @%zu = 0x%08" PRIx32 " (was 0x%08" PRIx32 ")", pos, v,
             rd_u32(old));
    run_one(c, tg->type, tg->model, buf, tg->size, label, (*count % ROUNDTRIP_EVERY) == 0);
    memcpy(buf + pos, old, 4);
    (*count)++;
}

typedef struct counts {
    unsigned long buffers, truncations, patched, bytes, words;
} counts;

static void mutate_buffer(mctx *c, const target *tg, counts *k)
{
    begin_buffer(c, tg);
    size_t n = tg->size;
    /* Baseline: the golden buffer itself must be accepted, else the rest means
     * nothing (a stub that rejects everything is trivially consistent). */
    uint8_t *buf = malloc(n ? n : 1);
    assert_non_null(buf);
    memcpy(buf, tg->data, n);
    fbe_status st = run_one(c, tg->type, tg->model, buf, n, "baseline (unmodified)", true);
    if (st != FBE_OK) {
        mfail(c, "baseline (unmodified)", "golden buffer not accepted: %s; mutations skipped",
              fbe_status_name(st));
        free(buf);
        end_buffer(c);
        return;
    }
    k->buffers++;

    /* 1. Every truncation, as is (the frame size now exceeds the buffer). */
    for (size_t len = 0; len < n; len++) {
        uint8_t *p = malloc(len ? len : 1);
        assert_non_null(p);
        memcpy(p, tg->data, len);
        char label[64];
        snprintf(label, sizeof label, "truncated to %zu", len);
        st = run_one(c, tg->type, tg->model, p, len, label, true);
        if (st == FBE_OK)
            mfail(c, label, "a truncated frame was accepted");
        free(p);
        k->truncations++;
    }

    /* 2. Truncations with the frame size rewritten to the new length: the walk
     * must find the missing data inside the frame. */
    size_t lengths = n > 8 ? n - 8 : 0, stride = 1;
    if (lengths > MAX_PATCHED_TRUNCATIONS)
        stride = (lengths + MAX_PATCHED_TRUNCATIONS - 129) / (MAX_PATCHED_TRUNCATIONS - 128);
    for (size_t len = 8; len < n; len++) {
        bool edge = len < 8 + 64 || len + 64 >= n;
        if (!edge && (len - 8) % stride != 0)
            continue;
        uint8_t *p = malloc(len);
        assert_non_null(p);
        memcpy(p, tg->data, len);
        wr_u32(p, (uint32_t)len);
        char label[64];
        snprintf(label, sizeof label, "truncated to %zu, size field patched", len);
        run_one(c, tg->type, tg->model, p, len, label, true);
        free(p);
        k->patched++;
    }

    /* 3. Single-byte changes: all of them for small buffers (and for the first 32
     * bytes: frame and root headers), a fixed-seed sample otherwise. */
    uint64_t seed = fnv1a(tg->name);
    unsigned long count = 0;
    if (n * BYTE_OP_COUNT <= 1200) {
        for (size_t pos = 0; pos < n; pos++)
            for (size_t i = 0; i < BYTE_OP_COUNT; i++)
                byte_mutation(c, tg, buf, pos, &byte_ops[i], &count);
    } else {
        for (size_t pos = 0; pos < 32; pos++)
            for (size_t i = 0; i < BYTE_OP_COUNT; i++)
                byte_mutation(c, tg, buf, pos, &byte_ops[i], &count);
        for (unsigned i = 0; i < SAMPLED_BYTE_MUTATIONS; i++) {
            uint64_t r = rng_next(&seed);
            byte_mutation(c, tg, buf, (size_t)(r % n), &byte_ops[(r >> 32) % BYTE_OP_COUNT],
                          &count);
        }
    }
    k->bytes += count;

    /* 4. 32-bit words (offsets, sizes, counts, lengths) set to hostile values. */
    count = 0;
    if (n >= 4) {
        uint32_t values[] = {0,          0xFFFFFFFFu, 0x7FFFFFFFu, 0x80000000u, (uint32_t)n,
                             (uint32_t)n - 3, 8,      0xFFFFFFF8u, 0x00010000u, 1};
        size_t nv = sizeof values / sizeof values[0];
        if ((n - 3) * 3 <= 600) {
            for (size_t pos = 0; pos + 4 <= n; pos++)
                for (size_t i = 0; i < 3; i++)
                    word_mutation(c, tg, buf, pos, values[(pos + i) % nv], &count);
        } else {
            for (unsigned i = 0; i < SAMPLED_WORD_MUTATIONS; i++) {
                uint64_t r = rng_next(&seed);
                size_t pos = (size_t)(r % (n - 3));
                uint32_t v = (r >> 40) % 4 == 0 ? (uint32_t)(r >> 32) % (uint32_t)(2 * n)
                                                : values[(r >> 32) % nv];
                word_mutation(c, tg, buf, pos, v, &count);
            }
        }
    }
    k->words += count;
    if (memcmp(buf, tg->data, n) != 0)
        mfail(c, "internal", "buffer not restored");
    free(buf);
    end_buffer(c);
}

/* ---- fixture ------------------------------------------------------------------------ */

typedef struct mstate {
    golden_env env;
    golden_row *rows;
    size_t row_count;
    mctx c;
} mstate;

static int setup(void **state)
{
    mstate *s = calloc(1, sizeof *s);
    assert_non_null(s);
    golden_env_load(&s->env);
    s->row_count = golden_manifest(&s->rows);
    fbe_arena_init(&s->c.arena, golden_track_alloc, &s->c.tracker);
    fbe_arena_init(&s->c.arena2, NULL, NULL);
    s->c.arena.limit = ARENA_LIMIT;
    s->c.arena2.limit = ARENA_LIMIT;
    fbe_buffer_init(&s->c.out, NULL, NULL);
    fbe_buffer_init(&s->c.out2, NULL, NULL);
    fbe_buffer_init(&s->c.text, NULL, NULL);
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    mstate *s = *state;
    report_crash();
    fbe_arena_free(&s->c.arena);
    golden_tracker_free(&s->c.tracker);
    fbe_arena_free(&s->c.arena2);
    fbe_buffer_free(&s->c.out);
    fbe_buffer_free(&s->c.out2);
    fbe_buffer_free(&s->c.text);
    free(s->c.value);
    free(s->c.value2);
    golden_env_free(&s->env);
    free(s->rows);
    free(s);
    return 0;
}

static void reset_stats(mctx *c)
{
    c->runs = c->accepted = c->roundtrips = c->failures = 0;
    memset(c->by_status, 0, sizeof c->by_status);
}

static void print_status_histogram(const mctx *c)
{
    printf("  statuses:");
    for (int i = 0; i < FBE_STATUS_COUNT; i++)
        if (c->by_status[i])
            printf(" %s=%lu", fbe_status_name((fbe_status)i), c->by_status[i]);
    printf("\n");
}

static void finish(mctx *c, const char *group)
{
    fflush(stdout);
    size_t lines = golden_report_flush(&c->report, group);
    if (c->failures || lines)
        fail_msg("%s: %lu failure(s) (details above)", group, c->failures);
}

/* ---- test: every golden buffer ------------------------------------------------------ */

static void mutate_goldens(void **state)
{
    mstate *s = *state;
    mctx *c = &s->c;
    report_crash();
    reset_stats(c);
    counts k = {0, 0, 0, 0, 0};
    unsigned long targets = 0;
    double t0 = now_seconds();
    for (size_t i = 0; i < s->row_count; i++) {
        const golden_row *row = &s->rows[i];
        if (row->kind == GOLDEN_PROTOCOL)
            continue;
        fbe_codec *codec = golden_codec(&s->env, row->kind == GOLDEN_VERSIONING ? "protoex"
                                                                                 : row->schema);
        char tname[160];
        if (row->kind == GOLDEN_VERSIONING) {
            const char *gt = strchr(row->package, '>');
            snprintf(tname, sizeof tname, "%s.%s", gt ? gt + 1 : row->package, row->type);
        } else {
            snprintf(tname, sizeof tname, "%s.%s", row->package, row->type);
        }
        const fbe_type *t = codec ? fbe_codec_type(codec, tname) : NULL;
        if (!t) {
            golden_failf(&c->report, "%s: no codec type %s", row->name, tname);
            c->failures++;
            continue;
        }
        for (int m = 0; m < 2; m++) {
            const char *f = golden_row_file(row, m == 0 ? ".bin" : ".final.bin");
            if (!f)
                continue;
            target tg;
            snprintf(tg.name, sizeof tg.name, "%s.%s/%s (%s)", row->package, row->type,
                     row->name, m == 0 ? "standard" : "final");
            if (row->kind == GOLDEN_VERSIONING)
                snprintf(tg.name, sizeof tg.name, "versioning/%s read as %s", row->name, tname);
            tg.type = t;
            tg.model = m == 0 ? FBE_STANDARD : FBE_FINAL;
            tg.data = golden_read(f, &tg.size);
            mutate_buffer(c, &tg, &k);
            free(tg.data);
            targets++;
        }
    }
    double dt = now_seconds() - t0;
    printf("mutation: %lu buffers (%lu accepted as baseline): %lu truncations, %lu with "
           "patched size, %lu byte mutations, %lu word mutations; %lu runs, %lu accepted, "
           "%lu round trips, %.1f s\n",
           targets, k.buffers, k.truncations, k.patched, k.bytes, k.words, c->runs,
           c->accepted, c->roundtrips, dt);
    print_status_histogram(c);
    finish(c, "mutation");
}

/* ---- crafted attacks ---------------------------------------------------------------- */

static const char deep_schema[] =
    "package deep\n"
    "struct Node { Node? next; int32 v; }\n"
    "struct Pair { Pair? a; Pair? b; int32 v; }\n"
    "struct Many { Pair[] items; }\n";

typedef struct bytes_out {
    uint8_t *p;
    size_t n;
} bytes_out;

/* Standard chain of `depth` Nodes: body 17 bytes, then the optional's 4-byte slot
 * pointing 4 bytes on to the next body. */
static bytes_out std_chain(size_t depth, uint32_t type)
{
    size_t n = 8 + (depth - 1) * 21 + 17;
    uint8_t *p = calloc(1, n);
    assert_non_null(p);
    wr_u32(p, (uint32_t)n);
    wr_u32(p + 4, 8);
    size_t b = 8;
    for (size_t k = 0; k < depth; k++) {
        wr_u32(p + b, 17);
        wr_u32(p + b + 4, type);
        bool more = k + 1 < depth;
        p[b + 8] = more ? 1 : 0;
        wr_u32(p + b + 9, more ? 17 : 0);
        wr_u32(p + b + 13, (uint32_t)k);
        if (more)
            wr_u32(p + b + 17, 4);
        b += 21;
    }
    return (bytes_out){p, n};
}

/* Final chain: (depth-1) present flags, one absent flag, then the ints innermost
 * first. */
static bytes_out final_chain(size_t depth, uint32_t type)
{
    size_t n = 8 + depth + 4 * depth;
    uint8_t *p = calloc(1, n);
    assert_non_null(p);
    wr_u32(p, (uint32_t)n);
    wr_u32(p + 4, type);
    for (size_t k = 0; k + 1 < depth; k++)
        p[8 + k] = 1;
    for (size_t k = 0; k < depth; k++)
        wr_u32(p + 8 + depth + 4 * k, (uint32_t)(depth - 1 - k));
    return (bytes_out){p, n};
}

/* Pair DAG: every level's a and b point to the same slot, so a naive walk visits
 * 2^depth bodies. */
static bytes_out std_pair_dag(size_t depth, uint32_t type)
{
    size_t n = 8 + (depth - 1) * 26 + 22;
    uint8_t *p = calloc(1, n);
    assert_non_null(p);
    wr_u32(p, (uint32_t)n);
    wr_u32(p + 4, 8);
    size_t b = 8;
    for (size_t k = 0; k < depth; k++) {
        bool more = k + 1 < depth;
        wr_u32(p + b, 22);
        wr_u32(p + b + 4, type);
        p[b + 8] = more;
        wr_u32(p + b + 9, more ? 22 : 0);
        p[b + 13] = more;
        wr_u32(p + b + 14, more ? 22 : 0);
        wr_u32(p + b + 18, (uint32_t)k);
        if (more)
            wr_u32(p + b + 22, 4);
        b += 26;
    }
    return (bytes_out){p, n};
}

/* Many{items: count Pair offsets, all to one body}. */
static bytes_out std_many_alias(size_t count, uint32_t many_type, uint32_t pair_type)
{
    size_t blk = 8 + 12, body = blk + 4 + 4 * count;
    size_t n = body + 22;
    uint8_t *p = calloc(1, n);
    assert_non_null(p);
    wr_u32(p, (uint32_t)n);
    wr_u32(p + 4, 8);
    wr_u32(p + 8, 12);
    wr_u32(p + 12, many_type);
    wr_u32(p + 16, (uint32_t)(blk - 8));
    wr_u32(p + blk, (uint32_t)count);
    for (size_t i = 0; i < count; i++)
        wr_u32(p + blk + 4 + 4 * i, (uint32_t)(body - 8));
    wr_u32(p + body, 22);
    wr_u32(p + body + 4, pair_type);
    return (bytes_out){p, n};
}

typedef struct crafted {
    mctx *c;
    unsigned run, ok;
} crafted;

/* Runs one crafted input (copied into an exact-size block); `want` is the
 * expected common status, or FBE_STATUS_COUNT for "any, as long as verify and
 * deserialize agree", or -1 cast for "anything but OK". */
#define ANY_STATUS FBE_STATUS_COUNT
#define NOT_OK ((fbe_status)(FBE_STATUS_COUNT + 1))

static void attack(crafted *k, const fbe_type *t, fbe_model m, const uint8_t *data, size_t n,
                   fbe_status want, const char *what)
{
    mctx *c = k->c;
    uint8_t *p = malloc(n ? n : 1);
    assert_non_null(p);
    memcpy(p, data, n);
    char label[300];
    snprintf(label, sizeof label, "%s [%s %s]", what, t->ir->full_name, model_name(m));
    unsigned long before = c->failures;
    c->buffer_name = "crafted";
    double t0 = now_seconds();
    fbe_verify_info info;
    memset(&info, 0, sizeof info);
    fbe_status vs = fbe_verify(t, m, p, n, &info);
    double t1 = now_seconds();
    fbe_status st = run_one(c, t, m, p, n, label, true);
    double t2 = now_seconds();
    if (vs != st)
        mfail(c, label, "verify is not deterministic: %s then %s", fbe_status_name(vs),
              fbe_status_name(st));
    if (want == NOT_OK && st == FBE_OK)
        mfail(c, label, "accepted; expected a rejection");
    else if (want < FBE_STATUS_COUNT && st != want) {
        char s[256];
        mfail(c, label, "expected %s, got %s", fbe_status_name(want),
              golden_status_text(vs, &info, s, sizeof s));
    }
    if (t1 - t0 > 2.0 || t2 - t1 > 4.0)
        mfail(c, label, "too slow: verify %.2f s, verify+deserialize %.2f s", t1 - t0, t2 - t1);
    k->run++;
    if (c->failures == before)
        k->ok++;
    free(p);
}

static size_t field_pos(const fbe_type *t, const char *name)
{
    const fbe_ir_field *f = fbe_field_by_name(t->ir, name);
    assert_non_null(f);
    return 8 + f->std_offset; /* root body at 8 */
}

static void crafted_attacks(void **state)
{
    mstate *s = *state;
    mctx *c = &s->c;
    report_crash();
    reset_stats(c);
    c->buffer_failures = 0;
    crafted k = {c, 0, 0};
    char what[200];

    /* -- frame headers, on proto.Account readme (252 / 152 bytes) -- */
    fbe_codec *proto = golden_codec(&s->env, "proto");
    const fbe_type *account = fbe_codec_type(proto, "proto.Account");
    assert_non_null(account);
    size_t n, nf;
    uint8_t *acc = golden_read("cases/proto/Account/readme.bin", &n);
    uint8_t *accf = golden_read("cases/proto/Account/readme.final.bin", &nf);
    ensure_value(c, 4096);
    uint8_t *b = malloc(n + 16);
    assert_non_null(b);

    for (size_t len = 0; len < 8; len++) {
        snprintf(what, sizeof what, "%zu-byte buffer", len);
        attack(&k, account, FBE_STANDARD, acc, len, FBE_TRUNCATED, what);
        attack(&k, account, FBE_FINAL, accf, len, FBE_TRUNCATED, what);
    }
    {
        const uint8_t four[4] = {4, 0, 0, 0};
        attack(&k, account, FBE_STANDARD, four, 4, FBE_TRUNCATED,
               "04 00 00 00 (the reference verifies it)");
    }
    uint32_t bad_sizes[] = {0, 4, 7};
    for (size_t i = 0; i < 3; i++) {
        memcpy(b, acc, n);
        wr_u32(b, bad_sizes[i]);
        snprintf(what, sizeof what, "full_size %" PRIu32, bad_sizes[i]);
        attack(&k, account, FBE_STANDARD, b, n, FBE_BAD_FRAME_SIZE, what);
        memcpy(b, accf, nf);
        wr_u32(b, bad_sizes[i]);
        snprintf(what, sizeof what, "struct_size %" PRIu32 " (7: the reference's wrap-around)",
                 bad_sizes[i]);
        attack(&k, account, FBE_FINAL, b, nf, FBE_BAD_FRAME_SIZE, what);
    }
    memcpy(b, acc, n);
    wr_u32(b, (uint32_t)n + 1);
    attack(&k, account, FBE_STANDARD, b, n, FBE_TRUNCATED, "full_size = buffer + 1");
    memcpy(b, accf, nf);
    wr_u32(b, (uint32_t)nf + 1);
    attack(&k, account, FBE_FINAL, b, nf, FBE_TRUNCATED, "struct_size = buffer + 1");
    /* Trailing bytes after the frame are not part of it. */
    memcpy(b, acc, n);
    memset(b + n, 0xEE, 16);
    attack(&k, account, FBE_STANDARD, b, n + 16, FBE_OK, "16 garbage bytes after the frame");
    memcpy(b, accf, nf);
    memset(b + nf, 0xEE, 16);
    attack(&k, account, FBE_FINAL, b, nf + 16, FBE_OK, "16 garbage bytes after the frame");
    /* Wrong type number. */
    memcpy(b, acc, n);
    wr_u32(b + 12, 99);
    attack(&k, account, FBE_STANDARD, b, n, FBE_BAD_TYPE, "root type 99");
    memcpy(b, accf, nf);
    wr_u32(b + 4, 99);
    attack(&k, account, FBE_FINAL, b, nf, FBE_BAD_TYPE, "root type 99");
    /* Final: one byte too many inside the frame. */
    memcpy(b, accf, nf);
    b[nf] = 0;
    wr_u32(b, (uint32_t)nf + 1);
    attack(&k, account, FBE_FINAL, b, nf + 1, FBE_FINAL_SIZE, "struct_size one more than the fields");

    /* -- standard offsets -- */
    struct {
        uint32_t v;
        fbe_status want;
        const char *what;
    } roots[] = {
        {0, FBE_NULL_OFFSET, "root offset 0"},
        {4, FBE_BAD_STRUCT_SIZE, "root offset 4 (the body overlaps the root offset itself)"},
        {(uint32_t)n - 4, FBE_BAD_OFFSET, "root offset size-4 (header past the end)"},
        {0xFFFFFFFFu, FBE_BAD_OFFSET, "root offset 0xFFFFFFFF"},
        {0xFFFFFFF8u, FBE_BAD_OFFSET, "root offset -8 (wraps in 32 bits)"},
    };
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        memcpy(b, acc, n);
        wr_u32(b + 4, roots[i].v);
        attack(&k, account, FBE_STANDARD, b, n, roots[i].want, roots[i].what);
    }
    size_t p_wallet = field_pos(account, "wallet");
    size_t p_asset = field_pos(account, "asset");
    size_t p_orders = field_pos(account, "orders");
    size_t p_name = field_pos(account, "name");
    size_t wallet_body = 8 + rd_u32(acc + p_wallet);
    size_t slot = 8 + rd_u32(acc + p_asset + 1);
    size_t orders_blk = 8 + rd_u32(acc + p_orders);
    /* Offsets whose 32-bit sum wraps back onto real data: with 64-bit arithmetic
     * they are far past the end. */
    memcpy(b, acc, n);
    wr_u32(b + slot, (uint32_t)(0x100000000ull - (slot - wallet_body)));
    attack(&k, account, FBE_STANDARD, b, n, FBE_BAD_OFFSET,
           "asset slot offset wrapping (32-bit) back onto the wallet body");
    memcpy(b, acc, n);
    wr_u32(b + p_orders, (uint32_t)(0x100000000ull - 8));
    attack(&k, account, FBE_STANDARD, b, n, FBE_BAD_OFFSET, "orders offset -8 (32-bit wrap)");
    memcpy(b, acc, n);
    wr_u32(b + p_name, 0xFFFFFFFCu);
    attack(&k, account, FBE_STANDARD, b, n, FBE_BAD_OFFSET, "name offset -4 (32-bit wrap)");
    /* Offsets pointing at themselves. */
    memcpy(b, acc, n);
    wr_u32(b + p_wallet, (uint32_t)(p_wallet - 8));
    attack(&k, account, FBE_STANDARD, b, n, NOT_OK, "wallet offset pointing at itself");
    memcpy(b, acc, n);
    wr_u32(b + p_name, (uint32_t)(p_name - 8));
    attack(&k, account, FBE_STANDARD, b, n, ANY_STATUS, "name offset pointing at itself");
    memcpy(b, acc, n);
    wr_u32(b + p_orders, (uint32_t)(p_orders - 8));
    attack(&k, account, FBE_STANDARD, b, n, ANY_STATUS, "orders offset pointing at itself");
    memcpy(b, acc, n);
    wr_u32(b + slot, 0);
    attack(&k, account, FBE_STANDARD, b, n, FBE_NULL_OFFSET, "asset slot holding offset 0");
    memcpy(b, acc, n);
    wr_u32(b + p_asset + 1, 0);
    attack(&k, account, FBE_STANDARD, b, n, FBE_NULL_OFFSET, "present asset with offset 0");
    memcpy(b, acc, n);
    wr_u32(b + p_asset + 1, (uint32_t)(n - 8 - 2));
    attack(&k, account, FBE_STANDARD, b, n, FBE_BAD_OFFSET, "asset slot 2 bytes before the end");
    memcpy(b, acc, n);
    wr_u32(b + p_wallet, 0);
    attack(&k, account, FBE_STANDARD, b, n, FBE_NULL_OFFSET, "wallet offset 0");
    memcpy(b, acc, n);
    wr_u32(b + wallet_body, 7);
    attack(&k, account, FBE_STANDARD, b, n, FBE_BAD_STRUCT_SIZE, "wallet struct_size 7");
    memcpy(b, acc, n);
    wr_u32(b + wallet_body, 0xFFFFFFF0u);
    attack(&k, account, FBE_STANDARD, b, n, FBE_BAD_STRUCT_SIZE, "wallet struct_size huge");
    /* Counts and lengths. */
    memcpy(b, acc, n);
    wr_u32(b + orders_blk, 0xFFFFFFFFu);
    attack(&k, account, FBE_STANDARD, b, n, FBE_BAD_COUNT, "orders count 0xFFFFFFFF");
    memcpy(b, acc, n);
    wr_u32(b + orders_blk, (uint32_t)((n - orders_blk - 4) / 4 + 1));
    attack(&k, account, FBE_STANDARD, b, n, FBE_BAD_COUNT, "orders count one past the bytes left");
    size_t name_blk = 8 + rd_u32(acc + p_name);
    memcpy(b, acc, n);
    wr_u32(b + name_blk, 0xFFFFFFFFu);
    attack(&k, account, FBE_STANDARD, b, n, FBE_BAD_LENGTH, "name length 0xFFFFFFFF");
    memcpy(b, acc, n);
    wr_u32(b + name_blk, (uint32_t)(n - name_blk - 4 + 1));
    attack(&k, account, FBE_STANDARD, b, n, FBE_BAD_LENGTH, "name length one past the end");
    memcpy(b, acc, n);
    wr_u32(b + name_blk, (uint32_t)(n - name_blk - 4));
    attack(&k, account, FBE_STANDARD, b, n, ANY_STATUS, "name length up to the last byte");
    /* Final: the name is the second field (after the 4-byte id). */
    memcpy(b, accf, nf);
    wr_u32(b + 12, 0xFFFFFFFFu);
    attack(&k, account, FBE_FINAL, b, nf, FBE_TRUNCATED, "final name length 0xFFFFFFFF");
    {
        /* Final: an error inside a present optional must not be swallowed (the
         * reference's 1 + SIZE_MAX wrap-around, wire-format.md 5.2 (a)). */
        size_t q = 16 + rd_u32(accf + 12) + 1;  /* after id, name, state: wallet */
        q += 4 + rd_u32(accf + q) + 8;          /* wallet: currency, amount */
        assert_int_equal(accf[q], 1);           /* asset present */
        memcpy(b, accf, nf);
        wr_u32(b + q + 1, 0xFFFFFFFFu);
        attack(&k, account, FBE_FINAL, b, nf, FBE_TRUNCATED,
               "final asset (present) with currency length 0xFFFFFFFF");
        memcpy(b, accf, nf);
        wr_u32(b + q + 1, rd_u32(accf + q + 1) + 1);
        attack(&k, account, FBE_FINAL, b, nf, NOT_OK,
               "final asset (present) with currency one byte longer");
    }
    free(acc);
    free(accf);

    /* -- collection counts on every collection field of the test package -- */
    fbe_codec *test = golden_codec(&s->env, "test");
    const char *coll[] = {"StructVector", "StructList", "StructSet", "StructMap", "StructHash",
                          "StructHashEx"};
    for (size_t i = 0; i < sizeof coll / sizeof coll[0]; i++) {
        char tn[96], path[160];
        snprintf(tn, sizeof tn, "test.%s", coll[i]);
        const fbe_type *t = fbe_codec_type(test, tn);
        assert_non_null(t);
        snprintf(path, sizeof path, "cases/test/%s/random_2.bin", coll[i]);
        uint8_t *d = golden_read(path, &n);
        snprintf(path, sizeof path, "cases/test/%s/random_2.final.bin", coll[i]);
        uint8_t *df = golden_read(path, &nf);
        uint8_t *w = malloc(n > nf ? n : nf);
        assert_non_null(w);
        ensure_value(c, t->ir->host_size);
        for (size_t f = 0; f < t->ir->field_count; f++) {
            const fbe_ir_field *fld = &t->ir->fields[f];
            size_t pos = 8 + fld->std_offset;
            uint32_t off = rd_u32(d + pos);
            if (!off)
                continue;
            size_t blk = 8 + off;
            uint32_t inl = fld->type->kind == FBE_IR_MAP || fld->type->kind == FBE_IR_HASH
                               ? fld->type->key->std_inline_size +
                                     fld->type->elem->std_inline_size
                               : fld->type->elem->std_inline_size;
            uint32_t bad_counts[] = {0xFFFFFFFFu, 0x80000000u, (uint32_t)((n - blk - 4) / inl + 1)};
            for (size_t j = 0; j < 3; j++) {
                memcpy(w, d, n);
                wr_u32(w + blk, bad_counts[j]);
                snprintf(what, sizeof what, "%s count %" PRIu32, fld->name, bad_counts[j]);
                attack(&k, t, FBE_STANDARD, w, n, FBE_BAD_COUNT, what);
            }
        }
        /* Final: the first field's count is at 8. */
        uint32_t fcounts[] = {0xFFFFFFFFu, 0x80000000u, (uint32_t)(nf - 12 + 1)};
        for (size_t j = 0; j < 3; j++) {
            memcpy(w, df, nf);
            wr_u32(w + 8, fcounts[j]);
            snprintf(what, sizeof what, "final f1 count %" PRIu32, fcounts[j]);
            attack(&k, t, FBE_FINAL, w, nf, FBE_BAD_COUNT, what);
        }
        free(w);
        free(d);
        free(df);
    }

    /* -- nesting and aliasing, on a recursive schema -- */
    diag_capture cap;
    fbe_schema *schema = load_text(deep_schema, &cap);
    if (!schema)
        fail_msg("deep schema: %s", cap.text);
    fbe_codec_options copt = {.max_depth = 8};
    fbe_codec *deep = fbe_interp_create(schema, NULL, NULL);
    fbe_codec *shallow = fbe_interp_create(schema, &copt, NULL);
    assert_non_null(deep);
    assert_non_null(shallow);
    const fbe_type *node = fbe_codec_type(deep, "deep.Node");
    const fbe_type *pair = fbe_codec_type(deep, "deep.Pair");
    const fbe_type *many = fbe_codec_type(deep, "deep.Many");
    const fbe_type *node8 = fbe_codec_type(shallow, "deep.Node");
    assert_non_null(node);
    assert_non_null(pair);
    assert_non_null(many);
    assert_non_null(node8);
    ensure_value(c, 64);

    /* The crafted layout is what the writer produces (checked on a short chain
     * built in memory; skipped, with a failure, if the writer disagrees). */
    {
        const size_t d = 5;
        uint8_t *nodes = calloc(d, node->ir->host_size);
        assert_non_null(nodes);
        const fbe_ir_field *fnext = fbe_field_by_name(node->ir, "next");
        const fbe_ir_field *fv = fbe_field_by_name(node->ir, "v");
        for (size_t i = 0; i < d; i++) {
            uint8_t *cur = nodes + i * node->ir->host_size;
            uint8_t *nx = i + 1 < d ? nodes + (i + 1) * node->ir->host_size : NULL;
            memcpy(fbe_field_ptr(cur, fnext), &nx, sizeof nx);
            int32_t v = (int32_t)i;
            memcpy(fbe_field_ptr(cur, fv), &v, 4);
        }
        bytes_out want[2] = {std_chain(d, node->ir->type_number),
                             final_chain(d, node->ir->type_number)};
        for (int m = 0; m < 2; m++) {
            fbe_buffer ob;
            fbe_buffer_init(&ob, NULL, NULL);
            fbe_status st = fbe_serialize(node, (fbe_model)m, nodes, &ob);
            char msg[1200];
            if (st != FBE_OK || !golden_same_bytes(want[m].p, want[m].n, ob.data, ob.size, false,
                                                   msg, sizeof msg)) {
                if (st != FBE_OK)
                    snprintf(msg, sizeof msg, "serialize returned %s", fbe_status_name(st));
                golden_failf(&c->report, "crafted: %s chain of 5 Nodes: the writer's bytes "
                             "differ from the hand-made layout: %s", model_name((fbe_model)m),
                             msg);
                c->failures++;
            }
            fbe_buffer_free(&ob);
            free(want[m].p);
        }
        free(nodes);
    }

    /* Depth: a chain within the limit is fine, far beyond it is TOO_DEEP, and the
     * two functions agree on the exact threshold. */
    const size_t depths[] = {1, 2, 16, 100000};
    for (size_t i = 0; i < 4; i++) {
        bytes_out sc = std_chain(depths[i], node->ir->type_number);
        bytes_out fc = final_chain(depths[i], node->ir->type_number);
        fbe_status want = depths[i] <= 16 ? FBE_OK : FBE_TOO_DEEP;
        snprintf(what, sizeof what, "Node chain of depth %zu (limit %u)", depths[i],
                 FBE_DEFAULT_MAX_DEPTH);
        attack(&k, node, FBE_STANDARD, sc.p, sc.n, want, what);
        attack(&k, node, FBE_FINAL, fc.p, fc.n, want, what);
        free(sc.p);
        free(fc.p);
    }
    for (int m = 0; m < 2; m++) {
        size_t threshold = 0;
        for (size_t d = 1; d <= 20; d++) {
            bytes_out bo = m == 0 ? std_chain(d, node->ir->type_number)
                                  : final_chain(d, node->ir->type_number);
            snprintf(what, sizeof what, "Node chain of depth %zu (codec limit 8)", d);
            fbe_status want = d <= 4 ? FBE_OK : d >= 12 ? FBE_TOO_DEEP : ANY_STATUS;
            unsigned long before = c->accepted;
            attack(&k, node8, (fbe_model)m, bo.p, bo.n, want, what);
            if (c->accepted > before)
                threshold = d;
            free(bo.p);
        }
        printf("  depth limit 8, %s model: deepest accepted Node chain %zu\n",
               model_name((fbe_model)m), threshold);
    }
    {
        /* decode options override the codec's limit (verify cannot: check only
         * that deserialize rejects it). */
        bytes_out sc = std_chain(30, node->ir->type_number);
        fbe_arena_reset(&c->arena);
        fbe_decode_options o = {.arena = &c->arena, .max_depth = 4};
        fbe_status st = fbe_deserialize(node, FBE_STANDARD, sc.p, sc.n, c->value, &o, NULL);
        k.run++;
        if (st != FBE_TOO_DEEP) {
            golden_failf(&c->report, "crafted: Node chain of 30 with options.max_depth 4: "
                         "deserialize returned %s, expected TOO_DEEP", fbe_status_name(st));
            c->failures++;
        } else {
            k.ok++;
        }
        free(sc.p);
    }

    /* Aliasing: exponential DAG and a vector of offsets to one body. */
    const size_t dag_depths[] = {2, 20, 40};
    for (size_t i = 0; i < 3; i++) {
        bytes_out bo = std_pair_dag(dag_depths[i], pair->ir->type_number);
        snprintf(what, sizeof what, "Pair DAG of depth %zu (2^%zu paths)", dag_depths[i],
                 dag_depths[i]);
        attack(&k, pair, FBE_STANDARD, bo.p, bo.n, FBE_TRAVERSAL_LIMIT, what);
        free(bo.p);
    }
    const size_t aliases[] = {2, 1000, 1000000};
    for (size_t i = 0; i < 3; i++) {
        bytes_out bo = std_many_alias(aliases[i], many->ir->type_number, pair->ir->type_number);
        snprintf(what, sizeof what, "%zu vector elements aliasing one body", aliases[i]);
        attack(&k, many, FBE_STANDARD, bo.p, bo.n, FBE_TRAVERSAL_LIMIT, what);
        free(bo.p);
    }
    {
        /* Control: one element, no aliasing. */
        bytes_out bo = std_many_alias(1, many->ir->type_number, pair->ir->type_number);
        attack(&k, many, FBE_STANDARD, bo.p, bo.n, FBE_OK, "1 vector element (no aliasing)");
        free(bo.p);
    }
    {
        /* Final: a count of empty-ish elements larger than the bytes left. */
        uint8_t fm[16];
        wr_u32(fm, 16);
        wr_u32(fm + 4, many->ir->type_number);
        wr_u32(fm + 8, 0x7FFFFFFFu);
        memset(fm + 12, 0, 4);
        attack(&k, many, FBE_FINAL, fm, 16, FBE_BAD_COUNT, "final count 0x7FFFFFFF, 4 bytes left");
        wr_u32(fm + 8, 4);
        attack(&k, many, FBE_FINAL, fm, 16, NOT_OK,
               "final count 4 with 4 bytes left (elements need more)");
    }
    fbe_codec_free(deep);
    fbe_codec_free(shallow);
    fbe_schema_free(schema);

    printf("crafted attacks: %u/%u as expected (%lu runs)\n", k.ok, k.run, c->runs);
    print_status_histogram(c);
    free(b);
    finish(c, "crafted");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crafted_attacks),
        cmocka_unit_test(mutate_goldens),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
