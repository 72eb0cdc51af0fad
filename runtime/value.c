/* Keys by reflection (docs/keys.md): compare, equal and hash of host values over
 * the IR, the runtime twins of the generated pkg_T_compare/_equal/_hash (which
 * tools/gen_header.c writes with the same fbe_key_* primitives), and deep
 * equality of every field. */
#include <string.h>

#include "value_internal.h"

static int64_t load_signed(const void *p, uint32_t size)
{
    switch (size) {
    case 1: { int8_t x; memcpy(&x, p, 1); return x; }
    case 2: { int16_t x; memcpy(&x, p, 2); return x; }
    case 4: { int32_t x; memcpy(&x, p, 4); return x; }
    default: { int64_t x; memcpy(&x, p, 8); return x; }
    }
}

static uint64_t load_unsigned(const void *p, uint32_t size)
{
    switch (size) {
    case 1: { uint8_t x; memcpy(&x, p, 1); return x; }
    case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
    case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
    default: { uint64_t x; memcpy(&x, p, 8); return x; }
    }
}

/* Signed in the reference's C++: the signed integers, and `char` and `wchar_t`
 * on x86-64 Linux (wire-format.md §3.7, host-abi.md note 1). */
static bool key_signed(fbe_ir_kind k)
{
    return k == FBE_IR_INT8 || k == FBE_IR_INT16 || k == FBE_IR_INT32 || k == FBE_IR_INT64 ||
           k == FBE_IR_CHAR || k == FBE_IR_WCHAR;
}

static float load_float(const void *p)
{
    float f;
    memcpy(&f, p, 4);
    return f;
}

static double load_double(const void *p)
{
    double d;
    memcpy(&d, p, 8);
    return d;
}

static bool load_bool(const void *p)
{
    return *(const unsigned char *)p != 0;
}

/* ---- compare ---------------------------------------------------------------------- */

static int compare_struct(const fbe_ir_struct *s, const char *a, const char *b, unsigned depth)
{
    if (depth > FBE_VALUE_MAX_DEPTH)
        return 0;
    if (s->base) {
        int c = compare_struct(s->base, a, b, depth);
        if (c)
            return c;
    }
    for (size_t i = s->own_field_start; i < s->field_count; i++) {
        const fbe_ir_field *f = &s->fields[i];
        if (!f->is_key)
            continue;
        int c = fbe_value__compare_type(f->type, a + f->host_offset, b + f->host_offset, depth);
        if (c)
            return c;
    }
    return 0;
}

/* Lexicographic over n elements of `stride` bytes, then by count. */
static int compare_elems(const fbe_ir_type *elem, const char *a, size_t an, const char *b,
                         size_t bn, size_t stride, unsigned depth)
{
    size_t n = an < bn ? an : bn;
    for (size_t i = 0; i < n; i++) {
        int c = fbe_value__compare_type(elem, a + i * stride, b + i * stride, depth);
        if (c)
            return c;
    }
    return fbe_key_cmp_u64(an, bn);
}

static int compare_entries(const fbe_ir_type *t, fbe_seq a, fbe_seq b, unsigned depth)
{
    size_t n = a.size < b.size ? a.size : b.size;
    for (size_t i = 0; i < n; i++) {
        const char *ea = (const char *)a.data + i * t->host_entry_size;
        const char *eb = (const char *)b.data + i * t->host_entry_size;
        int c = fbe_value__compare_type(t->key, ea, eb, depth);
        if (!c)
            c = fbe_value__compare_type(t->elem, ea + t->host_entry_value_offset,
                                        eb + t->host_entry_value_offset, depth);
        if (c)
            return c;
    }
    return fbe_key_cmp_u64(a.size, b.size);
}

int fbe_value__compare_type(const fbe_ir_type *t, const void *pa, const void *pb, unsigned depth)
{
    const char *a = pa, *b = pb;
    fbe_ir_kind k = fbe_ir_base_kind(t);
    switch (k) {
    case FBE_IR_BOOL:
        return fbe_key_cmp_u64(load_bool(a), load_bool(b));
    case FBE_IR_FLOAT:
        return fbe_key_cmp_double(load_float(a), load_float(b));
    case FBE_IR_DOUBLE:
        return fbe_key_cmp_double(load_double(a), load_double(b));
    case FBE_IR_DECIMAL: {
        fbe_decimal x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        return fbe_key_cmp_decimal(&x, &y);
    }
    case FBE_IR_UUID:
        return fbe_key_cmp_bytes(a, 16, b, 16);
    case FBE_IR_STRING:
    case FBE_IR_BYTES: {
        fbe_seq x = value_seq(a), y = value_seq(b);
        return fbe_key_cmp_bytes(x.data, x.size, y.data, y.size);
    }
    case FBE_IR_STRUCT:
        return compare_struct(t->struct_type, a, b, depth + 1);
    case FBE_IR_OPTIONAL:
        if (t->elem->kind == FBE_IR_STRUCT) {
            const void *x = value_ptr(a), *y = value_ptr(b);
            if (!x || !y)
                return (x != NULL) - (y != NULL);
            return compare_struct(t->elem->struct_type, x, y, depth + 1);
        } else {
            bool x = load_bool(a), y = load_bool(b);
            if (!x || !y)
                return (int)x - (int)y;
            return fbe_value__compare_type(t->elem, a + t->host_value_offset,
                                           b + t->host_value_offset, depth);
        }
    case FBE_IR_ARRAY:
        return compare_elems(t->elem, a, t->array_len, b, t->array_len, t->elem->host_size,
                             depth);
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET: {
        fbe_seq x = value_seq(a), y = value_seq(b);
        return compare_elems(t->elem, x.data, x.size, y.data, y.size, t->elem->host_size,
                             depth);
    }
    case FBE_IR_MAP:
    case FBE_IR_HASH:
        return compare_entries(t, value_seq(a), value_seq(b), depth);
    default:
        if (key_signed(k))
            return fbe_key_cmp_i64(load_signed(a, t->host_size), load_signed(b, t->host_size));
        return fbe_key_cmp_u64(load_unsigned(a, t->host_size), load_unsigned(b, t->host_size));
    }
}

int fbe_value_compare(const fbe_ir_struct *type, const void *a, const void *b)
{
    return compare_struct(type, a, b, 1);
}

bool fbe_value_equal(const fbe_ir_struct *type, const void *a, const void *b)
{
    return compare_struct(type, a, b, 1) == 0;
}

int fbe_value_compare_type(const fbe_ir_type *type, const void *a, const void *b)
{
    return fbe_value__compare_type(type, a, b, 0);
}

/* ---- hash ------------------------------------------------------------------------- */

static size_t hash_type(const fbe_ir_type *t, const char *v, unsigned depth);

/* The reference's recipe: 17, the base's hash, then each key field's. */
static size_t hash_struct(const fbe_ir_struct *s, const char *v, unsigned depth)
{
    size_t h = 17;
    if (depth > FBE_VALUE_MAX_DEPTH)
        return h;
    if (s->base)
        h = h * 31 + hash_struct(s->base, v, depth);
    for (size_t i = s->own_field_start; i < s->field_count; i++) {
        const fbe_ir_field *f = &s->fields[i];
        if (f->is_key)
            h = h * 31 + hash_type(f->type, v + f->host_offset, depth);
    }
    return h;
}

static size_t hash_type(const fbe_ir_type *t, const char *v, unsigned depth)
{
    fbe_ir_kind k = fbe_ir_base_kind(t);
    switch (k) {
    case FBE_IR_BOOL:
        return load_bool(v);
    case FBE_IR_FLOAT:
        return fbe_key_hash_float(load_float(v));
    case FBE_IR_DOUBLE:
        return fbe_key_hash_double(load_double(v));
    case FBE_IR_DECIMAL: {
        fbe_decimal d;
        memcpy(&d, v, sizeof d);
        return fbe_key_hash_decimal(&d);
    }
    case FBE_IR_UUID: {
        fbe_uuid u;
        memcpy(&u, v, sizeof u);
        return fbe_key_hash_uuid(&u);
    }
    case FBE_IR_STRING:
    case FBE_IR_BYTES: {
        fbe_seq s = value_seq(v);
        return (size_t)fbe_hash_bytes(s.data, s.size, FBE_KEY_HASH_SEED);
    }
    case FBE_IR_STRUCT:
        return hash_struct(t->struct_type, v, depth + 1);
    case FBE_IR_OPTIONAL:
        if (t->elem->kind == FBE_IR_STRUCT) {
            const void *p = value_ptr(v);
            return p ? hash_struct(t->elem->struct_type, p, depth + 1) : FBE_KEY_HASH_ABSENT;
        }
        return load_bool(v) ? hash_type(t->elem, v + t->host_value_offset, depth)
                            : FBE_KEY_HASH_ABSENT;
    case FBE_IR_ARRAY: {
        size_t h = 17;
        for (uint32_t i = 0; i < t->array_len; i++)
            h = h * 31 + hash_type(t->elem, v + (size_t)i * t->elem->host_size, depth);
        return h;
    }
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET: {
        fbe_seq s = value_seq(v);
        size_t h = 17;
        for (size_t i = 0; i < s.size; i++)
            h = h * 31 + hash_type(t->elem, (const char *)s.data + i * t->elem->host_size, depth);
        return h;
    }
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        fbe_seq s = value_seq(v);
        size_t h = 17;
        for (size_t i = 0; i < s.size; i++) {
            const char *e = (const char *)s.data + i * t->host_entry_size;
            h = h * 31 + hash_type(t->key, e, depth);
            h = h * 31 + hash_type(t->elem, e + t->host_entry_value_offset, depth);
        }
        return h;
    }
    default:
        if (key_signed(k))
            return fbe_key_hash_i64(load_signed(v, t->host_size));
        return fbe_key_hash_u64(load_unsigned(v, t->host_size));
    }
}

size_t fbe_value_hash(const fbe_ir_struct *type, const void *value)
{
    return hash_struct(type, value, 1);
}

size_t fbe_value_hash_type(const fbe_ir_type *type, const void *value)
{
    return hash_type(type, value, 0);
}

/* ---- deep equality ------------------------------------------------------------------- */

static bool equal_type(const fbe_ir_type *t, const char *a, const char *b, unsigned depth);

static bool equal_struct(const fbe_ir_struct *s, const char *a, const char *b, unsigned depth)
{
    if (depth > FBE_VALUE_MAX_DEPTH)
        return true;
    for (size_t i = 0; i < s->field_count; i++) {
        const fbe_ir_field *f = &s->fields[i];
        if (!equal_type(f->type, a + f->host_offset, b + f->host_offset, depth))
            return false;
    }
    return true;
}

static bool equal_elems(const fbe_ir_type *elem, const char *a, const char *b, size_t n,
                        size_t stride, unsigned depth)
{
    for (size_t i = 0; i < n; i++)
        if (!equal_type(elem, a + i * stride, b + i * stride, depth))
            return false;
    return true;
}

static bool equal_type(const fbe_ir_type *t, const char *a, const char *b, unsigned depth)
{
    switch (t->kind) {
    case FBE_IR_BOOL:
        return load_bool(a) == load_bool(b);
    case FBE_IR_STRING:
    case FBE_IR_BYTES: {
        fbe_seq x = value_seq(a), y = value_seq(b);
        return x.size == y.size && (!x.size || memcmp(x.data, y.data, x.size) == 0);
    }
    case FBE_IR_STRUCT:
        return equal_struct(t->struct_type, a, b, depth + 1);
    case FBE_IR_OPTIONAL:
        if (t->elem->kind == FBE_IR_STRUCT) {
            const void *x = value_ptr(a), *y = value_ptr(b);
            if (!x || !y)
                return x == y;
            return equal_struct(t->elem->struct_type, x, y, depth + 1);
        }
        if (load_bool(a) != load_bool(b))
            return false;
        return !load_bool(a) ||
               equal_type(t->elem, a + t->host_value_offset, b + t->host_value_offset, depth);
    case FBE_IR_ARRAY:
        return equal_elems(t->elem, a, b, t->array_len, t->elem->host_size, depth);
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        fbe_seq x = value_seq(a), y = value_seq(b);
        if (x.size != y.size)
            return false;
        if (fbe_ir_kind_is_keyed(t->kind)) {
            for (size_t i = 0; i < x.size; i++) {
                const char *ea = (const char *)x.data + i * t->host_entry_size;
                const char *eb = (const char *)y.data + i * t->host_entry_size;
                if (!equal_type(t->key, ea, eb, depth) ||
                    !equal_type(t->elem, ea + t->host_entry_value_offset,
                                eb + t->host_entry_value_offset, depth))
                    return false;
            }
            return true;
        }
        return equal_elems(t->elem, x.data, y.data, x.size, t->elem->host_size, depth);
    }
    default:
        /* Numbers, uuids, decimals, enums, flags: the representation (every such
         * host type has no padding). */
        return memcmp(a, b, t->host_size) == 0;
    }
}

bool fbe_value_equal_all(const fbe_ir_struct *type, const void *a, const void *b)
{
    return equal_struct(type, a, b, 1);
}
