/* Bump allocation in chained chunks. Every decoded value and every compiler data
 * structure lives in an arena, so freeing is one call and error paths cannot leak. */
#ifndef FBE_ARENA_H
#define FBE_ARENA_H

#include <stddef.h>
#include <stdint.h>

#include "fbe/error.h"

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

/* ---- the decode budget (docs/codec.md, "Limits") ----------------------------------
 * Decoding can legitimately need far more memory than its input (an older writer's
 * 8-byte struct bodies become whole structs with defaults), so every decoder (binary
 * deserialize in every backend, JSON read) holds each call to a budget: the call may
 * add at most `max_memory` bytes to arena->total (what the arena obtains from its
 * allocator, chunk headers included), by default
 * FBE_DECODE_MEMORY_FACTOR x the input's size + FBE_DECODE_MEMORY_BASE.
 * Past it the call fails with FBE_MEMORY_LIMIT; what it allocated stays in the
 * arena (freed with it). arena->limit, when set, applies as well (FBE_NOMEM). */
#define FBE_DECODE_MEMORY_FACTOR 64u
#define FBE_DECODE_MEMORY_BASE ((size_t)1 << 20)

/* The default budget for `input` bytes (saturating). */
static inline size_t fbe_decode_memory_default(size_t input)
{
    size_t scaled = input > (SIZE_MAX - FBE_DECODE_MEMORY_BASE) / FBE_DECODE_MEMORY_FACTOR
                        ? SIZE_MAX - FBE_DECODE_MEMORY_BASE
                        : input * FBE_DECODE_MEMORY_FACTOR;
    return scaled + FBE_DECODE_MEMORY_BASE;
}

/* One call's budget, kept by the decoder (generated code included): zero it (or
 * at least cap: the marks are written before they are read), set input and
 * max_memory at the start of the call, and take every allocation's slow path
 * (the arena's current chunk is full) through fbe_decode_alloc. */
typedef struct fbe_decode_budget {
    size_t cap;        /* 0 until the call first needs a chunk; then the most
                        * arena->total may reach; FBE_DECODE_SPENT once exceeded */
    size_t max_memory; /* bytes the call may add; 0: the default for input;
                        * SIZE_MAX: no budget */
    size_t input;      /* the size of what is decoded: the frame, the JSON text */
    /* set by fbe_decode_alloc when it fixes cap: the arena's head chunk and
     * chunk_size as the call found them (no chunk is added before), so that a
     * decoder can give back what the call added (native code that hands a
     * failing frame to the interpreter: docs/jit.md) */
    void *mark_head;
    size_t mark_chunk_size;
} fbe_decode_budget;

#define FBE_DECODE_SPENT SIZE_MAX

/* fbe_arena_alloc (same rounding, same chunks) held to the budget: a chunk never
 * takes the arena past budget->cap. NULL when out of memory or over budget. */
void *fbe_decode_alloc(fbe_arena *arena, size_t size, fbe_decode_budget *budget);

/* A decoder's final status: NOMEM caused by the budget becomes FBE_MEMORY_LIMIT. */
static inline fbe_status fbe_decode_status(fbe_status status, const fbe_decode_budget *budget)
{
    return status == FBE_NOMEM && budget->cap == FBE_DECODE_SPENT ? FBE_MEMORY_LIMIT : status;
}

/* Frees every chunk but the largest (of at most 1 MB) and rewinds it: memory is
 * reused, and an arena reset after each message settles on one chunk that fits
 * it, without allocating per message. */
void fbe_arena_reset(fbe_arena *arena);
void fbe_arena_free(fbe_arena *arena);

#ifdef __cplusplus
}
#endif

#endif
