/* The interpreter's final model (wire-format.md 4, docs/codec.md "Final model").
 *
 * Frame: [u32 struct_size][u32 type] then the root's fields packed, no offsets.
 *
 * serialize: the exact size first (a final_fixed node is a constant, no walk),
 * one reserve, then sequential writes with no further checks.
 * verify / deserialize: the same walk with the same checks in the same order, so
 * both return the same status for any input:
 *   - a final_fixed node (scalar, or a struct/array made only of fixed parts) is
 *     bounds-checked once as a whole (TRUNCATED); then the struct levels nested in
 *     it are depth-checked (TOO_DEEP); its bytes are then copied unchecked;
 *   - any other value is checked as it is read: a string or count header or a
 *     string body running past the frame end is TRUNCATED, a count larger than the
 *     remaining bytes divided by the element's smallest encoding (at least 1) is
 *     BAD_COUNT, checked before any loop or allocation;
 *   - a struct level deeper than the limit is TOO_DEEP (the root is level 1, every
 *     nested struct, optional struct and struct element one more);
 *   - finally 8 + the fields must equal struct_size (FINAL_SIZE).
 * Deserialize writes every field, allocates only from the arena, and keeps the
 * value safe on error: a collection's size stays 0 until its elements are written,
 * an optional struct pointer NULL until its struct is written, and a struct whose
 * field fails zeroes that field and every later one.
 *
 * Speed without changing any of that: the loops walk the step lists of the
 * lowering (program.h) instead of the fields. Runs of adjacent plain scalars are
 * one bounds check and one copy; verify only visits what can fail and adds up the
 * sizes of the rest; a fixed struct's depth is one comparison (fixed_depth). When
 * a shortcut's check fails, a cold path redoes that part field by field, so the
 * error, its position and the partial value are those of the field-by-field
 * walk. */
#include <stddef.h>

#include "fbe/internal/static_c.h"
#include "program.h"
#include "../port.h"

/* Scalar ops come first: `op <= OP_COPY16` means a plain fixed-width value whose
 * host bytes are its wire bytes (BOOL aside, which is normalized). */
_Static_assert(OP_BOOL == 0 && OP_COPY1 == 1 && OP_COPY2 == 2 && OP_COPY4 == 3 &&
                   OP_COPY8 == 4 && OP_COPY16 == 5,
               "scalar ops first");

/* Steps up to SO_FIXED take a known number of bytes (interp_step.len). */
_Static_assert(SO_COPYN < SO_BOOL && SO_BOOL < SO_FIXED && SO_FIXED < SO_STRING,
               "fixed-size steps first");

static inline bool is_copy(const interp_node *n)
{
    return n->op >= OP_COPY1 && n->op <= OP_COPY16;
}

/* ============================== size ============================================ */

/* Sizes are computed in 64 bits and clamped here: anything at or above this is
 * TOO_LARGE anyway, and clamping keeps the sums from wrapping. */

static uint64_t size_struct(const interp_prog *g, const uint8_t *src);
static uint64_t size_struct_exact(const interp_prog *g, const uint8_t *src);
static uint64_t size_complex(const interp_node *n, const uint8_t *src);

/* final_const plus the lengths of the strings of a struct (final_size_strings);
 * a length above 32 bits counts FBE_FINAL_SAT, as in sc_fstr_size. */
INLINE uint64_t size_strings(const interp_prog *g, const uint8_t *src)
{
    uint64_t sum = g->final_const;
    const uint32_t *at = g->final_size_strings, *end = at + g->final_size_string_count;
    for (; at < end; at++) {
        size_t len;
        memcpy(&len, src + *at + offsetof(fbe_string, size), sizeof len);
        sum += len > UINT32_MAX ? FBE_FINAL_SAT : (uint64_t)len;
    }
    return sum;
}

/* One value: the common kinds inline. */
INLINE uint64_t size_any(const interp_node *n, const uint8_t *src)
{
    if (n->final_fixed)
        return n->final_size;
    if (n->op == OP_STRING)
        return sc_fstr_size(src);
    return size_complex(n, src);
}

static uint64_t size_complex(const interp_node *n, const uint8_t *src)
{
    switch ((interp_op)n->op) {
    case OP_STRING:
        return sc_fstr_size(src);
    case OP_STRUCT:
        return size_struct(n->prog, src);
    case OP_OPTIONAL: {
        if (!*src)
            return 1;
        return 1 + size_any(n->elem, src + n->host_value_offset);
    }
    case OP_OPT_STRUCT: {
        const uint8_t *s = *(const uint8_t *const *)src;
        return s ? 1 + size_struct(n->prog, s) : 1;
    }
    case OP_ARRAY: {
        const interp_node *e = n->elem;
        uint64_t sum = 0;
        for (uint32_t i = 0; i < n->count; i++) {
            sum += size_any(e, src + (size_t)i * e->host_size);
            if (sum > FBE_FINAL_SAT)
                return FBE_FINAL_SAT;
        }
        return sum;
    }
    case OP_SEQ: {
        const fbe_seq *s = (const fbe_seq *)src;
        if (s->size > UINT32_MAX)
            return FBE_FINAL_SAT;
        const interp_node *e = n->elem;
        if (e->final_fixed) {
            uint64_t sum = 4 + (uint64_t)s->size * e->final_size;
            return sum > FBE_FINAL_SAT ? FBE_FINAL_SAT : sum;
        }
        const uint8_t *d = s->data;
        uint64_t sum = 4;
        const interp_prog *g = e->prog;
        if (e->op == OP_STRUCT && g->final_size_steps.count == 0) {
            /* size_struct inline: a constant and some strings per element */
            for (size_t i = 0; i < s->size; i++) {
                uint64_t one = size_strings(g, d + i * e->host_size);
                sum += LIKELY(one <= FBE_FINAL_SAT) ? one
                                                    : size_struct_exact(g, d + i * e->host_size);
                if (sum > FBE_FINAL_SAT)
                    return FBE_FINAL_SAT;
            }
            return sum;
        }
        for (size_t i = 0; i < s->size; i++) {
            sum += size_any(e, d + i * e->host_size);
            if (sum > FBE_FINAL_SAT)
                return FBE_FINAL_SAT;
        }
        return sum;
    }
    case OP_MAP: {
        const fbe_seq *s = (const fbe_seq *)src;
        if (s->size > UINT32_MAX)
            return FBE_FINAL_SAT;
        const interp_node *k = n->key, *v = n->elem;
        if (k->final_fixed && v->final_fixed) {
            uint64_t per = (uint64_t)k->final_size + v->final_size;
            if (per && s->size > FBE_FINAL_SAT / per)
                return FBE_FINAL_SAT;
            return 4 + s->size * per;
        }
        const uint8_t *d = s->data;
        uint64_t sum = 4;
        for (size_t i = 0; i < s->size; i++) {
            const uint8_t *entry = d + i * n->entry_size;
            sum += size_any(k, entry);
            sum += size_any(v, entry + n->entry_value_offset);
            if (sum > FBE_FINAL_SAT)
                return FBE_FINAL_SAT;
        }
        return sum;
    }
    default: /* scalars are final_fixed and never get here */
        return n->final_size;
    }
}

/* The definition of a struct's size, field by field, including where it stops at
 * FBE_FINAL_SAT. The fixed fields only add up: each step carries the fixed bytes before it
 * (`pre`), so the sum is checked at the same points, with the same values, as a
 * walk that checks after every field that is not fixed. */
COLD static uint64_t size_struct_exact(const interp_prog *g, const uint8_t *src)
{
    uint64_t sum = 0;
    for (const interp_step *s = g->final_size_exact.at;; s++) {
        const uint8_t *h = src + s->host_offset;
        if (s->op == SO_LEVEL && s->prog != g)
            continue; /* the next step's `pre` has this one's */
        sum += s->pre;
        switch ((interp_step_op)s->op) {
        case SO_STRING:
            sum += sc_fstr_size(h);
            break;
        case SO_LEVEL:
        case SO_END:
            return sum;
        default:
            sum += size_complex(s->node, h);
            break;
        }
        if (sum > FBE_FINAL_SAT)
            return FBE_FINAL_SAT;
    }
}

/* The same number from the lists of the lowering (constant part, string
 * lengths, the other fields that vary, small structs held by value flattened). When it
 * is at most FBE_FINAL_SAT, no check of the exact walk can have fired (all its partial sums
 * are smaller), so both agree; otherwise the exact walk decides. */
static uint64_t size_struct(const interp_prog *g, const uint8_t *src)
{
    if (g->final_fixed)
        return g->final_size;
    uint64_t sum = size_strings(g, src);
    const interp_step *s = g->final_size_steps.at;
    STEP_BEGIN(Z, s)
    STEP_CASE(Z, SO_OPT_STRUCT): {
        const uint8_t *p = *(const uint8_t *const *)(src + s->host_offset);
        sum += p ? 1 + size_struct(s->prog, p) : 1;
        STEP_NEXT(Z, s);
    }
    STEP_CASE(Z, SO_STRUCT): /* by value, too large to flatten */
        sum += size_struct(s->prog, src + s->host_offset);
        STEP_NEXT(Z, s);
    STEP_CASE(Z, SO_SEQ):
    STEP_CASE(Z, SO_OPTIONAL):
    STEP_CASE(Z, SO_ARRAY):
    STEP_CASE(Z, SO_MAP):
        sum += size_complex(s->node, src + s->host_offset);
        STEP_NEXT(Z, s);
    STEP_COPIES(Z):
    STEP_CASE(Z, SO_BOOL):
    STEP_CASE(Z, SO_FIXED):
    STEP_CASE(Z, SO_STRING):
        UNREACHABLE(); /* fixed fields and strings are in the lists */
    STEP_LEVEL(Z, s, g)
    STEP_CASE(Z, SO_END):
        if (UNLIKELY(sum > FBE_FINAL_SAT))
            return size_struct_exact(g, src);
        return sum;
    STEP_FINISH
}

size_t fbe_interp_final_size(const fbe_type *type, const void *value)
{
    uint64_t n = 8 + size_struct(interp_prog_of(type), value);
    return n > SIZE_MAX ? SIZE_MAX : (size_t)n;
}

/* ============================== serialize ======================================= */

static uint8_t *w_complex(const interp_node *n, const uint8_t *src, uint8_t *w);
static uint8_t *w_struct(const interp_prog *g, const uint8_t *src, uint8_t *w);

INLINE uint8_t *w_any(const interp_node *n, const uint8_t *src, uint8_t *w)
{
    switch ((interp_op)n->op) {
    case OP_BOOL:
        *w = *src != 0;
        return w + 1;
    case OP_COPY1:
        *w = *src;
        return w + 1;
    case OP_COPY2:
        memcpy(w, src, 2);
        return w + 2;
    case OP_COPY4:
        memcpy(w, src, 4);
        return w + 4;
    case OP_COPY8:
        memcpy(w, src, 8);
        return w + 8;
    case OP_COPY16:
        memcpy(w, src, 16);
        return w + 16;
    case OP_STRING:
        return sc_fwrite_str(src, w);
    case OP_STRUCT:
        return w_struct(n->prog, src, w);
    default:
        return w_complex(n, src, w);
    }
}

/* count elements of a plain scalar type: host bytes are wire bytes. */
static inline uint8_t *w_copy_run(const interp_node *e, const void *src, size_t count, uint8_t *w)
{
    size_t len = count * e->final_size;
    if (len)
        memcpy(w, src, len);
    return w + len;
}

static uint8_t *w_complex(const interp_node *n, const uint8_t *src, uint8_t *w)
{
    switch ((interp_op)n->op) {
    case OP_OPTIONAL:
        if (!*src) {
            *w = 0;
            return w + 1;
        }
        *w = 1;
        return w_any(n->elem, src + n->host_value_offset, w + 1);
    case OP_OPT_STRUCT: {
        const uint8_t *s = *(const uint8_t *const *)src;
        if (!s) {
            *w = 0;
            return w + 1;
        }
        *w = 1;
        return w_struct(n->prog, s, w + 1);
    }
    case OP_ARRAY: {
        const interp_node *e = n->elem;
        if (is_copy(e))
            return w_copy_run(e, src, n->count, w);
        for (uint32_t i = 0; i < n->count; i++)
            w = w_any(e, src + (size_t)i * e->host_size, w);
        return w;
    }
    case OP_SEQ: {
        const fbe_seq *s = (const fbe_seq *)src;
        const interp_node *e = n->elem;
        wr32(w, (uint32_t)s->size);
        w += 4;
        if (is_copy(e))
            return w_copy_run(e, s->data, s->size, w);
        const uint8_t *d = s->data;
        for (size_t i = 0; i < s->size; i++)
            w = w_any(e, d + i * e->host_size, w);
        return w;
    }
    case OP_MAP: {
        const fbe_seq *s = (const fbe_seq *)src;
        const interp_node *k = n->key, *v = n->elem;
        wr32(w, (uint32_t)s->size);
        w += 4;
        const uint8_t *d = s->data;
        for (size_t i = 0; i < s->size; i++) {
            const uint8_t *entry = d + i * n->entry_size;
            w = w_any(k, entry, w);
            w = w_any(v, entry + n->entry_value_offset, w);
        }
        return w;
    }
    default:
        return w;
    }
}

static uint8_t *w_seq(const interp_node *n, const uint8_t *src, uint8_t *w)
{
    const fbe_seq *s = (const fbe_seq *)src;
    const interp_node *e = n->elem;
    size_t count = s->size, hs = e->host_size;
    const uint8_t *d = s->data;
    wr32(w, (uint32_t)count);
    w += 4;
    switch ((interp_op)e->op) {
    case OP_COPY1:
    case OP_COPY2:
    case OP_COPY4:
    case OP_COPY8:
    case OP_COPY16:
        return w_copy_run(e, d, count, w);
    case OP_STRING:
        for (size_t i = 0; i < count; i++)
            w = sc_fwrite_str(d + i * hs, w);
        return w;
    case OP_STRUCT: {
        const interp_prog *g = e->prog;
        for (size_t i = 0; i < count; i++)
            w = w_struct(g, d + i * hs, w);
        return w;
    }
    default:
        for (size_t i = 0; i < count; i++)
            w = w_any(e, d + i * hs, w);
        return w;
    }
}

/* Where w_struct goes back to when a nested struct is written: the enclosing
 * struct's next step and host value, and for a collection of structs the
 * elements still to write. */
typedef struct wframe {
    const interp_prog *g; /* the enclosing struct */
    const interp_step *s;
    const uint8_t *src;
    size_t left;
    const uint8_t *elem;
} wframe;

/* Nested deeper than this (a value's own shape: optionals, collections), a
 * struct is written by a recursive call. */
#define WRITE_STACK 32

/* The fields of g's value at src, from w. Nested structs (by value, optional,
 * elements of a collection) are entered in the same loop, with the enclosing
 * ones on a small stack: no call per struct. */
static uint8_t *w_struct(const interp_prog *g, const uint8_t *src, uint8_t *w)
{
    wframe stack[WRITE_STACK], *top = stack;
    const interp_step *s = g->final_steps.at;
#define H_ (src + s->host_offset)
/* (a block, not a do-while: STEP_RESUME may be a `continue` of the step loop) */
#define ENTER_(sub, value, n, next)                                                 \
    {                                                                               \
        *top++ = (wframe){.g = g, .s = s + 1, .src = src, .left = (n), .elem = (next)}; \
        src = (value);                                                              \
        g = (sub);                                                                  \
        s = g->final_steps.at;                                                      \
        STEP_RESUME(W, s);                                                          \
    }
    STEP_BEGIN(W, s)
#define AFTER_(n)      \
    {                  \
        w += (n);      \
        STEP_NEXT(W, s); \
    }
    STEP_COPY_CASES(W, w, H_, s->len, STEP_NOTHING, AFTER_);
#undef AFTER_
    STEP_CASE(W, SO_BOOL):
        *w++ = *H_ != 0;
        STEP_NEXT(W, s);
    STEP_CASE(W, SO_STRING):
        w = sc_fwrite_str(H_, w);
        STEP_NEXT(W, s);
    STEP_CASE(W, SO_STRUCT):
        if (UNLIKELY(top == stack + WRITE_STACK)) {
            w = w_struct(s->prog, H_, w);
            STEP_NEXT(W, s);
        }
        ENTER_(s->prog, H_, 0, NULL);
    STEP_CASE(W, SO_OPT_STRUCT): {
        const uint8_t *p = *(const uint8_t *const *)H_;
        *w++ = p != NULL;
        if (!p)
            STEP_NEXT(W, s);
        if (UNLIKELY(top == stack + WRITE_STACK)) {
            w = w_struct(s->prog, p, w);
            STEP_NEXT(W, s);
        }
        ENTER_(s->prog, p, 0, NULL);
    }
    STEP_CASE(W, SO_SEQ): {
        const fbe_seq *q = (const fbe_seq *)H_;
        if (!s->prog || !q->size || UNLIKELY(top == stack + WRITE_STACK)) {
            w = w_seq(s->node, H_, w);
            STEP_NEXT(W, s);
        }
        /* w_seq's count, then its elements one after the other */
        wr32(w, (uint32_t)q->size);
        w += 4;
        ENTER_(s->prog, (const uint8_t *)q->data, q->size - 1,
               (const uint8_t *)q->data + s->node->elem->host_size);
    }
    STEP_CASE(W, SO_FIXED):
    STEP_CASE(W, SO_OPTIONAL):
    STEP_CASE(W, SO_ARRAY):
    STEP_CASE(W, SO_MAP):
        w = w_any(s->node, H_, w);
        STEP_NEXT(W, s);
    STEP_LEVEL(W, s, g)
    STEP_CASE(W, SO_END):
        if (top == stack)
            return w;
        top--;
        if (top->left) { /* the next element of a collection (g is its struct) */
            const interp_step *seq = top->s - 1;
            top->left--;
            src = top->elem;
            top->elem += seq->node->elem->host_size;
            top++;
            s = seq->prog->final_steps.at;
            STEP_RESUME(W, s);
        }
        g = top->g;
        s = top->s;
        src = top->src;
        STEP_RESUME(W, s);
    STEP_FINISH
#undef H_
#undef ENTER_
}

fbe_status fbe_interp_final_serialize(const fbe_type *type, const void *value, fbe_buffer *out)
{
    if (!type || !value || !out)
        return FBE_INVALID_ARGUMENT;
    const interp_prog *g = interp_prog_of(type);
    uint64_t total = 8 + size_struct(g, value);
    if (total > UINT32_MAX)
        return FBE_TOO_LARGE;
    if (out->capacity - out->size < total) { /* fbe_buffer_reserve's own test first */
        fbe_status st = fbe_buffer_reserve(out, (size_t)total);
        if (st != FBE_OK)
            return st;
    }
    uint8_t *start = out->data + out->size;
    wr32(start, (uint32_t)total);
    wr32(start + 4, g->type_number);
    uint8_t *end = w_struct(g, value, start + 8);
    (void)end; /* == start + total: size_complex and w_complex mirror each other */
    out->size += (size_t)total;
    return FBE_OK;
}

/* ============================== reading ========================================= */

/* The reader's state and its checks are the static C backend's (static_c.h):
 * the rules of the final model, written once. */
typedef sc_frd rd;

/* The smallest final encoding of one value (type_final_min in program.c: a fixed
 * node's size, a non-fixed struct's final_min, N times an array element's; clamped
 * at 2^32, above any count's room, so products stay in 64 bits). */

static inline uint64_t node_min(const interp_node *n)
{
    return n->min_size;
}

static inline uint64_t entry_min(const interp_node *n)
{
    return node_min(n->key) + node_min(n->elem);
}

/* ------------------------------ verify ------------------------------------------ */

/* The depth of a final_fixed node inside a struct at level `depth`, already
 * bounds-checked, in one comparison: it spans final_depth struct levels below
 * that struct; only past the limit does the walk (static_c.h) find where. */
static inline bool v_fixed_ok(rd *r, const interp_node *n, const uint8_t *p, unsigned depth)
{
    if (LIKELY((uint64_t)depth + n->final_depth <= r->max_depth))
        return true;
    return sc_fv_fixed_value_depth(r, n->ir, p, depth);
}

static const uint8_t *v_complex(rd *r, const interp_node *n, const uint8_t *p, unsigned depth);

static const uint8_t *v_struct(rd *r, const interp_prog *g, const uint8_t *p, unsigned depth);
static const uint8_t *v_seq(rd *r, const interp_node *n, const uint8_t *p, unsigned depth);

/* One value inside a struct at level `depth`: the common kinds inline. */
INLINE const uint8_t *v_any(rd *r, const interp_node *n, const uint8_t *p, unsigned depth)
{
    if (n->op <= OP_COPY16) {
        if (UNLIKELY((size_t)(r->end - p) < n->final_size))
            return sc_ffail(r, FBE_TRUNCATED, p);
        return p + n->final_size;
    }
    if (n->op == OP_STRING)
        return sc_fv_str(r, p);
    if (n->op == OP_STRUCT)
        return v_struct(r, n->prog, p, depth + 1);
    return v_complex(r, n, p, depth);
}

/* The fixed fields just before field `f` (those verify adds up, ending at f or at
 * the end), starting at p, do not fit: report the first of them that does not, as
 * a field-by-field walk would. */
COLD static const uint8_t *v_seg_fail(rd *r, const interp_prog *g, const interp_field *f,
                                      const uint8_t *p)
{
    const interp_field *s = f;
    while (s > g->fields && s[-1].node.final_fixed && s[-1].node.final_depth == 0)
        s--;
    /* the rule `fbec c` and native code follow (static_c.h) */
    return sc_fv_run_fail(r, p, g->ir, g->ir->fields + (s - g->fields), (size_t)(f - s));
}

static const uint8_t *v_fields(rd *r, const interp_prog *g, const uint8_t *p, unsigned depth);

/* The fields of a struct whose checked fields are all strings
 * (final_check_leaf): NULL when anything does not fit, and the caller then walks
 * them again with v_fields to find and report it (verify has no other effect). */
INLINE const uint8_t *v_leaf_n(const uint8_t *end, const interp_step *s, size_t nk,
                               const uint8_t *p)
{
    /* Each string's length is read once the bytes up to it are known to be
     * there (`need`); then its payload and what the next step needs before
     * its first read are one comparison (the sum cannot wrap: a length is 32
     * bits, `need` the fixed bytes of one struct). Together they are exactly
     * the checks of v_fields: each string's length and payload, and the tail. */
    size_t room = (size_t)(end - p);
    if (UNLIKELY(room < s->need))
        return NULL;
    for (size_t k = nk; k; k--, s++) {
        p += s->need; /* pre + 4 */
        room -= s->need;
        uint32_t len = rd32(p - 4);
        if (UNLIKELY((uint64_t)len + s[1].need > room))
            return NULL;
        p += len;
        room -= len;
    }
    return p + s->pre; /* s is SO_END: its `pre` (the tail) fits */
}

/* v_leaf_n for the steps of g; one string (the usual leaf) gets a copy of its
 * own, with no loop. */
INLINE const uint8_t *v_leaf(const uint8_t *end, const interp_prog *g, const uint8_t *p)
{
    const interp_step *at = g->final_check_steps.at;
    size_t nk = g->final_check_steps.count;
    if (nk == 1)
        return v_leaf_n(end, at, 1, p);
    return v_leaf_n(end, at, nk, p);
}

/* A struct value at level `depth`. */
INLINE const uint8_t *v_struct(rd *r, const interp_prog *g, const uint8_t *p, unsigned depth)
{
    if (g->final_fixed) {
        if (UNLIKELY((size_t)(r->end - p) < g->final_size))
            return sc_ffail(r, FBE_TRUNCATED, p);
        /* the struct's own level and the fixed_depth - 1 below it */
        if (UNLIKELY((uint64_t)depth + g->fixed_depth - 1 > r->max_depth) &&
            !sc_fv_fixed_depth(r, g->ir, p, depth))
            return NULL;
        return p + g->final_size;
    }
    if (UNLIKELY(depth > r->max_depth))
        return sc_ffail(r, FBE_TOO_DEEP, p);
    if (g->final_check_leaf) {
        const uint8_t *q = v_leaf(r->end, g, p);
        if (LIKELY(q != NULL))
            return q;
    }
    return v_fields(r, g, p, depth);
}

/* `count` leaf struct elements (not final_fixed, final_check_leaf: steps nk at
 * `at`) at level `depth`, known to be within the limit. */
INLINE const uint8_t *v_seq_leaves(rd *r, const interp_prog *g, const interp_step *at,
                                   size_t nk, const uint8_t *p, uint32_t count, unsigned depth)
{
    const uint8_t *end = r->end;
    if (nk == 1) {
        /* v_leaf_n with its two numbers in registers: the cold call below
         * could change them as far as the compiler knows */
        uint64_t head = at[0].need, next = at[1].need; /* SO_END: need == pre */
        for (; count; count--) {
            size_t room = (size_t)(end - p);
            if (LIKELY(room >= head)) {
                uint32_t len = rd32(p + head - 4);
                if (LIKELY((uint64_t)len + next <= room - head)) {
                    p += head + len + next;
                    continue;
                }
            }
            if (!(p = v_fields(r, g, p, depth)))
                return NULL;
        }
        return p;
    }
    for (; count; count--) {
        const uint8_t *q = v_leaf_n(end, at, nk, p);
        if (UNLIKELY(!q) && !(q = v_fields(r, g, p, depth)))
            return NULL;
        p = q;
    }
    return p;
}

/* vector, list, set: u32 count, then the elements (inline in v_fields, v_seq
 * elsewhere) */
INLINE const uint8_t *v_seq_inline(rd *r, const interp_node *n, const uint8_t *p,
                                   unsigned depth)
{
    size_t room = (size_t)(r->end - p);
    if (UNLIKELY(room < 4))
        return sc_ffail(r, FBE_TRUNCATED, p);
    uint32_t count = rd32(p);
    const interp_node *e = n->elem;
    if (UNLIKELY(!sc_count_fits(count, node_min(e), room - 4, (size_t)(r->end - r->data))))
        return sc_ffail(r, FBE_BAD_COUNT, p);
    p += 4;
    if (e->final_fixed) { /* the count check covered the bytes */
        if (count && e->op > OP_COPY16 && !v_fixed_ok(r, e, p, depth))
            return NULL;
        return p + (size_t)count * e->final_size;
    }
    if (e->op == OP_STRUCT) { /* v_any inline */
        const interp_prog *g = e->prog;
        if (!g->final_fixed && g->final_check_leaf && depth + 1 <= r->max_depth) {
            /* v_struct with what is the same for every element hoisted: only the
             * leaf's checks are left; an element that fails them is walked again
             * by v_fields, which finds and reports the problem */
            const interp_step *at = g->final_check_steps.at;
            size_t nk = g->final_check_steps.count;
            return v_seq_leaves(r, g, at, nk, p, count, depth + 1);
        }
        for (uint32_t i = 0; i < count && p; i++)
            p = v_struct(r, g, p, depth + 1);
        return p;
    }
    for (uint32_t i = 0; i < count && p; i++)
        p = v_any(r, e, p, depth);
    return p;
}

/* The fields of a struct that is not final_fixed, at level `depth` (checked). */
static const uint8_t *v_fields(rd *r, const interp_prog *g, const uint8_t *p, unsigned depth)
{
    const uint8_t *end = r->end;
    /* Fixed fields that cannot fail but for their bounds (scalars, arrays of them)
     * only add up: each step checks those before it (`pre`) at once. */
    const interp_step *s = g->final_check_steps.at;
#define PRE_(f)                                         \
    if (UNLIKELY((size_t)(end - p) < s->pre))           \
        return v_seg_fail(r, g, f, p);                  \
    p += s->pre
    STEP_BEGIN(V, s)
    STEP_CASE(V, SO_STRING): {
        /* PRE_ and v_string in two comparisons (`need`: pre + 4); when one
         * fails they are done again, one by one, to report it */
        size_t room = (size_t)(end - p);
        if (LIKELY(room >= s->need)) {
            uint32_t len = rd32(p + s->need - 4);
            if (LIKELY(len <= room - s->need)) {
                p += s->need + len;
                STEP_NEXT(V, s);
            }
        }
        PRE_(s->field);
        p = sc_fv_str(r, p);
        if (UNLIKELY(!p))
            goto failed;
        STEP_NEXT(V, s);
    }
    STEP_CASE(V, SO_STRUCT):
        PRE_(s->field);
        p = v_struct(r, s->prog, p, depth + 1);
        if (UNLIKELY(!p))
            goto failed;
        STEP_NEXT(V, s);
    STEP_CASE(V, SO_FIXED): /* a fixed struct or array holding structs */
        PRE_(s->field);
        if (UNLIKELY((size_t)(end - p) < s->len)) {
            sc_ffail(r, FBE_TRUNCATED, p);
            goto failed;
        }
        if (UNLIKELY(!v_fixed_ok(r, s->node, p, depth)))
            goto failed;
        p += s->len;
        STEP_NEXT(V, s);
    STEP_CASE(V, SO_OPT_STRUCT):
        PRE_(s->field);
        if (UNLIKELY(p == end)) {
            sc_ffail(r, FBE_TRUNCATED, p);
            goto failed;
        }
        if (*p++) {
            p = v_struct(r, s->prog, p, depth + 1);
            if (UNLIKELY(!p))
                goto failed;
        }
        STEP_NEXT(V, s);
    STEP_CASE(V, SO_SEQ):
        PRE_(s->field);
        p = v_seq_inline(r, s->node, p, depth);
        if (UNLIKELY(!p))
            goto failed;
        STEP_NEXT(V, s);
    STEP_CASE(V, SO_OPTIONAL):
    STEP_CASE(V, SO_ARRAY):
    STEP_CASE(V, SO_MAP):
        PRE_(s->field);
        p = v_complex(r, s->node, p, depth);
        if (UNLIKELY(!p))
            goto failed;
        STEP_NEXT(V, s);
    STEP_COPIES(V):
    STEP_CASE(V, SO_BOOL):
        UNREACHABLE(); /* fixed fields are added up */
    STEP_LEVEL(V, s, g)
    STEP_CASE(V, SO_END):
        PRE_(g->fields + g->field_count);
        return p;
    STEP_FINISH
#undef PRE_
failed:
    sc_fnote(r, g->ir, s->field->ir);
    return NULL;
}

static const uint8_t *v_seq(rd *r, const interp_node *n, const uint8_t *p, unsigned depth)
{
    return v_seq_inline(r, n, p, depth);
}

static const uint8_t *v_complex(rd *r, const interp_node *n, const uint8_t *p, unsigned depth)
{
    size_t room = (size_t)(r->end - p);
    if (n->final_fixed) { /* a struct or array made only of fixed parts */
        if (UNLIKELY(room < n->final_size))
            return sc_ffail(r, FBE_TRUNCATED, p);
        if (!v_fixed_ok(r, n, p, depth))
            return NULL;
        return p + n->final_size;
    }
    switch ((interp_op)n->op) {
    case OP_STRING:
        return sc_fv_str(r, p);
    case OP_STRUCT:
        return v_struct(r, n->prog, p, depth + 1);
    case OP_OPTIONAL:
        if (UNLIKELY(room < 1))
            return sc_ffail(r, FBE_TRUNCATED, p);
        if (!*p)
            return p + 1;
        return v_any(r, n->elem, p + 1, depth);
    case OP_OPT_STRUCT:
        if (UNLIKELY(room < 1))
            return sc_ffail(r, FBE_TRUNCATED, p);
        if (!*p)
            return p + 1;
        return v_struct(r, n->prog, p + 1, depth + 1);
    case OP_ARRAY: {
        const interp_node *e = n->elem;
        for (uint32_t i = 0; i < n->count && p; i++)
            p = v_any(r, e, p, depth);
        return p;
    }
    case OP_SEQ:
        return v_seq(r, n, p, depth);
    case OP_MAP: {
        if (UNLIKELY(room < 4))
            return sc_ffail(r, FBE_TRUNCATED, p);
        uint32_t count = rd32(p);
        const interp_node *k = n->key, *v = n->elem;
        if (UNLIKELY(!sc_count_fits(count, entry_min(n), room - 4, (size_t)(r->end - r->data))))
            return sc_ffail(r, FBE_BAD_COUNT, p);
        p += 4;
        if (k->final_fixed && v->final_fixed) {
            if (count) {
                if (k->op > OP_COPY16 && !v_fixed_ok(r, k, p, depth))
                    return NULL;
                if (v->op > OP_COPY16 && !v_fixed_ok(r, v, p + k->final_size, depth))
                    return NULL;
            }
            return p + (size_t)count * ((size_t)k->final_size + v->final_size);
        }
        for (uint32_t i = 0; i < count && p; i++) {
            p = v_any(r, k, p, depth);
            if (p)
                p = v_any(r, v, p, depth);
        }
        return p;
    }
    default:
        return p;
    }
}

fbe_status fbe_interp_final_verify(const fbe_type *type, const uint8_t *data, size_t size,
                                   fbe_verify_info *info, const fbe_decode_options *options)
{
    if (!type || (!data && size)) {
        if (info)
            *info = (fbe_verify_info){FBE_INVALID_ARGUMENT, 0, NULL, NULL};
        return FBE_INVALID_ARGUMENT;
    }
    const interp_prog *g = interp_prog_of(type);
    rd r = {.max_depth = options && options->max_depth ? options->max_depth : type->codec->max_depth};
    fbe_status st = sc_fchk_frame(&r, g->type_number, data, size);
    if (st == FBE_OK) {
        const uint8_t *q = v_struct(&r, g, data + 8, 1);
        if (!q)
            st = r.status;
        else if (q != r.end) {
            st = r.status = FBE_FINAL_SIZE;
            r.pos = (size_t)(q - data);
        }
    }
    if (info)
        *info = st == FBE_OK ? (fbe_verify_info){.status = FBE_OK}
                             : (fbe_verify_info){st, r.pos, r.type ? r.type : g->ir, r.field};
    return st;
}

/* ------------------------------ deserialize ------------------------------------- */

static const uint8_t *d_complex(rd *r, const interp_node *n, const uint8_t *p,
                                uint8_t *restrict dst, unsigned depth);
static const uint8_t *d_fields(rd *r, const interp_prog *g, const uint8_t *p,
                               uint8_t *restrict dst, unsigned depth);
static const uint8_t *d_opt_struct(rd *r, const interp_prog *g, const uint8_t *p,
                                   uint8_t *restrict dst, unsigned depth);
static const uint8_t *d_seq(rd *r, const interp_node *n, const uint8_t *p,
                            uint8_t *restrict dst, unsigned depth);
static const uint8_t *d_fixed(rd *r, const interp_node *n, const uint8_t *p,
                              uint8_t *restrict dst, unsigned depth);
static const uint8_t *d_fixed_slow(rd *r, const interp_node *n, const uint8_t *p,
                                   uint8_t *restrict dst, unsigned depth);

/* A scalar whose bytes are known to be there. */
INLINE const uint8_t *d_scalar(const interp_node *n, const uint8_t *p, uint8_t *restrict dst)
{
    return p + scalar_move(n->op, dst, p);
}

INLINE const uint8_t *d_struct(rd *r, const interp_prog *g, const uint8_t *p,
                               uint8_t *restrict dst, unsigned depth);

/* static_c.h's arena rule (sc_alloc) for a 64-bit size: NULL past SIZE_MAX. */
static inline void *d_alloc(rd *r, uint64_t size)
{
    if (UNLIKELY(size > SIZE_MAX))
        return NULL;
    return sc_alloc(r->arena, r->memory, (size_t)size);
}

/* One value inside a struct at level `depth`: the common kinds inline. */
INLINE const uint8_t *d_any(rd *r, const interp_node *n, const uint8_t *p,
                                   uint8_t *restrict dst, unsigned depth)
{
    if (n->op <= OP_COPY16) {
        if (UNLIKELY((size_t)(r->end - p) < n->final_size))
            return sc_ffail(r, FBE_TRUNCATED, p);
        return d_scalar(n, p, dst);
    }
    if (n->op == OP_STRING)
        return sc_fd_str(r, p, dst);
    if (n->op == OP_STRUCT)
        return d_struct(r, n->prog, p, dst, depth + 1);
    return d_complex(r, n, p, dst, depth);
}

/* A final_fixed struct at level `depth` whose bytes are known to be there, field
 * by field with every depth check: the reference for d_fixed_struct, run when its
 * depth check fails (so the error and the partial value are this walk's). */
COLD static const uint8_t *d_fixed_struct_slow(rd *r, const interp_prog *g, const uint8_t *p,
                                               uint8_t *restrict dst, unsigned depth)
{
    if (UNLIKELY(depth > r->max_depth))
        return sc_ffail(r, FBE_TOO_DEEP, p);
    if (g->field_count == 0) { /* the host's placeholder byte */
        memset(dst, 0, g->host_size);
        return p;
    }
    const interp_field *f = g->fields, *last = g->fields + g->field_count;
    for (; f < last; f++) {
        uint8_t *d = dst + f->host_offset;
        if (f->node.op <= OP_COPY16) {
            p = d_scalar(&f->node, p, d);
            continue;
        }
        /* a nested fixed struct or array */
        p = d_fixed_slow(r, &f->node, p, d, depth);
        if (UNLIKELY(!p)) {
            sc_fnote(r, g->ir, f->ir);
            return NULL;
        }
    }
    return p;
}

/* A final_fixed node inside a struct at level `depth`, bytes known to be there,
 * with every depth check (see d_fixed_struct_slow). */
COLD static const uint8_t *d_fixed_slow(rd *r, const interp_node *n, const uint8_t *p,
                                        uint8_t *restrict dst, unsigned depth)
{
    switch ((interp_op)n->op) {
    case OP_STRUCT:
        return d_fixed_struct_slow(r, n->prog, p, dst, depth + 1);
    case OP_ARRAY: {
        const interp_node *e = n->elem;
        if (is_copy(e)) {
            size_t len = (size_t)n->count * e->final_size;
            memcpy(dst, p, len);
            return p + len;
        }
        for (uint32_t i = 0; i < n->count && p; i++)
            p = e->op <= OP_COPY16 ? d_scalar(e, p, dst + (size_t)i * e->host_size)
                                   : d_fixed_slow(r, e, p, dst + (size_t)i * e->host_size, depth);
        return p;
    }
    default:
        return d_scalar(n, p, dst);
    }
}

static const uint8_t *d_fixed_fast(const interp_node *n, const uint8_t *p, uint8_t *restrict dst);

/* The fields of a final_fixed struct whose bytes are there and whose depth fits:
 * nothing can fail. */
static const uint8_t *d_fixed_fields(const interp_prog *g, const uint8_t *p, uint8_t *restrict dst)
{
    if (g->field_count == 0) { /* the host's placeholder byte */
        memset(dst, 0, g->host_size);
        return p;
    }
    const interp_step *s = g->final_steps.at;
#define D_ (dst + s->host_offset)
    STEP_BEGIN(X, s)
#define AFTER_(n)      \
    {                  \
        p += (n);      \
        STEP_NEXT(X, s); \
    }
    STEP_COPY_CASES(X, D_, p, s->len, STEP_NOTHING, AFTER_);
#undef AFTER_
    STEP_CASE(X, SO_BOOL):
        *(bool *)D_ = *p++ != 0;
        STEP_NEXT(X, s);
    STEP_CASE(X, SO_FIXED): /* a nested fixed struct or array */
        p = d_fixed_fast(s->node, p, D_);
        STEP_NEXT(X, s);
    STEP_CASE(X, SO_STRING):
    STEP_CASE(X, SO_STRUCT):
    STEP_CASE(X, SO_OPT_STRUCT):
    STEP_CASE(X, SO_SEQ):
    STEP_CASE(X, SO_OPTIONAL):
    STEP_CASE(X, SO_ARRAY):
    STEP_CASE(X, SO_MAP):
        UNREACHABLE(); /* a fixed struct holds nothing else */
    STEP_LEVEL(X, s, g)
    STEP_CASE(X, SO_END):
        return p;
    STEP_FINISH
#undef D_
}

/* A final_fixed node whose bytes are there and whose depth fits. */
static const uint8_t *d_fixed_fast(const interp_node *n, const uint8_t *p, uint8_t *restrict dst)
{
    switch ((interp_op)n->op) {
    case OP_STRUCT:
        return d_fixed_fields(n->prog, p, dst);
    case OP_ARRAY: {
        const interp_node *e = n->elem;
        if (is_copy(e)) {
            size_t len = (size_t)n->count * e->final_size;
            memcpy(dst, p, len);
            return p + len;
        }
        for (uint32_t i = 0; i < n->count; i++)
            p = e->op <= OP_COPY16 ? d_scalar(e, p, dst + (size_t)i * e->host_size)
                                   : d_fixed_fast(e, p, dst + (size_t)i * e->host_size);
        return p;
    }
    default:
        return d_scalar(n, p, dst);
    }
}

/* A final_fixed struct at level `depth` whose bytes are known to be there: one
 * depth check for all its levels (fixed_depth), then plain copies. */
static const uint8_t *d_fixed_struct(rd *r, const interp_prog *g, const uint8_t *p,
                                     uint8_t *restrict dst, unsigned depth)
{
    if (UNLIKELY((uint64_t)depth + g->fixed_depth - 1 > r->max_depth))
        return d_fixed_struct_slow(r, g, p, dst, depth);
    return d_fixed_fields(g, p, dst);
}

/* A final_fixed node inside a struct at level `depth`, bytes known to be there. */
static const uint8_t *d_fixed(rd *r, const interp_node *n, const uint8_t *p,
                              uint8_t *restrict dst, unsigned depth)
{
    if (UNLIKELY((uint64_t)depth + n->final_depth > r->max_depth))
        return d_fixed_slow(r, n, p, dst, depth);
    return d_fixed_fast(n, p, dst);
}

/* A failure in field f of g: f and every later field are zeroed (the value stays
 * safe to read), by the rule `fbec c` and native code follow (sc_zero_fields). */
COLD static const uint8_t *d_fail_field(rd *r, const interp_prog *g, const interp_field *f,
                                        uint8_t *restrict dst)
{
    sc_fnote(r, g->ir, f->ir);
    sc_zero_fields(dst, g->ir->fields, (size_t)(f - g->fields), g->field_count);
    return NULL;
}

/* Step s (a run of plain scalars, a bool or a fixed struct or array: s->len
 * bytes) does not fit: its fields are read one by one until the one that does
 * not, as a field-by-field walk would. */
COLD static const uint8_t *d_short(rd *r, const interp_prog *g, const interp_step *s,
                                   const uint8_t *p, uint8_t *restrict dst)
{
    /* the rule `fbec c` and native code follow (static_c.h): some field of the
     * step does not fit, so the walk ends in it, before the struct's last field */
    size_t i = (size_t)(s->field - g->fields);
    size_t k = sc_fd_run_short(r, p, dst, g->ir->fields + i, g->field_count - i);
    return d_fail_field(r, g, s->field + k, dst);
}

/* The fields of a non-fixed struct at level `depth` (already depth-checked). A
 * failing field and every later one are zeroed: the value stays safe to read. */
static const uint8_t *d_fields(rd *r, const interp_prog *g, const uint8_t *p,
                               uint8_t *restrict dst, unsigned depth)
{
    const uint8_t *end = r->end;
    const interp_step *s = g->final_steps.at;
/* the field in the host; a step of known size first checks its bytes are there */
#define D_ (dst + s->host_offset)
#define ROOM_(n)                                     \
    if (UNLIKELY((size_t)(end - p) < (n)))           \
        return d_short(r, g, s, p, dst)
#define AFTER_(n)      \
    {                  \
        p += (n);      \
        STEP_NEXT(D, s); \
    }
    STEP_BEGIN(D, s)
    STEP_COPY_CASES(D, D_, p, s->len, ROOM_, AFTER_);
    STEP_CASE(D, SO_BOOL):
        ROOM_(1);
        *(bool *)D_ = *p++ != 0;
        STEP_NEXT(D, s);
    STEP_CASE(D, SO_FIXED):
        ROOM_(s->len);
        p = d_fixed(r, s->node, p, D_, depth);
        if (UNLIKELY(!p))
            goto failed;
        STEP_NEXT(D, s);
    STEP_CASE(D, SO_STRING):
        p = sc_fd_str(r, p, D_);
        if (UNLIKELY(!p))
            goto failed;
        STEP_NEXT(D, s);
    STEP_CASE(D, SO_STRUCT):
        p = d_struct(r, s->prog, p, D_, depth + 1);
        if (UNLIKELY(!p))
            goto failed;
        STEP_NEXT(D, s);
    STEP_CASE(D, SO_OPT_STRUCT):
        p = d_opt_struct(r, s->prog, p, D_, depth);
        if (UNLIKELY(!p))
            goto failed;
        STEP_NEXT(D, s);
    STEP_CASE(D, SO_SEQ):
        p = d_seq(r, s->node, p, D_, depth);
        if (UNLIKELY(!p))
            goto failed;
        STEP_NEXT(D, s);
    STEP_CASE(D, SO_OPTIONAL):
    STEP_CASE(D, SO_ARRAY):
    STEP_CASE(D, SO_MAP):
        p = d_complex(r, s->node, p, D_, depth);
        if (UNLIKELY(!p))
            goto failed;
        STEP_NEXT(D, s);
    STEP_LEVEL(D, s, g)
    STEP_CASE(D, SO_END):
        return p;
    STEP_FINISH
#undef D_
#undef ROOM_
#undef AFTER_
failed:
    return d_fail_field(r, g, s->field, dst);
}

/* A struct value at level `depth`. */
INLINE const uint8_t *d_struct(rd *r, const interp_prog *g, const uint8_t *p,
                               uint8_t *restrict dst, unsigned depth)
{
    if (g->final_fixed) {
        if (UNLIKELY((size_t)(r->end - p) < g->final_size))
            return sc_ffail(r, FBE_TRUNCATED, p);
        return d_fixed_struct(r, g, p, dst, depth);
    }
    if (UNLIKELY(depth > r->max_depth))
        return sc_ffail(r, FBE_TOO_DEEP, p);
    return d_fields(r, g, p, dst, depth);
}

/* S?: a flag byte, then the struct; the pointer is NULL unless the struct was
 * read. */
static const uint8_t *d_opt_struct(rd *r, const interp_prog *g, const uint8_t *p,
                                   uint8_t *restrict dst, unsigned depth)
{
    *(void **)dst = NULL;
    if (UNLIKELY(r->end == p))
        return sc_ffail(r, FBE_TRUNCATED, p);
    if (!*p)
        return p + 1;
    p++;
    /* checks in v_struct's order, before allocating */
    if (g->final_fixed && UNLIKELY((size_t)(r->end - p) < g->final_size))
        return sc_ffail(r, FBE_TRUNCATED, p);
    if (UNLIKELY(depth + 1 > r->max_depth))
        return sc_ffail(r, FBE_TOO_DEEP, p);
    uint8_t *m = d_alloc(r, g->host_size);
    if (UNLIKELY(!m))
        return sc_ffail(r, FBE_NOMEM, p);
    const uint8_t *q = g->final_fixed ? d_fixed_struct(r, g, p, m, depth + 1)
                                      : d_fields(r, g, p, m, depth + 1);
    if (q)
        *(void **)dst = m;
    return q;
}

/* vector, list, set: u32 count, then the elements; the size stays 0 unless they
 * were all read. */
static const uint8_t *d_seq(rd *r, const interp_node *n, const uint8_t *p,
                            uint8_t *restrict dst, unsigned depth)
{
    size_t room = (size_t)(r->end - p);
    fbe_seq *s = (fbe_seq *)dst;
    *s = (fbe_seq){NULL, 0};
    if (UNLIKELY(room < 4))
        return sc_ffail(r, FBE_TRUNCATED, p);
    uint32_t count = rd32(p);
    const interp_node *e = n->elem;
    if (UNLIKELY(!sc_count_fits(count, node_min(e), room - 4, (size_t)(r->end - r->data))))
        return sc_ffail(r, FBE_BAD_COUNT, p);
    if (count == 0)
        return p + 4;
    uint8_t *m = d_alloc(r, (uint64_t)count * e->host_size);
    if (UNLIKELY(!m))
        return sc_ffail(r, FBE_NOMEM, p);
    p += 4;
    if (is_copy(e)) { /* the count check covered the bytes */
        size_t len = (size_t)count * e->final_size;
        memcpy(m, p, len);
        p += len;
    } else if (e->final_fixed) {
        for (uint32_t i = 0; i < count && p; i++)
            p = d_fixed(r, e, p, m + (size_t)i * e->host_size, depth);
    } else if (e->op == OP_STRUCT) { /* d_any inline */
        const interp_prog *g = e->prog;
        for (uint32_t i = 0; i < count && p; i++)
            p = d_struct(r, g, p, m + (size_t)i * e->host_size, depth + 1);
    } else {
        for (uint32_t i = 0; i < count && p; i++)
            p = d_any(r, e, p, m + (size_t)i * e->host_size, depth);
    }
    if (p)
        *s = (fbe_seq){m, count};
    return p;
}

static const uint8_t *d_complex(rd *r, const interp_node *n, const uint8_t *p,
                                uint8_t *restrict dst, unsigned depth)
{
    size_t room = (size_t)(r->end - p);
    if (n->final_fixed) { /* a struct or array made only of fixed parts */
        if (UNLIKELY(room < n->final_size))
            return sc_ffail(r, FBE_TRUNCATED, p);
        return d_fixed(r, n, p, dst, depth);
    }
    switch ((interp_op)n->op) {
    case OP_STRING:
        return sc_fd_str(r, p, dst);
    case OP_STRUCT:
        return d_struct(r, n->prog, p, dst, depth + 1);
    case OP_OPTIONAL: {
        memset(dst, 0, n->host_size); /* absent, value zero */
        if (UNLIKELY(room < 1))
            return sc_ffail(r, FBE_TRUNCATED, p);
        if (!*p)
            return p + 1;
        const uint8_t *q = d_any(r, n->elem, p + 1, dst + n->host_value_offset, depth);
        if (q)
            *(bool *)dst = true;
        return q;
    }
    case OP_OPT_STRUCT:
        return d_opt_struct(r, n->prog, p, dst, depth);
    case OP_ARRAY: {
        const interp_node *e = n->elem;
        for (uint32_t i = 0; i < n->count && p; i++)
            p = d_any(r, e, p, dst + (size_t)i * e->host_size, depth);
        return p;
    }
    case OP_SEQ:
        return d_seq(r, n, p, dst, depth);
    case OP_MAP: {
        fbe_seq *s = (fbe_seq *)dst;
        *s = (fbe_seq){NULL, 0};
        if (UNLIKELY(room < 4))
            return sc_ffail(r, FBE_TRUNCATED, p);
        uint32_t count = rd32(p);
        const interp_node *k = n->key, *v = n->elem;
        if (UNLIKELY(!sc_count_fits(count, entry_min(n), room - 4, (size_t)(r->end - r->data))))
            return sc_ffail(r, FBE_BAD_COUNT, p);
        if (count == 0)
            return p + 4;
        uint8_t *m = d_alloc(r, (uint64_t)count * n->entry_size);
        if (UNLIKELY(!m))
            return sc_ffail(r, FBE_NOMEM, p);
        p += 4;
        if (k->final_fixed && v->final_fixed) { /* the count check covered the bytes */
            for (uint32_t i = 0; i < count && p; i++) {
                uint8_t *entry = m + (size_t)i * n->entry_size;
                p = d_fixed(r, k, p, entry, depth);
                if (p)
                    p = d_fixed(r, v, p, entry + n->entry_value_offset, depth);
            }
        } else {
            for (uint32_t i = 0; i < count && p; i++) {
                uint8_t *entry = m + (size_t)i * n->entry_size;
                p = d_any(r, k, p, entry, depth);
                if (p)
                    p = d_any(r, v, p, entry + n->entry_value_offset, depth);
            }
        }
        if (p)
            *s = (fbe_seq){m, count};
        return p;
    }
    default:
        return p;
    }
}

fbe_status fbe_interp_final_deserialize(const fbe_type *type, const uint8_t *data, size_t size,
                                        void *value, const fbe_decode_options *options,
                                        size_t *consumed)
{
    if (consumed)
        *consumed = 0;
    if (!type || !value || !options || !options->arena || (!data && size))
        return FBE_INVALID_ARGUMENT;
    const interp_prog *g = interp_prog_of(type);
    fbe_decode_budget memory = {.max_memory = options->max_memory};
    rd r = {
        .max_depth = options->max_depth ? options->max_depth : type->codec->max_depth,
        .borrow = (options->flags & FBE_DECODE_BORROW) != 0,
        .arena = options->arena,
        .memory = &memory,
    };
    fbe_status st = sc_fchk_frame(&r, g->type_number, data, size);
    if (st != FBE_OK) {
        memset(value, 0, g->host_size);
        return st;
    }
    memory.input = (size_t)(r.end - data);
    const uint8_t *q = d_struct(&r, g, data + 8, value, 1);
    if (!q) {
        if (g->final_fixed) /* nothing to salvage, no pointers either */
            memset(value, 0, g->host_size);
        return fbe_decode_status(r.status, &memory);
    }
    if (q != r.end)
        return FBE_FINAL_SIZE;
    if (consumed)
        *consumed = (size_t)(r.end - data);
    return FBE_OK;
}
