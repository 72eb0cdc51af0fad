/* The JIT's standard-model verify and deserialize against the interpreter (the
 * semantic reference): for the same bytes both must give the same verify status,
 * error position, struct and field, the same deserialize status, and values that
 * print identically and re-serialize to identical bytes. On failure the partly
 * decoded values must print identically too (same host state on error).
 *
 * Inputs: every golden standard case and versioning case, every truncation and a
 * fixed-seed sample of single-byte and u32 mutations of each, other depth limits,
 * arena limits (NOMEM), a crafted DAG (TRAVERSAL_LIMIT), and random values of a
 * schema exercising what the golden schemas lack (recursion, long arrays, maps
 * of structs, older/newer writers with defaults). Everything is deterministic. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "fbe/codec.h"
#include "fbe/jit.h"

#define MAX_REPORTS 40
/* Every compare costs ~10x under the sanitizers: sample fewer inputs there (the
 * plain build runs them all; both run every kind of input). */
#define SANITIZED FBE_TEST_SANITIZED
#define SAMPLED_BYTE_MUTATIONS (SANITIZED ? 60 : 300)
#define SAMPLED_WORD_MUTATIONS (SANITIZED ? 30 : 120)
/* buffers up to this size get every truncation, larger ones a sample */
#define ALL_TRUNCATIONS_UP_TO (SANITIZED ? 512 : 4096)

/* ---- small utilities ---------------------------------------------------------------- */

/* ---- a schema with both codecs ------------------------------------------------------- */

typedef struct pair {
    fbe_schema *schema;
    fbe_codec *interp, *jit;
} pair;

static void pair_make(pair *p, fbe_schema *schema, unsigned max_depth)
{
    assert_non_null(schema);
    p->schema = schema;
    fbe_status st = FBE_UNKNOWN_TYPE;
    p->interp = fbe_interp_create(schema, &(fbe_codec_options){.max_depth = max_depth}, &st);
    assert_non_null(p->interp);
    assert_int_equal(st, FBE_OK);
    st = FBE_UNKNOWN_TYPE;
    p->jit = fbe_jit_compile(schema, &(fbe_jit_options){.require_native = true, .max_depth = max_depth},
                             &st);
    if (!p->jit)
        fail_msg("fbe_jit_compile failed: %s", fbe_status_name(st));
    assert_int_equal(st, FBE_OK);
    assert_int_equal(fbe_codec_backend(p->jit), FBE_BACKEND_JIT);
    assert_int_equal(fbe_codec_backend(p->interp), FBE_BACKEND_INTERP);
}

static void pair_free(pair *p)
{
    fbe_codec_free(p->jit);
    fbe_codec_free(p->interp);
    fbe_schema_free(p->schema);
    memset(p, 0, sizeof *p);
}

/* ---- comparing one input ------------------------------------------------------------- */

typedef struct cmp {
    fbe_arena ai, aj;
    uint8_t *vi, *vj;
    size_t cap;
    fbe_buffer ti, tj, bi, bj;
    unsigned long runs, accepted, failures, reports;
    unsigned long by_status[FBE_STATUS_COUNT];
    fbe_status last_ds;  /* the last deserialize status (both agreed) */
    unsigned max_depth;  /* decode option (0: the codec's) */
    size_t arena_limit;  /* 0: none */
} cmp;

static void cmp_init(cmp *c)
{
    memset(c, 0, sizeof *c);
    fbe_arena_init(&c->ai, NULL, NULL);
    fbe_arena_init(&c->aj, NULL, NULL);
    fbe_buffer_init(&c->ti, NULL, NULL);
    fbe_buffer_init(&c->tj, NULL, NULL);
    fbe_buffer_init(&c->bi, NULL, NULL);
    fbe_buffer_init(&c->bj, NULL, NULL);
}

static void cmp_free(cmp *c)
{
    fbe_arena_free(&c->ai);
    fbe_arena_free(&c->aj);
    fbe_buffer_free(&c->ti);
    fbe_buffer_free(&c->tj);
    fbe_buffer_free(&c->bi);
    fbe_buffer_free(&c->bj);
    free(c->vi);
    free(c->vj);
}

static void cmp_fail(cmp *c, const char *what, const char *label, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static void cmp_fail(cmp *c, const char *what, const char *label, const char *fmt, ...)
{
    c->failures++;
    if (c->reports++ >= MAX_REPORTS)
        return;
    char buf[1500];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    print_error("MISMATCH %s [%s]: %s\n", what, label, buf);
}

static const char *fname(const fbe_ir_field *f)
{
    return f ? f->name : "-";
}

static const char *sname(const fbe_ir_struct *s)
{
    return s ? s->full_name : "-";
}

static bool same_text(const fbe_buffer *a, const fbe_buffer *b)
{
    return a->size == b->size && (a->size == 0 || memcmp(a->data, b->data, a->size) == 0);
}

/* Defaults evaluated at run time (utc, uuid1, uuid4) differ between two decodes
 * of a struct an older writer wrote: copy them from a to b, walking both values
 * in parallel (their shapes agree unless the print comparison will fail). */
static void sync_type(const fbe_ir_type *t, const uint8_t *a, uint8_t *b);

static void sync_struct(const fbe_ir_struct *st, const uint8_t *a, uint8_t *b)
{
    for (size_t i = 0; i < st->field_count; i++) {
        const fbe_ir_field *f = &st->fields[i];
        fbe_ir_value_kind k = f->default_value.kind;
        if (k == FBE_IR_VALUE_UTC || k == FBE_IR_VALUE_UUID1 || k == FBE_IR_VALUE_UUID4)
            memcpy(b + f->host_offset, a + f->host_offset, f->type->host_size);
        else
            sync_type(f->type, a + f->host_offset, b + f->host_offset);
    }
}

static void sync_type(const fbe_ir_type *t, const uint8_t *a, uint8_t *b)
{
    switch (t->kind) {
    case FBE_IR_STRUCT:
        sync_struct(t->struct_type, a, b);
        break;
    case FBE_IR_OPTIONAL:
        if (t->elem->kind == FBE_IR_STRUCT) {
            const uint8_t *pa;
            uint8_t *pb;
            memcpy(&pa, a, sizeof pa);
            memcpy(&pb, b, sizeof pb);
            if (pa && pb)
                sync_struct(t->elem->struct_type, pa, pb);
        } else if (a[0] && b[0]) {
            sync_type(t->elem, a + t->host_value_offset, b + t->host_value_offset);
        }
        break;
    case FBE_IR_ARRAY:
        for (uint32_t i = 0; i < t->array_len; i++)
            sync_type(t->elem, a + (size_t)i * t->elem->host_size, b + (size_t)i * t->elem->host_size);
        break;
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        fbe_seq sa, sb;
        memcpy(&sa, a, sizeof sa);
        memcpy(&sb, b, sizeof sb);
        if (sa.size != sb.size || !sa.data || !sb.data)
            break;
        bool map = t->kind == FBE_IR_MAP || t->kind == FBE_IR_HASH;
        size_t stride = map ? t->host_entry_size : t->elem->host_size;
        for (size_t i = 0; i < sa.size; i++) {
            const uint8_t *ea = (const uint8_t *)sa.data + i * stride;
            uint8_t *eb = (uint8_t *)sb.data + i * stride;
            if (map) {
                sync_type(t->key, ea, eb);
                sync_type(t->elem, ea + t->host_entry_value_offset, eb + t->host_entry_value_offset);
            } else {
                sync_type(t->elem, ea, eb);
            }
        }
        break;
    }
    default:
        break;
    }
}

/* Runs both codecs on data[0..n) (a malloc'd block of exactly n bytes, so the
 * sanitizer sees any overread). Returns the (interpreter's) verify status. */
static fbe_status compare(cmp *c, const char *what, const fbe_type *ti, const fbe_type *tj,
                          const uint8_t *data, size_t n, const char *label)
{
    c->runs++;
    fbe_verify_info ii, ij;
    memset(&ii, 0x5A, sizeof ii);
    memset(&ij, 0x5A, sizeof ij);
    /* verify takes deserialize's depth option; 0 (or no options) is the codec's
     * limit, and verify ignores the arena */
    fbe_decode_options vo = {.arena = (c->runs & 4) ? &c->ai : NULL, .max_depth = c->max_depth};
    bool with = c->max_depth || (c->runs & 1);
    fbe_status vi = with ? fbe_verify_with(ti, FBE_STANDARD, data, n, &ii, &vo)
                         : fbe_verify(ti, FBE_STANDARD, data, n, &ii);
    fbe_status vj = with ? fbe_verify_with(tj, FBE_STANDARD, data, n, &ij, &vo)
                         : fbe_verify(tj, FBE_STANDARD, data, n, &ij);
    if (vi < FBE_STATUS_COUNT)
        c->by_status[vi]++;
    if (vi != vj || ii.status != ij.status || ii.offset != ij.offset || ii.type != ij.type ||
        ii.field != ij.field)
        cmp_fail(c, what, label,
                 "verify: interp %s (info %s @%zu %s.%s), jit %s (info %s @%zu %s.%s)",
                 fbe_status_name(vi), fbe_status_name(ii.status), ii.offset, sname(ii.type),
                 fname(ii.field), fbe_status_name(vj), fbe_status_name(ij.status), ij.offset,
                 sname(ij.type), fname(ij.field));
    /* info may be NULL */
    fbe_status vj2 = fbe_verify_with(tj, FBE_STANDARD, data, n, NULL, &vo);
    if (vj2 != vj)
        cmp_fail(c, what, label, "verify with info NULL returned %s, with info %s",
                 fbe_status_name(vj2), fbe_status_name(vj));

    size_t hs = ti->ir->host_size ? ti->ir->host_size : 1;
    if (hs > c->cap) {
        free(c->vi);
        free(c->vj);
        c->vi = malloc(hs);
        c->vj = malloc(hs);
        assert_non_null(c->vi);
        assert_non_null(c->vj);
        c->cap = hs;
    }
    uint8_t fill = (c->runs & 1) ? 0x00 : 0xA5;
    memset(c->vi, fill, hs);
    memset(c->vj, fill, hs);
    fbe_arena_reset(&c->ai);
    fbe_arena_reset(&c->aj);
    c->ai.limit = c->aj.limit = c->arena_limit;
    unsigned flags = (c->runs & 2) ? FBE_DECODE_BORROW : 0;
    fbe_decode_options oi = {.arena = &c->ai, .flags = flags, .max_depth = c->max_depth};
    fbe_decode_options oj = {.arena = &c->aj, .flags = flags, .max_depth = c->max_depth};
    size_t ci = 12345, cj = 54321;
    fbe_status di = fbe_deserialize(ti, FBE_STANDARD, data, n, c->vi, &oi, &ci);
    fbe_status dj = fbe_deserialize(tj, FBE_STANDARD, data, n, c->vj, &oj, &cj);
    c->last_ds = di;
    if (di != dj || ci != cj) {
        cmp_fail(c, what, label, "deserialize: interp %s consumed %zu, jit %s consumed %zu",
                 fbe_status_name(di), ci, fbe_status_name(dj), cj);
        return vi;
    }
    /* A failing native deserialize hands the call to the interpreter on the
     * arena as it found it (jit_read_bail_block): what it leaves allocated is
     * what the interpreter alone leaves, as it is for a value both accept */
    if (c->ai.total != c->aj.total) {
        cmp_fail(c, what, label, "deserialize %s: the arena holds %zu bytes (interp), %zu (jit)",
                 fbe_status_name(di), c->ai.total, c->aj.total);
        return vi;
    }
    bool same_limits = c->arena_limit == 0; /* verify has the same depth limit */
    if (same_limits && di != vi)
        cmp_fail(c, what, label, "interpreter: verify %s but deserialize %s", fbe_status_name(vi),
                 fbe_status_name(di));
    if (same_limits && dj != vj)
        cmp_fail(c, what, label, "jit: verify %s but deserialize %s", fbe_status_name(vj),
                 fbe_status_name(dj));
    /* Same host state, accepted or not (an incomplete value is still safe to print). */
    sync_struct(ti->ir, c->vi, c->vj);
    fbe_buffer_clear(&c->ti);
    fbe_buffer_clear(&c->tj);
    fbe_status pi = fbe_print(ti->ir, c->vi, &c->ti);
    fbe_status pj = fbe_print(tj->ir, c->vj, &c->tj);
    if (pi != pj || !same_text(&c->ti, &c->tj)) {
        cmp_fail(c, what, label, "deserialize %s: printed values differ:\n  interp: %.*s\n  jit:    %.*s",
                 fbe_status_name(di), (int)(c->ti.size > 600 ? 600 : c->ti.size),
                 (const char *)c->ti.data, (int)(c->tj.size > 600 ? 600 : c->tj.size),
                 (const char *)c->tj.data);
        return vi;
    }
    if (di != FBE_OK)
        return vi;
    c->accepted++;
    /* re-serialize both values (with the interpreter's writer and the JIT's) */
    fbe_buffer_clear(&c->bi);
    fbe_buffer_clear(&c->bj);
    fbe_status si = fbe_serialize(ti, FBE_STANDARD, c->vi, &c->bi);
    fbe_status sj = fbe_serialize(ti, FBE_STANDARD, c->vj, &c->bj);
    if (c->max_depth > fbe_codec_max_depth(ti->codec) && si == FBE_TOO_DEEP && sj == FBE_TOO_DEEP) {
        /* decoded with a per-call limit above the codec's: a value its serialize
         * refuses (docs/codec.md, Nesting depth), the JIT's as well */
        if (fbe_serialize(tj, FBE_STANDARD, c->vj, &c->bj) != FBE_TOO_DEEP)
            cmp_fail(c, what, label, "JIT serialize of a too deep value did not fail");
        return vi;
    }
    if (si != FBE_OK || sj != FBE_OK || c->bi.size != c->bj.size ||
        memcmp(c->bi.data, c->bj.data, c->bi.size) != 0)
        cmp_fail(c, what, label, "re-serialized bytes differ (%s %zu vs %s %zu)",
                 fbe_status_name(si), c->bi.size, fbe_status_name(sj), c->bj.size);
    fbe_buffer_clear(&c->bj);
    sj = fbe_serialize(tj, FBE_STANDARD, c->vj, &c->bj);
    if (sj != FBE_OK || c->bi.size != c->bj.size || memcmp(c->bi.data, c->bj.data, c->bi.size) != 0)
        cmp_fail(c, what, label, "JIT re-serialization differs");
    return vi;
}

/* Every truncation (as is, and with the frame size patched), single-byte and u32
 * mutations from a fixed seed. */
static void mutate(cmp *c, const char *what, const fbe_type *ti, const fbe_type *tj,
                   const uint8_t *orig, size_t n, unsigned long *mutations)
{
    char label[128];
    uint8_t *buf = malloc(n ? n : 1);
    assert_non_null(buf);
    /* every length for small buffers, an even sample plus both ends above */
    size_t stride = n <= ALL_TRUNCATIONS_UP_TO ? 1 : n / (ALL_TRUNCATIONS_UP_TO / 2);
    for (size_t len = 0; len < n; len++) {
        if (stride > 1 && len > 64 && len + 64 < n && len % stride)
            continue;
        uint8_t *p = malloc(len ? len : 1);
        assert_non_null(p);
        memcpy(p, orig, len);
        snprintf(label, sizeof label, "truncated to %zu", len);
        if (compare(c, what, ti, tj, p, len, label) == FBE_OK)
            cmp_fail(c, what, label, "truncated frame accepted");
        if (len >= 8) {
            wr_u32(p, (uint32_t)len);
            snprintf(label, sizeof label, "truncated to %zu, size patched", len);
            compare(c, what, ti, tj, p, len, label);
        }
        free(p);
        (*mutations)++;
    }
    static const uint8_t xors[] = {0x01, 0x80, 0xff, 0x10, 0x04};
    uint64_t seed = fnv1a(what);
    memcpy(buf, orig, n);
    size_t header = n < 32 ? n : 32;
    for (size_t pos = 0; pos < header; pos++) {
        for (size_t k = 0; k < 3; k++) {
            uint8_t old = buf[pos];
            buf[pos] = (uint8_t)(old ^ xors[k]);
            snprintf(label, sizeof label, "byte %zu ^= 0x%02x", pos, xors[k]);
            compare(c, what, ti, tj, buf, n, label);
            buf[pos] = old;
            (*mutations)++;
        }
    }
    for (unsigned i = 0; n && i < SAMPLED_BYTE_MUTATIONS; i++) {
        uint64_t r = rng_next(&seed);
        size_t pos = (size_t)(r % n);
        uint8_t old = buf[pos];
        uint8_t nv = (r >> 40) & 1 ? (uint8_t)(old ^ xors[(r >> 32) % 5]) : (uint8_t)(r >> 48);
        if (nv == old)
            nv ^= 0x01;
        buf[pos] = nv;
        snprintf(label, sizeof label, "byte %zu: %02x -> %02x", pos, old, nv);
        compare(c, what, ti, tj, buf, n, label);
        buf[pos] = old;
        (*mutations)++;
    }
    static const uint32_t words[] = {0, 1, 4, 8, 0x7fffffff, 0xffffffff, 0xfffffff8, 0x100};
    for (unsigned i = 0; n >= 4 && i < SAMPLED_WORD_MUTATIONS; i++) {
        uint64_t r = rng_next(&seed);
        size_t pos = (size_t)(r % (n - 3));
        uint8_t old[4];
        memcpy(old, buf + pos, 4);
        uint32_t v = (r >> 33) & 1 ? words[(r >> 36) % 8] : (uint32_t)((r >> 40) % (n + 16));
        wr_u32(buf + pos, v);
        snprintf(label, sizeof label, "u32 %zu = 0x%08" PRIx32, pos, v);
        compare(c, what, ti, tj, buf, n, label);
        memcpy(buf + pos, old, 4);
        (*mutations)++;
    }
    free(buf);
}

/* ---- the golden manifest ------------------------------------------------------------- */

typedef struct row {
    char schema[64];  /* reader's schema name: "proto" */
    char type[160];   /* "proto.Account" */
    char bin[200];    /* relative to golden/ */
    char txt[200];    /* expected text ("" if none) */
    bool versioning;
} row;

static size_t manifest(row **out)
{
    size_t len;
    char *text = (char *)read_file(shared_path("golden/MANIFEST.tsv"), &len);
    size_t cap = 256, count = 0;
    row *rows = calloc(cap, sizeof *rows);
    assert_non_null(rows);
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#')
            continue;
        char *col[6] = {0};
        char *p = line;
        for (int i = 0; i < 6 && p; i++) {
            col[i] = p;
            char *tab = strchr(p, '\t');
            if (tab)
                *tab = 0;
            p = tab ? tab + 1 : NULL;
        }
        if (!col[4] || strcmp(col[2], "protocol") == 0)
            continue;
        row r;
        memset(&r, 0, sizeof r);
        const char *pkg = col[1];
        const char *gt = strchr(pkg, '>');
        r.versioning = gt != NULL;
        if (gt)
            pkg = gt + 1; /* decoded with the reader's package */
        snprintf(r.schema, sizeof r.schema, "%s", pkg);
        snprintf(r.type, sizeof r.type, "%s.%s", pkg, col[2]);
        char *fsave = NULL;
        for (char *f = strtok_r(col[4], ",", &fsave); f; f = strtok_r(NULL, ",", &fsave)) {
            size_t fl = strlen(f);
            bool final = fl > 10 && strcmp(f + fl - 10, ".final.bin") == 0;
            if (fl > 4 && strcmp(f + fl - 4, ".bin") == 0 && !final)
                snprintf(r.bin, sizeof r.bin, "%s", f);
            bool other_txt = (fl > 8 && strcmp(f + fl - 8, ".src.txt") == 0) ||
                             (fl > 17 && strcmp(f + fl - 17, ".std_readback.txt") == 0);
            if (fl > 4 && strcmp(f + fl - 4, ".txt") == 0 && !other_txt)
                snprintf(r.txt, sizeof r.txt, "%s", f);
        }
        /* all_null: the reference's standard reader substitutes defaults; the
         * expected text of our reader is the written value (.txt) */
        if (!r.bin[0])
            continue;
        if (count == cap) {
            cap *= 2;
            rows = realloc(rows, cap * sizeof *rows);
            assert_non_null(rows);
        }
        rows[count++] = r;
    }
    free(text);
    *out = rows;
    return count;
}

static const char *const golden_names[] = {"enums", "proto", "protoex", "test"};
#define GOLDEN_COUNT 4

typedef struct env {
    pair p[GOLDEN_COUNT];
    row *rows;
    size_t row_count;
} env;

static int env_setup(void **state)
{
    env *v = calloc(1, sizeof *v);
    assert_non_null(v);
    for (int i = 0; i < GOLDEN_COUNT; i++)
        pair_make(&v->p[i], load_golden(golden_names[i]), 0);
    v->row_count = manifest(&v->rows);
    *state = v;
    return 0;
}

static int env_teardown(void **state)
{
    env *v = *state;
    for (int i = 0; i < GOLDEN_COUNT; i++)
        pair_free(&v->p[i]);
    free(v->rows);
    free(v);
    return 0;
}

static pair *env_pair(env *v, const char *schema)
{
    for (int i = 0; i < GOLDEN_COUNT; i++)
        if (strcmp(golden_names[i], schema) == 0)
            return &v->p[i];
    fail_msg("unknown golden schema %s", schema);
    return NULL;
}

static uint8_t *golden_file(const char *rel, size_t *n)
{
    char path[300];
    snprintf(path, sizeof path, "golden/%s", rel);
    return read_file(shared_path(path), n);
}

/* A malloc'd copy of exactly n bytes. */
static uint8_t *exact_copy(const uint8_t *p, size_t n)
{
    uint8_t *q = malloc(n ? n : 1);
    assert_non_null(q);
    memcpy(q, p, n);
    return q;
}

/* ---- tests ---------------------------------------------------------------------------- */

static void test_backend(void **state)
{
    env *v = *state;
    for (int i = 0; i < GOLDEN_COUNT; i++) {
        assert_int_equal(fbe_codec_backend(v->p[i].jit), FBE_BACKEND_JIT);
        fbe_jit_stats s = fbe_jit_codec_stats(v->p[i].jit);
        assert_true(s.functions > 0);
    }
}

/* Every golden case and versioning case: both codecs accept, agree, and print the
 * expected text; re-serializing gives the golden bytes (cases). */
static void test_golden_cases(void **state)
{
    env *v = *state;
    cmp c;
    cmp_init(&c);
    unsigned long cases = 0, versioning = 0, texts = 0;
    for (size_t i = 0; i < v->row_count; i++) {
        const row *r = &v->rows[i];
        pair *p = env_pair(v, r->schema);
        const fbe_type *ti = fbe_codec_type(p->interp, r->type);
        const fbe_type *tj = fbe_codec_type(p->jit, r->type);
        assert_non_null(ti);
        assert_non_null(tj);
        size_t n;
        uint8_t *data = golden_file(r->bin, &n);
        uint8_t *exact = exact_copy(data, n);
        unsigned long before = c.failures;
        for (int rep = 0; rep < 4; rep++) /* prefill and borrow variants */
            if (compare(&c, r->bin, ti, tj, exact, n, "golden") != FBE_OK)
                cmp_fail(&c, r->bin, "golden", "not accepted");
        /* the JIT-decoded value: expected text, golden bytes */
        if (c.failures == before) {
            fbe_arena_reset(&c.aj);
            memset(c.vj, 0xA5, tj->ir->host_size);
            fbe_decode_options o = {.arena = &c.aj};
            assert_int_equal(fbe_deserialize(tj, FBE_STANDARD, exact, n, c.vj, &o, NULL), FBE_OK);
            fbe_buffer_clear(&c.tj);
            assert_int_equal(fbe_print(tj->ir, c.vj, &c.tj), FBE_OK);
            if (r->txt[0]) {
                size_t tn;
                uint8_t *want = golden_file(r->txt, &tn);
                if (tn != c.tj.size || memcmp(want, c.tj.data, tn) != 0)
                    cmp_fail(&c, r->bin, "text", "printed value differs from %s", r->txt);
                else
                    texts++;
                free(want);
            }
            if (!r->versioning) {
                fbe_buffer_clear(&c.bj);
                assert_int_equal(fbe_serialize(tj, FBE_STANDARD, c.vj, &c.bj), FBE_OK);
                if (c.bj.size != n || memcmp(c.bj.data, data, n) != 0)
                    cmp_fail(&c, r->bin, "bytes", "re-serialized value differs from the golden bytes");
            }
        }
        if (r->versioning)
            versioning++;
        else
            cases++;
        free(exact);
        free(data);
    }
    print_message("golden: %lu standard cases, %lu versioning cases, %lu texts, %lu runs, "
                  "%lu failures\n", cases, versioning, texts, c.runs, c.failures);
    assert_true(cases >= 112);
    assert_true(versioning >= 1);
    unsigned long failures = c.failures;
    cmp_free(&c);
    assert_int_equal(failures, 0);
}

static void test_golden_mutations(void **state)
{
    env *v = *state;
    cmp c;
    cmp_init(&c);
    unsigned long buffers = 0, mutations = 0;
    for (size_t i = 0; i < v->row_count; i++) {
        const row *r = &v->rows[i];
        pair *p = env_pair(v, r->schema);
        const fbe_type *ti = fbe_codec_type(p->interp, r->type);
        const fbe_type *tj = fbe_codec_type(p->jit, r->type);
        size_t n;
        uint8_t *data = golden_file(r->bin, &n);
        mutate(&c, r->bin, ti, tj, data, n, &mutations);
        free(data);
        buffers++;
    }
    print_message("mutations: %lu buffers, %lu inputs, %lu runs (%lu accepted), %lu failures\n",
                  buffers, mutations, c.runs, c.accepted, c.failures);
    for (int s = 0; s < FBE_STATUS_COUNT; s++)
        if (c.by_status[s])
            print_message("  %-16s %lu\n", fbe_status_name((fbe_status)s), c.by_status[s]);
    unsigned long failures = c.failures;
    cmp_free(&c);
    assert_int_equal(failures, 0);
}

/* Depth limits: from the decode options (verify and deserialize, per call) and
 * from the codec. Per-call limits: 1..4, the codec's own (64) given explicitly,
 * and larger than the codec's, on the default codecs and on codecs compiled with
 * a small limit. */
static void test_depth_limits(void **state)
{
    env *v = *state;
    cmp c;
    cmp_init(&c);
    unsigned long too_deep = 0, option_too_deep = 0;
    static const unsigned depths[] = {1, 2, 3, 4, FBE_DEFAULT_MAX_DEPTH, 200, UINT_MAX};
    /* the limit is a run-time parameter: the default codecs compile nothing more
     * and keep every entry point while the per-call limit changes */
    fbe_jit_stats before[GOLDEN_COUNT];
    for (int i = 0; i < GOLDEN_COUNT; i++)
        before[i] = fbe_jit_codec_stats(v->p[i].jit);
    for (size_t d = 0; d < sizeof depths / sizeof *depths; d++) {
        unsigned depth = depths[d];
        c.max_depth = depth;
        /* codecs compiled with the limit (the large test schema at one depth only:
         * compiling it is the slow part) */
        pair limited[GOLDEN_COUNT];
        memset(limited, 0, sizeof limited);
        for (int i = 0; i < GOLDEN_COUNT; i++)
            if (depth <= 4 && (strcmp(golden_names[i], "test") != 0 || depth == 3))
                pair_make(&limited[i], load_golden(golden_names[i]), depth);
        for (size_t i = 0; i < v->row_count; i++) {
            const row *r = &v->rows[i];
            size_t n;
            uint8_t *data = golden_file(r->bin, &n);
            uint8_t *exact = exact_copy(data, n);
            /* codec limit (verify and deserialize) */
            pair *p = NULL;
            for (int k = 0; k < GOLDEN_COUNT; k++)
                if (strcmp(golden_names[k], r->schema) == 0)
                    p = &limited[k];
            assert_non_null(p);
            unsigned saved = c.max_depth;
            c.max_depth = 0;
            if (p->jit && compare(&c, r->bin, fbe_codec_type(p->interp, r->type),
                                  fbe_codec_type(p->jit, r->type), exact, n,
                                  "codec depth") == FBE_TOO_DEEP)
                too_deep++;
            /* a per-call limit above the small codec's replaces it */
            c.max_depth = depth + 2;
            if (p->jit && compare(&c, r->bin, fbe_codec_type(p->interp, r->type),
                                  fbe_codec_type(p->jit, r->type), exact, n,
                                  "option above codec depth") == FBE_TOO_DEEP)
                too_deep++;
            c.max_depth = saved;
            /* option limit (verify and deserialize) on the default codecs */
            p = env_pair(v, r->schema);
            if (compare(&c, r->bin, fbe_codec_type(p->interp, r->type),
                        fbe_codec_type(p->jit, r->type), exact, n, "option depth") == FBE_TOO_DEEP)
                option_too_deep++;
            free(exact);
            free(data);
        }
        for (int i = 0; i < GOLDEN_COUNT; i++)
            if (limited[i].jit)
                pair_free(&limited[i]);
    }
    print_message("depth limits: %lu runs, %lu TOO_DEEP (%lu by a per-call limit), %lu failures\n",
                  c.runs, too_deep + option_too_deep, option_too_deep, c.failures);
    assert_true(too_deep > 0);
    assert_true(option_too_deep > 0);
    for (int i = 0; i < GOLDEN_COUNT; i++) {
        fbe_jit_stats after = fbe_jit_codec_stats(v->p[i].jit);
        assert_int_equal(fbe_codec_backend(v->p[i].jit), FBE_BACKEND_JIT);
        assert_int_equal(after.functions, before[i].functions);
        assert_int_equal(after.pending, 0);
        assert_int_equal(after.code_bytes, before[i].code_bytes);
        assert_true(after.lower_ms == before[i].lower_ms && after.optimize_ms == before[i].optimize_ms &&
                    after.codegen_ms == before[i].codegen_ms);
    }
    unsigned long failures = c.failures;
    cmp_free(&c);
    assert_int_equal(failures, 0);
}

/* Arena limits: the same allocations in the same order fail at the same point. */
static void test_arena_limits(void **state)
{
    env *v = *state;
    cmp c;
    cmp_init(&c);
    unsigned long nomem = 0;
    static const size_t limits[] = {1, 64, 4200, 4400, 8300, 12500};
    for (size_t i = 0; i < v->row_count; i++) {
        const row *r = &v->rows[i];
        pair *p = env_pair(v, r->schema);
        size_t n;
        uint8_t *data = golden_file(r->bin, &n);
        uint8_t *exact = exact_copy(data, n);
        for (size_t k = 0; k < sizeof limits / sizeof *limits; k++) {
            /* fresh arenas: the limit counts chunks obtained */
            fbe_arena_free(&c.ai);
            fbe_arena_free(&c.aj);
            fbe_arena_init(&c.ai, NULL, NULL);
            fbe_arena_init(&c.aj, NULL, NULL);
            c.arena_limit = limits[k];
            compare(&c, r->bin, fbe_codec_type(p->interp, r->type),
                    fbe_codec_type(p->jit, r->type), exact, n, "arena limit");
            if (c.last_ds == FBE_NOMEM)
                nomem++;
        }
        free(exact);
        free(data);
    }
    c.arena_limit = 0;
    print_message("arena limits: %lu runs, %lu NOMEM, %lu failures\n", c.runs, nomem, c.failures);
    assert_true(nomem > 0);
    unsigned long failures = c.failures;
    cmp_free(&c);
    assert_int_equal(failures, 0);
}

/* A vector whose elements all reference the same struct: a DAG that must hit the
 * traversal budget at the same element in both codecs. */
static void test_traversal_dag(void **state)
{
    env *v = *state;
    pair *p = env_pair(v, "proto");
    const fbe_type *ti = fbe_codec_type(p->interp, "proto.Account");
    const fbe_type *tj = fbe_codec_type(p->jit, "proto.Account");
    const fbe_ir_field *orders = fbe_field_by_name(ti->ir, "orders");
    assert_non_null(orders);
    size_t n;
    uint8_t *data = golden_file("cases/proto/Account/readme.bin", &n);
    uint32_t body = rd_u32(data + 4);
    uint32_t blk = body + rd_u32(data + body + orders->std_offset);
    uint32_t first = rd_u32(data + blk + 4);
    cmp c;
    cmp_init(&c);
    unsigned long limited = 0;
    for (uint32_t count = 1; count <= 64; count++) {
        size_t m = n + 4 + (size_t)count * 4;
        uint8_t *buf = malloc(m);
        assert_non_null(buf);
        memcpy(buf, data, n);
        wr_u32(buf, (uint32_t)m);
        wr_u32(buf + body + orders->std_offset, (uint32_t)(n - body));
        wr_u32(buf + n, count);
        for (uint32_t i = 0; i < count; i++)
            wr_u32(buf + n + 4 + i * 4, first);
        char label[64];
        snprintf(label, sizeof label, "%u references to one order", count);
        if (compare(&c, "dag", ti, tj, buf, m, label) == FBE_TRAVERSAL_LIMIT)
            limited++;
        free(buf);
    }
    free(data);
    print_message("traversal DAG: %lu runs, %lu TRAVERSAL_LIMIT, %lu failures\n", c.runs, limited,
                  c.failures);
    assert_true(limited > 0);
    unsigned long failures = c.failures;
    cmp_free(&c);
    assert_int_equal(failures, 0);
}

/* Collection counts rewritten in every golden buffer: large counts of elements
 * with big host structs take the interpreter's precheck (verify before
 * allocating), small ones the ordinary path. */
static void test_collection_counts(void **state)
{
    env *v = *state;
    cmp c;
    cmp_init(&c);
    static const uint32_t counts[] = {0, 1, 2, 3, 5, 9, 11, 17, 33, 65, 100, 129, 255, 300,
                                      1000, 4097, 0x7fffffff, 0xffffffff};
    unsigned long patched = 0;
    for (size_t i = 0; i < v->row_count; i++) {
        const row *r = &v->rows[i];
        pair *p = env_pair(v, r->schema);
        const fbe_type *ti = fbe_codec_type(p->interp, r->type);
        const fbe_type *tj = fbe_codec_type(p->jit, r->type);
        size_t n;
        uint8_t *data = golden_file(r->bin, &n);
        uint32_t body = rd_u32(data + 4);
        for (size_t f = 0; f < ti->ir->field_count; f++) {
            const fbe_ir_field *fd = &ti->ir->fields[f];
            fbe_ir_kind k = fd->type->kind;
            if (k != FBE_IR_VECTOR && k != FBE_IR_LIST && k != FBE_IR_SET && k != FBE_IR_MAP &&
                k != FBE_IR_HASH)
                continue;
            uint32_t off = rd_u32(data + body + fd->std_offset);
            if (!off || (size_t)body + off + 4 > n)
                continue;
            uint8_t *buf = exact_copy(data, n);
            for (size_t j = 0; j < sizeof counts / sizeof *counts; j++) {
                wr_u32(buf + body + off, counts[j]);
                char label[96];
                snprintf(label, sizeof label, "%s count = %u", fd->name, counts[j]);
                compare(&c, r->bin, ti, tj, buf, n, label);
                /* with an arena limit: checking before allocating shows */
                c.arena_limit = 16384;
                compare(&c, r->bin, ti, tj, buf, n, label);
                c.arena_limit = 0;
                patched++;
            }
            free(buf);
        }
        free(data);
    }
    print_message("collection counts: %lu inputs, %lu runs (%lu accepted), %lu failures\n",
                  patched, c.runs, c.accepted, c.failures);
    for (int st = 0; st < FBE_STATUS_COUNT; st++)
        if (c.by_status[st])
            print_message("  %-16s %lu\n", fbe_status_name((fbe_status)st), c.by_status[st]);
    assert_true(patched > 0);
    unsigned long failures = c.failures;
    cmp_free(&c);
    assert_int_equal(failures, 0);
}

/* ---- random values of a wider schema --------------------------------------------------- */

static const char extra_v1[] =
    "package extra\n"
    "enum Color : byte { red; green; blue; }\n"
    "flags Bits : int32 { a = 1; b = 2; c = 4; }\n"
    "struct Leaf { bool flag; string s; Color color; }\n"
    "struct Node(10) {\n"
    "  int32 v;\n"
    "  Node? next;\n"
    "  Node[] kids;\n"
    "  bool[3] bools;\n"
    "  string[10] names;\n"
    "  Leaf?[9] leaves;\n"
    "  int16[12] nums;\n"
    "  bool[] bits;\n"
    "  bytes? blob;\n"
    "  string? title;\n"
    "  Color<int32> cmap;\n"
    "  Leaf<string> lmap;\n"
    "  Leaf?{string} lhash;\n"
    "  string{Leaf} skeyed;\n"
    "  bool<bool> bmap;\n"
    "  uuid u; decimal d; timestamp t; wchar w; char c; float f; double dd;\n"
    "  Bits bits2; Color? ocolor; int64?[2] o64; Leaf[10] leaf10; int32() ilist; double! dset;\n"
    "}\n"
    "struct Derived(11) : Node { Leaf leaf; Leaf[] more; byte b; }\n"
    "struct Versioned(12) { int32 a; string s; }\n";

/* The same package, a newer writer: fields added (with defaults) to Versioned. */
static const char extra_v2[] =
    "package extra\n"
    "enum Color : byte { red; green; blue; }\n"
    "flags Bits : int32 { a = 1; b = 2; c = 4; }\n"
    "struct Leaf { bool flag; string s; Color color; }\n"
    "struct Versioned(12) { int32 a; string s; bool yes = true; string more = \"dflt\"; "
    "int32? oi = 7; Color col = Color.blue; Bits bb = Bits.a | Bits.c; double dd = 1.5; "
    "Leaf leaf; Leaf[] leaves; uuid uu = uuid0; string? os = \"opt\"; }\n";

typedef struct gen {
    uint64_t seed;
    fbe_arena *arena;
} gen;

static void gen_struct(gen *g, const fbe_ir_struct *st, uint8_t *host, int depth);

static void gen_bytes(gen *g, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)rng_next(&g->seed);
}

static void gen_value(gen *g, const fbe_ir_type *t, uint8_t *host, int depth)
{
    uint64_t r = rng_next(&g->seed);
    switch (t->kind) {
    case FBE_IR_BOOL:
        *host = r & 1;
        break;
    case FBE_IR_STRING:
    case FBE_IR_BYTES: {
        size_t len = r % 4 == 0 ? 0 : (size_t)(r >> 8) % 24;
        char *s = len ? fbe_arena_alloc(g->arena, len) : NULL;
        for (size_t i = 0; i < len; i++)
            s[i] = (char)('a' + rng_next(&g->seed) % 26);
        fbe_string v = {s, len};
        memcpy(host, &v, sizeof v);
        break;
    }
    case FBE_IR_STRUCT:
        gen_struct(g, t->struct_type, host, depth + 1);
        break;
    case FBE_IR_OPTIONAL: {
        bool present = r % 3 != 0 && depth < 3;
        if (t->elem->kind == FBE_IR_STRUCT) {
            void *p = NULL;
            if (present) {
                p = fbe_arena_alloc(g->arena, t->elem->struct_type->host_size);
                gen_struct(g, t->elem->struct_type, p, depth + 1);
            }
            memcpy(host, &p, sizeof p);
        } else {
            memset(host, 0, t->host_size);
            *host = present;
            if (present)
                gen_value(g, t->elem, host + t->host_value_offset, depth);
        }
        break;
    }
    case FBE_IR_ARRAY:
        for (uint32_t i = 0; i < t->array_len; i++)
            gen_value(g, t->elem, host + (size_t)i * t->elem->host_size, depth);
        break;
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        bool map = t->kind == FBE_IR_MAP || t->kind == FBE_IR_HASH;
        size_t count = depth < 2 ? (size_t)(r % (depth ? 3 : 5)) : 0;
        size_t stride = map ? t->host_entry_size : t->elem->host_size;
        uint8_t *items = count ? fbe_arena_alloc(g->arena, count * stride) : NULL;
        if (items)
            memset(items, 0, count * stride);
        for (size_t i = 0; i < count; i++) {
            uint8_t *item = items + i * stride;
            if (map) {
                gen_value(g, t->key, item, depth);
                gen_value(g, t->elem, item + t->host_entry_value_offset, depth);
            } else {
                gen_value(g, t->elem, item, depth);
            }
        }
        fbe_seq s = {items, count};
        memcpy(host, &s, sizeof s);
        break;
    }
    default:
        gen_bytes(g, host, t->host_size);
        break;
    }
}

static void gen_struct(gen *g, const fbe_ir_struct *st, uint8_t *host, int depth)
{
    memset(host, 0, st->host_size);
    for (size_t i = 0; i < st->field_count; i++)
        gen_value(g, st->fields[i].type, host + st->fields[i].host_offset, depth);
}

static void test_generated(void **state)
{
    (void)state;
    pair p;
    pair_make(&p, load_text_ok(extra_v1), 0);
    cmp c;
    cmp_init(&c);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_buffer out;
    fbe_buffer_init(&out, NULL, NULL);
    gen g = {.seed = 42, .arena = &arena};
    static const char *const types[] = {"extra.Node", "extra.Derived", "extra.Leaf",
                                        "extra.Versioned"};
    unsigned long values = 0, mutations = 0;
    for (size_t k = 0; k < sizeof types / sizeof *types; k++) {
        const fbe_type *ti = fbe_codec_type(p.interp, types[k]);
        const fbe_type *tj = fbe_codec_type(p.jit, types[k]);
        assert_non_null(ti);
        assert_non_null(tj);
        for (int i = 0; i < 12; i++) {
            fbe_arena_reset(&arena);
            uint8_t *value = fbe_arena_alloc(&arena, ti->ir->host_size);
            gen_struct(&g, ti->ir, value, 0);
            fbe_buffer_clear(&out);
            assert_int_equal(fbe_serialize(ti, FBE_STANDARD, value, &out), FBE_OK);
            char what[64];
            snprintf(what, sizeof what, "%s #%d (%zu bytes)", types[k], i, out.size);
            uint8_t *exact = exact_copy(out.data, out.size);
            if (compare(&c, what, ti, tj, exact, out.size, "generated") != FBE_OK)
                cmp_fail(&c, what, "generated", "not accepted");
            if (i < 4)
                mutate(&c, what, ti, tj, exact, out.size, &mutations);
            free(exact);
            values++;
        }
    }
    /* a deep chain through Node.next: TOO_DEEP at the codec's limit */
    {
        const fbe_type *ti = fbe_codec_type(p.interp, "extra.Node");
        const fbe_type *tj = fbe_codec_type(p.jit, "extra.Node");
        const fbe_ir_field *next = fbe_field_by_name(ti->ir, "next");
        /* serialize refuses a chain deeper than the codec's limit (both
         * backends): the frames past it come from a codec with a higher one */
        fbe_codec_options wide = {.max_depth = 100};
        fbe_codec *writer = fbe_interp_create(p.schema, &wide, NULL);
        assert_non_null(writer);
        const fbe_type *tw = fbe_codec_type(writer, "extra.Node");
        unsigned limit = fbe_codec_max_depth(p.interp);
        int first_too_deep = 0;
        for (int len = 1; len <= 70; len++) {
            fbe_arena_reset(&arena);
            uint8_t *head = NULL;
            for (int i = 0; i < len; i++) {
                uint8_t *node = fbe_arena_alloc(&arena, ti->ir->host_size);
                memset(node, 0, ti->ir->host_size);
                memcpy(node + next->host_offset, &head, sizeof head);
                head = node;
            }
            /* a chain of len nodes is len + 1 levels deep (Leaf[10] leaf10) */
            fbe_status want = (unsigned)len + 1 <= limit ? FBE_OK : FBE_TOO_DEEP;
            fbe_buffer_clear(&out);
            assert_int_equal(fbe_serialize(tj, FBE_STANDARD, head, &out), want);
            fbe_buffer_clear(&out);
            assert_int_equal(fbe_serialize(ti, FBE_STANDARD, head, &out), want);
            fbe_buffer_clear(&out);
            assert_int_equal(fbe_serialize(tw, FBE_STANDARD, head, &out), FBE_OK);
            uint8_t *exact = exact_copy(out.data, out.size);
            char what[64];
            snprintf(what, sizeof what, "chain of %d", len);
            fbe_status st = compare(&c, what, ti, tj, exact, out.size, "deep");
            if (st == FBE_TOO_DEEP && !first_too_deep)
                first_too_deep = len;
            assert_true(st == FBE_OK || st == FBE_TOO_DEEP);
            free(exact);
        }
        print_message("chain: TOO_DEEP from %d nodes on\n", first_too_deep);
        assert_int_equal(first_too_deep, limit); /* verify rejects what serialize refuses */
        fbe_codec_free(writer);
    }
    print_message("generated: %lu values, %lu mutated inputs, %lu runs (%lu accepted), "
                  "%lu failures\n", values, mutations, c.runs, c.accepted, c.failures);
    unsigned long failures = c.failures;
    cmp_free(&c);
    fbe_buffer_free(&out);
    fbe_arena_free(&arena);
    pair_free(&p);
    assert_int_equal(failures, 0);
}

/* Older writer (v1 Versioned) read by the newer schema (defaults applied through
 * fbe_init_field), and the newer writer read by the older schema. */
static void test_generated_versions(void **state)
{
    (void)state;
    pair p1, p2;
    pair_make(&p1, load_text_ok(extra_v1), 0);
    pair_make(&p2, load_text_ok(extra_v2), 0);
    cmp c;
    cmp_init(&c);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_buffer out;
    fbe_buffer_init(&out, NULL, NULL);
    gen g = {.seed = 7, .arena = &arena};
    unsigned long mutations = 0;
    for (int dir = 0; dir < 2; dir++) {
        pair *w = dir ? &p2 : &p1, *rdr = dir ? &p1 : &p2;
        const fbe_type *tw = fbe_codec_type(w->interp, "extra.Versioned");
        const fbe_type *ti = fbe_codec_type(rdr->interp, "extra.Versioned");
        const fbe_type *tj = fbe_codec_type(rdr->jit, "extra.Versioned");
        for (int i = 0; i < 6; i++) {
            fbe_arena_reset(&arena);
            uint8_t *value = fbe_arena_alloc(&arena, tw->ir->host_size);
            gen_struct(&g, tw->ir, value, 0);
            fbe_buffer_clear(&out);
            assert_int_equal(fbe_serialize(tw, FBE_STANDARD, value, &out), FBE_OK);
            char what[64];
            snprintf(what, sizeof what, "Versioned %s #%d", dir ? "v2->v1" : "v1->v2", i);
            uint8_t *exact = exact_copy(out.data, out.size);
            if (compare(&c, what, ti, tj, exact, out.size, "versioned") != FBE_OK)
                cmp_fail(&c, what, "versioned", "not accepted");
            if (i < 2)
                mutate(&c, what, ti, tj, exact, out.size, &mutations);
            free(exact);
        }
    }
    print_message("versions: %lu runs (%lu accepted), %lu failures\n", c.runs, c.accepted,
                  c.failures);
    unsigned long failures = c.failures;
    cmp_free(&c);
    fbe_buffer_free(&out);
    fbe_arena_free(&arena);
    pair_free(&p1);
    pair_free(&p2);
    assert_int_equal(failures, 0);
}

/* Argument checks, like the interpreter's. */
static void test_arguments(void **state)
{
    env *v = *state;
    pair *p = env_pair(v, "proto");
    const fbe_type *ti = fbe_codec_type(p->interp, "proto.Account");
    const fbe_type *tj = fbe_codec_type(p->jit, "proto.Account");
    fbe_verify_info ii, ij;
    memset(&ii, 0x11, sizeof ii);
    memset(&ij, 0x11, sizeof ij);
    assert_int_equal(fbe_verify(ti, FBE_STANDARD, NULL, 5, &ii),
                     fbe_verify(tj, FBE_STANDARD, NULL, 5, &ij));
    assert_int_equal(ij.status, FBE_INVALID_ARGUMENT);
    assert_int_equal(ii.status, ij.status);
    assert_int_equal(ii.offset, ij.offset);
    assert_ptr_equal(ii.type, ij.type);
    assert_ptr_equal(ii.field, ij.field);
    assert_int_equal(tj->ops[FBE_STANDARD].verify(tj, NULL, 0, &ij, NULL), FBE_TRUNCATED);
    uint8_t vi[128], vj[128];
    memset(vi, 0x33, sizeof vi);
    memset(vj, 0x33, sizeof vj);
    size_t ci = 9, cj = 9;
    uint8_t bytes[8] = {0};
    assert_int_equal(fbe_deserialize(tj, FBE_STANDARD, bytes, 8, vj, NULL, &cj), FBE_INVALID_ARGUMENT);
    assert_int_equal(fbe_deserialize(ti, FBE_STANDARD, bytes, 8, vi, NULL, &ci), FBE_INVALID_ARGUMENT);
    assert_int_equal(ci, cj);
    assert_memory_equal(vi, vj, sizeof vi);
    fbe_decode_options none = {0};
    assert_int_equal(fbe_deserialize(tj, FBE_STANDARD, bytes, 8, vj, &none, &cj), FBE_INVALID_ARGUMENT);
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);
    fbe_decode_options o = {.arena = &a};
    assert_int_equal(fbe_deserialize(tj, FBE_STANDARD, NULL, 8, vj, &o, &cj), FBE_INVALID_ARGUMENT);
    assert_int_equal(fbe_deserialize(tj, FBE_STANDARD, bytes, 8, NULL, &o, &cj), FBE_INVALID_ARGUMENT);
    assert_int_equal(cj, 0);
    fbe_arena_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backend),
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_golden_cases),
        cmocka_unit_test(test_golden_mutations),
        cmocka_unit_test(test_depth_limits),
        cmocka_unit_test(test_arena_limits),
        cmocka_unit_test(test_traversal_dag),
        cmocka_unit_test(test_collection_counts),
        cmocka_unit_test(test_generated),
        cmocka_unit_test(test_generated_versions),
    };
    return cmocka_run_group_tests(tests, env_setup, env_teardown);
}
