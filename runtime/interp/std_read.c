/* The interpreter's standard-model reader: verify and deserialize
 * (wire-format.md 3, 5.1, 6; docs/codec.md "Standard model").
 *
 * Both walk the lowered program in the same order and call the same check
 * helpers (chk_*), so for any input they stop at the same problem with the same
 * status. Every position is a 64-bit offset from the frame start; `size` is the
 * frame's full_size once the frame header has been checked, and every read is
 * preceded by a check that keeps it inside data[0..size).
 *
 * Limits: each struct body entered counts one level of depth (the root body is
 * level 1; a level deeper than max_depth is TOO_DEEP); every struct body, optional
 * slot, string block and collection block reached is charged against a budget of
 * full_size bytes (TRAVERSAL_LIMIT when a crafted buffer reaches the same bytes
 * over and over).
 *
 * Error positions (fbe_verify_info.offset), from the frame start:
 *   TRUNCATED, BAD_FRAME_SIZE      0 (the frame header)
 *   NULL_OFFSET, BAD_OFFSET        the u32 offset that is wrong (for an optional,
 *                                  the offset after its flag byte)
 *   BAD_STRUCT_SIZE, BAD_TYPE      the struct body's size / type field
 *   BAD_LENGTH, BAD_COUNT          the block's length / count field
 *   TOO_DEEP                       the offset that leads to the too-deep body
 *   TRAVERSAL_LIMIT                the start of the region that exhausted the budget
 * info->type / info->field: the struct and field being read (field NULL for the
 * frame header and the root reference).
 *
 * Speed without changing any of that: the loops walk the step lists of the
 * lowering (program.h). Verify visits only the fields that can fail (strings,
 * structs, optionals, collections: std_check_steps); deserialize copies runs of
 * adjacent scalars at once (std_steps). A struct header is first compared with
 * the reader's own 8 bytes (chk_struct_fast: same size and type, the common
 * case), and a struct whose checked fields are all strings is verified inline
 * (v_leaf); anything else, a shorter body included, goes through the checks one
 * by one, in the documented order. Such leaves (alone or as the elements of a
 * vector) are first checked as one yes/no with the budget in a register
 * (leaf_ok, seq_leaves): verify has no effect but the budget and the error, so
 * when the answer is no, the checks are made again one by one from the budget
 * they started with, and report exactly what the slow path would. */
#include <string.h>

#include "fbe/internal/static_c.h"
#include "program.h"
#include "../port.h"

/* The reader's state and its checks are the static C backend's (static_c.h):
 * the rules of the standard model, in their documented order, written once. */
typedef sc_rd reader;

static inline bool op_is_scalar(uint8_t op)
{
    return op <= OP_COPY16;
}

/* A struct reference's checks one by one (sc_chk_struct), kept out of line:
 * chk_struct is inlined everywhere and takes this path rarely. */
static COLD fbe_status chk_struct_slow(reader *r, const interp_prog *prog, uint64_t pos,
                                       uint64_t base, unsigned depth, uint64_t *body,
                                       uint32_t *ssize)
{
    return sc_chk_struct(r, prog->type_number, pos, base, depth, body, ssize);
}

/* The common case first: a body of the reader's own size and type (its 8
 * header bytes are interp_prog.std_header). When that holds with depth and
 * budget to spare, every check of chk_struct_slow passes and the budget is
 * charged: true, with the body at *body. Otherwise nothing has happened and
 * chk_struct_slow must decide. */
INLINE bool chk_struct_fast(reader *r, const interp_prog *prog, uint64_t pos, uint64_t base,
                            unsigned depth, uint64_t *body)
{
    const uint8_t *data = r->data;
    uint32_t off = rd32(data + pos);
    uint64_t b = base + off, bs = prog->std_body_size, hdr;
    if (LIKELY(off && b + bs <= r->size)) {
        memcpy(&hdr, data + b, 8);
        if (LIKELY(hdr == prog->std_header && depth <= r->max_depth && bs <= r->budget)) {
            r->budget -= bs;
            *body = b;
            return true;
        }
    }
    return false;
}

INLINE fbe_status chk_struct(reader *r, const interp_prog *prog, uint64_t pos, uint64_t base,
                             unsigned depth, uint64_t *body, uint32_t *ssize)
{
    if (LIKELY(chk_struct_fast(r, prog, pos, base, depth, body))) {
        *ssize = prog->std_body_size;
        return FBE_OK;
    }
    return chk_struct_slow(r, prog, pos, base, depth, body, ssize);
}

/* The fields of a body of `ssize` bytes that are present: those whose inline part
 * fits (field offsets increase, so they are a prefix). */
static inline size_t fields_present(const interp_prog *prog, uint32_t ssize)
{
    if (LIKELY(ssize >= prog->std_body_size))
        return prog->field_count;
    size_t n = 0;
    while (n < prog->field_count &&
           (uint64_t)prog->fields[n].std_offset + prog->fields[n].node.std_size <= ssize)
        n++;
    return n;
}

/* ---- verify ------------------------------------------------------------------ */

static fbe_status v_body(reader *r, const interp_prog *prog, uint64_t body, uint32_t ssize,
                         unsigned depth);
static fbe_status v_value(reader *r, const interp_node *n, uint64_t pos, uint64_t base,
                          unsigned depth);

/* The checks of v_leaf_slow as one yes/no, charging *budget (a local, so it
 * stays in a register): true exactly when they all pass, with the same charges.
 * On false *budget is partly charged and the caller starts again from its own
 * copy, so nothing but the answer depends on which check failed. */
INLINE bool leaf_ok_n(const uint8_t *data, uint64_t size, const interp_step *s, size_t nk,
                      uint64_t body, uint64_t *budget)
{
    for (size_t k = nk; k; k--, s++) {
        uint32_t off = rd32(data + body + s->std_offset);
        if (!off)
            continue;
        uint64_t blk = body + off;
        if (UNLIKELY(blk + 4 > size))
            return false;
        uint64_t need = 4 + (uint64_t)rd32(data + blk);
        if (UNLIKELY(blk + need > size || need > *budget))
            return false;
        *budget -= need;
    }
    return true;
}

/* leaf_ok_n for the strings of `prog`; one string (the usual leaf) gets a copy of
 * its own, with no loop. */
INLINE bool leaf_ok(const uint8_t *data, uint64_t size, const interp_prog *prog, uint64_t body,
                    uint64_t *budget)
{
    const interp_step *at = prog->std_check_steps.at;
    size_t nk = prog->std_check_steps.count;
    if (nk == 1)
        return leaf_ok_n(data, size, at, 1, body, budget);
    return leaf_ok_n(data, size, at, nk, body, budget);
}

/* The strings of a whole body whose checked fields are all strings
 * (interp_prog.std_check_leaf), one check after the other: where it fails. */
static COLD fbe_status v_leaf_slow(reader *r, const interp_prog *prog, uint64_t body)
{
    /* by count: an heir's steps may follow (an SO_LEVEL step ends this list) */
    const interp_step *at = prog->std_check_steps.at;
    for (const interp_step *s = at; s < at + prog->std_check_steps.count; s++) {
        uint64_t p = body + s->std_offset;
        uint64_t payload = 0;
        uint32_t len = 0;
        fbe_status st = sc_chk_string(r, p, body, &payload, &len);
        if (UNLIKELY(st != FBE_OK)) {
            sc_locate(r, prog->ir, s->field->ir);
            return st;
        }
    }
    return FBE_OK;
}

/* v_leaf_slow when every check passes (the common case), with no call and no
 * dispatch; otherwise the checks again, in order, from the same budget. */
INLINE fbe_status v_leaf(reader *r, const interp_prog *prog, uint64_t body)
{
    uint64_t budget = r->budget;
    if (LIKELY(leaf_ok(r->data, r->size, prog, body, &budget))) {
        r->budget = budget;
        return FBE_OK;
    }
    return v_leaf_slow(r, prog, body);
}

/* v_struct when the header is not the common one. */
static COLD fbe_status v_struct_slow(reader *r, const interp_prog *prog, uint64_t pos,
                                     uint64_t base, unsigned depth)
{
    uint64_t body = 0;
    uint32_t ssize = 0;
    fbe_status st = chk_struct_slow(r, prog, pos, base, depth, &body, &ssize);
    if (st != FBE_OK)
        return st;
    return v_body(r, prog, body, ssize, depth);
}

/* The struct referenced at `pos`, its body entered at level `depth`. */
INLINE fbe_status v_struct(reader *r, const interp_prog *prog, uint64_t pos, uint64_t base,
                           unsigned depth)
{
    uint64_t body = 0;
    if (UNLIKELY(!chk_struct_fast(r, prog, pos, base, depth, &body)))
        return v_struct_slow(r, prog, pos, base, depth);
    if (prog->std_check_leaf)
        return v_leaf(r, prog, body);
    return v_body(r, prog, body, prog->std_body_size, depth);
}

/* The elements of a checked collection block (n is OP_SEQ or OP_MAP). */
static fbe_status v_elems(reader *r, const interp_node *n, uint64_t elems, uint32_t count,
                          uint64_t base, unsigned depth)
{
    fbe_status st;
    if (n->op == OP_MAP) {
        const interp_node *k = n->key, *v = n->elem;
        uint32_t ks = k->std_size, es = ks + v->std_size;
        for (uint32_t i = 0; i < count; i++) {
            uint64_t p = elems + (uint64_t)i * es;
            if ((st = v_value(r, k, p, base, depth)) != FBE_OK ||
                (st = v_value(r, v, p + ks, base, depth)) != FBE_OK)
                return st;
        }
        return FBE_OK;
    }
    const interp_node *e = n->elem;
    uint32_t es = e->std_size;
    switch ((interp_op)e->op) {
    CASE_SCALAR_OPS:
        return FBE_OK;
    case OP_STRING:
        for (uint32_t i = 0; i < count; i++) {
            uint64_t payload = 0;
            uint32_t len = 0;
            if ((st = sc_chk_string(r, elems + (uint64_t)i * es, base, &payload, &len)) != FBE_OK)
                return st;
        }
        return FBE_OK;
    case OP_STRUCT:
        for (uint32_t i = 0; i < count; i++)
            if ((st = v_struct(r, e->prog, elems + (uint64_t)i * es, base, depth + 1)) != FBE_OK)
                return st;
        return FBE_OK;
    default:
        for (uint32_t i = 0; i < count; i++)
            if ((st = v_value(r, e, elems + (uint64_t)i * es, base, depth)) != FBE_OK)
                return st;
        return FBE_OK;
    }
}

/* The fast loop of v_seq over `count` leaf struct elements at *elems (their
 * strings: nk steps at `at`): returns how many are left, 0 when all passed; then
 * *elems is the first of them and *budget what it had before it. */
INLINE uint32_t seq_leaves(const uint8_t *data, uint64_t size, const interp_prog *prog,
                           const interp_step *at, size_t nk, uint64_t base, uint32_t es,
                           uint64_t *elems, uint32_t count, uint64_t *budget)
{
    uint64_t bs = prog->std_body_size, hdr = prog->std_header, left = *budget;
    uint64_t p = *elems;
    for (; count; count--, p += es) {
        uint64_t spent = left;
        uint32_t off = rd32(data + p);
        uint64_t b = base + off, h;
        if (UNLIKELY(!off || b + bs > size))
            break;
        memcpy(&h, data + b, 8);
        if (UNLIKELY(h != hdr || bs > spent))
            break;
        spent -= bs;
        if (UNLIKELY(!leaf_ok_n(data, size, at, nk, b, &spent)))
            break;
        left = spent;
    }
    *elems = p;
    *budget = left;
    return count;
}

INLINE fbe_status v_seq(reader *r, const interp_node *n, uint64_t pos, uint64_t base,
                        unsigned depth)
{
    const interp_node *e = n->elem;
    uint64_t elems = 0;
    uint32_t count = 0;
    fbe_status st = sc_chk_block(r, pos, base, e->std_size, &elems, &count);
    if (st != FBE_OK || !count)
        return st;
    if (e->op == OP_STRUCT) { /* v_elems' loop, with v_struct inline */
        const interp_prog *prog = e->prog;
        uint32_t es = e->std_size;
        if (prog->std_check_leaf && depth + 1 <= r->max_depth) {
            /* Elements that are leaves in the common shape: what v_struct checks,
             * with what is the same for every element (depth, header, body size)
             * hoisted and the budget in a register. The first element for which
             * anything differs is left, from its own budget, to the loop below, so
             * every result is the loop's. */
            const interp_step *at = prog->std_check_steps.at;
            size_t nk = prog->std_check_steps.count;
            uint64_t budget = r->budget;
            if (nk == 1)
                count = seq_leaves(r->data, r->size, prog, at, 1, base, es, &elems, count, &budget);
            else
                count = seq_leaves(r->data, r->size, prog, at, nk, base, es, &elems, count, &budget);
            r->budget = budget;
        }
        for (uint32_t i = 0; i < count; i++, elems += es)
            if (UNLIKELY((st = v_struct(r, prog, elems, base, depth + 1)) != FBE_OK))
                return st;
        return FBE_OK;
    }
    return v_elems(r, n, elems, count, base, depth);
}

INLINE fbe_status v_opt_struct(reader *r, const interp_node *n, uint64_t pos,
                          uint64_t base, unsigned depth)
{
    uint64_t slot = 0;
    fbe_status st = sc_chk_optional(r, pos, base, 4, &slot);
    if (st != FBE_OK || !slot)
        return st;
    return v_struct(r, n->prog, slot, slot, depth + 1);
}

/* The value of type `n` whose inline part is at `pos` (inside checked bytes);
 * `depth` is the level of the struct body holding it. */
static fbe_status v_value(reader *r, const interp_node *n, uint64_t pos, uint64_t base,
                          unsigned depth)
{
    fbe_status st;
    switch ((interp_op)n->op) {
    CASE_SCALAR_OPS:
        return FBE_OK;
    case OP_STRING: {
        uint64_t payload = 0;
        uint32_t len = 0;
        return sc_chk_string(r, pos, base, &payload, &len);
    }
    case OP_STRUCT:
        return v_struct(r, n->prog, pos, base, depth + 1);
    case OP_OPTIONAL: {
        uint64_t slot = 0;
        if ((st = sc_chk_optional(r, pos, base, n->elem->std_size, &slot)) != FBE_OK || !slot)
            return st;
        return v_value(r, n->elem, slot, slot, depth);
    }
    case OP_OPT_STRUCT:
        return v_opt_struct(r, n, pos, base, depth);
    case OP_ARRAY: {
        const interp_node *e = n->elem;
        if (op_is_scalar(e->op))
            return FBE_OK;
        for (uint32_t i = 0; i < n->count; i++)
            if ((st = v_value(r, e, pos + (uint64_t)i * e->std_size, base, depth)) != FBE_OK)
                return st;
        return FBE_OK;
    }
    case OP_SEQ:
        return v_seq(r, n, pos, base, depth);
    case OP_MAP: {
        uint64_t elems = 0;
        uint32_t count = 0;
        if ((st = sc_chk_block(r, pos, base, n->key->std_size + n->elem->std_size, &elems,
                            &count)) != FBE_OK)
            return st;
        if (!count || (op_is_scalar(n->key->op) && op_is_scalar(n->elem->op)))
            return FBE_OK;
        return v_elems(r, n, elems, count, base, depth);
    }
    }
    return FBE_OK;
}

/* The fields of a checked body shorter than the reader's (an older writer): those
 * present, one by one. */
static COLD fbe_status v_fields_partial(reader *r, const interp_prog *prog, uint64_t body,
                                        uint32_t ssize, unsigned depth)
{
    const interp_field *f = prog->fields, *end = f + fields_present(prog, ssize);
    for (; f < end; f++) {
        fbe_status st = v_value(r, &f->node, body + f->std_offset, body, depth);
        if (UNLIKELY(st != FBE_OK)) {
            sc_locate(r, prog->ir, f->ir);
            return st;
        }
    }
    return FBE_OK;
}

/* The fields of a checked body of `ssize` bytes at level `depth`. Only those that
 * can fail are visited (std_check_steps): scalars need no check. */
static fbe_status v_body(reader *r, const interp_prog *prog, uint64_t body, uint32_t ssize,
                         unsigned depth)
{
    if (UNLIKELY(ssize < prog->std_body_size))
        return v_fields_partial(r, prog, body, ssize, depth);
    const interp_step *s = prog->std_check_steps.at;
    fbe_status st;
#define P_ (body + s->std_offset)
    STEP_BEGIN(V, s)
    STEP_CASE(V, SO_STRING): {
        uint64_t payload = 0;
        uint32_t len = 0;
        if (UNLIKELY((st = sc_chk_string(r, P_, body, &payload, &len)) != FBE_OK))
            goto failed;
        STEP_NEXT(V, s);
    }
    STEP_CASE(V, SO_STRUCT):
        if (UNLIKELY((st = v_struct(r, s->prog, P_, body, depth + 1)) != FBE_OK))
            goto failed;
        STEP_NEXT(V, s);
    STEP_CASE(V, SO_OPT_STRUCT):
        if (UNLIKELY((st = v_opt_struct(r, s->node, P_, body, depth)) != FBE_OK))
            goto failed;
        STEP_NEXT(V, s);
    STEP_CASE(V, SO_SEQ):
        if (UNLIKELY((st = v_seq(r, s->node, P_, body, depth)) != FBE_OK))
            goto failed;
        STEP_NEXT(V, s);
    STEP_CASE(V, SO_OPTIONAL):
    STEP_CASE(V, SO_ARRAY):
    STEP_CASE(V, SO_MAP):
        if (UNLIKELY((st = v_value(r, s->node, P_, body, depth)) != FBE_OK))
            goto failed;
        STEP_NEXT(V, s);
    STEP_COPIES(V):
    STEP_CASE(V, SO_BOOL):
    STEP_CASE(V, SO_FIXED):
        UNREACHABLE(); /* scalars need no check */
    STEP_LEVEL(V, s, prog)
    STEP_CASE(V, SO_END):
        return FBE_OK;
    STEP_FINISH
#undef P_
failed:
    sc_locate(r, prog->ir, s->field->ir);
    return st;
}

static unsigned depth_limit(const fbe_type *type, unsigned requested)
{
    return requested ? requested : type->codec->max_depth;
}

fbe_status fbe_interp_std_verify(const fbe_type *type, const uint8_t *data, size_t size,
                                 fbe_verify_info *info, const fbe_decode_options *options)
{
    if (!type || (!data && size)) {
        if (info)
            *info = (fbe_verify_info){.status = FBE_INVALID_ARGUMENT};
        return FBE_INVALID_ARGUMENT;
    }
    const interp_prog *prog = interp_prog_of(type);
    reader r = {.max_depth = depth_limit(type, options ? options->max_depth : 0)};
    fbe_status st = sc_chk_frame(&r, data, size);
    if (st == FBE_OK)
        st = v_struct(&r, prog, 4, 0, 1);
    if (info) {
        if (st == FBE_OK) {
            *info = (fbe_verify_info){.status = FBE_OK};
        } else {
            sc_locate(&r, prog->ir, NULL);
            *info = (fbe_verify_info){.status = st,
                                      .offset = (size_t)r.err_pos,
                                      .type = r.err_type,
                                      .field = r.err_field};
        }
    }
    return st;
}

/* ---- deserialize ------------------------------------------------------------- */
/* Every d_* routine leaves the host value it was given safe when it fails: views
 * are {NULL, 0} or point to valid memory, optional struct pointers are NULL or
 * valid, and the fields it did not reach are zero. */

static fbe_status d_fields(reader *r, const interp_prog *prog, uint64_t body, uint32_t ssize,
                           uint8_t *host, unsigned depth);
static fbe_status d_value(reader *r, const interp_node *n, uint64_t pos, uint64_t base,
                          uint8_t *host, unsigned depth);

/* count scalar elements of type e (wire stride e->std_size, host stride e->host_size). */
static inline void d_scalars(const interp_node *e, const uint8_t *src, uint8_t *host,
                             size_t count)
{
    size_t es = e->std_size, hs = e->host_size;
    if (e->op != OP_BOOL && es == hs) {
        memcpy(host, src, count * es);
        return;
    }
    for (size_t i = 0; i < count; i++)
        scalar_move(e->op, host + i * hs, src + i * es);
}

/* d_struct when the header is not the common one. */
static COLD fbe_status d_struct_slow(reader *r, const interp_prog *prog, uint64_t pos,
                                     uint64_t base, uint8_t *host, unsigned depth)
{
    uint64_t body = 0;
    uint32_t ssize = 0;
    fbe_status st = chk_struct_slow(r, prog, pos, base, depth, &body, &ssize);
    if (st != FBE_OK) {
        memset(host, 0, prog->host_size);
        return st;
    }
    return d_fields(r, prog, body, ssize, host, depth);
}

/* The struct referenced at `pos` into `host` (by value), its body at `depth`. */
INLINE fbe_status d_struct(reader *r, const interp_prog *prog, uint64_t pos, uint64_t base,
                           uint8_t *host, unsigned depth)
{
    uint64_t body = 0;
    if (UNLIKELY(!chk_struct_fast(r, prog, pos, base, depth, &body)))
        return d_struct_slow(r, prog, pos, base, host, depth);
    return d_fields(r, prog, body, prog->std_body_size, host, depth);
}

/* S?: the pointer is NULL unless the body passed its checks and was allocated. */
static fbe_status d_opt_struct(reader *r, const interp_node *n, uint64_t pos, uint64_t base,
                               uint8_t *host, unsigned depth)
{
    uint64_t slot = 0, body = 0;
    uint32_t ssize = 0;
    void *p = NULL;
    memcpy(host, &p, sizeof p);
    fbe_status st = sc_chk_optional(r, pos, base, 4, &slot);
    if (st != FBE_OK || !slot)
        return st;
    const interp_prog *prog = n->prog;
    if ((st = chk_struct(r, prog, slot, slot, depth + 1, &body, &ssize)) != FBE_OK)
        return st;
    p = sc_alloc(r->arena, r->memory, prog->host_size);
    if (UNLIKELY(!p))
        return FBE_NOMEM;
    memcpy(host, &p, sizeof p);
    return d_fields(r, prog, body, ssize, p, depth + 1);
}

/* Large allocations whose elements have not been checked yet: a count is
 * bounded by the bytes left, but an element's host size can be much larger than
 * its inline size. When the array would be out of proportion to the bytes that
 * may still be visited, the elements are checked first (exactly as verify does,
 * with the same budget), so hostile counts fail without allocating. */
static fbe_status precheck(reader *r, const interp_node *n, uint64_t elems, uint32_t count,
                           uint64_t base, unsigned depth, uint64_t bytes)
{
    if (LIKELY(bytes <= 4096 || bytes / 4 <= r->budget))
        return FBE_OK;
    uint64_t saved = r->budget;
    fbe_status st = v_elems(r, n, elems, count, base, depth);
    r->budget = saved;
    return st;
}

static fbe_status d_seq(reader *r, const interp_node *n, uint64_t pos, uint64_t base,
                        uint8_t *host, unsigned depth)
{
    fbe_seq *seq = (fbe_seq *)host;
    seq->data = NULL;
    seq->size = 0;
    const interp_node *e = n->elem;
    uint64_t elems = 0;
    uint32_t count = 0;
    fbe_status st = sc_chk_block(r, pos, base, e->std_size, &elems, &count);
    if (st != FBE_OK || !count)
        return st;
    size_t hs = e->host_size, es = e->std_size;
    uint8_t op = e->op;
    if (UNLIKELY(hs && count > SIZE_MAX / hs))
        return FBE_NOMEM;
    if (!op_is_scalar(op) &&
        (st = precheck(r, n, elems, count, base, depth, (uint64_t)count * hs)) != FBE_OK)
        return st;
    uint8_t *arr = sc_alloc(r->arena, r->memory, (size_t)count * hs);
    if (UNLIKELY(!arr))
        return FBE_NOMEM;
    seq->data = arr;
    uint32_t i = 0;
    switch ((interp_op)op) {
    CASE_SCALAR_OPS:
        d_scalars(e, r->data + elems, arr, count);
        break;
    case OP_STRING:
        for (; i < count; i++)
            if (UNLIKELY((st = sc_sd_str(r, elems + (uint64_t)i * es, base,
                                        arr + (size_t)i * hs)) != FBE_OK))
                break;
        break;
    case OP_STRUCT:
        for (; i < count; i++)
            if (UNLIKELY((st = d_struct(r, e->prog, elems + (uint64_t)i * es, base,
                                        arr + (size_t)i * hs, depth + 1)) != FBE_OK))
                break;
        break;
    default:
        for (; i < count; i++)
            if (UNLIKELY((st = d_value(r, e, elems + (uint64_t)i * es, base,
                                       arr + (size_t)i * hs, depth)) != FBE_OK))
                break;
        break;
    }
    /* on error, element i is safe and the ones after it were never written */
    seq->size = st == FBE_OK ? count : (size_t)i + 1;
    return st;
}

static fbe_status d_map(reader *r, const interp_node *n, uint64_t pos, uint64_t base,
                        uint8_t *host, unsigned depth)
{
    fbe_seq *seq = (fbe_seq *)host;
    seq->data = NULL;
    seq->size = 0;
    const interp_node *k = n->key, *v = n->elem;
    uint32_t ks = k->std_size, es = ks + v->std_size;
    uint64_t elems = 0;
    uint32_t count = 0;
    fbe_status st = sc_chk_block(r, pos, base, es, &elems, &count);
    if (st != FBE_OK || !count)
        return st;
    size_t hs = n->entry_size, vo = n->entry_value_offset;
    bool scalar = op_is_scalar(k->op) && op_is_scalar(v->op);
    if (UNLIKELY(hs && count > SIZE_MAX / hs))
        return FBE_NOMEM;
    if (!scalar && (st = precheck(r, n, elems, count, base, depth, (uint64_t)count * hs)) != FBE_OK)
        return st;
    uint8_t *arr = sc_alloc(r->arena, r->memory, (size_t)count * hs);
    if (UNLIKELY(!arr))
        return FBE_NOMEM;
    seq->data = arr;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t p = elems + (uint64_t)i * es;
        uint8_t *entry = arr + (size_t)i * hs;
        if (scalar) {
            scalar_move(k->op, entry, r->data + p);
            scalar_move(v->op, entry + vo, r->data + p + ks);
            continue;
        }
        st = d_value(r, k, p, base, entry, depth);
        if (UNLIKELY(st != FBE_OK)) {
            memset(entry + vo, 0, v->host_size);
            seq->size = (size_t)i + 1;
            return st;
        }
        st = d_value(r, v, p + ks, base, entry + vo, depth);
        if (UNLIKELY(st != FBE_OK)) {
            seq->size = (size_t)i + 1;
            return st;
        }
    }
    seq->size = count;
    return FBE_OK;
}

/* The value of type `n` at `pos` into `host`; `depth` is the level of the struct
 * body holding it. */
static fbe_status d_value(reader *r, const interp_node *n, uint64_t pos, uint64_t base,
                          uint8_t *host, unsigned depth)
{
    fbe_status st;
    switch ((interp_op)n->op) {
    CASE_SCALAR_OPS:
        scalar_move(n->op, host, r->data + pos);
        return FBE_OK;
    case OP_STRING:
        return sc_sd_str(r, pos, base, host);
    case OP_STRUCT:
        return d_struct(r, n->prog, pos, base, host, depth + 1);
    case OP_OPTIONAL: {
        uint64_t slot = 0;
        st = sc_chk_optional(r, pos, base, n->elem->std_size, &slot);
        if (st != FBE_OK || !slot) {
            memset(host, 0, n->host_size); /* absent: has_value false, value zero */
            return st;
        }
        *host = 1; /* has_value = true */
        return d_value(r, n->elem, slot, slot, host + n->host_value_offset, depth);
    }
    case OP_OPT_STRUCT:
        return d_opt_struct(r, n, pos, base, host, depth);
    case OP_ARRAY: {
        const interp_node *e = n->elem;
        size_t hs = e->host_size;
        if (op_is_scalar(e->op)) {
            d_scalars(e, r->data + pos, host, n->count);
            return FBE_OK;
        }
        for (uint32_t i = 0; i < n->count; i++) {
            st = d_value(r, e, pos + (uint64_t)i * e->std_size, base, host + (size_t)i * hs,
                         depth);
            if (UNLIKELY(st != FBE_OK)) {
                memset(host + (size_t)(i + 1) * hs, 0, (size_t)(n->count - i - 1) * hs);
                return st;
            }
        }
        return FBE_OK;
    }
    case OP_SEQ:
        return d_seq(r, n, pos, base, host, depth);
    case OP_MAP:
        return d_map(r, n, pos, base, host, depth);
    }
    return FBE_OK;
}

/* A failure in field f: it is safe, every later field is zeroed. */
static COLD void zero_after(const interp_prog *prog, const interp_field *f, uint8_t *host)
{
    const interp_field *end = prog->fields + prog->field_count;
    for (f++; f < end; f++)
        memset(host + f->host_offset, 0, f->node.host_size);
}

/* The fields of a checked body shorter than the reader's (an older writer), one
 * by one: those present are read, the others get their defaults. */
static COLD fbe_status d_fields_partial(reader *r, const interp_prog *prog, uint64_t body,
                                        uint32_t ssize, uint8_t *host, unsigned depth)
{
    size_t present = fields_present(prog, ssize);
    const interp_field *fields = prog->fields;
    for (size_t i = 0; i < present; i++) {
        const interp_field *f = &fields[i];
        fbe_status st = d_value(r, &f->node, body + f->std_offset, body,
                                host + f->host_offset, depth);
        if (UNLIKELY(st != FBE_OK)) {
            zero_after(prog, f, host);
            return st;
        }
    }
    /* Fields an older writer did not have. */
    for (size_t i = present; i < prog->field_count; i++)
        fbe_init_field(fields[i].ir, host + fields[i].host_offset);
    return FBE_OK;
}

/* The fields of a checked body of `ssize` bytes at level `depth` into `host`. */
static fbe_status d_fields(reader *r, const interp_prog *prog, uint64_t body, uint32_t ssize,
                           uint8_t *host, unsigned depth)
{
    if (UNLIKELY(ssize < prog->std_body_size))
        return d_fields_partial(r, prog, body, ssize, host, depth);
    const uint8_t *b = r->data + body;
    const interp_step *s = prog->std_steps.at;
    fbe_status st;
/* the field in the host, its bytes and position in the frame */
#define H_ (host + s->host_offset)
#define B_ (b + s->std_offset)
#define P_ (body + s->std_offset)
    STEP_BEGIN(D, s)
    #define AFTER_(n) STEP_NEXT(D, s)
    STEP_COPY_CASES(D, H_, B_, s->len, STEP_NOTHING, AFTER_);
#undef AFTER_
    STEP_CASE(D, SO_BOOL):
        *H_ = *B_ != 0;
        STEP_NEXT(D, s);
    STEP_CASE(D, SO_STRING):
        if (UNLIKELY((st = sc_sd_str(r, P_, body, H_)) != FBE_OK))
            goto failed;
        STEP_NEXT(D, s);
    STEP_CASE(D, SO_STRUCT):
        if (UNLIKELY((st = d_struct(r, s->prog, P_, body, H_, depth + 1)) != FBE_OK))
            goto failed;
        STEP_NEXT(D, s);
    STEP_CASE(D, SO_OPT_STRUCT):
        if (UNLIKELY((st = d_opt_struct(r, s->node, P_, body, H_, depth)) != FBE_OK))
            goto failed;
        STEP_NEXT(D, s);
    STEP_CASE(D, SO_SEQ):
        if (UNLIKELY((st = d_seq(r, s->node, P_, body, H_, depth)) != FBE_OK))
            goto failed;
        STEP_NEXT(D, s);
    STEP_CASE(D, SO_OPTIONAL):
    STEP_CASE(D, SO_ARRAY):
    STEP_CASE(D, SO_MAP):
        if (UNLIKELY((st = d_value(r, s->node, P_, body, H_, depth)) != FBE_OK))
            goto failed;
        STEP_NEXT(D, s);
    STEP_CASE(D, SO_FIXED):
        UNREACHABLE(); /* final lists only */
    STEP_LEVEL(D, s, prog)
    STEP_CASE(D, SO_END):
        return FBE_OK;
    STEP_FINISH
#undef H_
#undef B_
#undef P_
failed:
    zero_after(prog, s->field, host);
    return st;
}

fbe_status fbe_interp_std_deserialize(const fbe_type *type, const uint8_t *data, size_t size,
                                      void *value, const fbe_decode_options *options,
                                      size_t *consumed)
{
    if (consumed)
        *consumed = 0;
    if (!type || !value)
        return FBE_INVALID_ARGUMENT;
    const interp_prog *prog = interp_prog_of(type);
    if (!options || !options->arena || (!data && size)) {
        memset(value, 0, prog->host_size);
        return FBE_INVALID_ARGUMENT;
    }
    fbe_decode_budget memory = {.max_memory = options->max_memory};
    reader r = {.max_depth = depth_limit(type, options->max_depth),
                .arena = options->arena,
                .memory = &memory,
                .borrow = (options->flags & FBE_DECODE_BORROW) != 0};
    fbe_status st = sc_chk_frame(&r, data, size);
    if (st != FBE_OK) {
        memset(value, 0, prog->host_size);
        return st;
    }
    memory.input = (size_t)r.size;
    st = d_struct(&r, prog, 4, 0, value, 1);
    if (st == FBE_OK) {
        if (consumed)
            *consumed = (size_t)r.size;
        return st;
    }
    return fbe_decode_status(st, &memory);
}
