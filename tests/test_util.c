#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

const char ex_schema[] =
    "package ex offset 50\n"
    "struct Base { int16 a = 7; string s; }\n"
    "struct Derived : Base { bool b; int32? oi; }\n"
    "enum Color : byte { red; green = 5; blue; }\n"
    "flags Perm : uint16 { none = 0; r = 1; w = 2; rw = r | w; }\n"
    "struct Coll { byte[3] arr; int16[] vec; string() lst; int32! st; string<int32> mp;\n"
    "  int32{string} hs; bytes by; string? os; Base? ob; Base[] vb; Color c = Color.blue;\n"
    "  Perm p = Perm.rw; decimal d; uuid u; timestamp t; char ch = 'A'; wchar wc = 0x0444;\n"
    "  float f = 1.5; }\n"
    "struct Empty {}\n";

const char *shared_path(const char *relative)
{
    static char path[4096];
    struct stat st;
    if (stat(FBE_SHARED_DIR "/golden/MANIFEST.tsv", &st) != 0) {
        fprintf(stderr, "FATAL: shared test data not found at %s "
                        "(expected ../shared beside the repository)\n", FBE_SHARED_DIR);
        exit(2);
    }
    snprintf(path, sizeof path, "%s/%s", FBE_SHARED_DIR, relative);
    return path;
}

uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fail_msg("cannot open %s", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return buf;
}

void diag_capture_sink(void *ctx, const fbe_diag *d)
{
    diag_capture *cap = ctx;
    if (d->severity != FBE_DIAG_ERROR)
        return;
    const char *file = d->file ? d->file : "";
    const char *slash = strrchr(file, '/');
    if (slash)
        file = slash + 1;
    int n = snprintf(cap->text + cap->len, sizeof cap->text - cap->len,
                     "%s:%u:%u: error: %s\n", file, d->line, d->col, d->message);
    if (n > 0 && (size_t)n < sizeof cap->text - cap->len)
        cap->len += (size_t)n;
    cap->count++;
}

fbe_schema *load_text(const char *text, diag_capture *cap)
{
    memset(cap, 0, sizeof *cap);
    fbe_schema_options opts = {.sink = diag_capture_sink, .sink_ctx = cap};
    unsigned errors = 0;
    fbe_schema *s = fbe_schema_load_string("t.fbe", text, strlen(text), &opts, &errors);
    /* Past the cap errors are counted but not forwarded. */
    if (errors <= FBE_MAX_ERRORS)
        assert_int_equal(errors, cap->count);
    else
        assert_int_equal(cap->count, FBE_MAX_ERRORS);
    return s;
}

fbe_schema *load_text_ok(const char *text)
{
    diag_capture cap;
    fbe_schema *s = load_text(text, &cap);
    if (!s)
        fail_msg("schema failed to load:\n%s", cap.text);
    return s;
}

fbe_schema *load_golden(const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "golden/schemas/%s.fbe", name);
    unsigned errors = 0;
    fbe_schema *s = fbe_schema_load(shared_path(rel), NULL, &errors);
    if (!s)
        fail_msg("golden schema %s failed to load (%u errors)", name, errors);
    return s;
}

int run_command(const char *cmd, char **output)
{
    char full[8192];
    snprintf(full, sizeof full, "(%s) 2>&1", cmd);
    FILE *p = popen(full, "r");
    if (!p)
        return -1;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (cap - len < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    buf[len] = 0;
    int status = pclose(p);
    if (output)
        *output = buf;
    else
        free(buf);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int rm_rf(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

uint64_t monotonic_ns(void *ctx)
{
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int for_each_final_case(final_case_fn fn, void *ctx)
{
    FILE *f = fopen(shared_path("golden/MANIFEST.tsv"), "r");
    assert_non_null(f);
    static char line[1 << 16];
    int count = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char *cols[6] = {0};
        int n = 0;
        for (char *p = line; n < 6 && p;) {
            cols[n++] = p;
            p = strchr(p, '\t');
            if (p)
                *p++ = 0;
        }
        if (n < 5)
            continue;
        char *path = NULL;
        for (char *tok = strtok(cols[4], ","); tok; tok = strtok(NULL, ",")) {
            size_t tl = strlen(tok);
            if (strncmp(tok, "cases/", 6) == 0 && tl > 10 &&
                strcmp(tok + tl - 10, ".final.bin") == 0)
                path = tok;
        }
        if (!path)
            continue;
        char *dot = strstr(cols[0], ".fbe");
        assert_non_null(dot);
        *dot = 0; /* "proto.fbe" -> "proto" */
        char type_name[256], rel[1024];
        assert_true(strlen(cols[1]) + strlen(cols[2]) + 2 <= sizeof type_name);
        assert_true(strlen(path) + 8 <= sizeof rel);
        snprintf(type_name, sizeof type_name, "%s.%s", cols[1], cols[2]);
        snprintf(rel, sizeof rel, "golden/%s", path);
        size_t len;
        uint8_t *data = read_file(shared_path(rel), &len);
        fn(cols[0], type_name, path, data, len, ctx);
        free(data);
        count++;
    }
    fclose(f);
    return count;
}

void tprintf(text_buf *t, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    int n = vsnprintf(NULL, 0, format, ap);
    va_end(ap);
    assert_true(n >= 0);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    va_start(ap, format);
    vsnprintf(t->s + t->len, t->cap - t->len, format, ap);
    va_end(ap);
    t->len += (size_t)n;
}
