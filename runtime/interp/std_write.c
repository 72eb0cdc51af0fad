/* The interpreter's standard-model writer (wire-format.md 3.5, docs/codec.md).
 *
 * Two passes over the host value, both walking the lowered program:
 *   1. struct_total: the exact frame size (one addition per string, optional and
 *      collection; scalar fields cost nothing);
 *   2. after one fbe_buffer_reserve, the bytes, written with a bump cursor and no
 *      further checks: every write_* routine fills all inline bytes it owns
 *      (absent optionals get a zero flag and a zero offset), so no block needs
 *      zero-filling first.
 * Extra data is appended depth-first at the moment each field is written; a
 * collection's block is allocated whole before any element's extras. */
#include <string.h>

#include "program.h"

/* Sizes are accumulated in 64 bits and stop growing usefully once they pass
 * this cap (the frame is then TOO_LARGE anyway): single sizes and counts above
 * it are clamped to it and every loop stops once the sum reaches it, so no sum
 * can wrap, even for a host value whose views alias the same huge array many
 * times. interp_std_size is exact whenever the frame fits in 32 bits. */
#define SIZE_CAP ((uint64_t)UINT32_MAX + 1)

#if defined(__GNUC__)
#define UNREACHABLE() __builtin_unreachable()
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define UNREACHABLE() ((void)0)
#define UNLIKELY(x) (x)
#endif

static inline bool op_is_scalar(uint8_t op)
{
    return op <= OP_COPY16;
}

/* ---- pass 1: size ------------------------------------------------------------ */

static uint64_t struct_total(const interp_prog *prog, const uint8_t *host, uint64_t acc);
static uint64_t seq_extra(const interp_node *n, const uint8_t *host, uint64_t acc);

static inline uint64_t string_extra(const uint8_t *host)
{
    fbe_bytes s;
    memcpy(&s, host, sizeof s);
    return 4 + (s.size < SIZE_CAP ? (uint64_t)s.size : SIZE_CAP);
}

/* The bytes of a collection block: 4 + count * inline size. */
static inline uint64_t block_size(size_t count, uint32_t inline_size)
{
    return 4 + (count < SIZE_CAP ? (uint64_t)count * inline_size : SIZE_CAP);
}

static inline uint64_t opt_struct_extra(const interp_node *n, const uint8_t *host, uint64_t acc)
{
    const uint8_t *p;
    memcpy(&p, host, sizeof p);
    return p ? struct_total(n->prog, p, acc + 4) : acc;
}

/* acc + the extra bytes (outside the inline part) of the value at `host`. */
static uint64_t node_extra(const interp_node *n, const uint8_t *host, uint64_t acc)
{
    switch ((interp_op)n->op) {
    case OP_BOOL:
    case OP_COPY1:
    case OP_COPY2:
    case OP_COPY4:
    case OP_COPY8:
    case OP_COPY16:
        return acc;
    case OP_STRING:
        return acc + string_extra(host);
    case OP_STRUCT:
        return struct_total(n->prog, host, acc);
    case OP_OPTIONAL:
        if (!*host) /* has_value: read as a byte, any non-zero is true */
            return acc;
        return node_extra(n->elem, host + n->host_value_offset, acc + n->elem->std_size);
    case OP_OPT_STRUCT:
        return opt_struct_extra(n, host, acc);
    case OP_ARRAY: {
        const interp_node *e = n->elem;
        if (op_is_scalar(e->op))
            return acc;
        for (uint32_t i = 0; i < n->count && acc < SIZE_CAP; i++)
            acc = node_extra(e, host + (size_t)i * e->host_size, acc);
        return acc;
    }
    case OP_SEQ:
        return seq_extra(n, host, acc);
    case OP_MAP: {
        const fbe_seq *s = (const fbe_seq *)host;
        const interp_node *k = n->key, *v = n->elem;
        size_t count = s->size;
        acc += block_size(count, k->std_size + v->std_size);
        if (op_is_scalar(k->op) && op_is_scalar(v->op))
            return acc;
        const uint8_t *d = s->data;
        for (size_t i = 0; i < count && acc < SIZE_CAP; i++) {
            const uint8_t *entry = d + i * n->entry_size;
            acc = node_extra(k, entry, acc);
            acc = node_extra(v, entry + n->entry_value_offset, acc);
        }
        return acc;
    }
    }
    return acc;
}

static uint64_t seq_extra(const interp_node *n, const uint8_t *host, uint64_t acc)
{
    const fbe_seq *s = (const fbe_seq *)host;
    const interp_node *e = n->elem;
    size_t count = s->size, hs = e->host_size;
    acc += block_size(count, e->std_size);
    const uint8_t *d = s->data;
    switch ((interp_op)e->op) {
    case OP_BOOL:
    case OP_COPY1:
    case OP_COPY2:
    case OP_COPY4:
    case OP_COPY8:
    case OP_COPY16:
        return acc;
    case OP_STRING:
        for (size_t i = 0; i < count && acc < SIZE_CAP; i++)
            acc += string_extra(d + i * hs);
        return acc;
    case OP_STRUCT:
        for (size_t i = 0; i < count && acc < SIZE_CAP; i++)
            acc = struct_total(e->prog, d + i * hs, acc);
        return acc;
    default:
        for (size_t i = 0; i < count && acc < SIZE_CAP; i++)
            acc = node_extra(e, d + i * hs, acc);
        return acc;
    }
}

/* acc + a struct body and all of its extras. */
static uint64_t struct_total(const interp_prog *prog, const uint8_t *host, uint64_t acc)
{
    acc += prog->std_body_size;
    const interp_field *f = prog->fields, *end = f + prog->field_count;
    for (; f < end; f++) {
        uint8_t op = f->node.op;
        if (op_is_scalar(op))
            continue;
        const uint8_t *h = host + f->host_offset;
        switch ((interp_op)op) {
        case OP_STRING: /* adds at most 2^32 + 4: no check needed */
            acc += string_extra(h);
            continue;
        case OP_STRUCT:
            acc = struct_total(f->node.prog, h, acc);
            break;
        case OP_OPT_STRUCT:
            acc = opt_struct_extra(&f->node, h, acc);
            break;
        case OP_SEQ:
            acc = seq_extra(&f->node, h, acc);
            break;
        case OP_OPTIONAL:
        case OP_ARRAY:
        case OP_MAP:
            acc = node_extra(&f->node, h, acc);
            break;
        default:
            UNREACHABLE(); /* scalars were skipped above */
        }
        if (UNLIKELY(acc >= SIZE_CAP))
            return acc;
    }
    return acc;
}

static uint64_t frame_size(const fbe_type *type, const void *value)
{
    return struct_total(interp_prog_of(type), value, 8);
}

size_t interp_std_size(const fbe_type *type, const void *value)
{
    uint64_t n = frame_size(type, value);
    return n > SIZE_MAX ? SIZE_MAX : (size_t)n;
}

/* ---- pass 2: bytes ----------------------------------------------------------- */

/* The bump cursor: the next free byte of the frame. */
typedef struct writer {
    uint8_t *end;
} writer;

static inline uint8_t *alloc_bytes(writer *w, size_t n)
{
    uint8_t *p = w->end;
    w->end += n;
    return p;
}

static void write_struct(writer *w, const interp_prog *prog, const uint8_t *host, uint8_t *pos,
                         const uint8_t *base);
static void write_seq(writer *w, const interp_node *n, const uint8_t *host, uint8_t *pos,
                      const uint8_t *base);

static inline void write_string(writer *w, const uint8_t *host, uint8_t *pos, const uint8_t *base)
{
    fbe_bytes s;
    memcpy(&s, host, sizeof s);
    uint8_t *blk = alloc_bytes(w, 4 + s.size);
    wr32(pos, (uint32_t)(blk - base));
    wr32(blk, (uint32_t)s.size);
    if (s.size)
        memcpy(blk + 4, s.data, s.size);
}

static inline void write_opt_struct(writer *w, const interp_node *n, const uint8_t *host,
                                    uint8_t *pos, const uint8_t *base)
{
    const uint8_t *p;
    memcpy(&p, host, sizeof p);
    if (p) {
        uint8_t *slot = alloc_bytes(w, 4);
        pos[0] = 1;
        wr32(pos + 1, (uint32_t)(slot - base));
        write_struct(w, n->prog, p, slot, slot);
    } else {
        pos[0] = 0;
        wr32(pos + 1, 0);
    }
}

/* Writes the inline part of value `host` of type `n` at `pos`; offsets stored in
 * it are relative to `base`. */
static void write_value(writer *w, const interp_node *n, const uint8_t *host, uint8_t *pos,
                        const uint8_t *base)
{
    switch ((interp_op)n->op) {
    case OP_BOOL:
        *pos = *host != 0;
        return;
    case OP_COPY1:
        *pos = *host;
        return;
    case OP_COPY2:
        memcpy(pos, host, 2);
        return;
    case OP_COPY4:
        memcpy(pos, host, 4);
        return;
    case OP_COPY8:
        memcpy(pos, host, 8);
        return;
    case OP_COPY16:
        memcpy(pos, host, 16);
        return;
    case OP_STRING:
        write_string(w, host, pos, base);
        return;
    case OP_STRUCT:
        write_struct(w, n->prog, host, pos, base);
        return;
    case OP_OPTIONAL:
        if (*host) {
            const interp_node *e = n->elem;
            uint8_t *slot = alloc_bytes(w, e->std_size);
            pos[0] = 1;
            wr32(pos + 1, (uint32_t)(slot - base));
            write_value(w, e, host + n->host_value_offset, slot, slot);
        } else {
            pos[0] = 0;
            wr32(pos + 1, 0);
        }
        return;
    case OP_OPT_STRUCT:
        write_opt_struct(w, n, host, pos, base);
        return;
    case OP_ARRAY: {
        const interp_node *e = n->elem;
        if (e->op != OP_BOOL && op_is_scalar(e->op) && e->host_size == e->std_size) {
            memcpy(pos, host, (size_t)n->count * e->std_size);
            return;
        }
        for (uint32_t i = 0; i < n->count; i++)
            write_value(w, e, host + (size_t)i * e->host_size, pos + (size_t)i * e->std_size,
                        base);
        return;
    }
    case OP_SEQ:
        write_seq(w, n, host, pos, base);
        return;
    case OP_MAP: {
        const fbe_seq *s = (const fbe_seq *)host;
        const interp_node *k = n->key, *v = n->elem;
        size_t count = s->size, ks = k->std_size, es = ks + v->std_size;
        uint8_t *blk = alloc_bytes(w, 4 + count * es);
        wr32(pos, (uint32_t)(blk - base));
        wr32(blk, (uint32_t)count);
        const uint8_t *d = s->data;
        uint8_t *out = blk + 4;
        for (size_t i = 0; i < count; i++) {
            const uint8_t *entry = d + i * n->entry_size;
            write_value(w, k, entry, out + i * es, base);
            write_value(w, v, entry + n->entry_value_offset, out + i * es + ks, base);
        }
        return;
    }
    }
}

static void write_seq(writer *w, const interp_node *n, const uint8_t *host, uint8_t *pos,
                      const uint8_t *base)
{
    const fbe_seq *s = (const fbe_seq *)host;
    const interp_node *e = n->elem;
    size_t count = s->size, es = e->std_size, hs = e->host_size;
    uint8_t *blk = alloc_bytes(w, 4 + count * es);
    wr32(pos, (uint32_t)(blk - base));
    wr32(blk, (uint32_t)count);
    if (!count)
        return;
    const uint8_t *d = s->data;
    uint8_t *out = blk + 4;
    switch ((interp_op)e->op) {
    case OP_COPY1:
    case OP_COPY2:
    case OP_COPY4:
    case OP_COPY8:
    case OP_COPY16:
        if (hs == es) {
            memcpy(out, d, count * es);
            return;
        }
        break;
    case OP_STRING:
        for (size_t i = 0; i < count; i++)
            write_string(w, d + i * hs, out + i * es, base);
        return;
    case OP_STRUCT:
        for (size_t i = 0; i < count; i++)
            write_struct(w, e->prog, d + i * hs, out + i * es, base);
        return;
    default:
        break;
    }
    for (size_t i = 0; i < count; i++)
        write_value(w, e, d + i * hs, out + i * es, base);
}

/* Allocates a struct body, stores its offset (relative to `base`) at `pos` and
 * writes the header and every field. */
static void write_struct(writer *w, const interp_prog *prog, const uint8_t *host, uint8_t *pos,
                         const uint8_t *base)
{
    uint8_t *body = alloc_bytes(w, prog->std_body_size);
    wr32(pos, (uint32_t)(body - base));
    wr32(body, prog->std_body_size);
    wr32(body + 4, prog->type_number);
    const interp_field *f = prog->fields, *end = f + prog->field_count;
    for (; f < end; f++) {
        const uint8_t *h = host + f->host_offset;
        uint8_t *p = body + f->std_offset;
        switch ((interp_op)f->node.op) {
        case OP_BOOL:
            *p = *h != 0;
            break;
        case OP_COPY1:
            *p = *h;
            break;
        case OP_COPY2:
            memcpy(p, h, 2);
            break;
        case OP_COPY4:
            memcpy(p, h, 4);
            break;
        case OP_COPY8:
            memcpy(p, h, 8);
            break;
        case OP_COPY16:
            memcpy(p, h, 16);
            break;
        case OP_STRING:
            write_string(w, h, p, body);
            break;
        case OP_STRUCT:
            write_struct(w, f->node.prog, h, p, body);
            break;
        case OP_OPT_STRUCT:
            write_opt_struct(w, &f->node, h, p, body);
            break;
        case OP_SEQ:
            write_seq(w, &f->node, h, p, body);
            break;
        case OP_OPTIONAL:
        case OP_ARRAY:
        case OP_MAP:
            write_value(w, &f->node, h, p, body);
            break;
        default:
            UNREACHABLE(); /* lowering only produces interp_op values */
        }
    }
}

fbe_status interp_std_serialize(const fbe_type *type, const void *value, fbe_buffer *out)
{
    if (!type || !value || !out)
        return FBE_INVALID_ARGUMENT;
    uint64_t total = frame_size(type, value);
    if (total > UINT32_MAX)
        return FBE_TOO_LARGE;
    fbe_status st = fbe_buffer_reserve(out, (size_t)total);
    if (st != FBE_OK)
        return st;
    uint8_t *frame = out->data + out->size;
    writer w = {frame + 8};
    write_struct(&w, interp_prog_of(type), value, frame + 4, frame);
    wr32(frame, (uint32_t)total);
    out->size += (size_t)total;
    return FBE_OK;
}
