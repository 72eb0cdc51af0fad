/* Keys and value operations (issue 15, docs/keys.md): the fbe_key_* primitives
 * against libstdc++'s std::hash, every key type of tests/value_keys.fbe through
 * both the generated keys.h functions and the reflective fbe_value_*, inheritance
 * (base keys first), [id], structs without keys, NaN and -0.0, deep copy and
 * equality, normalization of sets, maps and hashes, the strict order check and
 * lookup, and property tests over random values of every key test type.
 *
 * Where the expected hashes come from: a small C++17 program, compiled once with
 * g++ 12.2 (Debian 12, libstdc++, x86-64) and not part of the tree, printed
 * std::hash<std::string>, <double>, <float>, <char>, <wchar_t>, <int8_t>,
 * <uint16_t>, <int64_t>, <std::optional<int>> of the values below, and the
 * reference's recipes written out in C++ with those std::hash calls: uuid_t
 * (17, then *31 + std::hash<uint8_t> of each byte; FBE fbe.h), decimal_t
 * (17 * 31 + std::hash<double>; fbe.h) and structs (17, *31 + std::hash of the
 * base, *31 + std::hash of each key field; generator_cpp.cpp GenerateStructHash).
 * Each constant is marked "g++:" with the C++ expression that printed it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "value_gen.h"

#include "fbe/codec.h"
#include "fbe/value.h"
#include "keys.h"

static fbe_schema *schema;

static const fbe_ir_struct *ir(const char *name)
{
    const fbe_ir_struct *s = fbe_schema_find_struct(schema, name);
    assert_non_null(s);
    return s;
}

static int group_setup(void **state)
{
    (void)state;
    schema = fbe_schema_load(FBE_SOURCE_DIR "/tests/value_keys.fbe", NULL, NULL);
    return schema ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    fbe_schema_free(schema);
    return 0;
}

static fbe_string str(const char *s)
{
    return (fbe_string){s, strlen(s)};
}

static int sign(int c)
{
    return (c > 0) - (c < 0);
}

/* ---- primitives against libstdc++ --------------------------------------------------- */

static void test_hash_primitives(void **state)
{
    (void)state;
    fbe_string s;
    s = str("");
    assert_int_equal(fbe_key_hash_string(&s), 0x553e93901e462a6eu); /* g++: std::hash<std::string>()("") */
    s = str("EURUSD");
    assert_int_equal(fbe_key_hash_string(&s), 0xd4f12af553f6b069u); /* g++: ...("EURUSD") */
    s = str("USD");
    assert_int_equal(fbe_key_hash_string(&s), 0x46814f85a99811cbu); /* g++: ...("USD") */
    s = str("12345678"); /* exactly one 8-byte block, no tail */
    assert_int_equal(fbe_key_hash_string(&s), 0x8c5b90a33a04dca5u); /* g++: ...("12345678") */
    s = str("Hello, FBE world!"); /* two blocks and a 1-byte tail */
    assert_int_equal(fbe_key_hash_string(&s), 0xe3d5337f1b7326f3u); /* g++: ...("Hello, FBE world!") */
    s = (fbe_string){"\xe9\0A", 3}; /* a high byte and a NUL */
    assert_int_equal(fbe_key_hash_string(&s), 0x29efd4ef67d56acbu); /* g++: ...(std::string("\xe9\0A", 3)) */

    assert_int_equal(fbe_key_hash_double(1.5), 0x45256bc8bc1f14e7u);  /* g++: std::hash<double>()(1.5) */
    assert_int_equal(fbe_key_hash_double(-2.25), 0xb04736e89a79e98fu); /* g++: std::hash<double>()(-2.25) */
    assert_int_equal(fbe_key_hash_double(-0.0), 0);                    /* g++: std::hash<double>()(-0.0) */
    assert_int_equal(fbe_key_hash_double(0.0), 0);
    assert_int_equal(fbe_key_hash_double(NAN), 0xee94384a2e9ef73au);   /* g++: std::hash<double>()(std::nan("")) */
    assert_int_equal(fbe_key_hash_double(-NAN), 0xee94384a2e9ef73au);  /* every NaN: the canonical one */
    assert_int_equal(fbe_key_hash_float(1.5f), 0x57eace228561efb8u);   /* g++: std::hash<float>()(1.5f) */
    assert_int_equal(fbe_key_hash_float(NAN), 0x36e72af23729fc5eu);    /* g++: std::hash<float>()(std::nanf("")) */
    assert_int_equal(fbe_key_hash_float(-0.0f), 0);

    assert_int_equal(fbe_key_hash_i64((int8_t)0xe9), 0xffffffffffffffe9u); /* g++: std::hash<char>()((char)0xe9) */
    assert_int_equal(fbe_key_hash_i64((int32_t)0xfffffffe), 0xfffffffffffffffeu); /* g++: std::hash<wchar_t>()(-2) */
    assert_int_equal(fbe_key_hash_i64(-1), 0xffffffffffffffffu);        /* g++: std::hash<int8_t>()(-1) */
    assert_int_equal(fbe_key_hash_u64(65535), 0xffffu);                 /* g++: std::hash<uint16_t>()(65535) */
    assert_int_equal(fbe_key_hash_i64(INT64_MIN), 0x8000000000000000u); /* g++: std::hash<int64_t>()(INT64_MIN) */
    assert_int_equal(FBE_KEY_HASH_ABSENT, 0xfffffffffffff2fbu); /* g++: std::hash<std::optional<int>>()(std::nullopt) */

    fbe_uuid u, z = {{0}};
    for (int i = 0; i < 16; i++)
        u.bytes[i] = (uint8_t)i;
    assert_int_equal(fbe_key_hash_uuid(&u), 0x7c1ad5d940102e19u); /* g++: uuid recipe over 00 01 .. 0f */
    assert_int_equal(fbe_key_hash_uuid(&z), 0xab696b355b47be11u); /* g++: uuid recipe over 16 zeros */
    fbe_decimal d = fbe_decimal_from_double(1.25), d0 = {0, 0, 0};
    assert_int_equal(fbe_key_hash_decimal(&d), 0x31281b84a9215701u); /* g++: 17 * 31 + std::hash<double>()(1.25) */
    assert_int_equal(fbe_key_hash_decimal(&d0), 0x20fu);              /* g++: 17 * 31 + std::hash<double>()(0.0) */
}

static void test_cmp_primitives(void **state)
{
    (void)state;
    assert_int_equal(fbe_key_cmp_double(-0.0, 0.0), 0);
    assert_int_equal(fbe_key_cmp_double(NAN, NAN), 0);
    assert_int_equal(fbe_key_cmp_double(NAN, -NAN), 0);
    assert_int_equal(fbe_key_cmp_double(NAN, INFINITY), 1);
    assert_int_equal(fbe_key_cmp_double(-INFINITY, NAN), -1);
    assert_int_equal(fbe_key_cmp_double(1.0, 2.0), -1);
    assert_int_equal(fbe_key_cmp_bytes("ab", 2, "abc", 3), -1); /* a proper prefix first */
    assert_int_equal(fbe_key_cmp_bytes("\xe9", 1, "A", 1), 1);  /* strings: unsigned bytes */
    assert_int_equal(fbe_key_cmp_bytes(NULL, 0, NULL, 0), 0);
    fbe_decimal one = {1, 0, 0}, one00 = {100, 0, 2u << 16}, minus = {1, 0, 1u << 31};
    assert_int_equal(fbe_key_cmp_decimal(&one, &one00), 0); /* as doubles: 1.0 == 1.00 */
    assert_int_equal(fbe_key_cmp_decimal(&minus, &one), -1);
}

/* ---- every scalar key, generated and reflective ------------------------------------ */

/* compare(a, b) through both, which must agree, and equal/hash consistency. */
static int both_compare(const keys_Scalars *a, const keys_Scalars *b)
{
    const fbe_ir_struct *s = ir("keys.Scalars");
    int g = keys_Scalars_compare(a, b), r = fbe_value_compare(s, a, b);
    assert_int_equal(sign(g), sign(r));
    assert_int_equal(sign(keys_Scalars_compare(b, a)), -sign(g));
    assert_int_equal(keys_Scalars_equal(a, b), g == 0);
    assert_int_equal(fbe_value_equal(s, a, b), g == 0);
    assert_int_equal(keys_Scalars_hash(a), fbe_value_hash(s, a));
    if (g == 0)
        assert_int_equal(keys_Scalars_hash(a), keys_Scalars_hash(b));
    return sign(g);
}

static void test_scalar_keys(void **state)
{
    (void)state;
    keys_Scalars a, b;
    keys_Scalars_init(&a);
    keys_Scalars_init(&b);
    a.note = str("ignored");
    assert_int_equal(both_compare(&a, &b), 0); /* `note` is not a key */
    assert_false(fbe_value_equal_all(ir("keys.Scalars"), &a, &b));

#define CASE(field, lo, hi)                          \
    do {                                             \
        keys_Scalars_init(&a);                       \
        keys_Scalars_init(&b);                       \
        a.field = lo;                                \
        b.field = hi;                                \
        assert_int_equal(both_compare(&a, &b), -1);  \
    } while (0)
    CASE(b, false, true);
    CASE(y, 1, 255);
    CASE(c, 0xe9, 'A');       /* char is signed in the reference (x86): 0xe9 < 'A' */
    CASE(w, 0xfffffffeu, 1);  /* wchar_t is signed 32-bit */
    CASE(i8, -128, 127);
    CASE(u8, 127, 128);
    CASE(i16, -1, 0);
    CASE(u16, 1, 65535);
    CASE(i32, INT32_MIN, -1);
    CASE(u32, 0x7fffffffu, 0x80000000u);
    CASE(i64, INT64_MIN, 0);
    CASE(u64, 1, UINT64_MAX);
    CASE(f, -INFINITY, 1.0f);
    CASE(f, 3.0f, NAN);       /* NaN after every number */
    CASE(d, -1e300, -1e-300);
    CASE(d, INFINITY, NAN);
    CASE(t, 1, UINT64_MAX);
    CASE(side, keys_Side_buy, keys_Side_sell);
    CASE(letter, (keys_Letter)0x80, keys_Letter_a); /* char-based enum: signed */
    CASE(wide, keys_Wide_lo, keys_Wide_hi);
    CASE(perm, keys_Perm_x, (keys_Perm)0x8000u);
#undef CASE
    keys_Scalars_init(&a);
    keys_Scalars_init(&b);
    a.m = fbe_decimal_from_double(-1.5);
    b.m = fbe_decimal_from_double(0.25);
    assert_int_equal(both_compare(&a, &b), -1);
    a.m = (fbe_decimal){10, 0, 1u << 16}; /* 1.0 */
    b.m = (fbe_decimal){1, 0, 0};         /* 1 */
    assert_int_equal(both_compare(&a, &b), 0);
    assert_false(fbe_value_equal_all(ir("keys.Scalars"), &a, &b));
    b.m = a.m;
    a.u.bytes[15] = 1;
    b.u.bytes[0] = 1;
    assert_int_equal(both_compare(&a, &b), -1); /* uuid: bytes in order */
    a.u = b.u;
    a.s = str("ab");
    b.s = str("abc");
    assert_int_equal(both_compare(&a, &b), -1);
    a.s = (fbe_string){"\xe9", 1};
    b.s = str("z");
    assert_int_equal(both_compare(&a, &b), 1); /* unsigned bytes */

    /* -0.0 and 0.0, NaN and NaN: equal keys, equal hashes, different values. */
    keys_Scalars_init(&a);
    keys_Scalars_init(&b);
    a.f = -0.0f;
    a.d = -0.0;
    assert_int_equal(both_compare(&a, &b), 0);
    assert_false(fbe_value_equal_all(ir("keys.Scalars"), &a, &b));
    a.d = NAN;
    b.d = -NAN;
    assert_int_equal(both_compare(&a, &b), 0);
    assert_int_equal(keys_Scalars_hash(&a), keys_Scalars_hash(&b));

    /* The hash recipe over every field: h = 17, then *31 + each key's hash. */
    keys_Scalars_init(&a);
    a.c = 0xe9;
    a.s = str("USD");
    a.d = 1.5;
    size_t h = 17;
    h = h * 31 + 0;                      /* b */
    h = h * 31 + 0;                      /* y */
    h = h * 31 + 0xffffffffffffffe9u;    /* c: g++ std::hash<char>()((char)0xe9) */
    for (int i = 0; i < 9; i++)
        h = h * 31 + 0;                  /* w .. u64 */
    h = h * 31 + 0;                      /* f = 0 */
    h = h * 31 + 0x45256bc8bc1f14e7u;    /* d: g++ std::hash<double>()(1.5) */
    h = h * 31 + 0x20fu;                 /* m = 0: g++ 17 * 31 + std::hash<double>()(0.0) */
    h = h * 31 + 0;                      /* t */
    h = h * 31 + 0xab696b355b47be11u;    /* u = uuid0: g++ uuid recipe */
    h = h * 31 + 0x46814f85a99811cbu;    /* s: g++ std::hash<std::string>()("USD") */
    for (int i = 0; i < 4; i++)
        h = h * 31 + 0;                  /* side, letter, wide, perm */
    assert_int_equal(keys_Scalars_hash(&a), h);
    assert_int_equal(fbe_value_hash(ir("keys.Scalars"), &a), h);
}

/* ---- inheritance, [id], no keys ----------------------------------------------------- */

static void test_inheritance(void **state)
{
    (void)state;
    keys_Derived x, y;
    keys_Derived_init(&x);
    keys_Derived_init(&y);
    x.base.name = str("A");
    x.code = 9;
    y.base.name = str("B");
    y.code = 1;
    /* the base's key decides first */
    assert_int_equal(sign(keys_Derived_compare(&x, &y)), -1);
    assert_int_equal(sign(fbe_value_compare(ir("keys.Derived"), &x, &y)), -1);
    y.base.name = str("A");
    y.base.extra = 5; /* not a key */
    assert_int_equal(sign(keys_Derived_compare(&x, &y)), 1);
    assert_int_equal(sign(fbe_value_compare(ir("keys.Derived"), &x, &y)), 1);

    keys_Leaf l;
    keys_Leaf_init(&l);
    l.base.base.name = str("EURUSD");
    l.base.code = -7;
    for (int i = 0; i < 16; i++)
        l.id.bytes[i] = (uint8_t)i;
    l.label = str("not a key");
    /* g++: Base{"EURUSD"}: 17*31 + std::hash<std::string>()("EURUSD") */
    assert_int_equal(keys_Base_hash(&l.base.base), 0xd4f12af553f6b278u);
    assert_int_equal(fbe_value_hash(ir("keys.Base"), &l), 0xd4f12af553f6b278u);
    /* g++: Derived: 17*31 + hash(Base), *31 + std::hash<int32_t>()(-7) */
    assert_int_equal(keys_Derived_hash(&l.base), 0xc93433b52adfdc52u);
    assert_int_equal(fbe_value_hash(ir("keys.Derived"), &l), 0xc93433b52adfdc52u);
    /* g++: Leaf: 17*31 + hash(Derived), *31 + uuid recipe of its [id] */
    assert_int_equal(keys_Leaf_hash(&l), 0xd96d18c9712c1bd8u);
    assert_int_equal(fbe_value_hash(ir("keys.Leaf"), &l), 0xd96d18c9712c1bd8u);
    keys_Leaf m = l;
    m.id.bytes[0] = 0xff; /* the [id] is a key */
    assert_int_equal(sign(keys_Leaf_compare(&l, &m)), -1);
    assert_int_equal(sign(fbe_value_compare(ir("keys.Leaf"), &l, &m)), -1);

    keys_NoKeys n1, n2;
    keys_NoKeys_init(&n1);
    keys_NoKeys_init(&n2);
    n1.a = 1;
    n2.b = str("x");
    assert_true(keys_NoKeys_equal(&n1, &n2));
    assert_true(fbe_value_equal(ir("keys.NoKeys"), &n1, &n2));
    assert_int_equal(keys_NoKeys_hash(&n1), 17); /* g++: the recipe with no keys */
    assert_int_equal(fbe_value_hash(ir("keys.NoKeys"), &n2), 17);

    keys_NoOwnKeys o;
    keys_NoOwnKeys_init(&o);
    o.base.name = str("EURUSD");
    o.c = 3;
    /* g++: 17*31 + hash(Base{"EURUSD"}) */
    assert_int_equal(keys_NoOwnKeys_hash(&o), 0xd4f12af553f6b487u);
    assert_int_equal(fbe_value_hash(ir("keys.NoOwnKeys"), &o), 0xd4f12af553f6b487u);

    /* g++: Base{""}: 17*31 + std::hash<std::string>()("") */
    keys_Derived d;
    keys_Derived_init(&d);
    assert_int_equal(fbe_value_hash(ir("keys.Base"), &d), 17 * 31 + 0x553e93901e462a6eu);
}

/* ---- composite keys ---------------------------------------------------------------------- */

static void test_composite_keys(void **state)
{
    (void)state;
    const fbe_ir_struct *s = ir("keys.Composite");
    keys_Composite a, b;
    keys_Composite_init(&a);
    keys_Composite_init(&b);
    assert_int_equal(keys_Composite_compare(&a, &b), 0);
    b.opt.has_value = true; /* absent first, like std::optional */
    b.opt.value = INT32_MIN;
    assert_int_equal(sign(keys_Composite_compare(&a, &b)), -1);
    assert_int_equal(sign(fbe_value_compare(s, &a, &b)), -1);
    a.opt = b.opt;
    keys_Base base;
    keys_Base_init(&base);
    b.maybe = &base;
    assert_int_equal(sign(keys_Composite_compare(&a, &b)), -1);
    assert_int_equal(sign(fbe_value_compare(s, &a, &b)), -1);
    a.maybe = &base;
    a.pair[1] = -1; /* arrays: element by element */
    assert_int_equal(sign(keys_Composite_compare(&a, &b)), -1);
    assert_int_equal(sign(fbe_value_compare(s, &a, &b)), -1);
    a.pair[1] = 0;
    fbe_string l1[] = {str("x")}, l2[] = {str("x"), str("a")};
    a.list.data = l1;
    a.list.size = 1;
    b.list.data = l2;
    b.list.size = 2; /* a proper prefix first */
    assert_int_equal(sign(keys_Composite_compare(&a, &b)), -1);
    assert_int_equal(sign(fbe_value_compare(s, &a, &b)), -1);
    assert_int_equal(keys_Composite_hash(&a), fbe_value_hash(s, &a));
    assert_int_equal(keys_Composite_hash(&b), fbe_value_hash(s, &b));

    /* optional hashes: libstdc++'s std::hash<std::optional<T>> */
    keys_Composite_init(&a);
    size_t h = 17;
    h = h * 31 + keys_Derived_hash(&a.inner);
    h = h * 31 + 0xfffffffffffff2fbu; /* g++: std::hash<std::optional<int>>()(std::nullopt) */
    h = h * 31 + 0xfffffffffffff2fbu; /* maybe: absent */
    h = h * 31 + (17 * 31 + 0) * 31 + 0; /* pair {0, 0}: 17, *31 + each element */
    h = h * 31 + 17;                  /* list: empty */
    h = h * 31 + 0x553e93901e462a6eu; /* blob: empty bytes hash like "" (g++) */
    h = h * 31 + 17;                  /* reals */
    h = h * 31 + 17;                  /* names */
    assert_int_equal(keys_Composite_hash(&a), h);
    assert_int_equal(fbe_value_hash(s, &a), h);
    a.opt.has_value = true;
    a.opt.value = 5;
    keys_Composite_init(&b);
    b.opt = a.opt;
    assert_int_equal(keys_Composite_hash(&a), keys_Composite_hash(&b));
    /* g++: std::hash<std::optional<int>>()(5) == 5 */
    assert_int_equal(fbe_value_hash_type(fbe_field_by_name(s, "opt")->type, &a.opt), 5);
}

/* ---- copy, equal_all -------------------------------------------------------------------- */

static void test_copy(void **state)
{
    (void)state;
    const fbe_ir_struct *s = ir("keys.Coll");
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    for (uint64_t seed = 1; seed <= 200; seed++) {
        uint64_t rng = seed;
        char *v = fbe_arena_zalloc(&arena, s->host_size);
        char *c = fbe_arena_zalloc(&arena, s->host_size);
        gen_value(s, v, &arena, &rng, 0);
        assert_int_equal(fbe_value_copy(s, c, v, &arena), FBE_OK);
        assert_true(fbe_value_equal_all(s, v, c));
        assert_true(fbe_value_equal(s, v, c));
    }
    /* independent of the original's memory */
    char text[] = "abc";
    keys_Base b, copy;
    keys_Base_init(&b);
    b.name = (fbe_string){text, 3};
    assert_int_equal(fbe_value_copy(ir("keys.Base"), &copy, &b, &arena), FBE_OK);
    text[0] = 'z';
    assert_memory_equal(copy.name.data, "abc", 3);
    assert_false(fbe_value_equal_all(ir("keys.Base"), &b, &copy));
    fbe_arena_free(&arena);
}

/* ---- normalize, strict order, find ------------------------------------------------------- */

static void test_normalize(void **state)
{
    (void)state;
    const fbe_ir_struct *s = ir("keys.Coll");
    keys_Coll v, inner;
    keys_Coll_init(&v);
    keys_Coll_init(&inner);
    int32_t ints[] = {5, -1, 5, 3, -1};
    v.ints.data = ints;
    v.ints.size = 5;
    fbe_string strs[] = {str("b"), str("\xe9"), str("a"), str("b")};
    v.strs.data = strs;
    v.strs.size = 4;
    uint8_t chars[] = {'A', 0xe9, 'a'};
    v.chars.data = chars;
    v.chars.size = 3;
    double reals[] = {NAN, 1.0, -0.0, 0.0, -INFINITY};
    v.reals.data = reals;
    v.reals.size = 5;
    /* maps: the first of two equal keys wins (std::map::emplace) */
    struct { int32_t key; fbe_string value; } by_id[] = {{2, str("two")}, {1, str("one")}, {2, str("again")}};
    memcpy(&v.by_id, &(fbe_seq){by_id, 3}, sizeof v.by_id);
    struct { fbe_string key; int32_t value; } hashed[] = {{str("x"), 1}, {str("y"), 2}, {str("x"), 3}};
    memcpy(&v.hashed, &(fbe_seq){hashed, 3}, sizeof v.hashed);
    /* items ordered by Derived's keys: name, then code */
    keys_Derived items[3];
    for (int i = 0; i < 3; i++)
        keys_Derived_init(&items[i]);
    items[0].base.name = str("b"), items[0].code = 1;
    items[1].base.name = str("a"), items[1].code = 2;
    items[2].base.name = str("a"), items[2].code = 1, items[2].payload = 7;
    v.items.data = items;
    v.items.size = 3;
    /* a nested value, reached through an optional struct */
    int32_t inner_ints[] = {9, 8};
    inner.ints.data = inner_ints;
    inner.ints.size = 2;
    v.next = &inner;

    const fbe_ir_field *where = NULL;
    assert_int_equal(fbe_value_check_order(s, &v, &where), FBE_UNORDERED);
    assert_string_equal(where->name, "ints");

    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    keys_Coll n;
    assert_int_equal(fbe_value_normalized_copy(s, &n, &v, &arena), FBE_OK);
    assert_int_equal(v.ints.size, 5); /* the original is untouched */
    assert_int_equal(ints[0], 5);

    assert_int_equal(n.ints.size, 3);
    assert_int_equal(n.ints.data[0], -1);
    assert_int_equal(n.ints.data[1], 3);
    assert_int_equal(n.ints.data[2], 5);
    assert_int_equal(n.strs.size, 3);
    assert_memory_equal(n.strs.data[0].data, "a", 1);
    assert_memory_equal(n.strs.data[1].data, "b", 1);
    assert_memory_equal(n.strs.data[2].data, "\xe9", 1);
    assert_int_equal(n.chars.size, 3); /* char: signed, 0xe9 first */
    assert_int_equal(n.chars.data[0], 0xe9);
    assert_int_equal(n.chars.data[1], 'A');
    assert_int_equal(n.chars.data[2], 'a');
    assert_int_equal(n.reals.size, 4); /* -0.0 and 0.0 are one key: the first (-0.0) stays */
    assert_true(n.reals.data[0] == -INFINITY);
    assert_true(n.reals.data[1] == 0.0 && signbit(n.reals.data[1]));
    assert_true(n.reals.data[2] == 1.0);
    assert_true(isnan(n.reals.data[3]));
    assert_int_equal(n.by_id.size, 2);
    assert_int_equal(n.by_id.data[0].key, 1);
    assert_int_equal(n.by_id.data[1].key, 2);
    assert_memory_equal(n.by_id.data[1].value.data, "two", 3);
    assert_int_equal(n.hashed.size, 2); /* hash: order kept, later duplicate dropped */
    assert_memory_equal(n.hashed.data[0].key.data, "x", 1);
    assert_int_equal(n.hashed.data[0].value, 1);
    assert_memory_equal(n.hashed.data[1].key.data, "y", 1);
    assert_int_equal(n.items.size, 3);
    assert_int_equal(n.items.data[0].code, 1);
    assert_true(n.items.data[0].payload == 7);
    assert_int_equal(n.items.data[1].code, 2);
    assert_memory_equal(n.items.data[2].base.name.data, "b", 1);
    assert_int_equal(n.next->ints.data[0], 8); /* nested */
    assert_int_equal(fbe_value_check_order(s, &n, &where), FBE_OK);
    assert_null(where);

    /* lookup by key */
    const fbe_ir_field *f = fbe_field_by_name(s, "by_id");
    int32_t key = 2;
    const struct { int32_t key; fbe_string value; } *e = fbe_value_find(f->type, &n.by_id, &key);
    assert_non_null(e);
    assert_memory_equal(e->value.data, "two", 3);
    key = 3;
    assert_null(fbe_value_find(f->type, &n.by_id, &key));
    f = fbe_field_by_name(s, "strs");
    fbe_string probe = str("b");
    assert_ptr_equal(fbe_value_find(f->type, &n.strs, &probe), &n.strs.data[1]);
    keys_Derived dk;
    keys_Derived_init(&dk);
    dk.base.name = str("a");
    dk.code = 2;
    assert_ptr_equal(fbe_value_find(fbe_field_by_name(s, "items")->type, &n.items, &dk),
                     &n.items.data[1]);
    assert_null(fbe_value_find(fbe_field_by_name(s, "hashed")->type, &n.hashed, &probe));

    /* a duplicate alone is also refused by the strict check */
    int32_t dup[] = {1, 1};
    keys_Coll d;
    keys_Coll_init(&d);
    d.ints.data = dup;
    d.ints.size = 2;
    assert_int_equal(fbe_value_check_order(s, &d, NULL), FBE_UNORDERED);
    assert_string_equal(fbe_status_name(FBE_UNORDERED), "UNORDERED");
    fbe_arena_free(&arena);
}

/* A self-referencing value: bounded, not a crash. */
static void test_cycle(void **state)
{
    (void)state;
    const fbe_ir_struct *s = ir("keys.Coll");
    keys_Coll v;
    keys_Coll_init(&v);
    v.next = &v;
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    keys_Coll c;
    assert_int_equal(fbe_value_copy(s, &c, &v, &arena), FBE_TOO_DEEP);
    assert_int_equal(fbe_value_normalize(s, &v), FBE_TOO_DEEP);
    assert_int_equal(fbe_value_check_order(s, &v, NULL), FBE_TOO_DEEP);
    assert_true(fbe_value_equal_all(s, &v, &v));
    fbe_arena_free(&arena);
}

/* ---- properties over random values ------------------------------------------------------- */

#define PROP_COUNT 300

static void check_properties(const fbe_ir_struct *s)
{
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    void *v[PROP_COUNT];
    uint64_t rng = fnv1a(s->full_name);
    for (size_t i = 0; i < PROP_COUNT; i++) {
        v[i] = fbe_arena_zalloc(&arena, s->host_size);
        assert_non_null(v[i]);
        /* every third value is a deep copy of the one before: equal pairs */
        gen_value(s, v[i], &arena, &rng, 0);
        if (i % 3 == 2)
            assert_int_equal(fbe_value_copy(s, v[i], v[i - 1], &arena), FBE_OK);
    }
    for (size_t i = 0; i < PROP_COUNT; i++) {
        assert_int_equal(fbe_value_compare(s, v[i], v[i]), 0);
        for (size_t j = 0; j < PROP_COUNT; j += 7) {
            int c = sign(fbe_value_compare(s, v[i], v[j]));
            assert_int_equal(sign(fbe_value_compare(s, v[j], v[i])), -c);
            assert_int_equal(fbe_value_equal(s, v[i], v[j]), c == 0);
            if (c == 0)
                assert_int_equal(fbe_value_hash(s, v[i]), fbe_value_hash(s, v[j]));
            if (fbe_value_equal_all(s, v[i], v[j]))
                assert_int_equal(c, 0);
            /* transitivity through a third value */
            size_t k = (i * 31 + j) % PROP_COUNT;
            int d = sign(fbe_value_compare(s, v[j], v[k]));
            if (c == d && c != 0)
                assert_int_equal(sign(fbe_value_compare(s, v[i], v[k])), c);
            if (c == 0)
                assert_int_equal(sign(fbe_value_compare(s, v[i], v[k])), d);
        }
        /* normalization: ordered afterwards, idempotent */
        void *n = fbe_arena_zalloc(&arena, s->host_size);
        void *m = fbe_arena_zalloc(&arena, s->host_size);
        assert_int_equal(fbe_value_normalized_copy(s, n, v[i], &arena), FBE_OK);
        assert_int_equal(fbe_value_check_order(s, n, NULL), FBE_OK);
        assert_int_equal(fbe_value_normalized_copy(s, m, n, &arena), FBE_OK);
        assert_true(fbe_value_equal_all(s, n, m));
    }
    fbe_arena_free(&arena);
}

static void test_properties(void **state)
{
    (void)state;
    const fbe_ir_package *pkg = fbe_schema_root(schema);
    for (size_t i = 0; i < pkg->struct_count; i++)
        check_properties(pkg->structs[i]);
    const char *golden[] = {"enums", "proto", "protoex", "test"};
    for (size_t g = 0; g < 4; g++) {
        fbe_schema *gs = load_golden(golden[g]);
        const fbe_ir_package *p = fbe_schema_root(gs);
        for (size_t i = 0; i < p->struct_count; i++)
            check_properties(p->structs[i]);
        fbe_schema_free(gs);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_primitives),
        cmocka_unit_test(test_cmp_primitives),
        cmocka_unit_test(test_scalar_keys),
        cmocka_unit_test(test_inheritance),
        cmocka_unit_test(test_composite_keys),
        cmocka_unit_test(test_copy),
        cmocka_unit_test(test_normalize),
        cmocka_unit_test(test_cycle),
        cmocka_unit_test(test_properties),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
