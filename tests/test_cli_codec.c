#define _XOPEN_SOURCE 700 /* realpath */
/* fbec verify / decode / convert as a user runs them, on the golden vectors:
 * exit codes, exact stdout (bytes) and stderr (messages), stdin and -o. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fbe/jit.h"
#include "test_util.h"

static char dir[256];

/* Output of one run: stdout and stderr kept apart, stdout as bytes. */
typedef struct result {
    int status;
    uint8_t *out;
    size_t out_len;
    char *err;
} result;

static void result_free(result *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof *r);
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 4096, n = 0, got;
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    buf[n] = 0;
    fclose(f);
    *len = n;
    return buf;
}

/* The fbec the tests run (test_llvm_helper runs a copy elsewhere). */
static const char *fbec_program = FBEC_PATH;

/* Runs `[PREFIX |] fbec ARGS [< STDIN]` in the scratch directory. */
static result run_io(const char *prefix, const char *args, const char *stdin_path)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && %s%s'%s' %s%s%s%s >out.txt 2>err.txt", dir,
             prefix ? prefix : "", prefix ? " | " : "", fbec_program, args,
             stdin_path ? " < '" : "", stdin_path ? stdin_path : "", stdin_path ? "'" : "");
    result r = {0};
    char *junk = NULL;
    r.status = run_command(cmd, &junk);
    free(junk);
    char path[512];
    size_t len;
    snprintf(path, sizeof path, "%s/out.txt", dir);
    r.out = slurp(path, &r.out_len);
    snprintf(path, sizeof path, "%s/err.txt", dir);
    r.err = (char *)slurp(path, &len);
    return r;
}

static result run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static result run(const char *fmt, ...)
{
    char args[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    return run_io(NULL, args, NULL);
}

static char schema_dir[1024];

/* "--schema DIR/PKG.fbe --type PKG.TYPE" */
static const char *type_args(const char *pkg, const char *type)
{
    static char buf[2048];
    snprintf(buf, sizeof buf, "--schema '%s/%s.fbe' --type %s.%s", schema_dir, pkg, pkg, type);
    return buf;
}

/* Absolute path of a golden case file; `ext` is ".bin", ".final.bin" or ".txt". */
static const char *case_path(const char *pkg, const char *type, const char *name, const char *ext)
{
    static char buf[4][1024];
    static int k;
    char rel[512];
    snprintf(rel, sizeof rel, "golden/cases/%s/%s/%s%s", pkg, type, name, ext);
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s", shared_path(rel));
    return buf[k];
}

static void write_bytes(const char *name, const void *data, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static void remove_file(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    remove(path);
}

static void write_text(const char *name, const char *text)
{
    write_bytes(name, text, strlen(text));
}

static bool exists(const char *name)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

static void assert_ok_silent(result *r)
{
    if (r->status != 0 || r->out_len != 0 || r->err[0])
        fail_msg("expected silent success, got status %d, %zu bytes out, stderr: %s", r->status,
                 r->out_len, r->err);
}

static void assert_out_equals_file(const result *r, const char *path, bool plus_newline)
{
    size_t len;
    uint8_t *want = read_file(path, &len);
    if (r->status != 0)
        fail_msg("status %d, stderr: %s", r->status, r->err);
    assert_string_equal(r->err, "");
    size_t want_len = len + (plus_newline ? 1 : 0);
    if (r->out_len != want_len || memcmp(r->out, want, len) != 0 ||
        (plus_newline && r->out[len] != '\n')) {
        size_t at = 0;
        while (at < len && at < r->out_len && r->out[at] == want[at])
            at++;
        fail_msg("output differs from %s (+%s): %zu bytes, want %zu, first difference at %zu",
                 path, plus_newline ? "newline" : "nothing", r->out_len, want_len, at);
    }
    free(want);
}

static void assert_fails(result *r, int status, const char *err)
{
    if (r->status != status)
        fail_msg("expected status %d, got %d, stderr: %s", status, r->status, r->err);
    assert_string_equal(r->err, err);
    assert_int_equal(r->out_len, 0);
}

/* A spread of golden cases: nesting, optionals, every container kind, enums. */
static const struct golden_case {
    const char *pkg, *type, *name;
} cases[] = {
    {"proto", "Account", "readme"},
    {"proto", "Account", "default"},
    {"proto", "Account", "random_2"},
    {"proto", "OrderMessage", "random_1"},
    {"protoex", "Account", "extending"},
    {"enums", "Enums", "default"},
    {"test", "StructSimple", "random_1"},
    {"test", "StructOptional", "random_3"},
    {"test", "StructOptional", "all_null"},
    {"test", "StructNested", "default"},
    {"test", "StructBytes", "reftest"},
    {"test", "StructArray", "random_2"},
    {"test", "StructVector", "reftest"},
    {"test", "StructList", "reftest"},
    {"test", "StructSet", "reftest"},
    {"test", "StructMap", "reftest"},
    {"test", "StructHash", "reftest"},
    {"test", "StructHashEx", "reftest"},
    {"test", "StructEmpty", "default"},
};

static void test_help(void **state)
{
    (void)state;
    for (const char *const *c = (const char *const[]){"verify", "decode", "convert", NULL}; *c;
         c++) {
        result r = run("%s --help", *c);
        assert_int_equal(r.status, 0);
        assert_string_equal(r.err, "");
        char want[64];
        snprintf(want, sizeof want, "usage: fbec %s [-I DIR]... --schema SCHEMA --type pkg.Type",
                 *c);
        assert_non_null(strstr((char *)r.out, want));
        assert_non_null(strstr((char *)r.out, "exit status: 0 "));
        result_free(&r);

        r = run("%s -h", *c);
        assert_int_equal(r.status, 0);
        result_free(&r);
    }
    result r = run("--help");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr((char *)r.out, "  verify   "));
    assert_non_null(strstr((char *)r.out, "  decode   "));
    assert_non_null(strstr((char *)r.out, "  convert  "));
    result_free(&r);
}

static void test_verify_golden(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct golden_case *g = &cases[i];
        result r = run("verify %s '%s'", type_args(g->pkg, g->type),
                       case_path(g->pkg, g->type, g->name, ".bin"));
        assert_ok_silent(&r);
        result_free(&r);
        r = run("verify %s --final '%s'", type_args(g->pkg, g->type),
                case_path(g->pkg, g->type, g->name, ".final.bin"));
        assert_ok_silent(&r);
        result_free(&r);
        r = run("verify %s --from final '%s'", type_args(g->pkg, g->type),
                case_path(g->pkg, g->type, g->name, ".final.bin"));
        assert_ok_silent(&r);
        result_free(&r);
        r = run("verify %s --from standard --backend interp '%s'", type_args(g->pkg, g->type),
                case_path(g->pkg, g->type, g->name, ".bin"));
        assert_ok_silent(&r);
        result_free(&r);
    }
}

static void test_decode_golden(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct golden_case *g = &cases[i];
        const char *txt = case_path(g->pkg, g->type, g->name, ".txt");
        result r = run("decode %s '%s'", type_args(g->pkg, g->type),
                       case_path(g->pkg, g->type, g->name, ".bin"));
        /* The standard reader keeps absent optionals absent (docs/codec.md), so even
         * all_null decodes to the written value, not the reference's readback. */
        assert_out_equals_file(&r, txt, true);
        result_free(&r);
        r = run("decode %s --final --format text '%s'", type_args(g->pkg, g->type),
                case_path(g->pkg, g->type, g->name, ".final.bin"));
        assert_out_equals_file(&r, txt, true);
        result_free(&r);
    }
    /* A frame written with an older schema (proto) read with the newer (protoex):
     * the fields it lacks take protoex's defaults. */
    result v = run("decode %s '%s'", type_args("protoex", "Account"),
                   shared_path("golden/versioning/proto_to_protoex_Account_readme.bin"));
    assert_out_equals_file(&v, shared_path("golden/versioning/proto_to_protoex_Account_readme.txt"),
                           true);
    result_free(&v);

    /* -o writes the same bytes to a file and nothing to stdout. */
    remove_file("decoded.txt");
    result r = run("decode %s '%s' -o decoded.txt", type_args("proto", "Account"),
                   case_path("proto", "Account", "readme", ".bin"));
    assert_ok_silent(&r);
    result_free(&r);
    char path[512];
    snprintf(path, sizeof path, "%s/decoded.txt", dir);
    size_t n;
    uint8_t *text = read_file(path, &n);
    size_t want_len;
    uint8_t *want = read_file(case_path("proto", "Account", "readme", ".txt"), &want_len);
    assert_int_equal(n, want_len + 1);
    assert_memory_equal(text, want, want_len);
    free(text);
    free(want);
}

static void test_convert_golden(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct golden_case *g = &cases[i];
        const char *std = case_path(g->pkg, g->type, g->name, ".bin");
        const char *fin = case_path(g->pkg, g->type, g->name, ".final.bin");
        const char *ta = type_args(g->pkg, g->type);
        result r = run("convert %s --from standard --to final '%s'", ta, std);
        assert_out_equals_file(&r, fin, false);
        result_free(&r);
        r = run("convert %s --from final --to standard '%s'", ta, fin);
        assert_out_equals_file(&r, std, false);
        result_free(&r);
        r = run("convert %s --from standard --to standard '%s'", ta, std);
        assert_out_equals_file(&r, std, false);
        result_free(&r);
        r = run("convert %s --from=final --to=final '%s'", ta, fin);
        assert_out_equals_file(&r, fin, false);
        result_free(&r);
    }
    /* -o: the file holds the frame, stdout stays empty; the output may be the input. */
    char path[512];
    snprintf(path, sizeof path, "%s/acc.bin", dir);
    size_t len;
    uint8_t *std = read_file(case_path("proto", "Account", "readme", ".bin"), &len);
    write_bytes("acc.bin", std, len);
    result r = run("convert %s --from standard --to final acc.bin -o acc.bin",
                   type_args("proto", "Account"));
    assert_ok_silent(&r);
    result_free(&r);
    size_t n, fin_len;
    uint8_t *got = read_file(path, &n);
    uint8_t *fin = read_file(case_path("proto", "Account", "readme", ".final.bin"), &fin_len);
    assert_int_equal(n, fin_len);
    assert_memory_equal(got, fin, n);
    free(got);
    free(fin);
    free(std);
}

/* proto.Account readme, standard: the body is at 8, `name`'s offset at 20 points to
 * the string block at 38 (u32 length 4, "Test"). */
static void test_invalid_input(void **state)
{
    (void)state;
    size_t len;
    uint8_t *bin = read_file(case_path("proto", "Account", "readme", ".bin"), &len);
    assert_int_equal(len, 252);
    const char *ta = type_args("proto", "Account");

    /* Truncated: the frame says 252 bytes, the file has 100. */
    write_bytes("trunc.bin", bin, 100);
    static const char *const cmds[] = {"verify", "decode", "convert --from standard --to final"};
    for (size_t i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "%.7s", cmds[i]);
        name[strcspn(name, " ")] = 0;
        char want[512];
        snprintf(want, sizeof want,
                 "fbec %s: trunc.bin: invalid frame at byte 0: the buffer ends inside the "
                 "frame (in proto.Account)\n",
                 name);
        remove_file("never.out");
        result r = run("%s %s trunc.bin -o never.out", cmds[i], ta);
        if (i == 0) { /* verify takes no -o */
            assert_int_equal(r.status, 2);
            result_free(&r);
            r = run("%s %s trunc.bin", cmds[i], ta);
        }
        assert_fails(&r, 1, want);
        /* A refused conversion never creates (or truncates) the output file. */
        assert_false(exists("never.out"));
        result_free(&r);
    }

    /* A string length running past the end, inside a field. */
    uint8_t *bad = malloc(len);
    assert_non_null(bad);
    memcpy(bad, bin, len);
    bad[38] = 0xff;
    bad[39] = 0xff;
    write_bytes("badlen.bin", bad, len);
    result r = run("verify %s badlen.bin", ta);
    assert_fails(&r, 1,
                 "fbec verify: badlen.bin: invalid frame at byte 38: a string or bytes length "
                 "exceeds the remaining bytes (in proto.Account.name)\n");
    result_free(&r);
    r = run("decode %s badlen.bin", ta);
    assert_fails(&r, 1,
                 "fbec decode: badlen.bin: invalid frame at byte 38: a string or bytes length "
                 "exceeds the remaining bytes (in proto.Account.name)\n");
    result_free(&r);

    /* A wrong type number in the root struct header (byte 12). */
    memcpy(bad, bin, len);
    bad[12] = 7;
    write_bytes("badtype.bin", bad, len);
    r = run("verify %s badtype.bin", ta);
    assert_fails(&r, 1,
                 "fbec verify: badtype.bin: invalid frame at byte 12: a struct type number does "
                 "not match the schema (in proto.Account)\n");
    result_free(&r);

    /* Bytes after the frame. */
    memcpy(bad, bin, len);
    uint8_t *longer = malloc(len + 3);
    assert_non_null(longer);
    memcpy(longer, bin, len);
    memset(longer + len, 0, 3);
    write_bytes("long.bin", longer, len + 3);
    r = run("verify %s long.bin", ta);
    assert_fails(&r, 1, "fbec verify: long.bin: 3 unexpected bytes after the 252-byte frame\n");
    result_free(&r);
    r = run("convert %s --from standard --to final long.bin", ta);
    assert_fails(&r, 1, "fbec convert: long.bin: 3 unexpected bytes after the 252-byte frame\n");
    result_free(&r);

    /* Empty input, and the final model read as standard. */
    write_bytes("empty.bin", "", 0);
    r = run("verify %s empty.bin", ta);
    assert_fails(&r, 1,
                 "fbec verify: empty.bin: invalid frame at byte 0: the buffer ends inside the "
                 "frame (in proto.Account)\n");
    result_free(&r);
    r = run("verify %s '%s'", ta, case_path("proto", "Account", "readme", ".final.bin"));
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "readme.final.bin: invalid frame at byte "));
    result_free(&r);

    /* The JIT's decode and convert compile deserialize alone and verify only a
     * frame it refuses (with the interpreter): the same messages, the same file
     * never created (test_budget: a budget too small for a valid frame). */
    if (fbe_jit_available()) {
        char jit[600];
        snprintf(jit, sizeof jit, "--backend jit --cache '%s/jit-warm'", dir);
        static const char *const files[] = {"trunc.bin", "badlen.bin", "long.bin"};
        static const char *const why[] = {
            "invalid frame at byte 0: the buffer ends inside the frame (in proto.Account)",
            "invalid frame at byte 38: a string or bytes length exceeds the remaining bytes "
            "(in proto.Account.name)",
            "3 unexpected bytes after the 252-byte frame"};
        for (size_t f = 0; f < 3; f++)
            for (size_t i = 1; i < 3; i++) {
                char name[16], want[512];
                snprintf(name, sizeof name, "%.7s", cmds[i]);
                name[strcspn(name, " ")] = 0;
                snprintf(want, sizeof want, "fbec %s: %s: %s\n", name, files[f], why[f]);
                remove_file("never.out");
                r = run("%s %s %s %s -o never.out", cmds[i], ta, jit, files[f]);
                assert_fails(&r, 1, want);
                assert_false(exists("never.out"));
                result_free(&r);
            }
    }

    free(longer);
    free(bad);
    free(bin);
}

static void test_stdin(void **state)
{
    (void)state;
    const char *ta = type_args("proto", "Account");
    const char *std = case_path("proto", "Account", "readme", ".bin");
    const char *fin = case_path("proto", "Account", "readme", ".final.bin");
    const char *txt = case_path("proto", "Account", "readme", ".txt");
    char args[4096];

    snprintf(args, sizeof args, "verify %s", ta);
    result r = run_io(NULL, args, std);
    assert_ok_silent(&r);
    result_free(&r);

    snprintf(args, sizeof args, "decode %s -", ta);
    r = run_io(NULL, args, std);
    assert_out_equals_file(&r, txt, true);
    result_free(&r);

    /* A pipe (not seekable, size unknown). */
    char prefix[1200];
    snprintf(prefix, sizeof prefix, "cat '%s'", fin);
    snprintf(args, sizeof args, "convert %s --from final --to standard", ta);
    r = run_io(prefix, args, NULL);
    assert_out_equals_file(&r, std, false);
    result_free(&r);

    /* Errors name standard input. */
    snprintf(prefix, sizeof prefix, "head -c 100 '%s'", std);
    snprintf(args, sizeof args, "decode %s", ta);
    r = run_io(prefix, args, NULL);
    assert_fails(&r, 1,
                 "fbec decode: <stdin>: invalid frame at byte 0: the buffer ends inside the "
                 "frame (in proto.Account)\n");
    result_free(&r);
}

static void test_backend(void **state)
{
    (void)state;
    const char *ta = type_args("proto", "Account");
    const char *std = case_path("proto", "Account", "readme", ".bin");
    const char *fin = case_path("proto", "Account", "readme", ".final.bin");
    const char *txt = case_path("proto", "Account", "readme", ".txt");
    /* auto and interp never need LLVM; jit must give the interpreter's output
     * exactly, or say clearly that this build has no JIT. After each backend's
     * first run the JIT's object comes from a cache (compiling is the slow part;
     * the cache itself is checked below). */
    char warm[512];
    snprintf(warm, sizeof warm, "--cache '%s/jit-warm'", dir);
    const char *backends[] = {"interp", "auto", "jit", "auto --cpu x86-64"};
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++) {
        const char *b = backends[i];
        bool native_only = strncmp(b, "jit", 3) == 0;
        if (native_only && !fbe_jit_available()) {
            result r = run("verify %s --backend %s '%s'", ta, b, std);
            assert_fails(&r, 1,
                         "fbec verify: cannot create the JIT codec: this fbec was built "
                         "without LLVM (use --backend interp or auto)\n");
            result_free(&r);
            continue;
        }
        const char *c = i == 0 ? "" : warm;
        result r = run("decode %s --backend %s '%s'", ta, b, std);
        assert_out_equals_file(&r, txt, true);
        result_free(&r);
        r = run("decode %s --backend %s %s --final '%s'", ta, b, c, fin);
        assert_out_equals_file(&r, txt, true);
        result_free(&r);
        r = run("verify %s --backend %s %s '%s'", ta, b, c, std);
        assert_ok_silent(&r);
        result_free(&r);
        r = run("convert %s --backend %s %s --from standard --to final '%s'", ta, b, c, std);
        assert_out_equals_file(&r, fin, false);
        result_free(&r);
        r = run("convert %s --backend %s %s --from final --to standard '%s'", ta, b, c, fin);
        assert_out_equals_file(&r, std, false);
        result_free(&r);
    }
    if (fbe_jit_available()) {
        /* --stats: one line on stderr naming the backend, nothing else changes */
        result r = run("verify %s --backend jit --stats '%s'", ta, std);
        assert_int_equal(r.status, 0);
        assert_int_equal(r.out_len, 0);
        /* only what the command uses is compiled: verify of one model, one type */
        const char *want = "fbec verify: jit codec, 1 native entry points, ";
        if (strncmp(r.err, want, strlen(want)) != 0 || !strstr(r.err, " bytes of machine code; lower ") ||
            !strstr(r.err, " ms, codegen ") ||
            strchr(r.err, '\n') != r.err + strlen(r.err) - 1)
            fail_msg("unexpected --stats output: %s", r.err);
        result_free(&r);
        r = run("convert %s --backend jit --stats --from standard --to final -o /dev/null '%s'", ta,
                std);
        assert_int_equal(r.status, 0);
        /* standard deserialize, final serialize: of Account alone (verify only
         * explains a frame deserialize refuses: the interpreter's) */
        want = "fbec convert: jit codec, 2 native entry points, ";
        if (strncmp(r.err, want, strlen(want)) != 0)
            fail_msg("unexpected --stats output: %s", r.err);
        result_free(&r);
        /* encode: serialize alone (no size entry point), the golden bytes */
        r = run("encode %s --backend jit --stats '%s'", ta,
                case_path("proto", "Account", "readme", ".json"));
        want = "fbec encode: jit codec, 1 native entry points, ";
        if (strncmp(r.err, want, strlen(want)) != 0)
            fail_msg("unexpected --stats output: %s", r.err);
        r.err[0] = '\0'; /* the stats line, checked */
        assert_out_equals_file(&r, std, false);
        result_free(&r);
        /* --cache: the second run loads the object the first one stored */
        char cache[512];
        snprintf(cache, sizeof cache, "%s/jit-cache", dir);
        for (int round = 0; round < 2; round++) {
            r = run("decode %s --backend jit --cache '%s' --stats '%s'", ta, cache, std);
            assert_int_equal(r.status, 0);
            /* decode: deserialize alone */
            want = "fbec decode: jit codec, 1 native entry points, ";
            if (strncmp(r.err, want, strlen(want)) != 0)
                fail_msg("unexpected --stats output: %s", r.err);
            bool cached = strstr(r.err, " (cached object)\n") != NULL;
            if (cached != (round == 1))
                fail_msg("round %d: unexpected --stats output: %s", round, r.err);
            result_free(&r);
        }
        /* --jit-mode background: returns at once, interpreted until native code
         * is installed; the bytes are the same */
        r = run("convert %s --backend jit --jit-mode background --from standard --to final '%s'",
                ta, std);
        assert_out_equals_file(&r, fin, false);
        result_free(&r);
        r = run("convert %s --backend jit --jit-mode background --stats --from standard --to final "
                "-o /dev/null '%s'", ta, std);
        assert_int_equal(r.status, 0);
        want = "fbec convert: jit codec (background), ";
        if (strncmp(r.err, want, strlen(want)) != 0 || !strstr(r.err, " pending; returned in "))
            fail_msg("unexpected --stats output: %s", r.err);
        result_free(&r);
        r = run("verify %s --backend jit --jit-mode eager '%s'", ta, std);
        assert_int_equal(r.status, 0);
        assert_int_equal(r.out_len, 0);
        assert_string_equal(r.err, "");
        result_free(&r);
    }
    result r = run("verify %s --backend jit --jit-mode lazy '%s'", ta, std);
    assert_fails(&r, 2,
                 "fbec verify: unknown JIT mode 'lazy' (expected eager or background)\n"
                 "run 'fbec verify --help' for usage\n");
    result_free(&r);
    r = run("decode %s --jit-mode eager '%s'", ta, std);
    assert_fails(&r, 2,
                 "fbec decode: --jit-mode needs the JIT (--backend jit or auto)\n"
                 "run 'fbec decode --help' for usage\n");
    result_free(&r);
    r = run("verify %s --backend llvm '%s'", ta, std);
    assert_fails(&r, 2,
                 "fbec verify: unknown backend 'llvm' (expected interp, jit or auto)\n"
                 "run 'fbec verify --help' for usage\n");
    result_free(&r);
    r = run("verify %s --cpu x86-64 '%s'", ta, std);
    assert_fails(&r, 2,
                 "fbec verify: --cpu needs the JIT (--backend jit or auto)\n"
                 "run 'fbec verify --help' for usage\n");
    result_free(&r);
    r = run("decode %s --backend interp --stats '%s'", ta, std);
    assert_fails(&r, 2,
                 "fbec decode: --stats needs the JIT (--backend jit or auto)\n"
                 "run 'fbec decode --help' for usage\n");
    result_free(&r);
}

/* fbec does not load libLLVM (its start is ~2 M instructions instead of ~23 M):
 * with LLVM, aot and --backend jit|auto run fbec-llvm from fbec's directory
 * (test_backend above goes through it); without it beside fbec, jit and aot
 * fail saying so and auto is the interpreter. */
static void test_llvm_helper(void **state)
{
    (void)state;
    char cmd[2048], *out = NULL;
    snprintf(cmd, sizeof cmd, "readelf -d '%s'", FBEC_PATH);
    assert_int_equal(run_command(cmd, &out), 0);
    assert_non_null(strstr(out, "(NEEDED)"));
    if (strstr(out, "libLLVM"))
        fail_msg("fbec links libLLVM:\n%s", out);
    free(out);
    if (!fbe_jit_available())
        return;
    char lonely[512], real[PATH_MAX], want[PATH_MAX + 128];
    snprintf(lonely, sizeof lonely, "%s/lonely", dir);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && cp '%s' '%s/fbec'", lonely, FBEC_PATH, lonely);
    assert_int_equal(run_command(cmd, &out), 0);
    free(out);
    assert_non_null(realpath(lonely, real));
    static char program[600]; /* fbec_program outlives a failing assertion */
    snprintf(program, sizeof program, "%s/fbec", lonely);
    fbec_program = program;
    const char *ta = type_args("proto", "Account");
    const char *std = case_path("proto", "Account", "readme", ".bin");
    snprintf(want, sizeof want,
             "fbec verify: cannot run %s/fbec-llvm, which has the LLVM JIT and AOT compiler: "
             "No such file or directory\n", real);
    result r = run("verify %s --backend jit '%s'", ta, std);
    assert_fails(&r, 1, want);
    result_free(&r);
    r = run("verify %s --backend=jit '%s'", ta, std);
    assert_fails(&r, 1, want);
    result_free(&r);
    r = run("decode %s --backend auto '%s'", ta, std);
    assert_out_equals_file(&r, case_path("proto", "Account", "readme", ".txt"), true);
    result_free(&r);
    snprintf(want, sizeof want,
             "fbec aot: cannot run %s/fbec-llvm, which has the LLVM JIT and AOT compiler: "
             "No such file or directory\n", real);
    r = run("aot '%s/proto.fbe' -o p.o", schema_dir);
    assert_fails(&r, 1, want);
    result_free(&r);
    r = run("verify %s '%s'", ta, std); /* the interpreter needs nothing beside fbec */
    assert_ok_silent(&r);
    result_free(&r);
    fbec_program = FBEC_PATH;
}

static void test_usage_errors(void **state)
{
    (void)state;
    const char *ta = type_args("proto", "Account");
    const char *std = case_path("proto", "Account", "readme", ".bin");
    result r;

    r = run("verify --type proto.Account x.bin");
    assert_fails(&r, 2,
                 "fbec verify: no schema given (--schema FILE)\n"
                 "run 'fbec verify --help' for usage\n");
    result_free(&r);
    r = run("decode --schema '%s/proto.fbe' x.bin", schema_dir);
    assert_fails(&r, 2,
                 "fbec decode: no type given (--type pkg.Type)\n"
                 "run 'fbec decode --help' for usage\n");
    result_free(&r);
    r = run("verify %s a.bin b.bin", ta);
    assert_fails(&r, 2,
                 "fbec verify: expected at most one input file, got 2\n"
                 "run 'fbec verify --help' for usage\n");
    result_free(&r);
    r = run("verify %s --bogus", ta);
    assert_fails(&r, 2, "fbec verify: unknown option --bogus\nrun 'fbec verify --help' for usage\n");
    result_free(&r);
    r = run("verify %s --final --from standard '%s'", ta, std);
    assert_fails(&r, 2,
                 "fbec verify: --final contradicts --from standard\n"
                 "run 'fbec verify --help' for usage\n");
    result_free(&r);
    r = run("verify %s -o x '%s'", ta, std);
    assert_int_equal(r.status, 2);
    result_free(&r);
    r = run("verify %s --to final '%s'", ta, std);
    assert_int_equal(r.status, 2);
    result_free(&r);

    r = run("decode %s --format json '%s'", ta, std); /* JSON: docs/json.md, test_json* */
    assert_int_equal(r.status, 0);
    result_free(&r);
    r = run("decode %s --format xml '%s'", ta, std);
    assert_fails(&r, 2,
                 "fbec decode: unknown format 'xml' (expected text or json)\n"
                 "run 'fbec decode --help' for usage\n");
    result_free(&r);
    r = run("decode %s --from middle '%s'", ta, std);
    assert_fails(&r, 2,
                 "fbec decode: unknown model 'middle' after --from (expected standard or "
                 "final)\nrun 'fbec decode --help' for usage\n");
    result_free(&r);

    r = run("convert %s --to final '%s'", ta, std);
    assert_fails(&r, 2,
                 "fbec convert: no input model given (--from standard|final)\n"
                 "run 'fbec convert --help' for usage\n");
    result_free(&r);
    r = run("convert %s --from standard '%s'", ta, std);
    assert_fails(&r, 2,
                 "fbec convert: no output model given (--to standard|final)\n"
                 "run 'fbec convert --help' for usage\n");
    result_free(&r);
    r = run("convert %s --from standard --to compact '%s'", ta, std);
    assert_int_equal(r.status, 2);
    result_free(&r);
    r = run("convert %s --final --to standard '%s'", ta, std);
    assert_fails(&r, 2,
                 "fbec convert: --final is not used by this command (use --from final)\n"
                 "run 'fbec convert --help' for usage\n");
    result_free(&r);
    r = run("convert %s --from standard --to final --format text '%s'", ta, std);
    assert_int_equal(r.status, 2);
    result_free(&r);
    r = run("verify %s --max-memory 1M '%s'", ta, std);
    assert_fails(&r, 2,
                 "fbec verify: --max-memory is not used by this command (verify allocates "
                 "nothing)\n"
                 "run 'fbec verify --help' for usage\n");
    result_free(&r);
}

static void test_data_errors(void **state)
{
    (void)state;
    const char *std = case_path("proto", "Account", "readme", ".bin");
    result r;
    /* An unknown type is a data error (the schema is what it is), not a usage error. */
    r = run("decode --schema '%s/proto.fbe' --type proto.Nope '%s'", schema_dir, std);
    char want[2048];
    snprintf(want, sizeof want, "fbec decode: no type 'proto.Nope' in schema %s/proto.fbe\n",
             schema_dir);
    assert_fails(&r, 1, want);
    result_free(&r);
    /* The JIT is told to compile that type alone: the same message, not the JIT's
     * refusal of the name (background: no native code demanded, so the same
     * without LLVM too) */
    static const char *const jit_backends[] = {"--backend auto",
                                               "--backend jit --jit-mode background"};
    for (size_t b = 0; b < 2; b++) {
        r = run("verify --schema '%s/proto.fbe' --type proto.Nope %s '%s'", schema_dir,
                jit_backends[b], std);
        snprintf(want, sizeof want, "fbec verify: no type 'proto.Nope' in schema %s/proto.fbe\n",
                 schema_dir);
        assert_fails(&r, 1, want);
        result_free(&r);
    }
    r = run("verify %s missing.bin", type_args("proto", "Account"));
    assert_fails(&r, 1, "fbec verify: cannot read 'missing.bin': No such file or directory\n");
    result_free(&r);
    r = run("verify %s .", type_args("proto", "Account"));
    assert_fails(&r, 1, "fbec verify: cannot read '.': Is a directory\n");
    result_free(&r);
    /* Schema errors are reported like fbec check does. */
    write_text("bad.fbe", "package p\nstruct S { Foo f; }\n");
    r = run("verify --schema bad.fbe --type p.S '%s'", std);
    assert_fails(&r, 1,
                 "bad.fbe:2:12: error: unknown type name 'Foo'\n"
                 "struct S { Foo f; }\n"
                 "           ^\n"
                 "1 error generated.\n");
    result_free(&r);
    /* Imports resolve through -I. */
    write_text("user.fbe", "package user\nimport proto\nstruct U { proto.Order o; }\n");
    r = run("verify --schema user.fbe --type proto.Account '%s'", std);
    assert_int_equal(r.status, 1);
    result_free(&r);
    r = run("verify -I '%s' --schema user.fbe --type proto.Account '%s'", schema_dir, std);
    assert_ok_silent(&r);
    result_free(&r);
    /* Output that cannot be written. */
    r = run("decode %s '%s' -o no/such/dir/out.txt", type_args("proto", "Account"), std);
    assert_fails(&r, 1,
                 "fbec decode: cannot open 'no/such/dir/out.txt': No such file or directory\n");
    result_free(&r);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/fbe-test-cli-codec-XXXXXX");
    snprintf(schema_dir, sizeof schema_dir, "%s", shared_path("golden/schemas"));
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
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_backend),
        cmocka_unit_test(test_llvm_helper),
        cmocka_unit_test(test_data_errors),
        cmocka_unit_test(test_verify_golden),
        cmocka_unit_test(test_decode_golden),
        cmocka_unit_test(test_convert_golden),
        cmocka_unit_test(test_invalid_input),
        cmocka_unit_test(test_stdin),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
