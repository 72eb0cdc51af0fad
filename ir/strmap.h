/* A string-keyed hash map for the resolver's symbol tables: declarations, enum
 * values, field names. Scanning arrays made checking a schema quadratic in its
 * size (100,000 enum values took 21 s). Open addressing, memory from the
 * resolver's arena, keys borrowed (they live in the AST or the IR). */
#ifndef FBE_IR_STRMAP_H
#define FBE_IR_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fbe/arena.h"

typedef struct fbe_strmap {
    const char **keys;
    void **values;
    size_t mask; /* capacity - 1; capacity is a power of two */
    size_t count;
    fbe_arena *arena;
} fbe_strmap;

static inline uint64_t fbe_strmap_hash(const char *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
    return h ^ (h >> 29);
}

static inline bool fbe_strmap_alloc(fbe_strmap *m, size_t capacity)
{
    m->keys = fbe_arena_zalloc(m->arena, capacity * sizeof *m->keys);
    m->values = fbe_arena_zalloc(m->arena, capacity * sizeof *m->values);
    m->mask = capacity - 1;
    m->count = 0;
    return m->keys && m->values;
}

/* Room for `expected` keys without growing. */
static inline bool fbe_strmap_init(fbe_strmap *m, fbe_arena *arena, size_t expected)
{
    size_t capacity = 16;
    while (capacity < expected * 2)
        capacity *= 2;
    m->arena = arena;
    return fbe_strmap_alloc(m, capacity);
}

static inline size_t fbe_strmap_slot(const fbe_strmap *m, const char *key)
{
    size_t i = (size_t)fbe_strmap_hash(key) & m->mask;
    while (m->keys[i] && strcmp(m->keys[i], key) != 0)
        i = (i + 1) & m->mask;
    return i;
}

/* NULL if absent. */
static inline void *fbe_strmap_get(const fbe_strmap *m, const char *key)
{
    if (!m->keys)
        return NULL;
    size_t i = fbe_strmap_slot(m, key);
    return m->keys[i] ? m->values[i] : NULL;
}

/* Adds or replaces; value must not be NULL. False: out of memory. */
static inline bool fbe_strmap_put(fbe_strmap *m, const char *key, void *value)
{
    if ((m->count + 1) * 2 > m->mask + 1) {
        fbe_strmap old = *m;
        if (!fbe_strmap_alloc(m, (old.mask + 1) * 2))
            return false;
        for (size_t i = 0; i <= old.mask; i++)
            if (old.keys[i]) {
                size_t j = fbe_strmap_slot(m, old.keys[i]);
                m->keys[j] = old.keys[i];
                m->values[j] = old.values[i];
                m->count++;
            }
    }
    size_t i = fbe_strmap_slot(m, key);
    if (!m->keys[i])
        m->count++;
    m->keys[i] = key;
    m->values[i] = value;
    return true;
}

#endif
