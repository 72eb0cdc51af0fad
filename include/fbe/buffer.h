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
} fbe_buffer;

/* Growable buffer using malloc (alloc == NULL) or the given allocator. */
void fbe_buffer_init(fbe_buffer *buf, fbe_alloc_fn alloc, void *alloc_ctx);

/* Writes go into `memory`; nothing is ever allocated. */
void fbe_buffer_init_fixed(fbe_buffer *buf, void *memory, size_t capacity);

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
