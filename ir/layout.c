/* Wire layouts (standard and final model) and the C host layout: computed here
 * and nowhere else. The rules are written down in docs/host-abi.md and
 * ../shared/spec/wire-format.md section 1. */
#include "resolve.h"

/* Every size and offset is computed in 64 bits and stored saturated at
 * UINT32_MAX: arrays of 65536 elements of structs of up to FBE_IR_MAX_SIZE
 * bytes reach 2^46, so 32-bit arithmetic would wrap to small, wrong sizes.
 * A saturated value is above FBE_IR_MAX_SIZE, so the resolver rejects the type
 * (fbe_ir_type_too_large) before any backend sees it. */
static uint32_t sat32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static uint64_t align_up(uint64_t v, uint32_t a)
{
    return (v + a - 1) / a * a;
}

static uint32_t max_u32(uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

unsigned fbe_ir_kind_bits(fbe_ir_kind kind)
{
    switch (kind) {
    case FBE_IR_BOOL: case FBE_IR_BYTE: case FBE_IR_CHAR: case FBE_IR_INT8: case FBE_IR_UINT8:
        return 8;
    case FBE_IR_INT16: case FBE_IR_UINT16:
        return 16;
    case FBE_IR_WCHAR: case FBE_IR_INT32: case FBE_IR_UINT32: case FBE_IR_FLOAT:
        return 32;
    default:
        return 64;
    }
}

/* Size = alignment for every scalar host type except the 16-byte ones. */
static void scalar_layout(fbe_ir_type *t, fbe_ir_kind kind)
{
    static const uint8_t std_size[] = {
#define FBE_IR_KIND_SIZE_(k, s, n) n,
        FBE_IR_KINDS(FBE_IR_KIND_SIZE_)
#undef FBE_IR_KIND_SIZE_
    };
    uint32_t size = std_size[kind];
    t->std_inline_size = size;
    t->final_fixed = true;
    t->final_size = size;
    switch (kind) {
    case FBE_IR_DECIMAL:
        t->host_size = 16;
        t->host_align = 8;
        break;
    case FBE_IR_UUID:
        t->host_size = 16;
        t->host_align = 1;
        break;
    default:
        t->host_size = size;
        t->host_align = size;
        break;
    }
}

/* Shallow layout: this node, plus the optional/array elements it stores inline.
 * Collection elements are laid out later by fbe_layout_type_deep, because a
 * struct may hold a vector of itself. */
void fbe_layout_type(fbe_ir_type *t)
{
    switch (t->kind) {
    case FBE_IR_ENUM:
        scalar_layout(t, t->enum_type->base);
        break;
    case FBE_IR_FLAGS:
        scalar_layout(t, t->flags_type->base);
        break;
    case FBE_IR_STRING:
    case FBE_IR_BYTES:
        t->std_inline_size = 4;
        t->final_fixed = false;
        t->final_size = 0;
        t->host_size = 16; /* {pointer, size_t} */
        t->host_align = 8;
        break;
    case FBE_IR_STRUCT:
        t->std_inline_size = 4;
        t->final_fixed = t->struct_type->final_fixed;
        t->final_size = t->struct_type->final_size;
        t->host_size = t->struct_type->host_size;
        t->host_align = t->struct_type->host_align;
        break;
    case FBE_IR_OPTIONAL: {
        fbe_ir_type *inner = (fbe_ir_type *)t->elem;
        fbe_layout_type(inner);
        t->std_inline_size = 5;
        t->final_fixed = false;
        t->final_size = 0;
        if (inner->kind == FBE_IR_STRUCT) {
            t->host_size = 8; /* pointer, NULL = absent */
            t->host_align = 8;
            t->host_value_offset = 0;
        } else {
            t->host_align = max_u32(1, inner->host_align);
            t->host_value_offset = sat32(align_up(1, inner->host_align));
            t->host_size = sat32(align_up((uint64_t)t->host_value_offset + inner->host_size,
                                          t->host_align));
        }
        break;
    }
    case FBE_IR_ARRAY: {
        fbe_ir_type *elem = (fbe_ir_type *)t->elem;
        fbe_layout_type(elem);
        t->std_inline_size = sat32((uint64_t)t->array_len * elem->std_inline_size);
        t->final_fixed = elem->final_fixed;
        t->final_size = elem->final_fixed ? sat32((uint64_t)t->array_len * elem->final_size) : 0;
        t->host_size = sat32((uint64_t)t->array_len * elem->host_size);
        t->host_align = elem->host_align;
        break;
    }
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH:
        t->std_inline_size = 4;
        t->final_fixed = false;
        t->final_size = 0;
        t->host_size = 16; /* {pointer, size_t} */
        t->host_align = 8;
        break;
    default:
        scalar_layout(t, t->kind);
        break;
    }
}

void fbe_layout_type_deep(fbe_ir_type *t)
{
    fbe_layout_type(t);
    if (t->elem)
        fbe_layout_type_deep((fbe_ir_type *)t->elem);
    if (t->key)
        fbe_layout_type_deep((fbe_ir_type *)t->key);
    if (fbe_ir_kind_is_keyed(t->kind)) {
        const fbe_ir_type *k = t->key, *v = t->elem;
        uint32_t align = max_u32(k->host_align, v->host_align);
        t->host_entry_value_offset = sat32(align_up(k->host_size, v->host_align));
        t->host_entry_size =
            sat32(align_up((uint64_t)t->host_entry_value_offset + v->host_size, align));
    }
}

/* Requires the base and every struct embedded by value to be laid out already.
 * The field list is flattened: the base's fields (copied with their offsets)
 * come first. */
void fbe_layout_struct(fbe_ir_struct *st)
{
    fbe_ir_field *fields = (fbe_ir_field *)st->fields;
    uint64_t std_pos = 8, host_pos = 0, final_size = 0;
    uint32_t host_align = 1;
    bool final_fixed = true;
    if (st->base) {
        std_pos = st->base->std_body_size;
        host_pos = st->base->host_size;
        host_align = st->base->host_align;
        final_fixed = st->base->final_fixed;
        final_size = st->base->final_size;
    }
    for (size_t i = st->own_field_start; i < st->field_count; i++) {
        fbe_ir_field *f = &fields[i];
        fbe_ir_type *t = (fbe_ir_type *)f->type;
        fbe_layout_type(t);
        /* Each term is at most UINT32_MAX and there are fewer than 2^32 fields:
         * the 64-bit sums cannot wrap. */
        f->std_offset = sat32(std_pos);
        std_pos += t->std_inline_size;
        host_pos = align_up(host_pos, t->host_align);
        f->host_offset = sat32(host_pos);
        host_pos += t->host_size;
        host_align = max_u32(host_align, t->host_align);
        if (t->final_fixed)
            final_size += t->final_size;
        else
            final_fixed = false;
    }
    if (st->field_count == 0) {
        host_pos = 1; /* C11 has no empty structs: one placeholder byte */
    }
    st->std_body_size = sat32(std_pos);
    st->host_align = host_align;
    st->host_size = sat32(align_up(host_pos, host_align));
    st->final_fixed = final_fixed;
    st->final_size = final_fixed ? sat32(final_size) : 0;
}

bool fbe_ir_type_too_large(const fbe_ir_type *t)
{
    return t->std_inline_size > FBE_IR_MAX_SIZE || t->final_size > FBE_IR_MAX_SIZE ||
           t->host_size > FBE_IR_MAX_SIZE || t->host_entry_size > FBE_IR_MAX_SIZE;
}

bool fbe_ir_struct_too_large(const fbe_ir_struct *st)
{
    return st->std_body_size > FBE_IR_MAX_SIZE || st->final_size > FBE_IR_MAX_SIZE ||
           st->host_size > FBE_IR_MAX_SIZE;
}
