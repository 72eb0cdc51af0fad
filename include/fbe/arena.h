/* Bump allocation in chained chunks. Every decoded value and every compiler data
 * structure lives in an arena, so freeing is one call and error paths cannot leak. */
#ifndef FBE_ARENA_H
#define FBE_ARENA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The one allocator hook: realloc semantics (ptr == NULL allocates, size == 0
 * frees and returns NULL). */
typedef void *(*fbe_alloc_fn)(void *ctx, void *ptr, size_t size);

typedef struct fbe_arena_chunk fbe_arena_chunk;

typedef struct fbe_arena {
    fbe_arena_chunk *head;  /* current chunk; older chunks follow `next` */
    char *ptr;              /* next free byte in head */
    char *end;              /* end of head */
    size_t chunk_size;      /* size of the next regular chunk */
    size_t total;           /* bytes obtained from the allocator */
    size_t limit;           /* 0 = unlimited; otherwise total may not exceed it */
    fbe_alloc_fn alloc;
    void *alloc_ctx;
} fbe_arena;

/* alloc == NULL uses malloc/realloc/free. */
void fbe_arena_init(fbe_arena *arena, fbe_alloc_fn alloc, void *alloc_ctx);

/* Returns 16-byte-aligned memory, or NULL when out of memory or over the limit. */
void *fbe_arena_alloc(fbe_arena *arena, size_t size);
void *fbe_arena_zalloc(fbe_arena *arena, size_t size);
char *fbe_arena_strndup(fbe_arena *arena, const char *s, size_t len);
char *fbe_arena_strdup(fbe_arena *arena, const char *s);
char *fbe_arena_printf(fbe_arena *arena, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Frees every chunk but the first and rewinds it: memory is reused. */
void fbe_arena_reset(fbe_arena *arena);
void fbe_arena_free(fbe_arena *arena);

#ifdef __cplusplus
}
#endif

#endif
