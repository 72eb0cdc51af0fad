#define _POSIX_C_SOURCE 200809L
#include "test_cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *fmt(const char *format, ...)
{
    static char bufs[8][8192];
    static int next;
    char *b = bufs[next++ % 8];
    va_list ap;
    va_start(ap, format);
    vsnprintf(b, sizeof bufs[0], format, ap);
    va_end(ap);
    return b;
}

void expect_status(const char *cmd, int expected, char **output)
{
    char *out = NULL;
    int rc = run_command(cmd, &out);
    if (rc != expected)
        print_message("$ %s\n%s\n(exit status %d, expected %d)\n", cmd, out ? out : "", rc,
                      expected);
    if (output)
        *output = out;
    else
        free(out);
    assert_int_equal(rc, expected);
}

bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        fail_msg("cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
}

void write_bytes(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("cannot write %s: %s", path, strerror(errno));
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

bool have_compiler(const char *cc)
{
    return cc[0] && run_command(fmt("%s --version", cc), NULL) == 0;
}
