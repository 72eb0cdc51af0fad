/* The order of sets and maps (docs/keys.md, wire-format.md §3.7): normalization
 * to what the reference's std::set / std::map hold, the strict check of decoded
 * values, and binary search by key. */
#include <stdlib.h>
#include <string.h>

#include "value_internal.h"

/* ---- walking every collection of a value ------------------------------------------- */

/* What to do with each set, map and hash found (after its elements were visited):
 * `p` points to the {data, size} field of type t, declared by field f. */
typedef fbe_status (*coll_fn)(void *ctx, const fbe_ir_type *t, char *p, const fbe_ir_field *f);

typedef struct walker {
    coll_fn fn;
    void *ctx;
} walker;

static fbe_status walk_type(const walker *w, const fbe_ir_type *t, char *p,
                            const fbe_ir_field *f, unsigned depth);

static fbe_status walk_struct(const walker *w, const fbe_ir_struct *s, char *p, unsigned depth)
{
    if (depth > FBE_VALUE_MAX_DEPTH)
        return FBE_TOO_DEEP;
    for (size_t i = 0; i < s->field_count; i++) {
        const fbe_ir_field *f = &s->fields[i];
        fbe_status st = walk_type(w, f->type, p + f->host_offset, f, depth);
        if (st != FBE_OK)
            return st;
    }
    return FBE_OK;
}

/* Can a value of t hold a set, map or hash (so that walking its elements
 * matters)? Structs are assumed to: searching them could take exponential time. */
static bool holds_collection(const fbe_ir_type *t)
{
    switch (t->kind) {
    case FBE_IR_OPTIONAL:
    case FBE_IR_ARRAY:
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
        return holds_collection(t->elem);
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH:
    case FBE_IR_STRUCT:
        return true;
    default:
        return false;
    }
}

static fbe_status walk_elems(const walker *w, const fbe_ir_type *elem, char *data, size_t n,
                             size_t stride, const fbe_ir_field *f, unsigned depth)
{
    if (!holds_collection(elem))
        return FBE_OK;
    for (size_t i = 0; i < n; i++) {
        fbe_status st = walk_type(w, elem, data + i * stride, f, depth);
        if (st != FBE_OK)
            return st;
    }
    return FBE_OK;
}

static fbe_status walk_type(const walker *w, const fbe_ir_type *t, char *p,
                            const fbe_ir_field *f, unsigned depth)
{
    switch (t->kind) {
    case FBE_IR_STRUCT:
        return walk_struct(w, t->struct_type, p, depth + 1);
    case FBE_IR_OPTIONAL:
        if (t->elem->kind == FBE_IR_STRUCT) {
            char *q;
            memcpy(&q, p, sizeof q);
            return q ? walk_struct(w, t->elem->struct_type, q, depth + 1) : FBE_OK;
        }
        return *(unsigned char *)p ? walk_type(w, t->elem, p + t->host_value_offset, f, depth)
                                   : FBE_OK;
    case FBE_IR_ARRAY:
        return walk_elems(w, t->elem, p, t->array_len, t->elem->host_size, f, depth);
    case FBE_IR_VECTOR:
    case FBE_IR_LIST: {
        fbe_seq s = value_seq(p);
        return walk_elems(w, t->elem, s.data, s.size, t->elem->host_size, f, depth);
    }
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        fbe_seq s = value_seq(p);
        fbe_status st;
        if (t->kind == FBE_IR_SET) {
            st = walk_elems(w, t->elem, s.data, s.size, t->elem->host_size, f, depth);
        } else {
            st = walk_elems(w, t->key, s.data, s.size, t->host_entry_size, f, depth);
            if (st == FBE_OK)
                st = walk_elems(w, t->elem, (char *)s.data + t->host_entry_value_offset,
                                s.size, t->host_entry_size, f, depth);
        }
        return st == FBE_OK ? w->fn(w->ctx, t, p, f) : st;
    }
    default:
        return FBE_OK;
    }
}

/* ---- normalize ------------------------------------------------------------------------ */

typedef struct sorter {
    const fbe_ir_type *key; /* what elements are ordered by */
    const char *data;
    size_t stride;
} sorter;

static int cmp_at(const sorter *s, size_t i, size_t j)
{
    return fbe_value__compare_type(s->key, s->data + i * s->stride, s->data + j * s->stride, 0);
}

/* Stable bottom-up merge sort of idx[0..n) by key (tmp: n more). */
static void sort_indices(const sorter *s, size_t *idx, size_t *tmp, size_t n)
{
    for (size_t width = 1; width < n; width = width > n / 2 ? n : width * 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = mid + width < n ? mid + width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = cmp_at(s, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
            while (i < mid)
                tmp[k++] = idx[i++];
            while (j < hi)
                tmp[k++] = idx[j++];
        }
        memcpy(idx, tmp, n * sizeof *idx);
    }
}

static fbe_status normalize_coll(void *ctx, const fbe_ir_type *t, char *p, const fbe_ir_field *f)
{
    (void)ctx;
    (void)f;
    fbe_seq seq = value_seq(p);
    if (seq.size < 2)
        return FBE_OK;
    size_t n = seq.size, stride = value_stride(t);
    if (n > SIZE_MAX / 2 / sizeof(size_t) || n > SIZE_MAX / stride)
        return FBE_NOMEM;
    size_t *idx = malloc(2 * n * sizeof *idx);
    char *out = malloc(n * stride);
    if (!idx || !out) {
        free(idx);
        free(out);
        return FBE_NOMEM;
    }
    size_t *tmp = idx + n;
    sorter s = {value_order_type(t), seq.data, stride};
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    sort_indices(&s, idx, tmp, n);
    /* Stable: the first of each run of equal keys is the first inserted. */
    size_t kept = 0;
    if (t->kind == FBE_IR_HASH) {
        /* Keep the order; drop every element whose key appeared earlier. */
        memset(tmp, 0, n * sizeof *tmp);
        for (size_t i = 0; i < n; i++)
            tmp[idx[i]] = i == 0 || cmp_at(&s, idx[i - 1], idx[i]) != 0;
        for (size_t i = 0; i < n; i++)
            if (tmp[i])
                memcpy(out + kept++ * stride, s.data + i * stride, stride);
    } else {
        size_t last = 0;
        for (size_t i = 0; i < n; i++) {
            if (i > 0 && cmp_at(&s, last, idx[i]) == 0)
                continue;
            last = idx[i];
            memcpy(out + kept++ * stride, s.data + idx[i] * stride, stride);
        }
    }
    memcpy(seq.data, out, kept * stride);
    seq.size = kept;
    memcpy(p, &seq, sizeof seq);
    free(idx);
    free(out);
    return FBE_OK;
}

fbe_status fbe_value_normalize(const fbe_ir_struct *type, void *value)
{
    if (!type || !value)
        return FBE_INVALID_ARGUMENT;
    walker w = {normalize_coll, NULL};
    return walk_struct(&w, type, value, 1);
}

/* ---- strict order ---------------------------------------------------------------------- */

static fbe_status check_coll(void *ctx, const fbe_ir_type *t, char *p, const fbe_ir_field *f)
{
    if (t->kind == FBE_IR_HASH)
        return FBE_OK;
    fbe_seq seq = value_seq(p);
    sorter s = {value_order_type(t), seq.data, value_stride(t)};
    for (size_t i = 1; i < seq.size; i++) {
        if (cmp_at(&s, i - 1, i) >= 0) {
            *(const fbe_ir_field **)ctx = f;
            return FBE_UNORDERED;
        }
    }
    return FBE_OK;
}

fbe_status fbe_value_check_order(const fbe_ir_struct *type, const void *value,
                                 const fbe_ir_field **field)
{
    const fbe_ir_field *where = NULL;
    if (field)
        *field = NULL;
    if (!type || !value)
        return FBE_INVALID_ARGUMENT;
    walker w = {check_coll, &where};
    /* The walker takes writable pointers for normalize; checking only reads. */
    fbe_status st = walk_struct(&w, type, (char *)(uintptr_t)value, 1);
    if (field)
        *field = where;
    return st;
}

/* ---- lookup ------------------------------------------------------------------------------- */

const void *fbe_value_find(const fbe_ir_type *type, const void *collection, const void *key)
{
    if (!type || !collection || !key || (type->kind != FBE_IR_SET && type->kind != FBE_IR_MAP))
        return NULL;
    fbe_seq seq = value_seq(collection);
    const fbe_ir_type *kt = value_order_type(type);
    size_t stride = value_stride(type), lo = 0, hi = seq.size;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *e = (const char *)seq.data + mid * stride;
        int c = fbe_value__compare_type(kt, e, key, 0);
        if (c == 0)
            return e;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}
