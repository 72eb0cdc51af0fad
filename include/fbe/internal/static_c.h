/* The helpers the code `fbec c` writes calls (docs/static.md): wire access, the
 * checks of the standard and final readers in their documented order, arena
 * allocation with its bump path inline. The interpreter's readers (runtime/interp/std_read.c, final.c) use
 * the same reader state and checks (sc_rd, sc_frd, sc_chk_*, sc_fchk_frame,
 * sc_fv_str, sc_fail, sc_ffail): one copy of those rules; what only the
 * interpreter needs, which failure to report and what a failed read leaves,
 * is in runtime/interp/fail_rules.h.
 * Every number they need is an argument, a constant at each call site of
 * generated code, so the compiler folds them into straight-line code.
 *
 * Internal to fbe-c: installed because generated files include it, and versioned
 * with the runtime like fbe/aot.h (a generated file needs the header of the
 * fbe-c that wrote it). Only `static inline` functions and SC_ macros: it adds
 * no symbol to a program. */
#ifndef FBE_INTERNAL_STATIC_C_H
#define FBE_INTERNAL_STATIC_C_H

#include <stdbool.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <fbe/aot.h>
#include <fbe/internal/native.h>
#include <fbe/internal/sizes.h>

/* Host values have fbe-c's LP64 little-endian layout (docs/host-abi.md): scalars
 * are copied between host and wire as bytes. */
_Static_assert(sizeof(void *) == 8 && sizeof(size_t) == 8, "LP64 only");
_Static_assert(sizeof(bool) == 1, "bool is one byte");

#if defined(__GNUC__)
/* The JIT's handler bitcode (jit/handlers.c) lets its optimizer inline cold
 * helpers too: a reader state passed to an out-of-line call stays in memory. */
#ifndef SC_COLD
#define SC_COLD __attribute__((cold, noinline, unused))
#endif
#define SC_LIKELY(x) __builtin_expect(!!(x), 1)
#define SC_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* What the code cannot see but the callers' invariants guarantee. */
#if defined(__clang__)
#define SC_ASSUME(x) __builtin_assume(x)
#else
#define SC_ASSUME(x)                 \
    do {                             \
        if (!(x))                    \
            __builtin_unreachable(); \
    } while (0)
#endif
/* Every function of every type is generated; a schema may not use some. */
#define SC_UNUSED __attribute__((unused))
#else
#define SC_UNUSED
#ifndef SC_COLD
#define SC_COLD
#endif
#define SC_LIKELY(x) (x)
#define SC_UNLIKELY(x) (x)
#define SC_ASSUME(x) ((void)0)
#endif

/* Standard sizes stop growing usefully here (frame TOO_LARGE anyway); final
 * sizes saturate here. */
#define SC_CAP FBE_SIZE_CAP
#define SC_SAT FBE_FINAL_SAT

/* ---- wire and host access ---- */

static inline SC_UNUSED uint32_t sc_rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline SC_UNUSED void sc_wr32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

/* A string, bytes or collection in the host: {pointer, size_t}. */
typedef struct sc_view {
    const uint8_t *data;
    size_t size;
} sc_view;

static inline SC_UNUSED sc_view sc_view_at(const uint8_t *h)
{
    sc_view v;
    memcpy(&v, h, sizeof v);
    return v;
}

static inline SC_UNUSED void sc_set_view(uint8_t *h, const void *data, size_t size)
{
    sc_view v = {(const uint8_t *)data, size};
    memcpy(h, &v, sizeof v);
}

static inline SC_UNUSED const uint8_t *sc_ptr_at(const uint8_t *h)
{
    const uint8_t *p;
    memcpy(&p, h, sizeof p);
    return p;
}

static inline SC_UNUSED void sc_set_ptr(uint8_t *h, const void *p)
{
    memcpy(h, &p, sizeof p);
}

/* Two overlapping moves of W bytes cover any n in [W, 2W]. */
#define SC_COPY_OVERLAP_(W, T)                                                             \
    static inline SC_UNUSED void sc_copy_ov##W(uint8_t *dst, const uint8_t *src, size_t n) \
    {                                                                                      \
        T a, b;                                                                            \
        memcpy(&a, src, W);                                                                \
        memcpy(&b, src + n - W, W);                                                        \
        memcpy(dst, &a, W);                                                                \
        memcpy(dst + n - W, &b, W);                                                        \
    }
SC_COPY_OVERLAP_(2, uint16_t)
SC_COPY_OVERLAP_(4, uint32_t)
SC_COPY_OVERLAP_(8, uint64_t)
#undef SC_COPY_OVERLAP_

static inline SC_UNUSED void sc_copy_ov16(uint8_t *dst, const uint8_t *src, size_t n)
{
    sc_copy_ov8(dst, src, 16);
    sc_copy_ov8(dst + n - 16, src + n - 16, 16);
}

/* Copies n bytes between non-overlapping blocks, inline for the small sizes
 * strings usually have (never touching a byte outside [0, n)), memcpy above 16:
 * a written string's bytes. */
static inline SC_UNUSED void sc_copy_small(uint8_t *dst, const uint8_t *src, size_t n)
{
    if (n >= 8) {
        if (n > 16)
            memcpy(dst, src, n);
        else
            sc_copy_ov8(dst, src, n);
    } else if (n >= 4) {
        sc_copy_ov4(dst, src, n);
    } else if (n) {
        /* 1..3 bytes: first, middle, last (some coincide) */
        uint8_t x = src[0], y = src[n / 2], z = src[n - 1];
        dst[0] = x;
        dst[n / 2] = y;
        dst[n - 1] = z;
    }
}

/* n bytes that are bools: normalised to 0/1. */
static inline SC_UNUSED void sc_bools(uint8_t *dst, const uint8_t *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = src[i] != 0;
}

/* fbe_decode_alloc's bump path for n bytes, `rounded` being n rounded up to 16
 * (the same rounding and alignment), or SIZE_MAX for sizes only
 * fbe_decode_alloc may answer (zero, overflowing), on the cursor *ptr, *end of a's
 * current chunk, which a caller may keep apart from the arena (native code
 * keeps it in registers): when the chunk lacks room, the arena gets the cursor
 * back, fbe_decode_alloc allocates (a new chunk) and the cursor is the arena's
 * again. Before the first chunk both are NULL: no room (compared as integers,
 * subtracting null pointers is undefined). */
static inline SC_UNUSED void *sc_bump_at(char **ptr, char **end, fbe_arena *a,
                                         fbe_decode_budget *m, size_t n, size_t rounded)
{
    if (SC_LIKELY((uintptr_t)*end - (uintptr_t)*ptr >= rounded)) {
        void *p = *ptr;
        SC_ASSUME(p != NULL); /* a chunk has room: the callers' NULL test folds */
        *ptr += rounded;
        return p;
    }
    a->ptr = *ptr;
    void *p = fbe_decode_alloc(a, n, m);
    *ptr = a->ptr;
    *end = a->end;
    return p;
}

/* The arena's block for n <= SIZE_MAX - 15 bytes: n rounded up to 16, or
 * SIZE_MAX for n = 0, which no chunk has room for (fbe_decode_alloc decides). */
static inline SC_UNUSED size_t sc_rounded(size_t n)
{
    return n ? (n + 15) & ~(size_t)15 : SIZE_MAX;
}

/* fbe_decode_alloc with its bump path inline, on a cursor as sc_bump_at: a
 * zero or overflowing size never has room, fbe_decode_alloc decides. */
static inline SC_UNUSED void *sc_alloc_at(char **ptr, char **end, fbe_arena *a,
                                          fbe_decode_budget *m, size_t n)
{
    return sc_bump_at(ptr, end, a, m, n, SC_LIKELY(n <= SIZE_MAX - 15) ? sc_rounded(n) : SIZE_MAX);
}

static inline SC_UNUSED void *sc_alloc(fbe_arena *a, fbe_decode_budget *m, size_t n)
{
    return sc_alloc_at(&a->ptr, &a->end, a, m, n);
}

/* A read string's n bytes into its arena block (n + 1 bytes, which the arena
 * rounds up to 16): when n <= 16 and at least 16 - n readable bytes follow the
 * string (after), one 16-byte copy, else n bytes. The caller stores the NUL
 * after the string next. One unsigned compare: n > 16 wraps 16 - n past any
 * frame's size. Native code inlines this function (jit/handlers.c); no branch
 * weight, which cost the JIT's README deserialize 19 instructions (docs/jit.md). */
static inline SC_UNUSED void sc_copy_string(uint8_t *dst, const uint8_t *src, size_t n,
                                            uint64_t after)
{
    if (16 - (uint64_t)n <= after)
        memcpy(dst, src, 16);
    else
        memcpy(dst, src, n);
}

/* sc_alloc_at for a string's len + 1 bytes: the size is neither 0 nor near
 * overflowing, so only the room is tested. */
static inline SC_UNUSED void *sc_alloc_string_at(char **ptr, char **end, fbe_arena *a,
                                                 fbe_decode_budget *m, uint32_t len)
{
    size_t n = (size_t)len + 1;
    return sc_bump_at(ptr, end, a, m, n, sc_rounded(n));
}

/* A checked string's len bytes at src into host {pointer, size}: {NULL, 0}
 * when empty, borrowed, or copied into the arena on the cursor (sc_bump_at)
 * with a trailing NUL (`after`: the readable bytes of the frame after the
 * string, sc_copy_string). FBE_NOMEM leaves {NULL, 0}. The standard model's
 * string read in every backend (native code: the read_str handler); the final
 * model's (sc_fd_str, the JIT's w_string) keeps the same steps inline, which
 * measured faster there (docs/jit.md). */
static inline SC_UNUSED fbe_status sc_str_into(uint8_t *h, const uint8_t *src, uint32_t len,
                                               uint64_t after, bool borrow, char **ptr,
                                               char **end, fbe_arena *a, fbe_decode_budget *m)
{
    if (!len) {
        sc_set_view(h, NULL, 0);
        return FBE_OK;
    }
    if (borrow) {
        sc_set_view(h, src, len);
        return FBE_OK;
    }
    uint8_t *p = sc_alloc_string_at(ptr, end, a, m, len);
    if (SC_UNLIKELY(!p)) {
        sc_set_view(h, NULL, 0);
        return FBE_NOMEM;
    }
    sc_copy_string(p, src, len, after);
    p[len] = 0;
    sc_set_view(h, p, len);
    return FBE_OK;
}

/* ---- standard model: size and serialize ---- */

/* The extra bytes of a string: its block, the length clamped at SC_CAP. */
static inline SC_UNUSED uint64_t sc_str_extra(const uint8_t *h)
{
    size_t n = sc_view_at(h).size;
    return 4 + (n < SC_CAP ? (uint64_t)n : SC_CAP);
}

/* A collection block: 4 + count * inline size (count clamped). */
static inline SC_UNUSED uint64_t sc_block(size_t count, uint32_t inline_size)
{
    return 4 + (count < SC_CAP ? (uint64_t)count * inline_size : SC_CAP);
}

/* A string's block at `end`, its offset (relative to base) at pos. */
static inline SC_UNUSED uint8_t *sc_swrite_str(uint8_t *end, const uint8_t *h, uint8_t *pos,
                                     const uint8_t *base)
{
    sc_view s = sc_view_at(h);
    sc_wr32(pos, (uint32_t)(end - base));
    sc_wr32(end, (uint32_t)s.size);
    sc_copy_small(end + 4, s.data, s.size);
    return end + 4 + s.size;
}

/* ---- standard model: verify and deserialize ---- */

/* Positions are 64-bit offsets from the frame start; size is full_size once
 * the frame is checked; every region reached is charged to budget. */
typedef struct sc_rd {
    const uint8_t *data;
    uint64_t size;
    uint64_t budget;
    unsigned max_depth;
    fbe_arena *arena;
    fbe_decode_budget *memory;
    bool borrow;
    uint64_t err_pos;
    const fbe_ir_struct *err_type;
    const fbe_ir_field *err_field;
    bool located;
} sc_rd;

static SC_COLD fbe_status sc_fail(sc_rd *r, fbe_status st, uint64_t pos)
{
    r->err_pos = pos;
    return st;
}

/* Generated code takes valid frames of this schema's writers only: anything
 * else returns a failure through every level (any status: SC_BAIL where there
 * is none, e.g. a body an older writer made shorter), and the entry point hands
 * the frame to the interpreter, which answers (fbe/internal/native.h). */
#define SC_BAIL FBE_UNSUPPORTED

/* Runs e; on failure returns its status. */
#define SC_TRY(e)                             \
    do {                                      \
        fbe_status st_ = (e);                 \
        if (SC_UNLIKELY(st_ != FBE_OK))       \
            return st_;                       \
    } while (0)

/* Generated verify code failed: the interpreter finds why, from what the
 * reader holds (the frame, its header passed, and the depth limit in force),
 * so that the entry point keeps none of its arguments but type and info live
 * through the body. */
static SC_COLD fbe_status sc_sverify_failed(const fbe_type *type, const sc_rd *r,
                                            fbe_verify_info *info)
{
    fbe_decode_options limit = {.max_depth = r->max_depth};
    return fbe_interp_std_verify(type, r->data, (size_t)r->size, info, &limit);
}

static inline SC_UNUSED fbe_status sc_charge(sc_rd *r, uint64_t n, uint64_t pos)
{
    if (SC_UNLIKELY(n > r->budget))
        return sc_fail(r, FBE_TRAVERSAL_LIMIT, pos);
    r->budget -= n;
    return FBE_OK;
}

static inline SC_UNUSED fbe_status sc_chk_frame(sc_rd *r, const uint8_t *data, size_t size)
{
    r->data = data;
    if (SC_UNLIKELY(size < 8))
        return sc_fail(r, FBE_TRUNCATED, 0);
    uint32_t full = sc_rd32(data);
    if (SC_UNLIKELY(full < 8))
        return sc_fail(r, FBE_BAD_FRAME_SIZE, 0);
    if (SC_UNLIKELY(full > size))
        return sc_fail(r, FBE_TRUNCATED, 0);
    r->size = full;
    r->budget = full;
    return FBE_OK;
}

/* A string or bytes whose offset is at pos: *len = 0 for offset 0. */
static inline SC_UNUSED fbe_status sc_chk_string(sc_rd *r, uint64_t pos, uint64_t base,
                                       uint64_t *payload, uint32_t *len)
{
    uint32_t off = sc_rd32(r->data + pos);
    *len = 0;
    if (!off)
        return FBE_OK;
    uint64_t blk = base + off;
    if (SC_UNLIKELY(blk + 4 > r->size))
        return sc_fail(r, FBE_BAD_OFFSET, pos);
    uint32_t n = sc_rd32(r->data + blk);
    if (SC_UNLIKELY(n > r->size - (blk + 4)))
        return sc_fail(r, FBE_BAD_LENGTH, blk);
    *payload = blk + 4;
    *len = n;
    return sc_charge(r, 4 + (uint64_t)n, blk);
}

static inline SC_UNUSED fbe_status sc_sv_str(sc_rd *r, uint64_t pos, uint64_t base)
{
    uint64_t payload = 0;
    uint32_t len = 0;
    return sc_chk_string(r, pos, base, &payload, &len);
}

/* A struct reference at pos: the checks in the documented order. */
static inline SC_UNUSED fbe_status sc_chk_struct(sc_rd *r, uint32_t type_number, uint64_t pos,
                                       uint64_t base, unsigned depth, uint64_t *body,
                                       uint32_t *ssize)
{
    uint32_t off = sc_rd32(r->data + pos);
    if (SC_UNLIKELY(!off))
        return sc_fail(r, FBE_NULL_OFFSET, pos);
    uint64_t b = base + off;
    if (SC_UNLIKELY(b + 8 > r->size))
        return sc_fail(r, FBE_BAD_OFFSET, pos);
    uint32_t s = sc_rd32(r->data + b);
    if (SC_UNLIKELY(s < 8 || b + s > r->size))
        return sc_fail(r, FBE_BAD_STRUCT_SIZE, b);
    if (SC_UNLIKELY(sc_rd32(r->data + b + 4) != type_number))
        return sc_fail(r, FBE_BAD_TYPE, b + 4);
    if (SC_UNLIKELY(depth > r->max_depth))
        return sc_fail(r, FBE_TOO_DEEP, pos);
    *body = b;
    *ssize = s;
    return sc_charge(r, s, b);
}

/* An optional at pos whose slot holds inl bytes: *slot = 0 when absent. */
static inline SC_UNUSED fbe_status sc_chk_optional(sc_rd *r, uint64_t pos, uint64_t base, uint32_t inl,
                                         uint64_t *slot)
{
    *slot = 0;
    if (!r->data[pos])
        return FBE_OK;
    uint32_t off = sc_rd32(r->data + pos + 1);
    if (SC_UNLIKELY(!off))
        return sc_fail(r, FBE_NULL_OFFSET, pos + 1);
    uint64_t s = base + off;
    if (SC_UNLIKELY(s + inl > r->size))
        return sc_fail(r, FBE_BAD_OFFSET, pos + 1);
    *slot = s;
    return sc_charge(r, inl, s);
}

/* A collection block at the offset at pos, es (>= 1) bytes per element:
 * *count = 0 for offset 0, else the elements start at *elems. */
static inline SC_UNUSED fbe_status sc_chk_block(sc_rd *r, uint64_t pos, uint64_t base, uint32_t es,
                                      uint64_t *elems, uint32_t *count)
{
    uint32_t off = sc_rd32(r->data + pos);
    *count = 0;
    if (!off)
        return FBE_OK;
    uint64_t blk = base + off;
    if (SC_UNLIKELY(blk + 4 > r->size))
        return sc_fail(r, FBE_BAD_OFFSET, pos);
    uint32_t n = sc_rd32(r->data + blk);
    if (SC_UNLIKELY((uint64_t)n * es > r->size - blk - 4))
        return sc_fail(r, FBE_BAD_COUNT, blk);
    *elems = blk + 4;
    *count = n;
    return sc_charge(r, 4 + (uint64_t)n * es, blk);
}

/* A string or bytes into host {pointer, size}: copied into the arena (with a
 * trailing NUL) or borrowed; {NULL, 0} when empty or on failure. */
static inline SC_UNUSED fbe_status sc_sd_str(sc_rd *r, uint64_t pos, uint64_t base, uint8_t *h)
{
    uint64_t payload = 0;
    uint32_t len = 0;
    fbe_status st = sc_chk_string(r, pos, base, &payload, &len);
    if (SC_UNLIKELY(st != FBE_OK)) {
        sc_set_view(h, NULL, 0);
        return st;
    }
    return sc_str_into(h, r->data + payload, len, r->size - payload - len, r->borrow,
                       &r->arena->ptr, &r->arena->end, r->arena, r->memory);
}

/* Large arrays whose elements are not checked yet are verified first (with
 * the budget restored after), so hostile counts fail before allocating. */
static inline SC_UNUSED bool sc_precheck(const sc_rd *r, uint64_t bytes)
{
    return bytes > 4096 && bytes / 4 > r->budget;
}

/* ---- final model ---- */

typedef struct sc_frd {
    const uint8_t *data; /* frame start: error positions are relative to it */
    const uint8_t *end;  /* data + struct_size */
    unsigned max_depth;
    bool borrow;
    fbe_arena *arena;
    fbe_decode_budget *memory;
    fbe_status status;
    size_t pos;
    const fbe_ir_struct *type;
    const fbe_ir_field *field;
} sc_frd;

static SC_COLD const uint8_t *sc_ffail(sc_frd *r, fbe_status st, const uint8_t *at)
{
    r->status = st;
    r->pos = (size_t)(at - r->data);
    return NULL;
}

static inline SC_UNUSED size_t sc_room(const sc_frd *r, const uint8_t *p)
{
    return (size_t)(r->end - p);
}

/* Fewer than n bytes left at p (n may be 0: a function, so no warning). */
static inline SC_UNUSED bool sc_short(const sc_frd *r, const uint8_t *p, size_t n)
{
    return sc_room(r, p) < n;
}

/* p = e; on failure returns NULL (generated code: the entry hands the frame
 * to the interpreter). */
#define SC_FTRY(e)                         \
    do {                                   \
        p = (e);                           \
        if (SC_UNLIKELY(!p))               \
            return NULL;                   \
    } while (0)

/* Generated deserialize code failed: the arena goes back to where the call
 * found it (mark, and the budget's record of its chunks) and the interpreter's
 * deserialize of the model (interp) decodes the frame, which is the answer. */
static SC_COLD fbe_status sc_read_failed(fbe_deserialize_fn interp, const fbe_type *type,
                                         const uint8_t *data, size_t size, void *value,
                                         const fbe_decode_options *options, size_t *consumed,
                                         const fbe_decode_budget *memory, char *mark)
{
    fbe_native_arena_rewind(options->arena, memory, mark);
    return interp(type, data, size, value, options, consumed);
}

/* The final model's sc_sverify_failed. */
static SC_COLD fbe_status sc_fverify_failed(const fbe_type *type, const sc_frd *r,
                                            fbe_verify_info *info)
{
    fbe_decode_options limit = {.max_depth = r->max_depth};
    return fbe_interp_final_verify(type, r->data, (size_t)(r->end - r->data), info, &limit);
}

static inline SC_UNUSED fbe_status sc_fchk_frame(sc_frd *r, uint32_t type_number, const uint8_t *data,
                                size_t size)
{
    r->data = data;
    if (SC_UNLIKELY(size < 8)) {
        sc_ffail(r, FBE_TRUNCATED, data);
        return FBE_TRUNCATED;
    }
    uint32_t struct_size = sc_rd32(data);
    fbe_status st = FBE_OK;
    if (SC_UNLIKELY(struct_size < 8))
        st = FBE_BAD_FRAME_SIZE;
    else if (SC_UNLIKELY(struct_size > size))
        st = FBE_TRUNCATED;
    else if (SC_UNLIKELY(sc_rd32(data + 4) != type_number))
        st = FBE_BAD_TYPE;
    if (st != FBE_OK) {
        sc_ffail(r, st, st == FBE_BAD_TYPE ? data + 4 : data);
        return st;
    }
    r->end = data + struct_size;
    return FBE_OK;
}

/* Can `count` elements of at least `min` bytes each fit in `room`? Elements that
 * take no bytes (empty structs) are limited to one per byte of the whole frame:
 * what our own writer produces is accepted, and the host memory they need stays
 * proportional to the input. min is clamped at FBE_MIN_CLAMP, above any room,
 * so the product stays in 64 bits. */
static inline SC_UNUSED bool sc_count_fits(uint32_t count, uint64_t min, size_t room, size_t frame)
{
    if (min == 0)
        return count <= frame;
    if (min > FBE_MIN_CLAMP)
        min = FBE_MIN_CLAMP;
    return (uint64_t)count * min <= room;
}

/* A value of n fixed bytes (bounds only). */
static inline SC_UNUSED const uint8_t *sc_fv_fixed(sc_frd *r, const uint8_t *p, size_t n)
{
    if (SC_UNLIKELY(sc_room(r, p) < n))
        return sc_ffail(r, FBE_TRUNCATED, p);
    return p + n;
}

static inline SC_UNUSED const uint8_t *sc_fv_str(sc_frd *r, const uint8_t *p)
{
    size_t room = sc_room(r, p);
    if (SC_UNLIKELY(room < 4 || sc_rd32(p) > room - 4))
        return sc_ffail(r, FBE_TRUNCATED, p);
    return p + 4 + sc_rd32(p);
}

/* A scalar of n bytes that must still be bounds-checked. */
static inline SC_UNUSED const uint8_t *sc_fd_copy(sc_frd *r, const uint8_t *p, uint8_t *dst, size_t n)
{
    if (SC_UNLIKELY(sc_room(r, p) < n))
        return sc_ffail(r, FBE_TRUNCATED, p);
    memcpy(dst, p, n);
    return p + n;
}

static inline SC_UNUSED const uint8_t *sc_fd_bool(sc_frd *r, const uint8_t *p, uint8_t *dst)
{
    if (SC_UNLIKELY(sc_room(r, p) < 1))
        return sc_ffail(r, FBE_TRUNCATED, p);
    dst[0] = p[0] != 0;
    return p + 1;
}

static inline SC_UNUSED const uint8_t *sc_fd_str(sc_frd *r, const uint8_t *p, uint8_t *h)
{
    size_t room = sc_room(r, p);
    if (SC_UNLIKELY(room < 4 || sc_rd32(p) > room - 4)) {
        sc_set_view(h, NULL, 0);
        return sc_ffail(r, FBE_TRUNCATED, p);
    }
    uint32_t len = sc_rd32(p);
    if (!len) {
        sc_set_view(h, NULL, 0);
        return p + 4;
    }
    if (r->borrow) {
        sc_set_view(h, p + 4, len);
        return p + 4 + len;
    }
    uint8_t *m = sc_alloc_string_at(&r->arena->ptr, &r->arena->end, r->arena, r->memory, len);
    if (SC_UNLIKELY(!m)) {
        sc_set_view(h, NULL, 0);
        return sc_ffail(r, FBE_NOMEM, p);
    }
    sc_copy_string(m, p + 4, len, room - 4 - len);
    m[len] = 0;
    sc_set_view(h, m, len);
    return p + 4 + len;
}

/* The final_size of a string: 4 + its length, SC_SAT above 32 bits. */
static inline SC_UNUSED uint64_t sc_fstr_size(const uint8_t *h)
{
    size_t n = sc_view_at(h).size;
    return n > UINT32_MAX ? SC_SAT : 4 + (uint64_t)n;
}

static inline SC_UNUSED uint8_t *sc_fwrite_str(const uint8_t *h, uint8_t *w)
{
    sc_view s = sc_view_at(h);
    sc_wr32(w, (uint32_t)s.size);
    sc_copy_small(w + 4, s.data, s.size);
    return w + 4 + s.size;
}

#endif
