/* The four reference schemas resolve, and the IR agrees with the reference:
 * type numbers (spec schema-language 4.5), body sizes and offsets (wire-format 11),
 * and the header of every golden .bin / .final.bin file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static const char *const golden_schemas[] = {"proto", "protoex", "test", "enums"};

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void test_golden_schemas_load(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof golden_schemas / sizeof *golden_schemas; i++) {
        fbe_schema *s = load_golden(golden_schemas[i]);
        assert_string_equal(fbe_schema_root(s)->name, golden_schemas[i]);
        fbe_schema_free(s);
    }
}

typedef struct numbered {
    const char *name;
    uint32_t number;
} numbered;

static void check_numbers(const char *schema, const numbered *expect, size_t n)
{
    fbe_schema *s = load_golden(schema);
    for (size_t i = 0; i < n; i++) {
        const fbe_ir_struct *st = fbe_schema_find_struct(s, expect[i].name);
        if (!st)
            fail_msg("%s not found", expect[i].name);
        if (st->type_number != expect[i].number)
            fail_msg("%s: type %u, expected %u", expect[i].name, st->type_number,
                     expect[i].number);
    }
    fbe_schema_free(s);
}

static void test_type_numbers(void **state)
{
    (void)state;
    static const numbered proto[] = {{"proto.Order", 1},          {"proto.Balance", 2},
                                     {"proto.Account", 3},        {"proto.OrderMessage", 1},
                                     {"proto.BalanceMessage", 2}, {"proto.AccountMessage", 3}};
    static const numbered protoex[] = {
        {"protoex.Order", 1},          {"protoex.Balance", 2},         {"protoex.Account", 3},
        {"protoex.OrderMessage", 11},  {"protoex.BalanceMessage", 12}, {"protoex.AccountMessage", 13},
        {"proto.Balance", 2}};
    static const numbered test[] = {
        {"StructSimple", 110}, {"StructOptional", 111}, {"StructNested", 112},
        {"StructBytes", 120},  {"StructArray", 125},    {"StructVector", 130},
        {"StructList", 131},   {"StructSet", 132},      {"StructMap", 140},
        {"StructHash", 141},   {"StructHashEx", 142},   {"StructEmpty", 143}};
    static const numbered enums[] = {{"enums.Enums", 1}};
    check_numbers("proto", proto, sizeof proto / sizeof *proto);
    check_numbers("protoex", protoex, sizeof protoex / sizeof *protoex);
    check_numbers("test", test, sizeof test / sizeof *test);
    check_numbers("enums", enums, sizeof enums / sizeof *enums);

    /* schema-language.md 4.5: package q offset 50. */
    diag_capture cap;
    fbe_schema *s = load_text("package q offset 50\nstruct A {}\nstruct B {}\nstruct C {}\n"
                              "struct D {}\nmessage M1 {}\nmessage M2(+100) {}\nmessage M3 {}\n"
                              "message M4(7) {}\n",
                              &cap);
    assert_non_null(s);
    static const numbered q[] = {{"A", 51},  {"B", 52},   {"C", 53},   {"D", 54},
                                 {"M1", 55}, {"M2", 150}, {"M3", 151}, {"M4", 7}};
    for (size_t i = 0; i < sizeof q / sizeof *q; i++)
        assert_int_equal(fbe_schema_find_struct(s, q[i].name)->type_number, q[i].number);
    fbe_schema_free(s);
}

static void test_proto_layout(void **state)
{
    (void)state;
    fbe_schema *s = load_golden("proto");
    /* wire-format 11.1: Order body 34, fields at 8, 12, 16, 17, 18, 26. */
    const fbe_ir_struct *order = fbe_schema_find_struct(s, "Order");
    assert_int_equal(order->std_body_size, 34);
    static const uint32_t order_offsets[] = {8, 12, 16, 17, 18, 26};
    assert_int_equal(order->field_count, 6);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(order->fields[i].std_offset, order_offsets[i]);
    assert_true(order->fields[0].is_key);
    /* 11.2: Account body 30 = 8 + 4 + 4 + 1 + 4 + 5 + 4; Balance body 20. */
    const fbe_ir_struct *account = fbe_schema_find_struct(s, "Account");
    assert_int_equal(account->std_body_size, 30);
    static const uint32_t account_offsets[] = {8, 12, 16, 17, 21, 26};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(account->fields[i].std_offset, account_offsets[i]);
    assert_int_equal(fbe_schema_find_struct(s, "Balance")->std_body_size, 20);
    /* State default = initialized | bad = 0x02 | 0x09 = 0x0b (11.3). */
    assert_int_equal(account->fields[2].default_value.kind, FBE_IR_VALUE_INT);
    assert_int_equal(account->fields[2].default_value.u, 0x0b);
    assert_int_equal(account->fields[4].type->kind, FBE_IR_OPTIONAL);
    assert_int_equal(account->fields[5].type->kind, FBE_IR_VECTOR);
    assert_ptr_equal(account->fields[5].type->elem->struct_type, order);

    /* Host layout (docs/host-abi.md): int32 @0, fbe_string @8, two bytes @24/25,
     * doubles @32/40; Account embeds Balance (24 bytes) by value and points to the
     * optional one. */
    static const uint32_t order_host[] = {0, 8, 24, 25, 32, 40};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(order->fields[i].host_offset, order_host[i]);
    assert_int_equal(order->host_size, 48);
    assert_int_equal(order->host_align, 8);
    static const uint32_t account_host[] = {0, 8, 24, 32, 56, 64};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(account->fields[i].host_offset, account_host[i]);
    assert_int_equal(account->host_size, 80);

    const fbe_ir_flags *state_flags = fbe_schema_find_flags(s, "State");
    assert_int_equal(state_flags->base, FBE_IR_BYTE);
    assert_int_equal(state_flags->value_count, 7);
    assert_string_equal(state_flags->values[5].name, "good");
    assert_int_equal(state_flags->values[5].value, 6);
    assert_int_equal(state_flags->values[6].value, 9);
    fbe_schema_free(s);
}

/* wire-format 11.4 and 11.5: inheritance, optionals and every collection. */
static void test_example_layouts(void **state)
{
    (void)state;
    diag_capture cap;
    fbe_schema *s = load_text(ex_schema, &cap);
    if (!s)
        fail_msg("%s", cap.text);
    const fbe_ir_struct *base = fbe_schema_find_struct(s, "Base");
    const fbe_ir_struct *derived = fbe_schema_find_struct(s, "Derived");
    const fbe_ir_struct *coll = fbe_schema_find_struct(s, "Coll");
    const fbe_ir_struct *empty = fbe_schema_find_struct(s, "Empty");
    assert_int_equal(base->type_number, 51);
    assert_int_equal(derived->type_number, 52);
    assert_int_equal(coll->type_number, 53);
    assert_int_equal(empty->type_number, 54);
    assert_int_equal(base->std_body_size, 14);
    assert_int_equal(derived->std_body_size, 20);
    assert_int_equal(derived->field_count, 4);
    assert_int_equal(derived->own_field_start, 2);
    assert_ptr_equal(derived->fields[0].owner, base);
    static const uint32_t derived_std[] = {8, 10, 14, 15};
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(derived->fields[i].std_offset, derived_std[i]);
    /* 11.5: struct_size 101; offsets from the annotated dump (0x10 - 8 = 8, ...). */
    assert_int_equal(coll->std_body_size, 101);
    static const uint32_t coll_std[] = {8,  11, 15, 19, 23, 27, 31, 35, 40,
                                        45, 49, 50, 52, 68, 84, 92, 93, 97};
    assert_int_equal(coll->field_count, 18);
    for (size_t i = 0; i < 18; i++)
        assert_int_equal(coll->fields[i].std_offset, coll_std[i]);
    assert_int_equal(coll->fields[10].default_value.u, 6); /* blue = green + 1 */
    assert_int_equal(coll->fields[11].default_value.u, 3);
    assert_int_equal(coll->fields[16].default_value.u, 0x444);
    assert_int_equal(empty->std_body_size, 8);
    assert_true(empty->final_fixed);
    assert_int_equal(empty->final_size, 0);
    assert_int_equal(empty->host_size, 1);
    /* Host: Derived embeds Base (int16 @0, fbe_string @8; size 24), then b @24 and
     * the optional int32 {bool, int32} @28 (8 bytes, value at +4). */
    assert_int_equal(base->host_size, 24);
    assert_int_equal(derived->fields[2].host_offset, 24);
    assert_int_equal(derived->fields[3].host_offset, 28);
    assert_int_equal(derived->fields[3].type->host_size, 8);
    assert_int_equal(derived->fields[3].type->host_value_offset, 4);
    assert_int_equal(derived->host_size, 40);
    /* Map entry {int32 key; fbe_string value;}: value at 8, entry 24 bytes. */
    const fbe_ir_type *mp = coll->fields[4].type;
    assert_int_equal(mp->kind, FBE_IR_MAP);
    assert_int_equal(mp->key->kind, FBE_IR_INT32);
    assert_int_equal(mp->host_entry_value_offset, 8);
    assert_int_equal(mp->host_entry_size, 24);
    fbe_schema_free(s);
}

static void test_enums_values(void **state)
{
    (void)state;
    fbe_schema *s = load_golden("enums");
    /* schema-language 4.3 examples. */
    static const uint64_t byte_values[] = {0, 0, 1, 254, 255, 254};
    static const uint64_t char_values[] = {0, 49, 50, 51, 52, 51};
    static const uint64_t wchar_values[] = {0, 0x444, 0x445, 0x555, 0x556, 0x555};
    static const int64_t int8_values[] = {0, -128, -127, 126, 127, 126};
    static const int64_t int64_values[] = {0, -9223372036854775807, -9223372036854775806,
                                           9223372036854775806, INT64_MAX, 9223372036854775806};
    static const uint64_t uint64_values[] = {0, 0, 1, 0xFFFFFFFFFFFFFFFE, UINT64_MAX,
                                             0xFFFFFFFFFFFFFFFE};
    const fbe_ir_enum *e = fbe_schema_find_enum(s, "EnumByte");
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(e->values[i].value, byte_values[i]);
    e = fbe_schema_find_enum(s, "EnumChar");
    assert_int_equal(e->base, FBE_IR_CHAR);
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(e->values[i].value, char_values[i]);
    e = fbe_schema_find_enum(s, "EnumWChar");
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(e->values[i].value, wchar_values[i]);
    e = fbe_schema_find_enum(s, "EnumInt8");
    for (size_t i = 0; i < 6; i++)
        assert_int_equal((int64_t)e->values[i].value, int8_values[i]);
    e = fbe_schema_find_enum(s, "EnumInt64");
    for (size_t i = 0; i < 6; i++)
        assert_int_equal((int64_t)e->values[i].value, int64_values[i]);
    e = fbe_schema_find_enum(s, "EnumUInt64");
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(e->values[i].value, uint64_values[i]);
    /* 232 standard bytes = 8 frame + 8 header + 216 inline; final 224 = 8 + 216. */
    const fbe_ir_struct *st = fbe_schema_find_struct(s, "Enums");
    assert_int_equal(st->std_body_size, 224);
    assert_true(st->final_fixed);
    assert_int_equal(st->final_size, 216);
    fbe_schema_free(s);
}

static void test_simple_defaults(void **state)
{
    (void)state;
    fbe_schema *s = load_golden("test");
    const fbe_ir_struct *st = fbe_schema_find_struct(s, "StructSimple");
    assert_int_equal(st->field_count, 45);
    const fbe_ir_field *f = st->fields;
    assert_int_equal(f[2].default_value.kind, FBE_IR_VALUE_BOOL); /* f2 = true */
    assert_true(f[2].default_value.b);
    assert_int_equal(f[4].default_value.u, 255);              /* byte max */
    assert_int_equal(f[6].default_value.u, '!');
    assert_int_equal(f[8].default_value.u, 0x0444);
    assert_int_equal(f[10].default_value.u, 127);
    assert_int_equal(f[11].default_value.u, 0);
    assert_int_equal(f[14].default_value.u, 32767);
    assert_int_equal(f[20].default_value.u, 4294967295u);
    assert_int_equal(f[22].default_value.u, (uint64_t)INT64_MAX);
    assert_int_equal(f[24].default_value.u, UINT64_MAX);
    assert_true(f[26].default_value.d == (double)123.456f);
    assert_true(f[28].default_value.d == -123.456e+123);
    /* 123456.123456 -> 123456123456 scale 6 (wire-format 2.9.5). */
    assert_int_equal(f[30].default_value.kind, FBE_IR_VALUE_DECIMAL);
    assert_int_equal(f[30].default_value.dec.lo, 123456123456ull);
    assert_int_equal(f[30].default_value.dec.hi, 0);
    assert_int_equal(f[30].default_value.dec.flags, 6u << 16);
    assert_int_equal(f[32].default_value.kind, FBE_IR_VALUE_STRING);
    assert_int_equal(f[32].default_value.str.size, 15);
    assert_memory_equal(f[32].default_value.str.data, "Initial string!", 15);
    assert_int_equal(f[34].default_value.kind, FBE_IR_VALUE_INT); /* epoch */
    assert_int_equal(f[34].default_value.u, 0);
    assert_int_equal(f[35].default_value.kind, FBE_IR_VALUE_UTC);
    assert_int_equal(f[37].default_value.kind, FBE_IR_VALUE_UUID1);
    static const uint8_t u38[16] = {0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3,
                                    0xa4, 0x56, 0x42, 0x66, 0x55, 0x44, 0x00, 0x00};
    assert_memory_equal(f[38].default_value.uuid.bytes, u38, 16);
    assert_int_equal(f[39].type->kind, FBE_IR_ENUM);
    assert_string_equal(f[39].type->enum_type->full_name, "proto.OrderSide");
    assert_int_equal(f[44].type->struct_type->type_number, 3);

    const fbe_ir_struct *opt = fbe_schema_find_struct(s, "StructOptional");
    assert_ptr_equal(opt->base, st);
    assert_int_equal(opt->own_field_start, 45);
    assert_int_equal(opt->fields[45].type->kind, FBE_IR_OPTIONAL); /* f100 */
    assert_int_equal(opt->fields[45].default_value.kind, FBE_IR_VALUE_NONE);
    assert_int_equal(opt->fields[46].default_value.kind, FBE_IR_VALUE_BOOL); /* f101 = true */
    assert_int_equal(opt->fields[47].default_value.kind, FBE_IR_VALUE_NULL);
    fbe_schema_free(s);
}

/* Every golden binary starts with what the IR predicts: the standard frame's
 * struct_size is the body size and its type the struct's number; the final frame
 * carries the number and, for fixed-size structs, the exact size. */
static void test_golden_frames(void **state)
{
    (void)state;
    size_t len;
    char *manifest = (char *)read_file(shared_path("golden/MANIFEST.tsv"), &len);
    size_t checked = 0;
    fbe_schema *schemas[4] = {0};
    for (char *line = strtok(manifest, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        char schema[64], pkg[64], type[64], kase[64], files[1024];
        if (sscanf(line, "%63[^\t]\t%63[^\t]\t%63[^\t]\t%63[^\t]\t%1023[^\t]", schema, pkg,
                   type, kase, files) != 5)
            continue;
        if (strcmp(type, "protocol") == 0 || strchr(pkg, '>'))
            continue;
        size_t which = 4;
        for (size_t i = 0; i < 4; i++) {
            char name[64];
            snprintf(name, sizeof name, "%s.fbe", golden_schemas[i]);
            if (strcmp(schema, name) == 0)
                which = i;
        }
        assert_true(which < 4);
        if (!schemas[which])
            schemas[which] = load_golden(golden_schemas[which]);
        char full[160];
        snprintf(full, sizeof full, "%s.%s", pkg, type);
        const fbe_ir_struct *st = fbe_schema_find_struct(schemas[which], full);
        if (!st)
            fail_msg("%s not in IR", full);

        char rel[256];
        snprintf(rel, sizeof rel, "golden/cases/%s/%s/%s.bin", pkg, type, kase);
        size_t n;
        uint8_t *bin = read_file(shared_path(rel), &n);
        assert_true(n >= 16);
        assert_int_equal(get_u32(bin), n);
        assert_int_equal(get_u32(bin + 4), 8);
        if (get_u32(bin + 8) != st->std_body_size || get_u32(bin + 12) != st->type_number)
            fail_msg("%s: golden body %u type %u, IR body %u type %u", rel, get_u32(bin + 8),
                     get_u32(bin + 12), st->std_body_size, st->type_number);
        free(bin);

        snprintf(rel, sizeof rel, "golden/cases/%s/%s/%s.final.bin", pkg, type, kase);
        bin = read_file(shared_path(rel), &n);
        assert_int_equal(get_u32(bin), n);
        assert_int_equal(get_u32(bin + 4), st->type_number);
        if (st->final_fixed)
            assert_int_equal(n, 8 + st->final_size);
        free(bin);
        checked++;
    }
    for (size_t i = 0; i < 4; i++)
        fbe_schema_free(schemas[i]);
    free(manifest);
    assert_int_equal(checked, 112); /* every case of MANIFEST.tsv */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_schemas_load), cmocka_unit_test(test_type_numbers),
        cmocka_unit_test(test_proto_layout),        cmocka_unit_test(test_example_layouts),
        cmocka_unit_test(test_enums_values),        cmocka_unit_test(test_simple_defaults),
        cmocka_unit_test(test_golden_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
