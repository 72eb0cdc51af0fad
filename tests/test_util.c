#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

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
