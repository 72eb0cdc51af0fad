#define _POSIX_C_SOURCE 200809L
/* fbec as a user runs it: exit codes, gcc-style diagnostics with a caret, help. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

static char dir[256];

static const char *write_schema(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static int run(const char *args, char **out)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s", dir, FBEC_PATH, args);
    return run_command(cmd, out);
}

static void test_help_and_version(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(run("--help", &out), 0);
    assert_non_null(strstr(out, "usage: fbec COMMAND"));
    assert_non_null(strstr(out, "  check "));
    free(out);
    assert_int_equal(run("--version", &out), 0);
    assert_string_equal(out, "fbec (fbe-c) 0.1.0\n");
    free(out);
    for (const char *const *c = (const char *const[]){"check", "ir", "header", NULL}; *c; c++) {
        char args[64];
        snprintf(args, sizeof args, "%s --help", *c);
        assert_int_equal(run(args, &out), 0);
        char want[64];
        snprintf(want, sizeof want, "usage: fbec %s ", *c);
        assert_non_null(strstr(out, want));
        free(out);
    }
}

static void test_usage_errors(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(run("", &out), 2);
    free(out);
    assert_int_equal(run("frobnicate", &out), 2);
    assert_non_null(strstr(out, "fbec: unknown command 'frobnicate'\n"));
    free(out);
    assert_int_equal(run("check", &out), 2);
    assert_non_null(strstr(out, "fbec check: no schema given\n"));
    free(out);
    assert_int_equal(run("check --bogus x.fbe", &out), 2);
    assert_non_null(strstr(out, "fbec check: unknown option --bogus\n"));
    free(out);
    assert_int_equal(run("check -I", &out), 2);
    assert_non_null(strstr(out, "fbec check: missing directory after -I\n"));
    free(out);
    assert_int_equal(run("ir a.fbe b.fbe", &out), 2);
    free(out);
}

static void test_check_diagnostics(void **state)
{
    (void)state;
    write_schema("bad.fbe", "package p\nstruct S { Foo f;\tbyte b = 300; }\n");
    char *out;
    assert_int_equal(run("check bad.fbe", &out), 1);
    assert_string_equal(out,
                        "bad.fbe:2:12: error: unknown type name 'Foo'\n"
                        "struct S { Foo f;\tbyte b = 300; }\n"
                        "           ^\n"
                        "bad.fbe:2:28: error: default value 300 is out of range for type 'byte'\n"
                        "struct S { Foo f;\tbyte b = 300; }\n"
                        "                 \t         ^\n"
                        "2 errors generated.\n");
    free(out);

    write_schema("good.fbe", "package p\nstruct S { int32 a; }\n");
    assert_int_equal(run("check good.fbe", &out), 0);
    assert_string_equal(out, "");
    free(out);
    /* One bad file makes the whole run fail, the good one is still checked. */
    assert_int_equal(run("check good.fbe bad.fbe", &out), 1);
    free(out);
    assert_int_equal(run("check missing.fbe", &out), 1);
    assert_string_equal(out,
                        "fbec: error: cannot read 'missing.fbe': No such file or directory\n"
                        "1 error generated.\n");
    free(out);
}

static void test_check_golden_with_include(void **state)
{
    (void)state;
    char args[1024], *out;
    /* test.fbe imports proto from its own folder. */
    snprintf(args, sizeof args, "check '%s'", shared_path("golden/schemas/test.fbe"));
    assert_int_equal(run(args, &out), 0);
    free(out);
    /* From elsewhere, proto is found through -I. */
    write_schema("user.fbe", "package user\nimport proto\nstruct U { proto.Order o; }\n");
    assert_int_equal(run("check user.fbe", &out), 1);
    free(out);
    snprintf(args, sizeof args, "check -I '%s' user.fbe", shared_path("golden/schemas"));
    assert_int_equal(run(args, &out), 0);
    free(out);
}

static void test_ir_output(void **state)
{
    (void)state;
    write_schema("small.fbe", "package p offset 4 version 2.7\n"
                              "enum E : int8 { a = -1; b; }\n"
                              "struct S { [key] int32 a; bool b = true; string? s; E e = E.b; }\n");
    char *out;
    assert_int_equal(run("ir small.fbe", &out), 0);
    /* Written by hand from the layout rules: standard offsets 8/12/13/18,
     * host {int32 @0, bool @4, {bool, fbe_string} @8 (24 bytes), int8 @32}. */
    assert_string_equal(out,
                        "package p offset 4 version 2.7\n"
                        "\n"
                        "enum p.E : int8\n"
                        "  a = -1\n"
                        "  b = 0\n"
                        "\n"
                        "struct p.S\n"
                        "  type 5\n"
                        "  standard body 19, final var, host size 40 align 8\n"
                        "   0 a            int32                    std    8+4   host    0+4   final 4 [key]\n"
                        "   1 b            bool                     std   12+1   host    4+1   final 1 = true\n"
                        "   2 s            string?                  std   13+5   host    8+24  final var\n"
                        "   3 e            p.E                      std   18+1   host   32+1   final 1 = 0\n");
    free(out);
    /* -o writes the same text to a file. */
    assert_int_equal(run("ir small.fbe -o small.ir", &out), 0);
    assert_string_equal(out, "");
    free(out);
    char path[512];
    snprintf(path, sizeof path, "%s/small.ir", dir);
    size_t n;
    uint8_t *text = read_file(path, &n);
    assert_true(n > 0 && strncmp((char *)text, "package p offset 4", 18) == 0);
    free(text);
}

/* fbec explain: the interpreter's program of proto.Balance {string currency;
 * double amount;} (golden proto.fbe), both models. Expected by hand from
 * program.h/program.c: standard body 8 (size, type) + 4 (string offset) + 8 = 20
 * bytes, header = 20 | 2 << 32; host {ptr, size} 16 + double 8 = 24 bytes;
 * currency is a STRING step (final size 0 as a variable type; `need` 4: its
 * length), amount one plain 8-byte run; verify checks the string only; the size
 * is 20 + 4 + the string's length (standard), 4 + 8 + the length (final); in the
 * final check and exact size lists amount's 8 fixed bytes are END's `pre`. */
static void test_explain(void **state)
{
    (void)state;
    char args[1024], *out;
    snprintf(args, sizeof args, "explain '%s' --type proto.Balance",
             shared_path("golden/schemas/proto.fbe"));
    assert_int_equal(run(args, &out), 0);
    assert_string_equal(out,
                        "proto.Balance: the interpreter's program, standard model\n"
                        "type 2, body 20 bytes, header 0x0000000200000014, host 24 bytes\n"
                        "\n"
                        "fields\n"
                        "   #  node        wire  size   host  hsize  field\n"
                        "   0  STRING         8     4      0     16  currency\n"
                        "   1  COPY8         12     8     16      8  amount plain const\n"
                        "\n"
                        "write, read: std_steps\n"
                        "addr  op          len   wire   host  field\n"
                        "   0  STRING        0      8      0  currency\n"
                        "   1  COPY8         8     12     16  amount\n"
                        "   2  END           0      0      0\n"
                        "\n"
                        "verify: std_check_steps (leaf)\n"
                        "addr  op          len   wire   host  field\n"
                        "   0  STRING        0      8      0  currency\n"
                        "   1  END           0      0      0\n"
                        "\n"
                        "size: 24 + the lengths of the strings at host 0 + std_size_steps\n"
                        "addr  op          len   wire   host  field\n"
                        "   0  END           0      0      0\n");
    free(out);

    snprintf(args, sizeof args, "explain '%s' --type proto.Balance --final",
             shared_path("golden/schemas/proto.fbe"));
    assert_int_equal(run(args, &out), 0);
    assert_string_equal(out,
                        "proto.Balance: the interpreter's program, final model\n"
                        "type 2, variable, at least 12 bytes, host 24 bytes\n"
                        "\n"
                        "fields\n"
                        "   #  node        size      min   host  hsize  field\n"
                        "   0  STRING       var        4      0     16  currency\n"
                        "   1  COPY8          8        8     16      8  amount plain\n"
                        "\n"
                        "write, read: final_steps\n"
                        "addr  op          len   host     pre    need  field\n"
                        "   0  STRING        0      0       0       4  currency\n"
                        "   1  COPY8         8     16       0       0  amount\n"
                        "   2  END           0      0       0       0\n"
                        "\n"
                        "verify: final_check_steps (leaf)\n"
                        "addr  op          len   host     pre    need  field\n"
                        "   0  STRING        0      0       0       4  currency\n"
                        "   1  END           0      0       8       8\n"
                        "\n"
                        "size: 12 + the lengths of the strings at host 0 + final_size_steps\n"
                        "addr  op          len   host     pre    need  field\n"
                        "   0  END           0      0       0       0\n"
                        "\n"
                        "exact size walk: final_size_exact\n"
                        "addr  op          len   host     pre    need  field\n"
                        "   0  STRING        0      0       0       4  currency\n"
                        "   1  END           0      0       8       8\n");
    free(out);

    /* Runs of plain fields and nested programs: proto.Order {[key] int32 id;
     * string symbol; OrderSide side; OrderType type; double price; double volume}:
     * the byte enums side, type are adjacent on the wire (16, 17) and in the host
     * (24, 25), and so are price, volume (wire 18, 26), but the host aligns price
     * to 32: two runs. Then Account's steps into Balance and Order. */
    snprintf(args, sizeof args, "explain '%s' --type proto.Order",
             shared_path("golden/schemas/proto.fbe"));
    assert_int_equal(run(args, &out), 0);
    assert_non_null(strstr(out, "  COPY4         4      8      0  id\n"));
    assert_non_null(strstr(out, "\n   2  COPY2         2     16     24  side..type\n"
                                "   3  COPY16       16     18     32  price..volume\n"));
    free(out);
    snprintf(args, sizeof args, "explain '%s' --type Account",
             shared_path("golden/schemas/proto.fbe"));
    assert_int_equal(run(args, &out), 0);
    assert_non_null(strstr(out, "  wallet -> proto.Balance\n"));
    assert_non_null(strstr(out, "  asset -> proto.Balance\n"));
    assert_non_null(strstr(out, "  orders -> proto.Order\n"));
    free(out);

    assert_int_equal(run("explain --help", &out), 0);
    assert_non_null(strstr(out, "usage: fbec explain "));
    free(out);
    snprintf(args, sizeof args, "explain '%s'", shared_path("golden/schemas/proto.fbe"));
    assert_int_equal(run(args, &out), 2);
    assert_non_null(strstr(out, "fbec explain: missing --type\n"));
    free(out);
    snprintf(args, sizeof args, "explain '%s' --type proto.Nope",
             shared_path("golden/schemas/proto.fbe"));
    assert_int_equal(run(args, &out), 1);
    assert_non_null(strstr(out, "no struct 'proto.Nope'"));
    free(out);
}

static void test_binary_garbage(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/garbage.fbe", dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    unsigned x = 12345;
    for (int i = 0; i < 20000; i++) {
        x = x * 1103515245u + 12345u;
        fputc((int)(x >> 16) & 0xff, f);
    }
    fclose(f);
    char *out;
    assert_int_equal(run("check garbage.fbe", &out), 1);
    assert_non_null(strstr(out, "garbage.fbe:1:"));
    free(out);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fbe-test-cli-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_and_version),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_check_diagnostics),
        cmocka_unit_test(test_check_golden_with_include),
        cmocka_unit_test(test_ir_output),
        cmocka_unit_test(test_binary_garbage),
        cmocka_unit_test(test_explain),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
