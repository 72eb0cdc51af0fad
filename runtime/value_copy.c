/* Deep copy of host values into an arena (docs/keys.md): every view the value
 * holds (strings, bytes, collections, optional structs) is copied, so the copy
 * is independent of the original's memory and writable (what normalization of a
 * const value needs). */
#include <string.h>

#include "value_internal.h"

static fbe_status copy_type(const fbe_ir_type *t, char *dst, fbe_arena *arena, unsigned depth);

/* dst already holds a bitwise copy of the source struct: replace its views. */
static fbe_status copy_struct(const fbe_ir_struct *s, char *dst, fbe_arena *arena,
                              unsigned depth)
{
    if (depth > FBE_VALUE_MAX_DEPTH)
        return FBE_TOO_DEEP;
    for (size_t i = 0; i < s->field_count; i++) {
        const fbe_ir_field *f = &s->fields[i];
        fbe_status st = copy_type(f->type, dst + f->host_offset, arena, depth);
        if (st != FBE_OK)
            return st;
    }
    return FBE_OK;
}

/* A copy of n bytes from src in the arena; n == 0 gives NULL. */
static fbe_status dup_bytes(fbe_arena *arena, const void *src, size_t n, void **out)
{
    *out = NULL;
    if (!n)
        return FBE_OK;
    void *p = fbe_arena_alloc(arena, n);
    if (!p)
        return FBE_NOMEM;
    memcpy(p, src, n);
    *out = p;
    return FBE_OK;
}

static fbe_status copy_elems(const fbe_ir_type *elem, char *data, size_t n, size_t stride,
                             fbe_arena *arena, unsigned depth)
{
    for (size_t i = 0; i < n; i++) {
        fbe_status st = copy_type(elem, data + i * stride, arena, depth);
        if (st != FBE_OK)
            return st;
    }
    return FBE_OK;
}

/* dst holds a bitwise copy of a value of type t: make its views the arena's own. */
static fbe_status copy_type(const fbe_ir_type *t, char *dst, fbe_arena *arena, unsigned depth)
{
    switch (t->kind) {
    case FBE_IR_STRING:
    case FBE_IR_BYTES:
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        fbe_seq s = value_seq(dst);
        bool scalar = t->kind == FBE_IR_STRING || t->kind == FBE_IR_BYTES;
        size_t stride = scalar ? 1 : value_stride(t);
        /* Zero-size elements (empty structs have host size 1, so only in theory)
         * and sizes past the address space cannot be copied. */
        if (stride == 0 || s.size > SIZE_MAX / stride) {
            memset(dst, 0, sizeof s);
            return FBE_TOO_LARGE;
        }
        void *copy;
        fbe_status st = dup_bytes(arena, s.data, s.size * stride, &copy);
        fbe_seq out = {copy, st == FBE_OK ? s.size : 0};
        memcpy(dst, &out, sizeof out);
        if (st != FBE_OK || scalar || !out.size)
            return st;
        if (fbe_ir_kind_is_keyed(t->kind)) {
            for (size_t i = 0; i < out.size; i++) {
                char *e = (char *)copy + i * stride;
                st = copy_type(t->key, e, arena, depth);
                if (st == FBE_OK)
                    st = copy_type(t->elem, e + t->host_entry_value_offset, arena, depth);
                if (st != FBE_OK)
                    return st;
            }
            return FBE_OK;
        }
        return copy_elems(t->elem, copy, out.size, stride, arena, depth);
    }
    case FBE_IR_STRUCT:
        return copy_struct(t->struct_type, dst, arena, depth + 1);
    case FBE_IR_OPTIONAL:
        if (t->elem->kind == FBE_IR_STRUCT) {
            const void *src = value_ptr(dst);
            if (!src)
                return FBE_OK;
            const fbe_ir_struct *s = t->elem->struct_type;
            void *copy;
            fbe_status st = dup_bytes(arena, src, s->host_size, &copy);
            memcpy(dst, &copy, sizeof copy);
            return st == FBE_OK ? copy_struct(s, copy, arena, depth + 1) : st;
        }
        if (!(*(const unsigned char *)dst))
            return FBE_OK;
        return copy_type(t->elem, dst + t->host_value_offset, arena, depth);
    case FBE_IR_ARRAY:
        return copy_elems(t->elem, dst, t->array_len, t->elem->host_size, arena, depth);
    default:
        return FBE_OK; /* no views */
    }
}

fbe_status fbe_value_copy(const fbe_ir_struct *type, void *dst, const void *src,
                          fbe_arena *arena)
{
    if (!type || !dst || !src || !arena)
        return FBE_INVALID_ARGUMENT;
    if (dst != src)
        memmove(dst, src, type->host_size);
    return copy_struct(type, dst, arena, 1);
}

fbe_status fbe_value_normalized_copy(const fbe_ir_struct *type, void *dst, const void *src,
                                     fbe_arena *arena)
{
    fbe_status st = fbe_value_copy(type, dst, src, arena);
    return st == FBE_OK ? fbe_value_normalize(type, dst) : st;
}
