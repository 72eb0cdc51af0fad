/* The static C backend (`fbec c`, docs/static.md):
 *   - every golden schema's generated C compiles warning-free (-std=c11 -Wall
 *     -Wextra -pedantic -Werror) with the build's compiler and, when present,
 *     gcc and clang-19; its --header is byte for byte that of `fbec aot`;
 *   - linked with fbe_runtime ONLY into tests/aot_check.c (unchanged: the
 *     symbols are those of an aot object), every golden case of its package
 *     passes, and tests/aot_image_check.c finds its IR image equal to the
 *     compiler's IR member by member;
 *   - tests/static_diff.c links all four codecs, that of hc_schema (below) and
 *     that of RS_SEEDS random schemas (tests/schema_gen.c)
 *     with the interpreter and compares them on random values and on every
 *     truncation and byte flips of every golden buffer and of hc's values
 *     (verify status/offset/struct/field, deserialize status and decoded
 *     value), other depth limits and arena limits;
 *   - the C of an inheritance chain grows linearly with the chain;
 *   - the command line. */
#include "test_cmd.h"

#include "schema_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FBE_STATIC_CC
#define FBE_STATIC_CC "cc"
#endif
#ifndef FBE_STATIC_FLAGS
#define FBE_STATIC_FLAGS ""
#endif

/* Random schemas (tests/schema_gen.c) in package rs, compared like hc. */
#define RS_SEEDS 10

/* Values per type of the differential run (the sanitizer build runs fewer). */
#define DIFF_VALUES (FBE_TEST_SANITIZED ? 10 : 30)

static const char *const golden[][2] = {
    {"proto", "Account"}, {"protoex", "Account"}, {"test", "StructBytes"}, {"enums", "Enums"}};
#define GOLDEN_COUNT (sizeof golden / sizeof golden[0])

static char dir[2048], schemas[2048];

/* Inheritance in every shape the generated code shares a base's code for: B
 * has nothing to check (scalars only), D extends it and is extended by E (its
 * heir: the IR shares one field array), G is D's second derived struct (a copy
 * of D's fields: a failure in s or l must name G and G's field) extended by K;
 * X is fixed in the final model, Y and Z3 fixed heirs (struct levels to
 * depth-check), Z a derived struct that is not fixed; D ends with fixed fields
 * (the size walk's trailing bytes). All held inside H. */
static const char hc_schema[] =
    "package hc\n"
    "struct B { int32 a; int64 b; }\n"
    "struct D : B { string s; int32[] l; uuid u; }\n"
    "struct E : D { bool f; string t; int16 g; }\n"
    "struct F : B { string v; }\n"
    "struct G : D { string w; D? dd; }\n"
    "struct K : G { int8 z; string y; B[] bs; }\n"
    "struct L { string a; string b; }\n"
    "struct M : L { int32[] x; }\n"
    "struct X { int32 p; uuid q; }\n"
    "struct Y : X { bool r; X x; }\n"
    "struct Z : X { string s; Y y; }\n"
    "struct Z3 : Y { Y y3; bool[3] bits; }\n"
    "struct H { E e; D? d; F[] fs; L[] ls; M[] ms; G g; K? k; Z z; Z3 z3; Y[] ys; G[] gs; }\n";

/* fbec c for every golden schema, then one object per schema (compiled once,
 * linked into every check program). */
static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s/static_test", FBE_BINARY_DIR);
    snprintf(schemas, sizeof schemas, "%s", shared_path("golden/schemas"));
    char *out = NULL;
    if (run_command(fmt("rm -rf '%s' && mkdir -p '%s'", dir, dir), &out) != 0)
        return -1;
    free(out);
    write_text(fmt("%s/hc.fbe", dir), hc_schema);
    char *rs = gen_schema("rs", 1, RS_SEEDS);
    write_text(fmt("%s/rs.fbe", dir), rs);
    free(rs);
    for (size_t i = 0; i <= GOLDEN_COUNT + 1; i++) {
        const char *p = i < GOLDEN_COUNT ? golden[i][0] : i == GOLDEN_COUNT ? "hc" : "rs";
        const char *sd = i < GOLDEN_COUNT ? schemas : dir;
        out = NULL;
        int rc = run_command(fmt("'%s' c -I '%s' '%s/%s.fbe' -o '%s/%s.c' --header '%s/%s.h'",
                                 FBEC_PATH, sd, sd, p, dir, p, dir, p),
                             &out);
        if (rc != 0) {
            print_message("fbec c %s: %s\n", p, out ? out : "");
            free(out);
            return -1;
        }
        free(out);
        out = NULL;
        /* -O1: test.fbe's file is large; -O2 costs much more compile time */
        rc = run_command(fmt("%s " STRICT_FLAGS " -O1 %s -I'%s/include' -c '%s/%s.c' -o '%s/%s.o'",
                             FBE_STATIC_CC, FBE_STATIC_FLAGS, FBE_SOURCE_DIR, dir, p, dir, p),
                         &out);
        if (rc != 0) {
            print_message("compiling %s.c: %s\n", p, out ? out : "");
            free(out);
            return -1;
        }
        free(out);
    }
    return 0;
}

static const char *link_cmd(const char *src, const char *defs, const char *objs, const char *exe)
{
    return fmt("%s " STRICT_FLAGS " %s %s -I'%s' -I'%s/include' -I'%s/tests' '%s' %s -lm -o '%s'",
               FBE_STATIC_CC, FBE_STATIC_FLAGS, defs, dir, FBE_SOURCE_DIR, FBE_SOURCE_DIR, src,
               objs, exe);
}

/* The generated C is warning-free with both compilers (syntax only: the
 * build's compiler already compiled it). */
static void test_compilers(void **state)
{
    (void)state;
    const char *ccs[] = {FBE_STATIC_GCC, FBE_STATIC_CLANG};
    for (size_t c = 0; c < 2; c++) {
        if (!ccs[c][0]) {
            print_message("SKIPPED: compiler %zu not found\n", c);
            continue;
        }
        for (size_t i = 0; i < GOLDEN_COUNT; i++)
            expect_status(fmt("%s " STRICT_FLAGS " -fsyntax-only -I'%s/include' '%s/%s.c'", ccs[c],
                              FBE_SOURCE_DIR, dir, golden[i][0]),
                          0, NULL);
    }
}

/* --header is the header of `fbec aot --header` (shared code; the schemas whose
 * objects LLVM compiles quickly: test.fbe would take about a minute). */
static void test_header_same_as_aot(void **state)
{
    (void)state;
    for (size_t i = 0; i < GOLDEN_COUNT; i++) {
        const char *p = golden[i][0];
        if (strcmp(p, "test") == 0)
            continue;
        char *out = NULL;
        int rc = run_command(fmt("'%s' aot -I '%s' '%s/%s.fbe' -o '%s/%s.aot.o' --header '%s/%s.aot.h'",
                                 FBEC_PATH, schemas, schemas, p, dir, p, dir, p),
                             &out);
        free(out);
        if (rc != 0) {
            print_message("SKIPPED: no fbec aot (built without LLVM?)\n");
            return;
        }
        size_t na, nc;
        uint8_t *a = read_file(fmt("%s/%s.aot.h", dir, p), &na);
        uint8_t *c = read_file(fmt("%s/%s.h", dir, p), &nc);
        assert_int_equal(na, nc);
        assert_memory_equal(a, c, na);
        assert_non_null(strstr((const char *)c, fmt("fbe_codec *fbe_%s_codec_create(", p)));
        free(a);
        free(c);
    }
}

static void test_golden(void **state)
{
    (void)state;
    for (size_t i = 0; i < GOLDEN_COUNT; i++) {
        const char *p = golden[i][0];
        const char *exe = fmt("%s/aot_check_%s", dir, p);
        char exe_copy[4096];
        snprintf(exe_copy, sizeof exe_copy, "%s", exe);
        /* the generated code and the runtime library, nothing else */
        expect_status(link_cmd(fmt("%s/tests/aot_check.c", FBE_SOURCE_DIR),
                               fmt("-DAOT_PACKAGE=%s -DAOT_TYPE=%s -DAOT_ALL_OPS "
                                   "-DAOT_BACKEND=FBE_BACKEND_STATIC",
                                   p, golden[i][1]),
                               fmt("'%s/%s.o' '%s'", dir, p, FBE_RUNTIME_LIB), exe_copy),
                      0, NULL);
        char *syms = NULL;
        expect_status(fmt("nm '%s'", exe_copy), 0, &syms);
        /* the codec is made on the runtime's interpreter (its programs) */
        assert_non_null(strstr(syms, "fbe_interp_create_ir"));
        assert_null(strstr(syms, "LLVM"));
        assert_null(strstr(syms, "fbe_schema_load")); /* no compiler */
        free(syms);
        char *out = NULL;
        expect_status(fmt("'%s' '%s'", exe_copy, shared_path("golden")), 0, &out);
        print_message("%s", out);
        int count = 0;
        if (sscanf(out, "aot_check %*s %d golden rows", &count) != 1)
            count = 0;
        free(out);
        assert_true(count > 0); /* "aot_check PKG: N golden rows" */
    }
}

static void test_image(void **state)
{
    (void)state;
    for (size_t i = 0; i <= GOLDEN_COUNT; i++) { /* and rs, the random schemas */
        const char *p = i < GOLDEN_COUNT ? golden[i][0] : "rs";
        const char *sd = i < GOLDEN_COUNT ? schemas : dir;
        char exe[4096];
        snprintf(exe, sizeof exe, "%s/aot_image_check_%s", dir, p);
        expect_status(link_cmd(fmt("%s/tests/aot_image_check.c", FBE_SOURCE_DIR),
                               fmt("-DAOT_PACKAGE=%s -DAOT_ALL_OPS", p),
                               fmt("'%s/%s.o' '%s' '%s'", dir, p, FBE_COMPILER_LIB, FBE_RUNTIME_LIB),
                               exe),
                      0, NULL);
        char *out = NULL;
        expect_status(fmt("'%s' '%s/%s.fbe' '%s'", exe, sd, p, sd), 0, &out);
        print_message("%s", out);
        assert_non_null(strstr(out, " 0 differ"));
        free(out);
    }
}

static void test_differential(void **state)
{
    (void)state;
    char exe[4096];
    snprintf(exe, sizeof exe, "%s/static_diff", dir);
    expect_status(link_cmd(fmt("%s/tests/static_diff.c", FBE_SOURCE_DIR), "",
                           fmt("'%s/tests/value_gen.c' '%s/proto.o' '%s/protoex.o' '%s/test.o' "
                               "'%s/enums.o' '%s/hc.o' '%s/rs.o' '%s' '%s'",
                               FBE_SOURCE_DIR, dir, dir, dir, dir, dir, dir, FBE_COMPILER_LIB,
                               FBE_RUNTIME_LIB),
                           exe),
                  0, NULL);
    char *out = NULL;
    expect_status(fmt("'%s' '%s' %d '%s/hc.fbe' '%s/rs.fbe'", exe, shared_path("golden"),
                      DIFF_VALUES, dir, dir),
                  0, &out);
    print_message("%s", out);
    assert_non_null(strstr(out, " 0 divergences"));
    assert_non_null(strstr(out, "static_diff test: 18 types"));
    assert_non_null(strstr(out, "static_diff hc: 13 types"));
    assert_non_null(strstr(out, "static_diff rs: "));
    /* the case the shared base code could get wrong did happen, alike */
    unsigned long copies = 0;
    const char *at = strstr(out, "static_diff: ");
    assert_non_null(at);
    assert_int_equal(sscanf(at, "static_diff: %lu verify failures", &copies), 1);
    assert_true(copies > 0);
    free(out);
}

/* The bytes of a chain of `levels` structs of 20 fields each, every one
 * deriving from the one before: the codec's functions (standard and final
 * model, from the first to the entry points; the IR image is gen_c_image.c's)
 * and the whole file. */
static void chain_c_bytes(int levels, size_t *code, size_t *total)
{
    static const char *const types[] = {"int32", "string", "int32[]", "bool", "double?"};
    size_t cap = (size_t)levels * 20 * 32 + 64, len = 0;
    char *schema = malloc(cap);
    assert_non_null(schema);
    len += (size_t)snprintf(schema + len, cap - len, "package chain\n");
    for (int i = 0; i < levels; i++) {
        len += i ? (size_t)snprintf(schema + len, cap - len, "struct C%d : C%d {", i, i - 1)
                 : (size_t)snprintf(schema + len, cap - len, "struct C0 {");
        for (int j = 0; j < 20; j++)
            len += (size_t)snprintf(schema + len, cap - len, " %s f%d_%d;", types[j % 5], i, j);
        len += (size_t)snprintf(schema + len, cap - len, " }\n");
    }
    assert_true(len < cap);
    write_text(fmt("%s/chain.fbe", dir), schema);
    free(schema);
    expect_status(fmt("'%s' c '%s/chain.fbe' -o '%s/chain.c'", FBEC_PATH, dir, dir), 0, NULL);
    size_t n = 0;
    char *c = (char *)read_file(fmt("%s/chain.c", dir), &n);
    assert_non_null(c);
    c = realloc(c, n + 1);
    assert_non_null(c);
    c[n] = 0;
    const char *from = strstr(c, "\n/* ---- standard model ---- */");
    const char *to = strstr(c, "\n/* ---- entry points ---- */");
    assert_non_null(from);
    assert_non_null(to);
    *code = (size_t)(to - from);
    *total = n;
    free(c);
}

/* A derived struct calls its base's code for the fields it inherits: a chain
 * of N levels of F fields is O(N F) C, not O(N^2 F) (each level emitting all
 * the fields above it again made 229 MB of C from a 39 KB schema). */
static void test_chain_grows_linearly(void **state)
{
    (void)state;
    size_t code[3], total[3];
    for (int k = 2; k >= 0; k--) /* the 32 levels last: compiled below */
        chain_c_bytes(32 << k, &code[k], &total[k]);
    for (int k = 1; k < 3; k++) {
        double ratio = (double)code[k] / (double)code[k - 1];
        print_message("chain of %d levels: %zu bytes of codec functions (x%.2f), %zu in all (x%.2f)\n",
                      32 << k, code[k], ratio, total[k], (double)total[k] / (double)total[k - 1]);
        assert_true(ratio <= 2.3);
    }
    /* the C of 32 levels is warning-free (syntax only: hc_schema's is run) */
    expect_status(fmt("%s " STRICT_FLAGS " %s -fsyntax-only -I'%s/include' '%s/chain.c'", FBE_STATIC_CC,
                      FBE_STATIC_FLAGS, FBE_SOURCE_DIR, dir),
                  0, NULL);
}

static void test_cli(void **state)
{
    (void)state;
    char *out = NULL;
    expect_status(fmt("'%s' c --help", FBEC_PATH), 0, &out);
    assert_non_null(strstr(out, "usage: fbec c"));
    free(out);
    expect_status(fmt("'%s' --help", FBEC_PATH), 0, &out);
    assert_non_null(strstr(out, "static C codec"));
    free(out);
    const char *p = fmt("%s/proto.fbe", schemas);
    char proto[4096], o[4096];
    snprintf(proto, sizeof proto, "%s", p);
    snprintf(o, sizeof o, "%s/cli.c", dir);
    remove(o);
    expect_status(fmt("'%s' c", FBEC_PATH), 2, NULL);
    expect_status(fmt("'%s' c '%s'", FBEC_PATH, proto), 2, NULL); /* no -o */
    expect_status(fmt("'%s' c '%s' '%s' -o '%s'", FBEC_PATH, proto, proto, o), 2, NULL);
    expect_status(fmt("'%s' c '%s' -o '%s' --max-depth 0", FBEC_PATH, proto, o), 2, NULL);
    expect_status(fmt("'%s' c '%s' -o '%s' --header", FBEC_PATH, proto, o), 2, NULL);
    expect_status(fmt("'%s' c '%s' -o '%s' --header '%s'", FBEC_PATH, proto, o, o), 2, NULL);
    expect_status(fmt("'%s' c '%s' -o '%s' --no-such-option", FBEC_PATH, proto, o), 2, NULL);
    assert_false(file_exists(o));
    expect_status(fmt("'%s' c '%s/no-such.fbe' -o '%s'", FBEC_PATH, dir, o), 1, NULL);
    expect_status(fmt("'%s' c '%s' -o '%s/no-such-dir/x.c'", FBEC_PATH, proto, dir), 1, NULL);
    assert_false(file_exists(o));
    /* quiet on success; the depth limit is in the image; deterministic */
    expect_status(fmt("'%s' c --schema='%s' -o '%s' --max-depth=7", FBEC_PATH, proto, o), 0, &out);
    assert_string_equal(out, "");
    free(out);
    size_t n1, n2;
    uint8_t *a = read_file(o, &n1);
    assert_non_null(strstr((const char *)a, "#define SC_MAX_DEPTH 7u"));
    expect_status(fmt("'%s' c '%s' -o '%s.2' --max-depth 7", FBEC_PATH, proto, o), 0, NULL);
    uint8_t *b = read_file(fmt("%s.2", o), &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compilers),
        cmocka_unit_test(test_header_same_as_aot),
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_image),
        cmocka_unit_test(test_differential),
        cmocka_unit_test(test_chain_grows_linearly),
        cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
