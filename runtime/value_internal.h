/* Shared by runtime/value*.c: reading host values by the IR (docs/host-abi.md). */
#ifndef FBE_RUNTIME_VALUE_INTERNAL_H
#define FBE_RUNTIME_VALUE_INTERNAL_H

#include <string.h>

#include "fbe/value.h"

/* A collection field (vector, list, set, map, hash): {data, size}. */
static inline fbe_seq value_seq(const void *p)
{
    fbe_seq s;
    memcpy(&s, p, sizeof s);
    return s;
}

/* The size of one element (or map entry) of collection type t. */
static inline size_t value_stride(const fbe_ir_type *t)
{
    return fbe_ir_kind_is_keyed(t->kind) ? t->host_entry_size
                                                           : t->elem->host_size;
}

/* The type a set or map is ordered by: the element of a set, the key of a map. */
static inline const fbe_ir_type *value_order_type(const fbe_ir_type *t)
{
    return t->kind == FBE_IR_SET ? t->elem : t->key;
}

/* An optional struct is a pointer (NULL = absent). */
static inline const void *value_ptr(const void *p)
{
    const void *q;
    memcpy(&q, p, sizeof q);
    return q;
}

/* The depth-counted versions behind the public functions. */
int fbe_value__compare_type(const fbe_ir_type *t, const void *a, const void *b, unsigned depth);

#endif
