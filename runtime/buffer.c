#include "fbe/buffer.h"

#include <stdlib.h>
#include <string.h>

static void *default_alloc(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    if (size == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, size);
}

void fbe_buffer_init(fbe_buffer *buf, fbe_alloc_fn alloc, void *alloc_ctx)
{
    memset(buf, 0, sizeof *buf);
    buf->alloc = alloc ? alloc : default_alloc;
    buf->alloc_ctx = alloc_ctx;
}

void fbe_buffer_init_fixed(fbe_buffer *buf, void *memory, size_t capacity)
{
    memset(buf, 0, sizeof *buf);
    buf->data = memory;
    buf->capacity = capacity;
    buf->fixed = true;
}

void fbe_buffer_init_sink(fbe_buffer *buf, fbe_status (*flush)(void *ctx, const void *data,
                                                               size_t len),
                          void *flush_ctx, size_t chunk)
{
    fbe_buffer_init(buf, NULL, NULL);
    buf->flush = flush;
    buf->flush_ctx = flush_ctx;
    /* the whole chunk at once; if that fails, growth starts small as usual */
    buf->capacity = 0;
    buf->data = chunk ? buf->alloc(buf->alloc_ctx, NULL, chunk) : NULL;
    if (buf->data)
        buf->capacity = chunk;
}

fbe_status fbe_buffer_flush(fbe_buffer *buf)
{
    if (!buf->flush || !buf->size)
        return FBE_OK;
    fbe_status st = buf->flush(buf->flush_ctx, buf->data, buf->size);
    if (st != FBE_OK)
        return st;
    buf->flushed += buf->size;
    buf->size = 0;
    return FBE_OK;
}

fbe_status fbe_buffer_reserve(fbe_buffer *buf, size_t extra)
{
    if (extra <= buf->capacity - buf->size)
        return FBE_OK;
    if (buf->fixed)
        return FBE_TOO_SMALL;
    if (buf->flush && buf->size) {
        fbe_status st = fbe_buffer_flush(buf);
        if (st != FBE_OK || extra <= buf->capacity)
            return st;
    }
    if (extra > SIZE_MAX / 2 - buf->size)
        return FBE_NOMEM;
    size_t need = buf->size + extra;
    size_t cap = buf->capacity ? buf->capacity : 256;
    while (cap < need)
        cap *= 2;
    uint8_t *data = buf->alloc(buf->alloc_ctx, buf->data, cap);
    if (!data)
        return FBE_NOMEM;
    buf->data = data;
    buf->capacity = cap;
    return FBE_OK;
}

fbe_status fbe_buffer_append(fbe_buffer *buf, const void *data, size_t len)
{
    fbe_status st = fbe_buffer_reserve(buf, len);
    if (st != FBE_OK)
        return st;
    if (len)
        memcpy(buf->data + buf->size, data, len);
    buf->size += len;
    return FBE_OK;
}

void fbe_buffer_clear(fbe_buffer *buf)
{
    buf->size = 0;
}

void fbe_buffer_free(fbe_buffer *buf)
{
    if (!buf->fixed && buf->data)
        buf->alloc(buf->alloc_ctx, buf->data, 0);
    buf->data = NULL;
    buf->size = buf->capacity = 0;
}
