/* Final model: size, serialize, verify and deserialize, lowered per struct.
 * Mirrors runtime/interp/final.c (the semantic reference) on valid frames: the
 * same sizes (including its saturation at 2^40), the same checks, the same
 * depth limit, the same arena allocations in the same order. Every size, offset
 * and type number is a constant taken from the IR; the smallest encoding of a
 * struct (count checks) is the interpreter program's.
 *
 * Functions per struct S:
 *   final_size.S   i64 (ptr value)                       bytes of the fields,
 *                  not saturated (size_struct saturates)
 *   final_write.S  ptr (ptr w, ptr value) -> w past the fields
 *   final_verify.S i64 (ptr data, i64 end, i64 pos, i64 left)
 *   final_read.S   i64 (ptr data, i64 end, i64 pos, i64 left, ptr options, ptr dst)
 *   final_copy.S   void (ptr src, ptr dst)               fixed S, deserialize
 * A derived struct's inherited fields are walked by its base's functions
 * (jit_inherited). Large structs are lowered as trees of functions of the same
 * signatures, each for a range of fields (emit.h: jit_chunks).
 * verify and read return the position after S's fields, or -1. `pos` is
 * frame-relative, `end` the frame size, `left` the number of struct levels
 * still allowed below S's own (max_depth - depth(S)).
 *
 * The caller of verify/read has done S's entry checks (its level against the
 * depth limit; for a final_fixed S also its bounds and every nested level).
 *
 * Specialisations:
 *   - a run of fields that are fixed and hold no struct level (scalars and
 *     arrays of them: fbe_interp_final_plain) and the header of the next field
 *     (string length, count, optional flag) are bounds-checked once;
 *   - the struct levels inside a fixed value are depth-checked with one compare
 *     against their static height;
 *   - counts are checked against the remaining bytes before anything is
 *     allocated or looped; runs of plain scalars are one memcpy;
 *   - serialize computes the size once, reserves once, writes the 8-byte frame
 *     header with one store, then writes sequentially with no checks;
 *   - deserialize takes fbe_arena_alloc's bump-pointer path inline (the call only
 *     when the chunk is full); strings of up to 16 bytes are copied inline.
 * Errors: a failure returns -1 through every level, reporting and zeroing
 * nothing, and the entry point hands the frame to the interpreter's verify or
 * deserialize, whose result is the answer (jit_verify_bail_block,
 * jit_read_bail_block): its statuses, positions, reports and host state are
 * the reference's by construction. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_impl.h"
#include "emit.h"
#include "emit_budget.h"
#include "interp/program.h"

enum { M_VERIFY, M_READ };

/* The parameters of final_verify.S (P_DATA..P_LEFT) and final_read.S (all). */
enum { P_DATA, P_END, P_POS, P_LEFT, P_CTX, P_DST, P_READ_COUNT };

typedef struct fin {
    jit_emit *e;
    LLVMValueRef *copy_fn;  /* per struct; NULL unless fixed */
} fin;

/* ---- the IR, classified ---------------------------------------------------------- */

/* A scalar whose host bytes are its wire bytes (bool is normalized). */
static bool is_copy(const fbe_ir_type *t)
{
    return fbe_ir_shape_of(t) == FBE_IR_SHAPE_COPY;
}

/* Bytes a non-fixed value starts with that are checked together with the fixed
 * fields before it: a length, a count, an optional's flag. */
static uint32_t header_size(const fbe_ir_type *t)
{
    if (t->final_fixed)
        return 0;
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_STRING: case FBE_IR_SHAPE_SEQ: case FBE_IR_SHAPE_MAP:
        return 4;
    case FBE_IR_SHAPE_OPTIONAL: case FBE_IR_SHAPE_OPT_STRUCT:
        return 1;
    default:
        return 0;
    }
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
    LLVMValueRef sum = call(e, jit_fns_of(e, st)->final_size, &p, 1);
    LLVMValueRef past =
        icmp(e, LLVMIntUGT, sum, jit_i64(e, FBE_FINAL_SAT + fbe_interp_final_trailing(st)));
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
        return call(F->e, jit_fns_of(F->e, t->struct_type)->final_size, &p, 1);
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
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_STRING:
        return size_string(e, p);
    case FBE_IR_SHAPE_STRUCT:
        return size_struct(F, t->struct_type, p);
    case FBE_IR_SHAPE_OPTIONAL: case FBE_IR_SHAPE_OPT_STRUCT: {
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
    case FBE_IR_SHAPE_ARRAY: { /* not fixed: sum the elements, saturating */
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
        bool map = fbe_ir_kind_is_keyed(t->kind);
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
                                : call(e, jit_fns_of(e, base)->final_size, &v, 1);
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
    return call(F->e, jit_fns_of(F->e, st)->final_write, args, 2);
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
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_BOOL:
        jit_store(e, bool_byte(e, src), w, 0);
        return jit_gep_c(e, w, 1);
    case FBE_IR_SHAPE_STRING: { /* static_c.h's rule (sc_fwrite_str) */
        LLVMValueRef args[] = {src, w};
        return jit_call_handler(e, "fwrite_str", args, 2);
    }
    case FBE_IR_SHAPE_STRUCT:
        return write_struct(F, t->struct_type, w, src);
    case FBE_IR_SHAPE_OPTIONAL: case FBE_IR_SHAPE_OPT_STRUCT: {
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
    case FBE_IR_SHAPE_ARRAY: {
        const fbe_ir_type *el = t->elem;
        if (is_copy(el) || t->array_len > 8)
            return write_elems(F, el, src, jit_i64(e, t->array_len), w);
        for (uint32_t i = 0; i < t->array_len; i++)
            w = write_any(F, el, jit_gep_c(e, src, (uint64_t)i * el->host_size), w);
        return w;
    }
    case FBE_IR_SHAPE_SEQ: {
        LLVMValueRef n = jit_load(e, e->i64, src, offsetof(fbe_seq, size));
        jit_store(e, LLVMBuildTrunc(e->b, n, e->i32, ""), w, 0);
        return write_elems(F, t->elem, jit_load(e, e->ptr, src, offsetof(fbe_seq, data)), n,
                           jit_gep_c(e, w, 4));
    }
    case FBE_IR_SHAPE_MAP: {
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
        args[0] = call(e, jit_fns_of(e, st->base)->final_write, args, 2);
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
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_BOOL:
        jit_store(e, bool_byte(e, src), dst, 0);
        return;
    case FBE_IR_SHAPE_STRUCT: {
        LLVMValueRef args[] = {src, dst};
        call(e, F->copy_fn[jit_struct_index(e, t->struct_type)], args, 2);
        return;
    }
    case FBE_IR_SHAPE_ARRAY: {
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

/* The state of one verify/read function while its struct's fields are walked. */
typedef struct walk {
    fin *F;
    jit_emit *e;
    int mode;
    LLVMValueRef data, end, ctx, left;
    LLVMValueRef pos;        /* alloca i64, frame-relative */
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

/* A failure returns -1 at once, reporting and zeroing nothing: the entry
 * point then hands the frame to the interpreter's verify or deserialize, which
 * answers (jit_verify_bail_block, jit_read_bail_block). */
static void w_check(walk *w, LLVMValueRef cond)
{
    LLVMBasicBlockRef bad = branch_unlikely(w->e, cond, "fail");
    LLVMBasicBlockRef cont = LLVMGetInsertBlock(w->e->b);
    jit_position(w->e, bad);
    LLVMBuildRet(w->e->b, jit_i64(w->e, (uint64_t)-1));
    jit_position(w->e, cont);
}

/* A callee's failure: passed on. */
static void w_propagate(walk *w, LLVMValueRef r)
{
    w_check(w, icmp(w->e, LLVMIntSLT, r, jit_i64(w->e, 0)));
}

/* The struct levels inside the fixed value t (bounds already checked). */
static void w_fixed_depth(walk *w, const fbe_ir_type *t)
{
    uint32_t h = fbe_interp_fixed_height(w->e->codec, t);
    if (h > 0)
        w_check(w, icmp(w->e, LLVMIntSLT, w->left, jit_i64(w->e, h)));
}

/* Calls S's verify/read for the non-fixed struct at pos (entry checks done). */
static LLVMValueRef w_call_struct(walk *w, const fbe_ir_struct *st, LLVMValueRef pos,
                                  LLVMValueRef dst)
{
    jit_emit *e = w->e;
    LLVMValueRef left = addc(e, w->left, (uint64_t)-1);
    jit_struct_fns *f = jit_fns_of(e, st);
    LLVMValueRef args[] = {w->data, w->end, pos, left, w->ctx, dst};
    if (w->mode == M_VERIFY)
        return call(e, f->final_verify, args, P_CTX);
    return call(e, f->final_read, args, P_READ_COUNT);
}

/* size bytes of the arena, or a read string's len + 1 (`string`), by
 * static_c.h's rule (sc_alloc_at, sc_alloc_string_at) on the arena's own
 * cursor; NOMEM fails. */
static LLVMValueRef w_alloc(walk *w, LLVMValueRef size, bool string)
{
    jit_emit *e = w->e;
    LLVMValueRef arena = w_arena(w);
    LLVMValueRef args[] = {jit_gep_c(e, arena, offsetof(fbe_arena, ptr)),
                           jit_gep_c(e, arena, offsetof(fbe_arena, end)), arena,
                           jit_gep_c(e, w->ctx, offsetof(final_read_ctx, memory)),
                           string ? LLVMBuildTrunc(e->b, size, e->i32, "") : size};
    LLVMValueRef m = jit_call_handler(e, string ? "alloc_string" : "alloc", args, 5);
    w_check(w, LLVMBuildIsNull(e->b, m, ""));
    return m;
}

static void w_value(walk *w, const fbe_ir_type *t, LLVMValueRef dst, uint32_t pre, bool depth_done);

static void w_string(walk *w, LLVMValueRef dst, uint32_t pre)
{
    jit_emit *e = w->e;
    LLVMValueRef pos = w_pos(w);
    if (pre < 4)
        w_check(w, w_past(w, pos, 4));
    LLVMValueRef len = LLVMBuildZExt(e->b, jit_load_at(e, e->i32, w->data, pos), e->i64, "");
    LLVMValueRef next = add(e, addc(e, pos, 4), len);
    w_check(w, icmp(e, LLVMIntUGT, next, w->end));
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
        LLVMValueRef m = w_alloc(w, len, true);
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
        w_check(w, w_past(w, pos, 1));
    LLVMValueRef flag = jit_load_at(e, e->i8, w->data, pos);
    LLVMValueRef p1 = addc(e, pos, 1);
    w_set_pos(w, p1);
    jit_if c;
    jit_if_begin(e, &c, icmp(e, LLVMIntNE, flag, jit_i8(e, 0)));
    if (is_struct) {
        const fbe_ir_struct *st = in->struct_type;
        if (st->final_fixed)
            w_check(w, w_past(w, p1, st->final_size));
        w_check(w, icmp(e, LLVMIntSLT, w->left, jit_i64(e, 1)));
        LLVMValueRef m = NULL;
        if (w->mode == M_READ)
            m = w_alloc(w, jit_i64(e, st->host_size), false);
        if (st->final_fixed) {
            w_fixed_depth(w, in); /* its own level passed: the nested ones */
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
        w_check(w, icmp(e, LLVMIntSLT, w->left, jit_i64(e, 1)));
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
    bool map = fbe_ir_kind_is_keyed(t->kind);
    const fbe_ir_type *k = map ? t->key : NULL, *v = t->elem;
    uint32_t stride = map ? t->host_entry_size : v->host_size;
    LLVMValueRef pos = w_pos(w);
    if (w->mode == M_READ) {
        jit_store(e, LLVMConstPointerNull(e->ptr), dst, offsetof(fbe_seq, data));
        jit_store(e, jit_i64(e, 0), dst, offsetof(fbe_seq, size));
    }
    if (pre < 4)
        w_check(w, w_past(w, pos, 4));
    LLVMValueRef count = LLVMBuildZExt(e->b, jit_load_at(e, e->i32, w->data, pos), e->i64, "");
    uint64_t min = fbe_interp_count_min(e->codec, t);
    LLVMValueRef room = LLVMBuildSub(e->b, w->end, addc(e, pos, 4), "");
    LLVMValueRef too_many = min ? icmp(e, LLVMIntUGT, mulc(e, count, min), room)
                                : icmp(e, LLVMIntUGT, count, w->end);
    w_check(w, too_many);
    LLVMValueRef p4 = addc(e, pos, 4);
    w_set_pos(w, p4);
    LLVMValueRef nonzero = icmp(e, LLVMIntNE, count, jit_i64(e, 0));
    LLVMBasicBlockRef after = jit_block(e, "col.done");
    LLVMValueRef m = NULL;
    if (w->mode == M_READ) {
        LLVMBasicBlockRef some = jit_block(e, "col.some");
        LLVMBuildCondBr(e->b, nonzero, some, after);
        jit_position(e, some);
        m = w_alloc(w, mulc(e, count, stride), false);
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
                w_fixed_depth(w, k);
            if (hv)
                w_fixed_depth(w, v);
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
            w_check(w, deep);
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
            w_check(w, w_past(w, pos, t->final_size));
        w_fixed_depth(w, t); /* depth_done is only ever set for non-fixed structs */
        if (w->mode == M_READ)
            copy_fixed(w->F, t, jit_gep(e, w->data, pos), dst);
        w_set_pos(w, addc(e, pos, t->final_size));
        return;
    }
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_STRING:
        w_string(w, dst, pre);
        return;
    case FBE_IR_SHAPE_STRUCT: {
        LLVMValueRef pos = w_pos(w);
        if (!depth_done)
            w_check(w, icmp(e, LLVMIntSLT, w->left, jit_i64(e, 1)));
        LLVMValueRef r = w_call_struct(w, t->struct_type, pos, dst);
        w_propagate(w, r);
        w_set_pos(w, r);
        return;
    }
    case FBE_IR_SHAPE_OPTIONAL: case FBE_IR_SHAPE_OPT_STRUCT:
        w_optional(w, t, dst, pre);
        return;
    case FBE_IR_SHAPE_ARRAY:
        w_array(w, t, dst);
        return;
    default:
        w_collection(w, t, dst, pre);
        return;
    }
}

/* Fields [lo, n) of st. A run of plain fields (fbe_interp_final_plain) and the
 * header of the field after it are bounds-checked at once. A run ending at n
 * checks no header with it: the next chunk's first field checks its own. */
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
            w_check(w, w_past(w, pos0, sum + h));
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
 * same position, host value and depth); returns its result. */
static LLVMValueRef walk_inherited(fin *F, const fbe_ir_struct *base, LLVMValueRef fn, int mode)
{
    LLVMValueRef args[P_READ_COUNT];
    unsigned np = LLVMCountParams(fn);
    for (unsigned i = 0; i < np; i++)
        args[i] = LLVMGetParam(fn, i);
    jit_struct_fns *f = jit_fns_of(F->e, base);
    return call(F->e, mode == M_VERIFY ? f->final_verify : f->final_read, args, np);
}

/* final_verify.S / final_read.S, or a chunk of them: fields [lo, hi), after
 * base's walk of fields [0, lo) when `base` (walk_base, at the root). */
static void define_walk_range(fin *F, const fbe_ir_struct *st, LLVMValueRef fn, int mode,
                              size_t lo, size_t hi, const fbe_ir_struct *base)
{
    jit_emit *e = F->e;
    jit_begin_function(e, fn);
    walk w = {.F = F, .e = e, .mode = mode};
    w.data = LLVMGetParam(fn, P_DATA);
    w.end = LLVMGetParam(fn, P_END);
    w.ctx = mode == M_READ ? LLVMGetParam(fn, P_CTX) : NULL;
    LLVMValueRef pos0 = LLVMGetParam(fn, P_POS);
    LLVMValueRef dst = mode == M_READ ? LLVMGetParam(fn, P_DST) : NULL;
    w.left = LLVMGetParam(fn, P_LEFT);
    if (st->final_fixed) { /* everything was checked by the caller */
        if (mode == M_READ) {
            LLVMValueRef args[] = {jit_gep(e, w.data, pos0), dst};
            call(e, F->copy_fn[jit_struct_index(e, st)], args, 2);
        }
        LLVMBuildRet(e->b, addc(e, pos0, st->final_size));
        return;
    }
    w.pos = jit_alloca(e, e->i64, "pos");
    store(e, pos0, w.pos);
    if (base) {
        LLVMValueRef r = walk_inherited(F, base, fn, mode);
        w_propagate(&w, r);
        w_set_pos(&w, r);
    }
    w_fields(&w, st, lo, hi, dst);
    LLVMBuildRet(e->b, w_pos(&w));
}

/* A large struct (emit.h: jit_chunks) is walked by a tree of functions with
 * final_verify.S's / final_read.S's signature, each returning the position
 * after its fields: every function stays bounded, so the compile is linear
 * (docs/jit.md, "Large structs"). */
static bool walk_chunked(const fbe_ir_struct *st)
{
    return !st->final_fixed && st->field_count > jit_chunks.min_fields && jit_chunks.fields >= 2;
}

/* Fields [lo, hi) of a chunked struct: a leaf, or its children in order. */
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
    LLVMValueRef args[P_READ_COUNT];
    for (unsigned i = 0; i < np; i++)
        args[i] = LLVMGetParam(fn, i);
    /* child -1: the base's walk of the inherited fields */
    for (size_t c = base ? 0 : 1; c <= k; c++) {
        LLVMValueRef r = c ? call(e, fns[c - 1], args, np) : walk_inherited(F, base, fn, mode);
        LLVMBasicBlockRef bad = branch_unlikely(e, icmp(e, LLVMIntSLT, r, jit_i64(e, 0)), "chunk.failed");
        LLVMBasicBlockRef cont = LLVMGetInsertBlock(e->b);
        jit_position(e, bad);
        LLVMBuildRet(e->b, r);
        jit_position(e, cont);
        args[P_POS] = r; /* the next chunk starts where this one ended */
    }
    LLVMBuildRet(e->b, args[P_POS]);
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
    if (!fn) /* not a selected type or operation (jit_emit.entry_types, entry_ops) */
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

static void define_entry_serialize(fin *F, const fbe_ir_struct *st, jit_struct_fns *f)
{
    jit_emit *e = F->e;
    LLVMValueRef fn = f->entry[FBE_FINAL][FBE_OP_SERIALIZE];
    if (!fn) /* not a selected type or operation (jit_emit.entry_types, entry_ops) */
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

/* The frame header and type (static_c.h's sc_fchk_frame): returns the struct
 * size. A failure goes to the interpreter's entry (delegate). */
static LLVMValueRef check_frame(fin *F, const fbe_ir_struct *st, LLVMValueRef data,
                                LLVMValueRef size, LLVMBasicBlockRef delegate)
{
    jit_emit *e = F->e;
    LLVMValueRef full = jit_alloca(e, e->i64, "full"), at = jit_alloca(e, e->i64, "at");
    LLVMValueRef args[] = {data, size, jit_i32(e, st->type_number), full, at};
    LLVMValueRef rc = jit_call_handler(e, "final_frame", args, 5);
    jit_goto_if(e, icmp(e, LLVMIntNE, rc, jit_i32(e, 0)), delegate);
    return LLVMBuildLoad2(e->b, e->i64, full, "");
}

static void define_entry_verify(fin *F, const fbe_ir_struct *st, jit_struct_fns *f)
{
    jit_emit *e = F->e;
    LLVMValueRef fn = f->entry[FBE_FINAL][FBE_OP_VERIFY];
    if (!fn) /* not a selected type or operation (jit_emit.entry_types, entry_ops) */
        return;
    jit_begin_function(e, fn);
    LLVMValueRef type = LLVMGetParam(fn, 0), data = LLVMGetParam(fn, 1);
    LLVMValueRef size = LLVMGetParam(fn, 2), info = LLVMGetParam(fn, 3), opts = LLVMGetParam(fn, 4);
    LLVMValueRef bad_arg = LLVMBuildOr(
        e->b, LLVMBuildIsNull(e->b, type, ""),
        LLVMBuildAnd(e->b, LLVMBuildIsNull(e->b, data, ""), icmp(e, LLVMIntNE, size, jit_i64(e, 0)), ""), "");
    LLVMBasicBlockRef delegate = jit_delegate_block(e, FBE_FINAL, FBE_OP_VERIFY);
    jit_goto_if(e, bad_arg, delegate);
    LLVMValueRef end = check_frame(F, st, data, size, delegate);
    LLVMValueRef q;
    /* The call's depth limit (options->max_depth, 0 or no options: the codec's).
     * `same` holds when it cannot change the result compared with the codec's:
     * no options, 0, or a limit no frame of S can reach when the codec's cannot
     * either (S is not on a cycle). That path passes the codec's limit as a
     * constant, which folds the depth checks of the code inlined into it, as
     * before limits were per call; the other path is the interpreter's. */
    LLVMValueRef md = NULL, same = NULL;
    uint32_t codec_max = fbe_codec_max_depth(e->codec);
    unsigned reach = fbe_codec_type_reach(e->codec, jit_struct_index(e, st));
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
    /* where the body's failures go. A struct that is not fixed gets there only
     * on the path where the call's limit gives the codec's result (`same`), so
     * the interpreter is given no options and nothing else stays live through
     * the body; a fixed one (no body call) is given the limit in force */
    LLVMBasicBlockRef bail =
        jit_verify_bail_block(e, FBE_FINAL, st, data, end, info, st->final_fixed ? md : NULL);
    if (st->final_fixed) {
        jit_goto_if(e, icmp(e, LLVMIntUGT, jit_i64(e, 8 + (uint64_t)st->final_size), end), delegate);
        uint32_t h = interp_prog_for(e->codec, st)->fixed_depth - 1;
        if (h > 0) { /* a nested level may be too deep for this call's limit */
            /* levels allowed below the root's */
            LLVMValueRef left = addc(e, LLVMBuildZExt(e->b, md, e->i64, ""), (uint64_t)-1);
            LLVMValueRef deep = icmp(e, LLVMIntSLT, left, jit_i64(e, h));
            if (codec_max >= 1 + h) /* never with the codec's limit */
                deep = LLVMBuildAnd(e->b, deep, LLVMBuildNot(e->b, same, ""), "");
            jit_goto_if(e, deep, delegate);
        }
        q = jit_i64(e, 8 + (uint64_t)st->final_size);
    } else {
        /* a call's limit that could change the result: the interpreter's */
        LLVMBasicBlockRef fast = jit_block(e, "codec_depth");
        LLVMBuildCondBr(e->b, same, fast, delegate);
        jit_position(e, fast);
        LLVMValueRef args[] = {data, end, jit_i64(e, 8), jit_i64(e, (uint64_t)codec_max - 1)};
        q = call(e, f->final_verify, args, P_CTX);
        jit_goto_if(e, icmp(e, LLVMIntSLT, q, jit_i64(e, 0)), bail);
    }
    jit_goto_if(e, icmp(e, LLVMIntNE, q, end), bail);
    jit_if c;
    jit_if_begin(e, &c, LLVMBuildIsNotNull(e->b, info, ""));
    jit_store(e, jit_i32(e, FBE_OK), info, offsetof(fbe_verify_info, status));
    jit_store(e, jit_i64(e, 0), info, offsetof(fbe_verify_info, offset));
    jit_store(e, LLVMConstPointerNull(e->ptr), info, offsetof(fbe_verify_info, type));
    jit_store(e, LLVMConstPointerNull(e->ptr), info, offsetof(fbe_verify_info, field));
    jit_if_end(e, &c);
    LLVMBuildRet(e->b, jit_i32(e, FBE_OK));
}

static void define_entry_deserialize(fin *F, const fbe_ir_struct *st, jit_struct_fns *f)
{
    jit_emit *e = F->e;
    LLVMValueRef fn = f->entry[FBE_FINAL][FBE_OP_DESERIALIZE];
    if (!fn) /* not a selected type or operation (jit_emit.entry_types, entry_ops) */
        return;
    jit_begin_function(e, fn);
    LLVMValueRef type = LLVMGetParam(fn, 0), data = LLVMGetParam(fn, 1), size = LLVMGetParam(fn, 2);
    LLVMValueRef value = LLVMGetParam(fn, 3), opts = LLVMGetParam(fn, 4), consumed = LLVMGetParam(fn, 5);
    jit_store_consumed(e, consumed, jit_i64(e, 0));
    LLVMBasicBlockRef delegate = jit_delegate_block(e, FBE_FINAL, FBE_OP_DESERIALIZE);
    LLVMValueRef bad_arg = LLVMBuildOr(
        e->b, LLVMBuildIsNull(e->b, type, ""),
        LLVMBuildOr(e->b, LLVMBuildIsNull(e->b, value, ""), LLVMBuildIsNull(e->b, opts, ""), ""), "");
    jit_goto_if(e, bad_arg, delegate);
    LLVMValueRef arena = jit_load(e, e->ptr, opts, offsetof(fbe_decode_options, arena));
    bad_arg = LLVMBuildOr(
        e->b, LLVMBuildIsNull(e->b, arena, ""),
        LLVMBuildAnd(e->b, LLVMBuildIsNull(e->b, data, ""), icmp(e, LLVMIntNE, size, jit_i64(e, 0)), ""), "");
    jit_goto_if(e, bad_arg, delegate);
    LLVMValueRef md = jit_depth_limit(e, opts, false);
    LLVMValueRef left = addc(e, LLVMBuildZExt(e->b, md, e->i64, ""), (uint64_t)-1);

    LLVMValueRef end = check_frame(F, st, data, size, delegate);
    LLVMValueRef q;
    if (st->final_fixed) {
        jit_goto_if(e, icmp(e, LLVMIntUGT, jit_i64(e, 8 + (uint64_t)st->final_size), end), delegate);
        uint32_t h = interp_prog_for(e->codec, st)->fixed_depth;
        if (h > 1)
            jit_goto_if(e, icmp(e, LLVMIntSLT, left, jit_i64(e, h - 1)), delegate);
        LLVMValueRef args[] = {jit_gep_c(e, data, 8), value};
        call(e, F->copy_fn[jit_struct_index(e, st)], args, 2);
        q = jit_i64(e, 8 + (uint64_t)st->final_size);
    } else {
        LLVMValueRef ctx = jit_alloca(e, LLVMArrayType(e->i64, sizeof(final_read_ctx) / 8), "ctx");
        jit_store(e, arena, ctx, offsetof(final_read_ctx, options.arena));
        jit_store(e, jit_load(e, e->i32, opts, offsetof(fbe_decode_options, flags)), ctx,
                  offsetof(final_read_ctx, options.flags));
        LLVMValueRef memory = jit_gep_c(e, ctx, offsetof(final_read_ctx, memory));
        jit_init_decode_budget(e, memory, opts, end);
        /* the interpreter's deserialize answers a failure, on the arena as the
         * call found it */
        LLVMBasicBlockRef bail = jit_read_bail_block(
            e, FBE_FINAL, arena, memory, jit_load(e, e->ptr, arena, offsetof(fbe_arena, ptr)));
        LLVMValueRef args[] = {data, end, jit_i64(e, 8), left, ctx, value};
        q = call(e, f->final_read, args, P_READ_COUNT);
        jit_goto_if(e, icmp(e, LLVMIntSLT, q, jit_i64(e, 0)), bail);
    }
    ret_status_if(e, icmp(e, LLVMIntNE, q, end), jit_i32(e, FBE_FINAL_SIZE));
    jit_store_consumed(e, consumed, end);
    LLVMBuildRet(e->b, jit_i32(e, FBE_OK));
}

/* ============================== driver =========================================== */

bool jit_emit_final(jit_emit *e, bool write, bool verify, bool read)
{
    fin F = {.e = e};
    F.copy_fn = calloc(e->count + 1, sizeof *F.copy_fn);
    if (!F.copy_fn)
        return false;
    char name[512];
    LLVMTypeRef walk_p[P_READ_COUNT] = {e->ptr, e->i64, e->i64, e->i64, e->ptr, e->ptr};
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
            snprintf(name, sizeof name, "final_verify.%s", st->c_name);
            f->final_verify = jit_declare(e, name, e->i64, walk_p, P_CTX, false);
            jit_declare_entry(e, i, FBE_FINAL, FBE_OP_VERIFY);
        }
        if (read) {
            snprintf(name, sizeof name, "final_read.%s", st->c_name);
            f->final_read = jit_declare(e, name, e->i64, walk_p, P_READ_COUNT, false);
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
    return true;
}
