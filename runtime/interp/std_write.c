/* The interpreter's standard-model writer (wire-format.md 3.5, docs/codec.md).
 *
 * Two passes over the host value, both walking the lowered program:
 *   1. struct_total: the exact frame size. Only the fields whose extra bytes
 *      depend on the value are visited (std_size_strings, std_size_steps:
 *      strings, optionals, collections, also inside structs held by value);
 *      everything else is one constant per struct (interp_prog.std_const);
 *   2. after one fbe_buffer_reserve, the bytes, written with a bump cursor and no
 *      further checks: every write routine fills all inline bytes it owns
 *      (absent optionals get a zero flag and a zero offset), so no block needs
 *      zero-filling first. Runs of adjacent scalars are one copy each
 *      (std_steps).
 * Extra data is appended depth-first at the moment each field is written; a
 * collection's block is allocated whole before any element's extras. */
#include <stddef.h>
#include <string.h>

#include "program.h"
#include "../port.h"

/* Sizes are accumulated in 64 bits and stop growing usefully once they pass
 * this cap (the frame is then TOO_LARGE anyway): single sizes and counts above
 * it are clamped to it and every loop stops once the sum reaches it, so no sum
 * can wrap, even for a host value whose views alias the same huge array many
 * times. fbe_interp_std_size is exact whenever the frame fits in 32 bits; above, its
 * value is still a fixed function of the host value (the native backends
 * reproduce it): that of the field-by-field walk in struct_total_exact. */

static inline bool op_is_scalar(uint8_t op)
{
    return op <= OP_COPY16;
}

/* ---- pass 1: size ------------------------------------------------------------ */

static uint64_t struct_total(const interp_prog *prog, const uint8_t *host, uint64_t acc);
static uint64_t seq_extra(const interp_node *n, const uint8_t *host, uint64_t acc);

static inline uint64_t opt_struct_extra(const interp_prog *prog, const uint8_t *host, uint64_t acc)
{
    const uint8_t *p;
    memcpy(&p, host, sizeof p);
    return p ? struct_total(prog, p, acc + 4) : acc;
}

/* acc + the extra bytes (outside the inline part) of the value at `host`. */
static uint64_t node_extra(const interp_node *n, const uint8_t *host, uint64_t acc)
{
    switch ((interp_op)n->op) {
    CASE_SCALAR_OPS:
        return acc;
    case OP_STRING:
        return acc + sc_str_extra(host);
    case OP_STRUCT:
        return struct_total(n->prog, host, acc);
    case OP_OPTIONAL:
        if (!*host) /* has_value: read as a byte, any non-zero is true */
            return acc;
        return node_extra(n->elem, host + n->host_value_offset, acc + n->elem->std_size);
    case OP_OPT_STRUCT:
        return opt_struct_extra(n->prog, host, acc);
    case OP_ARRAY: {
        const interp_node *e = n->elem;
        if (op_is_scalar(e->op))
            return acc;
        for (uint32_t i = 0; i < n->count && acc < FBE_SIZE_CAP; i++)
            acc = node_extra(e, host + (size_t)i * e->host_size, acc);
        return acc;
    }
    case OP_SEQ:
        return seq_extra(n, host, acc);
    case OP_MAP: {
        const fbe_seq *s = (const fbe_seq *)host;
        const interp_node *k = n->key, *v = n->elem;
        size_t count = s->size;
        acc += sc_block(count, k->std_size + v->std_size);
        if (op_is_scalar(k->op) && op_is_scalar(v->op))
            return acc;
        const uint8_t *d = s->data;
        for (size_t i = 0; i < count && acc < FBE_SIZE_CAP; i++) {
            const uint8_t *entry = d + i * n->entry_size;
            acc = node_extra(k, entry, acc);
            acc = node_extra(v, entry + n->entry_value_offset, acc);
        }
        return acc;
    }
    }
    return acc;
}

static uint64_t struct_total_exact(const interp_prog *prog, const uint8_t *host, uint64_t acc);

/* The lengths of the strings of a struct (interp_prog.std_size_strings). */
static inline uint64_t add_strings(const interp_prog *prog, const uint8_t *host, uint64_t sum)
{
    const uint32_t *at = prog->std_size_strings, *end = at + prog->std_size_string_count;
    for (; at < end; at++) {
        size_t len;
        memcpy(&len, host + *at + offsetof(fbe_bytes, size), sizeof len);
        sum += len < FBE_SIZE_CAP ? (uint64_t)len : FBE_SIZE_CAP;
    }
    return sum;
}

static uint64_t seq_extra(const interp_node *n, const uint8_t *host, uint64_t acc)
{
    const fbe_seq *s = (const fbe_seq *)host;
    const interp_node *e = n->elem;
    size_t count = s->size, hs = e->host_size;
    acc += sc_block(count, e->std_size);
    const uint8_t *d = s->data;
    switch ((interp_op)e->op) {
    CASE_SCALAR_OPS:
        return acc;
    case OP_STRING:
        for (size_t i = 0; i < count && acc < FBE_SIZE_CAP; i++)
            acc += sc_str_extra(d + i * hs);
        return acc;
    case OP_STRUCT: {
        const interp_prog *prog = e->prog;
        if (prog->std_size_steps.count == 0) {
            /* struct_total inline: a constant and some strings per element */
            for (size_t i = 0; i < count && acc < FBE_SIZE_CAP; i++) {
                const uint8_t *h = d + i * hs;
                uint64_t sum = add_strings(prog, h, acc + prog->std_const);
                acc = LIKELY(sum < FBE_SIZE_CAP) ? sum : struct_total_exact(prog, h, acc);
            }
            return acc;
        }
        for (size_t i = 0; i < count && acc < FBE_SIZE_CAP; i++)
            acc = struct_total(prog, d + i * hs, acc);
        return acc;
    }
    default:
        for (size_t i = 0; i < count && acc < FBE_SIZE_CAP; i++)
            acc = node_extra(e, d + i * hs, acc);
        return acc;
    }
}

/* acc + a struct body and all of its extras, field by field: the definition of
 * the size, including where it stops growing once it reaches FBE_SIZE_CAP. */
static COLD uint64_t struct_total_exact(const interp_prog *prog, const uint8_t *host, uint64_t acc)
{
    acc += prog->std_body_size;
    const interp_field *f = prog->fields, *end = f + prog->field_count;
    for (; f < end; f++) {
        uint8_t op = f->node.op;
        if (op_is_scalar(op))
            continue;
        const uint8_t *h = host + f->host_offset;
        if (op == OP_STRING) { /* adds at most 2^32 + 4: no check needed */
            acc += sc_str_extra(h);
            continue;
        }
        acc = node_extra(&f->node, h, acc);
        if (acc >= FBE_SIZE_CAP)
            return acc;
    }
    return acc;
}

/* The same number from the lists of the lowering: the constant part (body,
 * fixed extras, string headers) at once, then the string lengths, then the other
 * fields whose extras vary. When the sum stays below FBE_SIZE_CAP no step of the
 * exact walk can have stopped early, so both agree; otherwise the exact walk
 * decides (the frame is TOO_LARGE then anyway). */
static uint64_t struct_total(const interp_prog *prog, const uint8_t *host, uint64_t acc)
{
    uint64_t sum = add_strings(prog, host, acc + prog->std_const);
    const interp_step *s = prog->std_size_steps.at;
    /* Structs whose size has no steps (a constant and strings) are added inline:
     * this sum only grows, so the check at the end covers them. */
    STEP_BEGIN(Z, s)
    STEP_CASE(Z, SO_OPT_STRUCT): {
        const uint8_t *p;
        memcpy(&p, host + s->host_offset, sizeof p);
        if (p) {
            const interp_prog *sub = s->prog;
            sum = sub->std_size_steps.count ? struct_total(sub, p, sum + 4)
                                            : add_strings(sub, p, sum + 4 + sub->std_const);
        }
        STEP_NEXT(Z, s);
    }
    STEP_CASE(Z, SO_SEQ): {
        const interp_prog *sub = s->prog; /* the element's, if a struct */
        if (sub && !sub->std_size_steps.count) {
            const fbe_seq *q = (const fbe_seq *)(host + s->host_offset);
            const uint8_t *d = q->data;
            size_t count = q->size, hs = s->node->elem->host_size;
            sum += sc_block(count, s->node->elem->std_size);
            for (size_t i = 0; i < count && sum < FBE_SIZE_CAP; i++)
                sum = add_strings(sub, d + i * hs, sum + sub->std_const);
        } else {
            sum = seq_extra(s->node, host + s->host_offset, sum);
        }
        STEP_NEXT(Z, s);
    }
    STEP_CASE(Z, SO_STRUCT): /* by value, too large to flatten: its body and extras */
        sum = struct_total(s->prog, host + s->host_offset, sum);
        STEP_NEXT(Z, s);
    STEP_CASE(Z, SO_OPTIONAL):
    STEP_CASE(Z, SO_ARRAY):
    STEP_CASE(Z, SO_MAP):
        sum = node_extra(s->node, host + s->host_offset, sum);
        STEP_NEXT(Z, s);
    STEP_COPIES(Z):
    STEP_CASE(Z, SO_BOOL):
    STEP_CASE(Z, SO_FIXED):
    STEP_CASE(Z, SO_STRING):
        UNREACHABLE(); /* strings are in the lists */
    STEP_LEVEL(Z, s, prog)
    STEP_CASE(Z, SO_END):
        if (UNLIKELY(sum >= FBE_SIZE_CAP))
            return struct_total_exact(prog, host, acc);
        return sum;
    STEP_FINISH
}

static uint64_t frame_size(const fbe_type *type, const void *value)
{
    return struct_total(interp_prog_of(type), value, 8);
}

size_t fbe_interp_std_size(const fbe_type *type, const void *value)
{
    uint64_t n = frame_size(type, value);
    return n > SIZE_MAX ? SIZE_MAX : (size_t)n;
}

/* ---- pass 2: bytes ----------------------------------------------------------- */

/* Every routine takes the bump cursor `end` (the next free byte of the frame)
 * and returns it past what it allocated. */

static uint8_t *write_struct(uint8_t *end, const interp_prog *prog, const uint8_t *host,
                             uint8_t *pos, const uint8_t *base);
static uint8_t *write_seq(uint8_t *end, const interp_node *n, const uint8_t *host, uint8_t *pos,
                          const uint8_t *base);

static inline uint8_t *write_opt_struct(uint8_t *end, const interp_prog *prog,
                                        const uint8_t *host, uint8_t *pos, const uint8_t *base)
{
    const uint8_t *p;
    memcpy(&p, host, sizeof p);
    if (p) {
        uint8_t *slot = end;
        pos[0] = 1;
        wr32(pos + 1, (uint32_t)(slot - base));
        return write_struct(end + 4, prog, p, slot, slot);
    }
    pos[0] = 0;
    wr32(pos + 1, 0);
    return end;
}

/* Writes the inline part of value `host` of type `n` at `pos`; offsets stored in
 * it are relative to `base`. */
static uint8_t *write_value(uint8_t *end, const interp_node *n, const uint8_t *host, uint8_t *pos,
                            const uint8_t *base)
{
    switch ((interp_op)n->op) {
    CASE_SCALAR_OPS:
        scalar_move(n->op, pos, host);
        return end;
    case OP_STRING:
        return sc_swrite_str(end, host, pos, base);
    case OP_STRUCT:
        return write_struct(end, n->prog, host, pos, base);
    case OP_OPTIONAL:
        if (*host) {
            const interp_node *e = n->elem;
            uint8_t *slot = end;
            pos[0] = 1;
            wr32(pos + 1, (uint32_t)(slot - base));
            return write_value(end + e->std_size, e, host + n->host_value_offset, slot, slot);
        }
        pos[0] = 0;
        wr32(pos + 1, 0);
        return end;
    case OP_OPT_STRUCT:
        return write_opt_struct(end, n->prog, host, pos, base);
    case OP_ARRAY: {
        const interp_node *e = n->elem;
        if (e->op != OP_BOOL && op_is_scalar(e->op) && e->host_size == e->std_size) {
            memcpy(pos, host, (size_t)n->count * e->std_size);
            return end;
        }
        for (uint32_t i = 0; i < n->count; i++)
            end = write_value(end, e, host + (size_t)i * e->host_size,
                              pos + (size_t)i * e->std_size, base);
        return end;
    }
    case OP_SEQ:
        return write_seq(end, n, host, pos, base);
    case OP_MAP: {
        const fbe_seq *s = (const fbe_seq *)host;
        const interp_node *k = n->key, *v = n->elem;
        size_t count = s->size, ks = k->std_size, es = ks + v->std_size;
        uint8_t *blk = end;
        end += 4 + count * es;
        wr32(pos, (uint32_t)(blk - base));
        wr32(blk, (uint32_t)count);
        const uint8_t *d = s->data;
        uint8_t *out = blk + 4;
        for (size_t i = 0; i < count; i++) {
            const uint8_t *entry = d + i * n->entry_size;
            end = write_value(end, k, entry, out + i * es, base);
            end = write_value(end, v, entry + n->entry_value_offset, out + i * es + ks, base);
        }
        return end;
    }
    }
    return end;
}

static uint8_t *write_seq(uint8_t *end, const interp_node *n, const uint8_t *host, uint8_t *pos,
                          const uint8_t *base)
{
    const fbe_seq *s = (const fbe_seq *)host;
    const interp_node *e = n->elem;
    size_t count = s->size, es = e->std_size, hs = e->host_size;
    uint8_t *blk = end;
    end += 4 + count * es;
    wr32(pos, (uint32_t)(blk - base));
    wr32(blk, (uint32_t)count);
    if (!count)
        return end;
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
            return end;
        }
        break;
    case OP_STRING:
        for (size_t i = 0; i < count; i++)
            end = sc_swrite_str(end, d + i * hs, out + i * es, base);
        return end;
    case OP_STRUCT: {
        const interp_prog *prog = e->prog;
        for (size_t i = 0; i < count; i++)
            end = write_struct(end, prog, d + i * hs, out + i * es, base);
        return end;
    }
    default:
        break;
    }
    for (size_t i = 0; i < count; i++)
        end = write_value(end, e, d + i * hs, out + i * es, base);
    return end;
}

/* Where write_struct goes back to when the struct it entered is written: the
 * enclosing struct (its next step), and, for a collection of structs, the
 * elements still to write. */
typedef struct wframe {
    const interp_prog *prog; /* the enclosing struct */
    const interp_step *s;  /* the enclosing struct's next step */
    const uint8_t *host;   /* ... its host value */
    uint8_t *body;         /* ... its body */
    size_t left;           /* collection elements still to write */
    const uint8_t *elem;   /* the next one's host value */
    uint8_t *slot;         /* the next one's offset in the block */
} wframe;

/* Structs nested deeper than this (through optionals and collections: a value's
 * own shape) are written by a recursive call. */
#define WRITE_STACK 32

/* Allocates a struct body at `end`, stores its offset (relative to `base`) at
 * `pos` and writes the header and every field. Nested structs (by value,
 * optional, collection elements) are entered in the same loop, with their
 * enclosing structs on a small stack: no call per struct. */
static uint8_t *write_struct(uint8_t *end, const interp_prog *prog, const uint8_t *host,
                             uint8_t *pos, const uint8_t *base)
{
    wframe stack[WRITE_STACK], *top = stack;
    const interp_step *s;
    const interp_prog *cur; /* the struct whose steps s walks */
    uint8_t *body;
enter: /* prog's value at host, its offset at pos relative to base */
    cur = prog;
    body = end;
    end += prog->std_body_size;
    wr32(pos, (uint32_t)(body - base));
    wr64(body, prog->std_header); /* struct size, type number */
    s = prog->std_steps.at;
/* the field's bytes in the host and on the wire */
#define H_ (host + s->host_offset)
#define W_ (body + s->std_offset)
/* enters `prog` at `host` from step s of the current struct */
#define PUSH_(n, e, sl)                                                 \
    *top++ = (wframe){.prog = cur, .s = s + 1, .host = host, .body = body, .left = (n), \
                      .elem = (e), .slot = (sl)}
    STEP_BEGIN(W, s)
    #define AFTER_(n) STEP_NEXT(W, s)
    STEP_COPY_CASES(W, W_, H_, s->len, STEP_NOTHING, AFTER_);
#undef AFTER_
    STEP_CASE(W, SO_BOOL):
        *W_ = *H_ != 0;
        STEP_NEXT(W, s);
    STEP_CASE(W, SO_STRING):
        end = sc_swrite_str(end, H_, W_, body);
        STEP_NEXT(W, s);
    STEP_CASE(W, SO_STRUCT):
        if (UNLIKELY(top == stack + WRITE_STACK)) {
            end = write_struct(end, s->prog, H_, W_, body);
            STEP_NEXT(W, s);
        }
        prog = s->prog;
        pos = W_;
        base = body;
        PUSH_(0, NULL, NULL);
        host = H_;
        goto enter;
    STEP_CASE(W, SO_OPT_STRUCT): {
        const uint8_t *p;
        memcpy(&p, H_, sizeof p);
        if (!p || UNLIKELY(top == stack + WRITE_STACK)) {
            end = write_opt_struct(end, s->prog, H_, W_, body);
            STEP_NEXT(W, s);
        }
        W_[0] = 1;
        wr32(W_ + 1, (uint32_t)(end - body));
        prog = s->prog;
        pos = end; /* the slot: the struct's offset, relative to itself */
        base = end;
        end += 4;
        PUSH_(0, NULL, NULL);
        host = p;
        goto enter;
    }
    STEP_CASE(W, SO_SEQ): {
        const fbe_seq *q = (const fbe_seq *)H_;
        if (!s->prog || !q->size || UNLIKELY(top == stack + WRITE_STACK)) {
            end = write_seq(end, s->node, H_, W_, body);
            STEP_NEXT(W, s);
        }
        /* write_seq's block, then its elements one after the other */
        size_t count = q->size, es = s->node->elem->std_size;
        uint8_t *blk = end;
        end += 4 + count * es;
        wr32(W_, (uint32_t)(blk - body));
        wr32(blk, (uint32_t)count);
        prog = s->prog;
        pos = blk + 4;
        base = body;
        PUSH_(count - 1, (const uint8_t *)q->data + s->node->elem->host_size, pos + es);
        host = q->data;
        goto enter;
    }
    STEP_CASE(W, SO_OPTIONAL):
    STEP_CASE(W, SO_ARRAY):
    STEP_CASE(W, SO_MAP):
        end = write_value(end, s->node, H_, W_, body);
        STEP_NEXT(W, s);
    STEP_CASE(W, SO_FIXED):
        UNREACHABLE(); /* final lists only */
    STEP_LEVEL(W, s, cur)
    STEP_CASE(W, SO_END):
        if (top == stack)
            return end;
        top--;
        if (top->left) { /* the next element of a collection */
            const interp_node *e = top->s[-1].node->elem;
            top->left--;
            prog = top->s[-1].prog;
            host = top->elem;
            pos = top->slot;
            base = top->body;
            top->elem += e->host_size;
            top->slot += e->std_size;
            top++;
            goto enter;
        }
        s = top->s;
        cur = top->prog;
        host = top->host;
        body = top->body;
        STEP_RESUME(W, s);
    STEP_FINISH
#undef H_
#undef W_
#undef PUSH_
}

fbe_status fbe_interp_std_serialize(const fbe_type *type, const void *value, fbe_buffer *out)
{
    if (!type || !value || !out)
        return FBE_INVALID_ARGUMENT;
    uint64_t total = frame_size(type, value);
    if (total > UINT32_MAX)
        return FBE_TOO_LARGE;
    if (out->capacity - out->size < total) { /* fbe_buffer_reserve's own test first */
        fbe_status st = fbe_buffer_reserve(out, (size_t)total);
        if (st != FBE_OK)
            return st;
    }
    uint8_t *frame = out->data + out->size;
    uint8_t *end = write_struct(frame + 8, interp_prog_of(type), value, frame + 4, frame);
    (void)end; /* == frame + total: struct_total and the writers mirror each other */
    wr32(frame, (uint32_t)total);
    out->size += (size_t)total;
    return FBE_OK;
}
