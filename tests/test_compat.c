#define _POSIX_C_SOURCE 200809L
/* fbec compat: one schema pair per rule, each with its exact findings (location,
 * category, text), the exit status, the text layout with carets, JSON output and
 * usage errors. The expected texts were written from docs/compat.md's rules: the
 * line and column of the declaration or field (its name) in NEW, or in OLD for
 * what NEW removed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

static char dir[256];

static void write_in(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int run(const char *args, char **out)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>&1", dir, FBEC_PATH, args);
    return run_command(cmd, out);
}

/* The diagnostic lines and the summary: the source and caret lines are checked
 * once, in test_text_layout. */
static char *findings_only(const char *out)
{
    char *res = calloc(1, strlen(out) + 1);
    assert_non_null(res);
    const char *p = out;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) + 1 : strlen(p);
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        if (strstr(line, ": error: ") || strstr(line, ": warning: ") ||
            strstr(line, ": note: ") || strstr(line, "compatible\n"))
            strcat(res, line);
        p += len;
    }
    return res;
}

static void compat(const char *old_text, const char *new_text, const char *args, int status,
                   const char *expected)
{
    write_in("old.fbe", old_text);
    write_in("new.fbe", new_text);
    char cmd[512], *out;
    snprintf(cmd, sizeof cmd, "compat old.fbe new.fbe %s", args);
    int st = run(cmd, &out);
    char *got = findings_only(out);
    if (st != status || strcmp(got, expected) != 0)
        print_error("fbec %s: status %d (want %d), output:\n%s\nwant:\n%s\n", cmd, st, status,
                    out, expected);
    assert_int_equal(st, status);
    assert_string_equal(got, expected);
    free(got);
    free(out);
}

#define OK0 "0 errors, 0 warnings, 0 notes: compatible\n"

/* ---- fields of structs (standard model) ------------------------------------------ */

static const char two_fields[] = "package p\n"
                                 "struct S(1)\n"
                                 "{\n"
                                 "    int32 a;\n"
                                 "    int32 b = 5;\n"
                                 "}\n";

static void test_identical(void **state)
{
    (void)state;
    compat(two_fields, two_fields, "", 0, OK0);
    compat(two_fields, two_fields, "--model final", 0, OK0);
    compat(two_fields, two_fields, "--model json --protocol", 0, OK0);
}

static void test_field_appended(void **state)
{
    (void)state;
    compat(two_fields,
           "package p\nstruct S(1)\n{\n    int32 a;\n    int32 b = 5;\n    string c;\n}\n", "", 0,
           "new.fbe:6:12: note: field 'c' added to 'S': old readers skip it, new readers of old "
           "data use its type's default\n"
           "0 errors, 0 warnings, 1 note: compatible\n");
}

static void test_field_appended_with_default(void **state)
{
    (void)state;
    compat(two_fields,
           "package p\nstruct S(1)\n{\n    int32 a;\n    int32 b = 5;\n    double c = 2.5;\n}\n",
           "", 0,
           "new.fbe:6:12: note: field 'c' added to 'S': old readers skip it, new readers of old "
           "data use its default 2.5\n"
           "0 errors, 0 warnings, 1 note: compatible\n");
}

static void test_field_removed_at_end(void **state)
{
    (void)state;
    compat(two_fields, "package p\nstruct S(1)\n{\n    int32 a;\n}\n", "", 0,
           "old.fbe:5:11: warning: field 'b' removed from 'S': old readers of new data see its "
           "default\n"
           "0 errors, 1 warning, 0 notes: compatible\n");
}

static void test_field_removed_in_middle(void **state)
{
    (void)state;
    /* b's place is taken by c: c moved, and b is gone from the middle */
    compat("package p\nstruct S(1)\n{\n    int32 a;\n    int32 b;\n    int32 c;\n}\n",
           "package p\nstruct S(1)\n{\n    int32 a;\n    int32 c;\n}\n", "", 1,
           "new.fbe:5:11: error: field 'c' of 'S' moved from position 3 to 2 (breaks old "
           "reader/new writer and new reader/old writer)\n"
           "old.fbe:5:11: error: field 'b' removed from 'S' before its last field: the fields "
           "after it move (breaks old reader/new writer and new reader/old writer)\n"
           "2 errors, 0 warnings, 0 notes: incompatible\n");
}

static void test_field_inserted(void **state)
{
    (void)state;
    compat(two_fields,
           "package p\nstruct S(1)\n{\n    int32 a;\n    bool x;\n    int32 b = 5;\n}\n", "", 1,
           "new.fbe:5:10: error: field 'x' inserted into 'S' before existing fields: the fields "
           "after it move (breaks old reader/new writer and new reader/old writer)\n"
           "new.fbe:6:11: error: field 'b' of 'S' moved from position 2 to 3 (breaks old "
           "reader/new writer and new reader/old writer)\n"
           "2 errors, 0 warnings, 0 notes: incompatible\n");
}

static void test_fields_reordered(void **state)
{
    (void)state;
    /* same types, so the bytes still decode: into the wrong fields */
    compat(two_fields, "package p\nstruct S(1)\n{\n    int32 b = 5;\n    int32 a;\n}\n", "", 1,
           "new.fbe:4:11: error: field 'b' of 'S' moved from position 2 to 1 (breaks old "
           "reader/new writer and new reader/old writer)\n"
           "new.fbe:5:11: error: field 'a' of 'S' moved from position 1 to 2 (breaks old "
           "reader/new writer and new reader/old writer)\n"
           "2 errors, 0 warnings, 0 notes: incompatible\n");
}

static void test_field_retyped_size(void **state)
{
    (void)state;
    compat(two_fields, "package p\nstruct S(1)\n{\n    int64 a;\n    int32 b = 5;\n}\n", "", 1,
           "new.fbe:4:11: error: field 'a' of 'S' changed type from 'int32' to 'int64': its "
           "size changed (breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_field_retyped_same_size(void **state)
{
    (void)state;
    compat(two_fields, "package p\nstruct S(1)\n{\n    uint32 a;\n    int32 b = 5;\n}\n", "", 0,
           "new.fbe:4:12: warning: field 'a' of 'S' changed type from 'int32' to 'uint32': same "
           "size: the bytes are reinterpreted\n"
           "0 errors, 1 warning, 0 notes: compatible\n");
}

static void test_field_retyped_float(void **state)
{
    (void)state;
    compat(two_fields, "package p\nstruct S(1)\n{\n    float a;\n    int32 b = 5;\n}\n", "", 1,
           "new.fbe:4:11: error: field 'a' of 'S' changed type from 'int32' to 'float' (breaks "
           "old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_string_to_bytes(void **state)
{
    (void)state;
    compat("package p\nstruct S(1)\n{\n    string s;\n}\n",
           "package p\nstruct S(1)\n{\n    bytes s;\n}\n", "", 0,
           "new.fbe:4:11: warning: field 's' of 'S' changed type from 'string' to 'bytes': same "
           "binary form; JSON and the text form change\n"
           "0 errors, 1 warning, 0 notes: compatible\n");
}

static void test_field_renamed(void **state)
{
    (void)state;
    compat(two_fields, "package p\nstruct S(1)\n{\n    int32 first;\n    int32 b = 5;\n}\n", "",
           0,
           "new.fbe:4:11: warning: field 'a' of 'S' renamed to 'first': same binary form, the "
           "JSON member name changes\n"
           "0 errors, 1 warning, 0 notes: compatible\n");
}

static void test_default_changed(void **state)
{
    (void)state;
    compat(two_fields, "package p\nstruct S(1)\n{\n    int32 a;\n    int32 b = 6;\n}\n", "", 0,
           "new.fbe:5:11: warning: default of field 'b' of 'S' changed from 5 to 6: readers of "
           "data without it see another value\n"
           "0 errors, 1 warning, 0 notes: compatible\n");
}

static void test_key_changed(void **state)
{
    (void)state;
    compat(two_fields, "package p\nstruct S(1)\n{\n    [key] int32 a;\n    int32 b = 5;\n}\n", "",
           0,
           "new.fbe:4:17: warning: field 'a' of 'S' became a key: equality and the order of "
           "sets and maps of 'S' change\n"
           "0 errors, 1 warning, 0 notes: compatible\n");
    compat("package p\nstruct S(1)\n{\n    [key] int32 a;\n}\n",
           "package p\nstruct S(1)\n{\n    int32 a;\n}\n", "", 0,
           "new.fbe:4:11: warning: field 'a' of 'S' is no longer a key: equality and the order "
           "of sets and maps of 'S' change\n"
           "0 errors, 1 warning, 0 notes: compatible\n");
}

static void test_type_number_changed(void **state)
{
    (void)state;
    compat(two_fields, "package p\nstruct S(2)\n{\n    int32 a;\n    int32 b = 5;\n}\n", "", 1,
           "new.fbe:2:8: error: type number of 'S' changed from 1 to 2: readers check it in "
           "every struct header (breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
    /* the package offset moves every number */
    compat("package p\nstruct S\n{\n    int32 a;\n}\n",
           "package p offset 10\nstruct S\n{\n    int32 a;\n}\n", "", 1,
           "new.fbe:2:8: error: type number of 'S' changed from 1 to 11: readers check it in "
           "every struct header (breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_struct_added_and_removed(void **state)
{
    (void)state;
    compat("package p\nstruct A(1) { int32 x; }\n", "package p\nstruct B(2) { int32 x; }\n", "",
           0,
           "new.fbe:2:8: note: struct 'B' added\n"
           "old.fbe:2:8: warning: struct 'A' removed: new programs cannot read its data\n"
           "0 errors, 1 warning, 1 note: compatible\n");
}

/* ---- nested structs, optionals, collections -------------------------------------- */

static void test_nested_struct_extended(void **state)
{
    (void)state;
    /* reached through an offset: the inner struct grows on its own */
    compat("package p\nstruct In(1)\n{\n    int32 x;\n}\nstruct Out(2)\n{\n    In in;\n}\n",
           "package p\nstruct In(1)\n{\n    int32 x;\n    int32 y;\n}\nstruct Out(2)\n{\n    In in;\n"
           "}\n",
           "--type Out", 0,
           "new.fbe:5:11: note: field 'y' added to 'In': old readers skip it, new readers of old "
           "data use its type's default\n"
           "0 errors, 0 warnings, 1 note: compatible\n");
}

static void test_nested_struct_type_number(void **state)
{
    (void)state;
    compat("package p\nstruct In(1)\n{\n    int32 x;\n}\nstruct Out(2)\n{\n    In in;\n}\n",
           "package p\nstruct In(3)\n{\n    int32 x;\n}\nstruct Out(2)\n{\n    In in;\n}\n",
           "--type Out", 1,
           "new.fbe:2:8: error: type number of 'In' changed from 1 to 3: readers check it in "
           "every struct header (breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_optional_added(void **state)
{
    (void)state;
    compat("package p\nstruct S(1)\n{\n    int32 a;\n}\n",
           "package p\nstruct S(1)\n{\n    int32? a;\n}\n", "", 1,
           "new.fbe:4:12: error: field 'a' of 'S' changed type from 'int32' to 'int32?' "
           "(breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_optional_inner_retyped(void **state)
{
    (void)state;
    compat("package p\nstruct S(1)\n{\n    int32? a;\n}\n",
           "package p\nstruct S(1)\n{\n    int64? a;\n}\n", "", 1,
           "new.fbe:4:12: error: field 'a' of 'S' changed type from 'int32?' to 'int64?': its "
           "size changed (breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_optional_struct_extended(void **state)
{
    (void)state;
    compat("package p\nstruct In(1)\n{\n    int32 x;\n}\nstruct S(2)\n{\n    In? in;\n}\n",
           "package p\nstruct In(1)\n{\n    int32 x;\n    bool f = true;\n}\nstruct S(2)\n{\n"
           "    In? in;\n}\n",
           "--type S", 0,
           "new.fbe:5:10: note: field 'f' added to 'In': old readers skip it, new readers of old "
           "data use its default true\n"
           "0 errors, 0 warnings, 1 note: compatible\n");
}

static void test_vector_to_list(void **state)
{
    (void)state;
    compat("package p\nstruct S(1)\n{\n    int32[] v;\n}\n",
           "package p\nstruct S(1)\n{\n    int32() v;\n}\n", "", 0,
           "new.fbe:4:13: warning: field 'v' of 'S' changed type from 'int32[]' to 'int32()': "
           "same binary form; order and uniqueness change\n"
           "0 errors, 1 warning, 0 notes: compatible\n");
}

static void test_vector_element_retyped(void **state)
{
    (void)state;
    compat("package p\nstruct S(1)\n{\n    int32[] v;\n}\n",
           "package p\nstruct S(1)\n{\n    int64[] v;\n}\n", "", 1,
           "new.fbe:4:13: error: field 'v' of 'S' changed type from 'int32[]' to 'int64[]': its "
           "size changed (breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_array_length(void **state)
{
    (void)state;
    compat("package p\nstruct S(1)\n{\n    int32[2] v;\n}\n",
           "package p\nstruct S(1)\n{\n    int32[3] v;\n}\n", "", 1,
           "new.fbe:4:14: error: field 'v' of 'S' changed type from 'int32[2]' to 'int32[3]': "
           "array length changed (breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_map_key_retyped(void **state)
{
    (void)state;
    compat("package p\nstruct S(1)\n{\n    string<int32> m;\n}\n",
           "package p\nstruct S(1)\n{\n    string<string> m;\n}\n", "", 1,
           "new.fbe:4:20: error: field 'm' of 'S' changed type from 'string<int32>' to "
           "'string<string>' (breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_map_to_hash(void **state)
{
    (void)state;
    compat("package p\nstruct S(1)\n{\n    string<int32> m;\n}\n",
           "package p\nstruct S(1)\n{\n    string{int32} m;\n}\n", "", 0,
           "new.fbe:4:19: warning: field 'm' of 'S' changed type from 'string<int32>' to "
           "'string{int32}': same binary form; the order changes\n"
           "0 errors, 1 warning, 0 notes: compatible\n");
}

static void test_collection_of_structs_extended(void **state)
{
    (void)state;
    compat("package p\nstruct In(1)\n{\n    int32 x;\n}\nstruct S(2)\n{\n    In[] v;\n}\n",
           "package p\nstruct In(1)\n{\n    int32 x;\n    string s;\n}\nstruct S(2)\n{\n"
           "    In[] v;\n}\n",
           "--type S", 0,
           "new.fbe:5:12: note: field 's' added to 'In': old readers skip it, new readers of old "
           "data use its type's default\n"
           "0 errors, 0 warnings, 1 note: compatible\n");
}

/* ---- enums and flags ------------------------------------------------------------- */

static const char enum_old[] = "package p\n"
                               "enum E : byte\n"
                               "{\n"
                               "    red;\n"
                               "    green;\n"
                               "}\n"
                               "struct S(1) { E e; }\n";

static void test_enum_value_added(void **state)
{
    (void)state;
    compat(enum_old,
           "package p\nenum E : byte\n{\n    red;\n    green;\n    blue;\n}\nstruct S(1) { E e; }\n",
           "", 0,
           "new.fbe:6:5: note: value 'blue' (2) added to enum 'E': old readers keep it as an "
           "unknown number\n"
           "0 errors, 0 warnings, 1 note: compatible\n");
}

static void test_enum_value_inserted(void **state)
{
    (void)state;
    /* implicit numbers: green moves from 1 to 2 */
    compat(enum_old,
           "package p\nenum E : byte\n{\n    red;\n    blue;\n    green;\n}\nstruct S(1) { E e; }\n",
           "", 1,
           "new.fbe:5:5: note: value 'blue' (1) added to enum 'E': old readers keep it as an "
           "unknown number\n"
           "new.fbe:6:5: error: value 'green' of enum 'E' renumbered from 1 to 2: the other "
           "side reads another value (breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 1 note: incompatible\n");
}

static void test_enum_value_renamed(void **state)
{
    (void)state;
    compat(enum_old,
           "package p\nenum E : byte\n{\n    red;\n    lime;\n}\nstruct S(1) { E e; }\n", "", 0,
           "new.fbe:5:5: warning: value 'green' of enum 'E' renamed to 'lime': same number, the "
           "text form changes\n"
           "0 errors, 1 warning, 0 notes: compatible\n");
}

static void test_enum_value_removed(void **state)
{
    (void)state;
    compat(enum_old, "package p\nenum E : byte\n{\n    red;\n}\nstruct S(1) { E e; }\n", "", 0,
           "old.fbe:5:5: warning: value 'green' (1) of enum 'E' removed: new readers of old data "
           "keep 1 as an unknown number\n"
           "0 errors, 1 warning, 0 notes: compatible\n");
}

static void test_enum_base_changed(void **state)
{
    (void)state;
    compat(enum_old,
           "package p\nenum E : int32\n{\n    red;\n    green;\n}\nstruct S(1) { E e; }\n", "",
           1,
           "new.fbe:2:6: warning: base of enum 'E' changed from byte to int32: values are "
           "reinterpreted\n"
           "new.fbe:7:17: error: field 'e' of 'S' changed type from 'p.E' to 'p.E': its size "
           "changed (breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 1 warning, 0 notes: incompatible\n");
}

static void test_flags_value_added(void **state)
{
    (void)state;
    compat("package p\nflags F : byte { r = 1; w = 2; }\nstruct S(1) { F f = F.r; }\n",
           "package p\nflags F : byte { r = 1; w = 2; x = 4; }\nstruct S(1) { F f = F.r; }\n",
           "", 0,
           "new.fbe:2:32: note: value 'x' (4) added to flags 'F': old readers keep it as an "
           "unknown number\n"
           "0 errors, 0 warnings, 1 note: compatible\n");
}

static void test_flags_value_changed(void **state)
{
    (void)state;
    compat("package p\nflags F : byte { r = 1; w = 2; }\nstruct S(1) { F f; }\n",
           "package p\nflags F : byte { r = 1; w = 4; }\nstruct S(1) { F f; }\n", "", 1,
           "new.fbe:2:25: error: value 'w' of flags 'F' renumbered from 2 to 4: the other side "
           "reads another value (breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

/* ---- inheritance and imports ----------------------------------------------------- */

static void write_pair_dirs(const char *old_base, const char *new_base, const char *derived)
{
    char path[512];
    snprintf(path, sizeof path, "%s/o", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/n", dir);
    mkdir(path, 0700);
    write_in("o/lib.fbe", old_base);
    write_in("n/lib.fbe", new_base);
    write_in("o/d.fbe", derived);
    write_in("n/d.fbe", derived);
}

static void compat_dirs(const char *args, int status, const char *expected)
{
    char cmd[512], *out;
    snprintf(cmd, sizeof cmd, "compat o/d.fbe n/d.fbe %s", args);
    int st = run(cmd, &out);
    char *got = findings_only(out);
    if (st != status || strcmp(got, expected) != 0)
        print_error("status %d, output:\n%s\n", st, out);
    assert_int_equal(st, status);
    assert_string_equal(got, expected);
    free(got);
    free(out);
}

static void test_base_in_import_grows(void **state)
{
    (void)state;
    /* the base's new field lands before the derived struct's own fields (findings
     * are sorted by file, then line) */
    write_pair_dirs("package lib\nstruct B(1)\n{\n    int32 x;\n}\n",
                    "package lib\nstruct B(1)\n{\n    int32 x;\n    int32 z;\n}\n",
                    "package d offset 10\nimport lib\nstruct D(1) : lib.B\n{\n    int32 y;\n}\n");
    compat_dirs("--type D", 1,
                "n/d.fbe:5:11: error: field 'y' of 'D' moved from position 2 to 3 (breaks old "
                "reader/new writer and new reader/old writer)\n"
                "n/lib.fbe:5:11: error: field 'z' inserted into 'D' before existing fields: the "
                "fields after it move (breaks old reader/new writer and new reader/old writer)\n"
                "2 errors, 0 warnings, 0 notes: incompatible\n");
}

static void test_base_block_past_old_data(void **state)
{
    (void)state;
    /* no own fields: z is appended, but the reference reads the base block only
     * as a whole (wire-format.md 3.8) */
    write_pair_dirs("package lib\nstruct B(1)\n{\n    int32 x;\n}\n",
                    "package lib\nstruct B(1)\n{\n    int32 x;\n    int32 z;\n}\n",
                    "package d offset 10\nimport lib\nstruct D(1) : lib.B\n{\n}\n");
    compat_dirs("--type D", 1,
                "n/d.fbe:3:8: error: the base fields of 'D' end at byte 16, past the 12 bytes of "
                "old data: the reference leaves every inherited field unset (breaks new "
                "reader/old writer)\n"
                "n/lib.fbe:5:11: note: field 'z' added to 'D': old readers skip it, new readers "
                "of old data use its type's default\n"
                "1 error, 0 warnings, 1 note: incompatible\n");
}

static void test_extended_by_inheritance(void **state)
{
    (void)state;
    /* protoex's way: the new package derives from the old type with (base) */
    write_in("old.fbe", "package p\nstruct B(5)\n{\n    int32 x;\n}\n");
    write_in("new.fbe", "package q\nimport old\nstruct B(base) : old.B\n{\n    int32 y;\n}\n");
    char *out;
    assert_int_equal(run("compat old.fbe new.fbe", &out), 1); /* package 'old' is not p */
    free(out);
    write_in("p.fbe", "package p\nstruct B(5)\n{\n    int32 x;\n}\n");
    write_in("new.fbe", "package q\nimport p\nstruct B(base) : p.B\n{\n    int32 y;\n}\n");
    assert_int_equal(run("compat p.fbe new.fbe", &out), 0);
    char *got = findings_only(out);
    assert_string_equal(got, "new.fbe:5:11: note: field 'y' added to 'B': old readers skip it, "
                             "new readers of old data use its type's default\n"
                             "0 errors, 0 warnings, 1 note: compatible\n");
    free(got);
    free(out);
}

/* ---- the final model --------------------------------------------------------------- */

static void test_final_field_appended(void **state)
{
    (void)state;
    compat(two_fields,
           "package p\nstruct S(1)\n{\n    int32 a;\n    int32 b = 5;\n    int32 c;\n}\n",
           "--model final", 1,
           "new.fbe:6:11: error: field 'c' added to 'S': the final model has no versioning "
           "(breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_final_field_removed(void **state)
{
    (void)state;
    compat(two_fields, "package p\nstruct S(1)\n{\n    int32 a;\n}\n", "--model final", 1,
           "old.fbe:5:11: error: field 'b' removed from 'S': the final model has no versioning "
           "(breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_final_same_size_retype(void **state)
{
    (void)state;
    compat(two_fields, "package p\nstruct S(1)\n{\n    uint32 a;\n    int32 b = 5;\n}\n",
           "--model final", 1,
           "new.fbe:4:12: error: field 'a' of 'S' changed type from 'int32' to 'uint32' (breaks "
           "old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_final_nested_struct_grows(void **state)
{
    (void)state;
    /* inline in the final model: the container's frames change too */
    compat("package p\nstruct In(1)\n{\n    int32 x;\n}\nstruct Out(2)\n{\n    In in;\n}\n",
           "package p\nstruct In(1)\n{\n    int32 x;\n    int32 y;\n}\nstruct Out(2)\n{\n    In in;\n"
           "}\n",
           "--model final --type Out", 1,
           "new.fbe:5:11: error: field 'y' added to 'In': the final model has no versioning "
           "(breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

/* ---- JSON -------------------------------------------------------------------------- */

static void test_json_renamed(void **state)
{
    (void)state;
    compat(two_fields, "package p\nstruct S(1)\n{\n    int32 first;\n    int32 b = 5;\n}\n",
           "--model json", 1,
           "new.fbe:4:11: error: field 'a' of 'S' renamed to 'first': readers miss the member "
           "(breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_json_reordered_and_renumbered(void **state)
{
    (void)state;
    /* members are found by name, and type numbers are not in JSON */
    compat(two_fields, "package p\nstruct S(9)\n{\n    int32 b = 5;\n    int32 a;\n}\n",
           "--model json", 0, OK0);
}

static void test_json_inserted(void **state)
{
    (void)state;
    compat(two_fields,
           "package p\nstruct S(1)\n{\n    int32 a;\n    string x;\n    int32 b = 5;\n}\n",
           "--model json", 0,
           "new.fbe:5:12: note: field 'x' added to 'S': old readers skip it, new readers of old "
           "data use its type's default\n"
           "0 errors, 0 warnings, 1 note: compatible\n");
}

static void test_json_retyped(void **state)
{
    (void)state;
    compat(two_fields, "package p\nstruct S(1)\n{\n    int64 a;\n    int32 b = 5;\n}\n",
           "--model json", 0,
           "new.fbe:4:11: warning: field 'a' of 'S' changed type from 'int32' to 'int64': same "
           "kind of JSON value: values are converted\n"
           "0 errors, 1 warning, 0 notes: compatible\n");
    compat(two_fields, "package p\nstruct S(1)\n{\n    string a;\n    int32 b = 5;\n}\n",
           "--model json", 1,
           "new.fbe:4:12: error: field 'a' of 'S' changed type from 'int32' to 'string': another "
           "kind of JSON value (breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_json_optional(void **state)
{
    (void)state;
    /* a new writer may write null, which an old reader of int32 refuses */
    compat(two_fields, "package p\nstruct S(1)\n{\n    int32? a;\n    int32 b = 5;\n}\n",
           "--model json", 1,
           "new.fbe:4:12: error: field 'a' of 'S' changed type from 'int32' to 'int32?': old "
           "readers refuse null (breaks old reader/new writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

/* ---- the protocol -------------------------------------------------------------------- */

static const char proto_old[] = "package p\n"
                                "message Ping { int32 n; }\n"
                                "message Pong { int32 n; }\n"
                                "message Fail { string why; }\n"
                                "message Other { string why; }\n"
                                "[request][response(Pong)][reject(Fail)]\n"
                                "message Req { int32 n; }\n";

static void test_protocol_message_added(void **state)
{
    (void)state;
    char text[1024];
    snprintf(text, sizeof text, "%smessage Extra { int32 n; }\n", proto_old);
    compat(proto_old, text, "--protocol", 0,
           "new.fbe:8:9: note: message 'Extra' added: old receivers skip it\n"
           "0 errors, 0 warnings, 1 note: compatible\n");
}

static void test_protocol_message_removed(void **state)
{
    (void)state;
    compat("package p\nmessage Ping { int32 n; }\nmessage Gone { int32 n; }\n",
           "package p\nmessage Ping { int32 n; }\n", "--protocol", 1,
           "old.fbe:3:9: error: message 'Gone' removed: new receivers skip it (breaks new "
           "reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_protocol_message_renumbered(void **state)
{
    (void)state;
    /* JSON itself has no type numbers; the protocol dispatches on them */
    compat("package p\nmessage Ping { int32 n; }\n",
           "package p offset 100\nmessage Ping { int32 n; }\n", "--protocol --model json", 1,
           "new.fbe:2:9: error: type number of message 'Ping' changed from 1 to 101: receivers "
           "dispatch on it (breaks old reader/new writer and new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_protocol_response_changed(void **state)
{
    (void)state;
    compat(proto_old,
           "package p\nmessage Ping { int32 n; }\nmessage Pong { int32 n; }\n"
           "message Fail { string why; }\nmessage Other { string why; }\n"
           "[request][response(Ping)][reject(Fail)]\nmessage Req { int32 n; }\n",
           "--protocol", 1,
           "new.fbe:7:9: error: request 'Req' changed its response from 'Pong' to 'Ping': "
           "clients wait for another message (breaks old reader/new writer and new reader/old "
           "writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_protocol_reject_added(void **state)
{
    (void)state;
    compat(proto_old,
           "package p\nmessage Ping { int32 n; }\nmessage Pong { int32 n; }\n"
           "message Fail { string why; }\nmessage Other { string why; }\n"
           "[request][response(Pong)][reject(Fail, Other)]\nmessage Req { int32 n; }\n",
           "--protocol", 1,
           "new.fbe:7:9: error: request 'Req' may be rejected with 'Other': old clients do not "
           "fail the request on it (breaks old reader/new writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_protocol_reject_removed(void **state)
{
    (void)state;
    compat(proto_old,
           "package p\nmessage Ping { int32 n; }\nmessage Pong { int32 n; }\n"
           "message Fail { string why; }\nmessage Other { string why; }\n"
           "[request][response(Pong)]\nmessage Req { int32 n; }\n",
           "--protocol", 1,
           "old.fbe:7:9: error: request 'Req' is no longer rejected with 'Fail': new clients do "
           "not fail the request on it (breaks new reader/old writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
}

static void test_protocol_struct_became_message(void **state)
{
    (void)state;
    compat("package p\nstruct Ping(1) { int32 n; }\n", "package p\nmessage Ping { int32 n; }\n",
           "--protocol", 1,
           "new.fbe:2:9: error: 'Ping' became a message: old receivers do not dispatch it "
           "(breaks old reader/new writer)\n"
           "1 error, 0 warnings, 0 notes: incompatible\n");
    /* without --protocol a message is a struct like any other */
    compat("package p\nstruct Ping(1) { int32 n; }\n", "package p\nmessage Ping { int32 n; }\n",
           "", 0, OK0);
}

/* ---- the command ------------------------------------------------------------------- */

static void test_type_filter(void **state)
{
    (void)state;
    /* only what Out reaches: Other's break is not Out's */
    compat("package p\nstruct In(1) { int32 x; }\nstruct Out(2) { In in; }\n"
           "struct Other(3) { int32 x; }\n",
           "package p\nstruct In(1) { int32 x; }\nstruct Out(2) { In in; }\n"
           "struct Other(3) { int64 x; }\n",
           "--type p.Out", 0, OK0);
    char *out;
    assert_int_equal(run("compat old.fbe new.fbe --type Nope", &out), 2);
    assert_string_equal(out, "fbec compat: no type of that name in both schemas: Nope\n"
                             "run 'fbec compat --help' for usage\n");
    free(out);
}

static void test_text_layout(void **state)
{
    (void)state;
    write_in("old.fbe", two_fields);
    write_in("new.fbe", "package p\nstruct S(1)\n{\n\tint64 a;\n    int32 b = 5;\n}\n");
    char *out;
    assert_int_equal(run("compat old.fbe new.fbe", &out), 1);
    assert_string_equal(out, "new.fbe:4:8: error: field 'a' of 'S' changed type from 'int32' to "
                             "'int64': its size changed (breaks old reader/new writer and new "
                             "reader/old writer)\n"
                             "\tint64 a;\n"
                             "\t      ^\n"
                             "1 error, 0 warnings, 0 notes: incompatible\n");
    free(out);
}

static void test_json_format(void **state)
{
    (void)state;
    write_in("old.fbe", two_fields);
    write_in("new.fbe", "package p\nstruct S(1)\n{\n    int32 b = 5;\n    int32 a;\n"
                        "    \"int32\" c;\n}\n");
    char *out;
    /* a schema error in NEW: exit 1 with the diagnostics */
    assert_int_equal(run("compat old.fbe new.fbe", &out), 1);
    assert_non_null(strstr(out, "new.fbe:6:5: error: "));
    free(out);
    write_in("new.fbe", "package p\nstruct S(1)\n{\n    int32 a;\n}\n"
                        "enum E { x; }\n");
    assert_int_equal(run("compat old.fbe new.fbe --format json", &out), 0);
    assert_string_equal(
        out, "{\"compatible\":true,\"errors\":0,\"warnings\":1,\"notes\":1,"
             "\"old_reader_new_writer\":true,\"new_reader_old_writer\":true,\"findings\":["
             "{\"severity\":\"note\",\"file\":\"new.fbe\",\"line\":6,\"col\":6,\"in\":\"new\","
             "\"type\":\"E\",\"breaks\":[],\"message\":\"enum 'E' added\"},"
             "{\"severity\":\"warning\",\"file\":\"old.fbe\",\"line\":5,\"col\":11,\"in\":\"old\","
             "\"type\":\"S\",\"breaks\":[],\"message\":\"field 'b' removed from 'S': old readers "
             "of new data see its default\"}]}\n");
    free(out);
    write_in("new.fbe", "package p\nstruct S(1)\n{\n    int32? a;\n    int32 b = 5;\n}\n");
    assert_int_equal(run("compat old.fbe new.fbe --format=json --model json", &out), 1);
    assert_string_equal(
        out, "{\"compatible\":false,\"errors\":1,\"warnings\":0,\"notes\":0,"
             "\"old_reader_new_writer\":false,\"new_reader_old_writer\":true,\"findings\":["
             "{\"severity\":\"error\",\"file\":\"new.fbe\",\"line\":4,\"col\":12,\"in\":\"new\","
             "\"type\":\"S\",\"breaks\":[\"old_reader_new_writer\"],\"message\":\"field 'a' of "
             "'S' changed type from 'int32' to 'int32?': old readers refuse null (breaks old "
             "reader/new writer)\"}]}\n");
    free(out);
}

static void test_usage(void **state)
{
    (void)state;
    write_in("old.fbe", two_fields);
    char *out;
    assert_int_equal(run("compat old.fbe", &out), 2);
    assert_string_equal(out, "fbec compat: expected two schemas, OLD and NEW\n"
                             "run 'fbec compat --help' for usage\n");
    free(out);
    assert_int_equal(run("compat old.fbe old.fbe old.fbe", &out), 2);
    free(out);
    assert_int_equal(run("compat old.fbe old.fbe --model binary", &out), 2);
    assert_string_equal(out, "fbec compat: --model is standard, final or json, not binary\n"
                             "run 'fbec compat --help' for usage\n");
    free(out);
    assert_int_equal(run("compat old.fbe old.fbe --format xml", &out), 2);
    free(out);
    assert_int_equal(run("compat old.fbe old.fbe --bogus", &out), 2);
    free(out);
    assert_int_equal(run("compat --help", &out), 0);
    assert_non_null(strstr(out, "usage: fbec compat [-I DIR]... OLD.fbe NEW.fbe"));
    free(out);
    assert_int_equal(run("compat old.fbe missing.fbe", &out), 1);
    assert_non_null(strstr(out, "cannot read 'missing.fbe'"));
    free(out);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fbe-test-compat-XXXXXX");
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
        cmocka_unit_test(test_identical),
        cmocka_unit_test(test_field_appended),
        cmocka_unit_test(test_field_appended_with_default),
        cmocka_unit_test(test_field_removed_at_end),
        cmocka_unit_test(test_field_removed_in_middle),
        cmocka_unit_test(test_field_inserted),
        cmocka_unit_test(test_fields_reordered),
        cmocka_unit_test(test_field_retyped_size),
        cmocka_unit_test(test_field_retyped_same_size),
        cmocka_unit_test(test_field_retyped_float),
        cmocka_unit_test(test_string_to_bytes),
        cmocka_unit_test(test_field_renamed),
        cmocka_unit_test(test_default_changed),
        cmocka_unit_test(test_key_changed),
        cmocka_unit_test(test_type_number_changed),
        cmocka_unit_test(test_struct_added_and_removed),
        cmocka_unit_test(test_nested_struct_extended),
        cmocka_unit_test(test_nested_struct_type_number),
        cmocka_unit_test(test_optional_added),
        cmocka_unit_test(test_optional_inner_retyped),
        cmocka_unit_test(test_optional_struct_extended),
        cmocka_unit_test(test_vector_to_list),
        cmocka_unit_test(test_vector_element_retyped),
        cmocka_unit_test(test_array_length),
        cmocka_unit_test(test_map_key_retyped),
        cmocka_unit_test(test_map_to_hash),
        cmocka_unit_test(test_collection_of_structs_extended),
        cmocka_unit_test(test_enum_value_added),
        cmocka_unit_test(test_enum_value_inserted),
        cmocka_unit_test(test_enum_value_renamed),
        cmocka_unit_test(test_enum_value_removed),
        cmocka_unit_test(test_enum_base_changed),
        cmocka_unit_test(test_flags_value_added),
        cmocka_unit_test(test_flags_value_changed),
        cmocka_unit_test(test_base_in_import_grows),
        cmocka_unit_test(test_base_block_past_old_data),
        cmocka_unit_test(test_extended_by_inheritance),
        cmocka_unit_test(test_final_field_appended),
        cmocka_unit_test(test_final_field_removed),
        cmocka_unit_test(test_final_same_size_retype),
        cmocka_unit_test(test_final_nested_struct_grows),
        cmocka_unit_test(test_json_renamed),
        cmocka_unit_test(test_json_reordered_and_renumbered),
        cmocka_unit_test(test_json_inserted),
        cmocka_unit_test(test_json_retyped),
        cmocka_unit_test(test_json_optional),
        cmocka_unit_test(test_protocol_message_added),
        cmocka_unit_test(test_protocol_message_removed),
        cmocka_unit_test(test_protocol_message_renumbered),
        cmocka_unit_test(test_protocol_response_changed),
        cmocka_unit_test(test_protocol_reject_added),
        cmocka_unit_test(test_protocol_reject_removed),
        cmocka_unit_test(test_protocol_struct_became_message),
        cmocka_unit_test(test_type_filter),
        cmocka_unit_test(test_text_layout),
        cmocka_unit_test(test_json_format),
        cmocka_unit_test(test_usage),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
