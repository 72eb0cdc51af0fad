/* A hash map from addresses to integers (open addressing, linear probing),
 * for the writers that walk the IR and must name each object once: a linear
 * search per reference is quadratic in the schema. Keys are borrowed and never
 * NULL; memory from malloc, released by fbe_ptrmap_free. Internal. */
#ifndef FBE_RUNTIME_PTRMAP_H
#define FBE_RUNTIME_PTRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct fbe_ptrmap {
    const void **keys;
    uintptr_t *values;
    size_t cap, count; /* cap: 0 or a power of two, at least twice count */
} fbe_ptrmap;

static inline size_t fbe_ptrmap_hash(const void *p)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x;
}

/* Whether p is a key; its value in *value. */
static inline bool fbe_ptrmap_find(const fbe_ptrmap *m, const void *p, uintptr_t *value)
{
    if (!m->cap || !p)
        return false;
    for (size_t j = fbe_ptrmap_hash(p) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1))
        if (m->keys[j] == p) {
            *value = m->values[j];
            return true;
        }
    return false;
}

static inline bool fbe_ptrmap_grow_(fbe_ptrmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 256;
    const void **keys = calloc(cap, sizeof *keys);
    uintptr_t *values = calloc(cap, sizeof *values);
    if (!keys || !values) {
        free(keys);
        free(values);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        size_t j = fbe_ptrmap_hash(m->keys[i]) & (cap - 1);
        while (keys[j])
            j = (j + 1) & (cap - 1);
        keys[j] = m->keys[i];
        values[j] = m->values[i];
    }
    free(m->keys);
    free(m->values);
    m->keys = keys;
    m->values = values;
    m->cap = cap;
    return true;
}

/* The value slot of p (p != NULL), added with value 0 when new (*added set);
 * NULL: out of memory. */
static inline uintptr_t *fbe_ptrmap_slot(fbe_ptrmap *m, const void *p, bool *added)
{
    if ((m->count + 1) * 2 > m->cap && !fbe_ptrmap_grow_(m))
        return NULL;
    size_t j = fbe_ptrmap_hash(p) & (m->cap - 1);
    while (m->keys[j] && m->keys[j] != p)
        j = (j + 1) & (m->cap - 1);
    *added = !m->keys[j];
    if (*added) {
        m->keys[j] = p;
        m->values[j] = 0;
        m->count++;
    }
    return &m->values[j];
}

static inline void fbe_ptrmap_free(fbe_ptrmap *m)
{
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}

#endif
