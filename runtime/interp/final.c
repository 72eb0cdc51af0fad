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
 * field fails zeroes that field and every later one. */
#include "program.h"

#if defined(__GNUC__)
#define COLD __attribute__((cold, noinline))
#define INLINE static inline __attribute__((always_inline))
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define COLD
#define INLINE static inline
#define UNLIKELY(x) (x)
#endif

/* Scalar ops come first: `op <= OP_COPY16` means a plain fixed-width value whose
 * host bytes are its wire bytes (BOOL aside, which is normalized). */
_Static_assert(OP_BOOL == 0 && OP_COPY1 == 1 && OP_COPY2 == 2 && OP_COPY4 == 3 &&
                   OP_COPY8 == 4 && OP_COPY16 == 5,
               "scalar ops first");

static inline bool is_copy(const interp_node *n)
{
    return n->op >= OP_COPY1 && n->op <= OP_COPY16;
}

/* ============================== size ============================================ */

/* Sizes are computed in 64 bits and clamped here: anything at or above this is
 * TOO_LARGE anyway, and clamping keeps the sums from wrapping. */
#define SAT ((uint64_t)1 << 40)

static uint64_t size_struct(const interp_prog *g, const uint8_t *src);
static uint64_t size_complex(const interp_node *n, const uint8_t *src);

INLINE uint64_t size_string(const uint8_t *src)
{
    size_t len = ((const fbe_string *)src)->size;
    return len > UINT32_MAX ? SAT : 4 + (uint64_t)len;
}

/* One value: the common kinds inline. */
INLINE uint64_t size_any(const interp_node *n, const uint8_t *src)
{
    if (n->final_fixed)
        return n->final_size;
    if (n->op == OP_STRING)
        return size_string(src);
    return size_complex(n, src);
}

static uint64_t size_complex(const interp_node *n, const uint8_t *src)
{
    switch ((interp_op)n->op) {
    case OP_STRING:
        return size_string(src);
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
            if (sum > SAT)
                return SAT;
        }
        return sum;
    }
    case OP_SEQ: {
        const fbe_seq *s = (const fbe_seq *)src;
        if (s->size > UINT32_MAX)
            return SAT;
        const interp_node *e = n->elem;
        if (e->final_fixed) {
            uint64_t sum = 4 + (uint64_t)s->size * e->final_size;
            return sum > SAT ? SAT : sum;
        }
        const uint8_t *d = s->data;
        uint64_t sum = 4;
        for (size_t i = 0; i < s->size; i++) {
            sum += size_any(e, d + i * e->host_size);
            if (sum > SAT)
                return SAT;
        }
        return sum;
    }
    case OP_MAP: {
        const fbe_seq *s = (const fbe_seq *)src;
        if (s->size > UINT32_MAX)
            return SAT;
        const interp_node *k = n->key, *v = n->elem;
        if (k->final_fixed && v->final_fixed) {
            uint64_t per = (uint64_t)k->final_size + v->final_size;
            if (per && s->size > SAT / per)
                return SAT;
            return 4 + s->size * per;
        }
        const uint8_t *d = s->data;
        uint64_t sum = 4;
        for (size_t i = 0; i < s->size; i++) {
            const uint8_t *entry = d + i * n->entry_size;
            sum += size_any(k, entry);
            sum += size_any(v, entry + n->entry_value_offset);
            if (sum > SAT)
                return SAT;
        }
        return sum;
    }
    default: /* scalars are final_fixed and never get here */
        return n->final_size;
    }
}

static uint64_t size_struct(const interp_prog *g, const uint8_t *src)
{
    if (g->final_fixed)
        return g->final_size;
    /* a fixed field adds less than 2^32: clamping after the others is enough */
    uint64_t sum = 0;
    const interp_field *f = g->fields, *last = g->fields + g->field_count;
    for (; f < last; f++) {
        const interp_node *n = &f->node;
        if (n->final_fixed) {
            sum += n->final_size;
        } else {
            sum += n->op == OP_STRING ? size_string(src + f->host_offset)
                                      : size_complex(n, src + f->host_offset);
            if (sum > SAT)
                return SAT;
        }
    }
    return sum;
}

size_t interp_final_size(const fbe_type *type, const void *value)
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
    case OP_STRING: {
        const fbe_string *s = (const fbe_string *)src;
        wr32(w, (uint32_t)s->size);
        if (s->size)
            memcpy(w + 4, s->data, s->size);
        return w + 4 + s->size;
    }
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

static uint8_t *w_struct(const interp_prog *g, const uint8_t *src, uint8_t *w)
{
    const interp_field *f = g->fields, *last = g->fields + g->field_count;
    for (; f < last; f++)
        w = w_any(&f->node, src + f->host_offset, w);
    return w;
}

fbe_status interp_final_serialize(const fbe_type *type, const void *value, fbe_buffer *out)
{
    if (!type || !value || !out)
        return FBE_INVALID_ARGUMENT;
    const interp_prog *g = interp_prog_of(type);
    uint64_t total = 8 + size_struct(g, value);
    if (total > UINT32_MAX)
        return FBE_TOO_LARGE;
    fbe_status st = fbe_buffer_reserve(out, (size_t)total);
    if (st != FBE_OK)
        return st;
    uint8_t *start = out->data + out->size;
    wr32(start, (uint32_t)total);
    wr32(start + 4, g->type_number);
    uint8_t *end = w_struct(g, value, start + 8);
    (void)end; /* == start + total: size_complex and w_complex mirror each other */
    out->size += (size_t)total;
    return FBE_OK;
}

/* ============================== reading ========================================= */

typedef struct rd {
    const uint8_t *data; /* frame start: error positions are relative to it */
    const uint8_t *end;  /* data + struct_size: nothing is read at or past it */
    unsigned max_depth;
    bool borrow;
    fbe_arena *arena;
    /* the first error */
    fbe_status status;
    size_t pos;
    const fbe_ir_struct *type;
    const fbe_ir_field *field;
} rd;

COLD static const uint8_t *fail(rd *r, fbe_status status, const uint8_t *at)
{
    r->status = status;
    r->pos = (size_t)(at - r->data);
    return NULL;
}

/* The innermost struct whose field failed (called while unwinding). */
COLD static void note_field(rd *r, const interp_prog *g, const interp_field *f)
{
    if (!r->type) {
        r->type = g->ir;
        r->field = f->ir;
    }
}

/* The smallest final encoding of one value (the node's final_min is only filled
 * for leaves: a non-fixed struct's is its program's, an array's is N times its
 * element's). Clamped at 2^32, above any count's room, so products stay in 64 bits. */
#define MIN_CLAMP ((uint64_t)1 << 32)

static uint64_t node_min(const interp_node *n)
{
    if (n->final_fixed)
        return n->final_size;
    switch ((interp_op)n->op) {
    case OP_STRUCT:
        return n->prog->final_min;
    case OP_ARRAY: {
        uint64_t m = (uint64_t)n->count * node_min(n->elem);
        return m > MIN_CLAMP ? MIN_CLAMP : m;
    }
    default:
        return n->final_min;
    }
}

/* Can `count` elements of at least `min` bytes each fit in `room`? Elements that
 * take no bytes (empty structs) are limited to one per byte of the whole frame:
 * what our own writer produces is accepted, and the host memory they need stays
 * proportional to the input. */
static inline bool count_fits(uint32_t count, uint64_t min, size_t room, size_t frame)
{
    if (min == 0)
        return count <= frame;
    if (min > MIN_CLAMP)
        min = MIN_CLAMP;
    return (uint64_t)count * min <= room;
}

static inline uint64_t entry_min(const interp_node *n)
{
    return node_min(n->key) + node_min(n->elem);
}

/* ------------------------------ verify ------------------------------------------ */

static bool v_fixed_depth(rd *r, const interp_node *n, const uint8_t *p, unsigned depth);

/* A final_fixed struct at level `depth`, already bounds-checked: only the nesting of
 * its struct levels can fail. */
static bool v_fixed_struct_depth(rd *r, const interp_prog *g, const uint8_t *p, unsigned depth)
{
    if (depth > r->max_depth) {
        fail(r, FBE_TOO_DEEP, p);
        return false;
    }
    /* most fields are scalars: only skip them, and find the position of a nested
     * struct or array when there is one */
    const interp_field *f = g->fields, *last = g->fields + g->field_count, *h = f;
    for (; f < last; f++) {
        if (f->node.op <= OP_COPY16)
            continue;
        for (; h < f; h++)
            p += h->node.final_size;
        if (!v_fixed_depth(r, &f->node, p, depth)) {
            note_field(r, g, f);
            return false;
        }
    }
    return true;
}

/* A final_fixed node inside a struct at level `depth`, already bounds-checked. All
 * elements of an array have the same shape: checking the first is enough. */
static bool v_fixed_depth(rd *r, const interp_node *n, const uint8_t *p, unsigned depth)
{
    while (n->op == OP_ARRAY) {
        if (n->count == 0)
            return true;
        n = n->elem;
    }
    if (n->op != OP_STRUCT)
        return true;
    return v_fixed_struct_depth(r, n->prog, p, depth + 1);
}

static const uint8_t *v_complex(rd *r, const interp_node *n, const uint8_t *p, unsigned depth);

static const uint8_t *v_struct(rd *r, const interp_prog *g, const uint8_t *p, unsigned depth);

INLINE const uint8_t *v_string(rd *r, const uint8_t *p)
{
    size_t room = (size_t)(r->end - p);
    if (UNLIKELY(room < 4 || rd32(p) > room - 4))
        return fail(r, FBE_TRUNCATED, p);
    return p + 4 + rd32(p);
}

/* One value inside a struct at level `depth`: the common kinds inline. */
INLINE const uint8_t *v_any(rd *r, const interp_node *n, const uint8_t *p, unsigned depth)
{
    if (n->op <= OP_COPY16) {
        if (UNLIKELY((size_t)(r->end - p) < n->final_size))
            return fail(r, FBE_TRUNCATED, p);
        return p + n->final_size;
    }
    if (n->op == OP_STRING)
        return v_string(r, p);
    if (n->op == OP_STRUCT)
        return v_struct(r, n->prog, p, depth + 1);
    return v_complex(r, n, p, depth);
}

/* The run of scalars just before field `f`, starting at p, does not fit: report
 * the first of them that does not, as a field-by-field walk would. */
COLD static const uint8_t *v_run_fail(rd *r, const interp_prog *g, const interp_field *f,
                                      const uint8_t *p)
{
    const interp_field *s = f;
    while (s > g->fields && s[-1].node.op <= OP_COPY16)
        s--;
    for (; s < f; s++) {
        if ((size_t)(r->end - p) < s->node.final_size)
            break;
        p += s->node.final_size;
    }
    fail(r, FBE_TRUNCATED, p);
    if (s < f)
        note_field(r, g, s);
    return NULL;
}

/* A struct value at level `depth`. */
static const uint8_t *v_struct(rd *r, const interp_prog *g, const uint8_t *p, unsigned depth)
{
    if (g->final_fixed) {
        if (UNLIKELY((size_t)(r->end - p) < g->final_size))
            return fail(r, FBE_TRUNCATED, p);
        if (!v_fixed_struct_depth(r, g, p, depth))
            return NULL;
        return p + g->final_size;
    }
    if (UNLIKELY(depth > r->max_depth))
        return fail(r, FBE_TOO_DEEP, p);
    /* Scalars only add up: each run of them is bounds-checked once, before the
     * next field that is not a scalar (or at the end). */
    const interp_field *f = g->fields, *last = g->fields + g->field_count;
    size_t run = 0;
    for (; f < last; f++) {
        const interp_node *n = &f->node;
        if (n->op <= OP_COPY16) {
            run += n->final_size;
            continue;
        }
        if (UNLIKELY((size_t)(r->end - p) < run))
            return v_run_fail(r, g, f, p);
        p += run;
        run = 0;
        if (n->op == OP_STRING)
            p = v_string(r, p);
        else if (n->op == OP_STRUCT)
            p = v_struct(r, n->prog, p, depth + 1);
        else
            p = v_complex(r, n, p, depth);
        if (UNLIKELY(!p)) {
            note_field(r, g, f);
            return NULL;
        }
    }
    if (UNLIKELY((size_t)(r->end - p) < run))
        return v_run_fail(r, g, last, p);
    return p + run;
}

static const uint8_t *v_complex(rd *r, const interp_node *n, const uint8_t *p, unsigned depth)
{
    size_t room = (size_t)(r->end - p);
    if (n->final_fixed) { /* a struct or array made only of fixed parts */
        if (UNLIKELY(room < n->final_size))
            return fail(r, FBE_TRUNCATED, p);
        if (!v_fixed_depth(r, n, p, depth))
            return NULL;
        return p + n->final_size;
    }
    switch ((interp_op)n->op) {
    case OP_STRING:
        return v_string(r, p);
    case OP_STRUCT:
        return v_struct(r, n->prog, p, depth + 1);
    case OP_OPTIONAL:
        if (UNLIKELY(room < 1))
            return fail(r, FBE_TRUNCATED, p);
        if (!*p)
            return p + 1;
        return v_any(r, n->elem, p + 1, depth);
    case OP_OPT_STRUCT:
        if (UNLIKELY(room < 1))
            return fail(r, FBE_TRUNCATED, p);
        if (!*p)
            return p + 1;
        return v_struct(r, n->prog, p + 1, depth + 1);
    case OP_ARRAY: {
        const interp_node *e = n->elem;
        for (uint32_t i = 0; i < n->count && p; i++)
            p = v_any(r, e, p, depth);
        return p;
    }
    case OP_SEQ: {
        if (UNLIKELY(room < 4))
            return fail(r, FBE_TRUNCATED, p);
        uint32_t count = rd32(p);
        const interp_node *e = n->elem;
        if (UNLIKELY(!count_fits(count, node_min(e), room - 4, (size_t)(r->end - r->data))))
            return fail(r, FBE_BAD_COUNT, p);
        p += 4;
        if (e->final_fixed) { /* the count check covered the bytes */
            if (count && e->op > OP_COPY16 && !v_fixed_depth(r, e, p, depth))
                return NULL;
            return p + (size_t)count * e->final_size;
        }
        for (uint32_t i = 0; i < count && p; i++)
            p = v_any(r, e, p, depth);
        return p;
    }
    case OP_MAP: {
        if (UNLIKELY(room < 4))
            return fail(r, FBE_TRUNCATED, p);
        uint32_t count = rd32(p);
        const interp_node *k = n->key, *v = n->elem;
        if (UNLIKELY(!count_fits(count, entry_min(n), room - 4, (size_t)(r->end - r->data))))
            return fail(r, FBE_BAD_COUNT, p);
        p += 4;
        if (k->final_fixed && v->final_fixed) {
            if (count) {
                if (k->op > OP_COPY16 && !v_fixed_depth(r, k, p, depth))
                    return NULL;
                if (v->op > OP_COPY16 && !v_fixed_depth(r, v, p + k->final_size, depth))
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

/* The frame header checks shared by verify and deserialize. */
static fbe_status check_frame(rd *r, const interp_prog *g, const uint8_t *data, size_t size)
{
    r->data = data;
    if (size < 8) {
        fail(r, FBE_TRUNCATED, data);
        return FBE_TRUNCATED;
    }
    uint32_t struct_size = rd32(data);
    fbe_status st = FBE_OK;
    if (struct_size < 8)
        st = FBE_BAD_FRAME_SIZE;
    else if (struct_size > size)
        st = FBE_TRUNCATED;
    if (st != FBE_OK) {
        fail(r, st, data);
        return st;
    }
    if (rd32(data + 4) != g->type_number) {
        fail(r, FBE_BAD_TYPE, data + 4);
        return FBE_BAD_TYPE;
    }
    r->end = data + struct_size;
    return FBE_OK;
}

fbe_status interp_final_verify(const fbe_type *type, const uint8_t *data, size_t size,
                               fbe_verify_info *info)
{
    if (!type || (!data && size)) {
        if (info)
            *info = (fbe_verify_info){FBE_INVALID_ARGUMENT, 0, NULL, NULL};
        return FBE_INVALID_ARGUMENT;
    }
    const interp_prog *g = interp_prog_of(type);
    rd r = {.max_depth = type->codec->max_depth};
    fbe_status st = check_frame(&r, g, data, size);
    if (st == FBE_OK) {
        const uint8_t *q = v_struct(&r, g, data + 8, 1);
        if (!q)
            st = r.status;
        else if (q != r.end) {
            st = r.status = FBE_FINAL_SIZE;
            r.pos = (size_t)(q - data);
        }
    }
    if (info) {
        info->status = st;
        info->offset = st == FBE_OK ? 0 : r.pos;
        info->type = r.type ? r.type : g->ir;
        info->field = r.field;
    }
    return st;
}

/* ------------------------------ deserialize ------------------------------------- */

static const uint8_t *d_complex(rd *r, const interp_node *n, const uint8_t *p,
                                uint8_t *restrict dst, unsigned depth);
static const uint8_t *d_fixed(rd *r, const interp_node *n, const uint8_t *p,
                              uint8_t *restrict dst, unsigned depth);

/* A scalar whose bytes are known to be there. */
INLINE const uint8_t *d_scalar(const interp_node *n, const uint8_t *p, uint8_t *restrict dst)
{
    switch ((interp_op)n->op) {
    case OP_BOOL:
        *(bool *)dst = *p != 0;
        return p + 1;
    case OP_COPY1:
        *dst = *p;
        return p + 1;
    case OP_COPY2:
        memcpy(dst, p, 2);
        return p + 2;
    case OP_COPY4:
        memcpy(dst, p, 4);
        return p + 4;
    case OP_COPY8:
        memcpy(dst, p, 8);
        return p + 8;
    default: /* OP_COPY16 */
        memcpy(dst, p, 16);
        return p + 16;
    }
}

static const uint8_t *d_struct(rd *r, const interp_prog *g, const uint8_t *p,
                               uint8_t *restrict dst, unsigned depth);

static void *d_alloc(rd *r, uint64_t size)
{
    if (size > SIZE_MAX)
        return NULL;
    return fbe_arena_alloc(r->arena, (size_t)size);
}

/* string and bytes: host {pointer, size_t}; empty is {NULL, 0} */
INLINE const uint8_t *d_string(rd *r, const uint8_t *p, fbe_string *s)
{
    size_t room = (size_t)(r->end - p);
    if (UNLIKELY(room < 4 || rd32(p) > room - 4)) {
        *s = (fbe_string){NULL, 0};
        return fail(r, FBE_TRUNCATED, p);
    }
    uint32_t len = rd32(p);
    if (len == 0) {
        *s = (fbe_string){NULL, 0};
    } else if (r->borrow) {
        *s = (fbe_string){(const char *)p + 4, len};
    } else {
        char *m = d_alloc(r, (uint64_t)len + 1);
        if (UNLIKELY(!m)) {
            *s = (fbe_string){NULL, 0};
            return fail(r, FBE_NOMEM, p);
        }
        memcpy(m, p + 4, len);
        m[len] = 0;
        *s = (fbe_string){m, len};
    }
    return p + 4 + len;
}

/* One value inside a struct at level `depth`: the common kinds inline. */
INLINE const uint8_t *d_any(rd *r, const interp_node *n, const uint8_t *p,
                                   uint8_t *restrict dst, unsigned depth)
{
    if (n->op <= OP_COPY16) {
        if (UNLIKELY((size_t)(r->end - p) < n->final_size))
            return fail(r, FBE_TRUNCATED, p);
        return d_scalar(n, p, dst);
    }
    if (n->op == OP_STRING)
        return d_string(r, p, (fbe_string *)dst);
    if (n->op == OP_STRUCT)
        return d_struct(r, n->prog, p, dst, depth + 1);
    return d_complex(r, n, p, dst, depth);
}

/* A final_fixed struct at level `depth` whose bytes are known to be there. */
static const uint8_t *d_fixed_struct(rd *r, const interp_prog *g, const uint8_t *p,
                                     uint8_t *restrict dst, unsigned depth)
{
    if (UNLIKELY(depth > r->max_depth))
        return fail(r, FBE_TOO_DEEP, p);
    if (g->field_count == 0) { /* the host's placeholder byte */
        memset(dst, 0, g->host_size);
        return p;
    }
    const interp_field *f = g->fields, *last = g->fields + g->field_count;
    for (; f < last; f++) {
        uint8_t *d = dst + f->host_offset;
        switch ((interp_op)f->node.op) {
        case OP_BOOL:
            *(bool *)d = *p != 0;
            p += 1;
            break;
        case OP_COPY1:
            *d = *p;
            p += 1;
            break;
        case OP_COPY2:
            memcpy(d, p, 2);
            p += 2;
            break;
        case OP_COPY4:
            memcpy(d, p, 4);
            p += 4;
            break;
        case OP_COPY8:
            memcpy(d, p, 8);
            p += 8;
            break;
        case OP_COPY16:
            memcpy(d, p, 16);
            p += 16;
            break;
        default: /* a nested fixed struct or array */
            p = d_fixed(r, &f->node, p, d, depth);
            if (UNLIKELY(!p)) {
                note_field(r, g, f);
                return NULL;
            }
            break;
        }
    }
    return p;
}

/* A final_fixed node inside a struct at level `depth`, bytes known to be there. */
static const uint8_t *d_fixed(rd *r, const interp_node *n, const uint8_t *p,
                              uint8_t *restrict dst, unsigned depth)
{
    switch ((interp_op)n->op) {
    case OP_STRUCT:
        return d_fixed_struct(r, n->prog, p, dst, depth + 1);
    case OP_ARRAY: {
        const interp_node *e = n->elem;
        if (is_copy(e)) {
            size_t len = (size_t)n->count * e->final_size;
            memcpy(dst, p, len);
            return p + len;
        }
        for (uint32_t i = 0; i < n->count && p; i++)
            p = e->op <= OP_COPY16 ? d_scalar(e, p, dst + (size_t)i * e->host_size)
                                   : d_fixed(r, e, p, dst + (size_t)i * e->host_size, depth);
        return p;
    }
    default:
        return d_scalar(n, p, dst);
    }
}

/* The fields of a non-fixed struct at level `depth` (already depth-checked). A
 * failing field and every later one are zeroed: the value stays safe to read. */
static const uint8_t *d_fields(rd *r, const interp_prog *g, const uint8_t *p,
                               uint8_t *restrict dst, unsigned depth)
{
    const uint8_t *end = r->end;
    const interp_field *f = g->fields, *last = g->fields + g->field_count;
    const uint8_t *q;
    for (; f < last; f++) {
        uint8_t *d = dst + f->host_offset;
        switch ((interp_op)f->node.op) {
        case OP_BOOL:
            if (UNLIKELY(end - p < 1))
                goto truncated;
            *(bool *)d = *p != 0;
            p += 1;
            continue;
        case OP_COPY1:
            if (UNLIKELY(end - p < 1))
                goto truncated;
            *d = *p;
            p += 1;
            continue;
        case OP_COPY2:
            if (UNLIKELY(end - p < 2))
                goto truncated;
            memcpy(d, p, 2);
            p += 2;
            continue;
        case OP_COPY4:
            if (UNLIKELY(end - p < 4))
                goto truncated;
            memcpy(d, p, 4);
            p += 4;
            continue;
        case OP_COPY8:
            if (UNLIKELY(end - p < 8))
                goto truncated;
            memcpy(d, p, 8);
            p += 8;
            continue;
        case OP_COPY16:
            if (UNLIKELY(end - p < 16))
                goto truncated;
            memcpy(d, p, 16);
            p += 16;
            continue;
        case OP_STRING:
            q = d_string(r, p, (fbe_string *)d);
            break;
        case OP_STRUCT:
            q = d_struct(r, f->node.prog, p, d, depth + 1);
            break;
        default:
            q = d_complex(r, &f->node, p, d, depth);
            break;
        }
        if (UNLIKELY(!q))
            goto failed;
        p = q;
    }
    return p;
truncated:
    fail(r, FBE_TRUNCATED, p);
failed:
    note_field(r, g, f);
    for (; f < last; f++)
        memset(dst + f->host_offset, 0, f->node.host_size);
    return NULL;
}

/* A struct value at level `depth`. */
static const uint8_t *d_struct(rd *r, const interp_prog *g, const uint8_t *p,
                               uint8_t *restrict dst, unsigned depth)
{
    if (g->final_fixed) {
        if (UNLIKELY((size_t)(r->end - p) < g->final_size))
            return fail(r, FBE_TRUNCATED, p);
        return d_fixed_struct(r, g, p, dst, depth);
    }
    if (UNLIKELY(depth > r->max_depth))
        return fail(r, FBE_TOO_DEEP, p);
    return d_fields(r, g, p, dst, depth);
}

static const uint8_t *d_complex(rd *r, const interp_node *n, const uint8_t *p,
                                uint8_t *restrict dst, unsigned depth)
{
    size_t room = (size_t)(r->end - p);
    if (n->final_fixed) { /* a struct or array made only of fixed parts */
        if (UNLIKELY(room < n->final_size))
            return fail(r, FBE_TRUNCATED, p);
        return d_fixed(r, n, p, dst, depth);
    }
    switch ((interp_op)n->op) {
    case OP_STRING:
        return d_string(r, p, (fbe_string *)dst);
    case OP_STRUCT:
        return d_struct(r, n->prog, p, dst, depth + 1);
    case OP_OPTIONAL: {
        memset(dst, 0, n->host_size); /* absent, value zero */
        if (UNLIKELY(room < 1))
            return fail(r, FBE_TRUNCATED, p);
        if (!*p)
            return p + 1;
        const uint8_t *q = d_any(r, n->elem, p + 1, dst + n->host_value_offset, depth);
        if (q)
            *(bool *)dst = true;
        return q;
    }
    case OP_OPT_STRUCT: {
        *(void **)dst = NULL;
        if (UNLIKELY(room < 1))
            return fail(r, FBE_TRUNCATED, p);
        if (!*p)
            return p + 1;
        p++;
        const interp_prog *g = n->prog;
        /* checks in v_struct's order, before allocating */
        if (g->final_fixed && UNLIKELY((size_t)(r->end - p) < g->final_size))
            return fail(r, FBE_TRUNCATED, p);
        if (UNLIKELY(depth + 1 > r->max_depth))
            return fail(r, FBE_TOO_DEEP, p);
        uint8_t *m = d_alloc(r, g->host_size);
        if (UNLIKELY(!m))
            return fail(r, FBE_NOMEM, p);
        const uint8_t *q = g->final_fixed ? d_fixed_struct(r, g, p, m, depth + 1)
                                          : d_fields(r, g, p, m, depth + 1);
        if (q)
            *(void **)dst = m;
        return q;
    }
    case OP_ARRAY: {
        const interp_node *e = n->elem;
        for (uint32_t i = 0; i < n->count && p; i++)
            p = d_any(r, e, p, dst + (size_t)i * e->host_size, depth);
        return p;
    }
    case OP_SEQ: {
        fbe_seq *s = (fbe_seq *)dst;
        *s = (fbe_seq){NULL, 0};
        if (UNLIKELY(room < 4))
            return fail(r, FBE_TRUNCATED, p);
        uint32_t count = rd32(p);
        const interp_node *e = n->elem;
        if (UNLIKELY(!count_fits(count, node_min(e), room - 4, (size_t)(r->end - r->data))))
            return fail(r, FBE_BAD_COUNT, p);
        if (count == 0)
            return p + 4;
        uint8_t *m = d_alloc(r, (uint64_t)count * e->host_size);
        if (UNLIKELY(!m))
            return fail(r, FBE_NOMEM, p);
        p += 4;
        if (is_copy(e)) { /* the count check covered the bytes */
            size_t len = (size_t)count * e->final_size;
            memcpy(m, p, len);
            p += len;
        } else if (e->final_fixed) {
            for (uint32_t i = 0; i < count && p; i++)
                p = d_fixed(r, e, p, m + (size_t)i * e->host_size, depth);
        } else {
            for (uint32_t i = 0; i < count && p; i++)
                p = d_any(r, e, p, m + (size_t)i * e->host_size, depth);
        }
        if (p)
            *s = (fbe_seq){m, count};
        return p;
    }
    case OP_MAP: {
        fbe_seq *s = (fbe_seq *)dst;
        *s = (fbe_seq){NULL, 0};
        if (UNLIKELY(room < 4))
            return fail(r, FBE_TRUNCATED, p);
        uint32_t count = rd32(p);
        const interp_node *k = n->key, *v = n->elem;
        if (UNLIKELY(!count_fits(count, entry_min(n), room - 4, (size_t)(r->end - r->data))))
            return fail(r, FBE_BAD_COUNT, p);
        if (count == 0)
            return p + 4;
        uint8_t *m = d_alloc(r, (uint64_t)count * n->entry_size);
        if (UNLIKELY(!m))
            return fail(r, FBE_NOMEM, p);
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

fbe_status interp_final_deserialize(const fbe_type *type, const uint8_t *data, size_t size,
                                    void *value, const fbe_decode_options *options,
                                    size_t *consumed)
{
    if (consumed)
        *consumed = 0;
    if (!type || !value || !options || !options->arena || (!data && size))
        return FBE_INVALID_ARGUMENT;
    const interp_prog *g = interp_prog_of(type);
    rd r = {
        .max_depth = options->max_depth ? options->max_depth : type->codec->max_depth,
        .borrow = (options->flags & FBE_DECODE_BORROW) != 0,
        .arena = options->arena,
    };
    fbe_status st = check_frame(&r, g, data, size);
    if (st != FBE_OK) {
        memset(value, 0, g->host_size);
        return st;
    }
    const uint8_t *q = d_struct(&r, g, data + 8, value, 1);
    if (!q) {
        if (g->final_fixed) /* nothing to salvage, no pointers either */
            memset(value, 0, g->host_size);
        return r.status;
    }
    if (q != r.end)
        return FBE_FINAL_SIZE;
    if (consumed)
        *consumed = (size_t)(r.end - data);
    return FBE_OK;
}
