/* The LLVM JIT's final model against the interpreter (runtime/interp/final.c, the
 * semantic reference). Identical means: the same size, the same serialized bytes,
 * the same serialize status, the same verify status and fbe_verify_info (offset,
 * struct and field), the same deserialize status, consumed size and printed value
 * (fbe_print), copying and borrowing.
 *
 * Inputs: every golden final case of ../shared/golden/MANIFEST.tsv, each of its
 * truncations and a fixed sample of single-byte mutations; random values of a
 * schema written to reach every lowering path (nested fixed structs and arrays,
 * recursion, loops over long arrays, maps with fixed and variable entries, empty
 * structs, optionals of every shape); depth limits (codec and per call), size
 * saturation and TOO_LARGE, too-small buffers, failing arenas, invalid arguments. */
#include "test_util.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbe/codec.h"
#include "fbe/jit.h"
#include "value_gen.h"

/* ---- deterministic randomness (splitmix64) ------------------------------------------ */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rnd(rng *r)
{
    return rng_next(&r->s);
}

static uint64_t rnd_below(rng *r, uint64_t n)
{
    return n ? rnd(r) % n : 0;
}

/* ---- codec pairs ------------------------------------------------------------------- */

typedef struct pair {
    fbe_codec *interp;
    fbe_codec *jit;
    /* the interpreter with the default limit: writes the values deeper than
     * max_depth, which the pair's serialize refuses */
    fbe_codec *writer;
} pair;

static void pair_make(pair *p, const fbe_schema *schema, unsigned max_depth)
{
    fbe_status st = FBE_OK;
    fbe_codec_options copts = {.max_depth = max_depth};
    p->interp = fbe_interp_create(schema, &copts, &st);
    if (!p->interp)
        fail_msg("fbe_interp_create: %s", fbe_status_name(st));
    fbe_jit_options jopts = {.require_native = true, .max_depth = max_depth};
    p->jit = fbe_jit_compile(schema, &jopts, &st);
    if (!p->jit)
        fail_msg("fbe_jit_compile: %s", fbe_status_name(st));
    assert_int_equal(st, FBE_OK);
    assert_int_equal(fbe_codec_backend(p->jit), FBE_BACKEND_JIT);
    assert_int_equal(fbe_codec_max_depth(p->jit), fbe_codec_max_depth(p->interp));
    p->writer = fbe_interp_create(schema, NULL, &st);
    assert_non_null(p->writer);
}

static void pair_free(pair *p)
{
    fbe_codec_free(p->jit);
    fbe_codec_free(p->interp);
    fbe_codec_free(p->writer);
    p->jit = p->interp = p->writer = NULL;
}

/* The schema built below for every lowering path and its codecs, compiled once
 * for the tests that share it (freed with the group). */
static fbe_schema *jt_full;
static pair jt_pair;

static const fbe_type *type_in(const fbe_codec *c, const char *name)
{
    const fbe_type *t = fbe_codec_type(c, name);
    if (!t)
        fail_msg("no type %s", name);
    return t;
}

/* ---- failure collection ------------------------------------------------------------ */

typedef struct report {
    long checks;
    long failures;
    char shown[1 << 14];
    size_t shown_len;
} report;

static void report_fail(report *r, const char *fmt, ...)
{
    r->failures++;
    if (r->failures > 12)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(r->shown + r->shown_len, sizeof r->shown - r->shown_len, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < sizeof r->shown - r->shown_len - 1) {
        r->shown_len += (size_t)n;
        r->shown[r->shown_len++] = '\n';
        r->shown[r->shown_len] = 0;
    }
}

static void report_done(report *r, const char *what)
{
    print_message("%s: %ld comparisons, %ld differences\n", what, r->checks, r->failures);
    if (r->failures) {
        print_message("%s", r->shown);
        fail_msg("%s: the JIT and the interpreter differ", what);
    }
}

/* ---- one input through both codecs ------------------------------------------------- */

typedef struct outcome {
    fbe_status vst;
    fbe_verify_info info;
    fbe_status dst[2];   /* copy, borrow */
    size_t consumed[2];
    void *value[2];
    fbe_arena arena;     /* the values' memory */
    size_t arena_total;  /* arena.total after the two deserializes */
    fbe_buffer text[2];
} outcome;

static void outcome_init(outcome *o)
{
    memset(o, 0, sizeof *o);
    fbe_arena_init(&o->arena, NULL, NULL);
    fbe_buffer_init(&o->text[0], NULL, NULL);
    fbe_buffer_init(&o->text[1], NULL, NULL);
}

static void outcome_free(outcome *o)
{
    fbe_buffer_free(&o->text[0]);
    fbe_buffer_free(&o->text[1]);
    fbe_arena_free(&o->arena);
}

/* verify, then deserialize (copy and borrow) into values full of garbage (every
 * field must be written). opt_depth: options.max_depth, of both (0: verify
 * without options, the codec's limit). */
static void run(const fbe_type *t, const uint8_t *data, size_t len, unsigned opt_depth, outcome *o)
{
    memset(&o->info, 0x5A, sizeof o->info);
    fbe_decode_options vo = {.max_depth = opt_depth}; /* verify needs no arena */
    o->vst = opt_depth ? fbe_verify_with(t, FBE_FINAL, data, len, &o->info, &vo)
                       : fbe_verify(t, FBE_FINAL, data, len, &o->info);
    fbe_arena_reset(&o->arena);
    for (int borrow = 0; borrow < 2; borrow++) {
        fbe_decode_options opts = {.arena = &o->arena,
                                   .flags = borrow ? FBE_DECODE_BORROW : 0,
                                   .max_depth = opt_depth};
        void *v = fbe_arena_alloc(&o->arena, t->ir->host_size);
        assert_non_null(v);
        memset(v, 0xA5, t->ir->host_size);
        o->consumed[borrow] = 12345;
        o->dst[borrow] = fbe_deserialize(t, FBE_FINAL, data, len, v, &opts, &o->consumed[borrow]);
        o->value[borrow] = v;
    }
    o->arena_total = o->arena.total;
}

/* ---- structural equality of host values, by the IR ---------------------------------- */

static bool eq_struct(const fbe_ir_struct *st, const uint8_t *a, const uint8_t *b);

static bool eq_type(const fbe_ir_type *t, const uint8_t *a, const uint8_t *b)
{
    switch (t->kind) {
    case FBE_IR_BOOL:
        return *a == *b;
    case FBE_IR_STRING:
    case FBE_IR_BYTES: {
        const fbe_string *x = (const fbe_string *)a, *y = (const fbe_string *)b;
        return x->size == y->size && (x->data == NULL) == (y->data == NULL) &&
               (x->size == 0 || memcmp(x->data, y->data, x->size) == 0);
    }
    case FBE_IR_STRUCT:
        return eq_struct(t->struct_type, a, b);
    case FBE_IR_OPTIONAL:
        if (t->elem->kind == FBE_IR_STRUCT) {
            const uint8_t *pa = *(const uint8_t *const *)a, *pb = *(const uint8_t *const *)b;
            if (!pa || !pb)
                return pa == pb;
            return eq_struct(t->elem->struct_type, pa, pb);
        }
        if (*a != *b)
            return false;
        return !*a || eq_type(t->elem, a + t->host_value_offset, b + t->host_value_offset);
    case FBE_IR_ARRAY:
        for (uint32_t i = 0; i < t->array_len; i++)
            if (!eq_type(t->elem, a + (size_t)i * t->elem->host_size, b + (size_t)i * t->elem->host_size))
                return false;
        return true;
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        const fbe_seq *x = (const fbe_seq *)a, *y = (const fbe_seq *)b;
        if (x->size != y->size || (x->data == NULL) != (y->data == NULL))
            return false;
        bool map = t->kind == FBE_IR_MAP || t->kind == FBE_IR_HASH;
        size_t stride = map ? t->host_entry_size : t->elem->host_size;
        for (size_t i = 0; i < x->size; i++) {
            const uint8_t *ea = (const uint8_t *)x->data + i * stride;
            const uint8_t *eb = (const uint8_t *)y->data + i * stride;
            if (map ? !eq_type(t->key, ea, eb) ||
                          !eq_type(t->elem, ea + t->host_entry_value_offset, eb + t->host_entry_value_offset)
                    : !eq_type(t->elem, ea, eb))
                return false;
        }
        return true;
    }
    default: /* integers, floats (bits), enums, flags, decimal, uuid, timestamp */
        return memcmp(a, b, t->host_size) == 0;
    }
}

static bool eq_struct(const fbe_ir_struct *st, const uint8_t *a, const uint8_t *b)
{
    for (size_t i = 0; i < st->field_count; i++) {
        const fbe_ir_field *f = &st->fields[i];
        if (!eq_type(f->type, a + f->host_offset, b + f->host_offset))
            return false;
    }
    /* an empty struct's placeholder byte is written (zero) too */
    return st->field_count || *a == *b;
}

static bool same_text(const fbe_buffer *a, const fbe_buffer *b)
{
    return a->size == b->size && (a->size == 0 || memcmp(a->data, b->data, a->size) == 0);
}

/* Compares the two codecs on one input; returns the interpreter's verify status.
 * Values are compared printed (fbe_print) when `print`, else structurally (the
 * same information, without formatting kilobytes of text per decode), and
 * printed for the report when they differ. */
typedef struct bench {
    outcome oi, oj;
} bench;

static void bench_init(bench *b)
{
    outcome_init(&b->oi);
    outcome_init(&b->oj);
}

static void bench_free(bench *b)
{
    outcome_free(&b->oi);
    outcome_free(&b->oj);
}

static fbe_status compare(report *r, bench *b, const fbe_type *ti, const fbe_type *tj,
                          const uint8_t *data, size_t len, unsigned opt_depth, bool print,
                          const char *what, long detail)
{
    run(ti, data, len, opt_depth, &b->oi);
    run(tj, data, len, opt_depth, &b->oj);
    r->checks++;
    const outcome *i = &b->oi, *j = &b->oj;
    if (i->vst != j->vst || i->info.status != j->info.status || i->info.offset != j->info.offset ||
        i->info.type != j->info.type || i->info.field != j->info.field) {
        report_fail(r, "%s [%ld]: verify interp %s@%zu %s.%s, jit %s@%zu %s.%s", what, detail,
                    fbe_status_name(i->vst), i->info.offset,
                    i->info.type ? i->info.type->name : "-",
                    i->info.field ? i->info.field->name : "-", fbe_status_name(j->vst),
                    j->info.offset, j->info.type ? j->info.type->name : "-",
                    j->info.field ? j->info.field->name : "-");
        return i->vst;
    }
    outcome *oi = &b->oi, *oj = &b->oj;
    /* verify and deserialize apply the same limits (no arena limit here) */
    if (i->vst != i->dst[0] || j->vst != j->dst[0])
        report_fail(r, "%s [%ld]: verify and deserialize disagree: interp %s / %s, jit %s / %s", what,
                    detail, fbe_status_name(i->vst), fbe_status_name(i->dst[0]),
                    fbe_status_name(j->vst), fbe_status_name(j->dst[0]));
    /* a failing native deserialize hands the call to the interpreter on the
     * arena as it found it (jit_read_bail_block): it leaves what the
     * interpreter alone leaves */
    if (i->arena_total != j->arena_total) {
        report_fail(r, "%s [%ld]: deserialize %s: the arena holds %zu bytes (interp), %zu (jit)",
                    what, detail, fbe_status_name(i->dst[0]), i->arena_total, j->arena_total);
        return i->vst;
    }
    for (int k = 0; k < 2; k++) {
        if (i->dst[k] != j->dst[k] || i->consumed[k] != j->consumed[k]) {
            report_fail(r, "%s [%ld]: deserialize%s interp %s (%zu), jit %s (%zu)", what, detail,
                        k ? " (borrow)" : "", fbe_status_name(i->dst[k]), i->consumed[k],
                        fbe_status_name(j->dst[k]), j->consumed[k]);
            return i->vst;
        }
        bool same = true;
        if (!print)
            same = eq_struct(ti->ir, oi->value[k], oj->value[k]);
        if (print || !same) {
            fbe_buffer_clear(&oi->text[k]);
            fbe_buffer_clear(&oj->text[k]);
            fbe_status pi = fbe_print(ti->ir, oi->value[k], &oi->text[k]);
            fbe_status pj = fbe_print(tj->ir, oj->value[k], &oj->text[k]);
            same = same && pi == pj && same_text(&i->text[k], &j->text[k]);
        }
        if (!same) {
            report_fail(r, "%s [%ld]: %s value%s differs:\n  interp %.*s\n  jit    %.*s", what, detail,
                        fbe_status_name(i->dst[k]), k ? " (borrow)" : "",
                        (int)(i->text[k].size > 400 ? 400 : i->text[k].size),
                        (const char *)i->text[k].data,
                        (int)(j->text[k].size > 400 ? 400 : j->text[k].size),
                        (const char *)j->text[k].data);
            return i->vst;
        }
    }
    return i->vst;
}

/* size and serialize of one host value: equal sizes, statuses and bytes. Returns
 * the interpreter's bytes in *out (caller frees) when serialize succeeded. */
static fbe_status compare_write(report *r, const fbe_type *ti, const fbe_type *tj, const void *value,
                                const char *what, fbe_buffer *out)
{
    r->checks++;
    size_t si = fbe_size(ti, FBE_FINAL, value), sj = fbe_size(tj, FBE_FINAL, value);
    if (si != sj)
        report_fail(r, "%s: size interp %zu, jit %zu", what, si, sj);
    fbe_buffer bj;
    fbe_buffer_init(out, NULL, NULL);
    fbe_buffer_init(&bj, NULL, NULL);
    /* something before the frame: it is appended, not written at 0 */
    uint8_t junk[3] = {1, 2, 3};
    assert_int_equal(fbe_buffer_append(out, junk, 3), FBE_OK);
    assert_int_equal(fbe_buffer_append(&bj, junk, 3), FBE_OK);
    fbe_status sti = fbe_serialize(ti, FBE_FINAL, value, out);
    fbe_status stj = fbe_serialize(tj, FBE_FINAL, value, &bj);
    if (sti != stj)
        report_fail(r, "%s: serialize interp %s, jit %s", what, fbe_status_name(sti), fbe_status_name(stj));
    else if (!same_text(out, &bj))
        report_fail(r, "%s: serialized bytes differ (interp %zu, jit %zu bytes)", what, out->size, bj.size);
    else if (sti == FBE_OK && out->size - 3 != si)
        report_fail(r, "%s: size %zu but %zu bytes written", what, si, out->size - 3);
    fbe_buffer_free(&bj);
    /* drop the junk */
    if (out->size >= 3) {
        memmove(out->data, out->data + 3, out->size - 3);
        out->size -= 3;
    }
    return sti;
}

/* Every compare costs ~10x under the sanitizers: sample fewer inputs there (the
 * plain build runs them all; both run every kind of input). */
#define SANITIZED FBE_TEST_SANITIZED
/* divides sample counts in the sanitizer build */
#define SAMPLE_DIV (SANITIZED ? 4 : 1)

/* Every truncation (with truncation_step > 1: the first and last 64 and every
 * step-th in between) and `mutations` single-byte changes of data, plus the
 * frame followed by more bytes. */
static size_t truncation_step = 1;

static void sweep(report *r, bench *b, const fbe_type *ti, const fbe_type *tj, const uint8_t *data,
                  size_t len, rng *g, int mutations, bool print, const char *what)
{
    uint8_t *copy = malloc(len + 16);
    assert_non_null(copy);
    memcpy(copy, data, len);
    memset(copy + len, 0xEE, 16);
    compare(r, b, ti, tj, copy, len + 16, 0, print, what, -2);
    for (size_t cut = 0; cut < len; cut += cut < 64 || cut + 64 >= len ? 1 : truncation_step)
        compare(r, b, ti, tj, copy, cut, 0, print, what, -(long)cut - 1000);
    for (int m = 0; m < mutations && len; m++) {
        size_t at = (size_t)rnd_below(g, len);
        uint8_t old = copy[at];
        copy[at] = (uint8_t)(old ^ (1 + rnd_below(g, 255)));
        compare(r, b, ti, tj, copy, len, 0, print, what, (long)at);
        copy[at] = old;
    }
    free(copy);
}

/* ---- golden cases ------------------------------------------------------------------ */

static const char *const golden_names[] = {"proto", "protoex", "test", "enums"};
#define GOLDEN_COUNT 4

typedef struct golden {
    fbe_schema *schema[GOLDEN_COUNT];
    pair pairs[GOLDEN_COUNT];
} golden;

static golden *G;

static int golden_setup(void **state)
{
    (void)state;
    G = calloc(1, sizeof *G);
    for (int i = 0; i < GOLDEN_COUNT; i++) {
        G->schema[i] = load_golden(golden_names[i]);
        pair_make(&G->pairs[i], G->schema[i], 0);
    }
    return 0;
}

static int golden_teardown(void **state)
{
    (void)state;
    for (int i = 0; i < GOLDEN_COUNT; i++) {
        pair_free(&G->pairs[i]);
        fbe_schema_free(G->schema[i]);
    }
    free(G);
    G = NULL;
    if (jt_full) {
        pair_free(&jt_pair);
        fbe_schema_free(jt_full);
        jt_full = NULL;
    }
    return 0;
}

static pair *golden_pair(const char *schema)
{
    for (int i = 0; i < GOLDEN_COUNT; i++)
        if (strcmp(schema, golden_names[i]) == 0)
            return &G->pairs[i];
    fail_msg("unknown golden schema %s", schema);
    return NULL;
}

typedef void (*golden_fn)(const fbe_type *ti, const fbe_type *tj, const uint8_t *data, size_t len,
                          const char *path, void *ctx);

typedef struct final_visit {
    golden_fn fn;
    void *ctx;
} final_visit;

static void visit_final(const char *schema, const char *type_name, const char *path,
                        const uint8_t *data, size_t len, void *ctx)
{
    final_visit *v = ctx;
    pair *p = golden_pair(schema);
    v->fn(type_in(p->interp, type_name), type_in(p->jit, type_name), data, len, path, v->ctx);
}

/* Calls fn for every cases/<pkg>/<Type>/<case>.final.bin of the manifest. */
static int for_each_final(golden_fn fn, void *ctx)
{
    final_visit v = {fn, ctx};
    return for_each_final_case(visit_final, &v);
}

typedef struct golden_ctx {
    report r;
    bench b;
    int passed;
    long mutations;
} golden_ctx;

static void golden_case(const fbe_type *ti, const fbe_type *tj, const uint8_t *data, size_t len,
                        const char *path, void *ctx)
{
    golden_ctx *c = ctx;
    long before = c->r.failures;
    /* the case itself */
    fbe_status vs = compare(&c->r, &c->b, ti, tj, data, len, 0, true, path, -1);
    if (vs != FBE_OK)
        report_fail(&c->r, "%s: interpreter verify %s", path, fbe_status_name(vs));
    if (c->b.oi.dst[0] != FBE_OK || c->b.oi.consumed[0] != len)
        report_fail(&c->r, "%s: interpreter deserialize %s", path, fbe_status_name(c->b.oi.dst[0]));
    /* size and serialize of the decoded value, by both codecs, from both decodes */
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    for (int from_jit = 0; from_jit < 2; from_jit++) {
        fbe_decode_options opts = {.arena = &arena};
        void *v = fbe_arena_alloc(&arena, ti->ir->host_size);
        assert_non_null(v);
        fbe_status st = fbe_deserialize(from_jit ? tj : ti, FBE_FINAL, data, len, v, &opts, NULL);
        if (st != FBE_OK) {
            report_fail(&c->r, "%s: deserialize (%s) %s", path, from_jit ? "jit" : "interp",
                        fbe_status_name(st));
            continue;
        }
        fbe_buffer out;
        st = compare_write(&c->r, ti, tj, v, path, &out);
        if (st != FBE_OK || out.size != len || memcmp(out.data, data, len) != 0)
            report_fail(&c->r, "%s: re-serialized bytes differ from the golden file", path);
        fbe_buffer_free(&out);
    }
    fbe_arena_free(&arena);
    /* hostile variants */
    rng g = {0x5EEDF00Dull + (uint64_t)len};
    int mutations = (len < 200 ? 256 : 256 + (int)(len / 8)) / SAMPLE_DIV;
    if (SANITIZED && len > 512)
        truncation_step = len / 256;
    /* the biggest values print 10+ KB per decode: theirs are compared structurally */
    bool print_all = len <= 2048;
    sweep(&c->r, &c->b, ti, tj, data, len, &g, mutations, print_all, path);
    truncation_step = 1;
    c->mutations += mutations;
    /* nesting limits on every case, per call (verify and deserialize): small ones,
     * the codec's own and larger ones */
    static const unsigned depths[] = {1, 2, 3, 4, FBE_DEFAULT_MAX_DEPTH, 200, UINT_MAX};
    for (size_t d = 0; d < sizeof depths / sizeof *depths; d++)
        compare(&c->r, &c->b, ti, tj, data, len, depths[d], true, path, -(long)d - 100);
    if (c->r.failures == before)
        c->passed++;
}

static void test_golden(void **state)
{
    (void)state;
    golden_ctx *c = calloc(1, sizeof *c);
    bench_init(&c->b);
    int total = for_each_final(golden_case, c);
    print_message("golden final cases: %d/%d identical (%ld mutations)\n", c->passed, total,
                  c->mutations);
    assert_true(total >= 100);
    report_done(&c->r, "golden final");
    assert_int_equal(c->passed, total);
    bench_free(&c->b);
    free(c);
}

/* Codecs compiled with small depth limits and with no practical limit
 * (UINT_MAX), and per-call limits below, equal to and above theirs (the
 * per-call limit replaces the codec's, for verify as for deserialize; it is
 * exercised on every golden case above too). */
static void test_golden_depth(void **state)
{
    (void)state;
    report r = {0};
    bench b;
    bench_init(&b);
    static const struct {
        const char *schema, *type, *file;
    } cases[] = {
        {"proto", "proto.AccountMessage", "cases/proto/AccountMessage/random_2.final.bin"},
        {"proto", "proto.Account", "cases/proto/Account/readme.final.bin"},
        {"protoex", "protoex.AccountMessage", "cases/protoex/AccountMessage/random_2.final.bin"},
        {"protoex", "protoex.Account", "cases/protoex/Account/random_1.final.bin"},
    };
    for (int sc = 0; sc < 2; sc++) {
        fbe_schema *s = load_golden(sc ? "protoex" : "proto");
        static const unsigned codec_depths[] = {1, 2, 3, UINT_MAX};
        for (size_t cd = 0; cd < sizeof codec_depths / sizeof *codec_depths; cd++) {
            unsigned d = codec_depths[cd];
            pair p;
            pair_make(&p, s, d);
            for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
                if (strcmp(cases[k].schema, sc ? "protoex" : "proto") != 0)
                    continue;
                char rel[512];
                snprintf(rel, sizeof rel, "golden/%s", cases[k].file);
                size_t len;
                uint8_t *data = read_file(shared_path(rel), &len);
                rng g = {d * 77 + k};
                char what[600];
                snprintf(what, sizeof what, "%s (max depth %u)", cases[k].file, d);
                const fbe_type *ti = type_in(p.interp, cases[k].type);
                const fbe_type *tj = type_in(p.jit, cases[k].type);
                sweep(&r, &b, ti, tj, data, len, &g, 256, true, what);
                for (unsigned o = 1; o <= 5; o++) {
                    unsigned od = o == 5 ? FBE_DEFAULT_MAX_DEPTH : o;
                    compare(&r, &b, ti, tj, data, len, od, true, what, -(long)od - 100);
                }
                free(data);
            }
            pair_free(&p);
        }
        fbe_schema_free(s);
    }
    report_done(&r, "golden depth limits");
    bench_free(&b);
}

/* ---- a schema for every lowering path ---------------------------------------------- */

/* The nesting part: fixed nests three to five struct levels deep, recursion. */
#define JT_NESTS                                                                       \
    "package jt\n"                                                                     \
    "enum E : int16 { a; b = 5; c; }\n"                                                \
    "flags Fl : uint32 { x = 1; y = 2; }\n"                                            \
    "struct Leaf { int8 a; bool b; int64 c; }\n"                                       \
    "struct Mid { Leaf l; Leaf[2] ls; uint16 u; }\n"                                   \
    "struct Top { Mid m; Mid[3] ms; bool[3] bs; }\n"                                   \
    "struct Empty { }\n"                                                               \
    "struct Rec { int32 id; Rec? next; Rec[] kids; string name; }\n"                   \
    "struct Fixed2 : Leaf { Top t; Empty e; Mid[2] mm; }\n"                            \
    "struct Deep4 { Fixed2 f; }\n"                                                     \
    "struct Chain { Deep4 d; Chain? c; Deep4[] v; Fixed2<Deep4> m; Top? ot; }\n"             \
    "struct Holder { Rec r; Leaf l; }\n" /* not on a cycle, holds one */

static const char jt_nests[] = JT_NESTS;

static const char jt_schema[] =
    JT_NESTS
    "struct Mixed {\n"
    "  bool f0; Top top; string s; bytes bb; Empty e; Empty[2] ee; Leaf? ol; Top? ot; Rec? rec;\n"
    "  Mid[] vm; Leaf[10] many; string[10] sa; int32? oi; string? os; Mid<int32> mm;\n"
    "  Top{Leaf} hh; Rec<string> rs; string<Rec> sr; bool[] vb; decimal d; uuid u; timestamp t;\n"
    "  E en; Fl fl; E[] ve; Fl?[] vo; uint8[20] raw; double[3] dd; char c; wchar wc; float ff;\n"
    "  Leaf?[2] ola; Rec[2] ra; Empty[] ve2; Empty? oe; Leaf[12] big; Rec[9] ra9;\n"
    "  Empty<Empty> emap; int64<int8> im; bool? ob; Mid?[] vom; E?[3] oea;\n"
    "}\n"
    "struct Derived : Mixed { int32 extra; string tail; Derived? self; Derived[] many2; }\n"
    "struct Big { string s; string? os; bytes[2] ab; int32[] v; Leaf[] vl; string[] vs;\n"
    "  int32<int32> m; string<int32> ms; int32<string> sm; Leaf<Leaf> ll; Rec? r; Rec[] vr;\n"
    "  Rec[2] ar; }\n";

static const char *const jt_types[] = {"jt.Leaf",   "jt.Mid",    "jt.Top",    "jt.Empty",
                                       "jt.Rec",    "jt.Fixed2", "jt.Deep4",  "jt.Chain",
                                       "jt.Holder", "jt.Mixed",  "jt.Derived", "jt.Big"};
#define JT_NEST_TYPES 9 /* the first ones are in jt_nests */

static pair *jt_codecs(void)
{
    if (!jt_full) {
        jt_full = load_text_ok(jt_schema);
        pair_make(&jt_pair, jt_full, 0);
    }
    return &jt_pair;
}

/* A random host value (bools 0/1, everything else any bits). */
static void gen_struct(rng *g, fbe_arena *a, const fbe_ir_struct *st, uint8_t *dst, int depth);

static void gen_type(rng *g, fbe_arena *a, const fbe_ir_type *t, uint8_t *dst, int depth)
{
    switch (t->kind) {
    case FBE_IR_BOOL:
        *dst = (uint8_t)(rnd(g) & 1);
        return;
    case FBE_IR_STRING:
    case FBE_IR_BYTES: {
        /* empty, short (copied inline) or longer than 16 bytes (memcpy) */
        uint64_t pick = rnd_below(g, 6);
        size_t n = pick < 2 ? 0 : pick < 5 ? (size_t)rnd_below(g, 17) : 17 + (size_t)rnd_below(g, 40);
        char *s = n ? fbe_arena_alloc(a, n) : NULL;
        for (size_t i = 0; i < n; i++)
            s[i] = (char)('a' + rnd_below(g, 26));
        *(fbe_string *)dst = (fbe_string){s, n};
        return;
    }
    case FBE_IR_STRUCT:
        gen_struct(g, a, t->struct_type, dst, depth + 1);
        return;
    case FBE_IR_OPTIONAL: {
        bool present = depth < 5 && rnd_below(g, 3) != 0;
        if (t->elem->kind == FBE_IR_STRUCT) {
            uint8_t *v = NULL;
            if (present) {
                v = fbe_arena_alloc(a, t->elem->struct_type->host_size);
                gen_struct(g, a, t->elem->struct_type, v, depth + 1);
            }
            *(void **)dst = v;
        } else {
            memset(dst, 0, t->host_size);
            if (present) {
                *dst = 1;
                gen_type(g, a, t->elem, dst + t->host_value_offset, depth);
            }
        }
        return;
    }
    case FBE_IR_ARRAY:
        for (uint32_t i = 0; i < t->array_len; i++)
            gen_type(g, a, t->elem, dst + (size_t)i * t->elem->host_size, depth);
        return;
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        bool map = t->kind == FBE_IR_MAP || t->kind == FBE_IR_HASH;
        size_t n = depth < 4 ? (size_t)rnd_below(g, 4) : 0;
        size_t stride = map ? t->host_entry_size : t->elem->host_size;
        uint8_t *items = n ? fbe_arena_alloc(a, n * stride) : NULL;
        for (size_t i = 0; i < n; i++) {
            uint8_t *item = items + i * stride;
            memset(item, 0, stride);
            if (map) {
                gen_type(g, a, t->key, item, depth);
                gen_type(g, a, t->elem, item + t->host_entry_value_offset, depth);
            } else {
                gen_type(g, a, t->elem, item, depth);
            }
        }
        *(fbe_seq *)dst = (fbe_seq){items, n};
        return;
    }
    default:
        for (uint32_t i = 0; i < t->host_size; i++)
            dst[i] = (uint8_t)rnd(g);
        return;
    }
}

static void gen_struct(rng *g, fbe_arena *a, const fbe_ir_struct *st, uint8_t *dst, int depth)
{
    memset(dst, 0, st->host_size);
    for (size_t i = 0; i < st->field_count; i++)
        gen_type(g, a, st->fields[i].type, dst + st->fields[i].host_offset, depth);
}

/* Random values: equal sizes and bytes, then every truncation and mutations. */
static void random_values(report *r, bench *b, pair *p, size_t types, int per_type, int mutations,
                          bool truncations, uint64_t seed)
{
    fbe_arena values;
    fbe_arena_init(&values, NULL, NULL);
    rng g = {seed};
    for (size_t k = 0; k < types; k++) {
        const fbe_type *ti = type_in(p->interp, jt_types[k]), *tj = type_in(p->jit, jt_types[k]);
        for (int n = 0; n < per_type; n += SAMPLE_DIV) {
            fbe_arena_reset(&values);
            uint8_t *v = fbe_arena_alloc(&values, ti->ir->host_size);
            gen_struct(&g, &values, ti->ir, v, 1);
            char what[128];
            snprintf(what, sizeof what, "%s #%d", jt_types[k], n);
            fbe_buffer out;
            fbe_status st = compare_write(r, ti, tj, v, what, &out);
            if (st == FBE_TOO_DEEP) /* refused by both (compared): the writer's frame */
                st = fbe_serialize(type_in(p->writer, jt_types[k]), FBE_FINAL, v, &out);
            assert_int_equal(st, FBE_OK);
            /* random frames are sampled: every truncation of the first and last 64
             * bytes, about 300 in between */
            if (truncations) {
                truncation_step = out.size / (300 / SAMPLE_DIV) + 1;
                sweep(r, b, ti, tj, out.data, out.size, &g, mutations, out.size <= 2048, what);
                truncation_step = 1;
            } else {
                compare(r, b, ti, tj, out.data, out.size, 0, true, what, -1);
            }
            for (unsigned d = 1; d <= 6; d++)
                compare(r, b, ti, tj, out.data, out.size, d, true, what, -(long)d - 100);
            fbe_buffer_free(&out);
        }
    }
    fbe_arena_free(&values);
}

static void test_random(void **state)
{
    (void)state;
    report r = {0};
    bench b;
    bench_init(&b);
    random_values(&r, &b, jt_codecs(), sizeof jt_types / sizeof jt_types[0], 10, 48, true, 1234);
    report_done(&r, "random values");
    bench_free(&b);
}

/* Every limit from 1 (the root only) to past the deepest fixed nest, and codecs
 * without a practical limit (where a level past the limit cannot be counted
 * as max_depth + 1). */
static void test_random_depth(void **state)
{
    (void)state;
    fbe_schema *s = load_text_ok(jt_nests);
    report r = {0};
    bench b;
    bench_init(&b);
    static const unsigned codec_depths[] = {1, 2, 3, 4, 5, 6, 7, UINT_MAX - 1, UINT_MAX};
    for (size_t cd = 0; cd < sizeof codec_depths / sizeof *codec_depths; cd++) {
        unsigned d = codec_depths[cd];
        pair p;
        pair_make(&p, s, d);
        random_values(&r, &b, &p, JT_NEST_TYPES, 6, 24, true, 99 + d);
        pair_free(&p);
    }
    report_done(&r, "random values, depth limits 1..7 and UINT_MAX - 1, UINT_MAX");
    bench_free(&b);
    fbe_schema_free(s);
}

/* ---- sizes that saturate, values too large for a frame ----------------------------- */

static void *field_at(const fbe_ir_struct *st, void *v, const char *name)
{
    const fbe_ir_field *f = fbe_field_by_name(st, name);
    if (!f)
        fail_msg("no field %s", name);
    return fbe_field_ptr(v, f);
}

/* Sizes of a value in model m equal in both codecs and, when too large for a
 * frame, serialize FBE_TOO_LARGE from both with nothing written (a value
 * that fits is not written: its views may claim more than they hold).
 * Returns whether it was too large. */
static bool compare_huge(report *r, const fbe_type *ti, const fbe_type *tj, fbe_model m,
                         const void *value, const char *what)
{
    r->checks++;
    size_t si = fbe_size(ti, m, value), sj = fbe_size(tj, m, value);
    if (si != sj)
        report_fail(r, "%s: size interp %zu, jit %zu", what, si, sj);
    if (si <= UINT32_MAX)
        return false;
    fbe_buffer bi, bj;
    uint8_t mem[16];
    fbe_buffer_init_fixed(&bi, mem, sizeof mem);
    fbe_buffer_init_fixed(&bj, mem, sizeof mem);
    fbe_status sti = fbe_serialize(ti, m, value, &bi);
    fbe_status stj = fbe_serialize(tj, m, value, &bj);
    if (sti != FBE_TOO_LARGE || stj != FBE_TOO_LARGE || bj.size != 0)
        report_fail(r, "%s: serialize interp %s, jit %s", what, fbe_status_name(sti),
                    fbe_status_name(stj));
    return true;
}

static void test_too_large(void **state)
{
    (void)state;
    pair *p = jt_codecs();
    report r = {0};
    const fbe_type *ti = type_in(p->interp, "jt.Big"), *tj = type_in(p->jit, "jt.Big");
    const fbe_ir_struct *st = ti->ir;
    static char dummy[64];
    const uint64_t sizes[] = {0,
                              1,
                              (1ull << 31),
                              UINT32_MAX - 200,
                              UINT32_MAX - 8,
                              UINT32_MAX,
                              1ull << 32,
                              (1ull << 36) + 5,
                              (1ull << 40) - 3,
                              1ull << 40,
                              (1ull << 40) + 1,
                              1ull << 50,
                              UINT64_MAX / 2};
    const size_t ns = sizeof sizes / sizeof sizes[0];
    static const char *const strings[] = {"s", "os"};
    fbe_string three[3], pairs_s[3];
    uint8_t value[4096];
    assert_true(st->host_size <= sizeof value);
    char what[256];
    /* both models: the standard model's sizes cap at 2^32 (std_write.c) as
     * the final model's saturate at 2^40, and must never wrap */
    for (int model = 0; model < 2; model++)
    for (size_t a = 0; a < ns; a++) {
        for (size_t bsz = 0; bsz < ns; bsz++) {
            for (int shape = 0; shape < 13; shape++) {
                fbe_model m = model ? FBE_STANDARD : FBE_FINAL;
                memset(value, 0, sizeof value);
                fbe_init(st, value);
                uint64_t x = sizes[a], y = sizes[bsz];
                switch (shape) {
                case 0: /* two strings */
                    *(fbe_string *)field_at(st, value, strings[0]) = (fbe_string){dummy, x};
                    *(bool *)field_at(st, value, "os") = true;
                    *(fbe_string *)((uint8_t *)field_at(st, value, "os") +
                                    fbe_field_by_name(st, "os")->type->host_value_offset) =
                        (fbe_string){dummy, y};
                    break;
                case 1: { /* bytes[2] */
                    fbe_string *ab = field_at(st, value, "ab");
                    ab[0] = (fbe_string){dummy, x};
                    ab[1] = (fbe_string){dummy, y};
                    break;
                }
                case 2: /* int32[] and Leaf[] counts */
                    *(fbe_seq *)field_at(st, value, "v") = (fbe_seq){dummy, x};
                    *(fbe_seq *)field_at(st, value, "vl") = (fbe_seq){dummy, y};
                    break;
                case 3: /* string[] of three */
                    three[0] = (fbe_string){dummy, x};
                    three[1] = (fbe_string){dummy, y};
                    three[2] = (fbe_string){dummy, x};
                    *(fbe_seq *)field_at(st, value, "vs") = (fbe_seq){three, 3};
                    break;
                case 4: /* maps of fixed entries */
                    *(fbe_seq *)field_at(st, value, "m") = (fbe_seq){dummy, x};
                    *(fbe_seq *)field_at(st, value, "ll") = (fbe_seq){dummy, y};
                    break;
                case 5: { /* string<int32>: keys fixed, values strings */
                    const fbe_ir_type *mt = fbe_field_by_name(st, "ms")->type;
                    static uint8_t entries[3 * 64];
                    memset(entries, 0, sizeof entries);
                    assert_true(mt->host_entry_size * 3 <= sizeof entries);
                    for (int i = 0; i < 3; i++)
                        *(fbe_string *)(entries + i * mt->host_entry_size + mt->host_entry_value_offset) =
                            (fbe_string){dummy, i == 1 ? y : x};
                    *(fbe_seq *)field_at(st, value, "ms") = (fbe_seq){entries, 3};
                    break;
                }
                case 6: /* string count beyond 32 bits */
                    pairs_s[0] = (fbe_string){dummy, 1};
                    *(fbe_seq *)field_at(st, value, "vs") = (fbe_seq){pairs_s, x > UINT32_MAX ? x : 1};
                    break;
                case 7: /* string<int32> count */
                    *(fbe_seq *)field_at(st, value, "sm") = (fbe_seq){dummy, x > UINT32_MAX ? x : 0};
                    *(fbe_string *)field_at(st, value, "s") = (fbe_string){dummy, y};
                    break;
                case 8: /* one huge string */
                    *(fbe_string *)field_at(st, value, "s") = (fbe_string){dummy, x};
                    break;
                case 11: /* Rec[] of three: the elements' names (a struct's sum as a term) */
                case 12: { /* Rec[2]: the same as the first terms of an array */
                    const fbe_ir_struct *rec = type_in(p->interp, "jt.Rec")->ir;
                    static uint8_t recs[3 * 256];
                    assert_true(rec->host_size * 3 <= sizeof recs);
                    memset(recs, 0, sizeof recs);
                    uint8_t *at = shape == 11 ? recs : field_at(st, value, "ar");
                    for (int i = 0; i < (shape == 11 ? 3 : 2); i++) {
                        uint8_t *el = at + i * rec->host_size;
                        fbe_init(rec, el);
                        *(fbe_string *)field_at(rec, el, "name") = (fbe_string){dummy, i == 1 ? y : x};
                    }
                    if (shape == 11)
                        *(fbe_seq *)field_at(st, value, "vr") = (fbe_seq){recs, 3};
                    break;
                }
                case 9: /* optional string only */
                    *(bool *)field_at(st, value, "os") = true;
                    *(fbe_string *)((uint8_t *)field_at(st, value, "os") +
                                    fbe_field_by_name(st, "os")->type->host_value_offset) =
                        (fbe_string){dummy, x};
                    break;
                default: /* int32[] count and a string */
                    *(fbe_seq *)field_at(st, value, "v") = (fbe_seq){dummy, x};
                    *(fbe_string *)field_at(st, value, "s") = (fbe_string){dummy, y};
                    break;
                }
                snprintf(what, sizeof what, "%s shape %d sizes %llu %llu", model ? "std" : "final",
                         shape, (unsigned long long)x, (unsigned long long)y);
                compare_huge(&r, ti, tj, m, value, what);
            }
        }
    }
    report_done(&r, "size saturation");
}

/* Random values whose views claim huge lengths (gen_huge_views), so that
 * every cap and saturation is crossed at random places in the walk: both
 * models' sizes must be the interpreter's to the byte (its value above the
 * caps is a fixed function of the host value), and a frame that does not fit
 * must be TOO_LARGE from both. */
static void test_huge_random(void **state)
{
    (void)state;
    pair *p = jt_codecs();
    report r = {0};
    fbe_arena values;
    fbe_arena_init(&values, NULL, NULL);
    rng g = {777};
    size_t too_large = 0;
    for (size_t k = 0; k < sizeof jt_types / sizeof jt_types[0]; k++) {
        const fbe_type *ti = type_in(p->interp, jt_types[k]), *tj = type_in(p->jit, jt_types[k]);
        for (int n = 0; n < 300; n++) {
            fbe_arena_reset(&values);
            uint8_t *v = fbe_arena_alloc(&values, ti->ir->host_size);
            gen_struct(&g, &values, ti->ir, v, 1);
            gen_huge_views(ti->ir, v, &g.s);
            for (int model = 0; model < 2; model++) {
                fbe_model m = model ? FBE_FINAL : FBE_STANDARD;
                char what[128];
                snprintf(what, sizeof what, "%s #%d %s", jt_types[k], n, model ? "final" : "std");
                too_large += compare_huge(&r, ti, tj, m, v, what);
            }
        }
    }
    fbe_arena_free(&values);
    /* the claimed lengths must reach the caps in most values, or this proves little */
    assert_true(too_large > (size_t)r.checks / 3);
    report_done(&r, "huge views");
}

/* ---- buffers, arenas, arguments ----------------------------------------------------- */

static void test_small_buffers(void **state)
{
    (void)state;
    pair *p = golden_pair("proto");
    const fbe_type *ti = type_in(p->interp, "proto.Account"), *tj = type_in(p->jit, "proto.Account");
    size_t len;
    uint8_t *data = read_file(shared_path("golden/cases/proto/Account/readme.final.bin"), &len);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena};
    void *v = fbe_arena_alloc(&arena, ti->ir->host_size);
    assert_int_equal(fbe_deserialize(tj, FBE_FINAL, data, len, v, &opts, NULL), FBE_OK);
    uint8_t *mi = malloc(len + 8), *mj = malloc(len + 8);
    for (size_t cap = 0; cap <= len + 8; cap++) {
        fbe_buffer bi, bj;
        memset(mi, 0x11, len + 8);
        memset(mj, 0x11, len + 8);
        fbe_buffer_init_fixed(&bi, mi, cap);
        fbe_buffer_init_fixed(&bj, mj, cap);
        fbe_status sti = fbe_serialize(ti, FBE_FINAL, v, &bi);
        fbe_status stj = fbe_serialize(tj, FBE_FINAL, v, &bj);
        assert_int_equal(sti, stj);
        assert_int_equal(bi.size, bj.size);
        assert_memory_equal(mi, mj, len + 8);
        assert_int_equal(sti, cap >= len ? FBE_OK : FBE_TOO_SMALL);
        if (sti == FBE_OK)
            assert_memory_equal(mj, data, len);
    }
    /* frames appended one after the other */
    fbe_buffer bj;
    fbe_buffer_init(&bj, NULL, NULL);
    for (int i = 0; i < 3; i++)
        assert_int_equal(fbe_serialize(tj, FBE_FINAL, v, &bj), FBE_OK);
    assert_int_equal(bj.size, 3 * len);
    for (int i = 0; i < 3; i++) {
        assert_memory_equal(bj.data + i * len, data, len);
        size_t consumed = 0;
        assert_int_equal(fbe_verify(tj, FBE_FINAL, bj.data + i * len, bj.size - i * len, NULL), FBE_OK);
        assert_int_equal(fbe_deserialize(tj, FBE_FINAL, bj.data + i * len, bj.size - i * len, v, &opts,
                                         &consumed),
                         FBE_OK);
        assert_int_equal(consumed, len);
    }
    fbe_buffer_free(&bj);
    free(mi);
    free(mj);
    fbe_arena_free(&arena);
    free(data);
}

/* An allocator with room for `left` more blocks: memory that runs out. A
 * block freed makes room again, so a failing JIT deserialize, which frees
 * what it allocated before the interpreter decodes the frame again
 * (jit_read_bail_block), meets the memory the interpreter alone would. (An
 * allocator that fails its n-th call whatever was freed would see the JIT's
 * extra calls: docs/jit.md.) */
typedef struct budget {
    int left;
} budget;

static void *budget_alloc(void *ctx, void *ptr, size_t size)
{
    budget *b = ctx;
    if (size == 0) {
        if (ptr)
            b->left++;
        free(ptr);
        return NULL;
    }
    if (!ptr && b->left <= 0)
        return NULL;
    void *p = realloc(ptr, size);
    if (p && !ptr)
        b->left--;
    return p;
}

static void test_nomem(void **state)
{
    (void)state;
    pair *p = jt_codecs();
    report r = {0};
    /* a value whose strings and collections each need a fresh chunk */
    const char *names[] = {"jt.Rec", "jt.Mixed", "jt.Derived"};
    rng g = {42};
    fbe_arena values;
    fbe_arena_init(&values, NULL, NULL);
    outcome oi, oj;
    outcome_init(&oi);
    outcome_init(&oj);
    for (size_t k = 0; k < 3; k++) {
        const fbe_type *ti = type_in(p->interp, names[k]), *tj = type_in(p->jit, names[k]);
        for (int n = 0; n < 6; n++) {
            fbe_arena_reset(&values);
            uint8_t *v = fbe_arena_alloc(&values, ti->ir->host_size);
            gen_struct(&g, &values, ti->ir, v, 1);
            /* make the first string big */
            fbe_string *name = NULL;
            for (size_t f = 0; f < ti->ir->field_count; f++)
                if (ti->ir->fields[f].type->kind == FBE_IR_STRING) {
                    name = (fbe_string *)(v + ti->ir->fields[f].host_offset);
                    break;
                }
            static char bigtext[9000];
            memset(bigtext, 'x', sizeof bigtext);
            *name = (fbe_string){bigtext, n * 1500};
            fbe_buffer out;
            assert_int_equal(compare_write(&r, ti, tj, v, names[k], &out), FBE_OK);
            for (int limit = 0; limit < 8; limit++) {
                for (int borrow = 0; borrow < 2; borrow++) {
                    fbe_status sts[2];
                    fbe_buffer *texts[2] = {&oi.text[0], &oj.text[0]};
                    for (int which = 0; which < 2; which++) {
                        budget bud = {limit};
                        fbe_arena arena;
                        fbe_arena_init(&arena, budget_alloc, &bud);
                        const fbe_type *t = which ? tj : ti;
                        fbe_decode_options opts = {.arena = &arena,
                                                   .flags = borrow ? FBE_DECODE_BORROW : 0};
                        uint8_t *dst = malloc(t->ir->host_size);
                        memset(dst, 0xA5, t->ir->host_size);
                        sts[which] = fbe_deserialize(t, FBE_FINAL, out.data, out.size, dst, &opts, NULL);
                        fbe_buffer_clear(texts[which]);
                        assert_int_equal(fbe_print(t->ir, dst, texts[which]), FBE_OK);
                        free(dst);
                        fbe_arena_free(&arena);
                    }
                    r.checks++;
                    if (sts[0] != sts[1] || !same_text(texts[0], texts[1]))
                        report_fail(&r, "%s #%d limit %d borrow %d: interp %s, jit %s", names[k], n, limit,
                                    borrow, fbe_status_name(sts[0]), fbe_status_name(sts[1]));
                }
            }
            fbe_buffer_free(&out);
        }
    }
    outcome_free(&oi);
    outcome_free(&oj);
    fbe_arena_free(&values);
    report_done(&r, "failing arenas");
}

static void test_arguments(void **state)
{
    (void)state;
    pair *p = golden_pair("proto");
    const fbe_type *ts[2] = {type_in(p->interp, "proto.Account"), type_in(p->jit, "proto.Account")};
    size_t len;
    uint8_t *data = read_file(shared_path("golden/cases/proto/Account/readme.final.bin"), &len);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_verify_info info[2];
    fbe_status st[2];
    size_t consumed[2];
    uint8_t value[2][512];
    assert_true(ts[0]->ir->host_size <= sizeof value[0]);
    /* verify: NULL data with a size, NULL data without, NULL info */
    for (int w = 0; w < 2; w++) {
        memset(&info[w], 0x5A, sizeof info[w]);
        st[w] = fbe_verify(ts[w], FBE_FINAL, NULL, 5, &info[w]);
    }
    assert_int_equal(st[0], FBE_INVALID_ARGUMENT);
    assert_int_equal(st[1], st[0]);
    assert_memory_equal(&info[0], &info[1], sizeof info[0]);
    for (int w = 0; w < 2; w++) {
        memset(&info[w], 0x5A, sizeof info[w]);
        st[w] = fbe_verify(ts[w], FBE_FINAL, NULL, 0, &info[w]);
    }
    assert_int_equal(st[0], FBE_TRUNCATED);
    assert_int_equal(st[1], st[0]);
    assert_int_equal(info[0].offset, info[1].offset);
    assert_ptr_equal(info[0].type, info[1].type);
    assert_ptr_equal(info[0].field, info[1].field);
    for (int w = 0; w < 2; w++) {
        assert_int_equal(fbe_verify(ts[w], FBE_FINAL, data, len, NULL), FBE_OK);
        assert_int_equal(fbe_verify(ts[w], FBE_FINAL, data, len - 1, NULL), FBE_TRUNCATED);
    }
    /* deserialize: every invalid argument, consumed reset first */
    fbe_decode_options good = {.arena = &arena}, no_arena = {0};
    struct {
        const uint8_t *data;
        size_t size;
        bool value;
        const fbe_decode_options *opts;
    } calls[] = {{data, len, false, &good}, {data, len, true, NULL}, {data, len, true, &no_arena},
                 {NULL, 3, true, &good},    {NULL, 0, true, &good}, {data, len, true, &good}};
    for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
        for (int w = 0; w < 2; w++) {
            memset(value[w], 0xA5, sizeof value[w]);
            consumed[w] = 777;
            st[w] = fbe_deserialize(ts[w], FBE_FINAL, calls[c].data, calls[c].size,
                                    calls[c].value ? value[w] : NULL, calls[c].opts, &consumed[w]);
        }
        assert_int_equal(st[0], st[1]);
        assert_int_equal(consumed[0], consumed[1]);
        if (st[0] == FBE_INVALID_ARGUMENT) {
            /* untouched */
            assert_memory_equal(value[0], value[1], ts[0]->ir->host_size);
        } else {
            fbe_buffer ti, tj;
            fbe_buffer_init(&ti, NULL, NULL);
            fbe_buffer_init(&tj, NULL, NULL);
            assert_int_equal(fbe_print(ts[0]->ir, value[0], &ti), FBE_OK);
            assert_int_equal(fbe_print(ts[1]->ir, value[1], &tj), FBE_OK);
            assert_true(same_text(&ti, &tj));
            fbe_buffer_free(&ti);
            fbe_buffer_free(&tj);
        }
        if (c < 4)
            assert_int_equal(st[0], FBE_INVALID_ARGUMENT);
    }
    assert_int_equal(st[1], FBE_OK);
    /* NULL consumed */
    assert_int_equal(fbe_deserialize(ts[1], FBE_FINAL, data, len, value[1], &good, NULL), FBE_OK);
    /* serialize: NULL value or output */
    fbe_buffer buf;
    fbe_buffer_init(&buf, NULL, NULL);
    for (int w = 0; w < 2; w++) {
        assert_int_equal(fbe_serialize(ts[w], FBE_FINAL, NULL, &buf), FBE_INVALID_ARGUMENT);
        assert_int_equal(fbe_serialize(ts[w], FBE_FINAL, value[1], NULL), FBE_INVALID_ARGUMENT);
    }
    assert_int_equal(buf.size, 0);
    fbe_buffer_free(&buf);
    fbe_arena_free(&arena);
    free(data);
}

/* Hand-typed frames: wire-format.md 11.2/11.3 style edge cases on proto.Account. */
static void test_edges(void **state)
{
    (void)state;
    pair *p = golden_pair("proto");
    report r = {0};
    bench b;
    bench_init(&b);
    const char *types[] = {"proto.Account", "proto.Order", "proto.Balance", "proto.AccountMessage"};
    for (size_t k = 0; k < 4; k++) {
        const fbe_type *ti = type_in(p->interp, types[k]), *tj = type_in(p->jit, types[k]);
        uint8_t frame[64];
        for (uint32_t size = 0; size < 40; size++) {
            for (int fill = 0; fill < 4; fill++) {
                memset(frame, fill == 0 ? 0 : fill == 1 ? 0xFF : fill == 2 ? 0x01 : 0x80, sizeof frame);
                memcpy(frame, &size, 4);
                memcpy(frame + 4, &ti->ir->type_number, 4);
                for (size_t len = 0; len <= 48; len += 4)
                    compare(&r, &b, ti, tj, frame, len, 0, true, types[k], (long)(size * 100 + len));
            }
        }
    }
    report_done(&r, "hand-made frames");
    bench_free(&b);
}

/* A struct derived second from its base has a copy of the base's fields: a
 * failure in an inherited field is reported against the struct being verified
 * and its own record of the field, by the interpreter and native code alike,
 * in a run that does not fit and in a fixed value that is too deep. */
static void test_inherited_copy(void **state)
{
    (void)state;
    fbe_schema *s = load_text_ok("package t\n"
                                 "struct In { int32 x; }\n"
                                 "struct B { int32 a; int64 b; In i; string s; }\n"
                                 "struct D1 : B { int32 x; }\n"
                                 "struct D2 : B { int32 y; string z; }\n");
    fbe_codec *ci = fbe_interp_create(s, NULL, NULL);
    fbe_jit_options jo = {.require_native = true};
    fbe_status st = FBE_OK;
    fbe_codec *cj = fbe_jit_compile(s, &jo, &st);
    assert_non_null(ci);
    assert_non_null(cj);
    const fbe_type *ti = fbe_codec_type(ci, "t.D2"), *tj = fbe_codec_type(cj, "t.D2");
    const fbe_ir_struct *d2 = ti->ir;
    assert_ptr_not_equal(d2->fields, fbe_schema_find_struct(s, "t.B")->fields);
    uint8_t frame[8 + 32] = {0};
    uint32_t type = d2->type_number;
    memcpy(frame + 4, &type, 4);
    for (uint32_t body = 0; body <= 32; body++) {
        uint32_t size = 8 + body;
        memcpy(frame, &size, 4);
        for (uint32_t md = 0; md <= 2; md++) {
            fbe_decode_options opt = {.max_depth = md};
            fbe_verify_info a, b;
            fbe_status sa = fbe_verify_with(ti, FBE_FINAL, frame, size, &a, &opt);
            fbe_status sb = fbe_verify_with(tj, FBE_FINAL, frame, size, &b, &opt);
            assert_int_equal(sa, sb);
            if (sa == FBE_OK)
                continue;
            assert_int_equal(a.offset, b.offset);
            assert_ptr_equal(a.type, b.type);
            assert_ptr_equal(a.field, b.field);
        }
    }
    fbe_verify_info info;
    /* a and b are a run: 10 bytes of body leave b short at 12 */
    uint32_t size = 8 + 10;
    memcpy(frame, &size, 4);
    assert_int_equal(fbe_verify(tj, FBE_FINAL, frame, size, &info), FBE_TRUNCATED);
    assert_int_equal(info.offset, 12);
    assert_ptr_equal(info.type, d2);
    assert_ptr_equal(info.field, &d2->fields[1]);
    /* the whole body, one level allowed: In, at 20, is one too many */
    size = 8 + 32;
    memcpy(frame, &size, 4);
    fbe_decode_options one = {.max_depth = 1};
    assert_int_equal(fbe_verify_with(tj, FBE_FINAL, frame, size, &info, &one), FBE_TOO_DEEP);
    assert_int_equal(info.offset, 20);
    assert_ptr_equal(info.type, d2);
    assert_ptr_equal(info.field, &d2->fields[2]);
    fbe_codec_free(cj);
    fbe_codec_free(ci);
    fbe_schema_free(s);
}

int main(void)
{
    /* FBE_TEST_FILTER=test_random runs one test */
    const char *only = getenv("FBE_TEST_FILTER");
    if (only)
        cmocka_set_test_filter(only);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_golden_depth),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_random_depth),
        cmocka_unit_test(test_too_large),
        cmocka_unit_test(test_huge_random),
        cmocka_unit_test(test_small_buffers),
        cmocka_unit_test(test_nomem),
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_inherited_copy),
    };
    return cmocka_run_group_tests(tests, golden_setup, golden_teardown);
}
