/* `fbec header`: generated headers compile warning-free with gcc and clang,
 * pin the IR layout, and initialise every struct to the schema defaults (checked
 * by the hand-written programs tests/header_check.c and tests/header_edge_check.c).
 * Also covers the command-line behaviour of the subcommand. */
#include "test_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FBE_HEADER_GCC
#define FBE_HEADER_GCC "gcc"
#endif
#ifndef FBE_HEADER_CLANG
#define FBE_HEADER_CLANG "clang-19"
#endif
/* Compiler of the build and extra flags needed to link against fbe_runtime
 * (sanitizer builds): with flags, only that compiler links the check programs. */
#ifndef FBE_HEADER_BUILD_CC
#define FBE_HEADER_BUILD_CC "cc"
#endif
#ifndef FBE_HEADER_LINK_FLAGS
#define FBE_HEADER_LINK_FLAGS ""
#endif

/* What a demanding user might compile with: the header must stay quiet there too. */
#define EXTRA_FLAGS "-Wshadow -Wconversion -Wsign-conversion -Wstrict-prototypes "       \
                    "-Wmissing-prototypes -Wcast-qual -Wundef -Wredundant-decls"

static const char *const golden[] = {"proto", "protoex", "test", "enums"};
#define GOLDEN_COUNT (sizeof golden / sizeof golden[0])

static char out_dir[4096];

static const char *outdir(void)
{
    if (!out_dir[0])
        snprintf(out_dir, sizeof out_dir, "%s/header_test", FBE_BINARY_DIR);
    return out_dir;
}

/* Generates every header once: golden schemas and tests/header_edge.fbe. */
static void ensure_generated(void)
{
    static bool done;
    if (done)
        return;
    expect_status(fmt("mkdir -p '%s'", outdir()), 0, NULL);
    char schemas[4096];
    snprintf(schemas, sizeof schemas, "%s", shared_path("golden/schemas"));
    for (size_t i = 0; i < GOLDEN_COUNT; i++) {
        const char *h = fmt("%s/%s.h", outdir(), golden[i]);
        remove(h);
        expect_status(fmt("'%s' header -I '%s' '%s/%s.fbe' -o '%s'", FBEC_PATH, schemas,
                          schemas, golden[i], h),
                      0, NULL);
        assert_true(file_exists(h));
    }
    const char *edge = fmt("%s/edge.h", outdir());
    remove(edge);
    expect_status(fmt("'%s' header -I '%s' '%s/tests/header_edge.fbe' -o '%s'", FBEC_PATH,
                      schemas, FBE_SOURCE_DIR, edge),
                  0, NULL);
    done = true;
}

static void test_generate(void **state)
{
    (void)state;
    ensure_generated();
    for (size_t i = 0; i < GOLDEN_COUNT; i++) {
        size_t len;
        char *text = (char *)read_file(fmt("%s/%s.h", outdir(), golden[i]), &len);
        char guard[64];
        snprintf(guard, sizeof guard, "#ifndef FBE_GENERATED_%s_H", golden[i]);
        for (char *p = guard + 8; *p; p++)
            if (*p >= 'a' && *p <= 'z')
                *p = (char)(*p - 'a' + 'A');
        assert_non_null(strstr(text, guard));
        assert_non_null(strstr(text, "do not edit"));
        assert_non_null(strstr(text, fmt("from %s.fbe", golden[i])));
        assert_non_null(strstr(text, "#include <fbe/types.h>"));
        bool imports_proto = strcmp(golden[i], "test") == 0 ||
                             strcmp(golden[i], "protoex") == 0;
        assert_int_equal(strstr(text, "#include \"proto.h\"") != NULL, imports_proto);
        free(text);
    }
}

/* The same input always gives the same bytes, on stdout or with -o. */
static void test_deterministic(void **state)
{
    (void)state;
    ensure_generated();
    const char *schema = fmt("%s", shared_path("golden/schemas/test.fbe"));
    const char *a = fmt("%s/test.stdout1.h", outdir());
    const char *b = fmt("%s/test.stdout2.h", outdir());
    expect_status(fmt("'%s' header '%s' > '%s'", FBEC_PATH, schema, a), 0, NULL);
    expect_status(fmt("'%s' header '%s' > '%s'", FBEC_PATH, schema, b), 0, NULL);
    size_t la, lb, lo;
    uint8_t *ta = read_file(a, &la);
    uint8_t *tb = read_file(b, &lb);
    uint8_t *to = read_file(fmt("%s/test.h", outdir()), &lo);
    assert_true(la > 0);
    assert_int_equal(la, lb);
    assert_memory_equal(ta, tb, la);
    assert_int_equal(la, lo);
    assert_memory_equal(ta, to, la);
    free(ta);
    free(tb);
    free(to);
}

/* Each header alone, as a user would include it. */
static void compile_headers(const char *cc)
{
    ensure_generated();
    const char *names[GOLDEN_COUNT + 1];
    for (size_t i = 0; i < GOLDEN_COUNT; i++)
        names[i] = golden[i];
    names[GOLDEN_COUNT] = "edge";
    for (size_t i = 0; i < GOLDEN_COUNT + 1; i++) {
        const char *tu = fmt("%s/include_%s.c", outdir(), names[i]);
        write_text(tu, fmt("#include \"%s.h\"\n", names[i]));
        expect_status(fmt("%s -fsyntax-only " STRICT_FLAGS " -I'%s' -I'%s/include' '%s'", cc,
                          outdir(), FBE_SOURCE_DIR, tu),
                      0, NULL);
        expect_status(fmt("%s -fsyntax-only " STRICT_FLAGS " " EXTRA_FLAGS
                          " -I'%s' -I'%s/include' '%s'",
                          cc, outdir(), FBE_SOURCE_DIR, tu),
                      0, NULL);
    }
    /* GNU C predefines `linux` and `unix`; <math.h> then also defines M_PI, and
     * M_PIl with _GNU_SOURCE; C23 adds INT32_WIDTH, FP_INT_UPWARD, SNAN, nullptr. */
    static const char *const modes[] = {"-std=gnu11", "-std=gnu11 -D_GNU_SOURCE", "-std=c2x"};
    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++)
        expect_status(fmt("%s -fsyntax-only %s -Wall -Wextra -Werror -I'%s' -I'%s/include' "
                          "'%s/include_edge.c'",
                          cc, modes[m], outdir(), FBE_SOURCE_DIR, outdir()),
                      0, NULL);
    /* The same header as C++17 (C++ keywords as field names get a '_'). */
    const char *cxx = strstr(cc, "clang") ? "clang++-19" : "g++";
    if (have_compiler(cxx))
        expect_status(fmt("%s -x c++ -std=c++17 -fsyntax-only -Wall -Wextra -pedantic -Werror "
                          "-I'%s' -I'%s/include' '%s/include_edge.c'",
                          cxx, outdir(), FBE_SOURCE_DIR, outdir()),
                      0, NULL);
    /* Several packages in one unit (test and protoex both import proto). */
    const char *all = fmt("%s/include_all.c", outdir());
    write_text(all, "#include \"test.h\"\n#include \"protoex.h\"\n#include \"proto.h\"\n"
                    "#include \"enums.h\"\n#include \"edge.h\"\n");
    expect_status(fmt("%s -fsyntax-only " STRICT_FLAGS " -I'%s' -I'%s/include' '%s'", cc,
                      outdir(), FBE_SOURCE_DIR, all),
                  0, NULL);
}

static void test_compile_gcc(void **state)
{
    (void)state;
    if (!have_compiler(FBE_HEADER_GCC))
        fail_msg("compiler %s not found", FBE_HEADER_GCC);
    compile_headers(FBE_HEADER_GCC);
}

static void test_compile_clang(void **state)
{
    (void)state;
    if (!have_compiler(FBE_HEADER_CLANG)) {
        print_message("SKIPPED: compiler '%s' not found\n", FBE_HEADER_CLANG);
        skip();
    }
    compile_headers(FBE_HEADER_CLANG);
}

/* Builds a check program with cc against fbe_runtime and runs it. */
static void run_check(const char *cc, const char *name, const char *flags)
{
    const char *exe = fmt("%s/%s_%s", outdir(), name, strrchr(cc, '/') ? strrchr(cc, '/') + 1 : cc);
    remove(exe);
    expect_status(fmt("%s " STRICT_FLAGS " %s -I'%s' -I'%s/include' '%s/tests/%s.c' '%s' -lm "
                      "-o '%s'",
                      cc, flags, outdir(), FBE_SOURCE_DIR, FBE_SOURCE_DIR, name,
                      FBE_RUNTIME_LIB, exe),
                  0, NULL);
    char *out = NULL;
    expect_status(fmt("'%s'", exe), 0, &out);
    print_message("%s", out); /* "N checks, 0 failed" */
    free(out);
}

static void run_checks(const char *cc)
{
    ensure_generated();
    if (FBE_HEADER_LINK_FLAGS[0]) {
        /* Sanitizer runtimes differ between compilers: link with the build's. */
        if (strcmp(cc, FBE_HEADER_GCC) != 0) {
            print_message("sanitizer build: check programs run with %s only\n",
                          FBE_HEADER_BUILD_CC);
            return;
        }
        cc = FBE_HEADER_BUILD_CC;
    }
    run_check(cc, "header_check", FBE_HEADER_LINK_FLAGS);
    run_check(cc, "header_edge_check", FBE_HEADER_LINK_FLAGS);
}

static void test_defaults_gcc(void **state)
{
    (void)state;
    if (!have_compiler(FBE_HEADER_GCC))
        fail_msg("compiler %s not found", FBE_HEADER_GCC);
    run_checks(FBE_HEADER_GCC);
}

static void test_defaults_clang(void **state)
{
    (void)state;
    if (!have_compiler(FBE_HEADER_CLANG)) {
        print_message("SKIPPED: compiler '%s' not found\n", FBE_HEADER_CLANG);
        skip();
    }
    run_checks(FBE_HEADER_CLANG);
}

/* ---- command line ---------------------------------------------------------------- */

static void test_cli_help(void **state)
{
    (void)state;
    char *out = NULL;
    expect_status(fmt("'%s' header --help 2>/dev/null", FBEC_PATH), 0, &out);
    assert_non_null(strstr(out, "usage: fbec header"));
    free(out);
    expect_status(fmt("'%s' header -h >/dev/null", FBEC_PATH), 0, NULL);
}

static void test_cli_usage_errors(void **state)
{
    (void)state;
    char *out = NULL;
    expect_status(fmt("'%s' header", FBEC_PATH), 2, &out);
    assert_non_null(strstr(out, "fbec header"));
    free(out);
    const char *p = fmt("%s", shared_path("golden/schemas/proto.fbe"));
    expect_status(fmt("'%s' header '%s' '%s'", FBEC_PATH, p, p), 2, NULL);
    expect_status(fmt("'%s' header --no-such-option '%s'", FBEC_PATH, p), 2, NULL);
    expect_status(fmt("'%s' header '%s' -o", FBEC_PATH, p), 2, NULL);
}

static void test_cli_output_file(void **state)
{
    (void)state;
    expect_status(fmt("mkdir -p '%s'", outdir()), 0, NULL);
    const char *out = fmt("%s/cli_proto.h", outdir());
    remove(out);
    char *text = NULL;
    expect_status(fmt("'%s' header '%s' -o '%s'", FBEC_PATH,
                      shared_path("golden/schemas/proto.fbe"), out),
                  0, &text);
    assert_string_equal(text, ""); /* nothing on stdout/stderr with -o */
    free(text);
    size_t len;
    char *h = (char *)read_file(out, &len);
    assert_non_null(strstr(h, "struct proto_Account {"));
    assert_non_null(strstr(h, "#define proto_Account_TYPE 3u"));
    free(h);
}

static void test_cli_schema_errors(void **state)
{
    (void)state;
    expect_status(fmt("mkdir -p '%s'", outdir()), 0, NULL);
    const char *bad = fmt("%s/bad.fbe", outdir());
    write_text(bad, "package bad\n\nstruct S\n{\n    Unknown x;\n}\n");
    const char *out = fmt("%s/bad.h", outdir());
    remove(out);
    char *text = NULL;
    expect_status(fmt("'%s' header '%s' -o '%s'", FBEC_PATH, bad, out), 1, &text);
    assert_non_null(strstr(text, "bad.fbe:5:"));
    free(text);
    assert_false(file_exists(out)); /* no header for a broken schema */

    expect_status(fmt("'%s' header '%s/no-such-file.fbe'", FBEC_PATH, outdir()), 1, NULL);
    /* An unwritable output is an error too, and does not report success. */
    expect_status(fmt("'%s' header '%s' -o '%s/no-such-dir/x.h'", FBEC_PATH,
                      shared_path("golden/schemas/proto.fbe"), outdir()),
                  1, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generate),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_compile_gcc),
        cmocka_unit_test(test_compile_clang),
        cmocka_unit_test(test_defaults_gcc),
        cmocka_unit_test(test_defaults_clang),
        cmocka_unit_test(test_cli_help),
        cmocka_unit_test(test_cli_usage_errors),
        cmocka_unit_test(test_cli_output_file),
        cmocka_unit_test(test_cli_schema_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
