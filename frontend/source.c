#include "source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

fbe_source *fbe_source_from_memory(fbe_arena *arena, const char *path,
                                   const char *text, size_t len)
{
    fbe_source *src = fbe_arena_alloc(arena, sizeof *src);
    char *copy = fbe_arena_strndup(arena, text, len);
    const char *name = fbe_arena_strdup(arena, path);
    if (!src || !copy || !name) {
        errno = ENOMEM;
        return NULL;
    }
    src->path = name;
    src->text = copy;
    src->len = len;
    return src;
}

fbe_source *fbe_source_read(fbe_arena *arena, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        errno = ENOMEM;
        return NULL;
    }
    for (;;) {
        if (len == cap) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(buf);
        errno = EIO;
        return NULL;
    }
    fbe_source *src = fbe_source_from_memory(arena, path, buf, len);
    free(buf);
    return src;
}

const char *fbe_source_line(const fbe_source *source, uint32_t line, size_t *len)
{
    const char *p = source->text, *end = source->text + source->len;
    for (uint32_t l = 1; l < line; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) {
            *len = 0;
            return NULL;
        }
        p = nl + 1;
    }
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *stop = nl ? nl : end;
    if (stop > p && stop[-1] == '\r')
        stop--;
    *len = (size_t)(stop - p);
    return p;
}
