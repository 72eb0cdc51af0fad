/* A schema file's text and positions in it. */
#ifndef FBE_FRONTEND_SOURCE_H
#define FBE_FRONTEND_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "fbe/arena.h"

typedef struct fbe_source {
    const char *path;   /* as given or found; used in diagnostics */
    const char *text;   /* NUL-terminated copy; may contain other NULs */
    size_t len;
} fbe_source;

/* 1-based line and byte column. A zero line means "no location". */
typedef struct fbe_loc {
    const fbe_source *source;
    uint32_t line;
    uint32_t col;
} fbe_loc;

/* Reads a whole file into the arena. Returns NULL (errno set) on failure. */
fbe_source *fbe_source_read(fbe_arena *arena, const char *path);
fbe_source *fbe_source_from_memory(fbe_arena *arena, const char *path,
                                   const char *text, size_t len);

/* The text of line `line` (without newline) and its length. */
const char *fbe_source_line(const fbe_source *source, uint32_t line, size_t *len);

#endif
