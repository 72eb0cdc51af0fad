/* Final model: size, serialize, verify and deserialize, lowered per struct.
 * Mirrors runtime/interp/final.c (the semantic reference): the same sizes
 * (including its saturation at 2^40), the same checks in the same order with the
 * same statuses, error positions and (struct, field) attribution, the same depth
 * limit, the same arena allocations in the same order, the same host state on
 * failure. Every size, offset and type number is a constant taken from the IR;
 * the smallest encoding of a struct (count checks) is the interpreter program's.
 *
 * Functions per struct S:
 *   final_size.S   i64 (ptr value)                       bytes of the fields,
 *                  not saturated (size_struct saturates)
 *   final_write.S  ptr (ptr w, ptr value) -> w past the fields
 *   final_verify.S i64 (ptr data, i64 end, ptr info, i64 pos, i64 left, ptr rep)
 *   final_read.S   i64 (ptr data, i64 end, ptr options, i64 pos, ptr dst, i64 left)
 *   final_copy.S   void (ptr src, ptr dst)               fixed S, deserialize
 * `rep` is the struct failures are reported against: S, or a struct derived
 * from S, whose inherited fields S's functions walk (jit_inherited). Large
 * structs are lowered as trees of functions of the same signatures, each for a
 * range of fields (emit.h: jit_chunks).
 * verify and read return the position after S's fields, or -status. `pos` is
 * frame-relative (error positions are), `end` the frame size, `left` the number
 * of struct levels still allowed below S's own (max_depth - depth(S)).
 *
 * The caller of verify/read has done S's entry checks (its level against the
 * depth limit; for a final_fixed S also its bounds and every nested level),
 * because a failure there belongs to the caller's field, exactly as the
 * interpreter's note_field() unwinding attributes it.
 *
 * Specialisations:
 *   - a run of fields that are fixed and hold no struct level (scalars and
 *     arrays of them: fbe_interp_final_plain) and the header of the next field
 *     (string length, count, optional flag) are bounds-checked once; if that
 *     fails, the runtime's copy of the rule (fbe_native_final_run_verify /
 *     _read, static_c.h sc_frun_short, what `fbec c` calls too) finds the
 *     field a one-by-one walk fails at, reports it or reads the fields before
 *     it and zeroes the rest;
 *   - the struct levels inside a fixed value are depth-checked with one compare
 *     against their static height (cold path: fbe_native_final_depth, the
 *     static_c.h walk every backend uses, finds and reports the level);
 *   - counts are checked against the remaining bytes before anything is
 *     allocated or looped; runs of plain scalars are one memcpy;
 *   - serialize computes the size once, reserves once, writes the 8-byte frame
 *     header with one store, then writes sequentially with no checks;
 *   - deserialize takes fbe_arena_alloc's bump-pointer path inline (the call only
 *     when the chunk is full); strings of up to 16 bytes are copied inline.
 * Errors (AOT objects): verify reports through fbe_jit_verify_fail with the
 * struct and field as constants; deserialize zeroes the failing field and every
 * later one (the interpreter's d_fields), so the host value stays safe. In
 * process a failure only returns, and the entry point hands the frame to the
 * interpreter (fin.bail). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "emit_budget.h"
#include "interp/program.h"

enum { M_VERIFY, M_READ };

typedef struct fin {
    jit_emit *e;
    LLVMValueRef *copy_fn;  /* per struct; NULL unless fixed */
    uint32_t *reach;        /* per struct: struct_reach */
    uint64_t *trailing;     /* per struct: trailing_fixed */
    LLVMValueRef run_verify, run_read; /* fbe_native_final_run_verify / _read */
    LLVMValueRef zero_fields;          /* fbe_native_zero_fields */
    LLVMValueRef final_depth;          /* fbe_native_final_depth */
    /* in process: a failure returns a negative status at once, reporting or
     * zeroing nothing, and the entry point hands the frame to the
     * interpreter's verify or deserialize (jit_verify_bail_block,
     * jit_read_bail_block) */
    bool bail;
} fin;

/* ---- the IR, classified ---------------------------------------------------------- */

static bool is_scalar(const fbe_ir_type *t)
{
    return fbe_ir_kind_is_scalar(t->kind);
}

/* A scalar whose host bytes are its wire bytes (bool is normalized). */
static bool is_copy(const fbe_ir_type *t)
{
    return is_scalar(t) && t->kind != FBE_IR_BOOL;
}

static bool is_map(const fbe_ir_type *t)
{
    return t->kind == FBE_IR_MAP || t->kind == FBE_IR_HASH;
}

static bool is_collection(const fbe_ir_type *t)
{
    return t->kind >= FBE_IR_VECTOR && t->kind <= FBE_IR_HASH;
}

/* Bytes a non-fixed value starts with that are checked together with the fixed
 * fields before it: a length, a count, an optional's flag. */
static uint32_t header_size(const fbe_ir_type *t)
{
    if (t->final_fixed)
        return 0;
    switch (t->kind) {
    case FBE_IR_STRING: case FBE_IR_BYTES:
        return 4;
    case FBE_IR_OPTIONAL:
        return 1;
    default:
        return is_collection(t) ? 4 : 0;
    }
}

/* The most struct levels a frame of S can hold, S's own included (what the
 * depth limit counts), or UINT32_MAX: S is on a cycle (through an optional or a
 * collection), reaches one, or the walk went deeper than FBE_IR_MAX_NESTING
 * levels (which keeps the recursion shallow; an overestimate only costs the
 * fast path of define_entry_verify, never correctness). Memoized in reach[]
 * with state[]: 0 new, 1 in progress (met again: a cycle), 2 done. */
typedef struct reach_walk {
    jit_emit *e;
    uint32_t *reach;
    unsigned char *state;
} reach_walk;

static uint32_t type_reach(reach_walk *w, const fbe_ir_type *t, uint32_t level);

static uint32_t struct_reach(reach_walk *w, const fbe_ir_struct *st, uint32_t level)
{
    size_t i = jit_struct_index(w->e, st);
    if (w->state[i] == 2)
        return w->reach[i];
    if (w->state[i] == 1 || level > FBE_IR_MAX_NESTING)
        return UINT32_MAX;
    w->state[i] = 1;
    uint32_t h = 0;
    for (size_t k = 0; k < st->field_count; k++) {
        uint32_t fh = type_reach(w, st->fields[k].type, level + 1);
        if (fh > h)
            h = fh;
    }
    w->state[i] = 2;
    w->reach[i] = h == UINT32_MAX ? h : h + 1;
    return w->reach[i];
}

static uint32_t type_reach(reach_walk *w, const fbe_ir_type *t, uint32_t level)
{
    switch (t->kind) {
    case FBE_IR_STRUCT:
        return struct_reach(w, t->struct_type, level);
    case FBE_IR_OPTIONAL:
    case FBE_IR_ARRAY:
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
        return type_reach(w, t->elem, level);
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        uint32_t k = type_reach(w, t->key, level), v = type_reach(w, t->elem, level);
        return k > v ? k : v;
    }
    default:
        return 0;
    }
}

/* The first struct level inside a fixed value of height > 0. */
static const fbe_ir_struct *first_level(const fbe_ir_type *t)
{
    while (t->kind == FBE_IR_ARRAY)
        t = t->elem;
    return t->struct_type;
}

static jit_struct_fns *fns_of(jit_emit *e, const fbe_ir_struct *st)
{
    return &e->fns[jit_struct_index(e, st)];
}

/* ---- small builders ---------------------------------------------------------------- */

static LLVMValueRef call(jit_emit *e, LLVMValueRef fn, LLVMValueRef *args, unsigned n)
{
    return LLVMBuildCall2(e->b, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

static LLVMValueRef add(jit_emit *e, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildAdd(e->b, a, b, "");
}

static LLVMValueRef addc(jit_emit *e, LLVMValueRef a, uint64_t c)
{
    return c ? LLVMBuildAdd(e->b, a, jit_i64(e, c), "") : a;
}

static LLVMValueRef mulc(jit_emit *e, LLVMValueRef a, uint64_t c)
{
    return LLVMBuildMul(e->b, a, jit_i64(e, c), "");
}

static LLVMValueRef icmp(jit_emit *e, LLVMIntPredicate p, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildICmp(e->b, p, a, b, "");
}

static LLVMValueRef load64(jit_emit *e, LLVMValueRef slot)
{
    return LLVMBuildLoad2(e->b, e->i64, slot, "");
}

static void store(jit_emit *e, LLVMValueRef v, LLVMValueRef slot)
{
    LLVMBuildStore(e->b, v, slot);
}

/* Branches to a new cold block when cond holds; returns it, positioned at the
 * continuation. */
static LLVMBasicBlockRef branch_unlikely(jit_emit *e, LLVMValueRef cond, const char *name)
{
    LLVMBasicBlockRef bad = jit_block(e, name), ok = jit_block(e, "ok");
    LLVMBuildCondBr(e->b, jit_unlikely(e, cond), bad, ok);
    jit_position(e, ok);
    return bad;
}

static LLVMValueRef bool_byte(jit_emit *e, LLVMValueRef p)
{
    LLVMValueRef v = icmp(e, LLVMIntNE, jit_load(e, e->i8, p, 0), jit_i8(e, 0));
    return LLVMBuildZExt(e->b, v, e->i8, "");
}

/* ============================== size ============================================= */

static LLVMValueRef size_any(fin *F, const fbe_ir_type *t, LLVMValueRef p);

/* The fixed bytes after st's last field that is not fixed. */
static uint64_t trailing_fixed(const fbe_ir_struct *st)
{
    uint64_t sum = 0;
    for (size_t i = st->field_count; i-- > 0 && st->fields[i].type->final_fixed;)
        sum += st->fields[i].type->final_size;
    return sum;
}

/* The interpreter returns FBE_FINAL_SAT as soon as the sum passes it after a field that
 * is not fixed, else the sum. The sum only grows (every term is at most a
 * little over FBE_FINAL_SAT, and a struct's cannot wrap), so that check fired exactly
 * when the sum at the last such field passed FBE_FINAL_SAT: when final_size.S's exact
 * sum minus the fixed bytes after that field does. */
static LLVMValueRef size_struct(fin *F, const fbe_ir_struct *st, LLVMValueRef p)
{
    jit_emit *e = F->e;
    if (st->final_fixed)
        return jit_i64(e, st->final_size);
    LLVMValueRef sum = call(e, fns_of(e, st)->final_size, &p, 1);
    LLVMValueRef past =
        icmp(e, LLVMIntUGT, sum, jit_i64(e, FBE_FINAL_SAT + F->trailing[jit_struct_index(e, st)]));
    return LLVMBuildSelect(e->b, past, jit_i64(e, FBE_FINAL_SAT), sum, "");
}

/* t's size as a term of a saturating sum (add_sat): a struct's own sum
 * without size_struct's clamp. Where the clamp gives FBE_FINAL_SAT the sum is
 * larger, and either way the accumulator passes FBE_FINAL_SAT there or, as the
 * first term of an array, at the next term (at least 1: sizes that are not
 * fixed are) or as the array's last: the same result. The sum stays far from
 * wrapping: every term of it is clamped. */
static LLVMValueRef size_term(fin *F, const fbe_ir_type *t, LLVMValueRef p)
{
    if (t->kind == FBE_IR_STRUCT && !t->final_fixed)
        return call(F->e, fns_of(F->e, t->struct_type)->final_size, &p, 1);
    return size_any(F, t, p);
}

/* A string's final size: static_c.h's rule (sc_fstr_size). */
static LLVMValueRef size_string(jit_emit *e, LLVMValueRef p)
{
    return jit_call_handler(e, "fstr_size", &p, 1);
}

/* *acc += v; when the sum passes FBE_FINAL_SAT the whole value is FBE_FINAL_SAT (res, done). */
static void add_sat(jit_emit *e, LLVMValueRef acc, LLVMValueRef v, LLVMValueRef res,
                    LLVMBasicBlockRef done)
{
    LLVMValueRef s = add(e, load64(e, acc), v);
    store(e, s, acc);
    LLVMBasicBlockRef sat =
        branch_unlikely(e, icmp(e, LLVMIntUGT, s, jit_i64(e, FBE_FINAL_SAT)), "sat");
    LLVMBasicBlockRef cont = LLVMGetInsertBlock(e->b);
    jit_position(e, sat);
    store(e, jit_i64(e, FBE_FINAL_SAT), res);
    LLVMBuildBr(e->b, done);
    jit_position(e, cont);
}

static LLVMValueRef size_any(fin *F, const fbe_ir_type *t, LLVMValueRef p)
{
    jit_emit *e = F->e;
    if (t->final_fixed)
        return jit_i64(e, t->final_size);
    switch (t->kind) {
    case FBE_IR_STRING:
    case FBE_IR_BYTES:
        return size_string(e, p);
    case FBE_IR_STRUCT:
        return size_struct(F, t->struct_type, p);
    case FBE_IR_OPTIONAL: {
        const fbe_ir_type *in = t->elem;
        LLVMValueRef present, inner;
        if (in->kind == FBE_IR_STRUCT) {
            inner = jit_load(e, e->ptr, p, 0);
            present = LLVMBuildIsNotNull(e->b, inner, "");
        } else {
            inner = jit_gep_c(e, p, t->host_value_offset);
            present = icmp(e, LLVMIntNE, jit_load(e, e->i8, p, 0), jit_i8(e, 0));
        }
        if (in->final_fixed)
            return LLVMBuildSelect(e->b, present, jit_i64(e, 1 + (uint64_t)in->final_size),
                                   jit_i64(e, 1), "");
        LLVMValueRef res = jit_alloca(e, e->i64, "optsize");
        store(e, jit_i64(e, 1), res);
        jit_if c;
        jit_if_begin(e, &c, present);
        LLVMValueRef s = in->kind == FBE_IR_STRUCT ? size_struct(F, in->struct_type, inner)
                                                   : size_any(F, in, inner);
        store(e, addc(e, s, 1), res);
        jit_if_end(e, &c);
        return load64(e, res);
    }
    case FBE_IR_ARRAY: { /* not fixed: sum the elements, saturating */
        const fbe_ir_type *el = t->elem;
        LLVMValueRef res = jit_alloca(e, e->i64, "arrsize");
        LLVMValueRef acc = jit_alloca(e, e->i64, "acc");
        LLVMBasicBlockRef done = jit_block(e, "arrsize.done");
        store(e, jit_i64(e, 0), acc);
        if (t->array_len <= 8) {
            for (uint32_t i = 0; i < t->array_len; i++)
                add_sat(e, acc, size_term(F, el, jit_gep_c(e, p, (uint64_t)i * el->host_size)), res, done);
        } else {
            jit_loop loop;
            jit_loop_begin(e, &loop, jit_i64(e, t->array_len));
            LLVMValueRef i = jit_loop_index(e, &loop);
            add_sat(e, acc, size_term(F, el, jit_gep(e, p, mulc(e, i, el->host_size))), res, done);
            jit_loop_end(e, &loop);
        }
        store(e, load64(e, acc), res);
        LLVMBuildBr(e->b, done);
        jit_position(e, done);
        return load64(e, res);
    }
    default: { /* vector, list, set, map, hash */
        bool map = is_map(t);
        const fbe_ir_type *k = map ? t->key : NULL, *v = t->elem;
        LLVMValueRef n = jit_load(e, e->i64, p, offsetof(fbe_seq, size));
        LLVMValueRef res = jit_alloca(e, e->i64, "colsize");
        LLVMBasicBlockRef done = jit_block(e, "colsize.done");
        store(e, jit_i64(e, FBE_FINAL_SAT), res);
        LLVMBasicBlockRef big = branch_unlikely(e, icmp(e, LLVMIntUGT, n, jit_i64(e, UINT32_MAX)), "big");
        LLVMBasicBlockRef cont = LLVMGetInsertBlock(e->b);
        jit_position(e, big);
        LLVMBuildBr(e->b, done);
        jit_position(e, cont);
        if (!map && v->final_fixed) {
            LLVMValueRef s = addc(e, mulc(e, n, v->final_size), 4);
            s = LLVMBuildSelect(e->b, icmp(e, LLVMIntUGT, s, jit_i64(e, FBE_FINAL_SAT)),
                                jit_i64(e, FBE_FINAL_SAT), s, "");
            store(e, s, res);
        } else if (map && k->final_fixed && v->final_fixed) {
            uint64_t per = (uint64_t)k->final_size + v->final_size;
            LLVMValueRef s = addc(e, mulc(e, n, per), 4);
            if (per)
                s = LLVMBuildSelect(e->b, icmp(e, LLVMIntUGT, n, jit_i64(e, FBE_FINAL_SAT / per)),
                                    jit_i64(e, FBE_FINAL_SAT), s, "");
            store(e, s, res);
        } else {
            LLVMValueRef acc = jit_alloca(e, e->i64, "acc");
            store(e, jit_i64(e, 4), acc);
            LLVMValueRef items = jit_load(e, e->ptr, p, offsetof(fbe_seq, data));
            uint32_t stride = map ? t->host_entry_size : v->host_size;
            jit_loop loop;
            jit_loop_begin(e, &loop, n);
            LLVMValueRef item = jit_gep(e, items, mulc(e, jit_loop_index(e, &loop), stride));
            if (map) {
                LLVMValueRef ks = size_term(F, k, item);
                LLVMValueRef vs = size_term(F, v, jit_gep_c(e, item, t->host_entry_value_offset));
                add_sat(e, acc, add(e, ks, vs), res, done);
            } else {
                add_sat(e, acc, size_term(F, v, item), res, done);
            }
            jit_loop_end(e, &loop);
            store(e, load64(e, acc), res);
        }
        LLVMBuildBr(e->b, done);
        jit_position(e, done);
        return load64(e, res);
    }
    }
}

/* Size or serialize of fields [lo, hi) of st into fn (define_size_range,
 * define_write_range). */
typedef void define_range_fn(fin *F, const fbe_ir_struct *st, LLVMValueRef fn, size_t lo,
                             size_t hi, bool inherit, bool node);

/* The children of fn when it is a chunk node (`node` and more than
 * write_fields fields), each defined by `define` (a subtree of its own), *k of
 * them; NULL for a leaf. */
static LLVMValueRef *range_children(fin *F, const fbe_ir_struct *st, LLVMValueRef fn,
                                    const char *what, size_t lo, size_t hi, bool node,
                                    define_range_fn *define, size_t *k)
{
    *k = 0;
    if (!node || hi - lo <= jit_chunks.write_fields)
        return NULL;
    size_t span = jit_chunk_span(lo, hi, jit_chunks.write_fields);
    *k = (hi - lo + span - 1) / span;
    LLVMValueRef *fns = calloc(*k, sizeof *fns);
    if (!fns) { /* a leaf, well formed; the module is refused */
        F->e->out_of_memory = true;
        *k = 0;
        return NULL;
    }
    for (size_t c = 0; c < *k; c++) {
        size_t a = lo + c * span, b = a + span < hi ? a + span : hi;
        fns[c] = jit_chunk_fn(F->e, LLVMGlobalGetValueType(fn), what, st, a, b);
        define(F, st, fns[c], a, b, false, true);
    }
    return fns;
}

/* The bytes of fields [lo, hi) (not saturated), after the inherited ones when
 * `inherit`: a leaf, or (`node`) a node adding its children's. */
static void define_size_range(fin *F, const fbe_ir_struct *st, LLVMValueRef fn, size_t lo,
                              size_t hi, bool inherit, bool node)
{
    jit_emit *e = F->e;
    size_t k;
    LLVMValueRef *fns =
        range_children(F, st, fn, "final_size", lo, hi, node, define_size_range, &k);
    jit_begin_function(e, fn);
    LLVMValueRef v = LLVMGetParam(fn, 0);
    LLVMValueRef acc = jit_i64(e, 0);
    if (inherit) {
        const fbe_ir_struct *base = st->base;
        acc = base->final_fixed ? jit_i64(e, base->final_size)
                                : call(e, fns_of(e, base)->final_size, &v, 1);
    }
    for (size_t c = 0; c < k; c++)
        acc = add(e, acc, call(e, fns[c], &v, 1));
    for (size_t i = lo; !fns && i < hi; i++) {
        const fbe_ir_field *fd = &st->fields[i];
        if (fd->type->final_fixed)
            acc = addc(e, acc, fd->type->final_size);
        else
            acc = add(e, acc, size_any(F, fd->type, jit_gep_c(e, v, fd->host_offset)));
    }
    LLVMBuildRet(e->b, acc);
    free(fns);
}

static void define_size(fin *F, const fbe_ir_struct *st, jit_struct_fns *f)
{
    jit_emit *e = F->e;
    if (st->final_fixed) {
        jit_begin_function(e, f->final_size);
        LLVMBuildRet(e->b, jit_i64(e, st->final_size));
        return;
    }
    size_t lo = jit_inherited(e, st);
    define_size_range(F, st, f->final_size, lo, st->field_count, lo > 0, jit_write_chunked(st, lo));
}

/* ============================== serialize ======================================== */

static LLVMValueRef write_any(fin *F, const fbe_ir_type *t, LLVMValueRef src, LLVMValueRef w);

static LLVMValueRef write_struct(fin *F, const fbe_ir_struct *st, LLVMValueRef w, LLVMValueRef v)
{
    LLVMValueRef args[] = {w, v};
    return call(F->e, fns_of(F->e, st)->final_write, args, 2);
}

/* count elements of type el from src (host) to w; returns w past them. */
static LLVMValueRef write_elems(fin *F, const fbe_ir_type *el, LLVMValueRef src, LLVMValueRef n,
                                LLVMValueRef w)
{
    jit_emit *e = F->e;
    if (is_copy(el)) {
        LLVMValueRef len = mulc(e, n, el->final_size);
        jit_memcpy(e, w, src, len);
        return jit_gep(e, w, len);
    }
    LLVMValueRef slot = jit_alloca(e, e->ptr, "w");
    store(e, w, slot);
    jit_loop loop;
    jit_loop_begin(e, &loop, n);
    LLVMValueRef item = jit_gep(e, src, mulc(e, jit_loop_index(e, &loop), el->host_size));
    store(e, write_any(F, el, item, LLVMBuildLoad2(e->b, e->ptr, slot, "")), slot);
    jit_loop_end(e, &loop);
    return LLVMBuildLoad2(e->b, e->ptr, slot, "");
}

static LLVMValueRef write_any(fin *F, const fbe_ir_type *t, LLVMValueRef src, LLVMValueRef w)
{
    jit_emit *e = F->e;
    switch (t->kind) {
    case FBE_IR_BOOL:
        jit_store(e, bool_byte(e, src), w, 0);
        return jit_gep_c(e, w, 1);
    case FBE_IR_STRING:
    case FBE_IR_BYTES: { /* static_c.h's rule (sc_fwrite_str) */
        LLVMValueRef args[] = {src, w};
        return jit_call_handler(e, "fwrite_str", args, 2);
    }
    case FBE_IR_STRUCT:
        return write_struct(F, t->struct_type, w, src);
    case FBE_IR_OPTIONAL: {
        const fbe_ir_type *in = t->elem;
        LLVMValueRef present, obj = NULL;
        if (in->kind == FBE_IR_STRUCT) {
            obj = jit_load(e, e->ptr, src, 0);
            present = LLVMBuildIsNotNull(e->b, obj, "");
        } else {
            present = icmp(e, LLVMIntNE, jit_load(e, e->i8, src, 0), jit_i8(e, 0));
        }
        jit_store(e, LLVMBuildZExt(e->b, present, e->i8, ""), w, 0);
        LLVMValueRef w1 = jit_gep_c(e, w, 1);
        LLVMValueRef slot = jit_alloca(e, e->ptr, "w");
        store(e, w1, slot);
        jit_if c;
        jit_if_begin(e, &c, present);
        store(e, in->kind == FBE_IR_STRUCT ? write_struct(F, in->struct_type, w1, obj)
                                           : write_any(F, in, jit_gep_c(e, src, t->host_value_offset), w1),
              slot);
        jit_if_end(e, &c);
        return LLVMBuildLoad2(e->b, e->ptr, slot, "");
    }
    case FBE_IR_ARRAY: {
        const fbe_ir_type *el = t->elem;
        if (is_copy(el) || t->array_len > 8)
            return write_elems(F, el, src, jit_i64(e, t->array_len), w);
        for (uint32_t i = 0; i < t->array_len; i++)
            w = write_any(F, el, jit_gep_c(e, src, (uint64_t)i * el->host_size), w);
        return w;
    }
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET: {
        LLVMValueRef n = jit_load(e, e->i64, src, offsetof(fbe_seq, size));
        jit_store(e, LLVMBuildTrunc(e->b, n, e->i32, ""), w, 0);
        return write_elems(F, t->elem, jit_load(e, e->ptr, src, offsetof(fbe_seq, data)), n,
                           jit_gep_c(e, w, 4));
    }
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        LLVMValueRef n = jit_load(e, e->i64, src, offsetof(fbe_seq, size));
        LLVMValueRef items = jit_load(e, e->ptr, src, offsetof(fbe_seq, data));
        jit_store(e, LLVMBuildTrunc(e->b, n, e->i32, ""), w, 0);
        LLVMValueRef slot = jit_alloca(e, e->ptr, "w");
        store(e, jit_gep_c(e, w, 4), slot);
        jit_loop loop;
        jit_loop_begin(e, &loop, n);
        LLVMValueRef entry = jit_gep(e, items, mulc(e, jit_loop_index(e, &loop), t->host_entry_size));
        LLVMValueRef w2 = write_any(F, t->key, entry, LLVMBuildLoad2(e->b, e->ptr, slot, ""));
        w2 = write_any(F, t->elem, jit_gep_c(e, entry, t->host_entry_value_offset), w2);
        store(e, w2, slot);
        jit_loop_end(e, &loop);
        return LLVMBuildLoad2(e->b, e->ptr, slot, "");
    }
    default: { /* little-endian scalars: host bytes are wire bytes */
        jit_store(e, jit_load(e, jit_int_type(e, t->final_size), src, 0), w, 0);
        return jit_gep_c(e, w, t->final_size);
    }
    }
}

/* Fields [lo, hi) at w, after the inherited ones when `inherit`: a leaf, or
 * (`node`) a node calling its children in order. */
static void define_write_range(fin *F, const fbe_ir_struct *st, LLVMValueRef fn, size_t lo,
                               size_t hi, bool inherit, bool node)
{
    jit_emit *e = F->e;
    size_t k;
    LLVMValueRef *fns =
        range_children(F, st, fn, "final_write", lo, hi, node, define_write_range, &k);
    jit_begin_function(e, fn);
    LLVMValueRef args[] = {LLVMGetParam(fn, 0), LLVMGetParam(fn, 1)};
    if (inherit)
        args[0] = call(e, fns_of(e, st->base)->final_write, args, 2);
    for (size_t c = 0; c < k; c++)
        args[0] = call(e, fns[c], args, 2);
    for (size_t i = lo; !fns && i < hi;) {
        const fbe_ir_field *fd = &st->fields[i];
        size_t j = fbe_ir_plain_run(st->fields, i, hi);
        if (j > i) { /* fields whose host bytes are their wire bytes: one copy, as `fbec c` */
            uint64_t len = fbe_ir_plain_run_bytes(st->fields, i, j);
            jit_memcpy(e, args[0], jit_gep_c(e, args[1], fd->host_offset), jit_i64(e, len));
            args[0] = jit_gep_c(e, args[0], len);
            i = j;
            continue;
        }
        args[0] = write_any(F, fd->type, jit_gep_c(e, args[1], fd->host_offset), args[0]);
        i++;
    }
    LLVMBuildRet(e->b, args[0]);
    free(fns);
}

static void define_write(fin *F, const fbe_ir_struct *st, jit_struct_fns *f)
{
    size_t lo = jit_inherited(F->e, st);
    define_write_range(F, st, f->final_write, lo, st->field_count, lo > 0, jit_write_chunked(st, lo));
}

/* ============================== verify and read ================================== */

/* Copies a final_fixed value whose bytes are known to be there into the host. */
static void copy_fixed(fin *F, const fbe_ir_type *t, LLVMValueRef src, LLVMValueRef dst)
{
    jit_emit *e = F->e;
    switch (t->kind) {
    case FBE_IR_BOOL:
        jit_store(e, bool_byte(e, src), dst, 0);
        return;
    case FBE_IR_STRUCT: {
        LLVMValueRef args[] = {src, dst};
        call(e, F->copy_fn[jit_struct_index(e, t->struct_type)], args, 2);
        return;
    }
    case FBE_IR_ARRAY: {
        const fbe_ir_type *el = t->elem;
        if (is_copy(el)) {
            jit_memcpy(e, dst, src, jit_i64(e, t->final_size));
        } else if (t->array_len <= 8) {
            for (uint32_t i = 0; i < t->array_len; i++)
                copy_fixed(F, el, jit_gep_c(e, src, (uint64_t)i * el->final_size),
                           jit_gep_c(e, dst, (uint64_t)i * el->host_size));
        } else {
            jit_loop loop;
            jit_loop_begin(e, &loop, jit_i64(e, t->array_len));
            LLVMValueRef i = jit_loop_index(e, &loop);
            copy_fixed(F, el, jit_gep(e, src, mulc(e, i, el->final_size)),
                       jit_gep(e, dst, mulc(e, i, el->host_size)));
            jit_loop_end(e, &loop);
        }
        return;
    }
    default:
        jit_store(e, jit_load(e, jit_int_type(e, t->final_size), src, 0), dst, 0);
        return;
    }
}

static void define_copy(fin *F, const fbe_ir_struct *st, LLVMValueRef fn)
{
    jit_emit *e = F->e;
    jit_begin_function(e, fn);
    LLVMValueRef src = LLVMGetParam(fn, 0), dst = LLVMGetParam(fn, 1);
    if (st->field_count == 0) { /* the host's placeholder byte */
        jit_memset(e, dst, 0, jit_i64(e, st->host_size));
    } else {
        /* a fixed struct's base is fixed: its copy takes the inherited fields */
        size_t lo = jit_inherited(e, st);
        uint64_t off = 0;
        if (lo) {
            LLVMValueRef args[] = {src, dst};
            call(e, F->copy_fn[jit_struct_index(e, st->base)], args, 2);
            off = st->base->final_size;
        }
        for (size_t i = lo; i < st->field_count; i++) {
            const fbe_ir_field *fd = &st->fields[i];
            copy_fixed(F, fd->type, jit_gep_c(e, src, off), jit_gep_c(e, dst, fd->host_offset));
            off += fd->type->final_size;
        }
    }
    LLVMBuildRetVoid(e->b);
}

static void report(jit_emit *e, LLVMValueRef info, LLVMValueRef status, LLVMValueRef at,
                   const fbe_ir_struct *st, const fbe_ir_field *fd)
{
    LLVMValueRef args[] = {info, status, at, jit_host_ptr(e, st),
                           fd ? jit_host_ptr(e, fd) : LLVMConstPointerNull(e->ptr)};
    LLVMBuildCall2(e->b, e->fn_verify_fail_t, e->fn_verify_fail, args, 5, "");
}

static LLVMValueRef neg_status(jit_emit *e, fbe_status status)
{
    return jit_i64(e, (uint64_t)-(int64_t)status);
}

/* The state of one verify/read function while its struct's fields are walked. */
typedef struct walk {
    fin *F;
    jit_emit *e;
    int mode;
    const fbe_ir_struct *st; /* the struct being walked: errors are attributed to it */
    size_t fi;               /* and to this field */
    LLVMValueRef data, end, ctx, left;
    LLVMValueRef rep;        /* verify: the struct failures are reported against */
    LLVMValueRef pos;        /* alloca i64, frame-relative */
    LLVMValueRef st_slot;    /* alloca i64: -status of the failure */
    LLVMValueRef at_slot, field_slot; /* verify: where, which field */
    LLVMBasicBlockRef vfail;          /* verify: report and return */
    LLVMBasicBlockRef zfail;          /* read: zeroes fields zfrom.. of the walk, returns */
    LLVMValueRef zfrom;               /* read: alloca i64, a field index from lo */
    size_t lo, hi;                    /* the fields walked (chunks: emit.h) */
} walk;

static LLVMValueRef w_pos(walk *w)
{
    return load64(w->e, w->pos);
}

static void w_set_pos(walk *w, LLVMValueRef v)
{
    store(w->e, v, w->pos);
}

/* pos + n > end: n bytes at pos would run past the frame */
static LLVMValueRef w_past(walk *w, LLVMValueRef pos, uint64_t n)
{
    return icmp(w->e, LLVMIntUGT, addc(w->e, pos, n), w->end);
}

/* What final_read.* get as ctx: the caller's options, read at their own offsets,
 * and the call's decode budget (fbe/arena.h). */
typedef struct final_read_ctx {
    fbe_decode_options options;
    fbe_decode_budget memory;
} final_read_ctx;

static LLVMValueRef w_arena(walk *w)
{
    return jit_load(w->e, w->e->ptr, w->ctx, offsetof(fbe_decode_options, arena));
}

/* In process: a failure returns at once, nothing reported or zeroed (the
 * entry point then runs the interpreter's verify or deserialize). */
static bool w_bails(const walk *w)
{
    return w->F->bail;
}

static void w_fail(walk *w, fbe_status status, LLVMValueRef at)
{
    jit_emit *e = w->e;
    if (w_bails(w)) {
        LLVMBuildRet(e->b, neg_status(e, status));
        return;
    }
    store(e, neg_status(e, status), w->st_slot);
    if (w->mode == M_VERIFY) {
        store(e, at, w->at_slot);
        LLVMBuildStore(e->b, jit_host_ptr(e, &w->st->fields[w->fi]), w->field_slot);
        LLVMBuildBr(e->b, w->vfail);
    } else {
        store(e, jit_i64(e, w->fi - w->lo), w->zfrom);
        LLVMBuildBr(e->b, w->zfail);
    }
}

static void w_check(walk *w, LLVMValueRef cond, fbe_status status, LLVMValueRef at)
{
    LLVMBasicBlockRef bad = branch_unlikely(w->e, cond, "fail");
    LLVMBasicBlockRef cont = LLVMGetInsertBlock(w->e->b);
    jit_position(w->e, bad);
    w_fail(w, status, at);
    jit_position(w->e, cont);
}

/* A callee's failure (already reported, or its fields already zeroed): passed on. */
static void w_propagate(walk *w, LLVMValueRef r)
{
    jit_emit *e = w->e;
    LLVMBasicBlockRef bad = branch_unlikely(e, icmp(e, LLVMIntSLT, r, jit_i64(e, 0)), "nested");
    LLVMBasicBlockRef cont = LLVMGetInsertBlock(e->b);
    jit_position(e, bad);
    if (w->mode == M_VERIFY || w_bails(w)) {
        LLVMBuildRet(e->b, r);
    } else {
        store(e, r, w->st_slot);
        store(e, jit_i64(e, w->fi - w->lo), w->zfrom);
        LLVMBuildBr(e->b, w->zfail);
    }
    jit_position(e, cont);
}

/* The struct levels inside the fixed value t at `at` (bounds already checked). */
static void w_fixed_depth(walk *w, const fbe_ir_type *t, LLVMValueRef at)
{
    jit_emit *e = w->e;
    uint32_t h = fbe_interp_fixed_height(e->codec, t);
    if (h == 0)
        return;
    LLVMBasicBlockRef bad = branch_unlikely(e, icmp(e, LLVMIntSLT, w->left, jit_i64(e, h)), "deep");
    LLVMBasicBlockRef cont = LLVMGetInsertBlock(e->b);
    jit_position(e, bad);
    if (w->mode == M_READ || w_bails(w)) {
        w_fail(w, FBE_TOO_DEEP, at);
    } else {
        LLVMBasicBlockRef here = jit_block(e, "here"), deeper = jit_block(e, "deeper");
        LLVMBuildCondBr(e->b, icmp(e, LLVMIntSLT, w->left, jit_i64(e, 1)), here, deeper);
        jit_position(e, here);
        w_fail(w, FBE_TOO_DEEP, at);
        jit_position(e, deeper);
        LLVMValueRef args[] = {w->ctx, w->data, at, addc(e, w->left, (uint64_t)-1),
                               jit_host_ptr(e, first_level(t))};
        LLVMValueRef r = call(e, w->F->final_depth, args, 5);
        w_propagate(w, r);
        LLVMBuildBr(e->b, cont);
    }
    jit_position(e, cont);
}

/* Calls S's verify/read for the non-fixed struct at pos (entry checks done). */
static LLVMValueRef w_call_struct(walk *w, const fbe_ir_struct *st, LLVMValueRef pos,
                                  LLVMValueRef dst)
{
    jit_emit *e = w->e;
    LLVMValueRef left = addc(e, w->left, (uint64_t)-1);
    jit_struct_fns *f = fns_of(e, st);
    if (w->mode == M_VERIFY) {
        LLVMValueRef args[] = {w->data, w->end, w->ctx, pos, left, jit_host_ptr(e, st)};
        return call(e, f->final_verify, args, 6);
    }
    LLVMValueRef args[] = {w->data, w->end, w->ctx, pos, dst, left};
    return call(e, f->final_read, args, 6);
}

/* size bytes of the arena, or a read string's len + 1 (`string`), by
 * static_c.h's rule (sc_alloc_at, sc_alloc_string_at) on the arena's own
 * cursor; NOMEM fails at `at`. */
static LLVMValueRef w_alloc(walk *w, LLVMValueRef size, bool string, LLVMValueRef at)
{
    jit_emit *e = w->e;
    LLVMValueRef arena = w_arena(w);
    LLVMValueRef args[] = {jit_gep_c(e, arena, offsetof(fbe_arena, ptr)),
                           jit_gep_c(e, arena, offsetof(fbe_arena, end)), arena,
                           jit_gep_c(e, w->ctx, offsetof(final_read_ctx, memory)),
                           string ? LLVMBuildTrunc(e->b, size, e->i32, "") : size};
    LLVMValueRef m = jit_call_handler(e, string ? "alloc_string" : "alloc", args, 5);
    w_check(w, LLVMBuildIsNull(e->b, m, ""), FBE_NOMEM, at);
    return m;
}

static void w_value(walk *w, const fbe_ir_type *t, LLVMValueRef dst, uint32_t pre, bool depth_done);

static void w_string(walk *w, LLVMValueRef dst, uint32_t pre)
{
    jit_emit *e = w->e;
    LLVMValueRef pos = w_pos(w);
    if (pre < 4)
        w_check(w, w_past(w, pos, 4), FBE_TRUNCATED, pos);
    LLVMValueRef len = LLVMBuildZExt(e->b, jit_load_at(e, e->i32, w->data, pos), e->i64, "");
    LLVMValueRef next = add(e, addc(e, pos, 4), len);
    w_check(w, icmp(e, LLVMIntUGT, next, w->end), FBE_TRUNCATED, pos);
    if (w->mode == M_READ) {
        LLVMValueRef src = jit_gep(e, w->data, addc(e, pos, 4));
        LLVMBasicBlockRef empty = jit_block(e, "str.empty"), some = jit_block(e, "str.some");
        LLVMBasicBlockRef borrow = jit_block(e, "str.borrow"), copy = jit_block(e, "str.copy");
        LLVMBasicBlockRef done = jit_block(e, "str.done");
        LLVMBuildCondBr(e->b, icmp(e, LLVMIntEQ, len, jit_i64(e, 0)), empty, some);
        jit_position(e, empty);
        jit_store(e, LLVMConstPointerNull(e->ptr), dst, offsetof(fbe_string, data));
        jit_store(e, jit_i64(e, 0), dst, offsetof(fbe_string, size));
        LLVMBuildBr(e->b, done);
        jit_position(e, some);
        LLVMValueRef flags = jit_load(e, e->i32, w->ctx, offsetof(fbe_decode_options, flags));
        LLVMValueRef is_borrow = icmp(e, LLVMIntNE, LLVMBuildAnd(e->b, flags, jit_i32(e, FBE_DECODE_BORROW), ""),
                                      jit_i32(e, 0));
        LLVMBuildCondBr(e->b, is_borrow, borrow, copy);
        jit_position(e, borrow);
        jit_store(e, src, dst, offsetof(fbe_string, data));
        jit_store(e, len, dst, offsetof(fbe_string, size));
        LLVMBuildBr(e->b, done);
        jit_position(e, copy);
        LLVMValueRef m = w_alloc(w, len, true, pos);
        LLVMValueRef cargs[] = {m, src, len, LLVMBuildSub(e->b, w->end, next, "")};
        jit_call_handler(e, "copy_string", cargs, 4); /* sc_copy_string */
        jit_store_at(e, jit_i8(e, 0), m, len);
        jit_store(e, m, dst, offsetof(fbe_string, data));
        jit_store(e, len, dst, offsetof(fbe_string, size));
        LLVMBuildBr(e->b, done);
        jit_position(e, done);
    }
    w_set_pos(w, next);
}

static void w_optional(walk *w, const fbe_ir_type *t, LLVMValueRef dst, uint32_t pre)
{
    jit_emit *e = w->e;
    const fbe_ir_type *in = t->elem;
    bool is_struct = in->kind == FBE_IR_STRUCT;
    LLVMValueRef pos = w_pos(w);
    if (w->mode == M_READ) {
        if (is_struct)
            jit_store(e, LLVMConstPointerNull(e->ptr), dst, 0);
        else
            jit_memset(e, dst, 0, jit_i64(e, t->host_size)); /* absent, value zero */
    }
    if (pre < 1)
        w_check(w, w_past(w, pos, 1), FBE_TRUNCATED, pos);
    LLVMValueRef flag = jit_load_at(e, e->i8, w->data, pos);
    LLVMValueRef p1 = addc(e, pos, 1);
    w_set_pos(w, p1);
    jit_if c;
    jit_if_begin(e, &c, icmp(e, LLVMIntNE, flag, jit_i8(e, 0)));
    if (is_struct) {
        const fbe_ir_struct *st = in->struct_type;
        if (st->final_fixed)
            w_check(w, w_past(w, p1, st->final_size), FBE_TRUNCATED, p1);
        w_check(w, icmp(e, LLVMIntSLT, w->left, jit_i64(e, 1)), FBE_TOO_DEEP, p1);
        LLVMValueRef m = NULL;
        if (w->mode == M_READ)
            m = w_alloc(w, jit_i64(e, st->host_size), false, p1);
        if (st->final_fixed) {
            w_fixed_depth(w, in, p1); /* its own level passed: the nested ones */
            if (w->mode == M_READ) {
                LLVMValueRef args[] = {jit_gep(e, w->data, p1), m};
                call(e, w->F->copy_fn[jit_struct_index(e, st)], args, 2);
            }
            w_set_pos(w, addc(e, p1, st->final_size));
        } else {
            LLVMValueRef r = w_call_struct(w, st, p1, m);
            w_propagate(w, r);
            w_set_pos(w, r);
        }
        if (w->mode == M_READ)
            jit_store(e, m, dst, 0);
    } else {
        w_value(w, in, w->mode == M_READ ? jit_gep_c(e, dst, t->host_value_offset) : NULL, 0, false);
        if (w->mode == M_READ)
            jit_store(e, jit_i8(e, 1), dst, 0);
    }
    jit_if_end(e, &c);
}

/* Element i of a host array. */
static LLVMValueRef w_item(walk *w, LLVMValueRef base, LLVMValueRef i, uint64_t stride)
{
    if (w->mode != M_READ)
        return NULL;
    return jit_gep(w->e, base, mulc(w->e, i, stride));
}

static bool is_plain_struct(const fbe_ir_type *t)
{
    return t->kind == FBE_IR_STRUCT && !t->final_fixed;
}

/* A non-fixed T[N]: each element checked as it is read. */
static void w_array(walk *w, const fbe_ir_type *t, LLVMValueRef dst)
{
    jit_emit *e = w->e;
    const fbe_ir_type *el = t->elem;
    /* every element checks the same depth first: the first one's check suffices */
    bool hoist = is_plain_struct(el);
    if (hoist)
        w_check(w, icmp(e, LLVMIntSLT, w->left, jit_i64(e, 1)), FBE_TOO_DEEP, w_pos(w));
    if (t->array_len <= 8) {
        for (uint32_t i = 0; i < t->array_len; i++)
            w_value(w, el, w->mode == M_READ ? jit_gep_c(e, dst, (uint64_t)i * el->host_size) : NULL,
                    0, hoist);
    } else {
        jit_loop loop;
        jit_loop_begin(e, &loop, jit_i64(e, t->array_len));
        w_value(w, el, w_item(w, dst, jit_loop_index(e, &loop), el->host_size), 0, hoist);
        jit_loop_end(e, &loop);
    }
}

/* vector, list, set, map, hash: u32 count, then the elements. */
static void w_collection(walk *w, const fbe_ir_type *t, LLVMValueRef dst, uint32_t pre)
{
    jit_emit *e = w->e;
    bool map = is_map(t);
    const fbe_ir_type *k = map ? t->key : NULL, *v = t->elem;
    uint32_t stride = map ? t->host_entry_size : v->host_size;
    LLVMValueRef pos = w_pos(w);
    if (w->mode == M_READ) {
        jit_store(e, LLVMConstPointerNull(e->ptr), dst, offsetof(fbe_seq, data));
        jit_store(e, jit_i64(e, 0), dst, offsetof(fbe_seq, size));
    }
    if (pre < 4)
        w_check(w, w_past(w, pos, 4), FBE_TRUNCATED, pos);
    LLVMValueRef count = LLVMBuildZExt(e->b, jit_load_at(e, e->i32, w->data, pos), e->i64, "");
    uint64_t min = fbe_interp_count_min(e->codec, t);
    LLVMValueRef room = LLVMBuildSub(e->b, w->end, addc(e, pos, 4), "");
    LLVMValueRef too_many = min ? icmp(e, LLVMIntUGT, mulc(e, count, min), room)
                                : icmp(e, LLVMIntUGT, count, w->end);
    w_check(w, too_many, FBE_BAD_COUNT, pos);
    LLVMValueRef p4 = addc(e, pos, 4);
    w_set_pos(w, p4);
    LLVMValueRef nonzero = icmp(e, LLVMIntNE, count, jit_i64(e, 0));
    LLVMBasicBlockRef after = jit_block(e, "col.done");
    LLVMValueRef m = NULL;
    if (w->mode == M_READ) {
        LLVMBasicBlockRef some = jit_block(e, "col.some");
        LLVMBuildCondBr(e->b, nonzero, some, after);
        jit_position(e, some);
        m = w_alloc(w, mulc(e, count, stride), false, pos);
    }
    bool fixed = map ? k->final_fixed && v->final_fixed : v->final_fixed;
    if (fixed) {
        /* the count check covered the bytes; every element has the same shape,
         * the first one's depth check suffices */
        uint32_t ks = map ? k->final_size : 0;
        uint32_t hk = map ? fbe_interp_fixed_height(e->codec, k) : 0;
        uint32_t hv = fbe_interp_fixed_height(e->codec, v);
        if (hk || hv) {
            jit_if c;
            bool guard = w->mode == M_VERIFY; /* read: count > 0 here */
            if (guard)
                jit_if_begin(e, &c, nonzero);
            if (hk)
                w_fixed_depth(w, k, p4);
            if (hv)
                w_fixed_depth(w, v, addc(e, p4, ks));
            if (guard)
                jit_if_end(e, &c);
        }
        uint64_t per = (uint64_t)ks + v->final_size;
        if (w->mode == M_READ) {
            LLVMValueRef src = jit_gep(e, w->data, p4);
            if (!map && is_copy(v)) {
                jit_memcpy(e, m, src, mulc(e, count, v->final_size));
            } else {
                jit_loop loop;
                jit_loop_begin(e, &loop, count);
                LLVMValueRef i = jit_loop_index(e, &loop);
                LLVMValueRef s = jit_gep(e, src, mulc(e, i, per));
                LLVMValueRef d = jit_gep(e, m, mulc(e, i, stride));
                if (map) {
                    copy_fixed(w->F, k, s, d);
                    copy_fixed(w->F, v, jit_gep_c(e, s, ks), jit_gep_c(e, d, t->host_entry_value_offset));
                } else {
                    copy_fixed(w->F, v, s, d);
                }
                jit_loop_end(e, &loop);
            }
        }
        w_set_pos(w, add(e, p4, mulc(e, count, per)));
    } else {
        const fbe_ir_type *first = map ? k : v;
        bool hoist = is_plain_struct(first);
        if (hoist) {
            LLVMValueRef deep = icmp(e, LLVMIntSLT, w->left, jit_i64(e, 1));
            if (w->mode == M_VERIFY)
                deep = LLVMBuildAnd(e->b, deep, nonzero, "");
            w_check(w, deep, FBE_TOO_DEEP, p4);
        }
        jit_loop loop;
        jit_loop_begin(e, &loop, count);
        LLVMValueRef item = w_item(w, m, jit_loop_index(e, &loop), stride);
        if (map) {
            w_value(w, k, item, 0, hoist);
            w_value(w, v, item ? jit_gep_c(e, item, t->host_entry_value_offset) : NULL, 0, false);
        } else {
            w_value(w, v, item, 0, hoist);
        }
        jit_loop_end(e, &loop);
    }
    if (w->mode == M_READ) {
        jit_store(e, m, dst, offsetof(fbe_seq, data));
        jit_store(e, count, dst, offsetof(fbe_seq, size));
    }
    LLVMBuildBr(e->b, after);
    jit_position(e, after);
}

/* One value at pos, checked as the interpreter's d_any/v_any does; `pre` bytes of
 * it were already bounds-checked, `depth_done`: its struct level too. */
static void w_value(walk *w, const fbe_ir_type *t, LLVMValueRef dst, uint32_t pre, bool depth_done)
{
    jit_emit *e = w->e;
    if (t->final_fixed) {
        LLVMValueRef pos = w_pos(w);
        if (pre < t->final_size)
            w_check(w, w_past(w, pos, t->final_size), FBE_TRUNCATED, pos);
        w_fixed_depth(w, t, pos); /* depth_done is only ever set for non-fixed structs */
        if (w->mode == M_READ)
            copy_fixed(w->F, t, jit_gep(e, w->data, pos), dst);
        w_set_pos(w, addc(e, pos, t->final_size));
        return;
    }
    switch (t->kind) {
    case FBE_IR_STRING:
    case FBE_IR_BYTES:
        w_string(w, dst, pre);
        return;
    case FBE_IR_STRUCT: {
        LLVMValueRef pos = w_pos(w);
        if (!depth_done)
            w_check(w, icmp(e, LLVMIntSLT, w->left, jit_i64(e, 1)), FBE_TOO_DEEP, pos);
        LLVMValueRef r = w_call_struct(w, t->struct_type, pos, dst);
        w_propagate(w, r);
        w_set_pos(w, r);
        return;
    }
    case FBE_IR_OPTIONAL:
        w_optional(w, t, dst, pre);
        return;
    case FBE_IR_ARRAY:
        w_array(w, t, dst);
        return;
    default:
        w_collection(w, t, dst, pre);
        return;
    }
}

/* A run [a, b) of st and the header bytes after it did not fit at pos0: the
 * runtime finds the first field that does not (static_c.h sc_frun_short, the
 * rule `fbec c` follows too) and reports it (verify), or reads the fields
 * before it and zeroes the rest of the walk's fields (read). The status
 * returned is a constant: where this function is inlined, the caller knows the
 * walk failed, so nothing it holds lives across the call (the call's result
 * cost README final verify 173 instead of 152 instructions). */
static void w_run_short(walk *w, const fbe_ir_struct *st, size_t a, size_t b, LLVMValueRef pos0,
                        LLVMValueRef dst)
{
    jit_emit *e = w->e;
    LLVMValueRef run = jit_host_ptr(e, &st->fields[a]), n = jit_i64(e, b - a);
    if (w->mode == M_VERIFY && !w_bails(w)) {
        LLVMValueRef args[] = {w->ctx, w->end, pos0, run, n, w->rep};
        call(e, w->F->run_verify, args, 6);
    } else if (w->mode == M_READ && !w_bails(w)) {
        LLVMValueRef args[] = {w->data, w->end, pos0, dst, run, n, jit_i64(e, w->hi - a)};
        call(e, w->F->run_read, args, 7);
    }
    LLVMBuildRet(e->b, neg_status(e, FBE_TRUNCATED));
}

/* Fields [lo, n) of st. A run of plain fields (fbe_interp_final_plain) and the
 * header of the field after it are bounds-checked at once (w_run_short when
 * that fails). A run ending at n checks no header with it: the next chunk's
 * first field checks its own, with the same status and position. */
static void w_fields(walk *w, const fbe_ir_struct *st, size_t lo, size_t n, LLVMValueRef dst)
{
    jit_emit *e = w->e;
    size_t a = lo;
    while (a < n) {
        size_t b = a;
        uint64_t sum = 0;
        while (b < n && fbe_interp_final_plain(e->codec, st->fields[b].type))
            sum += st->fields[b++].type->final_size;
        uint32_t h = b < n ? header_size(st->fields[b].type) : 0;
        if (b > a || h > 0) {
            LLVMValueRef pos0 = w_pos(w);
            LLVMBasicBlockRef cold = jit_block(e, "run.cold"), hot = jit_block(e, "run.hot");
            LLVMBuildCondBr(e->b, jit_unlikely(e, w_past(w, pos0, sum + h)), cold, hot);
            jit_position(e, cold);
            w_run_short(w, st, a, b, pos0, dst);
            jit_position(e, hot);
            uint64_t off = 0;
            for (size_t k = a; k < b && w->mode == M_READ; k++) {
                const fbe_ir_field *fd = &st->fields[k];
                copy_fixed(w->F, fd->type, jit_gep(e, w->data, addc(e, pos0, off)),
                           jit_gep_c(e, dst, fd->host_offset));
                off += fd->type->final_size;
            }
            w_set_pos(w, addc(e, pos0, sum));
        }
        if (b < n) {
            const fbe_ir_field *fd = &st->fields[b];
            w->fi = b;
            w_value(w, fd->type, w->mode == M_READ ? jit_gep_c(e, dst, fd->host_offset) : NULL, h,
                    false);
            b++;
        }
        a = b;
    }
}

/* The base whose walk takes st's inherited fields (jit_inherited): a fixed
 * base's fields are checked by its holder, so they are walked again here. */
static const fbe_ir_struct *walk_base(fin *F, const fbe_ir_struct *st)
{
    return jit_inherited(F->e, st) && !st->base->final_fixed ? st->base : NULL;
}

/* Calls base's walk of the inherited fields with fn's own arguments (the
 * same position, host value, depth and reported struct); returns its result. */
static LLVMValueRef walk_inherited(fin *F, const fbe_ir_struct *base, LLVMValueRef fn, int mode)
{
    LLVMValueRef args[6];
    unsigned np = LLVMCountParams(fn);
    for (unsigned i = 0; i < np; i++)
        args[i] = LLVMGetParam(fn, i);
    jit_struct_fns *f = fns_of(F->e, base);
    return call(F->e, mode == M_VERIFY ? f->final_verify : f->final_read, args, np);
}

/* final_verify.S / final_read.S, or a chunk of them: fields [lo, hi), after
 * base's walk of fields [0, lo) when `base` (walk_base, at the root). */
static void define_walk_range(fin *F, const fbe_ir_struct *st, LLVMValueRef fn, int mode,
                              size_t lo, size_t hi, const fbe_ir_struct *base)
{
    jit_emit *e = F->e;
    jit_begin_function(e, fn);
    walk w = {.F = F, .e = e, .mode = mode, .st = st, .lo = lo, .hi = hi};
    w.data = LLVMGetParam(fn, 0);
    w.end = LLVMGetParam(fn, 1);
    w.ctx = LLVMGetParam(fn, 2);
    LLVMValueRef pos0 = LLVMGetParam(fn, 3);
    LLVMValueRef dst = mode == M_READ ? LLVMGetParam(fn, 4) : NULL;
    w.left = LLVMGetParam(fn, mode == M_READ ? 5 : 4);
    w.rep = mode == M_VERIFY ? LLVMGetParam(fn, 5) : NULL;
    if (st->final_fixed) { /* everything was checked by the caller */
        if (mode == M_READ) {
            LLVMValueRef args[] = {jit_gep(e, w.data, pos0), dst};
            call(e, F->copy_fn[jit_struct_index(e, st)], args, 2);
        }
        LLVMBuildRet(e->b, addc(e, pos0, st->final_size));
        return;
    }
    w.pos = jit_alloca(e, e->i64, "pos");
    w.st_slot = jit_alloca(e, e->i64, "status");
    store(e, pos0, w.pos);
    size_t n = hi - lo;
    if (mode == M_VERIFY && !w_bails(&w)) {
        w.at_slot = jit_alloca(e, e->i64, "at");
        w.field_slot = jit_alloca(e, e->ptr, "field");
        w.vfail = jit_block(e, "vfail");
    } else if (mode == M_READ && !w_bails(&w)) {
        w.zfrom = jit_alloca(e, e->i64, "zero.from");
        w.zfail = jit_block(e, "zero");
    }
    if (base) {
        LLVMValueRef r = walk_inherited(F, base, fn, mode);
        w.fi = lo;
        w_propagate(&w, r);
        w_set_pos(&w, r);
    }
    w_fields(&w, st, lo, hi, dst);
    LLVMBuildRet(e->b, w_pos(&w));

    if (mode == M_VERIFY && !w_bails(&w)) {
        jit_position(e, w.vfail);
        LLVMValueRef status = load64(e, w.st_slot);
        LLVMValueRef args[] = {w.ctx, LLVMBuildTrunc(e->b, LLVMBuildNeg(e->b, status, ""), e->i32, ""),
                               load64(e, w.at_slot), w.rep,
                               LLVMBuildLoad2(e->b, e->ptr, w.field_slot, "")};
        LLVMBuildCall2(e->b, e->fn_verify_fail_t, e->fn_verify_fail, args, 5, "");
        LLVMBuildRet(e->b, status);
    } else if (mode == M_READ && !w_bails(&w)) {
        /* a failing field and every later one are zeroed (static_c.h sc_zero_fields) */
        jit_position(e, w.zfail);
        LLVMValueRef args[] = {dst, jit_host_ptr(e, &st->fields[lo]), load64(e, w.zfrom),
                               jit_i64(e, n)};
        call(e, F->zero_fields, args, 4);
        LLVMBuildRet(e->b, load64(e, w.st_slot));
    }
}

/* A large struct (emit.h: jit_chunks) is walked by a tree of functions with
 * final_verify.S's / final_read.S's signature, each returning the position
 * after its fields: every function stays bounded, so the compile is linear
 * (docs/jit.md, "Large structs"). A node zeroes a failed child's successors
 * field by field (fbe_native_zero_fields), so any host layout will do. */
static bool walk_chunked(const fbe_ir_struct *st)
{
    return !st->final_fixed && st->field_count > jit_chunks.min_fields && jit_chunks.fields >= 2;
}

/* Fields [lo, hi) of a chunked struct: a leaf, or its children in order (a
 * failed child has reported its failure, or zeroed its own later fields). */
static void define_walk_node(fin *F, const fbe_ir_struct *st, LLVMValueRef fn, int mode,
                             size_t lo, size_t hi, const fbe_ir_struct *base)
{
    jit_emit *e = F->e;
    if (hi - lo <= jit_chunks.fields) {
        define_walk_range(F, st, fn, mode, lo, hi, base);
        return;
    }
    size_t span = jit_chunk_span(lo, hi, jit_chunks.fields), k = (hi - lo + span - 1) / span;
    LLVMValueRef *fns = calloc(k, sizeof *fns);
    if (!fns) { /* one leaf, well formed; the module is refused */
        e->out_of_memory = true;
        define_walk_range(F, st, fn, mode, lo, hi, base);
        return;
    }
    LLVMTypeRef t = LLVMGlobalGetValueType(fn);
    for (size_t c = 0; c < k; c++) {
        size_t a = lo + c * span, b = a + span < hi ? a + span : hi;
        fns[c] = jit_chunk_fn(e, t, mode == M_VERIFY ? "final_verify" : "final_read", st, a, b);
        define_walk_node(F, st, fns[c], mode, a, b, NULL);
    }
    jit_begin_function(e, fn);
    unsigned np = LLVMCountParams(fn);
    LLVMValueRef args[6];
    for (unsigned i = 0; i < np; i++)
        args[i] = LLVMGetParam(fn, i);
    LLVMValueRef dst = mode == M_READ ? args[4] : NULL;
    /* child -1: the base's walk of the inherited fields */
    for (size_t c = base ? 0 : 1; c <= k; c++) {
        LLVMValueRef r = c ? call(e, fns[c - 1], args, np) : walk_inherited(F, base, fn, mode);
        LLVMBasicBlockRef bad = branch_unlikely(e, icmp(e, LLVMIntSLT, r, jit_i64(e, 0)), "chunk.failed");
        LLVMBasicBlockRef cont = LLVMGetInsertBlock(e->b);
        jit_position(e, bad);
        size_t from = c * span; /* the failed child zeroed its own later fields */
        if (mode == M_READ && !F->bail && from < hi - lo) {
            LLVMValueRef zargs[] = {dst, jit_host_ptr(e, &st->fields[lo]), jit_i64(e, from),
                                    jit_i64(e, hi - lo)};
            call(e, F->zero_fields, zargs, 4);
        }
        LLVMBuildRet(e->b, r);
        jit_position(e, cont);
        args[3] = r; /* the next chunk starts where this one ended */
    }
    LLVMBuildRet(e->b, args[3]);
    free(fns);
}

static void define_walk(fin *F, const fbe_ir_struct *st, jit_struct_fns *f, int mode)
{
    LLVMValueRef fn = mode == M_VERIFY ? f->final_verify : f->final_read;
    const fbe_ir_struct *base = walk_base(F, st);
    size_t lo = base ? st->own_field_start : 0;
    if (walk_chunked(st))
        define_walk_node(F, st, fn, mode, lo, st->field_count, base);
    else
        define_walk_range(F, st, fn, mode, lo, st->field_count, base);
}

/* ============================== entry points ===================================== */

static void define_entry_size(fin *F, const fbe_ir_struct *st, jit_struct_fns *f)
{
    jit_emit *e = F->e;
    LLVMValueRef fn = f->entry[FBE_FINAL][FBE_OP_SIZE];
    if (!fn) /* not a selected type (jit_emit.entry_types) */
        return;
    jit_begin_function(e, fn);
    LLVMBuildRet(e->b, addc(e, size_struct(F, st, LLVMGetParam(fn, 1)), 8));
}

static void ret_status_if(jit_emit *e, LLVMValueRef cond, LLVMValueRef status)
{
    LLVMBasicBlockRef bad = branch_unlikely(e, cond, "bad");
    LLVMBasicBlockRef cont = LLVMGetInsertBlock(e->b);
    jit_position(e, bad);
    LLVMBuildRet(e->b, status);
    jit_position(e, cont);
}

/* if (cond): the interpreter's entry (delegate), or return status. */
static void bad_if(jit_emit *e, LLVMValueRef cond, LLVMBasicBlockRef delegate, fbe_status status)
{
    if (delegate)
        jit_goto_if(e, cond, delegate);
    else
        ret_status_if(e, cond, jit_i32(e, status));
}

static void define_entry_serialize(fin *F, const fbe_ir_struct *st, jit_struct_fns *f)
{
    jit_emit *e = F->e;
    LLVMValueRef fn = f->entry[FBE_FINAL][FBE_OP_SERIALIZE];
    if (!fn) /* not a selected type (jit_emit.entry_types) */
        return;
    jit_begin_function(e, fn);
    LLVMValueRef type = LLVMGetParam(fn, 0), value = LLVMGetParam(fn, 1), out = LLVMGetParam(fn, 2);
    LLVMValueRef bad_arg = LLVMBuildOr(e->b, LLVMBuildIsNull(e->b, type, ""),
                                       LLVMBuildOr(e->b, LLVMBuildIsNull(e->b, value, ""),
                                                   LLVMBuildIsNull(e->b, out, ""), ""), "");
    ret_status_if(e, bad_arg, jit_i32(e, FBE_INVALID_ARGUMENT));
    LLVMValueRef size = addc(e, size_struct(F, st, value), 8);
    ret_status_if(e, icmp(e, LLVMIntUGT, size, jit_i64(e, UINT32_MAX)), jit_i32(e, FBE_TOO_LARGE));
    LLVMValueRef rc = jit_buffer_reserve(e, out, size);
    ret_status_if(e, icmp(e, LLVMIntNE, rc, jit_i32(e, FBE_OK)), rc);
    LLVMValueRef used = jit_load(e, e->i64, out, offsetof(fbe_buffer, size));
    LLVMValueRef frame = jit_gep(e, jit_load(e, e->ptr, out, offsetof(fbe_buffer, data)), used);
    /* [struct_size][type] in one store */
    jit_store(e, LLVMBuildOr(e->b, size, jit_i64(e, (uint64_t)st->type_number << 32), ""), frame, 0);
    write_struct(F, st, jit_gep_c(e, frame, 8), value);
    jit_store(e, add(e, used, size), out, offsetof(fbe_buffer, size));
    LLVMBuildRet(e->b, jit_i32(e, FBE_OK));
}

/* The frame header (final.c check_frame): on failure calls on_fail(status, pos)
 * semantics through the given block builder. Returns end (i64). */
typedef struct frame_fail {
    int mode;
    LLVMValueRef info;   /* verify */
    LLVMValueRef value;  /* read: zeroed on failure */
    const fbe_ir_struct *st;
    LLVMBasicBlockRef delegate; /* in process: the interpreter takes failures */
} frame_fail;

/* The frame's failure: verify reports it, deserialize zeroes the value; both
 * return the status. */
static void fail_frame(fin *F, const frame_fail *ff, LLVMValueRef status, LLVMValueRef at)
{
    jit_emit *e = F->e;
    if (ff->delegate) {
        LLVMBuildBr(e->b, ff->delegate);
        return;
    }
    if (ff->mode == M_VERIFY)
        report(e, ff->info, status, at, ff->st, NULL);
    else
        jit_memset(e, ff->value, 0, jit_i64(e, ff->st->host_size));
    LLVMBuildRet(e->b, status);
}

static void frame_fail_at(fin *F, const frame_fail *ff, LLVMValueRef cond, fbe_status status,
                          uint64_t pos)
{
    jit_emit *e = F->e;
    LLVMBasicBlockRef bad = branch_unlikely(e, cond, "frame");
    LLVMBasicBlockRef cont = LLVMGetInsertBlock(e->b);
    jit_position(e, bad);
    fail_frame(F, ff, jit_i32(e, status), jit_i64(e, pos));
    jit_position(e, cont);
}

/* The frame header and type (static_c.h's sc_fchk_frame): returns the struct
 * size. */
static LLVMValueRef check_frame(fin *F, const frame_fail *ff, LLVMValueRef data, LLVMValueRef size)
{
    jit_emit *e = F->e;
    LLVMValueRef full = jit_alloca(e, e->i64, "full"), at = jit_alloca(e, e->i64, "at");
    LLVMValueRef args[] = {data, size, jit_i32(e, ff->st->type_number), full, at};
    LLVMValueRef st = jit_call_handler(e, "final_frame", args, 5);
    LLVMBasicBlockRef bad = branch_unlikely(e, icmp(e, LLVMIntNE, st, jit_i32(e, 0)), "frame");
    LLVMBasicBlockRef cont = LLVMGetInsertBlock(e->b);
    jit_position(e, bad);
    fail_frame(F, ff, st, LLVMBuildLoad2(e->b, e->i64, at, ""));
    jit_position(e, cont);
    return LLVMBuildLoad2(e->b, e->i64, full, "");
}

static void define_entry_verify(fin *F, const fbe_ir_struct *st, jit_struct_fns *f)
{
    jit_emit *e = F->e;
    LLVMValueRef fn = f->entry[FBE_FINAL][FBE_OP_VERIFY];
    if (!fn) /* not a selected type (jit_emit.entry_types) */
        return;
    jit_begin_function(e, fn);
    LLVMValueRef type = LLVMGetParam(fn, 0), data = LLVMGetParam(fn, 1);
    LLVMValueRef size = LLVMGetParam(fn, 2), info = LLVMGetParam(fn, 3), opts = LLVMGetParam(fn, 4);
    LLVMValueRef bad_arg = LLVMBuildOr(
        e->b, LLVMBuildIsNull(e->b, type, ""),
        LLVMBuildAnd(e->b, LLVMBuildIsNull(e->b, data, ""), icmp(e, LLVMIntNE, size, jit_i64(e, 0)), ""), "");
    LLVMBasicBlockRef delegate = jit_delegate_block(e, FBE_FINAL, FBE_OP_VERIFY);
    LLVMBasicBlockRef bad = delegate ? delegate : jit_block(e, "badarg"),
                      cont = jit_block(e, "arguments_ok");
    LLVMBuildCondBr(e->b, jit_unlikely(e, bad_arg), bad, cont);
    if (!delegate) {
        jit_position(e, bad);
        LLVMValueRef args[] = {info, jit_i32(e, FBE_INVALID_ARGUMENT), jit_i64(e, 0),
                               LLVMConstPointerNull(e->ptr), LLVMConstPointerNull(e->ptr)};
        LLVMBuildCall2(e->b, e->fn_verify_fail_t, e->fn_verify_fail, args, 5, "");
        LLVMBuildRet(e->b, jit_i32(e, FBE_INVALID_ARGUMENT));
    }
    jit_position(e, cont);

    frame_fail ff = {.mode = M_VERIFY, .info = info, .st = st, .delegate = delegate};
    LLVMValueRef end = check_frame(F, &ff, data, size);
    LLVMValueRef q;
    /* The call's depth limit (options->max_depth, 0 or no options: the codec's).
     * `same` holds when it cannot change the result compared with the codec's:
     * no options, 0, or a limit no frame of S can reach when the codec's cannot
     * either (S is not on a cycle). That path passes the codec's limit as a
     * constant, which folds the depth checks of the code inlined into it, as
     * before limits were per call; the other path passes the run-time limit. */
    LLVMValueRef md = NULL, same = NULL;
    uint32_t codec_max = fbe_codec_max_depth(e->codec), reach = F->reach[jit_struct_index(e, st)];
    LLVMBasicBlockRef from_null = LLVMGetInsertBlock(e->b), has = jit_block(e, "has_options"),
                      decided = jit_block(e, "depth_decided");
    LLVMBuildCondBr(e->b, LLVMBuildIsNull(e->b, opts, ""), decided, has);
    jit_position(e, has);
    md = jit_load(e, e->i32, opts, offsetof(fbe_decode_options, max_depth));
    same = icmp(e, LLVMIntEQ, md, jit_i32(e, 0));
    if (reach <= codec_max)
        same = LLVMBuildOr(e->b, same, icmp(e, LLVMIntUGE, md, jit_i32(e, reach)), "");
    md = LLVMBuildSelect(e->b, icmp(e, LLVMIntEQ, md, jit_i32(e, 0)), jit_i32(e, codec_max), md, "");
    LLVMBasicBlockRef from_has = LLVMGetInsertBlock(e->b);
    LLVMBuildBr(e->b, decided);
    jit_position(e, decided);
    same = jit_phi2(e, e->i1, LLVMConstInt(e->i1, 1, 0), from_null, same, from_has);
    md = jit_phi2(e, e->i32, jit_i32(e, codec_max), from_null, md, from_has);
    /* where the body's failures go when verify bails (F->bail). A struct that
     * is not fixed gets there only on the path where the call's limit gives the
     * codec's result (`same`), so the interpreter is given no options and
     * nothing else stays live through the body; a fixed one (no body call) is
     * given the limit in force */
    LLVMBasicBlockRef bail =
        F->bail ? jit_verify_bail_block(e, FBE_FINAL, st, data, end, info, st->final_fixed ? md : NULL)
                : NULL;
    /* levels allowed below the root's */
    LLVMValueRef left = addc(e, LLVMBuildZExt(e->b, md, e->i64, ""), (uint64_t)-1);
    if (st->final_fixed) {
        frame_fail_at(F, &ff, icmp(e, LLVMIntUGT, jit_i64(e, 8 + (uint64_t)st->final_size), end),
                      FBE_TRUNCATED, 8);
        uint32_t h = interp_prog_for(e->codec, st)->fixed_depth - 1;
        if (h > 0) { /* a nested level may be too deep for this call's limit */
            LLVMValueRef deep = icmp(e, LLVMIntSLT, left, jit_i64(e, h));
            if (codec_max >= 1 + h) /* never with the codec's limit */
                deep = LLVMBuildAnd(e->b, deep, LLVMBuildNot(e->b, same, ""), "");
            LLVMBasicBlockRef deep_bb = delegate ? delegate : jit_block(e, "deep");
            LLVMBasicBlockRef shallow = jit_block(e, "shallow");
            LLVMBuildCondBr(e->b, jit_unlikely(e, deep), deep_bb, shallow);
            if (!delegate) {
                jit_position(e, deep_bb);
                LLVMValueRef args[] = {info, data, jit_i64(e, 8), left, jit_host_ptr(e, st)};
                LLVMValueRef r = call(e, F->final_depth, args, 5);
                ret_status_if(e, icmp(e, LLVMIntSLT, r, jit_i64(e, 0)),
                              LLVMBuildTrunc(e->b, LLVMBuildNeg(e->b, r, ""), e->i32, ""));
                LLVMBuildBr(e->b, shallow);
            }
            jit_position(e, shallow);
        }
        q = jit_i64(e, 8 + (uint64_t)st->final_size);
    } else if (delegate) {
        /* a call's limit that could change the result: the interpreter's
         * (instead of a second, out-of-line call with the run-time limit) */
        LLVMBasicBlockRef fast = jit_block(e, "codec_depth");
        LLVMBuildCondBr(e->b, same, fast, delegate);
        jit_position(e, fast);
        LLVMValueRef args[] = {data, end, info, jit_i64(e, 8), jit_i64(e, (uint64_t)codec_max - 1),
                               jit_host_ptr(e, st)};
        q = call(e, f->final_verify, args, 6);
        if (bail) {
            jit_goto_if(e, icmp(e, LLVMIntSLT, q, jit_i64(e, 0)), bail);
        } else {
            ret_status_if(e, icmp(e, LLVMIntSLT, q, jit_i64(e, 0)),
                          LLVMBuildTrunc(e->b, LLVMBuildNeg(e->b, q, ""), e->i32, ""));
        }
    } else {
        LLVMBasicBlockRef fast = jit_block(e, "codec_depth"), slow = jit_block(e, "call_depth"),
                          join = jit_block(e, "walked");
        LLVMBuildCondBr(e->b, same, fast, slow);
        jit_position(e, fast);
        LLVMValueRef args[] = {data, end, info, jit_i64(e, 8), jit_i64(e, (uint64_t)codec_max - 1),
                               jit_host_ptr(e, st)};
        LLVMValueRef q_fast = call(e, f->final_verify, args, 6);
        LLVMBuildBr(e->b, join);
        jit_position(e, slow);
        args[4] = left;
        LLVMValueRef q_slow = call(e, f->final_verify, args, 6);
        /* the rare path stays a call: inlining it too would double the code */
        unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
        LLVMAddCallSiteAttribute(q_slow, LLVMAttributeFunctionIndex,
                                 LLVMCreateEnumAttribute(e->ctx, noinline, 0));
        LLVMBuildBr(e->b, join);
        jit_position(e, join);
        q = jit_phi2(e, e->i64, q_fast, fast, q_slow, slow);
        ret_status_if(e, icmp(e, LLVMIntSLT, q, jit_i64(e, 0)),
                      LLVMBuildTrunc(e->b, LLVMBuildNeg(e->b, q, ""), e->i32, ""));
    }
    if (bail) {
        jit_goto_if(e, icmp(e, LLVMIntNE, q, end), bail);
    } else {
        bad = branch_unlikely(e, icmp(e, LLVMIntNE, q, end), "final_size");
        cont = LLVMGetInsertBlock(e->b);
        jit_position(e, bad);
        report(e, info, jit_i32(e, FBE_FINAL_SIZE), q, st, NULL);
        LLVMBuildRet(e->b, jit_i32(e, FBE_FINAL_SIZE));
        jit_position(e, cont);
    }
    jit_if c;
    jit_if_begin(e, &c, LLVMBuildIsNotNull(e->b, info, ""));
    jit_store(e, jit_i32(e, FBE_OK), info, offsetof(fbe_verify_info, status));
    jit_store(e, jit_i64(e, 0), info, offsetof(fbe_verify_info, offset));
    jit_store(e, jit_host_ptr(e, st), info, offsetof(fbe_verify_info, type));
    jit_store(e, LLVMConstPointerNull(e->ptr), info, offsetof(fbe_verify_info, field));
    jit_if_end(e, &c);
    LLVMBuildRet(e->b, jit_i32(e, FBE_OK));
}

static void define_entry_deserialize(fin *F, const fbe_ir_struct *st, jit_struct_fns *f)
{
    jit_emit *e = F->e;
    LLVMValueRef fn = f->entry[FBE_FINAL][FBE_OP_DESERIALIZE];
    if (!fn) /* not a selected type (jit_emit.entry_types) */
        return;
    jit_begin_function(e, fn);
    LLVMValueRef type = LLVMGetParam(fn, 0), data = LLVMGetParam(fn, 1), size = LLVMGetParam(fn, 2);
    LLVMValueRef value = LLVMGetParam(fn, 3), opts = LLVMGetParam(fn, 4), consumed = LLVMGetParam(fn, 5);
    jit_if c;
    jit_if_begin(e, &c, LLVMBuildIsNotNull(e->b, consumed, ""));
    jit_store(e, jit_i64(e, 0), consumed, 0);
    jit_if_end(e, &c);
    LLVMBasicBlockRef delegate = jit_delegate_block(e, FBE_FINAL, FBE_OP_DESERIALIZE);
    LLVMValueRef bad_arg = LLVMBuildOr(
        e->b, LLVMBuildIsNull(e->b, type, ""),
        LLVMBuildOr(e->b, LLVMBuildIsNull(e->b, value, ""), LLVMBuildIsNull(e->b, opts, ""), ""), "");
    bad_if(e, bad_arg, delegate, FBE_INVALID_ARGUMENT);
    LLVMValueRef arena = jit_load(e, e->ptr, opts, offsetof(fbe_decode_options, arena));
    bad_arg = LLVMBuildOr(
        e->b, LLVMBuildIsNull(e->b, arena, ""),
        LLVMBuildAnd(e->b, LLVMBuildIsNull(e->b, data, ""), icmp(e, LLVMIntNE, size, jit_i64(e, 0)), ""), "");
    bad_if(e, bad_arg, delegate, FBE_INVALID_ARGUMENT);
    LLVMValueRef md = jit_depth_limit(e, opts, false);
    LLVMValueRef left = addc(e, LLVMBuildZExt(e->b, md, e->i64, ""), (uint64_t)-1);

    frame_fail ff = {.mode = M_READ, .value = value, .st = st, .delegate = delegate};
    LLVMValueRef end = check_frame(F, &ff, data, size);
    LLVMValueRef q;
    if (st->final_fixed) {
        frame_fail_at(F, &ff, icmp(e, LLVMIntUGT, jit_i64(e, 8 + (uint64_t)st->final_size), end),
                      FBE_TRUNCATED, 8);
        uint32_t h = interp_prog_for(e->codec, st)->fixed_depth;
        if (h > 1) /* nothing to salvage: zeroed (final.c) */
            frame_fail_at(F, &ff, icmp(e, LLVMIntSLT, left, jit_i64(e, h - 1)), FBE_TOO_DEEP, 8);
        LLVMValueRef args[] = {jit_gep_c(e, data, 8), value};
        call(e, F->copy_fn[jit_struct_index(e, st)], args, 2);
        q = jit_i64(e, 8 + (uint64_t)st->final_size);
    } else {
        LLVMValueRef ctx = jit_alloca(e, LLVMArrayType(e->i64, sizeof(final_read_ctx) / 8), "ctx");
        jit_store(e, arena, ctx, offsetof(final_read_ctx, options.arena));
        jit_store(e, jit_load(e, e->i32, opts, offsetof(fbe_decode_options, flags)), ctx,
                  offsetof(final_read_ctx, options.flags));
        LLVMValueRef memory = jit_gep_c(e, ctx, offsetof(final_read_ctx, memory));
        jit_store(e, jit_i64(e, 0), memory, offsetof(fbe_decode_budget, cap));
        jit_store(e, jit_load(e, e->i64, opts, offsetof(fbe_decode_options, max_memory)), memory,
                  offsetof(fbe_decode_budget, max_memory));
        jit_store(e, end, memory, offsetof(fbe_decode_budget, input));
        /* bailing, the interpreter's deserialize answers a failure, on the
         * arena as the call found it */
        LLVMBasicBlockRef bail =
            F->bail ? jit_read_bail_block(e, FBE_FINAL, arena, memory,
                                          jit_load(e, e->ptr, arena, offsetof(fbe_arena, ptr)))
                    : NULL;
        LLVMValueRef args[] = {data, end, ctx, jit_i64(e, 8), value, left};
        q = call(e, f->final_read, args, 6);
        LLVMValueRef failed = icmp(e, LLVMIntSLT, q, jit_i64(e, 0));
        if (bail) {
            jit_goto_if(e, failed, bail);
        } else {
            LLVMBasicBlockRef bad = branch_unlikely(e, failed, "bad");
            LLVMBasicBlockRef cont = LLVMGetInsertBlock(e->b);
            jit_position(e, bad);
            LLVMValueRef status = LLVMBuildTrunc(e->b, LLVMBuildNeg(e->b, q, ""), e->i32, "");
            LLVMBuildRet(e->b, jit_decode_status(e, status, memory));
            jit_position(e, cont);
        }
    }
    ret_status_if(e, icmp(e, LLVMIntNE, q, end), jit_i32(e, FBE_FINAL_SIZE));
    jit_if_begin(e, &c, LLVMBuildIsNotNull(e->b, consumed, ""));
    jit_store(e, end, consumed, 0);
    jit_if_end(e, &c);
    LLVMBuildRet(e->b, jit_i32(e, FBE_OK));
}

/* ============================== driver =========================================== */

bool jit_emit_final(jit_emit *e, bool write, bool verify, bool read)
{
    fin F = {.e = e, .bail = e->older_to_interp};
    LLVMTypeRef rv[] = {e->ptr, e->i64, e->i64, e->ptr, e->i64, e->ptr};
    F.run_verify = jit_runtime_fn(e, "fbe_native_final_run_verify",
                                  LLVMFunctionType(e->void_t, rv, 6, 0));
    LLVMTypeRef rr[] = {e->ptr, e->i64, e->i64, e->ptr, e->ptr, e->i64, e->i64};
    F.run_read = jit_runtime_fn(e, "fbe_native_final_run_read",
                                LLVMFunctionType(e->void_t, rr, 7, 0));
    LLVMTypeRef zp[] = {e->ptr, e->ptr, e->i64, e->i64};
    F.zero_fields = jit_runtime_fn(e, "fbe_native_zero_fields",
                                   LLVMFunctionType(e->void_t, zp, 4, 0));
    LLVMTypeRef dp[] = {e->ptr, e->ptr, e->i64, e->i64, e->ptr};
    F.final_depth = jit_runtime_fn(e, "fbe_native_final_depth",
                                   LLVMFunctionType(e->i64, dp, 5, 0));
    F.copy_fn = calloc(e->count + 1, sizeof *F.copy_fn);
    F.reach = calloc(e->count + 1, sizeof *F.reach);
    F.trailing = calloc(e->count + 1, sizeof *F.trailing);
    unsigned char *reach_state = calloc(e->count + 1, 1);
    if (!F.copy_fn || !F.reach || !F.trailing || !reach_state) {
        free(F.copy_fn);
        free(F.reach);
        free(F.trailing);
        free(reach_state);
        return false;
    }
    for (size_t i = 0; i < e->count; i++)
        F.trailing[i] = trailing_fixed(e->codec->types[i].ir);
    reach_walk rw = {e, F.reach, reach_state};
    for (size_t i = 0; i < e->count; i++)
        struct_reach(&rw, e->codec->types[i].ir, 1);
    free(reach_state);
    char name[512];
    for (size_t i = 0; i < e->count; i++) {
        const fbe_ir_struct *st = e->codec->types[i].ir;
        jit_struct_fns *f = &e->fns[i];
        if (write) {
            LLVMTypeRef size_p[] = {e->ptr};
            snprintf(name, sizeof name, "final_size.%s", st->c_name);
            f->final_size = jit_declare(e, name, e->i64, size_p, 1, false);
            LLVMTypeRef write_p[] = {e->ptr, e->ptr};
            snprintf(name, sizeof name, "final_write.%s", st->c_name);
            f->final_write = jit_declare(e, name, e->ptr, write_p, 2, false);
            jit_declare_entry(e, i, FBE_FINAL, FBE_OP_SIZE);
            jit_declare_entry(e, i, FBE_FINAL, FBE_OP_SERIALIZE);
        }
        if (!verify && !read)
            continue;
        if (verify) {
            LLVMTypeRef verify_p[] = {e->ptr, e->i64, e->ptr, e->i64, e->i64, e->ptr};
            snprintf(name, sizeof name, "final_verify.%s", st->c_name);
            f->final_verify = jit_declare(e, name, e->i64, verify_p, 6, false);
            jit_declare_entry(e, i, FBE_FINAL, FBE_OP_VERIFY);
        }
        if (read) {
            LLVMTypeRef read_p[] = {e->ptr, e->i64, e->ptr, e->i64, e->ptr, e->i64};
            snprintf(name, sizeof name, "final_read.%s", st->c_name);
            f->final_read = jit_declare(e, name, e->i64, read_p, 6, false);
            jit_declare_entry(e, i, FBE_FINAL, FBE_OP_DESERIALIZE);
        }
        if (st->final_fixed) {
            LLVMTypeRef copy_p[] = {e->ptr, e->ptr};
            snprintf(name, sizeof name, "final_copy.%s", st->c_name);
            F.copy_fn[i] = jit_declare(e, name, e->void_t, copy_p, 2, false);
        }
    }
    for (size_t i = 0; i < e->count; i++) {
        const fbe_ir_struct *st = e->codec->types[i].ir;
        jit_struct_fns *f = &e->fns[i];
        if (write) {
            define_size(&F, st, f);
            define_write(&F, st, f);
            define_entry_size(&F, st, f);
            define_entry_serialize(&F, st, f);
        }
        if (!verify && !read)
            continue;
        if (F.copy_fn[i])
            define_copy(&F, st, F.copy_fn[i]);
        if (verify) {
            define_walk(&F, st, f, M_VERIFY);
            define_entry_verify(&F, st, f);
        }
        if (read) {
            define_walk(&F, st, f, M_READ);
            define_entry_deserialize(&F, st, f);
        }
    }
    free(F.copy_fn);
    free(F.reach);
    free(F.trailing);
    return true;
}
