/* JSON mapping details and malformed input (fbe_json, docs/json.md).
 *
 *   numbers        rapidjson's layout of the shortest round-trip digits
 *   mapping        every kind, base fields flattened, keys of every type,
 *                  optionals, fixed arrays, the reference's examples
 *   leniency       unknown members ignored, missing members keep defaults
 *   errors         every kind of bad input gives a located message, no crash,
 *                  no leak (the suite also runs under ASan + UBSan)
 *   writer errors  NaN/Inf and non-UTF-8 strings refused, nothing partial left */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbe/codec.h"
#include "fbe/json.h"
#include "schema_gen.h"
#include "test_util.h"
#include "value_gen.h"

static const char jt_schema[] =
    "package jt\n"
    "enum Color : int8 { red = -1; green; blue; }\n"
    "flags Bits : uint16 { a = 0x1; b = 0x2; }\n"
    "struct Key { int32 a; string b; }\n"
    "struct Base { int32 x = 5; }\n"
    "struct T : Base\n"
    "{\n"
    "    bool b; char c; wchar w; int8 i8; uint64 u64; float f; double d; decimal dec;\n"
    "    timestamp ts; uuid id; string s; bytes raw; Color color; Bits bits;\n"
    "    int32? oi; Key? ok; int32[3] arr; Key[2] karr; Key[] kv; double? od;\n"
    "    string<bool> mb; string<char> mc; string<float> mf; string<decimal> md;\n"
    "    string<uuid> mu; string<Color> me; string<Key> mk; string{int8} h8;\n"
    "    int32<timestamp> mt; string<int64> m64;\n"
    "}\n"
    "struct Node { int32 v; Node? next; }\n"
    "struct D { double d; float f; }\n"
    "struct K2 { int32<string> m; }\n"
    "struct K1 { int32<K2> m; }\n"
    "struct KK { int32<K1> m; }\n";

typedef struct fixture {
    fbe_schema *jt;
    fbe_schema *proto;
    fbe_json_reader *rd;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    diag_capture cap = {0};
    f->jt = load_text(jt_schema, &cap);
    if (!f->jt)
        fprintf(stderr, "%s", cap.text);
    f->proto = load_golden("proto");
    f->rd = fbe_json_reader_new();
    *state = f;
    return f->jt && f->proto && f->rd ? 0 : -1;
}

static int teardown(void **state)
{
    fixture *f = *state;
    fbe_json_reader_free(f->rd);
    fbe_schema_free(f->jt);
    fbe_schema_free(f->proto);
    free(f);
    return 0;
}

/* One decoded value and its arena. */
typedef struct val {
    fbe_arena arena;
    void *v;
    const fbe_ir_struct *ir;
    fbe_json_error err;
    fbe_status st;
} val;

static void read_into(fixture *f, val *v, const fbe_schema *s, const char *type, const char *json,
                      size_t len)
{
    memset(v, 0, sizeof *v);
    v->ir = fbe_schema_find_struct(s, type);
    assert_non_null(v->ir);
    fbe_arena_init(&v->arena, NULL, NULL);
    v->v = fbe_arena_zalloc(&v->arena, v->ir->host_size);
    fbe_json_read_options o = {.arena = &v->arena};
    v->st = fbe_json_read(f->rd, v->ir, json, len, v->v, &o, &v->err);
}

static void val_free(val *v)
{
    fbe_arena_free(&v->arena);
}

/* Reads json (must succeed) and writes it back compactly into a malloc'd string. */
static char *rewrite(fixture *f, const fbe_schema *s, const char *type, const char *json)
{
    val v;
    read_into(f, &v, s, type, json, strlen(json));
    if (v.st != FBE_OK)
        fail_msg("read failed: %s", v.err.message);
    fbe_buffer out;
    fbe_buffer_init(&out, NULL, NULL);
    fbe_json_error err;
    if (fbe_json_write(v.ir, v.v, 0, &out, &err) != FBE_OK)
        fail_msg("write failed: %s", err.message);
    char *text = malloc(out.size + 1);
    memcpy(text, out.data, out.size);
    text[out.size] = 0;
    fbe_buffer_free(&out);
    val_free(&v);
    return text;
}

/* Expects reading to fail with `status` and a message containing `want`. */
static void expect_error(fixture *f, const fbe_schema *s, const char *type, const char *json,
                         size_t len, fbe_status status, const char *want)
{
    val v;
    read_into(f, &v, s, type, json, len);
    if (v.st != status || !strstr(v.err.message, want))
        fail_msg("for %.80s: got %s \"%s\", want %s \"%s\"", json, fbe_status_name(v.st),
                 v.err.message, fbe_status_name(status), want);
    assert_int_equal(v.err.status, status);
    val_free(&v);
}

/* ---- numbers ----------------------------------------------------------------------------- */

static char *write_d(fixture *f, double d, float fl, fbe_status *st, char *msg)
{
    const fbe_ir_struct *ir = fbe_schema_find_struct(f->jt, "jt.D");
    struct {
        double d;
        float f;
    } v = {d, fl};
    assert_int_equal(ir->host_size, sizeof v);
    fbe_buffer out;
    fbe_buffer_init(&out, NULL, NULL);
    fbe_json_error err;
    *st = fbe_json_write(ir, &v, 0, &out, &err);
    strcpy(msg, err.message);
    char *text = malloc(out.size + 1);
    memcpy(text, out.data, out.size);
    text[out.size] = 0;
    fbe_buffer_free(&out);
    return text;
}

static void numbers(void **state)
{
    fixture *f = *state;
    static const struct {
        double d;
        const char *text;
    } cases[] = {
        {1000.0, "1000.0"}, {-1.23456e125, "-1.23456e125"}, {5e-324, "5e-324"},
        {-0.0, "-0.0"}, {0.0, "0.0"}, {1e21, "1e21"}, {1e20, "100000000000000000000.0"},
        {1e-7, "1e-7"}, {1e-6, "0.000001"}, {1.5e-6, "0.0000015"}, {0.1, "0.1"},
        {1.23456, "1.23456"}, {12.34, "12.34"}, {1.7976931348623157e308, "1.7976931348623157e308"},
        {9007199254740993.0, "9007199254740992.0"}, {123456789012345680000.0, "123456789012345680000.0"},
        {1.2345678901234567e22, "1.2345678901234568e22"}, {-2.5e-5, "-0.000025"},
    };
    char msg[600], want[200];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        fbe_status st;
        char *text = write_d(f, cases[i].d, 0, &st, msg);
        snprintf(want, sizeof want, "{\"d\":%s,\"f\":0.0}", cases[i].text);
        assert_int_equal(st, FBE_OK);
        assert_string_equal(text, want);
        /* and it reads back bit-exactly */
        val v;
        read_into(f, &v, f->jt, "jt.D", text, strlen(text));
        assert_int_equal(v.st, FBE_OK);
        assert_memory_equal(v.v, &cases[i].d, sizeof(double));
        val_free(&v);
        free(text);
    }
    /* a float is widened: 123.456f */
    fbe_status st;
    char *text = write_d(f, 0, 123.456f, &st, msg);
    assert_string_equal(text, "{\"d\":0.0,\"f\":123.45600128173828}");
    free(text);
    /* NaN and infinities are errors, and leave nothing behind */
    text = write_d(f, NAN, 0, &st, msg);
    assert_int_equal(st, FBE_INVALID_ARGUMENT);
    assert_string_equal(text, "");
    assert_string_equal(msg, "$.d: NaN cannot be written in JSON");
    free(text);
    text = write_d(f, 0, -INFINITY, &st, msg);
    assert_int_equal(st, FBE_INVALID_ARGUMENT);
    assert_string_equal(msg, "$.f: infinity cannot be written in JSON");
    free(text);
    /* FLT_MAX round-trips (the reference rejects it: golden quirk 3) */
    val v;
    read_into(f, &v, f->jt, "jt.D", "{\"f\":3.4028234663852886e38}", 27);
    assert_int_equal(v.st, FBE_OK);
    float fm;
    memcpy(&fm, (char *)v.v + 8, 4);
    assert_true(fm == 3.4028234663852886e38f);
    val_free(&v);
    expect_error(f, f->jt, "jt.D", "{\"f\":3.5e38}", 12, FBE_INVALID_ARGUMENT,
                 "$.f: 3.5e+38 is out of range for float");
    /* integers are accepted for float and double, even beyond int32 */
    text = rewrite(f, f->jt, "jt.D", "{\"d\":5000000000,\"f\":-3}");
    assert_string_equal(text, "{\"d\":5000000000.0,\"f\":-3.0}");
    free(text);
}


/* The digits of every double written equal the shortest correctly rounded
 * printf("%.Ne") that reads back (the definition of shortest round-trip digits,
 * closest on ties), on values of every shape: few-digit decimals (the fast
 * path), random bit patterns, widened floats. */
static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* "1.2345e-7" style: significant digits (no trailing zeros) and the exponent of the first. */
static void sig_digits(const char *text, char *digits, int *exp10)
{
    size_t n = 0;
    int point = -1, lead = 0, e = 0;
    bool seen = false;
    const char *s = text;
    if (*s == '-')
        s++;
    int pos = 0; /* digits before the point */
    for (; *s && *s != 'e' && *s != 'E'; s++) {
        if (*s == '.') {
            point = pos;
            continue;
        }
        if (!seen && *s == '0') {
            lead++;
            pos++;
            continue;
        }
        seen = true;
        digits[n++] = *s;
        pos++;
    }
    if (*s)
        e = atoi(s + 1);
    if (point < 0)
        point = pos;
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = 0;
    *exp10 = point - lead - 1 + e;
}

static void shortest_digits(void **state)
{
    fixture *f = *state;
    char msg[600], want[40], got[40], buf[64];
    for (int i = 0; i < 60000; i++) {
        double d;
        switch (i % 3) {
        case 0: { /* a decimal with few digits */
            int k = (int)(rng() % 12);
            double m = (double)(rng() % 100000000);
            d = m / pow(10, k) * ((rng() & 1) ? 1 : -1);
            break;
        }
        case 1: {
            uint64_t bits = rng();
            memcpy(&d, &bits, 8);
            if (!isfinite(d))
                d = 1.5;
            break;
        }
        default: {
            uint32_t bits = (uint32_t)rng();
            float fl;
            memcpy(&fl, &bits, 4);
            d = isfinite(fl) ? fl : 0.25;
            break;
        }
        }
        fbe_status st;
        char *text = write_d(f, d, 0, &st, msg);
        assert_int_equal(st, FBE_OK);
        /* {"d":NUMBER,"f":0.0} */
        char *num = text + 5;
        *strchr(num, ',') = 0;
        assert_true(strtod(num, NULL) == d);
        if (d == 0) {
            free(text);
            continue;
        }
        int e_got, e_want = 0;
        sig_digits(num, got, &e_got);
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
            if (strtod(buf, NULL) == d) {
                sig_digits(buf, want, &e_want);
                break;
            }
        }
        if (strcmp(got, want) != 0 || e_got != e_want)
            fail_msg("%.17g: wrote %s, shortest is %se%d", d, num, want, e_want);
        free(text);
    }
}

/* ---- the mapping -------------------------------------------------------------------------------- */

static void reference_examples(void **state)
{
    fixture *f = *state;
    /* wire-format.md 8, verified with the reference */
    static const char *const ex[][2] = {
        {"proto.Order", "{\"id\":1,\"symbol\":\"EURUSD\",\"side\":1,\"type\":1,\"price\":1.23456,\"volume\":1000.0}"},
        {"proto.Account", "{\"id\":7,\"name\":\"Jo\",\"state\":6,\"wallet\":{\"currency\":\"USD\",\"amount\":100.5},\"asset\":{\"currency\":\"EUR\",\"amount\":2.0},\"orders\":[{\"id\":2,\"symbol\":\"X\",\"side\":0,\"type\":2,\"price\":1.5,\"volume\":10.0}]}"},
        {"proto.Account", "{\"id\":1,\"name\":\"\",\"state\":11,\"wallet\":{\"currency\":\"\",\"amount\":0.0},\"asset\":null,\"orders\":[]}"},
    };
    for (size_t i = 0; i < sizeof ex / sizeof *ex; i++) {
        char *text = rewrite(f, f->proto, ex[i][0], ex[i][1]);
        assert_string_equal(text, ex[i][1]);
        free(text);
    }
}

static const char all_kinds[] =
    "{\"x\":-7,\"b\":true,\"c\":233,\"w\":128512,\"i8\":-128,\"u64\":18446744073709551615,"
    "\"f\":1.5,\"d\":-2.25,\"dec\":\"-12.500000\",\"ts\":1543145597933463000,"
    "\"id\":\"123e4567-e89b-12d3-a456-426655440000\",\"s\":\"q\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001F\\u007F/\\u00e9\","
    "\"raw\":\"AAEC/w==\",\"color\":-1,\"bits\":3,\"oi\":null,\"ok\":{\"a\":1,\"b\":\"k\"},"
    "\"arr\":[1,2,3],\"karr\":[{\"a\":2,\"b\":\"\"},{\"a\":3,\"b\":\"z\"}],\"kv\":[{\"a\":4,\"b\":\"y\"}],\"od\":0.5,"
    "\"mb\":{\"1\":\"t\",\"0\":\"f\"},\"mc\":{\"65\":\"A\",\"233\":\"e\"},\"mf\":{\"0.1\":\"x\",\"-2.0\":\"y\"},"
    "\"md\":{\"0.000000\":\"zero\",\"1.0000001\":\"p\"},\"mu\":{\"00000000-0000-0000-0000-000000000000\":\"nil\"},"
    "\"me\":{\"-1\":\"red\",\"1\":\"blue\"},\"mk\":{\"{\\\"a\\\":1,\\\"b\\\":\\\"\\\\\\\"\\\"}\":\"key\"},"
    "\"h8\":{\"-5\":\"m\",\"127\":\"M\"},\"mt\":{\"18446744073709551615\":-1},\"m64\":{\"-9223372036854775808\":\"min\"}}";

static void mapping(void **state)
{
    fixture *f = *state;
    char *text = rewrite(f, f->jt, "jt.T", all_kinds);
    /* Canonical form: rapidjson escapes (upper-case \u00XX, DEL and '/' as is,
     * non-ASCII raw), Base64 with padding, keys as text, base field first. */
    const char *want =
        "{\"x\":-7,\"b\":true,\"c\":233,\"w\":128512,\"i8\":-128,\"u64\":18446744073709551615,"
        "\"f\":1.5,\"d\":-2.25,\"dec\":\"-12.500000\",\"ts\":1543145597933463000,"
        "\"id\":\"123e4567-e89b-12d3-a456-426655440000\",\"s\":\"q\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001F\x7f/\xc3\xa9\","
        "\"raw\":\"AAEC/w==\",\"color\":-1,\"bits\":3,\"oi\":null,\"ok\":{\"a\":1,\"b\":\"k\"},"
        "\"arr\":[1,2,3],\"karr\":[{\"a\":2,\"b\":\"\"},{\"a\":3,\"b\":\"z\"}],\"kv\":[{\"a\":4,\"b\":\"y\"}],\"od\":0.5,"
        "\"mb\":{\"1\":\"t\",\"0\":\"f\"},\"mc\":{\"65\":\"A\",\"233\":\"e\"},\"mf\":{\"0.10000000149011612\":\"x\",\"-2.0\":\"y\"},"
        "\"md\":{\"0.000000\":\"zero\",\"1.0000001\":\"p\"},\"mu\":{\"00000000-0000-0000-0000-000000000000\":\"nil\"},"
        "\"me\":{\"-1\":\"red\",\"1\":\"blue\"},\"mk\":{\"{\\\"a\\\":1,\\\"b\\\":\\\"\\\\\\\"\\\"}\":\"key\"},"
        "\"h8\":{\"-5\":\"m\",\"127\":\"M\"},\"mt\":{\"18446744073709551615\":-1},\"m64\":{\"-9223372036854775808\":\"min\"}}";
    assert_string_equal(text, want);
    free(text);

    /* the reference's sign-extended char (quirk 5) and a negative char read as the same byte */
    text = rewrite(f, f->jt, "jt.T", "{\"c\":4294967273}");
    assert_non_null(strstr(text, "\"c\":233,"));
    free(text);
    text = rewrite(f, f->jt, "jt.T", "{\"c\":-23}");
    assert_non_null(strstr(text, "\"c\":233,"));
    free(text);
    /* bool keys also as true/false; Base64 without padding */
    text = rewrite(f, f->jt, "jt.T", "{\"mb\":{\"true\":\"t\",\"false\":\"f\"},\"raw\":\"AAEC/w\"}");
    assert_non_null(strstr(text, "\"mb\":{\"1\":\"t\",\"0\":\"f\"}"));
    assert_non_null(strstr(text, "\"raw\":\"AAEC/w==\""));
    free(text);
}

static void decimals(void **state)
{
    fixture *f = *state;
    static const char *const cases[][2] = {
        /* in, out */
        {"123456.123456", "123456.123456"},
        {"-12.5", "-12.500000"},
        {"0.0000001", "0.0000001"},                 /* beyond 6 decimals: kept (reference: 0.000000) */
        {"1e-7", "0.0000001"},
        {"-0.000000", "0.000000"},                  /* zero is 16 zero bytes, as the reference writes it */
        {"79228162514264337593543950335", "79228162514264337593543950335.000000"}, /* 2^96-1 exactly */
        {"0.1234567890123456789", "0.1234567890123456789"},                        /* 19 digits: exact */
        {"99999999999999991611392.000000", "100000000000000000000000.000000"},     /* reference %f text of 1e23 */
        {"1e30", "0.000000"},                       /* beyond 96 bits: the reference's double path gives 0 */
        {"0.0000000000000000000000000001", "0.0000000000000000000000000001"},      /* 1e-28 */
        {"1000.000000", "1000.000000"},
        /* exact decimals whose six-zero text would read as the reference's
         * rounded %f output: a seventh zero keeps them exact (found by fuzz_json) */
        {"-0127600000000000054525952.000000", "-127600000000000054525952.0000000"},
        {"99999999999999991611392", "99999999999999991611392.0000000"},
        {"99999999999999991611392.0000000", "99999999999999991611392.0000000"},
    };
    char json[200];
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(json, sizeof json, "{\"dec\":\"%s\"}", cases[i][0]);
        char *text = rewrite(f, f->jt, "jt.T", json);
        char want[200];
        snprintf(want, sizeof want, "\"dec\":\"%s\"", cases[i][1]);
        if (!strstr(text, want))
            fail_msg("decimal %s: got %s", cases[i][0], text);
        free(text);
        /* what we write reads back to itself */
        snprintf(json, sizeof json, "{\"dec\":\"%s\"}", cases[i][1]);
        text = rewrite(f, f->jt, "jt.T", json);
        if (!strstr(text, want))
            fail_msg("decimal %s is not a fixed point: got %s", cases[i][1], text);
        free(text);
    }
    /* the wire form of a value read exactly: 123456.123456 = 123456123456, scale 6 */
    val v;
    read_into(f, &v, f->jt, "jt.T", "{\"dec\":\"123456.123456\"}", 23);
    assert_int_equal(v.st, FBE_OK);
    const fbe_ir_field *fd = fbe_field_by_name(v.ir, "dec");
    fbe_decimal d;
    memcpy(&d, fbe_field_ptr(v.v, fd), sizeof d);
    assert_true(d.lo == 123456123456u && d.hi == 0 && d.flags == (6u << 16));
    val_free(&v);
}

/* ---- leniency -------------------------------------------------------------------------------------------- */

static void leniency(void **state)
{
    fixture *f = *state;
    /* unknown members (of any shape) are ignored; missing ones keep the schema defaults */
    char *text = rewrite(f, f->proto, "proto.Account",
                         "{\"zzz\":[1,{\"a\":[null,true]},\"s\"],\"name\":\"n\",\"id\":2,\"extra\":{}}");
    assert_string_equal(text, "{\"id\":2,\"name\":\"n\",\"state\":11,\"wallet\":{\"currency\":\"\",\"amount\":0.0},"
                              "\"asset\":null,\"orders\":[]}");
    free(text);
    /* defaults inside collection elements, optional structs and base fields */
    text = rewrite(f, f->jt, "jt.T", "{\"karr\":[{\"a\":9}],\"kv\":[{}],\"ok\":{}}");
    assert_non_null(strstr(text, "\"x\":5,"));
    assert_non_null(strstr(text, "\"karr\":[{\"a\":9,\"b\":\"\"},{\"a\":0,\"b\":\"\"}]"));
    free(text);
    /* an empty object is the default value */
    text = rewrite(f, f->proto, "proto.Order", " { } ");
    assert_string_equal(text, "{\"id\":0,\"symbol\":\"\",\"side\":0,\"type\":0,\"price\":0.0,\"volume\":0.0}");
    free(text);
}

/* ---- malformed input ----------------------------------------------------------------------------------------------- */

#define E(json, st, msg) expect_error(f, f->proto, "proto.Account", json, strlen(json), st, msg)
#define ET(json, st, msg) expect_error(f, f->jt, "jt.T", json, strlen(json), st, msg)

static void malformed(void **state)
{
    fixture *f = *state;
    /* syntax */
    E("", FBE_INVALID_ARGUMENT, "invalid JSON");
    E("{\"id\":1,\"name\":\"Te", FBE_INVALID_ARGUMENT, "invalid JSON");
    E("{\"id\":1,}", FBE_INVALID_ARGUMENT, "invalid JSON");
    E("{\"id\":1} x", FBE_INVALID_ARGUMENT, "invalid JSON");
    E("{\"id\":01}", FBE_INVALID_ARGUMENT, "invalid JSON");
    E("{\"id\":1e400}", FBE_INVALID_ARGUMENT, "invalid JSON: a number out of range or malformed at byte 6: 1e400");
    E("{\"s\":\"1e999\",\"orders\":[{\"price\":-2e308}]}", FBE_INVALID_ARGUMENT, "at byte 32: -2e308");
    E("{\"name\":\"\xc3\x28\"}", FBE_INVALID_ARGUMENT, "invalid JSON");  /* invalid UTF-8 */
    E("{\"name\":\"\xed\xa0\x80\"}", FBE_INVALID_ARGUMENT, "invalid JSON"); /* a surrogate */
    E("{\"name\":\"a\nb\"}", FBE_INVALID_ARGUMENT, "invalid JSON");  /* raw control character */
    /* types, with the path */
    E("[]", FBE_INVALID_ARGUMENT, "$: expected an object, got an array");
    E("{\"id\":\"1\"}", FBE_INVALID_ARGUMENT, "$.id: expected an integer, got a string");
    E("{\"id\":1.0}", FBE_INVALID_ARGUMENT, "$.id: expected an integer, got a number");
    E("{\"name\":null}", FBE_INVALID_ARGUMENT, "$.name: expected a string, got null");
    E("{\"wallet\":[]}", FBE_INVALID_ARGUMENT, "$.wallet: expected an object, got an array");
    E("{\"orders\":[{},{},{\"price\":\"1.5\"}]}", FBE_INVALID_ARGUMENT,
      "$.orders[2].price: expected a number, got a string");
    E("{\"orders\":{}}", FBE_INVALID_ARGUMENT, "$.orders: expected an array, got an object");
    E("{\"asset\":{\"amount\":true}}", FBE_INVALID_ARGUMENT, "$.asset.amount: expected a number, got a boolean");
    /* ranges */
    E("{\"id\":5000000000}", FBE_INVALID_ARGUMENT, "$.id: 5000000000 is out of range for int32 [-2147483648, 2147483647]");
    E("{\"state\":256}", FBE_INVALID_ARGUMENT, "$.state: 256 is out of range for byte [0, 255]");
    E("{\"orders\":[{\"side\":-1}]}", FBE_INVALID_ARGUMENT, "$.orders[0].side: -1 is out of range for byte");
    E("{\"id\":99999999999999999999}", FBE_INVALID_ARGUMENT, "out of range or malformed at byte 6: 99999999999999999999");
    E("{\"id\":-9223372036854775809}", FBE_INVALID_ARGUMENT, "at byte 6: -9223372036854775809");
    ET("{\"i8\":128}", FBE_INVALID_ARGUMENT, "$.i8: 128 is out of range for int8 [-128, 127]");
    ET("{\"u64\":-1}", FBE_INVALID_ARGUMENT, "$.u64: -1 is out of range for uint64");
    ET("{\"c\":256}", FBE_INVALID_ARGUMENT, "$.c: 256 is out of range for char");
    ET("{\"arr\":[1,2,3,4]}", FBE_INVALID_ARGUMENT, "$.arr: expected at most 3 elements, got 4");
    ET("{\"b\":1}", FBE_INVALID_ARGUMENT, "$.b: expected true or false, got an integer");
    /* text types */
    ET("{\"raw\":\"AA=A\"}", FBE_INVALID_ARGUMENT, "$.raw: invalid Base64 at character 2");
    ET("{\"raw\":\"A\"}", FBE_INVALID_ARGUMENT, "$.raw: invalid Base64");
    ET("{\"raw\":\"AAE*\"}", FBE_INVALID_ARGUMENT, "$.raw: invalid Base64 at character 3");
    ET("{\"id\":\"123e4567-e89b-12d3-a456-42665544000\"}", FBE_INVALID_ARGUMENT, "$.id: invalid uuid");
    ET("{\"id\":\"123e4567-e89b-12d3-a456-42665544000g\"}", FBE_INVALID_ARGUMENT, "$.id: invalid uuid");
    ET("{\"id\":7}", FBE_INVALID_ARGUMENT, "$.id: expected a uuid string, got an integer");
    ET("{\"dec\":\"1.2.3\"}", FBE_INVALID_ARGUMENT, "$.dec: invalid decimal \"1.2.3\"");
    ET("{\"dec\":\"nan\"}", FBE_INVALID_ARGUMENT, "$.dec: invalid decimal");
    ET("{\"dec\":\"\"}", FBE_INVALID_ARGUMENT, "$.dec: invalid decimal");
    ET("{\"dec\":\" 1\"}", FBE_INVALID_ARGUMENT, "$.dec: invalid decimal");
    ET("{\"dec\":true}", FBE_INVALID_ARGUMENT, "$.dec: expected a decimal string, got a boolean");
    /* keys */
    ET("{\"h8\":{\"300\":\"x\"}}", FBE_INVALID_ARGUMENT, "$.h8[\"300\"]: 300 is out of range for int8");
    ET("{\"h8\":{\"1x\":\"x\"}}", FBE_INVALID_ARGUMENT, "$.h8[\"1x\"]: key is not an integer");
    ET("{\"mb\":{\"yes\":\"x\"}}", FBE_INVALID_ARGUMENT, "$.mb[\"yes\"]: a bool key must be");
    ET("{\"mf\":{\"inf\":\"x\"}}", FBE_INVALID_ARGUMENT, "$.mf[\"inf\"]: a float key must be a finite number");
    ET("{\"mk\":{\"{\\\"a\\\":\":\"x\"}}", FBE_INVALID_ARGUMENT, "$.mk[\"{?a?:\"]: key is not the JSON of a jt.Key");
    ET("{\"mk\":{\"{\\\"a\\\":\\\"s\\\"}\":\"x\"}}", FBE_INVALID_ARGUMENT, "$.mk[\"{?a?:?s?}\"].a: expected an integer, got a string");
    /* a key inside a key: the innermost key's text lives in a parser of its own,
     * freed before the message is formatted (ASan catches a stale pointer) */
    {
        static const char kk[] =
            "{\"m\":{\"{\\\"m\\\":{\\\"{\\\\\\\"m\\\\\\\":{\\\\\\\"x\\\\\\\":\\\\\\\"bad\\\\\\\"}}\\\":2}}\":1}}";
        expect_error(f, f->jt, "jt.KK", kk, strlen(kk), FBE_INVALID_ARGUMENT,
                     ".m[\"x\"]: expected an integer, got a string");
    }
    ET("{\"mt\":{\"1\":\"x\"}}", FBE_INVALID_ARGUMENT, "$.mt[\"1\"]: expected an integer, got a string");
    /* NUL bytes: in a member name (no field matches, ignored) and in the document */
    {
        static const char nul_key[] = "{\"id\\u0000x\":5,\"id\":3}";
        char *text = rewrite(f, f->proto, "proto.Order", nul_key);
        assert_non_null(strstr(text, "\"id\":3,"));
        free(text);
        static const char nul_doc[] = "{\"id\":1}\0garbage";
        expect_error(f, f->proto, "proto.Order", nul_doc, sizeof nul_doc - 1, FBE_INVALID_ARGUMENT,
                     "invalid JSON");
    }
}

static void deep_nesting(void **state)
{
    fixture *f = *state;
    /* 100000 nested arrays in an unknown member: refused by the parser */
    size_t depth = 100000;
    char *json = malloc(2 * depth + 16);
    size_t n = 0;
    n += (size_t)sprintf(json, "{\"x\":");
    for (size_t i = 0; i < depth; i++)
        json[n++] = '[';
    for (size_t i = 0; i < depth; i++)
        json[n++] = ']';
    json[n++] = '}';
    expect_error(f, f->proto, "proto.Account", json, n, FBE_INVALID_ARGUMENT, "invalid JSON");
    free(json);

    /* structs nested deeper than max_depth: FBE_TOO_DEEP with the path */
    json = malloc(20 * 200 + 16);
    n = 0;
    for (int i = 0; i < 200; i++)
        n += (size_t)sprintf(json + n, "{\"next\":");
    n += (size_t)sprintf(json + n, "null");
    for (int i = 0; i < 200; i++)
        json[n++] = '}';
    expect_error(f, f->jt, "jt.Node", json, n, FBE_TOO_DEEP, "structs nested deeper than the limit (64)");
    /* 50 levels are fine, and write back identically */
    n = 0;
    for (int i = 0; i < 50; i++)
        n += (size_t)sprintf(json + n, "{\"v\":%d,\"next\":", i);
    n += (size_t)sprintf(json + n, "null");
    for (int i = 0; i < 50; i++)
        json[n++] = '}';
    json[n] = 0;
    char *text = rewrite(f, f->jt, "jt.Node", json);
    assert_string_equal(text, json);
    free(text);
    free(json);
}

static void big_strings(void **state)
{
    fixture *f = *state;
    /* a 10 MB string reads and writes back */
    size_t big = 10u << 20;
    char *json = malloc(big + 64);
    size_t n = (size_t)sprintf(json, "{\"name\":\"");
    memset(json + n, 'a', big);
    n += big;
    n += (size_t)sprintf(json + n, "\",\"id\":1}");
    val v;
    read_into(f, &v, f->proto, "proto.Account", json, n);
    assert_int_equal(v.st, FBE_OK);
    const fbe_string *name = fbe_field_ptr(v.v, fbe_field_by_name(v.ir, "name"));
    assert_int_equal(name->size, big);
    fbe_buffer out;
    fbe_buffer_init(&out, NULL, NULL);
    assert_int_equal(fbe_json_write(v.ir, v.v, 0, &out, NULL), FBE_OK);
    assert_true(out.size > big);
    fbe_buffer_free(&out);
    val_free(&v);

    /* 10 MB of bad Base64 and of an unterminated string */
    n = (size_t)sprintf(json, "{\"raw\":\"");
    memset(json + n, 'A', big);
    json[n + big / 2] = '!';
    n += big;
    n += (size_t)sprintf(json + n, "\"}");
    expect_error(f, f->jt, "jt.T", json, n, FBE_INVALID_ARGUMENT, "$.raw: invalid Base64 at character 5242880");
    expect_error(f, f->jt, "jt.T", json, n - 2, FBE_INVALID_ARGUMENT, "invalid JSON");
    free(json);

    /* an arena limit: out of memory is reported, nothing leaks */
    const char *doc = "{\"name\":\"0123456789012345678901234567890123456789\",\"orders\":[{},{},{}]}";
    memset(&v, 0, sizeof v);
    v.ir = fbe_schema_find_struct(f->proto, "proto.Account");
    fbe_arena_init(&v.arena, NULL, NULL);
    void *value = malloc(v.ir->host_size);
    v.arena.limit = 1; /* nothing can be allocated */
    fbe_json_read_options o = {.arena = &v.arena};
    fbe_json_error err;
    assert_int_equal(fbe_json_read(f->rd, v.ir, doc, strlen(doc), value, &o, &err), FBE_NOMEM);
    assert_string_equal(err.message, "$.name: out of memory");
    free(value);
    fbe_arena_free(&v.arena);
}

/* ---- writer errors and pretty output --------------------------------------------------------------------------------------------- */

static void writer(void **state)
{
    fixture *f = *state;
    const fbe_ir_struct *ir = fbe_schema_find_struct(f->proto, "proto.Account");
    val v;
    const char *doc = "{\"id\":1,\"name\":\"Test\",\"state\":6,\"wallet\":{\"currency\":\"USD\",\"amount\":1000.0},"
                      "\"asset\":null,\"orders\":[{\"id\":1,\"price\":1.5},{\"id\":2}]}";
    read_into(f, &v, f->proto, "proto.Account", doc, strlen(doc));
    assert_int_equal(v.st, FBE_OK);
    fbe_buffer out;
    fbe_buffer_init(&out, NULL, NULL);
    fbe_buffer_append(&out, "prefix", 6);
    assert_int_equal(fbe_json_write(ir, v.v, FBE_JSON_PRETTY, &out, NULL), FBE_OK);
    const char *pretty =
        "prefix{\n"
        "    \"id\": 1,\n"
        "    \"name\": \"Test\",\n"
        "    \"state\": 6,\n"
        "    \"wallet\": {\n"
        "        \"currency\": \"USD\",\n"
        "        \"amount\": 1000.0\n"
        "    },\n"
        "    \"asset\": null,\n"
        "    \"orders\": [\n"
        "        {\n"
        "            \"id\": 1,\n"
        "            \"symbol\": \"\",\n"
        "            \"side\": 0,\n"
        "            \"type\": 0,\n"
        "            \"price\": 1.5,\n"
        "            \"volume\": 0.0\n"
        "        },\n"
        "        {\n"
        "            \"id\": 2,\n"
        "            \"symbol\": \"\",\n"
        "            \"side\": 0,\n"
        "            \"type\": 0,\n"
        "            \"price\": 0.0,\n"
        "            \"volume\": 0.0\n"
        "        }\n"
        "    ]\n"
        "}";
    assert_int_equal(out.size, strlen(pretty));
    assert_memory_equal(out.data, pretty, out.size);

    /* a string that is not UTF-8: an error naming the field; the buffer keeps
     * only what it had */
    fbe_string *name = fbe_field_ptr(v.v, fbe_field_by_name(ir, "name"));
    name->data = "ok\xff";
    name->size = 3;
    fbe_json_error err;
    assert_int_equal(fbe_json_write(ir, v.v, 0, &out, &err), FBE_INVALID_ARGUMENT);
    assert_string_equal(err.message, "$.name: string is not valid UTF-8 (byte 0xFF at offset 2)");
    assert_int_equal(out.size, strlen(pretty));
    /* NaN deep inside */
    name->size = 2;
    fbe_seq *orders = fbe_field_ptr(v.v, fbe_field_by_name(ir, "orders"));
    const fbe_ir_struct *order = fbe_schema_find_struct(f->proto, "proto.Order");
    double nan = NAN;
    memcpy((char *)orders->data + order->host_size + fbe_field_by_name(order, "volume")->host_offset,
           &nan, sizeof nan);
    assert_int_equal(fbe_json_write(ir, v.v, 0, &out, &err), FBE_INVALID_ARGUMENT);
    assert_string_equal(err.message, "$.orders[1].volume: NaN cannot be written in JSON");
    /* a fixed buffer that is too small */
    char small[16];
    fbe_buffer fixed;
    fbe_buffer_init_fixed(&fixed, small, sizeof small);
    assert_int_not_equal(fbe_json_write(ir, v.v, 0, &fixed, &err), FBE_OK);
    assert_int_equal(fixed.size, 0);
    fbe_buffer_free(&out);
    val_free(&v);
}


/* ---- fbec encode / decode --format json ---------------------------------------------------- */

static void cli(void **state)
{
    (void)state;
    char cmd[2048], *out = NULL;
    const char *g = FBE_SHARED_DIR "/golden";
    const char *tmp = FBE_BINARY_DIR "/tests/test_json_cli.bin";
    /* .json -> .bin and .final.bin, byte for byte */
    static const char *const model[2][2] = {{"", "readme.bin"}, {"--final", "readme.final.bin"}};
    for (int m = 0; m < 2; m++) {
        remove(tmp);
        snprintf(cmd, sizeof cmd,
                 "%s encode --schema %s/schemas/proto.fbe --type proto.Account %s "
                 "%s/cases/proto/Account/readme.json -o %s && cmp %s %s/cases/proto/Account/%s",
                 FBEC_PATH, g, model[m][0], g, tmp, tmp, g, model[m][1]);
        int rc = run_command(cmd, &out);
        if (rc != 0)
            fail_msg("%s: %s", cmd, out);
        free(out);
    }
    /* .bin -> JSON: the golden text and a newline */
    snprintf(cmd, sizeof cmd,
             "%s decode --schema %s/schemas/proto.fbe --type proto.Account --format json "
             "%s/cases/proto/Account/readme.bin",
             FBEC_PATH, g, g);
    assert_int_equal(run_command(cmd, &out), 0);
    size_t n;
    char path[512];
    snprintf(path, sizeof path, "%s/cases/proto/Account/readme.json", g);
    uint8_t *want = read_file(path, &n);
    assert_int_equal(strlen(out), n + 1);
    assert_memory_equal(out, want, n);
    free(want);
    free(out);
    /* bad JSON: exit 1, the located message, and no output file */
    remove(tmp);
    snprintf(cmd, sizeof cmd,
             "printf '{\"orders\":[{},{},{\"price\":\"x\"}]}' | %s encode --schema "
             "%s/schemas/proto.fbe --type proto.Account -o %s",
             FBEC_PATH, g, tmp);
    assert_int_equal(run_command(cmd, &out), 1);
    assert_string_equal(out, "fbec encode: <stdin>: $.orders[2].price: expected a number, got a string\n");
    free(out);
    FILE *f = fopen(tmp, "rb");
    assert_null(f);
    /* usage errors */
    snprintf(cmd, sizeof cmd, "%s decode --schema %s/schemas/proto.fbe --type proto.Account --pretty /dev/null",
             FBEC_PATH, g);
    assert_int_equal(run_command(cmd, &out), 2);
    free(out);
    snprintf(cmd, sizeof cmd, "%s encode --schema %s/schemas/proto.fbe --type proto.Account --from final /dev/null",
             FBEC_PATH, g);
    assert_int_equal(run_command(cmd, &out), 2);
    free(out);
}

/* Whether a value of st can hold a decimal (levels: enough for the generated
 * schemas, whose structs refer only to earlier ones and to themselves). */
static bool holds_decimal(const fbe_ir_struct *st, int levels);

static bool type_holds_decimal(const fbe_ir_type *t, int levels)
{
    if (t->kind == FBE_IR_DECIMAL)
        return true;
    if (t->kind == FBE_IR_STRUCT)
        return holds_decimal(t->struct_type, levels - 1);
    return (t->elem && type_holds_decimal(t->elem, levels)) ||
           (t->key && type_holds_decimal(t->key, levels));
}

static bool holds_decimal(const fbe_ir_struct *st, int levels)
{
    if (levels <= 0)
        return false;
    for (size_t i = 0; i < st->field_count; i++)
        if (type_holds_decimal(st->fields[i].type, levels))
            return true;
    return false;
}

/* Whether the writer's "... not valid UTF-8 (byte 0xB at offset K)" names the
 * first bad byte of a string value_gen made that is not UTF-8 (with more than
 * GEN_BAD_MAX of them, the ones not kept are given the benefit of the doubt). */
static bool names_bad_string(const char *message, const gen_marks *made)
{
    const char *at = strstr(message, "(byte 0x");
    unsigned byte;
    size_t offset;
    if (!at || sscanf(at, "(byte 0x%2X at offset %zu)", &byte, &offset) != 2)
        return false;
    if (made->not_utf8 > GEN_BAD_MAX)
        return true;
    for (unsigned long i = 0; i < made->not_utf8; i++)
        if (utf8_valid_prefix(made->bad[i].data, made->bad[i].size) == offset &&
            made->bad[i].data[offset] == byte)
            return true;
    return false;
}

/* JSON text of `value`, read back into `back`: FBE_OK, or the writer's refusal
 * of a value that holds NaN or a string that is not UTF-8, which `made` (what
 * value_gen put in it) must say it holds (for a string, the refusal must name
 * the first bad byte of one of them); a value without either must go
 * through. */
static fbe_status json_round(fbe_json_reader *reader, const fbe_type *t, const void *value,
                             void *back, fbe_arena *arena, const gen_marks *made,
                             const char *what)
{
    fbe_buffer text;
    fbe_buffer_init(&text, NULL, NULL);
    fbe_json_error err;
    fbe_status st = fbe_json_write(t->ir, value, 0, &text, &err);
    if (st != FBE_OK) {
        if (!(made->nan && strstr(err.message, "NaN")) &&
            !(strstr(err.message, "not valid UTF-8") && names_bad_string(err.message, made)))
            fail_msg("%s: write: %s", what, err.message);
    } else if (made->nan || made->not_utf8) {
        fail_msg("%s: written though it holds %lu NaN and %lu strings not UTF-8:\n%.*s", what,
                 made->nan, made->not_utf8, (int)text.size, (const char *)text.data);
    } else {
        fbe_json_read_options o = {.arena = arena};
        st = fbe_json_read(reader, t->ir, (const char *)text.data, text.size, back, &o, &err);
        if (st != FBE_OK)
            fail_msg("%s: read: %s\n%.*s", what, err.message, (int)text.size,
                     (const char *)text.data);
    }
    fbe_buffer_free(&text);
    return st;
}

static bool same_frame(const fbe_type *t, const void *a, const void *b)
{
    fbe_buffer fa, fb;
    fbe_buffer_init(&fa, NULL, NULL);
    fbe_buffer_init(&fb, NULL, NULL);
    assert_int_equal(fbe_serialize(t, FBE_STANDARD, a, &fa), FBE_OK);
    assert_int_equal(fbe_serialize(t, FBE_STANDARD, b, &fb), FBE_OK);
    bool same = fa.size == fb.size && memcmp(fa.data, fb.data, fa.size) == 0;
    fbe_buffer_free(&fa);
    fbe_buffer_free(&fb);
    return same;
}

/* Random schemas (tests/schema_gen.c) and random values (tests/value_gen.c):
 * the JSON text of every value reads back to a value with the same standard
 * frame. A decimal reads back as its number, not its bytes (trailing zeros
 * dropped, zero of any sign or scale all zero: Decimal text in docs/json.md),
 * so a value that can hold one must read back, after one round, to a value
 * whose own round gives the same frame. Exactly the values holding NaN or a
 * string that is not UTF-8 are refused by the writer, with a message that says
 * so; strings are often UTF-8 of every kind of code point (control characters,
 * quotes, backslashes, U+2028, four-byte sequences), escaped or not. */
static void random_round_trip(void **state)
{
    (void)state;
    fbe_json_reader *reader = fbe_json_reader_new();
    assert_non_null(reader);
    unsigned long values = 0, refused = 0, normalized = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        char *src = gen_schema("rs", seed, 1);
        fbe_schema *schema = fbe_schema_load_string("random.fbe", src, strlen(src), NULL, NULL);
        if (!schema)
            fail_msg("seed %llu: the schema does not load:\n%s", (unsigned long long)seed, src);
        fbe_codec *codec = fbe_interp_create(schema, NULL, NULL);
        assert_non_null(codec);
        for (size_t k = 0; k < fbe_codec_type_count(codec); k++) {
            const fbe_type *t = fbe_codec_type_at(codec, k);
            size_t cap = (t->ir->host_size + 15) / 16 * 16 + 16;
            uint8_t *value = aligned_alloc(16, cap), *back = aligned_alloc(16, cap);
            assert_non_null(value);
            assert_non_null(back);
            fbe_arena arena;
            fbe_arena_init(&arena, NULL, NULL);
            bool decimals = holds_decimal(t->ir, 8);
            for (unsigned i = 0; i < 20; i++) {
                uint64_t rng = seed * 1000 + k * 100 + i;
                fbe_arena_reset(&arena);
                gen_made = (gen_marks){0};
                gen_value(t->ir, value, &arena, &rng, 0);
                char what[128];
                snprintf(what, sizeof what, "seed %llu %s value %u", (unsigned long long)seed,
                         t->ir->full_name, i);
                gen_marks made = gen_made;
                if (json_round(reader, t, value, back, &arena, &made, what) != FBE_OK) {
                    refused++;
                    continue;
                }
                if (decimals) { /* one more round: value <- back <- value */
                    assert_int_equal(
                        json_round(reader, t, back, value, &arena, &(gen_marks){0}, what), FBE_OK);
                    normalized++;
                }
                if (!same_frame(t, value, back))
                    fail_msg("%s: the value read back differs\n%s", what, src);
                values++;
            }
            fbe_arena_free(&arena);
            free(value);
            free(back);
        }
        fbe_codec_free(codec);
        fbe_schema_free(schema);
        free(src);
    }
    fbe_json_reader_free(reader);
    print_message("%lu random values read back (%lu after a first round: decimals), %lu refused "
                  "(NaN, not UTF-8)\n",
                  values, normalized, refused);
    assert_true(values - normalized > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers),
        cmocka_unit_test(shortest_digits),
        cmocka_unit_test(reference_examples),
        cmocka_unit_test(mapping),
        cmocka_unit_test(decimals),
        cmocka_unit_test(leniency),
        cmocka_unit_test(malformed),
        cmocka_unit_test(deep_nesting),
        cmocka_unit_test(big_strings),
        cmocka_unit_test(writer),
        cmocka_unit_test(cli),
        cmocka_unit_test(random_round_trip),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
