/* fbe_native_std_ref, the rare path of native standard-model code: which check
 * of a reference failed, with the status and position docs/codec.md documents
 * (the offset that is wrong, the body's size or type field, the block's
 * length or count field, the offset of a too-deep body, the region the budget
 * ran out on). And fbe_native_final_run_*, the rare path of a final-model run
 * that does not fit: the field a one-by-one walk stops at, what is read before
 * it and what is zeroed. Frames are written byte by byte here; expected
 * positions are counted by hand. */
#include <string.h>

#include "native_helpers.h"
#include "test_util.h"

enum { FRAME = 64 };

static uint8_t frame[FRAME];

static void put32(size_t at, uint32_t v)
{
    memcpy(frame + at, &v, 4);
}

static uint64_t what(unsigned kind, bool no_level, uint32_t arg)
{
    return (uint64_t)kind << 33 | (uint64_t)no_level << 32 | arg;
}

static void expect(uint64_t pos, uint64_t base, uint64_t w, fbe_status status, uint64_t at)
{
    fbe_native_failure f = fbe_native_std_ref(frame, FRAME, pos, base, w);
    assert_int_equal(f.status, status);
    assert_int_equal(f.pos, at);
}

/* A struct reference at 8 (base 0) to a body of type 7. */
static void test_struct(void **state)
{
    (void)state;
    memset(frame, 0, sizeof frame);
    uint64_t w = what(FBE_NATIVE_REF_STRUCT, false, 7);
    expect(8, 0, w, FBE_NULL_OFFSET, 8);
    put32(8, 60); /* 60 + 8 > 64 */
    expect(8, 0, w, FBE_BAD_OFFSET, 8);
    put32(8, 16);
    put32(16, 7); /* size < 8 */
    expect(8, 0, w, FBE_BAD_STRUCT_SIZE, 16);
    put32(16, 49); /* 16 + 49 > 64 */
    expect(8, 0, w, FBE_BAD_STRUCT_SIZE, 16);
    put32(16, 24);
    put32(20, 6);
    expect(8, 0, w, FBE_BAD_TYPE, 20);
    put32(20, 7);
    expect(8, 0, what(FBE_NATIVE_REF_STRUCT, true, 7), FBE_TOO_DEEP, 8);
    /* every check before the budget passes: the budget is charged last, and
     * the rare path has none left */
    expect(8, 0, w, FBE_TRAVERSAL_LIMIT, 16);
    /* relative to another base */
    put32(8, 12);
    expect(8, 4, w, FBE_TRAVERSAL_LIMIT, 16);
}

/* An optional at 8 (flag) with its offset at 9, slot of 4 bytes. */
static void test_optional(void **state)
{
    (void)state;
    memset(frame, 0, sizeof frame);
    frame[8] = 1;
    uint64_t w = what(FBE_NATIVE_REF_OPTIONAL, false, 4);
    expect(8, 0, w, FBE_NULL_OFFSET, 9);
    memcpy(frame + 9, &(uint32_t){61}, 4); /* 61 + 4 > 64 */
    expect(8, 0, w, FBE_BAD_OFFSET, 9);
    memcpy(frame + 9, &(uint32_t){60}, 4);
    expect(8, 0, w, FBE_TRAVERSAL_LIMIT, 60);
}

/* A string and a collection of 4-byte elements whose offsets are at 8. */
static void test_blocks(void **state)
{
    (void)state;
    memset(frame, 0, sizeof frame);
    uint64_t s = what(FBE_NATIVE_REF_STRING, false, 0);
    uint64_t b = what(FBE_NATIVE_REF_BLOCK, false, 4);
    put32(8, 61); /* the 4-byte header does not fit */
    expect(8, 0, s, FBE_BAD_OFFSET, 8);
    expect(8, 0, b, FBE_BAD_OFFSET, 8);
    put32(8, 40);
    put32(40, 21); /* 44 + 21 > 64 */
    expect(8, 0, s, FBE_BAD_LENGTH, 40);
    put32(40, 6); /* 44 + 6 * 4 > 64 */
    expect(8, 0, b, FBE_BAD_COUNT, 40);
    put32(40, 5);
    expect(8, 0, s, FBE_TRAVERSAL_LIMIT, 40);
    expect(8, 0, b, FBE_TRAVERSAL_LIMIT, 40);
    /* a count of 0 is still charged its 4-byte header */
    put32(40, 0);
    expect(8, 0, b, FBE_TRAVERSAL_LIMIT, 40);
}

/* Native code sends a string or block at offset 0 to its empty path, never
 * here: should it, no check fails, and the answer is an error, not success. */
static void test_nothing_failed(void **state)
{
    (void)state;
    memset(frame, 0, sizeof frame);
    expect(8, 0, what(FBE_NATIVE_REF_STRING, false, 0), FBE_UNSUPPORTED, 8);
    expect(8, 0, what(FBE_NATIVE_REF_BLOCK, false, 1), FBE_UNSUPPORTED, 8);
}

/* Final model: a run of a (4 bytes), b (bool), c (bool[3]), d (8 bytes), then
 * the string s whose 4-byte length native code checks with them: 20 bytes from
 * 8 on. */
static const char run_schema[] = "package t\n"
                                 "struct R { int32 a; bool b; bool[3] c; int64 d; string s; }\n";

static void expect_run_verify(const fbe_ir_struct *st, uint64_t end, size_t field, uint64_t at)
{
    fbe_verify_info info;
    memset(&info, 0, sizeof info);
    fbe_native_final_run_verify(&info, end, 8, st->fields, 4, st);
    assert_int_equal(info.status, FBE_TRUNCATED);
    assert_int_equal(info.offset, at);
    assert_ptr_equal(info.type, st);
    assert_ptr_equal(info.field, &st->fields[field]);
}

static void expect_run_verify_at(const fbe_ir_struct *st, uint64_t end, uint64_t pos,
                                 size_t field, uint64_t at)
{
    fbe_verify_info info;
    memset(&info, 0, sizeof info);
    fbe_native_final_run_verify(&info, end, pos, st->fields, 4, st);
    assert_int_equal(info.status, FBE_TRUNCATED);
    assert_int_equal(info.offset, at);
    assert_ptr_equal(info.field, &st->fields[field]);
}

static void test_final_run_verify(void **state)
{
    (void)state;
    fbe_schema *schema = load_text_ok(run_schema);
    const fbe_ir_struct *st = fbe_schema_find_struct(schema, "t.R");
    assert_non_null(st);
    expect_run_verify(st, 11, 0, 8);  /* a needs 8..12 */
    expect_run_verify(st, 12, 1, 12); /* b needs 12 */
    expect_run_verify(st, 15, 2, 13); /* c needs 13..16 */
    expect_run_verify(st, 23, 3, 16); /* d needs 16..24 */
    expect_run_verify(st, 27, 4, 24); /* all fit: s's length at 24 does not */
    fbe_native_final_run_verify(NULL, 11, 8, st->fields, 4, st); /* no info: no report */
    expect_run_verify_at(st, 8, 11, 0, 11); /* past the end: nothing fits, no wrapped room */
    fbe_schema_free(schema);
}

/* The fields that fit are read (bools as 0/1), the rest of the walk's fields
 * are zero, fields past the walk are left alone. */
static void test_final_run_read(void **state)
{
    (void)state;
    fbe_schema *schema = load_text_ok(run_schema);
    const fbe_ir_struct *st = fbe_schema_find_struct(schema, "t.R");
    assert_non_null(st);
    const fbe_ir_field *f = st->fields;
    memset(frame, 0, sizeof frame);
    put32(8, 0x01020304);
    frame[12] = 7;
    frame[13] = 0, frame[14] = 9, frame[15] = 1;
    memset(frame + 16, 0x55, 8);
    uint8_t host[128];
    assert_true(st->host_size <= sizeof host);
    memset(host, 0xAA, sizeof host);
    fbe_native_final_run_read(frame, 23, 8, host, f, 4, 5); /* d does not fit */
    int32_t a;
    memcpy(&a, host + f[0].host_offset, 4);
    assert_int_equal(a, 0x01020304);
    assert_int_equal(host[f[1].host_offset], 1);
    assert_int_equal(host[f[2].host_offset], 0);
    assert_int_equal(host[f[2].host_offset + 1], 1);
    assert_int_equal(host[f[2].host_offset + 2], 1);
    for (size_t i = 0; i < 8; i++)
        assert_int_equal(host[f[3].host_offset + i], 0);
    for (size_t i = 0; i < 16; i++)
        assert_int_equal(host[f[4].host_offset + i], 0);

    memset(host, 0xAA, sizeof host);
    fbe_native_final_run_read(frame, 11, 8, host, f, 4, 2); /* nothing fits; zero a, b only */
    assert_int_equal(host[f[0].host_offset], 0);
    assert_int_equal(host[f[1].host_offset], 0);
    assert_int_equal(host[f[2].host_offset], 0xAA);

    /* a position past the end: nothing is read (no wrapped room), all zeroed */
    memset(host, 0xAA, sizeof host);
    fbe_native_final_run_read(frame, 11, 20, host, f, 4, 5);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(host[f[i].host_offset], 0);

    /* the zeroing alone, as native code's failure paths call it: fields [1, 3) */
    memset(host, 0xAA, sizeof host);
    fbe_native_zero_fields(host, f, 1, 3);
    assert_int_equal(host[f[0].host_offset], 0xAA);
    assert_int_equal(host[f[1].host_offset], 0);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(host[f[2].host_offset + i], 0);
    assert_int_equal(host[f[3].host_offset], 0xAA);
    fbe_schema_free(schema);
}

/* Fixed structs nested by value: Top { int8 b; Mid m; } at 8, Mid { int16 a;
 * In i; In[2] arr; } at 9, In { int32 x; } at 11, 15 and 19. */
static void test_final_depth(void **state)
{
    (void)state;
    fbe_schema *schema = load_text_ok("package t\n"
                                      "struct In { int32 x; }\n"
                                      "struct Mid { int16 a; In i; In[2] arr; }\n"
                                      "struct Top { int8 b; Mid m; }\n");
    const fbe_ir_struct *top = fbe_schema_find_struct(schema, "t.Top");
    const fbe_ir_struct *mid = fbe_schema_find_struct(schema, "t.Mid");
    assert_non_null(top);
    assert_non_null(mid);
    memset(frame, 0, sizeof frame);
    fbe_verify_info info;
    /* no level below Top: Mid, at 9, is one too many */
    memset(&info, 0, sizeof info);
    assert_int_equal(fbe_native_final_depth(&info, frame, 8, 0, top), -(int64_t)FBE_TOO_DEEP);
    assert_int_equal(info.status, FBE_TOO_DEEP);
    assert_int_equal(info.offset, 9);
    assert_ptr_equal(info.type, top);
    assert_ptr_equal(info.field, &top->fields[1]);
    /* one level: Mid fits, its first In (at 11) does not */
    memset(&info, 0, sizeof info);
    assert_int_equal(fbe_native_final_depth(&info, frame, 8, 1, top), -(int64_t)FBE_TOO_DEEP);
    assert_int_equal(info.offset, 11);
    assert_ptr_equal(info.type, mid);
    assert_ptr_equal(info.field, &mid->fields[1]);
    /* Mid alone at 30 with no level below it: the same field, 2 bytes in */
    memset(&info, 0, sizeof info);
    assert_int_equal(fbe_native_final_depth(&info, frame, 30, 0, mid), -(int64_t)FBE_TOO_DEEP);
    assert_int_equal(info.offset, 32);
    assert_ptr_equal(info.field, &mid->fields[1]);
    /* two levels are enough: nothing is reported */
    memset(&info, 0, sizeof info);
    assert_int_equal(fbe_native_final_depth(&info, frame, 8, 2, top), 0);
    assert_int_equal(info.status, FBE_OK);
    fbe_schema_free(schema);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_final_depth),
        cmocka_unit_test(test_final_run_verify),
        cmocka_unit_test(test_final_run_read),
        cmocka_unit_test(test_struct),
        cmocka_unit_test(test_optional),
        cmocka_unit_test(test_blocks),
        cmocka_unit_test(test_nothing_failed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
