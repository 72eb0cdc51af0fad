/* Differential test of the LLVM JIT against the interpreter on random values.
 *
 * For each golden schema, every struct type of every package, and a fixed number
 * of random values per type (tests/value_gen.c), in both models:
 *
 *   size        interp == jit, and equal to the bytes serialize appends
 *   serialize   byte-identical frames
 *   verify      OK in both backends, on the interpreter's and on the JIT's bytes
 *   huge views  the value's strings and scalar collections then claim lengths
 *               around 2^32 and 2^40 (gen_huge_views): sizes equal, TOO_LARGE
 *   deserialize each backend decodes its own bytes and the other's (cross); every
 *               decoded value re-serializes (interpreter) to the bytes it came
 *               from, `consumed` is the frame size, and all four decoded values
 *               print (fbe_print) identically to the original value
 *
 * Odd-numbered values decode with FBE_DECODE_BORROW, even ones copy. Decoded
 * values are pre-filled with different garbage in each backend so a field that
 * deserialize forgets to write shows up in the printed text.
 *
 * Everything is deterministic: value i of type T is generated from the seed
 * value_seed(T, i) (printed with every failure). Environment knobs:
 *   FBE_RANDOM_COUNT=n   values per type (default 1000; 500 in sanitizer builds)
 *   FBE_RANDOM_TYPE=pkg.Type  only that type
 *   FBE_RANDOM_SEED=0x...     only the value generated from that seed (decoded once
 *                             copying and once borrowing)
 *   FBE_RANDOM_VERBOSE=1      per-type counts and timings
 *   FBE_RANDOM_PRINT=1        print every generated value (fbe_print) */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "value_gen.h"

#include "fbe/codec.h"
#include "fbe/jit.h"

/* Values per type. The sanitizer build runs half as many to stay near a minute on
 * a busy machine (most of its time is then compiling test.fbe, a fixed cost). */
#if defined(__SANITIZE_ADDRESS__)
#define FBE_RANDOM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FBE_RANDOM_SANITIZED 1
#endif
#endif
#ifdef FBE_RANDOM_SANITIZED
#define DEFAULT_COUNT 500
#else
#define DEFAULT_COUNT 1000
#endif
#define MAX_REPORTS 60

/* ---- configuration ------------------------------------------------------------------ */

static unsigned long value_count(void)
{
    const char *s = getenv("FBE_RANDOM_COUNT");
    if (s && *s) {
        unsigned long n = strtoul(s, NULL, 0);
        if (n)
            return n;
    }
    return DEFAULT_COUNT;
}

static bool only_seed(uint64_t *seed)
{
    const char *s = getenv("FBE_RANDOM_SEED");
    if (!s || !*s)
        return false;
    *seed = strtoull(s, NULL, 0);
    return true;
}

static bool type_selected(const fbe_ir_struct *st)
{
    const char *s = getenv("FBE_RANDOM_TYPE");
    return !s || !*s || strcmp(s, st->full_name) == 0;
}

static bool verbose(void)
{
    const char *s = getenv("FBE_RANDOM_VERBOSE");
    return s && *s && *s != '0';
}

/* splitmix64 of (type, index): independent, reproducible seeds. */
static uint64_t value_seed(const fbe_ir_struct *st, unsigned long i)
{
    return splitmix64_mix(fnv1a(st->full_name) + (uint64_t)i * SPLITMIX64_GAMMA) | 1;
}

/* ---- state of one schema run --------------------------------------------------------- */

static const char *const model_name[2] = {"std", "final"};

typedef struct run {
    const char *schema_name;
    fbe_codec *interp, *jit;
    fbe_arena gen;          /* the generated value */
    fbe_arena dec[4];       /* decoded values */
    fbe_buffer bytes[2];    /* [0] interp, [1] jit */
    fbe_buffer text_orig, text[4], re;
    uint8_t *value;         /* generated */
    uint8_t *decoded[4];
    size_t host_cap;
    unsigned long values, checks, huge_checks, failures, reports;
    unsigned long cross_implied; /* model checks whose two byte strings were identical */
    unsigned long native_ops;  /* entry points that are not the interpreter's */
    uint64_t seed;          /* of the value being checked */
    const fbe_ir_struct *st;
    fbe_model model;
} run;

static void run_fail(run *r, const char *op, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void run_fail(run *r, const char *op, const char *fmt, ...)
{
    r->failures++;
    if (r->reports++ >= MAX_REPORTS)
        return;
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    print_error("DIVERGENCE schema=%s type=%s model=%s op=%s seed=0x%016" PRIx64 ": %s\n",
                r->schema_name, r->st->full_name, model_name[r->model], op, r->seed, buf);
}

static void hex_excerpt(const uint8_t *p, size_t n, size_t at, char *out, size_t size)
{
    size_t from = at > 8 ? at - 8 : 0, to = at + 8 < n ? at + 8 : n;
    size_t len = 0;
    out[0] = 0;
    for (size_t i = from; i < to && len + 8 < size; i++)
        len += (size_t)snprintf(out + len, size - len, i == at ? "[%02x]" : "%02x ", p[i]);
}

/* True when equal; otherwise fills msg with sizes, first differing byte and context. */
static bool same_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn, char *msg,
                       size_t size)
{
    size_t n = an < bn ? an : bn, i = 0;
    while (i < n && a[i] == b[i])
        i++;
    if (i == n && an == bn)
        return true;
    char ea[128], eb[128];
    hex_excerpt(a, an, i, ea, sizeof ea);
    hex_excerpt(b, bn, i, eb, sizeof eb);
    snprintf(msg, size, "sizes %zu vs %zu, first differing byte %zu: %s | %s", an, bn, i, ea, eb);
    return false;
}

static bool same_text(const fbe_buffer *a, const fbe_buffer *b, char *msg, size_t size)
{
    size_t n = a->size < b->size ? a->size : b->size, i = 0;
    while (i < n && a->data[i] == b->data[i])
        i++;
    if (i == n && a->size == b->size)
        return true;
    size_t from = i > 40 ? i - 40 : 0;
    snprintf(msg, size, "text differs at char %zu: \"%.80s\" vs \"%.80s\"", i,
             a->size > from ? (const char *)a->data + from : "",
             b->size > from ? (const char *)b->data + from : "");
    return false;
}

static void run_init(run *r, const char *schema_name, fbe_codec *interp, fbe_codec *jit,
                     size_t host_cap)
{
    memset(r, 0, sizeof *r);
    r->schema_name = schema_name;
    r->interp = interp;
    r->jit = jit;
    fbe_arena_init(&r->gen, NULL, NULL);
    for (int i = 0; i < 4; i++) {
        fbe_arena_init(&r->dec[i], NULL, NULL);
        fbe_buffer_init(&r->text[i], NULL, NULL);
    }
    fbe_buffer_init(&r->bytes[0], NULL, NULL);
    fbe_buffer_init(&r->bytes[1], NULL, NULL);
    fbe_buffer_init(&r->text_orig, NULL, NULL);
    fbe_buffer_init(&r->re, NULL, NULL);
    r->host_cap = host_cap;
    /* 16-byte aligned (every host alignment is at most 8). */
    size_t cap = (host_cap + 15) / 16 * 16;
    r->value = aligned_alloc(16, cap);
    assert_non_null(r->value);
    for (int i = 0; i < 4; i++) {
        r->decoded[i] = aligned_alloc(16, cap);
        assert_non_null(r->decoded[i]);
    }
}

static void run_free(run *r)
{
    fbe_arena_free(&r->gen);
    for (int i = 0; i < 4; i++) {
        fbe_arena_free(&r->dec[i]);
        fbe_buffer_free(&r->text[i]);
        free(r->decoded[i]);
    }
    fbe_buffer_free(&r->bytes[0]);
    fbe_buffer_free(&r->bytes[1]);
    fbe_buffer_free(&r->text_orig);
    fbe_buffer_free(&r->re);
    free(r->value);
}

/* ---- one value, one model -------------------------------------------------------------- */

static const char *const backend_name[2] = {"interp", "jit"};

static void check_model(run *r, const fbe_type *t[2], fbe_model m, unsigned long index)
{
    char msg[1024];
    r->model = m;
    r->checks++;

    /* size and serialize */
    size_t size[2];
    bool written[2] = {false, false};
    for (int b = 0; b < 2; b++) {
        size[b] = fbe_size(t[b], m, r->value);
        fbe_buffer_clear(&r->bytes[b]);
        fbe_status st = fbe_serialize(t[b], m, r->value, &r->bytes[b]);
        if (st != FBE_OK) {
            run_fail(r, "serialize", "%s serialize returned %s", backend_name[b], fbe_status_name(st));
            continue;
        }
        written[b] = true;
        if (r->bytes[b].size != size[b])
            run_fail(r, "size", "%s size() = %zu but serialize wrote %zu bytes", backend_name[b],
                     size[b], r->bytes[b].size);
    }
    if (size[0] != size[1])
        run_fail(r, "size", "interp %zu, jit %zu", size[0], size[1]);
    if (!written[0] || !written[1])
        return;
    if (!same_bytes(r->bytes[0].data, r->bytes[0].size, r->bytes[1].data, r->bytes[1].size, msg,
                    sizeof msg))
        run_fail(r, "serialize", "interp vs jit bytes: %s", msg);

    /* When both backends wrote the same bytes, decoding "the other's" bytes is
     * decoding one's own: the cross checks are then implied and skipped. */
    bool same = r->bytes[0].size == r->bytes[1].size &&
                memcmp(r->bytes[0].data, r->bytes[1].data, r->bytes[0].size) == 0;
    if (same)
        r->cross_implied++;

    /* verify: both backends on both byte strings */
    for (int src = 0; src < (same ? 1 : 2); src++) {
        for (int b = 0; b < 2; b++) {
            fbe_verify_info info;
            memset(&info, 0, sizeof info);
            fbe_status st = fbe_verify(t[b], m, r->bytes[src].data, r->bytes[src].size, &info);
            if (st != FBE_OK)
                run_fail(r, "verify", "%s verify of %s bytes: %s at %zu (%s.%s)", backend_name[b],
                         backend_name[src], fbe_status_name(st), info.offset,
                         info.type ? info.type->full_name : "-",
                         info.field ? info.field->name : "-");
        }
    }

    /* deserialize: d = src * 2 + b (interp<-interp, jit<-interp, interp<-jit, jit<-jit) */
    fbe_buffer_clear(&r->text_orig);
    if (fbe_print(t[0]->ir, r->value, &r->text_orig) != FBE_OK) {
        run_fail(r, "print", "fbe_print of the generated value failed");
        return;
    }
    if (getenv("FBE_RANDOM_PRINT") && m == FBE_STANDARD && !(index & 1))
    {
        printf("seed=0x%016" PRIx64 " ", r->seed);
        fwrite(r->text_orig.data, 1, r->text_orig.size, stdout); /* may hold NUL bytes */
        printf("\n");
    }
    unsigned flags = (index & 1) ? FBE_DECODE_BORROW : 0;
    for (int d = 0; d < 4; d++) {
        int src = d / 2, b = d % 2;
        fbe_buffer_clear(&r->text[d]);
        if (same && src != b)
            continue;
        const fbe_buffer *in = &r->bytes[src];
        fbe_arena_reset(&r->dec[d]);
        memset(r->decoded[d], b ? 0x5A : 0xA5, t[0]->ir->host_size);
        fbe_decode_options opts = {.arena = &r->dec[d], .flags = flags};
        size_t consumed = 12345;
        fbe_status st = fbe_deserialize(t[b], m, in->data, in->size, r->decoded[d], &opts, &consumed);
        if (st != FBE_OK) {
            run_fail(r, "deserialize", "%s deserialize of %s bytes (%s): %s", backend_name[b],
                     backend_name[src], flags ? "borrow" : "copy", fbe_status_name(st));
            continue;
        }
        if (consumed != in->size)
            run_fail(r, "deserialize", "%s deserialize of %s bytes: consumed %zu of %zu",
                     backend_name[b], backend_name[src], consumed, in->size);
        fbe_buffer_clear(&r->re);
        st = fbe_serialize(t[0], m, r->decoded[d], &r->re);
        if (st != FBE_OK)
            run_fail(r, "reserialize", "interp re-serialize of the %s-decoded value: %s",
                     backend_name[b], fbe_status_name(st));
        else if (!same_bytes(in->data, in->size, r->re.data, r->re.size, msg, sizeof msg))
            run_fail(r, "reserialize",
                     "%s bytes decoded by %s (%s) re-serialize differently: %s",
                     backend_name[src], backend_name[b], flags ? "borrow" : "copy", msg);
        if (fbe_print(t[0]->ir, r->decoded[d], &r->text[d]) != FBE_OK)
            run_fail(r, "print", "fbe_print of the %s-decoded value failed", backend_name[b]);
        else if (!same_text(&r->text_orig, &r->text[d], msg, sizeof msg))
            run_fail(r, "print", "%s bytes decoded by %s (%s): original vs decoded %s",
                     backend_name[src], backend_name[b], flags ? "borrow" : "copy", msg);
    }
    /* the two backends' own decodes, directly */
    if (r->text[0].size && r->text[3].size && !same_text(&r->text[0], &r->text[3], msg, sizeof msg))
        run_fail(r, "print", "interp-decoded vs jit-decoded: %s", msg);
}

/* ---- one schema ---------------------------------------------------------------------------- */

static bool is_native(const fbe_type *ti, const fbe_type *tj, fbe_model m, int op)
{
    const fbe_model_ops *a = &ti->ops[m], *b = &tj->ops[m];
    switch (op) {
    case 0: return a->size != b->size;
    case 1: return a->serialize != b->serialize;
    case 2: return a->verify != b->verify;
    default: return a->deserialize != b->deserialize;
    }
}

/* The value with huge views (gen_huge_views): sizes equal to the byte in both
 * models, TOO_LARGE from both when the frame does not fit; nothing else may
 * read such a value. */
static void check_huge(run *r, const fbe_type *t[2])
{
    for (int m = 0; m < 2; m++) {
        r->model = (fbe_model)m;
        r->huge_checks++;
        size_t sz[2];
        fbe_status st[2] = {FBE_TOO_LARGE, FBE_TOO_LARGE};
        for (int b = 0; b < 2; b++)
            sz[b] = fbe_size(t[b], (fbe_model)m, r->value);
        if (sz[0] > UINT32_MAX) {
            for (int b = 0; b < 2; b++) {
                uint8_t mem[16];
                fbe_buffer out;
                fbe_buffer_init_fixed(&out, mem, sizeof mem);
                st[b] = fbe_serialize(t[b], (fbe_model)m, r->value, &out);
            }
        }
        if (sz[0] != sz[1] || st[0] != FBE_TOO_LARGE || st[1] != FBE_TOO_LARGE)
            run_fail(r, "huge views", "size interp %zu, jit %zu; serialize interp %s, jit %s",
                     sz[0], sz[1], fbe_status_name(st[0]), fbe_status_name(st[1]));
    }
}

static void run_schema(const char *name)
{
    fbe_schema *schema = load_golden(name);
    fbe_status st = FBE_UNKNOWN_TYPE;
    fbe_codec *interp = fbe_interp_create(schema, NULL, &st);
    assert_non_null(interp);
    assert_int_equal(st, FBE_OK);
    st = FBE_UNKNOWN_TYPE;
    fbe_codec *jit = fbe_jit_compile(schema, &(fbe_jit_options){.require_native = false}, &st);
    assert_non_null(jit);
    assert_int_equal(st, FBE_OK);
    assert_int_equal(fbe_codec_backend(interp), FBE_BACKEND_INTERP);
    if (fbe_jit_available() && fbe_codec_backend(jit) != FBE_BACKEND_JIT) {
        fbe_codec_free(jit);
        fbe_codec_free(interp);
        fbe_schema_free(schema);
        fail_msg("%s: fbe_jit_compile fell back to the interpreter (FBE_JIT_DEBUG=1 says why)", name);
    }

    size_t host_cap = 1;
    for (size_t p = 0; p < fbe_schema_package_count(schema); p++) {
        const fbe_ir_package *pkg = fbe_schema_package(schema, p);
        for (size_t i = 0; i < pkg->struct_count; i++)
            if (pkg->structs[i]->host_size > host_cap)
                host_cap = pkg->structs[i]->host_size;
    }

    run r;
    run_init(&r, name, interp, jit, host_cap);
    uint64_t fixed_seed = 0;
    bool single = only_seed(&fixed_seed);
    unsigned long count = single ? 2 : value_count(); /* one seed: copy and borrow */
    unsigned long types = 0, native[2][4] = {{0}};

    for (size_t p = 0; p < fbe_schema_package_count(schema); p++) {
        const fbe_ir_package *pkg = fbe_schema_package(schema, p);
        for (size_t k = 0; k < pkg->struct_count; k++) {
            const fbe_ir_struct *ir = pkg->structs[k];
            if (!type_selected(ir))
                continue;
            const fbe_type *t[2] = {fbe_codec_type_of(interp, ir), fbe_codec_type_of(jit, ir)};
            assert_non_null(t[0]);
            assert_non_null(t[1]);
            for (int m = 0; m < 2; m++)
                for (int op = 0; op < 4; op++)
                    native[m][op] += is_native(t[0], t[1], (fbe_model)m, op);
            types++;
            r.st = ir;
            unsigned long before = r.failures;
            double t0 = now_seconds();
            for (unsigned long i = 0; i < count; i++) {
                r.seed = single ? fixed_seed : value_seed(ir, i);
                uint64_t rng = r.seed;
                fbe_arena_reset(&r.gen);
                gen_value(ir, r.value, &r.gen, &rng, 0);
                r.values++;
                check_model(&r, t, FBE_STANDARD, i);
                check_model(&r, t, FBE_FINAL, i);
                /* the same value claiming huge lengths (seed: the value's, then on) */
                gen_huge_views(ir, r.value, &rng);
                check_huge(&r, t);
            }
            if (verbose())
                print_message("  %-28s %lu values x 2 models, %lu divergences, %.0f ms\n",
                              ir->full_name, count, r.failures - before,
                              (now_seconds() - t0) * 1e3);
        }
    }

    print_message("%s: %lu types x %lu values x 2 models = %lu model checks (%lu with identical "
                  "bytes, cross-decoding implied), %lu divergences; native entry points per op "
                  "(std size/ser/verify/deser, final ...): %lu/%lu/%lu/%lu, %lu/%lu/%lu/%lu of %lu "
                  "types; %lu sizes of huge views\n",
                  name, types, count, r.checks, r.cross_implied, r.failures, native[0][0], native[0][1],
                  native[0][2], native[0][3], native[1][0], native[1][1], native[1][2],
                  native[1][3], types, r.huge_checks);
    if (r.reports > MAX_REPORTS)
        print_error("(%lu further divergences not shown)\n", r.reports - MAX_REPORTS);
    unsigned long failures = r.failures;
    run_free(&r);
    fbe_codec_free(jit);
    fbe_codec_free(interp);
    fbe_schema_free(schema);
    if (failures)
        fail_msg("%s: %lu divergences between the JIT and the interpreter", name, failures);
}

static void test_proto(void **state)
{
    (void)state;
    run_schema("proto");
}

static void test_protoex(void **state)
{
    (void)state;
    run_schema("protoex");
}

static void test_enums(void **state)
{
    (void)state;
    run_schema("enums");
}

static void test_test(void **state)
{
    (void)state;
    run_schema("test");
}

/* The generator itself: deterministic, and its values satisfy the host rules. */
static void test_generator_deterministic(void **state)
{
    (void)state;
    fbe_schema *schema = load_golden("test");
    const fbe_ir_struct *st = fbe_schema_find_struct(schema, "test.StructNested");
    assert_non_null(st);
    fbe_arena a, b;
    fbe_arena_init(&a, NULL, NULL);
    fbe_arena_init(&b, NULL, NULL);
    uint8_t *va = aligned_alloc(16, (st->host_size + 15) / 16 * 16);
    uint8_t *vb = aligned_alloc(16, (st->host_size + 15) / 16 * 16);
    fbe_buffer ta, tb;
    fbe_buffer_init(&ta, NULL, NULL);
    fbe_buffer_init(&tb, NULL, NULL);
    for (uint64_t seed = 1; seed < 50; seed++) {
        uint64_t sa = seed, sb = seed;
        fbe_arena_reset(&a);
        fbe_arena_reset(&b);
        gen_value(st, va, &a, &sa, 0);
        gen_value(st, vb, &b, &sb, 0);
        assert_true(sa == sb);
        fbe_buffer_clear(&ta);
        fbe_buffer_clear(&tb);
        assert_int_equal(fbe_print(st, va, &ta), FBE_OK);
        assert_int_equal(fbe_print(st, vb, &tb), FBE_OK);
        assert_int_equal(ta.size, tb.size);
        assert_memory_equal(ta.data, tb.data, ta.size);
    }
    fbe_buffer_free(&ta);
    fbe_buffer_free(&tb);
    free(va);
    free(vb);
    fbe_arena_free(&a);
    fbe_arena_free(&b);
    fbe_schema_free(schema);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generator_deterministic),
        cmocka_unit_test(test_enums),
        cmocka_unit_test(test_proto),
        cmocka_unit_test(test_protoex),
        cmocka_unit_test(test_test),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
