/* fbe_print: the reference's text form (operator<<, wire-format.md 9).
 *
 * 1. The spec's examples (9, 11.4, 11.5), built by hand through the IR.
 * 2. Edge cases typed from the reference generator's rules (floats, integer
 *    extremes, char/wchar bytes, enum aliases and unknowns, flags, [hidden],
 *    derived structs, buffer errors).
 * 3. THE ORACLE: every golden text. Each `.bin` is decoded with the interpreter's
 *    standard reader and printed; the result must equal the `.txt` byte for byte
 *    (cases/, versioning/ .txt and .src.txt, and every line of the standard
 *    protocol streams). The final-model files are checked the same way.
 *
 * Golden README quirk 2: the reference's standard reader turns an absent optional
 * into its schema default; fbe-c keeps it absent. The `.txt` is the text of the
 * value as written, so our standard round trip must give the `.txt`, and for the
 * two flagged `all_null` cases it must differ from `.std_readback.txt`. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbe/codec.h"
#include "fbe/schema.h"

/* ---- helpers ------------------------------------------------------------------ */

static void *fptr(void *value, const fbe_ir_struct *s, const char *name)
{
    const fbe_ir_field *f = fbe_field_by_name(s, name);
    if (!f)
        fail_msg("no field %s in %s", name, s->full_name);
    return fbe_field_ptr(value, f);
}

static const fbe_ir_type *ftype(const fbe_ir_struct *s, const char *name)
{
    const fbe_ir_field *f = fbe_field_by_name(s, name);
    if (!f)
        fail_msg("no field %s in %s", name, s->full_name);
    return f->type;
}

static const fbe_ir_struct *find_struct(const fbe_schema *schema, const char *name)
{
    const fbe_ir_struct *s = fbe_schema_find_struct(schema, name);
    if (!s)
        fail_msg("no struct %s", name);
    return s;
}

static uint64_t enum_value(const fbe_ir_enum *e, const char *name)
{
    for (size_t i = 0; i < e->value_count; i++)
        if (strcmp(e->values[i].name, name) == 0)
            return e->values[i].value;
    fail_msg("no value %s in %s", name, e->full_name);
    return 0;
}

static void set_str(void *p, const char *s)
{
    fbe_string v = {s, strlen(s)};
    memcpy(p, &v, sizeof v);
}

static void set_i16(void *p, int16_t v) { memcpy(p, &v, sizeof v); }
static void set_i32(void *p, int32_t v) { memcpy(p, &v, sizeof v); }
static void set_u8(void *p, uint8_t v) { memcpy(p, &v, sizeof v); }
static void set_u16(void *p, uint16_t v) { memcpy(p, &v, sizeof v); }
static void set_u32(void *p, uint32_t v) { memcpy(p, &v, sizeof v); }
static void set_u64(void *p, uint64_t v) { memcpy(p, &v, sizeof v); }
static void set_f32(void *p, float v) { memcpy(p, &v, sizeof v); }
static void set_f64(void *p, double v) { memcpy(p, &v, sizeof v); }
static void set_bool(void *p, bool v) { memcpy(p, &v, sizeof v); }

static void set_seq(void *p, void *data, size_t size)
{
    fbe_seq s = {data, size};
    memcpy(p, &s, sizeof s);
}

/* A fresh host value of s, with the schema defaults, from the arena. */
static void *new_value(fbe_arena *a, const fbe_ir_struct *s)
{
    void *v = fbe_arena_zalloc(a, s->host_size);
    assert_non_null(v);
    fbe_init(s, v);
    return v;
}

/* Shows where two texts first differ (texts may hold NUL bytes). */
static void show_diff(const char *what, const uint8_t *got, size_t got_len,
                      const uint8_t *want, size_t want_len)
{
    size_t i = 0;
    while (i < got_len && i < want_len && got[i] == want[i])
        i++;
    size_t from = i > 60 ? i - 60 : 0;
    size_t got_show = got_len > from ? got_len - from : 0;
    size_t want_show = want_len > from ? want_len - from : 0;
    if (got_show > 160)
        got_show = 160;
    if (want_show > 160)
        want_show = 160;
    fprintf(stderr, "MISMATCH %s: lengths got %zu want %zu, first difference at byte %zu\n",
            what, got_len, want_len, i);
    fprintf(stderr, "  got : ...%.*s\n", (int)got_show, (const char *)got + from);
    fprintf(stderr, "  want: ...%.*s\n", (int)want_show, (const char *)want + from);
}

static void expect_text_n(const fbe_ir_struct *s, const void *value, const char *want,
                          size_t want_len)
{
    fbe_buffer out;
    fbe_buffer_init(&out, NULL, NULL);
    fbe_status st = fbe_print(s, value, &out);
    assert_int_equal(st, FBE_OK);
    if (out.size != want_len || memcmp(out.data, want, want_len) != 0) {
        show_diff(s->full_name, out.data, out.size, (const uint8_t *)want, want_len);
        fbe_buffer_free(&out);
        fail_msg("text of %s differs", s->full_name);
    }
    fbe_buffer_free(&out);
}

static void expect_text(const fbe_ir_struct *s, const void *value, const char *want)
{
    expect_text_n(s, value, want, strlen(want));
}

/* ---- 1. the spec's examples ------------------------------------------------------ */

static void spec_order(void **state)
{
    (void)state;
    fbe_schema *schema = load_golden("proto");
    const fbe_ir_struct *order = find_struct(schema, "proto.Order");
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);
    void *o = new_value(&a, order);
    set_i32(fptr(o, order, "id"), 1);
    set_str(fptr(o, order, "symbol"), "EURUSD");
    set_u8(fptr(o, order, "side"), (uint8_t)enum_value(ftype(order, "side")->enum_type, "sell"));
    set_u8(fptr(o, order, "type"), (uint8_t)enum_value(ftype(order, "type")->enum_type, "limit"));
    set_f64(fptr(o, order, "price"), 1.23456);
    set_f64(fptr(o, order, "volume"), 1000.0);
    expect_text(order, o, "Order(id=1,symbol=\"EURUSD\",side=sell,type=limit,price=1.23456,volume=1000)");
    fbe_arena_free(&a);
    fbe_schema_free(schema);
}

static void spec_account(void **state)
{
    (void)state;
    fbe_schema *schema = load_golden("proto");
    const fbe_ir_struct *account = find_struct(schema, "proto.Account");
    const fbe_ir_struct *balance = find_struct(schema, "proto.Balance");
    const fbe_ir_struct *order = find_struct(schema, "proto.Order");
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);

    /* 11.2 */
    void *acc = new_value(&a, account);
    set_i32(fptr(acc, account, "id"), 7);
    set_str(fptr(acc, account, "name"), "Jo");
    set_u8(fptr(acc, account, "state"), 6);
    void *wallet = fptr(acc, account, "wallet");
    set_str(fptr(wallet, balance, "currency"), "USD");
    set_f64(fptr(wallet, balance, "amount"), 100.5);
    void *asset = new_value(&a, balance);
    set_str(fptr(asset, balance, "currency"), "EUR");
    set_f64(fptr(asset, balance, "amount"), 2.0);
    memcpy(fptr(acc, account, "asset"), &asset, sizeof asset);
    assert_int_equal(ftype(account, "orders")->elem->host_size, order->host_size);
    void *o = new_value(&a, order);
    set_i32(fptr(o, order, "id"), 2);
    set_str(fptr(o, order, "symbol"), "X");
    set_u8(fptr(o, order, "type"), (uint8_t)enum_value(ftype(order, "type")->enum_type, "stop"));
    set_f64(fptr(o, order, "price"), 1.5);
    set_f64(fptr(o, order, "volume"), 10.0);
    set_seq(fptr(acc, account, "orders"), o, 1);
    expect_text(account, acc,
                "Account(id=7,name=\"Jo\",state=initialized|calculated|good,"
                "wallet=Balance(currency=\"USD\",amount=100.5),"
                "asset=Balance(currency=\"EUR\",amount=2),"
                "orders=[1][Order(id=2,symbol=\"X\",side=buy,type=stop,price=1.5,volume=10)])");

    /* 11.3: the schema default state 11 */
    void *def = new_value(&a, account);
    set_i32(fptr(def, account, "id"), 1);
    expect_text(account, def,
                "Account(id=1,name=\"\",state=invalid|initialized|broken|bad,"
                "wallet=Balance(currency=\"\",amount=0),asset=null,orders=[0][])");
    fbe_arena_free(&a);
    fbe_schema_free(schema);
}

static void spec_derived(void **state)
{
    (void)state;
    fbe_schema *schema = load_text_ok(ex_schema);
    const fbe_ir_struct *derived = find_struct(schema, "ex.Derived");
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);
    void *d = new_value(&a, derived);
    expect_text(derived, d, "Derived(Base(a=7,s=\"\"),b=false,oi=null)");
    set_i16(fptr(d, derived, "a"), 1);
    set_str(fptr(d, derived, "s"), "hi");
    set_bool(fptr(d, derived, "b"), true);
    const fbe_ir_type *oi = ftype(derived, "oi");
    char *oip = fptr(d, derived, "oi");
    set_bool(oip, true);
    set_i32(oip + oi->host_value_offset, 258);
    expect_text(derived, d, "Derived(Base(a=1,s=\"hi\"),b=true,oi=258)");

    const fbe_ir_struct *empty = find_struct(schema, "ex.Empty");
    expect_text(empty, new_value(&a, empty), "Empty()");
    fbe_arena_free(&a);
    fbe_schema_free(schema);
}

static void spec_coll(void **state)
{
    (void)state;
    fbe_schema *schema = load_text_ok(ex_schema);
    const fbe_ir_struct *coll = find_struct(schema, "ex.Coll");
    const fbe_ir_struct *base = find_struct(schema, "ex.Base");
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);
    void *c = new_value(&a, coll);

    uint8_t *arr = fptr(c, coll, "arr");
    arr[0] = 1, arr[1] = 2, arr[2] = 3;

    static int16_t vec[] = {-1, 2};
    set_seq(fptr(c, coll, "vec"), vec, 2);

    static fbe_string lst[] = {{"a", 1}, {"bc", 2}};
    set_seq(fptr(c, coll, "lst"), lst, 2);

    static int32_t st[] = {1, 2, 3};
    set_seq(fptr(c, coll, "st"), st, 3);

    const fbe_ir_type *mp = ftype(coll, "mp");
    char *mpe = fbe_arena_zalloc(&a, 2 * mp->host_entry_size);
    set_i32(mpe, 1);
    set_str(mpe + mp->host_entry_value_offset, "one");
    set_i32(mpe + mp->host_entry_size, 2);
    set_str(mpe + mp->host_entry_size + mp->host_entry_value_offset, "two");
    set_seq(fptr(c, coll, "mp"), mpe, 2);

    const fbe_ir_type *hs = ftype(coll, "hs");
    char *hse = fbe_arena_zalloc(&a, hs->host_entry_size);
    set_str(hse, "k");
    set_i32(hse + hs->host_entry_value_offset, 9);
    set_seq(fptr(c, coll, "hs"), hse, 1);

    static const uint8_t by[] = {1, 2, 0xff};
    fbe_bytes b = {by, 3};
    memcpy(fptr(c, coll, "by"), &b, sizeof b);

    const fbe_ir_type *os = ftype(coll, "os");
    char *osp = fptr(c, coll, "os");
    set_bool(osp, true);
    set_str(osp + os->host_value_offset, "o");

    void *ob = new_value(&a, base);
    set_str(fptr(ob, base, "s"), "q");
    memcpy(fptr(c, coll, "ob"), &ob, sizeof ob);

    void *vb = new_value(&a, base);
    set_i16(fptr(vb, base, "a"), 3);
    set_seq(fptr(c, coll, "vb"), vb, 1);

    fbe_decimal d = fbe_decimal_from_double(-12.5);
    memcpy(fptr(c, coll, "d"), &d, sizeof d);
    fbe_uuid u;
    assert_true(fbe_uuid_parse("123e4567-e89b-12d3-a456-426655440000", 36, &u));
    memcpy(fptr(c, coll, "u"), &u, sizeof u);
    set_u64(fptr(c, coll, "t"), 1000000000);

    expect_text(coll, c,
                "Coll(arr=[3][1,2,3],vec=[2][-1,2],lst=[2]<\"a\",\"bc\">,st=[3]{1,2,3},"
                "mp=[2]<{1->\"one\",2->\"two\"}>,hs=[1][{\"k\"->9}],by=bytes[3],os=\"o\","
                "ob=Base(a=7,s=\"q\"),vb=[1][Base(a=3,s=\"\")],c=blue,p=r|w|rw,d=-12.500000,"
                "u=\"123e4567-e89b-12d3-a456-426655440000\",t=1000000000,ch='A',wc='D',f=1.5)");
    fbe_arena_free(&a);
    fbe_schema_free(schema);
}

/* ---- 2. edge cases ------------------------------------------------------------------- */

static const char edge_schema[] =
    "package edge\n"
    "enum E : int8 { neg = -1; one = 1; alias = 1; big = 127; }\n"
    "enum U64 : uint64 { top = 0xFFFFFFFFFFFFFFFF; zero = 0; }\n"
    "enum C : char { x = 'x'; hi = 0xE9; }\n"
    "enum Nothing {}\n"
    "flags F : uint64 { none = 0; lo = 1; hi = 0x8000000000000000; both = lo | hi; two = 2; }\n"
    "flags NoFlags {}\n"
    "struct Void {}\n"
    "struct D0 : Void {}\n"
    "struct D1 : Void { int8 x = -3; }\n"
    "struct D2 : D1 { }\n"
    "struct Nums { float f; double d; }\n"
    "struct Ints { int8 i8; int16 i16; int32 i32; int64 i64; uint8 u8; byte b; uint16 u16;\n"
    "  uint32 u32; uint64 u64; timestamp ts; }\n"
    "struct Chars { char c; wchar w; char? co; wchar? wo; string s; }\n"
    "struct Enums { E e; E? eo; U64 u; C c; Nothing n; F f; F? fo; NoFlags nf; }\n"
    "struct Secret { int32 a = 1; [hidden] string pw = \"x\"; [hidden] Secret[] more; int32 b = 2; }\n"
    "struct SecretChild : Secret { [hidden] bool c; }\n"
    "struct Keys { wchar<char> m; E{C} h; double?[] ov; D1?() ol; decimal!  ds; uuid[2] ua;\n"
    "  bool?<int64> mo; }\n"
    "struct Node { int32 v; Node? next; }\n";

static void edge_floats(void **state)
{
    (void)state;
    fbe_schema *schema = load_text_ok(edge_schema);
    const fbe_ir_struct *nums = find_struct(schema, "edge.Nums");
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);
    void *v = new_value(&a, nums);
    float *f = fptr(v, nums, "f");
    double *d = fptr(v, nums, "d");
    static const struct {
        float f;
        double d;
        const char *text;
    } cases[] = {
        {0.0f, 0.0, "Nums(f=0,d=0)"},
        {-0.0f, -0.0, "Nums(f=-0,d=-0)"},
        {123.456f, -123.456e123, "Nums(f=123.456,d=-1.23456e+125)"},
        {1.5f, 1000.0, "Nums(f=1.5,d=1000)"},
        {1e20f, 1e20, "Nums(f=1e+20,d=1e+20)"},
        {1234567.0f, 1234567.0, "Nums(f=1.23457e+06,d=1.23457e+06)"},
        {123456.0f, 999999.5, "Nums(f=123456,d=1e+06)"},
        {0.0001f, 0.00001, "Nums(f=0.0001,d=1e-05)"},
        {3.4028234663852886e38f, 4.9406564584124654e-324, "Nums(f=3.40282e+38,d=4.94066e-324)"},
        {1.17549435e-38f, 2.2250738585072014e-308, "Nums(f=1.17549e-38,d=2.22507e-308)"},
        {0.1f, 0.1, "Nums(f=0.1,d=0.1)"},
        {16777217.0f, 9007199254740993.0, "Nums(f=1.67772e+07,d=9.0072e+15)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        set_f32(f, cases[i].f);
        set_f64(d, cases[i].d);
        expect_text(nums, v, cases[i].text);
    }
    /* glibc's spellings, which libstdc++'s ostream uses unchanged. */
    set_f32(f, INFINITY);
    set_f64(d, -INFINITY);
    expect_text(nums, v, "Nums(f=inf,d=-inf)");
    float qnan = NAN;
    double neg_nan = -(double)NAN;
    assert_false(signbit(qnan));
    assert_true(signbit(neg_nan));
    set_f32(f, qnan);
    set_f64(d, neg_nan);
    expect_text(nums, v, "Nums(f=nan,d=-nan)");
    set_f32(f, -qnan);
    set_f64(d, -neg_nan);
    expect_text(nums, v, "Nums(f=-nan,d=nan)");
    fbe_arena_free(&a);
    fbe_schema_free(schema);
}

static void edge_integers(void **state)
{
    (void)state;
    fbe_schema *schema = load_text_ok(edge_schema);
    const fbe_ir_struct *ints = find_struct(schema, "edge.Ints");
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);
    void *v = new_value(&a, ints);
    expect_text(ints, v, "Ints(i8=0,i16=0,i32=0,i64=0,u8=0,b=0,u16=0,u32=0,u64=0,ts=0)");
    int8_t i8 = INT8_MIN;
    int16_t i16 = INT16_MIN;
    int32_t i32 = INT32_MIN;
    int64_t i64 = INT64_MIN;
    memcpy(fptr(v, ints, "i8"), &i8, 1);
    memcpy(fptr(v, ints, "i16"), &i16, 2);
    memcpy(fptr(v, ints, "i32"), &i32, 4);
    memcpy(fptr(v, ints, "i64"), &i64, 8);
    set_u8(fptr(v, ints, "u8"), 255);
    set_u8(fptr(v, ints, "b"), 200);
    set_u16(fptr(v, ints, "u16"), 65535);
    set_u32(fptr(v, ints, "u32"), UINT32_MAX);
    set_u64(fptr(v, ints, "u64"), UINT64_MAX);
    set_u64(fptr(v, ints, "ts"), UINT64_MAX);
    expect_text(ints, v,
                "Ints(i8=-128,i16=-32768,i32=-2147483648,i64=-9223372036854775808,u8=255,"
                "b=200,u16=65535,u32=4294967295,u64=18446744073709551615,"
                "ts=18446744073709551615)");
    i8 = -1, i16 = 32767, i32 = -1, i64 = INT64_MAX;
    memcpy(fptr(v, ints, "i8"), &i8, 1);
    memcpy(fptr(v, ints, "i16"), &i16, 2);
    memcpy(fptr(v, ints, "i32"), &i32, 4);
    memcpy(fptr(v, ints, "i64"), &i64, 8);
    expect_text(ints, v,
                "Ints(i8=-1,i16=32767,i32=-1,i64=9223372036854775807,u8=255,"
                "b=200,u16=65535,u32=4294967295,u64=18446744073709551615,"
                "ts=18446744073709551615)");
    fbe_arena_free(&a);
    fbe_schema_free(schema);
}

static void edge_chars(void **state)
{
    (void)state;
    fbe_schema *schema = load_text_ok(edge_schema);
    const fbe_ir_struct *chars = find_struct(schema, "edge.Chars");
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);
    void *v = new_value(&a, chars);
    /* Defaults: NUL bytes inside the text. */
    static const char def[] = "Chars(c='\0',w='\0',co=null,wo=null,s=\"\")";
    expect_text_n(chars, v, def, sizeof def - 1);

    set_u8(fptr(v, chars, "c"), 0xE9);    /* raw byte, no escaping, no sign */
    set_u32(fptr(v, chars, "w"), 0x0444); /* (char)0x444 = 'D' */
    const fbe_ir_type *co = ftype(chars, "co");
    char *cop = fptr(v, chars, "co");
    set_bool(cop, true);
    set_u8(cop + co->host_value_offset, '\'');
    const fbe_ir_type *wo = ftype(chars, "wo");
    char *wop = fptr(v, chars, "wo");
    set_bool(wop, true);
    set_u32(wop + wo->host_value_offset, 0x1F600); /* low byte 0x00 */
    /* Strings print raw: quotes, backslashes, control bytes and NUL included. */
    static const char raw[] = "a\"b\\c\n\t\0\xff";
    fbe_string s = {raw, sizeof raw - 1};
    memcpy(fptr(v, chars, "s"), &s, sizeof s);
    static const char want[] = "Chars(c='\xe9',w='D',co=''',wo='\0',s=\"a\"b\\c\n\t\0\xff\")";
    expect_text_n(chars, v, want, sizeof want - 1);
    fbe_arena_free(&a);
    fbe_schema_free(schema);
}

static void edge_enums_flags(void **state)
{
    (void)state;
    fbe_schema *schema = load_text_ok(edge_schema);
    const fbe_ir_struct *en = find_struct(schema, "edge.Enums");
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);
    void *v = new_value(&a, en);
    /* e=0: no name; u=0 is the second name; c=0 unknown; Nothing always <empty>;
     * flags 0 print nothing, names with value 0 never print. */
    expect_text(en, v, "Enums(e=<unknown>,eo=null,u=zero,c=<unknown>,n=<empty>,f=,fo=null,nf=)");

    set_u8(fptr(v, en, "e"), 1); /* `one` and its alias: the first declared wins */
    const fbe_ir_type *eo = ftype(en, "eo");
    char *eop = fptr(v, en, "eo");
    set_bool(eop, true);
    set_u8(eop + eo->host_value_offset, 0xFF); /* -1 */
    set_u64(fptr(v, en, "u"), UINT64_MAX);
    set_u8(fptr(v, en, "c"), 0xE9);
    set_i32(fptr(v, en, "n"), 5);
    set_u64(fptr(v, en, "f"), UINT64_C(0x8000000000000001)); /* lo, hi and both */
    const fbe_ir_type *fo = ftype(en, "fo");
    char *fop = fptr(v, en, "fo");
    set_bool(fop, true);
    set_u64(fop + fo->host_value_offset, 0x6); /* two, and the unknown bit 4 is dropped */
    set_i32(fptr(v, en, "nf"), 7);
    expect_text(en, v, "Enums(e=one,eo=neg,u=top,c=hi,n=<empty>,f=lo|hi|both,fo=two,nf=)");

    set_u8(fptr(v, en, "e"), 127);
    set_u8(fptr(v, en, "c"), 'x');
    set_u64(fptr(v, en, "f"), 3); /* lo and two, but not both (hi missing) */
    set_u64(fop + fo->host_value_offset, 0); /* present but empty */
    expect_text(en, v, "Enums(e=big,eo=neg,u=top,c=x,n=<empty>,f=lo|two,fo=,nf=)");
    fbe_arena_free(&a);
    fbe_schema_free(schema);
}

static void edge_hidden_and_inheritance(void **state)
{
    (void)state;
    fbe_schema *schema = load_text_ok(edge_schema);
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);
    const fbe_ir_struct *secret = find_struct(schema, "edge.Secret");
    expect_text(secret, new_value(&a, secret), "Secret(a=1,pw=***,more=***,b=2)");
    const fbe_ir_struct *child = find_struct(schema, "edge.SecretChild");
    expect_text(child, new_value(&a, child), "SecretChild(Secret(a=1,pw=***,more=***,b=2),c=***)");

    const fbe_ir_struct *d0 = find_struct(schema, "edge.D0");
    expect_text(d0, new_value(&a, d0), "D0(Void())");
    const fbe_ir_struct *d1 = find_struct(schema, "edge.D1");
    expect_text(d1, new_value(&a, d1), "D1(Void(),x=-3)");
    const fbe_ir_struct *d2 = find_struct(schema, "edge.D2");
    expect_text(d2, new_value(&a, d2), "D2(D1(Void(),x=-3))");
    fbe_arena_free(&a);
    fbe_schema_free(schema);
}

static void edge_collections(void **state)
{
    (void)state;
    fbe_schema *schema = load_text_ok(edge_schema);
    const fbe_ir_struct *keys = find_struct(schema, "edge.Keys");
    const fbe_ir_struct *d1 = find_struct(schema, "edge.D1");
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);
    void *v = new_value(&a, keys);
    expect_text(keys, v,
                "Keys(m=[0]<{}>,h=[0][{}],ov=[0][],ol=[0]<>,ds=[0]{},"
                "ua=[2][\"00000000-0000-0000-0000-000000000000\","
                "\"00000000-0000-0000-0000-000000000000\"],mo=[0]<{}>)");

    const fbe_ir_type *m = ftype(keys, "m");
    char *me = fbe_arena_zalloc(&a, 2 * m->host_entry_size);
    set_u8(me, 'k');
    set_u32(me + m->host_entry_value_offset, 0x141); /* 'A' */
    set_u8(me + m->host_entry_size, 0);
    set_u32(me + m->host_entry_size + m->host_entry_value_offset, '?');
    set_seq(fptr(v, keys, "m"), me, 2);

    const fbe_ir_type *h = ftype(keys, "h");
    char *he = fbe_arena_zalloc(&a, h->host_entry_size);
    set_u8(he, 0xE9);
    set_u8(he + h->host_entry_value_offset, 0xFF);
    set_seq(fptr(v, keys, "h"), he, 1);

    const fbe_ir_type *ov = ftype(keys, "ov");
    char *ove = fbe_arena_zalloc(&a, 3 * ov->elem->host_size);
    set_bool(ove, true);
    set_f64(ove + ov->elem->host_value_offset, 2.5);
    set_bool(ove + 2 * ov->elem->host_size, true);
    set_f64(ove + 2 * ov->elem->host_size + ov->elem->host_value_offset, -0.0);
    set_seq(fptr(v, keys, "ov"), ove, 3);

    const fbe_ir_type *ol = ftype(keys, "ol");
    assert_int_equal(ol->elem->host_size, sizeof(void *));
    void **ole = fbe_arena_zalloc(&a, 2 * sizeof(void *));
    ole[1] = new_value(&a, d1);
    set_seq(fptr(v, keys, "ol"), ole, 2);

    fbe_decimal *ds = fbe_arena_zalloc(&a, 2 * sizeof(fbe_decimal));
    ds[0] = fbe_decimal_from_double(1e25);
    ds[1] = fbe_decimal_from_double(-0.000001);
    set_seq(fptr(v, keys, "ds"), ds, 2);

    fbe_uuid *ua = fptr(v, keys, "ua");
    memset(ua[1].bytes, 0xff, 16);

    const fbe_ir_type *mo = ftype(keys, "mo");
    char *moe = fbe_arena_zalloc(&a, 2 * mo->host_entry_size);
    int64_t k0 = -5;
    memcpy(moe, &k0, 8);
    set_u64(moe + mo->host_entry_size, 7);
    char *mv1 = moe + mo->host_entry_size + mo->host_entry_value_offset;
    set_bool(mv1, true);
    set_bool(mv1 + mo->elem->host_value_offset, false);
    set_seq(fptr(v, keys, "mo"), moe, 2);

    static const char want[] =
        "Keys(m=[2]<{'k'->'A','\0'->'?'}>,h=[1][{hi->neg}],ov=[3][2.5,null,-0],"
        "ol=[2]<null,D1(Void(),x=-3)>,ds=[2]{10000000000000000905969664.000000,-0.000001},"
        "ua=[2][\"00000000-0000-0000-0000-000000000000\","
        "\"ffffffff-ffff-ffff-ffff-ffffffffffff\"],mo=[2]<{-5->null,7->false}>)";
    expect_text_n(keys, v, want, sizeof want - 1);
    fbe_arena_free(&a);
    fbe_schema_free(schema);
}

static void edge_errors(void **state)
{
    (void)state;
    fbe_schema *schema = load_text_ok(edge_schema);
    const fbe_ir_struct *d1 = find_struct(schema, "edge.D1");
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);
    void *v = new_value(&a, d1);
    static const char want[] = "D1(Void(),x=-3)";
    const size_t n = sizeof want - 1;

    /* Exactly enough room. */
    char mem[64];
    fbe_buffer out;
    fbe_buffer_init_fixed(&out, mem, n);
    assert_int_equal(fbe_print(d1, v, &out), FBE_OK);
    assert_int_equal(out.size, n);
    assert_memory_equal(mem, want, n);

    /* Appends after what is there. */
    fbe_buffer_init_fixed(&out, mem, sizeof mem);
    assert_int_equal(fbe_buffer_append(&out, "> ", 2), FBE_OK);
    assert_int_equal(fbe_print(d1, v, &out), FBE_OK);
    assert_int_equal(out.size, n + 2);
    assert_memory_equal(mem + 2, want, n);

    /* Every shorter buffer fails with the buffer's status, leaving out as it was. */
    for (size_t cap = 0; cap < n; cap++) {
        fbe_buffer_init_fixed(&out, mem, cap);
        assert_int_equal(fbe_print(d1, v, &out), FBE_TOO_SMALL);
        assert_int_equal(out.size, 0);
    }
    fbe_buffer_init_fixed(&out, mem, 5);
    assert_int_equal(fbe_buffer_append(&out, "ab", 2), FBE_OK);
    assert_int_equal(fbe_print(d1, v, &out), FBE_TOO_SMALL);
    assert_int_equal(out.size, 2);

    /* A cycle of optional-struct pointers (only possible by hand) is refused. */
    const fbe_ir_struct *node = find_struct(schema, "edge.Node");
    void *n1 = new_value(&a, node);
    memcpy(fptr(n1, node, "next"), &n1, sizeof n1);
    fbe_buffer_init(&out, NULL, NULL);
    assert_int_equal(fbe_print(node, n1, &out), FBE_TOO_DEEP);
    assert_int_equal(out.size, 0);
    void *n2 = new_value(&a, node);
    set_i32(fptr(n2, node, "v"), 2);
    void *n3 = new_value(&a, node);
    memcpy(fptr(n3, node, "next"), &n2, sizeof n2);
    assert_int_equal(fbe_print(node, n3, &out), FBE_OK);
    assert_int_equal(out.size, strlen("Node(v=0,next=Node(v=2,next=null))"));
    assert_memory_equal(out.data, "Node(v=0,next=Node(v=2,next=null))", out.size);

    /* The nesting limit is 1000 structs: a chain of 1000 prints, 1001 does not. */
    void *chain = NULL;
    for (int i = 0; i < 1000; i++) {
        void *nn = new_value(&a, node);
        memcpy(fptr(nn, node, "next"), &chain, sizeof chain);
        chain = nn;
    }
    fbe_buffer_clear(&out);
    assert_int_equal(fbe_print(node, chain, &out), FBE_OK);
    assert_int_equal(out.size, 1000 * strlen("Node(v=0,next=)") + strlen("null"));
    void *top = new_value(&a, node);
    memcpy(fptr(top, node, "next"), &chain, sizeof chain);
    fbe_buffer_clear(&out);
    assert_int_equal(fbe_print(node, top, &out), FBE_TOO_DEEP);
    assert_int_equal(out.size, 0);
    fbe_buffer_free(&out);

    assert_int_equal(fbe_print(NULL, v, &out), FBE_INVALID_ARGUMENT);
    assert_int_equal(fbe_print(d1, NULL, &out), FBE_INVALID_ARGUMENT);
    assert_int_equal(fbe_print(d1, v, NULL), FBE_INVALID_ARGUMENT);
    fbe_arena_free(&a);
    fbe_schema_free(schema);
}

/* ---- 3. the golden oracle ------------------------------------------------------------- */

enum { SCHEMA_ENUMS, SCHEMA_PROTO, SCHEMA_PROTOEX, SCHEMA_TEST, SCHEMA_COUNT };
static const char *const schema_names[SCHEMA_COUNT] = {"enums", "proto", "protoex", "test"};

typedef struct golden {
    fbe_schema *schemas[SCHEMA_COUNT];
    fbe_codec *codecs[SCHEMA_COUNT];
} golden;

static int golden_setup(void **state)
{
    golden *g = calloc(1, sizeof *g);
    for (int i = 0; i < SCHEMA_COUNT; i++) {
        g->schemas[i] = load_golden(schema_names[i]);
        fbe_status st = FBE_OK;
        g->codecs[i] = fbe_interp_create(g->schemas[i], NULL, &st);
        if (!g->codecs[i]) {
            fprintf(stderr, "interpreter for %s: %s\n", schema_names[i], fbe_strerror(st));
            return -1;
        }
    }
    *state = g;
    return 0;
}

static int golden_teardown(void **state)
{
    golden *g = *state;
    for (int i = 0; i < SCHEMA_COUNT; i++) {
        fbe_codec_free(g->codecs[i]);
        fbe_schema_free(g->schemas[i]);
    }
    free(g);
    return 0;
}

/* "test.fbe" or "test" -> index */
static int schema_index(const char *name, size_t len)
{
    if (len > 4 && memcmp(name + len - 4, ".fbe", 4) == 0)
        len -= 4;
    for (int i = 0; i < SCHEMA_COUNT; i++)
        if (strlen(schema_names[i]) == len && memcmp(schema_names[i], name, len) == 0)
            return i;
    fail_msg("unknown golden schema %.*s", (int)len, name);
    return -1;
}

typedef struct tally {
    unsigned total, matched;
    unsigned decode_errors;
    fbe_status first_decode_status;
    char first_failure[512];
} tally;

static void note_failure(tally *t, const char *fmt, const char *what, const char *why)
{
    if (!t->first_failure[0])
        snprintf(t->first_failure, sizeof t->first_failure, fmt, what, why);
}

/* Decodes one frame of `model` with the codec of schema `si` as `type_name`
 * ("pkg.Type"), prints it and compares with want. Returns true on a match. */
static bool check_one(golden *g, int si, const char *type_name, fbe_model model,
                      const uint8_t *data, size_t size, const uint8_t *want, size_t want_len,
                      const char *what, tally *t, fbe_buffer *printed)
{
    t->total++;
    const fbe_type *type = fbe_codec_type(g->codecs[si], type_name);
    if (!type) {
        note_failure(t, "%s: %s", what, "type not found in the codec");
        fprintf(stderr, "FAIL %s: no type %s\n", what, type_name);
        return false;
    }
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);
    void *value = fbe_arena_zalloc(&a, type->ir->host_size);
    assert_non_null(value);
    fbe_decode_options o = {.arena = &a};
    size_t consumed = 0;
    fbe_status st = fbe_deserialize(type, model, data, size, value, &o, &consumed);
    bool ok = false;
    if (st != FBE_OK) {
        if (!t->decode_errors++)
            t->first_decode_status = st;
        note_failure(t, "%s: deserialize failed: %s", what, fbe_status_name(st));
        if (st != FBE_UNSUPPORTED)
            fprintf(stderr, "FAIL %s: deserialize: %s\n", what, fbe_strerror(st));
    } else if (consumed != size) {
        note_failure(t, "%s: %s", what, "deserialize did not consume the whole frame");
        fprintf(stderr, "FAIL %s: consumed %zu of %zu bytes\n", what, consumed, size);
    } else {
        fbe_buffer_clear(printed);
        st = fbe_print(type->ir, value, printed);
        if (st != FBE_OK) {
            note_failure(t, "%s: fbe_print failed: %s", what, fbe_status_name(st));
            fprintf(stderr, "FAIL %s: fbe_print: %s\n", what, fbe_strerror(st));
        } else if (printed->size != want_len || memcmp(printed->data, want, want_len) != 0) {
            note_failure(t, "%s: %s", what, "text differs");
            show_diff(what, printed->data, printed->size, want, want_len);
        } else {
            ok = true;
            t->matched++;
        }
    }
    fbe_arena_free(&a);
    return ok;
}

static uint8_t *read_golden(const char *rel, size_t *len)
{
    return read_file(shared_path(rel), len);
}

static bool golden_exists(const char *rel)
{
    FILE *f = fopen(shared_path(rel), "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

typedef struct manifest_row {
    char schema[64], package[64], type[64], name[128], files[1024], note[1024];
} manifest_row;

/* Splits MANIFEST.tsv into rows (the header is skipped). Caller frees. */
static manifest_row *read_manifest(size_t *count)
{
    size_t len;
    char *text = (char *)read_golden("golden/MANIFEST.tsv", &len);
    size_t cap = 256, n = 0;
    manifest_row *rows = calloc(cap, sizeof *rows);
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || !line[0])
            continue;
        if (n == cap)
            rows = realloc(rows, (cap *= 2) * sizeof *rows);
        manifest_row *r = &rows[n++];
        memset(r, 0, sizeof *r);
        char *cols[6] = {0};
        int c = 0;
        char *p = line;
        while (c < 6) {
            cols[c++] = p;
            char *tab = strchr(p, '\t');
            if (!tab)
                break;
            *tab = 0;
            p = tab + 1;
        }
        assert_true(c >= 5);
        snprintf(r->schema, sizeof r->schema, "%s", cols[0]);
        snprintf(r->package, sizeof r->package, "%s", cols[1]);
        snprintf(r->type, sizeof r->type, "%s", cols[2]);
        snprintf(r->name, sizeof r->name, "%s", cols[3]);
        snprintf(r->files, sizeof r->files, "%s", cols[4]);
        snprintf(r->note, sizeof r->note, "%s", cols[5] ? cols[5] : "");
    }
    free(text);
    *count = n;
    return rows;
}

static bool has_file(const manifest_row *r, const char *rel)
{
    size_t n = strlen(rel);
    for (const char *p = r->files; (p = strstr(p, rel)) != NULL; p += n)
        if ((p == r->files || p[-1] == ',') && (p[n] == ',' || p[n] == 0))
            return true;
    return false;
}

static void report(const char *what, const tally *t)
{
    printf("[ golden  ] %s: %u/%u matched\n", what, t->matched, t->total);
    fflush(stdout);
    if (t->matched == t->total)
        return;
    if (t->decode_errors == t->total && t->first_decode_status == FBE_UNSUPPORTED)
        fail_msg("%s: the decoder is not available yet (fbe_deserialize returns "
                 "UNSUPPORTED): 0/%u golden texts could be checked", what, t->total);
    fail_msg("%s: %u of %u golden texts differ; first: %s", what, t->total - t->matched,
             t->total, t->first_failure);
}

/* cases/<pkg>/<Type>/<case>.txt, decoded from .bin (standard) or .final.bin. */
static void golden_cases(golden *g, fbe_model model)
{
    size_t count;
    manifest_row *rows = read_manifest(&count);
    tally t = {0};
    unsigned readback_checked = 0;
    fbe_buffer printed;
    fbe_buffer_init(&printed, NULL, NULL);
    for (size_t i = 0; i < count; i++) {
        const manifest_row *r = &rows[i];
        if (strcmp(r->type, "protocol") == 0 || strchr(r->schema, '>'))
            continue;
        char stem[512], bin[600], txt[600], what[640];
        snprintf(stem, sizeof stem, "cases/%s/%s/%s", r->package, r->type, r->name);
        snprintf(bin, sizeof bin, "%s%s", stem, model == FBE_STANDARD ? ".bin" : ".final.bin");
        snprintf(txt, sizeof txt, "%s.txt", stem);
        assert_true(has_file(r, txt));
        assert_true(has_file(r, bin));
        snprintf(what, sizeof what, "%s (%s)", txt, model == FBE_STANDARD ? "standard" : "final");
        char rel_bin[700], rel_txt[700], type_name[160];
        snprintf(rel_bin, sizeof rel_bin, "golden/%s", bin);
        snprintf(rel_txt, sizeof rel_txt, "golden/%s", txt);
        snprintf(type_name, sizeof type_name, "%s.%s", r->package, r->type);
        size_t bin_len, txt_len;
        uint8_t *data = read_golden(rel_bin, &bin_len);
        uint8_t *want = read_golden(rel_txt, &txt_len);
        int si = schema_index(r->schema, strlen(r->schema));
        bool ok = check_one(g, si, type_name, model, data, bin_len, want, txt_len, what, &t,
                            &printed);

        /* Quirk 2: the reference's standard reader fills absent optionals with
         * defaults; we keep them absent, so our text is the written value's. */
        char readback[700];
        snprintf(readback, sizeof readback, "%s.std_readback.txt", stem);
        bool flagged = strstr(r->note, "REFERENCE-STD-ROUNDTRIP-MISMATCH") != NULL;
        assert_int_equal(flagged, has_file(r, readback));
        if (flagged && ok && model == FBE_STANDARD) {
            char rel_rb[800];
            snprintf(rel_rb, sizeof rel_rb, "golden/%s", readback);
            size_t rb_len;
            uint8_t *rb = read_golden(rel_rb, &rb_len);
            assert_false(printed.size == rb_len && memcmp(printed.data, rb, rb_len) == 0);
            readback_checked++;
            free(rb);
        }
        free(data);
        free(want);
    }
    fbe_buffer_free(&printed);
    free(rows);
    if (model == FBE_STANDARD && t.matched == t.total)
        assert_int_equal(readback_checked, 2); /* the two all_null cases */
    report(model == FBE_STANDARD ? "cases .txt from .bin" : "cases .txt from .final.bin", &t);
}

static void golden_cases_standard(void **state)
{
    golden_cases(*state, FBE_STANDARD);
}

static void golden_cases_final(void **state)
{
    golden_cases(*state, FBE_FINAL);
}

/* versioning/<from>_to_<to>_<Type>_<case>: .bin read as <to> must print .txt, and
 * read as <from> must print .src.txt. */
static void golden_versioning(void **state)
{
    golden *g = *state;
    size_t count;
    manifest_row *rows = read_manifest(&count);
    tally t = {0}, src = {0};
    fbe_buffer printed;
    fbe_buffer_init(&printed, NULL, NULL);
    for (size_t i = 0; i < count; i++) {
        const manifest_row *r = &rows[i];
        const char *gt = strchr(r->schema, '>');
        if (!gt)
            continue;
        int from = schema_index(r->schema, (size_t)(gt - r->schema));
        int to = schema_index(gt + 1, strlen(gt + 1));
        const char *pgt = strchr(r->package, '>');
        assert_non_null(pgt);
        char from_type[160], to_type[160];
        snprintf(from_type, sizeof from_type, "%.*s.%s", (int)(pgt - r->package), r->package,
                 r->type);
        snprintf(to_type, sizeof to_type, "%s.%s", pgt + 1, r->type);
        char rel_bin[400], rel_txt[400], rel_src[400];
        snprintf(rel_bin, sizeof rel_bin, "golden/versioning/%s.bin", r->name);
        snprintf(rel_txt, sizeof rel_txt, "golden/versioning/%s.txt", r->name);
        snprintf(rel_src, sizeof rel_src, "golden/versioning/%s.src.txt", r->name);
        assert_true(has_file(r, rel_txt + strlen("golden/")));
        size_t bin_len, txt_len, src_len;
        uint8_t *data = read_golden(rel_bin, &bin_len);
        uint8_t *want = read_golden(rel_txt, &txt_len);
        uint8_t *want_src = read_golden(rel_src, &src_len);
        check_one(g, to, to_type, FBE_STANDARD, data, bin_len, want, txt_len,
                  rel_txt + strlen("golden/"), &t, &printed);
        check_one(g, from, from_type, FBE_STANDARD, data, bin_len, want_src, src_len,
                  rel_src + strlen("golden/"), &src, &printed);
        free(data);
        free(want);
        free(want_src);
    }
    fbe_buffer_free(&printed);
    free(rows);
    report("versioning .txt (read with the reader's schema)", &t);
    report("versioning .src.txt (read with the writer's schema)", &src);
}

/* protocol/<name>.bin: frames back to back; line k of <name>.txt is
 * "<pkg>.<Message>\t<text>\n" for frame k. */
static void golden_protocol(golden *g, fbe_model model)
{
    static const char *const streams[][2] = {
        {"proto", "proto"}, {"proto_reftest", "proto"}, {"protoex", "protoex"}};
    tally t = {0};
    fbe_buffer printed;
    fbe_buffer_init(&printed, NULL, NULL);
    for (size_t s = 0; s < sizeof streams / sizeof streams[0]; s++) {
        char rel_bin[200], rel_txt[200];
        const char *suffix = model == FBE_FINAL ? "_final" : "";
        /* proto_reftest -> proto_final_reftest */
        if (model == FBE_FINAL && strcmp(streams[s][0], "proto_reftest") == 0) {
            snprintf(rel_bin, sizeof rel_bin, "golden/protocol/proto_final_reftest.bin");
            snprintf(rel_txt, sizeof rel_txt, "golden/protocol/proto_final_reftest.txt");
        } else {
            snprintf(rel_bin, sizeof rel_bin, "golden/protocol/%s%s.bin", streams[s][0], suffix);
            snprintf(rel_txt, sizeof rel_txt, "golden/protocol/%s%s.txt", streams[s][0], suffix);
        }
        assert_true(golden_exists(rel_bin));
        int si = schema_index(streams[s][1], strlen(streams[s][1]));
        size_t bin_len, txt_len;
        uint8_t *data = read_golden(rel_bin, &bin_len);
        uint8_t *text = read_golden(rel_txt, &txt_len);
        size_t pos = 0, line_start = 0;
        unsigned k = 0;
        while (line_start < txt_len) {
            const uint8_t *nl = memchr(text + line_start, '\n', txt_len - line_start);
            assert_non_null(nl);
            size_t line_end = (size_t)(nl - text);
            const uint8_t *tab = memchr(text + line_start, '\t', line_end - line_start);
            assert_non_null(tab);
            char type_name[160];
            snprintf(type_name, sizeof type_name, "%.*s",
                     (int)((size_t)(tab - text) - line_start), (const char *)text + line_start);
            size_t text_start = (size_t)(tab - text) + 1;

            /* Both models start a frame with its u32 total size. */
            assert_true(pos + 4 <= bin_len);
            uint32_t frame;
            memcpy(&frame, data + pos, 4);
            assert_true(frame >= 8 && pos + frame <= bin_len);
            char what[512];
            snprintf(what, sizeof what, "%s message %u (%s)", rel_txt + strlen("golden/"), k,
                     type_name);
            check_one(g, si, type_name, model, data + pos, frame, text + text_start,
                      line_end - text_start, what, &t, &printed);
            pos += frame;
            line_start = line_end + 1;
            k++;
        }
        assert_int_equal(pos, bin_len);
        free(data);
        free(text);
    }
    fbe_buffer_free(&printed);
    report(model == FBE_STANDARD ? "protocol streams (standard)" : "protocol streams (final)",
           &t);
}

static void golden_protocol_standard(void **state)
{
    golden_protocol(*state, FBE_STANDARD);
}

static void golden_protocol_final(void **state)
{
    golden_protocol(*state, FBE_FINAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spec_order),
        cmocka_unit_test(spec_account),
        cmocka_unit_test(spec_derived),
        cmocka_unit_test(spec_coll),
        cmocka_unit_test(edge_floats),
        cmocka_unit_test(edge_integers),
        cmocka_unit_test(edge_chars),
        cmocka_unit_test(edge_enums_flags),
        cmocka_unit_test(edge_hidden_and_inheritance),
        cmocka_unit_test(edge_collections),
        cmocka_unit_test(edge_errors),
    };
    const struct CMUnitTest oracle[] = {
        cmocka_unit_test(golden_cases_standard),
        cmocka_unit_test(golden_versioning),
        cmocka_unit_test(golden_protocol_standard),
        cmocka_unit_test(golden_cases_final),
        cmocka_unit_test(golden_protocol_final),
    };
    int failed = cmocka_run_group_tests_name("print", tests, NULL, NULL);
    failed += cmocka_run_group_tests_name("print_golden", oracle, golden_setup, golden_teardown);
    return failed;
}
