#define _POSIX_C_SOURCE 200809L
/* Hostile schemas (issue 12): sizes that wrapped at 32 bits, symbol names that
 * were truncated, inheritance and nesting limits that depended on declaration
 * order, values serialize wrote but verify rejected, string defaults that were
 * not UTF-8. Each reproducer must now be a located schema error or a clean
 * status, the same on the interpreter and the JIT. Expected positions were
 * counted by hand from the schema text; expected symbol hashes are computed
 * here from the documented recipe (FNV-1a 64), not by the library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fbe/codec.h"
#include "fbe/jit.h"
#include "codec_impl.h"
#include "test_cmd.h"
#include "test_util.h"

/* ---- helpers ----------------------------------------------------------------------- */

static void expect_errors(const char *schema, const char *expected)
{
    diag_capture cap;
    fbe_schema *s = load_text(schema, &cap);
    if (s)
        fbe_schema_free(s);
    if (strcmp(cap.text, expected) != 0)
        fail_msg("expected:\n%s\ngot:\n%s", expected, cap.text);
    assert_null(s);
}

/* ---- 1. sizes ---------------------------------------------------------------------- */

static void test_size_wrap_is_an_error(void **state)
{
    (void)state;
    /* The reproducer: 4 GiB + 1 MiB of host size wrapped to 1 MiB, and a
     * 16-byte frame then overflowed the heap in decode. */
    expect_errors("package ovf\nstruct A { uuid[65536] x; }\nstruct B { A[4097] y; }\n",
                  "t.fbe:3:20: error: field 'y' of type 'ovf.A[4097]' is larger than 1 GiB, "
                  "the limit of a type's size\n");
    /* A[65536]: every size wrapped to exactly 0. */
    expect_errors("package ovf\nstruct A { uuid[65536] x; }\nstruct B { A[65536] y; }\n",
                  "t.fbe:3:21: error: field 'y' of type 'ovf.A[65536]' is larger than 1 GiB, "
                  "the limit of a type's size\n");
    /* Each field fits, the sum does not: 1024 x 1 MiB is exactly the limit,
     * one more byte is past it. */
    expect_errors("package ovf\nstruct A { uuid[65536] x; }\n"
                  "struct B { A[1024] a; bool b; }\n",
                  "t.fbe:3:8: error: struct 'B' is larger than 1 GiB, the limit of a type's size\n");
    /* Through a struct embedded by value and through inheritance. */
    expect_errors("package ovf\nstruct A { uuid[65536] x; }\nstruct B { A[1000] a; }\n"
                  "struct C { B b; A[100] c; }\n",
                  "t.fbe:4:8: error: struct 'C' is larger than 1 GiB, the limit of a type's size\n");
    expect_errors("package ovf\nstruct A { uuid[65536] x; }\nstruct B { A[1000] a; }\n"
                  "struct C : B { A[100] c; }\n",
                  "t.fbe:4:8: error: struct 'C' is larger than 1 GiB, the limit of a type's size\n");
    /* A map entry holds a key and a value: 2 x 600 MiB. */
    expect_errors("package ovf\nstruct A { uuid[65536] x; }\nstruct K { [key] A[600] k; }\n"
                  "struct M { K<K> m; }\n",
                  "t.fbe:4:17: error: field 'm' of type 'ovf.K<ovf.K>' is larger than 1 GiB, "
                  "the limit of a type's size\n");
    /* Only the standard model past the limit: bool? takes 5 bytes there and 2
     * in the host struct. 3277 x 327680 bytes > 1 GiB > 3277 x 131072. */
    text_buf t = {0};
    tprintf(&t, "package ovf\nstruct S {\n");
    for (int i = 0; i < 3277; i++)
        tprintf(&t, "bool?[65536] f%d;\n", i);
    tprintf(&t, "}\n");
    expect_errors(t.s, "t.fbe:2:8: error: struct 'S' is larger than 1 GiB, the limit of a "
                       "type's size\n");
    free(t.s);

    /* The limit itself is accepted, with exact sizes. */
    fbe_schema *s = load_text_ok("package ovf\nstruct A { uuid[65536] x; }\n"
                                 "struct B { A[1024] a; }\n");
    const fbe_ir_struct *b = fbe_schema_find_struct(s, "ovf.B");
    assert_int_equal(b->host_size, 1u << 30);
    assert_int_equal(b->final_size, 1u << 30);
    assert_int_equal(b->std_body_size, 8 + 4 * 1024);
    fbe_schema_free(s);
}

/* ---- 2. symbol names --------------------------------------------------------------- */

static uint64_t fnv1a64(const char *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
    return h;
}

/* The C name the docs promise for a name past FBE_IR_MAX_SYMBOL (120): its
 * first 103 characters, '_' and 16 hex digits of the hash of the whole name. */
static void expected_c_name(const char *full, char out[121])
{
    snprintf(out, 121, "%.103s_%016llx", full, (unsigned long long)fnv1a64(full));
}

static char *long_name_schema(char names[2][600])
{
    /* ~500 characters, equal up to the last one: truncation at 512 made both
     * structs' entry points one symbol. */
    memset(names[0], 'x', 499);
    memset(names[1], 'x', 499);
    names[0][0] = names[1][0] = 'S';
    names[0][498] = 'a';
    names[1][498] = 'b';
    names[0][499] = names[1][499] = '\0';
    text_buf t = {0};
    tprintf(&t, "package longnames\nstruct %s { int32 a; string[] s; }\n"
                "struct %s { int64 b; }\n",
            names[0], names[1]);
    return t.s;
}

/* Frame of Sxx..a {a = 7, s = ["AAAAAAAA", "BBBBBBBBB"]} in the standard model,
 * written by hand from wire-format.md 3: a valid frame that, read as the other
 * struct or by the size function, made the old JIT read a pointer from it. */
static const uint8_t long_frame[] = {
    0x3d, 0, 0, 0,  8, 0, 0, 0,   /* frame size 61, root offset 8 */
    0x10, 0, 0, 0,  1, 0, 0, 0,   /* body size 16, type 1 */
    7, 0, 0, 0,     0x10, 0, 0, 0, /* a = 7, s at 16 */
    2, 0, 0, 0,     0x1c, 0, 0, 0, /* 2 strings at 28 and 40 */
    0x28, 0, 0, 0,  8, 0, 0, 0,   'A', 'A', 'A', 'A', 'A', 'A', 'A', 'A',
    9, 0, 0, 0,     'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B', 'B',
};

static void check_long_codec(const fbe_codec *codec, const char names[2][600])
{
    char full[1300];
    snprintf(full, sizeof full, "longnames.%s", names[0]);
    const fbe_type *a = fbe_codec_type(codec, full);
    snprintf(full, sizeof full, "longnames.%s", names[1]);
    const fbe_type *b = fbe_codec_type(codec, full);
    assert_non_null(a);
    assert_non_null(b);
    fbe_verify_info info;
    assert_int_equal(fbe_verify(a, FBE_STANDARD, long_frame, sizeof long_frame, &info), FBE_OK);
    /* As the other struct: a type mismatch at the root body, not a crash. */
    assert_int_equal(fbe_verify(b, FBE_STANDARD, long_frame, sizeof long_frame, &info),
                     FBE_BAD_TYPE);
    assert_int_equal(info.offset, 12);

    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena};
    uint8_t value[64] = {0};
    assert_true(a->ir->host_size <= sizeof value);
    assert_int_equal(
        fbe_deserialize(a, FBE_STANDARD, long_frame, sizeof long_frame, value, &opts, NULL),
        FBE_OK);
    assert_int_equal(fbe_size(a, FBE_STANDARD, value), sizeof long_frame);
    fbe_buffer out;
    fbe_buffer_init(&out, NULL, NULL);
    assert_int_equal(fbe_serialize(a, FBE_STANDARD, value, &out), FBE_OK);
    assert_int_equal(out.size, sizeof long_frame);
    assert_memory_equal(out.data, long_frame, sizeof long_frame);
    fbe_buffer_free(&out);
    fbe_arena_free(&arena);
}

static void test_long_names(void **state)
{
    (void)state;
    char names[2][600];
    char *schema_text = long_name_schema(names);
    fbe_schema *s = load_text_ok(schema_text);
    free(schema_text);
    for (int i = 0; i < 2; i++) {
        char full[1300], expect[121];
        snprintf(full, sizeof full, "longnames_%s", names[i]);
        expected_c_name(full, expect);
        assert_string_equal(fbe_schema_root(s)->structs[i]->c_name, expect);
    }
    fbe_codec *interp = fbe_interp_create(s, NULL, NULL);
    assert_non_null(interp);
    check_long_codec(interp, names);
    fbe_codec_free(interp);
    if (fbe_jit_available()) {
        fbe_jit_options jo = {.require_native = true};
        fbe_status st;
        fbe_codec *jit = fbe_jit_compile(s, &jo, &st);
        if (!jit)
            fail_msg("fbe_jit_compile: %s", fbe_status_name(st));
        assert_int_equal(fbe_codec_backend(jit), FBE_BACKEND_JIT);
        check_long_codec(jit, names);
        fbe_codec_free(jit);
    }
    fbe_schema_free(s);
}

/* `fbec aot` exports the hashed names and its header declares exactly them. */
static void test_long_names_aot(void **state)
{
    (void)state;
    if (!fbe_jit_available())
        skip();
    char dir[] = "/tmp/fbe_limits_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char names[2][600];
    char *schema_text = long_name_schema(names);
    char schema_path[64];
    snprintf(schema_path, sizeof schema_path, "%s/l.fbe", dir);
    write_text(schema_path, schema_text);
    free(schema_text);
    expect_status(fmt("'%s' aot %s -o %s/l.o --header %s/l.h", FBEC_PATH, schema_path, dir, dir),
                  0, NULL);
    char *syms = NULL;
    expect_status(fmt("nm -g --defined-only %s/l.o | awk '{print $3}' | sort", dir), 0, &syms);
    char *header = NULL;
    expect_status(fmt("cat %s/l.h", dir), 0, &header);
    for (int i = 0; i < 2; i++) {
        char full[1300], stem[121];
        snprintf(full, sizeof full, "longnames_%s", names[i]);
        expected_c_name(full, stem);
        static const char *const ops[] = {"std_size", "std_serialize", "std_verify",
                                          "std_deserialize", "final_size", "final_serialize",
                                          "final_verify", "final_deserialize"};
        for (int op = 0; op < 8; op++) {
            char sym[200];
            snprintf(sym, sizeof sym, "fbe_%s_%s\n", stem, ops[op]);
            if (!strstr(syms, sym))
                fail_msg("symbol %s missing from:\n%s", sym, syms);
            sym[strlen(sym) - 1] = '(';
            if (!strstr(header, sym))
                fail_msg("the header does not declare %s", sym);
        }
    }
    free(syms);
    free(header);
    assert_int_equal(rm_rf(dir), 0);
}

/* ---- 3. inheritance and nesting in any order -------------------------------------- */

/* S0 .. S<n-1>, S<i> deriving from (inherit) or embedding (nest) S<i-1>,
 * declared base-first or derived-first. */
static char *chain_schema(int n, bool inherit, bool base_first)
{
    text_buf t = {0};
    tprintf(&t, "package deep\n");
    for (int k = 0; k < n; k++) {
        int i = base_first ? k : n - 1 - k;
        if (i == 0)
            tprintf(&t, "struct S0 { int32 f0; }\n");
        else if (inherit)
            tprintf(&t, "struct S%d : S%d { int32 f%d; }\n", i, i - 1, i);
        else
            tprintf(&t, "struct S%d { S%d f%d; }\n", i, i - 1, i);
    }
    return t.s;
}

/* A chain at the limit loads in both declaration orders (inheritance: S256 has
 * 256 bases; nesting: S255 is 256 levels high); 300 levels fail with one
 * error, at the exact place when declared base-first (before, 300 levels
 * declared base-first passed), and from the recursion guard derived-first. */
static void check_chain_limit(bool inherit, const char *base_first_error, const char *message)
{
    const char *top = inherit ? "deep.S256" : "deep.S255";
    for (int order = 0; order < 2; order++) {
        char *ok = chain_schema(inherit ? 257 : 256, inherit, order == 0);
        fbe_schema *s = load_text_ok(ok);
        const fbe_ir_struct *st = fbe_schema_find_struct(s, top);
        assert_int_equal(inherit ? st->base_depth : st->value_height, 256);
        if (inherit)
            assert_int_equal(st->field_count, 257);
        fbe_schema_free(s);
        free(ok);
    }
    char *bad = chain_schema(300, inherit, true);
    expect_errors(bad, base_first_error);
    free(bad);
    bad = chain_schema(300, inherit, false);
    diag_capture cap;
    assert_null(load_text(bad, &cap));
    assert_int_equal(cap.count, 1);
    assert_non_null(strstr(cap.text, message));
    free(bad);
}

static void test_inheritance_depth(void **state)
{
    (void)state;
    check_chain_limit(true, "t.fbe:259:15: error: inheritance chain is deeper than 256\n",
                      "error: inheritance chain is deeper than 256\n");
}

/* Inherited fields are shared along a chain, not copied per level: the
 * 256-level chain of 100 fields a level took 678 MB and 6.5 s to check. */
static void test_inherited_fields_shared(void **state)
{
    (void)state;
    text_buf t = {0};
    tprintf(&t, "package deep\n");
    for (int i = 0; i <= 256; i++) {
        tprintf(&t, i ? "struct S%d : S%d {" : "struct S%d {", i, i - 1);
        for (int j = 0; j < 100; j++)
            tprintf(&t, " int32 f%d_%d;", i, j);
        tprintf(&t, " }\n");
    }
    /* A second struct deriving from S10 gets a copy (S11 is S10's heir). */
    tprintf(&t, "struct T : S10 { int32 t; }\n");
    fbe_schema *s = load_text_ok(t.s);
    free(t.s);
    const fbe_ir_struct *s0 = fbe_schema_find_struct(s, "deep.S0");
    for (int i = 1; i <= 256; i++) {
        const fbe_ir_struct *si = fbe_schema_find_struct(s, fmt("deep.S%d", i));
        assert_int_equal(si->field_count, 100 * (size_t)(i + 1));
        assert_ptr_equal(si->fields, s0->fields);
        assert_ptr_equal(si->fields[100 * i].owner, si);
        assert_int_equal(si->fields[100 * i].index, 100 * i);
    }
    const fbe_ir_struct *tt = fbe_schema_find_struct(s, "deep.T");
    const fbe_ir_struct *s10 = fbe_schema_find_struct(s, "deep.S10");
    assert_ptr_not_equal(tt->fields, s0->fields);
    assert_int_equal(tt->field_count, 1101);
    assert_memory_equal(tt->fields, s10->fields, sizeof *tt->fields * 1100);
    assert_int_equal(tt->fields[1100].std_offset, s10->std_body_size);
    fbe_schema_free(s);

    /* Copies (structs that are not their base's heir) are bounded by the
     * schema's size: 16 per declared field plus 2^20. 600 structs deriving
     * from one of 2,000 fields would copy 1.2 M fields; the limit is
     * 2^20 + 16 x 2,600 = 1,090,176, passed by the 546th copy (D545). */
    text_buf c = {0};
    tprintf(&c, "package comb\nstruct B {");
    for (int j = 0; j < 2000; j++)
        tprintf(&c, " int32 f%d;", j);
    tprintf(&c, " }\n");
    for (int i = 0; i < 600; i++)
        tprintf(&c, "struct D%d : B { int32 x; }\n", i);
    expect_errors(c.s, "t.fbe:549:15: error: deriving 'D546' from 'B' copies more inherited "
                       "fields than the schema's limit (1090176: 16 per declared field, plus "
                       "2^20)\n");
    free(c.s);
}

static void test_nesting_depth(void **state)
{
    (void)state;
    check_chain_limit(false, "t.fbe:258:20: error: structs are nested by value deeper than 256\n",
                      "error: structs are nested by value deeper than 256\n");
}

/* Found by fuzz_schema_size: a by-value cycle through a base loaded with sizes
 * of 0 and crashed encode; two types could share a C name. */
static void test_cycles_and_c_names(void **state)
{
    (void)state;
    expect_errors("package p\nstruct A { B b; }\nstruct B : A { int32 x; }\n",
                  "t.fbe:3:12: error: struct 'B' derives from 'A', which contains 'B' by value "
                  "(use an optional or a collection)\n");
    expect_errors("package p\nstruct B : A { int32 x; }\nstruct A { B b; }\n",
                  "t.fbe:3:14: error: struct 'A' contains itself by value through field 'b' "
                  "(use an optional or a collection)\n");
    /* A long name's hashed C name, spelled out by a second struct. */
    char names[2][600], full[1300], c_name[121];
    char *schema_text = long_name_schema(names);
    free(schema_text);
    snprintf(full, sizeof full, "longnames_%s", names[0]);
    expected_c_name(full, c_name);
    text_buf t = {0};
    tprintf(&t, "package longnames\nstruct %s { int32 a; }\nstruct %s { int32 b; }\n", names[0],
            c_name + strlen("longnames_"));
    /* The message names a 499-character struct: diagnostics are cut at their
     * buffer's size, so the start is compared. */
    char expect[1600];
    snprintf(expect, sizeof expect, "t.fbe:3:8: error: 'longnames.%s' has the C name '%s' of ",
             c_name + strlen("longnames_"), c_name);
    diag_capture cap0;
    assert_null(load_text(t.s, &cap0));
    assert_int_equal(cap0.count, 1);
    assert_memory_equal(cap0.text, expect, strlen(expect));
    free(t.s);

    /* pkg_Name across packages: a_b.c and a.b_c. */
    char dir[] = "/tmp/fbe_limits_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_text(fmt("%s/a_b.fbe", dir), "package a_b\nstruct c { int32 x; }\n");
    write_text(fmt("%s/a.fbe", dir), "package a\nimport a_b\nstruct b_c { int32 y; }\n");
    diag_capture cap = {0};
    fbe_schema_options o = {.sink = diag_capture_sink, .sink_ctx = &cap};
    assert_null(fbe_schema_load(fmt("%s/a.fbe", dir), &o, NULL));
    assert_string_equal(cap.text, "a.fbe:3:8: error: 'a.b_c' has the C name 'a_b_c' of 'a_b.c'\n");
    assert_int_equal(rm_rf(dir), 0);
}

/* Across packages: the imported chain's depth counts. */
static void test_depth_across_packages(void **state)
{
    (void)state;
    char dir[] = "/tmp/fbe_limits_XXXXXX";
    assert_non_null(mkdtemp(dir));
    text_buf a = {0}, b = {0};
    tprintf(&a, "package a\nstruct A0 { int32 x0; }\n");
    for (int i = 1; i < 200; i++)
        tprintf(&a, "struct A%d : A%d { int32 x%d; }\n", i, i - 1, i);
    tprintf(&b, "package b\nimport a\nstruct B0 : a.A199 { int32 y0; }\n");
    for (int i = 1; i < 100; i++)
        tprintf(&b, "struct B%d : B%d { int32 y%d; }\n", i, i - 1, i);
    write_text(fmt("%s/a.fbe", dir), a.s);
    write_text(fmt("%s/b.fbe", dir), b.s);
    diag_capture cap = {0};
    fbe_schema_options o = {.sink = diag_capture_sink, .sink_ctx = &cap};
    fbe_schema *s = fbe_schema_load(fmt("%s/b.fbe", dir), &o, NULL);
    assert_null(s);
    /* B0 has 200 bases, B57 (line 60) 257. */
    assert_string_equal(cap.text, "b.fbe:60:14: error: inheritance chain is deeper than 256\n");
    free(a.s);
    free(b.s);
    assert_int_equal(rm_rf(dir), 0);
}

/* ---- serialize refuses what verify rejects ---------------------------------------- */

static const char deep_schema[] =
    "package dv\n"
    "struct L { int32 v; L? next; }\n"
    "struct T { int32 v; T[] kids; }\n";

static char *by_value_schema(void)
{
    text_buf t = {0};
    tprintf(&t, "package bv\nstruct S0 { int32 f0; }\n");
    for (int i = 1; i < 70; i++)
        tprintf(&t, "struct S%d { S%d f%d; }\n", i, i - 1, i);
    return t.s;
}

/* host layout of dv.L: {int32 v; L *next;} */
typedef struct host_l {
    int32_t v;
    struct host_l *next;
} host_l;

static host_l *make_list(size_t n)
{
    host_l *nodes = calloc(n, sizeof *nodes);
    assert_non_null(nodes);
    for (size_t i = 0; i + 1 < n; i++)
        nodes[i].next = &nodes[i + 1];
    return nodes;
}

static void check_depth_codec(fbe_codec *codec)
{
    const fbe_type *l = fbe_codec_type(codec, "dv.L");
    assert_non_null(l);
    unsigned max = fbe_codec_max_depth(codec);
    for (int m = 0; m < 2; m++) {
        /* exactly the limit: written and read back */
        host_l *list = make_list(max);
        fbe_buffer out;
        fbe_buffer_init(&out, NULL, NULL);
        assert_int_equal(fbe_serialize(l, (fbe_model)m, list, &out), FBE_OK);
        assert_int_equal(fbe_verify(l, (fbe_model)m, out.data, out.size, NULL), FBE_OK);
        fbe_buffer_free(&out);
        free(list);
        /* one past it, and a million past it (the stack must survive) */
        size_t lens[] = {max + 1, 1000000};
        for (int k = 0; k < 2; k++) {
            list = make_list(lens[k]);
            fbe_buffer_init(&out, NULL, NULL);
            assert_int_equal(fbe_serialize(l, (fbe_model)m, list, &out), FBE_TOO_DEEP);
            fbe_buffer_free(&out);
            free(list);
        }
    }
}

static void check_by_value(fbe_codec *codec, unsigned max)
{
    uint8_t zero[64] = {0};
    for (int m = 0; m < 2; m++) {
        for (int h = 60; h < 70; h++) {
            const fbe_type *t = fbe_codec_type(codec, fmt("bv.S%d", h));
            assert_int_equal(t->ir->value_height, (unsigned)h + 1);
            fbe_buffer out;
            fbe_buffer_init(&out, NULL, NULL);
            fbe_status st = fbe_serialize(t, (fbe_model)m, zero, &out);
            if ((unsigned)h + 1 <= max) {
                assert_int_equal(st, FBE_OK);
                assert_int_equal(fbe_verify(t, (fbe_model)m, out.data, out.size, NULL), FBE_OK);
            } else {
                assert_int_equal(st, FBE_TOO_DEEP);
            }
            fbe_buffer_free(&out);
        }
    }
}

static void test_serialize_depth(void **state)
{
    (void)state;
    fbe_schema *dv = load_text_ok(deep_schema);
    char *bv_text = by_value_schema();
    fbe_schema *bv = load_text_ok(bv_text);
    free(bv_text);
    unsigned limits[] = {0, 66};
    for (int k = 0; k < 2; k++) {
        fbe_codec_options co = {.max_depth = limits[k]};
        fbe_codec *c = fbe_interp_create(dv, &co, NULL);
        check_depth_codec(c);
        fbe_codec_free(c);
        c = fbe_interp_create(bv, &co, NULL);
        check_by_value(c, fbe_codec_max_depth(c));
        fbe_codec_free(c);
        /* The guard does not depend on the backend (the JIT wraps its native
         * code the same way): one JIT codec per schema keeps the test short. */
        if (!fbe_jit_available())
            continue;
        fbe_jit_options jo = {.require_native = true, .max_depth = limits[k]};
        c = fbe_jit_compile(k == 0 ? dv : bv, &jo, NULL);
        assert_non_null(c);
        assert_int_equal(fbe_codec_backend(c), FBE_BACKEND_JIT);
        if (k == 0)
            check_depth_codec(c);
        else
            check_by_value(c, fbe_codec_max_depth(c));
        fbe_codec_free(c);
    }
    fbe_schema_free(dv);
    fbe_schema_free(bv);
}

/* A tree wider than deep: vectors of structs count one level per element. */
static void test_serialize_depth_collections(void **state)
{
    (void)state;
    fbe_schema *dv = load_text_ok(deep_schema);
    fbe_codec *c = fbe_interp_create(dv, NULL, NULL);
    const fbe_type *t = fbe_codec_type(c, "dv.T");
    /* host layout of dv.T: {int32 v; {T *data; size_t size;} kids;} */
    typedef struct host_t {
        int32_t v;
        struct host_t *data;
        size_t size;
    } host_t;
    assert_int_equal(t->ir->host_size, sizeof(host_t));
    enum { N = 80 };
    host_t nodes[N];
    memset(nodes, 0, sizeof nodes);
    for (int i = 0; i + 1 < N; i++) {
        nodes[i].data = &nodes[i + 1];
        nodes[i].size = 1;
    }
    /* nodes[N-64] roots a chain of exactly 64 levels, nodes[N-65] of 65. */
    for (int m = 0; m < 2; m++) {
        fbe_buffer out;
        fbe_buffer_init(&out, NULL, NULL);
        assert_int_equal(fbe_serialize(t, (fbe_model)m, &nodes[N - 64], &out), FBE_OK);
        assert_int_equal(fbe_verify(t, (fbe_model)m, out.data, out.size, NULL), FBE_OK);
        assert_int_equal(fbe_serialize(t, (fbe_model)m, &nodes[N - 65], &out), FBE_TOO_DEEP);
        fbe_buffer_free(&out);
    }
    fbe_codec_free(c);
    fbe_schema_free(dv);
}

/* ---- a struct reached through a list of it while what it holds is derived ---------- */

/* fuzz_schema_size: S3 derives from S0, which holds S2 by value, and S2 holds a
 * list of S3. Lowering S2 reached S3 through the list before S2's uuid was
 * derived, and S3's size list kept the uuid as a step the size walk does not
 * expect: UBSan stopped at an unreachable point in std_write.c, and without it
 * the standard frame size was anyone's guess. Each declaration order, since
 * the lowering follows it. */
static const char *const reached_schemas[] = {
    "package rc\nstruct S0 { S2 v; }\nstruct S2 { S3() l; uuid u; }\nstruct S3 : S0 { int8 x; }\n",
    "package rc\nstruct S2 { S3() l; uuid u; }\nstruct S3 : S0 { int8 x; }\nstruct S0 { S2 v; }\n",
    "package rc\nstruct S3 : S0 { int8 x; }\nstruct S0 { S2 v; }\nstruct S2 { S3() l; uuid u; }\n",
};

/* Serialized in both models, verified, read back whole and written again to
 * the same bytes; returns the standard frame's size. */
static size_t round_trip(const fbe_type *t, const void *value)
{
    size_t std_size = 0;
    for (int m = 0; m < 2; m++) {
        fbe_buffer out, again;
        fbe_buffer_init(&out, NULL, NULL);
        fbe_buffer_init(&again, NULL, NULL);
        assert_int_equal(fbe_serialize(t, (fbe_model)m, value, &out), FBE_OK);
        assert_int_equal(fbe_verify(t, (fbe_model)m, out.data, out.size, NULL), FBE_OK);
        fbe_arena arena;
        fbe_arena_init(&arena, NULL, NULL);
        void *back = fbe_arena_zalloc(&arena, t->ir->host_size);
        assert_non_null(back);
        fbe_decode_options o = {.arena = &arena};
        size_t consumed = 0;
        assert_int_equal(fbe_deserialize(t, (fbe_model)m, out.data, out.size, back, &o, &consumed),
                         FBE_OK);
        assert_int_equal(consumed, out.size);
        assert_int_equal(fbe_serialize(t, (fbe_model)m, back, &again), FBE_OK);
        assert_int_equal(again.size, out.size);
        assert_memory_equal(again.data, out.data, out.size);
        if (m == FBE_STANDARD)
            std_size = out.size;
        fbe_arena_free(&arena);
        fbe_buffer_free(&again);
        fbe_buffer_free(&out);
    }
    return std_size;
}

static const fbe_ir_field *field_of(const fbe_ir_struct *st, const char *name)
{
    for (size_t i = 0; i < st->field_count; i++)
        if (!strcmp(st->fields[i].name, name))
            return &st->fields[i];
    fail_msg("%s has no field %s", st->full_name, name);
    return NULL;
}

static void test_struct_reached_through_a_list(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof reached_schemas / sizeof *reached_schemas; k++) {
        fbe_schema *s = load_text_ok(reached_schemas[k]);
        fbe_codec *c = fbe_interp_create(s, NULL, NULL);
        assert_non_null(c);
        for (size_t i = 0; i < fbe_codec_type_count(c); i++) {
            const fbe_type *t = fbe_codec_type_at(c, i);
            void *v = calloc(1, t->ir->host_size);
            assert_non_null(v);
            fbe_init(t->ir, v);
            round_trip(t, v);
            free(v);
        }
        /* An S3 whose list holds one S3 (both defaults otherwise). Standard
         * frame, by the spec's layout: the 8-byte header, S3's body (8-byte
         * body header, S2's 4-byte offset, x) = 13, S2's body (8 + the list's
         * offset 4 + uuid 16) = 28, the list (4-byte count, then the element's
         * 4-byte offset) = 8, the element's S3 body 13 and its S2 body 28 and
         * empty list 4. */
        const fbe_type *s3 = fbe_codec_type(c, "rc.S3");
        const fbe_type *s2 = fbe_codec_type(c, "rc.S2");
        assert_non_null(s3);
        assert_non_null(s2);
        uint8_t *outer = calloc(2, s3->ir->host_size);
        assert_non_null(outer);
        uint8_t *inner = outer + s3->ir->host_size;
        fbe_init(s3->ir, outer);
        fbe_init(s3->ir, inner);
        fbe_seq *list = (fbe_seq *)(outer + field_of(s3->ir, "v")->host_offset +
                                    field_of(s2->ir, "l")->host_offset);
        list->data = inner;
        list->size = 1;
        assert_int_equal(round_trip(s3, outer), 8 + 13 + 28 + 8 + 13 + 28 + 4);
        free(outer);
        fbe_codec_free(c);
        fbe_schema_free(s);
    }
}

/* A struct held by value whose size depends on more than a few fields is sized
 * through a call instead of having its fields copied into every holder's size
 * lists (runtime/interp/program.c FLATTEN_MAX). S has 20 strings and a list:
 * 22 such fields, above the bound; T has 1, below it. Sizes by the spec:
 * standard, a body is an 8-byte header and 4 bytes per field here (an int32,
 * or the offset of a string, list or struct), a string adds 4 + its length, a
 * list of int32 4 + 4 per element, a struct its body and what that adds;
 * final, an int32 is 4, a string 4 + its length, a list 4 + 4 per element, a
 * struct its fields. Frames add an 8-byte header. */
static const char large_by_value_schema[] =
    "package bv\n"
    "struct T { int32 n; string t; }\n"
    "struct S { string a0; string a1; string a2; string a3; string a4; string a5;\n"
    "  string a6; string a7; string a8; string a9; string a10; string a11; string a12;\n"
    "  string a13; string a14; string a15; string a16; string a17; string a18;\n"
    "  string a19; int32[] l; T t; }\n"
    "struct H { S x; S y; string z; }\n"
    "struct G { H h; S s; T t; }\n";

typedef struct size_pair {
    uint64_t std, final;
} size_pair;

/* Fills a T and returns its sizes (standard: body 8 + 4 + 4, the string). */
static size_pair fill_t(const fbe_type *t, uint8_t *v, unsigned seed)
{
    fbe_string *str = fbe_field_ptr(v, field_of(t->ir, "t"));
    static const char letters[] = "abcdefghijklmnopqrstuvwxyz";
    str->data = (char *)letters;
    str->size = seed % 26;
    return (size_pair){8 + 4 + 4 + 4 + str->size, 4 + 4 + str->size};
}

static size_pair fill_s(const fbe_codec *c, uint8_t *v, unsigned seed, int32_t *ints)
{
    const fbe_type *s = fbe_codec_type(c, "bv.S");
    static const char letters[] = "abcdefghijklmnopqrstuvwxyz";
    size_pair sz = {8 + 20 * 4 + 4 + 4, 0};
    for (int i = 0; i < 20; i++) {
        char name[16]; /* "a%d" of any int: gcc -O1 checks the bound */
        snprintf(name, sizeof name, "a%d", i);
        fbe_string *str = fbe_field_ptr(v, field_of(s->ir, name));
        str->data = (char *)letters;
        str->size = (seed + (unsigned)i * 7) % 27;
        sz.std += 4 + str->size;
        sz.final += 4 + str->size;
    }
    fbe_seq *l = fbe_field_ptr(v, field_of(s->ir, "l"));
    l->data = ints;
    l->size = seed % 5;
    sz.std += 4 + 4 * l->size;
    sz.final += 4 + 4 * l->size;
    size_pair t = fill_t(fbe_codec_type(c, "bv.T"), fbe_field_ptr(v, field_of(s->ir, "t")),
                         seed + 3);
    return (size_pair){sz.std + t.std, sz.final + t.final};
}

static void test_large_struct_held_by_value(void **state)
{
    (void)state;
    fbe_schema *schema = load_text_ok(large_by_value_schema);
    fbe_codec *c = fbe_interp_create(schema, NULL, NULL);
    assert_non_null(c);
    const fbe_type *g = fbe_codec_type(c, "bv.G"), *h = fbe_codec_type(c, "bv.H");
    assert_non_null(g);
    assert_non_null(h);
    int32_t ints[4] = {1, 2, 3, 4};
    for (unsigned seed = 0; seed < 6; seed++) {
        uint8_t *v = calloc(1, g->ir->host_size);
        assert_non_null(v);
        fbe_init(g->ir, v);
        uint8_t *hv = fbe_field_ptr(v, field_of(g->ir, "h"));
        size_pair x = fill_s(c, fbe_field_ptr(hv, field_of(h->ir, "x")), seed, ints);
        size_pair y = fill_s(c, fbe_field_ptr(hv, field_of(h->ir, "y")), seed + 11, ints);
        fbe_string *z = fbe_field_ptr(hv, field_of(h->ir, "z"));
        z->data = (char *)"zz";
        z->size = seed % 3;
        size_pair s = fill_s(c, fbe_field_ptr(v, field_of(g->ir, "s")), seed + 5, ints);
        size_pair t = fill_t(fbe_codec_type(c, "bv.T"), fbe_field_ptr(v, field_of(g->ir, "t")),
                             seed + 1);
        uint64_t h_std = 8 + 3 * 4 + x.std + y.std + 4 + z->size;
        uint64_t want_std = 8 + (8 + 3 * 4) + h_std + s.std + t.std;
        uint64_t want_final = 8 + x.final + y.final + 4 + z->size + s.final + t.final;
        assert_int_equal(fbe_size(g, FBE_STANDARD, v), want_std);
        assert_int_equal(fbe_size(g, FBE_FINAL, v), want_final);
        assert_int_equal(round_trip(g, v), want_std);
        free(v);
    }
    fbe_codec_free(c);
    fbe_schema_free(schema);
}

/* Heirs share their base's field array in the IR, and the interpreter shares its
 * programs' lists the same way (runtime/interp/program.h, "Shared lists"). B
 * has no step in its check lists (scalars only), D extends B and is extended by
 * E, F is B's second derived struct (its own copy), L is a leaf (the loops'
 * fast paths for all-string structs) extended by M, both in collections. Every result of the
 * interpreter, valid frames and every truncation and byte flip of them, must be
 * the JIT's, which lowers each struct's fields whole. */
static const char heir_schema[] =
    "package hc\n"
    "struct B { int32 a; int64 b; }\n"
    "struct D : B { string s; int32[] l; uuid u; }\n"
    "struct E : D { bool f; string t; int16 g; }\n"
    "struct F : B { string v; }\n"
    "struct L { string a; string b; }\n"  /* a leaf base: its checks are strings */
    "struct M : L { int32[] x; }\n"
    "struct H { E e; D? d; F[] fs; L[] ls; M[] ms; }\n";

static void set_string(const fbe_type *t, void *v, const char *field, const char *value_text)
{
    fbe_string *str = fbe_field_ptr(v, field_of(t->ir, field));
    str->data = (char *)value_text;
    str->size = strlen(value_text);
}

static void same_results(const fbe_type *a, const fbe_type *b, fbe_model m, const uint8_t *data,
                         size_t size)
{
    fbe_verify_info ia, ib;
    fbe_status sa = fbe_verify(a, m, data, size, &ia), sb = fbe_verify(b, m, data, size, &ib);
    assert_int_equal(sa, sb);
    assert_int_equal(ia.offset, ib.offset);
    assert_string_equal(ia.type ? ia.type->full_name : "-", ib.type ? ib.type->full_name : "-");
    assert_string_equal(ia.field ? ia.field->name : "-", ib.field ? ib.field->name : "-");
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    void *va = fbe_arena_zalloc(&arena, a->ir->host_size), *vb = fbe_arena_zalloc(&arena, b->ir->host_size);
    fbe_decode_options o = {.arena = &arena};
    sa = fbe_deserialize(a, m, data, size, va, &o, NULL);
    sb = fbe_deserialize(b, m, data, size, vb, &o, NULL);
    assert_int_equal(sa, sb);
    if (sa == FBE_OK) {
        fbe_buffer x, y;
        fbe_buffer_init(&x, NULL, NULL);
        fbe_buffer_init(&y, NULL, NULL);
        assert_int_equal(fbe_serialize(a, m, va, &x), FBE_OK);
        assert_int_equal(fbe_serialize(b, m, vb, &y), FBE_OK);
        assert_int_equal(x.size, y.size);
        assert_memory_equal(x.data, y.data, x.size);
        fbe_buffer_free(&x);
        fbe_buffer_free(&y);
    }
    fbe_arena_free(&arena);
}

static void test_heir_chains_match_the_jit(void **state)
{
    (void)state;
    if (!fbe_jit_available())
        skip();
    fbe_schema *s = load_text_ok(heir_schema);
    fbe_codec *interp = fbe_interp_create(s, NULL, NULL);
    fbe_jit_options jo = {.require_native = true};
    fbe_codec *jit = fbe_jit_compile(s, &jo, NULL);
    assert_non_null(interp);
    assert_non_null(jit);
    const fbe_type *h = fbe_codec_type(interp, "hc.H"), *e = fbe_codec_type(interp, "hc.E");
    const fbe_type *d = fbe_codec_type(interp, "hc.D"), *f = fbe_codec_type(interp, "hc.F");
    uint8_t *v = calloc(1, h->ir->host_size), *dv = calloc(1, d->ir->host_size);
    uint8_t *fv = calloc(2, f->ir->host_size);
    assert_non_null(v);
    assert_non_null(dv);
    assert_non_null(fv);
    fbe_init(h->ir, v);
    fbe_init(d->ir, dv);
    fbe_init(f->ir, fv);
    fbe_init(f->ir, fv + f->ir->host_size);
    uint8_t *ev = fbe_field_ptr(v, field_of(h->ir, "e"));
    set_string(e, ev, "s", "base text");
    set_string(e, ev, "t", "heir");
    *(int32_t *)fbe_field_ptr(ev, field_of(e->ir, "a")) = 7;
    int32_t ints[3] = {1, -2, 3};
    fbe_seq *l = fbe_field_ptr(ev, field_of(e->ir, "l"));
    l->data = ints;
    l->size = 3;
    set_string(d, dv, "s", "d");
    *(uint8_t **)fbe_field_ptr(v, field_of(h->ir, "d")) = dv;
    set_string(f, fv, "v", "first");
    set_string(f, fv + f->ir->host_size, "v", "");
    fbe_seq *fs = fbe_field_ptr(v, field_of(h->ir, "fs"));
    fs->data = fv;
    fs->size = 2;
    const fbe_type *lt = fbe_codec_type(interp, "hc.L"), *mt = fbe_codec_type(interp, "hc.M");
    uint8_t *lv = calloc(2, lt->ir->host_size), *mv = calloc(1, mt->ir->host_size);
    assert_non_null(lv);
    assert_non_null(mv);
    for (int k = 0; k < 2; k++) {
        uint8_t *one = lv + k * lt->ir->host_size;
        fbe_init(lt->ir, one);
        set_string(lt, one, "a", k ? "second" : "l");
        set_string(lt, one, "b", k ? "" : "leaf");
    }
    fbe_init(mt->ir, mv);
    set_string(mt, mv, "a", "m");
    fbe_seq *mx = fbe_field_ptr(mv, field_of(mt->ir, "x"));
    mx->data = ints;
    mx->size = 2;
    fbe_seq *ls = fbe_field_ptr(v, field_of(h->ir, "ls")), *ms = fbe_field_ptr(v, field_of(h->ir, "ms"));
    ls->data = lv;
    ls->size = 2;
    ms->data = mv;
    ms->size = 1;
    for (size_t i = 0; i < fbe_codec_type_count(interp); i++) {
        const fbe_type *ti = fbe_codec_type_at(interp, i);
        const fbe_type *tj = fbe_codec_type(jit, ti->ir->full_name);
        assert_non_null(tj);
        const void *value = ti == h ? (const void *)v : ti == d ? (const void *)dv : NULL;
        uint8_t *dflt = NULL;
        if (!value) {
            dflt = calloc(1, ti->ir->host_size);
            assert_non_null(dflt);
            fbe_init(ti->ir, dflt);
            value = dflt;
        }
        for (int m = 0; m < 2; m++) {
            fbe_buffer a, b;
            fbe_buffer_init(&a, NULL, NULL);
            fbe_buffer_init(&b, NULL, NULL);
            assert_int_equal(fbe_size(ti, (fbe_model)m, value), fbe_size(tj, (fbe_model)m, value));
            assert_int_equal(fbe_serialize(ti, (fbe_model)m, value, &a), FBE_OK);
            assert_int_equal(fbe_serialize(tj, (fbe_model)m, value, &b), FBE_OK);
            assert_int_equal(a.size, b.size);
            assert_memory_equal(a.data, b.data, a.size);
            for (size_t n = 0; n <= a.size; n++)
                same_results(ti, tj, (fbe_model)m, a.data, n);
            for (size_t k = 0; k < a.size; k++) {
                uint8_t saved = a.data[k];
                for (int x = 0; x < 3; x++) {
                    static const uint8_t flips[] = {0xff, 0x01, 0x80};
                    a.data[k] = saved ^ flips[x];
                    same_results(ti, tj, (fbe_model)m, a.data, a.size);
                }
                a.data[k] = saved;
            }
            fbe_buffer_free(&a);
            fbe_buffer_free(&b);
        }
        free(dflt);
    }
    free(v);
    free(dv);
    free(fv);
    free(lv);
    free(mv);
    fbe_codec_free(jit);
    fbe_codec_free(interp);
    fbe_schema_free(s);
}

/* IR not made by the compiler (fbe_interp_create_ir is public): inheritance
 * that loops or runs past FBE_IR_MAX_NESTING bases is refused, not walked. */
static void test_ir_inheritance_bounds(void **state)
{
    (void)state;
    fbe_schema *s = load_text_ok("package cy\nstruct A { int32 a; }\nstruct B : A { int32 b; }\n");
    const fbe_ir_package *orig = fbe_schema_root(s);
    enum { N = FBE_IR_MAX_NESTING + 2 };
    fbe_ir_struct *copies = calloc(N, sizeof *copies);
    const fbe_ir_struct **list = calloc(N, sizeof *list);
    assert_non_null(copies);
    assert_non_null(list);
    fbe_ir_package pkg = *orig;
    pkg.structs = list;
    fbe_status st = FBE_OK;
    /* A and B, each the other's base */
    copies[0] = *orig->structs[0];
    copies[1] = *orig->structs[1];
    copies[0].base = &copies[1];
    copies[1].base = &copies[0];
    list[0] = &copies[0];
    list[1] = &copies[1];
    pkg.struct_count = 2;
    assert_null(fbe_interp_create_ir((const fbe_ir_package *const[]){&pkg}, 1, NULL, &st));
    assert_int_equal(st, FBE_INVALID_ARGUMENT);
    /* B over B over ... over A: FBE_IR_MAX_NESTING + 1 bases */
    copies[0] = *orig->structs[0];
    list[0] = &copies[0];
    for (size_t i = 1; i < N; i++) {
        copies[i] = *orig->structs[1];
        copies[i].base = &copies[i - 1];
        list[i] = &copies[i];
    }
    pkg.struct_count = N;
    st = FBE_OK;
    assert_null(fbe_interp_create_ir((const fbe_ir_package *const[]){&pkg}, 1, NULL, &st));
    assert_int_equal(st, FBE_INVALID_ARGUMENT);
    /* the schema as loaded is fine */
    fbe_codec *c = fbe_interp_create_ir((const fbe_ir_package *const[]){orig}, 1, NULL, &st);
    assert_non_null(c);
    fbe_codec_free(c);
    free(list);
    free(copies);
    fbe_schema_free(s);
}

/* IR not made by the compiler: a field type must have a shape the schema
 * language can write (wire-format.md, schema-language.md): a collection or
 * array of a base type or an optional one, a key of a base type, an optional
 * of a base type. The backends and the serialize depth guard rely on it (a
 * collection of collections hid a struct from the guard: a value deeper than
 * the limit was written, which verify then refused). */
static void test_ir_field_shapes(void **state)
{
    (void)state;
    fbe_schema *s = load_text_ok("package sh\nstruct S { S[] kids; int32 v; int32? o; "
                                 "int32[2] a; int32<int32> m; int32?[] ov; int32?<int32> om; }\n");
    const fbe_ir_package *orig = fbe_schema_root(s);
    const fbe_ir_struct *S = orig->structs[0];
    assert_int_equal(S->field_count, 7);
    /* the copy of S the package lists, and S[] of it */
    fbe_ir_struct copy = *S;
    fbe_ir_type elem = *S->fields[0].type->elem, kids_of_copy = *S->fields[0].type;
    elem.struct_type = &copy;
    kids_of_copy.elem = &elem;
    const fbe_ir_type *kids = &kids_of_copy, *opt = S->fields[2].type,
                      *arr = S->fields[3].type, *map = S->fields[4].type;
    fbe_ir_type bad[10];
    size_t at[10]; /* the field each one replaces */
    bad[0] = *kids, bad[0].elem = kids, at[0] = 0; /* S[][] */
    bad[1] = *opt, bad[1].elem = opt, at[1] = 2;   /* int32?? */
    bad[2] = *opt, bad[2].elem = kids, at[2] = 2;  /* S[]? */
    bad[3] = *arr, bad[3].elem = arr, at[3] = 3;   /* int32[2][2] */
    bad[4] = *map, bad[4].key = opt, at[4] = 4;    /* int32<int32?> */
    bad[5] = *map, bad[5].elem = kids, at[5] = 4;  /* S[]<int32> */
    bad[6] = *kids, bad[6].elem = NULL, at[6] = 0; /* a vector of nothing */
    bad[7] = *map, bad[7].key = NULL, at[7] = 4;   /* a map without a key */
    bad[8] = elem, bad[8].struct_type = NULL, at[8] = 0; /* a struct of nothing */
    bad[9] = *S->fields[5].type, bad[9].kind = FBE_IR_SET, at[9] = 5; /* int32?! */
    fbe_ir_field fields[7];
    copy.fields = fields;
    fbe_ir_package pkg = *orig;
    pkg.structs = (const fbe_ir_struct *[]){&copy};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        memcpy(fields, S->fields, sizeof fields);
        fields[0].type = kids;
        fields[at[k]].type = &bad[k];
        fbe_status st = FBE_OK;
        assert_null(fbe_interp_create_ir((const fbe_ir_package *const[]){&pkg}, 1, NULL, &st));
        assert_int_equal(st, FBE_INVALID_ARGUMENT);
    }
    /* the schema's own shapes, optional elements and values included, are fine */
    memcpy(fields, S->fields, sizeof fields);
    fields[0].type = kids;
    fbe_status st = FBE_OK;
    fbe_codec *c = fbe_interp_create_ir((const fbe_ir_package *const[]){&pkg}, 1, NULL, &st);
    assert_non_null(c);
    fbe_codec_free(c);
    fbe_schema_free(s);
}

/* ---- the same through generated code: static C and AOT objects -------------------- */

#ifndef FBE_LIMITS_CC
#define FBE_LIMITS_CC "cc"
#endif
#ifndef FBE_LIMITS_FLAGS
#define FBE_LIMITS_FLAGS ""
#endif

/* Links with fbe_runtime only; the codec comes from the generated image, so
 * the guard is the one runtime/codec.c installs for AOT and static codecs.
 * Prints each list length's status per model. */
static const char depth_check_c[] =
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include \"dv.h\"\n"
    "typedef struct node { int32_t v; struct node *next; } node;\n"
    "int main(void)\n"
    "{\n"
    "    fbe_status st;\n"
    "    fbe_codec *c = fbe_dv_codec_create(&st);\n"
    "    const fbe_type *t = c ? fbe_codec_type(c, \"dv.L\") : NULL;\n"
    "    if (!t || t->ir->host_size != sizeof(node))\n"
    "        return 2;\n"
    "    static const size_t lens[] = {64, 65, 1000000};\n"
    "    node *nodes = calloc(1000000, sizeof *nodes);\n"
    "    for (int m = 0; m < 2; m++)\n"
    "        for (int k = 0; k < 3; k++) {\n"
    "            for (size_t i = 0; i + 1 < lens[k]; i++)\n"
    "                nodes[i].next = &nodes[i + 1];\n"
    "            nodes[lens[k] - 1].next = NULL;\n"
    "            fbe_buffer out;\n"
    "            fbe_buffer_init(&out, NULL, NULL);\n"
    "            st = fbe_serialize(t, (fbe_model)m, nodes, &out);\n"
    "            printf(\"%d %zu %s\\n\", m, lens[k], fbe_status_name(st));\n"
    "            fbe_buffer_free(&out);\n"
    "        }\n"
    "    free(nodes);\n"
    "    fbe_codec_free(c);\n"
    "    return 0;\n"
    "}\n";

static const char depth_expected[] = "0 64 OK\n0 65 TOO_DEEP\n0 1000000 TOO_DEEP\n"
                                     "1 64 OK\n1 65 TOO_DEEP\n1 1000000 TOO_DEEP\n";

static void test_generated_code(void **state)
{
    (void)state;
    char dir[] = "/tmp/fbe_limits_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_text(fmt("%s/dv.fbe", dir), deep_schema);
    write_text(fmt("%s/check.c", dir), depth_check_c);
    char names[2][600];
    char *long_text = long_name_schema(names);
    write_text(fmt("%s/longnames.fbe", dir), long_text);
    free(long_text);
    char *cc = fmt("%s " STRICT_FLAGS " %s -I'%s' -I'%s/include'", FBE_LIMITS_CC, FBE_LIMITS_FLAGS,
                   dir, FBE_SOURCE_DIR);
    char cc_copy[2048];
    snprintf(cc_copy, sizeof cc_copy, "%s", cc);

    /* static C: the depth guard, and long names that compile and link */
    expect_status(fmt("'%s' c '%s/dv.fbe' -o '%s/dv.c' --header '%s/dv.h'", FBEC_PATH, dir, dir,
                      dir), 0, NULL);
    expect_status(fmt("%s '%s/check.c' '%s/dv.c' '%s' -lm -o '%s/check_c'", cc_copy, dir, dir,
                      FBE_RUNTIME_LIB, dir), 0, NULL);
    char *out = NULL;
    expect_status(fmt("'%s/check_c'", dir), 0, &out);
    assert_string_equal(out, depth_expected);
    free(out);
    expect_status(fmt("'%s' c '%s/longnames.fbe' -o '%s/ln.c' --header '%s/ln.h'", FBEC_PATH,
                      dir, dir, dir), 0, NULL);
    expect_status(fmt("%s -c '%s/ln.c' -o '%s/ln_c.o'", cc_copy, dir, dir), 0, NULL);

    /* AOT: the same check against the object */
    if (fbe_jit_available()) {
        expect_status(fmt("'%s' aot '%s/dv.fbe' -o '%s/dv.o' --header '%s/dv.h'", FBEC_PATH, dir,
                          dir, dir), 0, NULL);
        expect_status(fmt("%s '%s/check.c' '%s/dv.o' '%s' -lm -o '%s/check_aot'", cc_copy, dir,
                          dir, FBE_RUNTIME_LIB, dir), 0, NULL);
        expect_status(fmt("'%s/check_aot'", dir), 0, &out);
        assert_string_equal(out, depth_expected);
        free(out);
    }

    /* The schema errors stop every command that compiles code. */
    write_text(fmt("%s/ovf.fbe", dir),
               "package ovf\nstruct A { uuid[65536] x; }\nstruct B { A[4097] y; }\n");
    static const char *const cmds[] = {"c", "aot", "header"};
    for (int i = 0; i < 3; i++) {
        expect_status(fmt("'%s' %s '%s/ovf.fbe' -o '%s/ovf.out' 2>&1", FBEC_PATH, cmds[i], dir, dir),
                      1, &out);
        assert_non_null(strstr(out, "ovf.fbe:3:20: error: field 'y' of type 'ovf.A[4097]' is "
                                    "larger than 1 GiB, the limit of a type's size\n"));
        free(out);
    }
    assert_int_equal(rm_rf(dir), 0);
}

/* ---- 6. string defaults ------------------------------------------------------------ */

static void test_utf8_defaults(void **state)
{
    (void)state;
    expect_errors("package u\nstruct S { string a = \"ok\\xff\"; }\n",
                  "t.fbe:2:23: error: invalid UTF-8 in string literal\n");
    expect_errors("package u\nstruct S { string a = \"\\300\\200\"; }\n", /* overlong NUL */
                  "t.fbe:2:23: error: invalid UTF-8 in string literal\n");
    expect_errors("package u\nstruct S { string a = \"\\xed\\xa0\\x80\"; }\n", /* surrogate */
                  "t.fbe:2:23: error: invalid UTF-8 in string literal\n");
    expect_errors("package u\nstruct S { string a = \"\xe9t\xc3\xa9\"; }\n", /* raw latin-1 */
                  "t.fbe:2:23: error: invalid UTF-8 in string literal\n");
    expect_errors("package u\nstruct S { string? a = \"\\xc3\"; }\n", /* cut sequence */
                  "t.fbe:2:24: error: invalid UTF-8 in string literal\n");
    /* The same character three ways is accepted. */
    fbe_schema *s = load_text_ok("package u\nstruct S { string a = \"\\u00e9\"; "
                                 "string b = \"\\xc3\\xa9\"; string c = \"\xc3\xa9\"; }\n");
    const fbe_ir_struct *st = fbe_schema_find_struct(s, "u.S");
    for (int i = 0; i < 3; i++) {
        assert_int_equal(st->fields[i].default_value.str.size, 2);
        assert_memory_equal(st->fields[i].default_value.str.data, "\xc3\xa9", 2);
    }
    fbe_schema_free(s);
}

/* ---- 5. a front end linear in the schema's size ----------------------------------- */

/* Not timed: every symbol table used to be a scan with strcmp, so the number of
 * strcmp calls is what grew quadratically. The test binary's own strcmp is
 * called by the (statically linked) compiler; sanitizer runtimes intercept
 * strcmp themselves, so sanitized builds skip this test. */
static unsigned long strcmp_calls;

int strcmp(const char *a, const char *b)
{
    strcmp_calls++;
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    while (*x && *x == *y) {
        x++;
        y++;
    }
    return *x - *y;
}

typedef enum shape { ENUM_VALUES, STRUCTS, FIELDS, ERRORS, FLAGS_REFS, BY_VALUE } shape;

static char *scaled_schema(shape what, int n)
{
    text_buf t = {0};
    tprintf(&t, "package big\n");
    switch (what) {
    case ENUM_VALUES:
        tprintf(&t, "enum E {");
        for (int i = 0; i < n; i++)
            tprintf(&t, " v%d;", i);
        tprintf(&t, " }\n");
        break;
    case STRUCTS: /* each refers to the one before: lookups by name */
        tprintf(&t, "struct S0 { int32 a; }\n");
        for (int i = 1; i < n; i++)
            tprintf(&t, "struct S%d : S%d { S%d? p%d; }\n", i, i % 200 ? i - 1 : 0, i - 1, i);
        break;
    case FIELDS:
        tprintf(&t, "struct S {\n");
        for (int i = 0; i < n; i++)
            tprintf(&t, "int32 f%d;\n", i);
        tprintf(&t, "}\n");
        break;
    case ERRORS: /* only FBE_MAX_ERRORS are reported; the rest must cost nothing */
        for (int i = 0; i < n; i++)
            tprintf(&t, "struct S%d { Foo a; }\n", i);
        break;
    case BY_VALUE: /* a struct of n/2 lists, held by value n/2 times, twice over */
        tprintf(&t, "struct S {\n");
        for (int i = 0; i < n / 2; i++)
            tprintf(&t, "int32[] l%d;\n", i);
        tprintf(&t, "}\nstruct H {\n");
        for (int i = 0; i < n / 2; i++)
            tprintf(&t, "S s%d;\n", i);
        tprintf(&t, "}\nstruct C { H h; }\n");
        break;
    case FLAGS_REFS: /* values defined from earlier ones */
        tprintf(&t, "flags F : uint64 { f0 = 1;");
        for (int i = 1; i < n; i++)
            tprintf(&t, " f%d = f%d | f0;", i, i - 1);
        tprintf(&t, " }\n");
        break;
    }
    return t.s;
}

static void test_front_end_scales_linearly(void **state)
{
    (void)state;
    if (FBE_TEST_SANITIZED)
        skip();
    static const char *const names[] = {"enum values", "structs", "fields", "errors",
                                        "flags references"};
    for (int what = ENUM_VALUES; what <= FLAGS_REFS; what++) {
        unsigned long calls[3];
        for (int k = 0; k < 3; k++) {
            char *schema = scaled_schema((shape)what, 10000 << k);
            diag_capture cap;
            strcmp_calls = 0;
            fbe_schema *s = load_text(schema, &cap);
            calls[k] = strcmp_calls;
            assert_true(what == ERRORS ? s == NULL : s != NULL);
            if (what == ERRORS)
                assert_int_equal(cap.count, FBE_MAX_ERRORS);
            fbe_schema_free(s);
            free(schema);
        }
        for (int k = 1; k < 3; k++) {
            double ratio = (double)calls[k] / (double)(calls[k - 1] ? calls[k - 1] : 1);
            print_message("%s: %lu -> %lu strcmp calls (x%.2f)\n", names[what], calls[k - 1],
                          calls[k], ratio);
            assert_true(ratio <= 2.3);
        }
    }
}

/* Not timed either: the bytes an interpreter codec holds (its arena: programs,
 * nodes, step lists) must grow linearly with the schema. */
static size_t interp_codec_bytes(const char *schema_text)
{
    fbe_schema *s = load_text_ok(schema_text);
    fbe_codec *c = fbe_interp_create(s, NULL, NULL);
    assert_non_null(c);
    size_t bytes = c->arena.total;
    fbe_codec_free(c);
    fbe_schema_free(s);
    return bytes;
}

static void test_interp_codec_scales_linearly(void **state)
{
    (void)state;
    static const char *const names[] = {[STRUCTS] = "structs", [FIELDS] = "fields"};
    static const shape shapes[] = {STRUCTS, FIELDS};
    /* the doubling series is slow under sanitizers (and counts the same) */
    for (size_t w = 0; w < sizeof shapes / sizeof *shapes && !FBE_TEST_SANITIZED; w++) {
        size_t bytes[3];
        for (int k = 0; k < 3; k++) {
            char *schema_text_k = scaled_schema(shapes[w], 10000 << k);
            bytes[k] = interp_codec_bytes(schema_text_k);
            free(schema_text_k);
        }
        for (int k = 1; k < 3; k++) {
            double ratio = (double)bytes[k] / (double)bytes[k - 1];
            print_message("%s: %zu -> %zu codec bytes (x%.2f)\n", names[shapes[w]],
                          bytes[k - 1], bytes[k], ratio);
            assert_true(ratio <= 2.3);
        }
    }
    /* Holding a struct by value used to copy its fields into the holder's size
     * lists: here 2000 x 2000 list entries per model, 0.5 GB for a 46 KB
     * schema. The type size limit bounds the product (host bytes), so no
     * doubling series shows it: the codec's bytes per schema byte do. */
    char *schema_text_bv = scaled_schema(BY_VALUE, 4000);
    size_t bytes = interp_codec_bytes(schema_text_bv), len = strlen(schema_text_bv);
    print_message("structs held by value: %zu codec bytes for %zu schema bytes\n", bytes, len);
    assert_true(bytes <= 256 * len);
    free(schema_text_bv);
    /* A chain of 64 heirs of 100 lists each: every level used to copy the
     * lists of all the levels above (64 x 65 / 2 x 100 fields' programs,
     * 0.13 GB); heirs share them now, as the IR shares their fields. */
    text_buf chain = {0};
    tprintf(&chain, "package ch\n");
    for (int i = 0; i < 64; i++) {
        if (i)
            tprintf(&chain, "struct C%d : C%d {\n", i, i - 1);
        else
            tprintf(&chain, "struct C0 {\n");
        for (int j = 0; j < 100; j++)
            tprintf(&chain, "int32[] f%d_%d;\n", i, j);
        tprintf(&chain, "}\n");
    }
    bytes = interp_codec_bytes(chain.s);
    print_message("a chain of heirs: %zu codec bytes for %zu schema bytes\n", bytes, chain.len);
    assert_true(bytes <= 256 * chain.len);
    free(chain.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_wrap_is_an_error),
        cmocka_unit_test(test_long_names),
        cmocka_unit_test(test_long_names_aot),
        cmocka_unit_test(test_inheritance_depth),
        cmocka_unit_test(test_inherited_fields_shared),
        cmocka_unit_test(test_nesting_depth),
        cmocka_unit_test(test_depth_across_packages),
        cmocka_unit_test(test_cycles_and_c_names),
        cmocka_unit_test(test_serialize_depth),
        cmocka_unit_test(test_serialize_depth_collections),
        cmocka_unit_test(test_struct_reached_through_a_list),
        cmocka_unit_test(test_large_struct_held_by_value),
        cmocka_unit_test(test_heir_chains_match_the_jit),
        cmocka_unit_test(test_ir_inheritance_bounds),
        cmocka_unit_test(test_ir_field_shapes),
        cmocka_unit_test(test_generated_code),
        cmocka_unit_test(test_utf8_defaults),
        cmocka_unit_test(test_front_end_scales_linearly),
        cmocka_unit_test(test_interp_codec_scales_linearly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
