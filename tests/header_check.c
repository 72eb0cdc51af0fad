/* Compiled and run by test_header against the headers `fbec header` generated for
 * the four golden schemas. Every expected value below is written by hand from the
 * schema text in ../shared/golden/schemas and the spec (schema-language.md 4.3-4.7,
 * wire-format.md 2.9.5) -- never produced by fbe-c itself.
 *
 * Prints one line per failed check and exits non-zero if any failed. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "proto.h"
#include "protoex.h"
#include "test.h"
#include "enums.h"
#include "proto.h" /* the include guards let a unit include a header twice */

static int checks;
static int failures;

#define CHECK(cond)                                                                       \
    do {                                                                                  \
        checks++;                                                                         \
        if (!(cond)) {                                                                    \
            failures++;                                                                   \
            fprintf(stderr, "header_check: FAILED line %d: %s\n", __LINE__, #cond);       \
        }                                                                                 \
    } while (0)

static bool all_zero(const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return false;
    return true;
}

static bool str_is(fbe_string s, const char *text)
{
    size_t n = strlen(text);
    return s.size == n && s.data && memcmp(s.data, text, n) == 0;
}

/* The current time in ns since the epoch, from the C library (not fbe-c). */
static uint64_t now_ns(void)
{
    return (uint64_t)time(NULL) * UINT64_C(1000000000);
}

static bool near_now(uint64_t ts)
{
    uint64_t now = now_ns();
    uint64_t diff = ts > now ? ts - now : now - ts;
    return diff <= UINT64_C(5000000000); /* 5 s: time() truncates to seconds */
}

/* 123456.123456 on the wire (wire-format.md 2.9.5):
 * 40 f2 8e be 1c 00 00 00 | 00 00 00 00 | 00 00 06 00
 * = lo 0x0000001CBE8EF240, hi 0, flags 0x00060000 (scale 6, positive). */
static bool is_decimal_123456_123456(fbe_decimal d)
{
    return d.lo == UINT64_C(0x1CBE8EF240) && d.hi == 0 && d.flags == 0x00060000u;
}

/* "123e4567-e89b-12d3-a456-426655440000" */
static const uint8_t uuid_f38[16] = {0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3,
                                     0xa4, 0x56, 0x42, 0x66, 0x55, 0x44, 0x00, 0x00};

static void check_order_default(const proto_Order *o)
{
    CHECK(o->id == 0);
    CHECK(o->symbol.size == 0 && o->symbol.data == NULL);
    CHECK(o->side == 0);
    CHECK(o->type == 0);
    CHECK(o->price == 0.0);
    CHECK(o->volume == 0.0);
}

static void check_account_default(const proto_Account *a)
{
    CHECK(a->id == 0);
    CHECK(a->name.size == 0);
    CHECK(a->state == 0x0b); /* initialized (0x02) | bad (0x00|0x01|0x08) */
    CHECK(a->wallet.currency.size == 0);
    CHECK(a->wallet.amount == 0.0);
    CHECK(a->asset == NULL);
    CHECK(a->orders.data == NULL && a->orders.size == 0);
}

static void check_simple_default(const test_StructSimple *s)
{
    CHECK(s->id == 0);
    CHECK(s->f1 == false);
    CHECK(s->f2 == true);
    CHECK(s->f3 == 0);
    CHECK(s->f4 == 255);
    CHECK(s->f5 == 0);
    CHECK(s->f6 == '!');
    CHECK(s->f6 == 0x21);
    CHECK(s->f7 == 0);
    CHECK(s->f8 == 0x0444);
    CHECK(s->f9 == 0);
    CHECK(s->f10 == 127);
    CHECK(s->f11 == 0);
    CHECK(s->f12 == 255);
    CHECK(s->f13 == 0);
    CHECK(s->f14 == 32767);
    CHECK(s->f15 == 0);
    CHECK(s->f16 == 65535);
    CHECK(s->f17 == 0);
    CHECK(s->f18 == 2147483647);
    CHECK(s->f19 == 0);
    CHECK(s->f20 == 4294967295u);
    CHECK(s->f21 == 0);
    CHECK(s->f22 == INT64_MAX);
    CHECK(s->f23 == 0);
    CHECK(s->f24 == UINT64_MAX);
    CHECK(s->f25 == 0.0f);
    CHECK(s->f26 == 123.456f);
    CHECK(s->f27 == 0.0);
    CHECK(s->f28 == -123.456e+123);
    CHECK(all_zero(&s->f29, sizeof s->f29));
    CHECK(is_decimal_123456_123456(s->f30));
    CHECK(s->f31.size == 0 && s->f31.data == NULL);
    CHECK(str_is(s->f32, "Initial string!"));
    CHECK(s->f32.size == 15);
    CHECK(s->f33 == 0);
    CHECK(s->f34 == 0); /* epoch */
    CHECK(near_now(s->f35));
    CHECK(all_zero(&s->f36, sizeof s->f36));
    CHECK((s->f37.bytes[6] >> 4) == 1);       /* version 1 */
    CHECK((s->f37.bytes[8] & 0xc0) == 0x80);  /* RFC 4122 variant */
    CHECK(memcmp(s->f38.bytes, uuid_f38, 16) == 0);
    CHECK(s->f39 == 0);
    CHECK(s->f40 == 0);
    check_order_default(&s->f41);
    CHECK(s->f42.currency.size == 0 && s->f42.amount == 0.0);
    CHECK(s->f43 == 0);
    check_account_default(&s->f44);
    CHECK(s->f44.state == 0x0b);
}

static void check_optional_default(const test_StructOptional *o)
{
    check_simple_default(&o->base);
    CHECK(o->base.f2 == true);
    CHECK(!o->f100.has_value);
    CHECK(o->f101.has_value && o->f101.value == true);
    CHECK(!o->f102.has_value);
    CHECK(!o->f103.has_value);
    CHECK(o->f104.has_value && o->f104.value == 255);
    CHECK(!o->f105.has_value);
    CHECK(!o->f106.has_value);
    CHECK(o->f107.has_value && o->f107.value == '!');
    CHECK(!o->f108.has_value);
    CHECK(!o->f109.has_value);
    CHECK(o->f110.has_value && o->f110.value == 0x0444);
    CHECK(!o->f111.has_value);
    CHECK(!o->f112.has_value);
    CHECK(o->f113.has_value && o->f113.value == 127);
    CHECK(!o->f114.has_value);
    CHECK(!o->f115.has_value);
    CHECK(o->f116.has_value && o->f116.value == 255);
    CHECK(!o->f117.has_value);
    CHECK(!o->f118.has_value);
    CHECK(o->f119.has_value && o->f119.value == 32767);
    CHECK(!o->f120.has_value);
    CHECK(!o->f121.has_value);
    CHECK(o->f122.has_value && o->f122.value == 65535);
    CHECK(!o->f123.has_value);
    CHECK(!o->f124.has_value);
    CHECK(o->f125.has_value && o->f125.value == 2147483647);
    CHECK(!o->f126.has_value);
    CHECK(!o->f127.has_value);
    CHECK(o->f128.has_value && o->f128.value == 4294967295u);
    CHECK(!o->f129.has_value);
    CHECK(!o->f130.has_value);
    CHECK(o->f131.has_value && o->f131.value == INT64_MAX);
    CHECK(!o->f132.has_value);
    CHECK(!o->f133.has_value);
    CHECK(o->f134.has_value && o->f134.value == UINT64_MAX);
    CHECK(!o->f135.has_value);
    CHECK(!o->f136.has_value);
    CHECK(o->f137.has_value && o->f137.value == 123.456f);
    CHECK(!o->f138.has_value);
    CHECK(!o->f139.has_value);
    CHECK(o->f140.has_value && o->f140.value == -123.456e+123);
    CHECK(!o->f141.has_value);
    CHECK(!o->f142.has_value);
    CHECK(o->f143.has_value && is_decimal_123456_123456(o->f143.value));
    CHECK(!o->f144.has_value);
    CHECK(!o->f145.has_value);
    CHECK(o->f146.has_value && str_is(o->f146.value, "Initial string!"));
    CHECK(!o->f147.has_value);
    CHECK(!o->f148.has_value);
    CHECK(o->f149.has_value && near_now(o->f149.value));
    CHECK(!o->f150.has_value);
    CHECK(!o->f151.has_value);
    CHECK(o->f152.has_value && memcmp(o->f152.value.bytes, uuid_f38, 16) == 0);
    CHECK(!o->f153.has_value);
    CHECK(!o->f154.has_value);
    CHECK(!o->f155.has_value);
    CHECK(!o->f156.has_value);
    CHECK(!o->f157.has_value);
    CHECK(o->f158 == NULL);
    CHECK(o->f159 == NULL);
    CHECK(o->f160 == NULL);
    CHECK(o->f161 == NULL);
    CHECK(!o->f162.has_value);
    CHECK(!o->f163.has_value);
    CHECK(o->f164 == NULL);
    CHECK(o->f165 == NULL);
}

static void check_test(void)
{
    test_StructSimple s;
    memset(&s, 0xa5, sizeof s); /* init must not depend on prior contents */
    test_StructSimple_init(&s);
    check_simple_default(&s);

    /* uuid1 and utc are evaluated on every init (schema-language.md 4.7). */
    test_StructSimple s2;
    test_StructSimple_init(&s2);
    CHECK(memcmp(s.f37.bytes, s2.f37.bytes, 16) != 0);
    CHECK(s2.f35 >= s.f35);

    test_StructOptional o;
    memset(&o, 0xa5, sizeof o);
    test_StructOptional_init(&o);
    check_optional_default(&o);

    test_StructNested n;
    memset(&n, 0xa5, sizeof n);
    test_StructNested_init(&n);
    check_optional_default(&n.base);
    CHECK(n.base.base.f2 == true);
    CHECK(n.f1000 == 0);
    CHECK(!n.f1001.has_value);
    CHECK(n.f1002 == '2'); /* ENUM_VALUE_1 = '1', ENUM_VALUE_2 = '1' + 1 */
    CHECK(n.f1002 == 50);
    CHECK(!n.f1003.has_value);
    CHECK(n.f1004 == 0);
    CHECK(!n.f1005.has_value);
    CHECK(n.f1006 == (0x2 | 0x8 | 0x20));
    CHECK(n.f1006 == 42);
    CHECK(!n.f1007.has_value);
    check_simple_default(&n.f1008);
    CHECK(n.f1009 == NULL);
    check_optional_default(&n.f1010);
    CHECK(n.f1011 == NULL);

    test_StructBytes b;
    test_StructBytes_init(&b);
    CHECK(b.f1.data == NULL && b.f1.size == 0);
    CHECK(!b.f2.has_value && !b.f3.has_value);

    test_StructArray a;
    memset(&a, 0xa5, sizeof a);
    test_StructArray_init(&a);
    CHECK(sizeof a.f1 / sizeof a.f1[0] == 2);
    CHECK(a.f1[0] == 0 && a.f1[1] == 0);
    CHECK(!a.f2[0].has_value && !a.f2[1].has_value);
    CHECK(a.f3[1].size == 0);
    CHECK(!a.f4[1].has_value);
    CHECK(a.f5[1] == 0 && !a.f6[1].has_value && a.f7[1] == 0 && !a.f8[1].has_value);
    check_simple_default(&a.f9[0]);
    check_simple_default(&a.f9[1]);
    CHECK(a.f10[0] == NULL && a.f10[1] == NULL);

    test_StructVector v;
    memset(&v, 0xa5, sizeof v);
    test_StructVector_init(&v);
    CHECK(v.f1.data == NULL && v.f1.size == 0);
    CHECK(v.f9.data == NULL && v.f9.size == 0);
    CHECK(v.f10.data == NULL && v.f10.size == 0);

    test_StructList l;
    test_StructList_init(&l);
    CHECK(l.f10.data == NULL && l.f10.size == 0);

    test_StructSet st;
    test_StructSet_init(&st);
    CHECK(st.f4.data == NULL && st.f4.size == 0);

    test_StructMap m;
    test_StructMap_init(&m);
    CHECK(m.f9.data == NULL && m.f9.size == 0);
    CHECK(sizeof m.f1.data->key == 4 && sizeof m.f1.data->value == 1);

    test_StructHash h;
    test_StructHash_init(&h);
    CHECK(h.f10.data == NULL && h.f10.size == 0);
    CHECK(sizeof h.f1.data->key == sizeof(fbe_string));

    test_StructHashEx hx;
    test_StructHashEx_init(&hx);
    CHECK(hx.f1.data == NULL && hx.f2.size == 0);

    test_StructEmpty e;
    test_StructEmpty_init(&e);
    CHECK(sizeof e == 1);

    /* Type numbers (schema-language.md 4.5). */
    CHECK(test_StructSimple_TYPE == 110u);
    CHECK(test_StructOptional_TYPE == 111u);
    CHECK(test_StructNested_TYPE == 112u);
    CHECK(test_StructBytes_TYPE == 120u);
    CHECK(test_StructArray_TYPE == 125u);
    CHECK(test_StructVector_TYPE == 130u);
    CHECK(test_StructList_TYPE == 131u);
    CHECK(test_StructSet_TYPE == 132u);
    CHECK(test_StructMap_TYPE == 140u);
    CHECK(test_StructHash_TYPE == 141u);
    CHECK(test_StructHashEx_TYPE == 142u);
    CHECK(test_StructEmpty_TYPE == 143u);

    /* Enum and flags constants. */
    CHECK(test_EnumSimple_ENUM_VALUE_0 == 0);
    CHECK(test_EnumSimple_ENUM_VALUE_1 == 1);
    CHECK(test_EnumSimple_ENUM_VALUE_2 == 2);
    CHECK(test_EnumSimple_ENUM_VALUE_3 == 3);
    CHECK(test_EnumSimple_ENUM_VALUE_4 == 4);
    CHECK(test_EnumSimple_ENUM_VALUE_5 == 3);
    CHECK(sizeof(test_EnumSimple) == 4 && (test_EnumSimple)-1 < 0); /* default int32 */
    CHECK(test_EnumTyped_ENUM_VALUE_0 == 0);
    CHECK(test_EnumTyped_ENUM_VALUE_1 == '1');
    CHECK(test_EnumTyped_ENUM_VALUE_2 == '2');
    CHECK(test_EnumTyped_ENUM_VALUE_3 == '3');
    CHECK(test_EnumTyped_ENUM_VALUE_4 == '4');
    CHECK(test_EnumTyped_ENUM_VALUE_5 == '3');
    CHECK(sizeof(test_EnumTyped) == 1 && (test_EnumTyped)-1 > 0); /* char: uint8_t */
    CHECK(sizeof(test_EnumEmpty) == 4);
    CHECK(test_FlagsSimple_FLAG_VALUE_0 == 0);
    CHECK(test_FlagsSimple_FLAG_VALUE_1 == 1);
    CHECK(test_FlagsSimple_FLAG_VALUE_2 == 2);
    CHECK(test_FlagsSimple_FLAG_VALUE_3 == 4);
    CHECK(test_FlagsSimple_FLAG_VALUE_4 == 4);
    CHECK(test_FlagsSimple_FLAG_VALUE_5 == 5);
    CHECK(test_FlagsTyped_FLAG_VALUE_7 == 0x40);
    CHECK(test_FlagsTyped_FLAG_VALUE_8 == 0x40);
    CHECK(test_FlagsTyped_FLAG_VALUE_9 == 0x2a);
    CHECK(sizeof(test_FlagsTyped) == 8 && (test_FlagsTyped)-1 > 0);
    CHECK(sizeof(test_FlagsEmpty) == 4);
    CHECK(test_VERSION_MAJOR == 123 && test_VERSION_MINOR == 456);
}

static void check_proto(void)
{
    CHECK(proto_OrderSide_buy == 0);
    CHECK(proto_OrderSide_sell == 1);
    CHECK(proto_OrderType_market == 0);
    CHECK(proto_OrderType_limit == 1);
    CHECK(proto_OrderType_stop == 2);
    CHECK(proto_State_unknown == 0x00);
    CHECK(proto_State_invalid == 0x01);
    CHECK(proto_State_initialized == 0x02);
    CHECK(proto_State_calculated == 0x04);
    CHECK(proto_State_broken == 0x08);
    CHECK(proto_State_good == 6);
    CHECK(proto_State_bad == 0x09);
    CHECK(sizeof(proto_OrderSide) == 1 && sizeof(proto_State) == 1);
    CHECK(proto_Order_TYPE == 1u);
    CHECK(proto_Balance_TYPE == 2u);
    CHECK(proto_Account_TYPE == 3u);
    CHECK(proto_OrderMessage_TYPE == 1u);
    CHECK(proto_BalanceMessage_TYPE == 2u);
    CHECK(proto_AccountMessage_TYPE == 3u);
    CHECK(proto_VERSION_MAJOR == 1 && proto_VERSION_MINOR == 0);

    proto_Order o;
    memset(&o, 0xa5, sizeof o);
    proto_Order_init(&o);
    check_order_default(&o);

    proto_Account a;
    memset(&a, 0xa5, sizeof a);
    proto_Account_init(&a);
    check_account_default(&a);
    CHECK(a.state == (proto_State_initialized | proto_State_bad));

    proto_AccountMessage am;
    memset(&am, 0xa5, sizeof am);
    proto_AccountMessage_init(&am);
    check_account_default(&am.body);

    proto_OrderMessage om;
    proto_OrderMessage_init(&om);
    check_order_default(&om.body);
}

static void check_protoex(void)
{
    CHECK(protoex_OrderSide_tell == 2);
    CHECK(protoex_OrderType_stoplimit == 3);
    CHECK(protoex_StateEx_happy == 0x10);
    CHECK(protoex_StateEx_sad == 0x20);
    CHECK(protoex_StateEx_good == 0x06);
    CHECK(protoex_StateEx_bad == 0x09);
    CHECK(protoex_Order_TYPE == 1u);
    CHECK(protoex_Balance_TYPE == 2u); /* (base): proto.Balance's number */
    CHECK(protoex_Account_TYPE == 3u);
    CHECK(protoex_OrderMessage_TYPE == 11u);
    CHECK(protoex_BalanceMessage_TYPE == 12u);
    CHECK(protoex_AccountMessage_TYPE == 13u);

    protoex_Order o;
    memset(&o, 0xa5, sizeof o);
    protoex_Order_init(&o);
    CHECK(o.id == 0 && o.symbol.size == 0 && o.side == 0 && o.type == 0);
    CHECK(o.price == 0.0 && o.volume == 0.0);
    CHECK(o.tp == 10.0);
    CHECK(o.sl == -10.0);

    protoex_Balance b;
    memset(&b, 0xa5, sizeof b);
    protoex_Balance_init(&b);
    CHECK(b.base.currency.size == 0 && b.base.amount == 0.0);
    CHECK(b.locked == 0.0);
    /* The base is the first member: a derived pointer converts to its base. */
    CHECK((void *)&b == (void *)&b.base);
    const proto_Balance *as_base = &b.base;
    CHECK(as_base->amount == 0.0);

    protoex_Account a;
    memset(&a, 0xa5, sizeof a);
    protoex_Account_init(&a);
    CHECK(a.id == 0 && a.name.size == 0);
    CHECK(a.state == 0x2b); /* initialized | bad | sad = 0x02 | 0x09 | 0x20 */
    CHECK(a.state == (protoex_StateEx_initialized | protoex_StateEx_bad | protoex_StateEx_sad));
    CHECK(a.wallet.base.amount == 0.0 && a.wallet.locked == 0.0);
    CHECK(a.asset == NULL);
    CHECK(a.orders.size == 0 && a.orders.data == NULL);

    protoex_AccountMessage am;
    protoex_AccountMessage_init(&am);
    CHECK(am.body.state == 0x2b);
}

static void check_enums(void)
{
    enums_Enums e;
    memset(&e, 0xa5, sizeof e);
    enums_Enums_init(&e);

    /* EnumByte: V0; V1 = 0; V2; V3 = 254; V4; V5 = V3 */
    CHECK(e.byte0 == 0);
    CHECK(e.byte1 == 0);
    CHECK(e.byte2 == 1);
    CHECK(e.byte3 == 254);
    CHECK(e.byte4 == 255);
    CHECK(e.byte5 == 254);
    /* EnumChar: V1 = '1', V3 = '3' */
    CHECK(e.char0 == 0);
    CHECK(e.char1 == '1');
    CHECK(e.char2 == '2');
    CHECK(e.char3 == '3');
    CHECK(e.char4 == '4');
    CHECK(e.char5 == '3');
    /* EnumWChar: V1 = 0x0444, V3 = 0x0555 */
    CHECK(e.wchar0 == 0);
    CHECK(e.wchar1 == 0x444);
    CHECK(e.wchar2 == 0x445);
    CHECK(e.wchar3 == 0x555);
    CHECK(e.wchar4 == 0x556);
    CHECK(e.wchar5 == 0x555);
    /* EnumInt8: V1 = -128, V3 = 126 */
    CHECK(e.int8b0 == 0);
    CHECK(e.int8b1 == -128);
    CHECK(e.int8b2 == -127);
    CHECK(e.int8b3 == 126);
    CHECK(e.int8b4 == 127);
    CHECK(e.int8b5 == 126);
    /* EnumUInt8: V1 = 0, V3 = 254 */
    CHECK(e.uint8b0 == 0);
    CHECK(e.uint8b1 == 0);
    CHECK(e.uint8b2 == 1);
    CHECK(e.uint8b3 == 254);
    CHECK(e.uint8b4 == 255);
    CHECK(e.uint8b5 == 254);
    /* EnumInt16: V1 = -32768, V3 = 32766 */
    CHECK(e.int16b0 == 0);
    CHECK(e.int16b1 == -32768);
    CHECK(e.int16b2 == -32767);
    CHECK(e.int16b3 == 32766);
    CHECK(e.int16b4 == 32767);
    CHECK(e.int16b5 == 32766);
    /* EnumUInt16: V1 = 0, V3 = 65534 */
    CHECK(e.uint16b0 == 0);
    CHECK(e.uint16b1 == 0);
    CHECK(e.uint16b2 == 1);
    CHECK(e.uint16b3 == 65534);
    CHECK(e.uint16b4 == 65535);
    CHECK(e.uint16b5 == 65534);
    /* EnumInt32: V1 = -2147483648, V3 = 2147483646 */
    CHECK(e.int32b0 == 0);
    CHECK(e.int32b1 == INT32_MIN);
    CHECK(e.int32b2 == -2147483647);
    CHECK(e.int32b3 == 2147483646);
    CHECK(e.int32b4 == 2147483647);
    CHECK(e.int32b5 == 2147483646);
    /* EnumUInt32: V1 = 0, V3 = 0xFFFFFFFE */
    CHECK(e.uint32b0 == 0);
    CHECK(e.uint32b1 == 0);
    CHECK(e.uint32b2 == 1);
    CHECK(e.uint32b3 == 0xFFFFFFFEu);
    CHECK(e.uint32b4 == 0xFFFFFFFFu);
    CHECK(e.uint32b5 == 0xFFFFFFFEu);
    /* EnumInt64: V1 = -9223372036854775807, V3 = 9223372036854775806 */
    CHECK(e.int64b0 == 0);
    CHECK(e.int64b1 == -INT64_C(9223372036854775807));
    CHECK(e.int64b2 == -INT64_C(9223372036854775806));
    CHECK(e.int64b3 == INT64_C(9223372036854775806));
    CHECK(e.int64b4 == INT64_MAX);
    CHECK(e.int64b5 == INT64_C(9223372036854775806));
    /* EnumUInt64: V1 = 0, V3 = 0xFFFFFFFFFFFFFFFE */
    CHECK(e.uint64b0 == 0);
    CHECK(e.uint64b1 == 0);
    CHECK(e.uint64b2 == 1);
    CHECK(e.uint64b3 == UINT64_C(0xFFFFFFFFFFFFFFFE));
    CHECK(e.uint64b4 == UINT64_MAX);
    CHECK(e.uint64b5 == UINT64_C(0xFFFFFFFFFFFFFFFE));

    /* Base types: size and signedness. */
    CHECK(sizeof(enums_EnumByte) == 1 && (enums_EnumByte)-1 > 0);
    CHECK(sizeof(enums_EnumChar) == 1 && (enums_EnumChar)-1 > 0);
    CHECK(sizeof(enums_EnumWChar) == 4 && (enums_EnumWChar)-1 > 0);
    CHECK(sizeof(enums_EnumInt8) == 1 && (enums_EnumInt8)-1 < 0);
    CHECK(sizeof(enums_EnumUInt8) == 1 && (enums_EnumUInt8)-1 > 0);
    CHECK(sizeof(enums_EnumInt16) == 2 && (enums_EnumInt16)-1 < 0);
    CHECK(sizeof(enums_EnumUInt16) == 2 && (enums_EnumUInt16)-1 > 0);
    CHECK(sizeof(enums_EnumInt32) == 4 && (enums_EnumInt32)-1 < 0);
    CHECK(sizeof(enums_EnumUInt32) == 4 && (enums_EnumUInt32)-1 > 0);
    CHECK(sizeof(enums_EnumInt64) == 8 && (enums_EnumInt64)-1 < 0);
    CHECK(sizeof(enums_EnumUInt64) == 8 && (enums_EnumUInt64)-1 > 0);

    /* The constants themselves. */
    CHECK(enums_EnumInt8_ENUM_VALUE_1 == -128);
    CHECK(enums_EnumInt32_ENUM_VALUE_1 == INT32_MIN);
    CHECK(enums_EnumInt64_ENUM_VALUE_1 == -INT64_C(9223372036854775807));
    CHECK(enums_EnumInt64_ENUM_VALUE_4 == INT64_MAX);
    CHECK(enums_EnumUInt64_ENUM_VALUE_4 == UINT64_MAX);
    CHECK(enums_EnumChar_ENUM_VALUE_4 == '4');
    CHECK(enums_EnumWChar_ENUM_VALUE_4 == 0x556);
    CHECK(enums_Enums_TYPE == 1u);
}

int main(void)
{
    check_proto();
    check_protoex();
    check_test();
    check_enums();
    printf("header_check: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
