/* Keys across backends and against the reference's bytes (issue 15, docs/keys.md):
 *
 *  - generated == reflective: for every struct of the four golden schemas and of
 *    tests/value_keys.fbe and of a package of random schemas (tests/schema_gen.c,
 *    [key] fields of every shape, structs as set elements and map keys), the
 *    header functions pkg_T_compare/_equal/_hash (fbec
 *    header, built by tests/CMakeLists.txt) and fbe_value_compare/_equal/_hash
 *    give the same results on random values (tests/value_gen.c) and on pairs that
 *    are deep copies of each other;
 *  - shuffle, then normalize: every golden case is decoded (it is in strict key
 *    order: fbe_value_check_order), every set and map in it is shuffled and gets
 *    a duplicate of one of its elements, and after fbe_value_normalize the value
 *    serializes to the golden .bin and .final.bin again, byte for byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "golden_common.h"
#include "test_util.h"
#include "value_gen.h"

#include "fbe/value.h"
#include "enums.h"
#include "keys.h"
#include "protoex.h"
#include "rs.h"
#include "rs_types.h"
#include "test.h"

/* ---- the generated functions of every type, by name ------------------------------------ */

typedef struct gen_fns {
    const char *name;
    int (*compare)(const void *a, const void *b);
    bool (*equal)(const void *a, const void *b);
    size_t (*hash)(const void *v);
} gen_fns;

#define FNS(P, T)                                                                     \
    static int cmp_##P##_##T(const void *a, const void *b)                             \
    {                                                                                 \
        return P##_##T##_compare((const P##_##T *)a, (const P##_##T *)b);             \
    }                                                                                 \
    static bool eq_##P##_##T(const void *a, const void *b)                             \
    {                                                                                 \
        return P##_##T##_equal((const P##_##T *)a, (const P##_##T *)b);               \
    }                                                                                 \
    static size_t hash_##P##_##T(const void *v)                                        \
    {                                                                                 \
        return P##_##T##_hash((const P##_##T *)v);                                    \
    }
#define ROW(P, T) {#P "." #T, cmp_##P##_##T, eq_##P##_##T, hash_##P##_##T},

#define TYPES(X)                                                                       \
    X(enums, Enums)                                                                    \
    X(proto, Order) X(proto, Balance) X(proto, Account) X(proto, OrderMessage)         \
    X(proto, BalanceMessage) X(proto, AccountMessage)                                  \
    X(protoex, Order) X(protoex, Balance) X(protoex, Account) X(protoex, OrderMessage) \
    X(protoex, BalanceMessage) X(protoex, AccountMessage)                              \
    X(test, StructSimple) X(test, StructOptional) X(test, StructNested)                \
    X(test, StructBytes) X(test, StructArray) X(test, StructVector) X(test, StructList) \
    X(test, StructSet) X(test, StructMap) X(test, StructHash) X(test, StructHashEx)    \
    X(test, StructEmpty)                                                               \
    X(keys, Scalars) X(keys, Base) X(keys, Derived) X(keys, Leaf) X(keys, NoKeys)      \
    X(keys, NoOwnKeys) X(keys, Composite) X(keys, Coll)                              \
    rs_TYPES(X)

TYPES(FNS)
static const gen_fns all_fns[] = {TYPES(ROW)};
#define FN_COUNT (sizeof all_fns / sizeof all_fns[0])

static int sign(int c)
{
    return (c > 0) - (c < 0);
}

#define AGREE_COUNT 400

static void agree_on(const fbe_ir_struct *s, const gen_fns *fn)
{
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    void *v[AGREE_COUNT];
    uint64_t rng = fnv1a(s->full_name);
    for (size_t i = 0; i < AGREE_COUNT; i++) {
        v[i] = fbe_arena_zalloc(&arena, s->host_size);
        assert_non_null(v[i]);
        if (i % 4 == 3)
            assert_int_equal(fbe_value_copy(s, v[i], v[i - 1], &arena), FBE_OK);
        else
            gen_value(s, v[i], &arena, &rng, 0);
    }
    for (size_t i = 0; i < AGREE_COUNT; i++) {
        if (fn->hash(v[i]) != fbe_value_hash(s, v[i]))
            fail_msg("%s value %zu: generated hash %zx, reflective %zx", s->full_name, i,
                     fn->hash(v[i]), fbe_value_hash(s, v[i]));
        for (size_t d = 0; d < 4; d++) {
            size_t j = d == 0 ? i : (i + d * 97 + (i % 4 == 3 ? AGREE_COUNT - 1 : 0)) % AGREE_COUNT;
            int g = fn->compare(v[i], v[j]), r = fbe_value_compare(s, v[i], v[j]);
            if (sign(g) != sign(r) || fn->equal(v[i], v[j]) != fbe_value_equal(s, v[i], v[j]))
                fail_msg("%s values %zu, %zu: generated compare %d, reflective %d",
                         s->full_name, i, j, g, r);
        }
    }
    fbe_arena_free(&arena);
}

static void test_generated_agree(void **state)
{
    (void)state;
    const char *schemas[] = {"enums", "proto", "protoex", "test"};
    size_t checked = 0;
    for (size_t k = 0; k < 6; k++) {
        fbe_schema *schema = k < 4  ? load_golden(schemas[k])
                             : k == 4 ? fbe_schema_load(FBE_SOURCE_DIR "/tests/value_keys.fbe",
                                                        NULL, NULL)
                                      : fbe_schema_load(FBE_RS_SCHEMA, NULL, NULL);
        assert_non_null(schema);
        const fbe_ir_package *pkg = fbe_schema_root(schema);
        for (size_t i = 0; i < pkg->struct_count; i++) {
            const fbe_ir_struct *s = pkg->structs[i];
            const gen_fns *fn = NULL;
            for (size_t f = 0; f < FN_COUNT; f++)
                if (strcmp(all_fns[f].name, s->full_name) == 0)
                    fn = &all_fns[f];
            if (!fn)
                fail_msg("no generated functions listed for %s", s->full_name);
            agree_on(s, fn);
            checked++;
        }
        fbe_schema_free(schema);
    }
    assert_int_equal(checked, FN_COUNT); /* every type of every schema */
}

/* ---- shuffle, normalize, compare with the golden bytes --------------------------------- */

typedef struct shuffler {
    fbe_arena *arena;
    uint64_t rng;
    size_t collections; /* sets and maps with at least one element */
} shuffler;

static void shuffle_type(shuffler *sh, const fbe_ir_type *t, char *p);

static void shuffle_struct(shuffler *sh, const fbe_ir_struct *s, char *p)
{
    for (size_t i = 0; i < s->field_count; i++)
        shuffle_type(sh, s->fields[i].type, p + s->fields[i].host_offset);
}

static void shuffle_type(shuffler *sh, const fbe_ir_type *t, char *p)
{
    switch (t->kind) {
    case FBE_IR_STRUCT:
        shuffle_struct(sh, t->struct_type, p);
        return;
    case FBE_IR_OPTIONAL:
        if (t->elem->kind == FBE_IR_STRUCT) {
            char *q;
            memcpy(&q, p, sizeof q);
            if (q)
                shuffle_struct(sh, t->elem->struct_type, q);
        } else if (*p) {
            shuffle_type(sh, t->elem, p + t->host_value_offset);
        }
        return;
    case FBE_IR_ARRAY:
        for (uint32_t i = 0; i < t->array_len; i++)
            shuffle_type(sh, t->elem, p + (size_t)i * t->elem->host_size);
        return;
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        fbe_seq s;
        memcpy(&s, p, sizeof s);
        bool map = t->kind == FBE_IR_MAP || t->kind == FBE_IR_HASH;
        size_t stride = map ? t->host_entry_size : t->elem->host_size;
        for (size_t i = 0; i < s.size; i++) {
            char *e = (char *)s.data + i * stride;
            if (map) {
                shuffle_type(sh, t->key, e);
                shuffle_type(sh, t->elem, e + t->host_entry_value_offset);
            } else {
                shuffle_type(sh, t->elem, e);
            }
        }
        if ((t->kind != FBE_IR_SET && t->kind != FBE_IR_MAP) || s.size == 0)
            return;
        sh->collections++;
        /* a copy one longer: the elements in a random order, then a duplicate of a
         * random element inserted after it */
        char *data = fbe_arena_alloc(sh->arena, (s.size + 1) * stride);
        assert_non_null(data);
        memcpy(data, s.data, s.size * stride);
        char *tmp = malloc(stride);
        assert_non_null(tmp);
        for (size_t i = s.size; i > 1; i--) {
            size_t j = (size_t)(rng_next(&sh->rng) % i);
            memcpy(tmp, data + (i - 1) * stride, stride);
            memcpy(data + (i - 1) * stride, data + j * stride, stride);
            memcpy(data + j * stride, tmp, stride);
        }
        size_t src = (size_t)(rng_next(&sh->rng) % s.size);
        size_t at = src + 1 + (size_t)(rng_next(&sh->rng) % (s.size - src));
        memmove(data + (at + 1) * stride, data + at * stride, (s.size - at) * stride);
        memcpy(data + at * stride, data + src * stride, stride);
        free(tmp);
        fbe_seq out = {data, s.size + 1};
        memcpy(p, &out, sizeof out);
        return;
    }
    default:
        return;
    }
}

static void test_golden_shuffle(void **state)
{
    (void)state;
    golden_env env;
    golden_env_load(&env);
    golden_row *rows = NULL;
    size_t n = golden_manifest(&rows);
    golden_report report = {0};
    size_t cases = 0, with_collections = 0;
    for (size_t r = 0; r < n; r++) {
        const golden_row *row = &rows[r];
        const char *bin = golden_row_file(row, ".bin");
        if (row->kind != GOLDEN_CASE || !bin)
            continue;
        char name[160];
        snprintf(name, sizeof name, "%s.%s", row->package, row->type);
        const fbe_type *type = fbe_codec_type(golden_codec(&env, row->schema), name);
        if (!type) {
            golden_failf(&report, "%s: no type", name);
            continue;
        }
        size_t len = 0;
        uint8_t *data = golden_read(bin, &len);
        fbe_arena arena;
        fbe_arena_init(&arena, NULL, NULL);
        void *value = fbe_arena_zalloc(&arena, type->ir->host_size);
        fbe_decode_options opts = {.arena = &arena};
        fbe_status st = fbe_deserialize(type, FBE_STANDARD, data, len, value, &opts, NULL);
        const fbe_ir_field *where = NULL;
        if (st == FBE_OK)
            st = fbe_value_check_order(type->ir, value, &where);
        if (st != FBE_OK) {
            golden_failf(&report, "%s: decode/check_order: %s (%s)", bin, fbe_status_name(st),
                         where ? where->name : "-");
        } else {
            shuffler sh = {&arena, fnv1a(bin), 0};
            shuffle_type(&sh, &(fbe_ir_type){.kind = FBE_IR_STRUCT, .struct_type = type->ir},
                         value);
            if (sh.collections) {
                with_collections++;
                if (fbe_value_check_order(type->ir, value, NULL) != FBE_UNORDERED)
                    golden_failf(&report, "%s: shuffled value passes the strict check", bin);
                /* written as it is, then read: accepted, except with
                 * FBE_DECODE_STRICT_ORDER */
                fbe_buffer raw;
                fbe_buffer_init(&raw, NULL, NULL);
                if (fbe_serialize(type, FBE_STANDARD, value, &raw) != FBE_OK)
                    golden_failf(&report, "%s: serialize shuffled", bin);
                for (int strict = 0; strict < 2 && raw.size; strict++) {
                    void *back = fbe_arena_zalloc(&arena, type->ir->host_size);
                    fbe_decode_options o = {.arena = &arena,
                                            .flags = strict ? FBE_DECODE_STRICT_ORDER : 0};
                    fbe_status ds = fbe_deserialize(type, FBE_STANDARD, raw.data, raw.size, back, &o, NULL);
                    if (ds != (strict ? FBE_UNORDERED : FBE_OK))
                        golden_failf(&report, "%s: shuffled frame, strict=%d: %s", bin, strict,
                                     fbe_status_name(ds));
                }
                fbe_buffer_free(&raw);
            }
            st = fbe_value_normalize(type->ir, value);
            const char *files[2] = {bin, golden_row_file(row, ".final.bin")};
            for (int m = 0; m < 2 && st == FBE_OK; m++) {
                if (!files[m])
                    continue;
                size_t want_len = len;
                uint8_t *want = m ? golden_read(files[m], &want_len) : data;
                fbe_buffer out;
                fbe_buffer_init(&out, NULL, NULL);
                fbe_status ws = fbe_serialize(type, m ? FBE_FINAL : FBE_STANDARD, value, &out);
                char msg[512];
                if (ws != FBE_OK)
                    golden_failf(&report, "%s: serialize: %s", files[m], fbe_status_name(ws));
                else if (!golden_same_bytes(want, want_len, out.data, out.size, false, msg,
                                            sizeof msg))
                    golden_failf(&report, "%s: normalized bytes differ: %s", files[m], msg);
                fbe_buffer_free(&out);
                if (m)
                    free(want);
            }
            if (st != FBE_OK)
                golden_failf(&report, "%s: normalize: %s", bin, fbe_status_name(st));
        }
        cases++;
        fbe_arena_free(&arena);
        free(data);
    }
    free(rows);
    golden_env_free(&env);
    print_message("golden cases: %zu, with sets or maps: %zu\n", cases, with_collections);
    assert_int_equal(golden_report_flush(&report, "golden shuffle"), 0);
    assert_true(with_collections > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated_agree),
        cmocka_unit_test(test_golden_shuffle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
