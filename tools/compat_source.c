#define _POSIX_C_SOURCE 200809L
/* Source text for fbec compat: the IR keeps a location per declaration and per
 * field but not per enum value, so values are found by scanning the text of
 * their declaration; the same texts give the caret lines. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"

typedef struct source_file {
    char *path;
    char *text; /* NUL-terminated; NULL when the file could not be read */
    size_t len;
} source_file;

struct fbe_compat_sources {
    source_file *files;
    size_t count;
};

fbe_compat_sources *fbe_compat_sources_new(void)
{
    return calloc(1, sizeof(fbe_compat_sources));
}

void fbe_compat_sources_free(fbe_compat_sources *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++) {
        free(s->files[i].path);
        free(s->files[i].text);
    }
    free(s->files);
    free(s);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    if (buf && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

static const source_file *get(fbe_compat_sources *s, const char *path)
{
    if (!s || !path)
        return NULL;
    for (size_t i = 0; i < s->count; i++)
        if (strcmp(s->files[i].path, path) == 0)
            return &s->files[i];
    source_file *grown = realloc(s->files, (s->count + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    s->files = grown;
    source_file *f = &s->files[s->count];
    f->path = strdup(path);
    if (!f->path)
        return NULL;
    f->len = 0;
    f->text = read_all(path, &f->len);
    s->count++;
    return f;
}

/* Offset of the start of line `line` (1-based), or SIZE_MAX. */
static size_t line_start(const source_file *f, unsigned line)
{
    size_t at = 0;
    for (unsigned l = 1; l < line; l++) {
        const char *nl = memchr(f->text + at, '\n', f->len - at);
        if (!nl)
            return SIZE_MAX;
        at = (size_t)(nl - f->text) + 1;
    }
    return at;
}

const char *fbe_compat_source_line(fbe_compat_sources *s, const char *path, unsigned line,
                                   size_t *len)
{
    const source_file *f = get(s, path);
    if (!f || !f->text || line == 0)
        return NULL;
    size_t at = line_start(f, line);
    if (at == SIZE_MAX || at > f->len)
        return NULL;
    const char *nl = memchr(f->text + at, '\n', f->len - at);
    size_t end = nl ? (size_t)(nl - f->text) : f->len;
    if (end > at && f->text[end - 1] == '\r')
        end--;
    *len = end - at;
    return f->text + at;
}

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

bool fbe_compat_find_member(fbe_compat_sources *s, const fbe_ir_source_loc *decl,
                            const char *name, fbe_ir_source_loc *loc)
{
    const source_file *f = get(s, decl->file);
    if (!f || !f->text || decl->line == 0)
        return false;
    size_t at = line_start(f, decl->line);
    if (at == SIZE_MAX)
        return false;
    at += decl->col - 1;
    size_t nlen = strlen(name);
    unsigned line = decl->line;
    size_t bol = at - (decl->col - 1);
    int depth = 0;
    bool member_start = false; /* after '{', ';' or ',' at depth 1 */
    for (size_t i = at; i < f->len; i++) {
        char c = f->text[i];
        if (c == '\n') {
            line++;
            bol = i + 1;
        } else if (c == '/' && f->text[i + 1] == '/') {
            while (i + 1 < f->len && f->text[i + 1] != '\n')
                i++;
        } else if (c == '/' && f->text[i + 1] == '*') {
            for (i += 2; i + 1 < f->len && !(f->text[i] == '*' && f->text[i + 1] == '/'); i++)
                if (f->text[i] == '\n') {
                    line++;
                    bol = i + 1;
                }
            i++;
        } else if (c == '{') {
            if (++depth == 1)
                member_start = true;
        } else if (c == '}') {
            if (--depth <= 0)
                return false;
        } else if (depth == 1 && (c == ';' || c == ',')) {
            member_start = true;
        } else if (ident_char(c)) {
            size_t j = i;
            while (j < f->len && ident_char(f->text[j]))
                j++;
            if (depth == 1 && member_start && j - i == nlen &&
                memcmp(f->text + i, name, nlen) == 0) {
                loc->file = decl->file;
                loc->line = line;
                loc->col = (uint32_t)(i - bol + 1);
                return true;
            }
            if (depth == 1)
                member_start = false;
            i = j - 1;
        } else if (c == '[' && depth == 1) {
            /* an attribute before the value's name: skip it, still at the start */
            while (i + 1 < f->len && f->text[i + 1] != ']')
                i++;
            i++;
        } else if (!isspace((unsigned char)c) && depth == 1) {
            member_start = false;
        }
    }
    return false;
}
