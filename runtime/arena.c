#include "fbe/arena.h"

#include "fbe/internal/native.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ARENA_ALIGN = 16, ARENA_FIRST_CHUNK = 4096, ARENA_MAX_CHUNK = 1 << 20 };
/* A decoded string of n <= 16 bytes is copied with one 16-byte store into its
 * block of n + 1 (sc_copy_string, in native code too): blocks are whole multiples
 * of 16 bytes, as are the inline bumps that mirror this one (sc_bump_at, in
 * native code too). */
_Static_assert(ARENA_ALIGN >= 16 && ARENA_ALIGN % 16 == 0, "string copies store 16 bytes");

struct fbe_arena_chunk {
    fbe_arena_chunk *next;
    size_t size;
    /* Keeps the payload 16-byte aligned whatever the pointer size. */
    _Alignas(16) char data[];
};

static void *default_alloc(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    if (size == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, size);
}

void fbe_arena_init(fbe_arena *arena, fbe_alloc_fn alloc, void *alloc_ctx)
{
    memset(arena, 0, sizeof *arena);
    arena->chunk_size = ARENA_FIRST_CHUNK;
    arena->alloc = alloc ? alloc : default_alloc;
    arena->alloc_ctx = alloc_ctx;
}

/* cap: 0, or the most arena->total may reach (a decode budget, below): the chunk
 * then shrinks to the room left, so the budget is never lost to granularity. */
static int add_chunk(fbe_arena *arena, size_t min_size, size_t cap)
{
    size_t size = arena->chunk_size;
    if (size < min_size)
        size = min_size;
    if (size > SIZE_MAX - sizeof(fbe_arena_chunk))
        return 0;
    if (cap) {
        size_t room = cap > arena->total ? cap - arena->total : 0;
        if (room < sizeof(fbe_arena_chunk) + min_size)
            return 0;
        if (size > room - sizeof(fbe_arena_chunk))
            size = room - sizeof(fbe_arena_chunk);
    }
    size_t bytes = sizeof(fbe_arena_chunk) + size;
    if (arena->limit && (bytes > arena->limit || arena->total > arena->limit - bytes))
        return 0;
    fbe_arena_chunk *chunk = arena->alloc(arena->alloc_ctx, NULL, bytes);
    if (!chunk)
        return 0;
    chunk->size = size;
    chunk->next = arena->head;
    arena->head = chunk;
    arena->ptr = chunk->data;
    arena->end = chunk->data + size;
    arena->total += bytes;
    if (arena->chunk_size < ARENA_MAX_CHUNK)
        arena->chunk_size *= 2;
    return 1;
}

/* Whether a request for size bytes that failed was refused by the cap rather than
 * by the arena's own limit or the allocator. */
static int over_cap(const fbe_arena *arena, size_t size, size_t cap)
{
    size_t room = cap > arena->total ? cap - arena->total : 0;
    if (size > room || size > SIZE_MAX - ARENA_ALIGN)
        return 1;
    size_t rounded = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    return rounded > room || room - rounded < sizeof(fbe_arena_chunk);
}

static void *alloc_capped(fbe_arena *arena, size_t size, size_t cap)
{
    if (size == 0)
        size = 1;
    if (size > SIZE_MAX - ARENA_ALIGN)
        return NULL;
    size_t rounded = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    /* Test head first: before the first chunk ptr and end are both NULL, and
     * subtracting null pointers is undefined behaviour. */
    if (!arena->head || (size_t)(arena->end - arena->ptr) < rounded) {
        if (!add_chunk(arena, rounded, cap))
            return NULL;
    }
    void *p = arena->ptr;
    arena->ptr += rounded;
    return p;
}

void *fbe_arena_alloc(fbe_arena *arena, size_t size)
{
    return alloc_capped(arena, size, 0);
}

/* The cap is fixed when the call first needs a new chunk rather than when it
 * starts: nothing else grows the arena in between, so arena->total is the same,
 * and the decoders' entry points stay a few stores. */
void *fbe_decode_alloc(fbe_arena *arena, size_t size, fbe_decode_budget *budget)
{
    if (budget->cap == FBE_DECODE_SPENT)
        return NULL;
    if (budget->cap == 0) {
        budget->mark_head = arena->head;
        budget->mark_chunk_size = arena->chunk_size;
        size_t allowed = budget->max_memory;
        if (allowed == 0)
            allowed = fbe_decode_memory_default(budget->input);
        /* SIZE_MAX stays the spent mark; a cap that high limits nothing anyway */
        budget->cap = allowed < FBE_DECODE_SPENT - 1 - arena->total ? arena->total + allowed
                                                                     : FBE_DECODE_SPENT - 1;
    }
    void *p = alloc_capped(arena, size, budget->cap);
    if (!p && over_cap(arena, size, budget->cap))
        budget->cap = FBE_DECODE_SPENT;
    return p;
}

/* Gives chunk c back to the allocator, arena->total following. */
static void free_chunk(fbe_arena *arena, fbe_arena_chunk *c)
{
    arena->total -= sizeof(fbe_arena_chunk) + c->size;
    arena->alloc(arena->alloc_ctx, c, 0);
}

void fbe_native_arena_rewind(fbe_arena *arena, const fbe_decode_budget *budget, char *ptr)
{
    arena->ptr = ptr;
    if (budget->cap == 0) /* the call added no chunk */
        return;
    fbe_arena_chunk *head = budget->mark_head;
    while (arena->head && arena->head != head) {
        fbe_arena_chunk *c = arena->head;
        arena->head = c->next;
        free_chunk(arena, c);
    }
    fbe_arena_chunk *h = arena->head;
    arena->end = h ? h->data + h->size : NULL;
    arena->chunk_size = budget->mark_chunk_size;
}

void *fbe_arena_zalloc(fbe_arena *arena, size_t size)
{
    void *p = fbe_arena_alloc(arena, size);
    if (p)
        memset(p, 0, size);
    return p;
}

char *fbe_arena_strndup(fbe_arena *arena, const char *s, size_t len)
{
    if (len == SIZE_MAX)
        return NULL;
    char *p = fbe_arena_alloc(arena, len + 1);
    if (!p)
        return NULL;
    if (len)
        memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *fbe_arena_strdup(fbe_arena *arena, const char *s)
{
    return fbe_arena_strndup(arena, s, strlen(s));
}

char *fbe_arena_printf(fbe_arena *arena, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *p = fbe_arena_alloc(arena, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

/* Keeps the largest chunk of regular size: an arena reset after every message
 * then settles on one chunk that fits the message, with no allocation per
 * message. Keeping the first (smallest) chunk instead freed and reallocated the
 * grown chunks on every cycle, 1 MB at a time once chunk_size had grown. A chunk
 * bigger than ARENA_MAX_CHUNK exists for one oversized request and is not kept. */
void fbe_arena_reset(fbe_arena *arena)
{
    fbe_arena_chunk *head = arena->head;
    if (head && !head->next && head->size <= ARENA_MAX_CHUNK) {
        /* the settled case (one chunk fits the message): rewind only */
        arena->ptr = head->data;
        arena->end = head->data + head->size;
        return;
    }
    fbe_arena_chunk *keep = NULL;
    for (fbe_arena_chunk *c = arena->head; c; c = c->next)
        if (c->size <= ARENA_MAX_CHUNK && (!keep || c->size > keep->size))
            keep = c;
    fbe_arena_chunk *c = arena->head;
    while (c) {
        fbe_arena_chunk *next = c->next;
        if (c != keep)
            free_chunk(arena, c);
        c = next;
    }
    if (keep)
        keep->next = NULL;
    arena->head = keep;
    arena->ptr = keep ? keep->data : NULL;
    arena->end = keep ? keep->data + keep->size : NULL;
}

void fbe_arena_free(fbe_arena *arena)
{
    fbe_arena_chunk *c = arena->head;
    while (c) {
        fbe_arena_chunk *next = c->next;
        arena->alloc(arena->alloc_ctx, c, 0);
        c = next;
    }
    arena->head = NULL;
    arena->ptr = arena->end = NULL;
    arena->total = 0;
}
