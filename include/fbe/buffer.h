/* Output buffers: growable (owned) or caller memory that is never overflowed. */
#ifndef FBE_BUFFER_H
#define FBE_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fbe/arena.h"
#include "fbe/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fbe_buffer {
    uint8_t *data;
    size_t size;     /* bytes written so far */
    size_t capacity;
    bool fixed;      /* caller memory: reserve beyond capacity fails with FBE_TOO_SMALL */
    fbe_alloc_fn alloc;
    void *alloc_ctx;
    /* A sink (fbe_buffer_init_sink): rather than grow, the buffer hands its
     * contents to flush and starts over, so long output never sits whole in memory. */
    fbe_status (*flush)(void *ctx, const void *data, size_t len);
    void *flush_ctx;
    size_t flushed; /* bytes handed to flush so far */
} fbe_buffer;

/* Growable buffer using malloc (alloc == NULL) or the given allocator. */
void fbe_buffer_init(fbe_buffer *buf, fbe_alloc_fn alloc, void *alloc_ctx);

/* Writes go into `memory`; nothing is ever allocated. */
void fbe_buffer_init_fixed(fbe_buffer *buf, void *memory, size_t capacity);

/* A growable buffer (malloc) that passes its contents to `flush` whenever an
 * append would take it past `chunk` bytes, and in fbe_buffer_flush. One append
 * larger than chunk still grows it to fit. A flush failure is the append's status. */
void fbe_buffer_init_sink(fbe_buffer *buf, fbe_status (*flush)(void *ctx, const void *data,
                                                               size_t len),
                          void *flush_ctx, size_t chunk);

/* Hands what a sink holds to its flush (OK for other buffers: nothing to do). */
fbe_status fbe_buffer_flush(fbe_buffer *buf);

/* Where the next byte goes, counting what a sink flushed: a mark for truncate. */
static inline size_t fbe_buffer_position(const fbe_buffer *buf)
{
    return buf->flushed + buf->size;
}

/* Drops what was appended after `position`, except what a sink already flushed. */
static inline void fbe_buffer_truncate(fbe_buffer *buf, size_t position)
{
    buf->size = position > buf->flushed ? position - buf->flushed : 0;
}

/* Ensures room for `extra` more bytes after `size`. */
fbe_status fbe_buffer_reserve(fbe_buffer *buf, size_t extra);

/* Appends bytes (reserving as needed). */
fbe_status fbe_buffer_append(fbe_buffer *buf, const void *data, size_t len);

/* Forgets the contents, keeps the memory. */
void fbe_buffer_clear(fbe_buffer *buf);

/* Releases owned memory (no-op for fixed buffers). */
void fbe_buffer_free(fbe_buffer *buf);

#ifdef __cplusplus
}
#endif

#endif
