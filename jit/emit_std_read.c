/* Standard model, reading side: verify and deserialize, lowered per struct.
 * Mirrors runtime/interp/std_read.c (the semantic reference) on valid frames:
 * the same checks, traversal budget and depth limit, the same arena
 * allocations in the same order. Every offset, size and type number is a
 * constant taken from the IR.
 *
 * Internal functions per struct S (LLVM internal linkage, fastcc after opt):
 *   std_verify.S (ptr data, i64 size, i64 body, i32 left, i64 budget)
 *                 -> i64: the budget left, or -1
 *   std_read.S   (ptr data, i64 size, i64 body, i32 left, i64 budget, ptr ctx,
 *                 ptr host, ptr aptr) -> {i64 budget or -1, ptr aptr}
 * `body` is a struct body whose reference the caller checked (offset, size,
 * type, depth, budget). `left` is max_depth minus the body's level. A derived
 * struct's inherited fields are read by its base's functions (jit_inherited).
 * The mutable state (budget, arena cursor) lives in allocas, i.e. registers,
 * and travels by value; ctx (deserialize only) holds what does not change
 * often.
 *
 * Small structs that are not on a reference cycle (Account, Order, ...) have
 * a function for complete bodies, always inlined into their callers; the
 * reference site tells a body an older writer made shorter apart with one
 * compare. Larger structs have one function that checks the body's size once
 * at its start (older_guard).
 *
 * Only valid frames of current writers are read here. Anything else (a failing
 * check, an older writer's body, a large array that needs a precheck, bad
 * arguments) returns -1 through every level, reporting nothing and zeroing
 * nothing, and the entry point hands the whole frame to the interpreter's
 * verify or deserialize (the codec's own, in process; the image's, in AOT
 * objects), whose result is the answer: its statuses, positions, reports and
 * host state are the reference's by construction. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "emit.h"
#include "emit_budget.h"
#include "interp/program.h" /* struct fbe_codec: the type table */

/* The parameters of both kinds of internal function (P_*), then a read
 * function's own. */
enum { P_DATA, P_SIZE, P_BODY, P_LEFT, P_BUDGET, P_CTX, P_HOST, P_APTR };

enum {
    CTX_ARENA,     /* ptr: fbe_arena * */
    CTX_AEND,      /* ptr: arena->end (arena->ptr travels by value) */
    CTX_BORROW,    /* i32: FBE_DECODE_BORROW */
    CTX_MEMORY,    /* fbe_decode_budget: what the arena's slow path charges */
    CTX_FIELDS
};

/* Small collections and arrays are unrolled up to this many elements. */
#define UNROLL_MAX 8

typedef struct rd {
    jit_emit *e;
    LLVMTypeRef ctx_t;
    LLVMTypeRef verify_t, read_t; /* internal function types */
    LLVMTypeRef read_ret_t;       /* {i64 budget, ptr arena cursor} */
    bool *inl;                    /* per struct: small (its function takes
                                     complete bodies, inlined into its entry
                                     points) */
    bool inline_call;             /* the next body call is an entry point's own:
                                     always inlined */
    const fbe_ir_struct *refs_of; /* many_refs(): the struct last asked about */
    bool refs_many;

    /* the function being emitted */
    LLVMValueRef data, size;
    LLVMValueRef ctx;             /* deserialize: the read_ctx */
    LLVMValueRef depth;           /* i32 levels left below the body being read:
                                   * max_depth - its level (0: a struct in it is
                                   * TOO_DEEP) */
    LLVMValueRef body, room;      /* the body being read and size - body (>= 8) */
    bool many_refs;               /* the body has more than two references */
    LLVMValueRef borrow;          /* i32, read once (deserialize) */
    LLVMValueRef arena;           /* fbe_arena *, read once (deserialize) */
    /* Mutable state lives in allocas (registers after mem2reg) and travels by
     * value into and out of internal functions. */
    LLVMValueRef budget;          /* i64 alloca */
    LLVMValueRef aptr;            /* ptr alloca: arena->ptr (deserialize) */
    LLVMBasicBlockRef ret_bb;     /* verify: returns a failure */
    /* an entry point: where anything but a valid frame of a complete root body
     * goes (the interpreter's entry, whose result is the answer) */
    LLVMBasicBlockRef delegate;
} rd;

/* ---- kinds ---------------------------------------------------------------------- */

/* Whether verify has anything to check for a value of type t. */
static bool needs_check(const fbe_ir_type *t)
{
    return !fbe_interp_std_inline_only(t);
}

/* The offsets a body's fields hold at the body's own base (a guide to which
 * bounds-check form is cheaper). */
static unsigned count_refs(const fbe_ir_struct *st)
{
    unsigned n = 0;
    for (size_t i = 0; i < st->field_count; i++) {
        const fbe_ir_type *t = st->fields[i].type;
        if (needs_check(t))
            n += t->kind == FBE_IR_ARRAY ? t->array_len : 1;
    }
    return n;
}

/* count_refs(st) > 2, counted once per struct: a chunked struct's leaves ask
 * for the whole struct's answer, which would make lowering quadratic. */
static bool many_refs(rd *r, const fbe_ir_struct *st)
{
    if (r->refs_of != st) {
        r->refs_of = st;
        r->refs_many = count_refs(st) > 2;
    }
    return r->refs_many;
}

/* ---- small builders ------------------------------------------------------------- */

static LLVMValueRef add_c(rd *r, LLVMValueRef a, uint64_t c)
{
    if (c == 0)
        return a;
    return LLVMBuildNUWAdd(r->e->b, a, jit_i64(r->e, c), "");
}

static LLVMValueRef add(rd *r, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildNUWAdd(r->e->b, a, b, "");
}

static LLVMValueRef mul_c(rd *r, LLVMValueRef a, uint64_t c)
{
    return LLVMBuildNUWMul(r->e->b, a, jit_i64(r->e, c), "");
}

static LLVMValueRef ld32(rd *r, LLVMValueRef pos)
{
    return LLVMBuildZExt(r->e->b, jit_load_at(r->e, r->e->i32, r->data, pos), r->e->i64, "");
}

static LLVMValueRef ld8(rd *r, LLVMValueRef pos)
{
    return jit_load_at(r->e, r->e->i8, r->data, pos);
}

static LLVMValueRef ugt(rd *r, LLVMValueRef a, LLVMValueRef b)
{
    return LLVMBuildICmp(r->e->b, LLVMIntUGT, a, b, "");
}

static LLVMValueRef is_zero(rd *r, LLVMValueRef v)
{
    return LLVMBuildICmp(r->e->b, LLVMIntEQ, v, LLVMConstNull(LLVMTypeOf(v)), "");
}

static LLVMValueRef ctx_gep(rd *r, unsigned field)
{
    return LLVMBuildStructGEP2(r->e->b, r->ctx_t, r->ctx, field, "");
}

static LLVMValueRef ctx_load(rd *r, unsigned field, LLVMTypeRef t)
{
    return LLVMBuildLoad2(r->e->b, t, ctx_gep(r, field), "");
}

static void ctx_store(rd *r, unsigned field, LLVMValueRef v)
{
    LLVMBuildStore(r->e->b, v, ctx_gep(r, field));
}

static void store_zero(rd *r, LLVMValueRef host, uint64_t n)
{
    if (n)
        jit_memset(r->e, host, 0, jit_i64(r->e, n));
}

/* A fresh block placed at the end of the function, with the builder kept where
 * it is; fill it with at_block(), return with back(). */
static LLVMBasicBlockRef at_block(rd *r, const char *name, LLVMBasicBlockRef *saved)
{
    *saved = LLVMGetInsertBlock(r->e->b);
    LLVMBasicBlockRef bb = jit_block(r->e, name);
    jit_position(r->e, bb);
    return bb;
}

static void back(rd *r, LLVMBasicBlockRef saved)
{
    jit_position(r->e, saved);
}

/* ---- state ------------------------------------------------------------------------ */

static LLVMValueRef local_load(rd *r, LLVMValueRef slot, LLVMTypeRef t)
{
    return LLVMBuildLoad2(r->e->b, t, slot, "");
}

static void local_store(rd *r, LLVMValueRef slot, LLVMValueRef v)
{
    LLVMBuildStore(r->e->b, v, slot);
}

/* Internal functions return the budget left (< 2^32), or -1 when they failed
 * (the entry point then hands the frame to the interpreter, which finds the
 * failure), and when decoding the arena cursor as well. */
static void ret_state(rd *r, LLVMValueRef budget)
{
    jit_emit *e = r->e;
    if (!r->aptr) {
        LLVMBuildRet(e->b, budget);
        return;
    }
    LLVMValueRef v = LLVMGetUndef(r->read_ret_t);
    v = LLVMBuildInsertValue(e->b, v, budget, 0, "");
    v = LLVMBuildInsertValue(e->b, v, local_load(r, r->aptr, e->ptr), 1, "");
    LLVMBuildRet(e->b, v);
}

static void ret_ok(rd *r)
{
    ret_state(r, local_load(r, r->budget, r->e->i64));
}

static void ret_failed(rd *r)
{
    ret_state(r, jit_i64(r->e, (uint64_t)-1));
}

/* Starts an internal function or entry point: allocas for the state. */
static void begin(rd *r, LLVMValueRef fn, bool reading)
{
    jit_emit *e = r->e;
    jit_begin_function(e, fn);
    r->budget = jit_alloca(e, e->i64, "budget");
    r->aptr = reading ? jit_alloca(e, e->ptr, "aptr") : NULL;
    r->ret_bb = NULL;
    r->delegate = NULL;
    r->borrow = r->arena = r->ctx = NULL;
    r->body = r->room = NULL;
    r->many_refs = false;
}

/* An internal function's parameters and state from ctx. */
static void load_state(rd *r, LLVMValueRef fn)
{
    jit_emit *e = r->e;
    r->data = LLVMGetParam(fn, P_DATA);
    r->size = LLVMGetParam(fn, P_SIZE);
    r->depth = LLVMGetParam(fn, P_LEFT);
    local_store(r, r->budget, LLVMGetParam(fn, P_BUDGET));
    if (r->aptr) {
        r->ctx = LLVMGetParam(fn, P_CTX);
        local_store(r, r->aptr, LLVMGetParam(fn, P_APTR));
        r->borrow = ctx_load(r, CTX_BORROW, e->i32);
        r->arena = ctx_load(r, CTX_ARENA, e->ptr);
    }
}

/* ---- failures ----------------------------------------------------------------- */

/* A failure reports nothing, zeroes nothing and computes no status: it returns
 * -1 through every level, and the entry point hands the frame to the
 * interpreter's verify or deserialize, which answers (jit_verify_bail_block,
 * jit_read_bail_block). So this file states what a valid frame satisfies, not
 * which check fails first or with which status, position or host state. */

/* An internal function's budget result: negative (failed) goes to fail,
 * anything else is the budget left. */
static void on_result(rd *r, LLVMValueRef budget, LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    jit_goto_if(e, LLVMBuildICmp(e->b, LLVMIntSLT, budget, jit_i64(e, 0), ""), fail);
    local_store(r, r->budget, budget);
}

/* ---- shared checks ---------------------------------------------------------------- */

/* size - n for n <= 8 (size >= 8: the frame header was checked). */
static LLVMValueRef size_minus(rd *r, uint64_t n)
{
    return LLVMBuildNUWSub(r->e->b, r->size, jit_i64(r->e, n), "");
}

/* The offset `off` of a block of at least `need` bytes at base + off: off in
 * [1, size - base - need] is the common case, tested with one compare. Branches
 * to `rare` otherwise (the caller sorts out off == 0 and the out-of-bounds case
 * there, in order) and returns true; false when the fast test does not apply.
 * Two forms: against the body's room (a per-body limit, for bodies with several
 * references), or absolute, with off - 1 computed in 32 bits so that off == 0
 * wraps to 2^32 - 1, beyond any frame. */
static bool offset_fast(rd *r, LLVMValueRef off, LLVMValueRef base, uint64_t need,
                        LLVMBasicBlockRef rare)
{
    jit_emit *e = r->e;
    if (need > 8)
        return false;
    LLVMValueRef in;
    if (r->room && base == r->body && r->many_refs) {
        LLVMValueRef lim = LLVMBuildSub(e->b, r->room, jit_i64(e, need), "");
        in = LLVMBuildICmp(e->b, LLVMIntULT, LLVMBuildSub(e->b, off, jit_i64(e, 1), ""), lim, "");
    } else {
        LLVMValueRef m1 = LLVMBuildSub(e->b, LLVMBuildTrunc(e->b, off, e->i32, ""), jit_i32(e, 1), "");
        LLVMValueRef x = LLVMBuildNUWAdd(e->b, LLVMBuildZExt(e->b, m1, e->i64, ""), base, "");
        in = LLVMBuildICmp(e->b, LLVMIntULT, x, size_minus(r, need), "");
    }
    LLVMBasicBlockRef ok = jit_block(e, "offset_ok");
    LLVMBuildCondBr(e->b, jit_unlikely(e, LLVMBuildNot(e->b, in, "")), rare, ok);
    jit_position(e, ok);
    return true;
}

/* off, the offset of a block of at least `need` bytes at base + off, is in
 * [1, size - base - need]; branches to `rare` otherwise. */
static void offset_test(rd *r, LLVMValueRef off, LLVMValueRef base, uint64_t need,
                        LLVMBasicBlockRef rare)
{
    if (offset_fast(r, off, base, need, rare))
        return;
    jit_goto_if(r->e, is_zero(r, off), rare);
    jit_goto_if(r->e, ugt(r, add_c(r, add(r, base, off), need), r->size), rare);
}

static LLVMValueRef next_depth(rd *r)
{
    return LLVMBuildNUWSub(r->e->b, r->depth, jit_i32(r->e, 1), "");
}

/* An entry point's own body call is always inlined (inline_call). */
static LLVMValueRef body_call(rd *r, LLVMValueRef call)
{
    if (r->inline_call) {
        unsigned kind = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
        LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                                 LLVMCreateEnumAttribute(r->e->ctx, kind, 0));
    }
    return call;
}

/* Calls an internal function on the body at `body` (level `depth`): a verify
 * function when host is NULL, else a read function into host. */
static void call_body(rd *r, LLVMValueRef fn, LLVMValueRef body, LLVMValueRef depth,
                      LLVMValueRef host, LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    LLVMValueRef args[] = {r->data, r->size, body, depth, local_load(r, r->budget, e->i64),
                           r->ctx, host, host ? local_load(r, r->aptr, e->ptr) : NULL};
    if (!host) {
        on_result(r, body_call(r, LLVMBuildCall2(e->b, r->verify_t, fn, args, P_CTX, "")), fail);
        return;
    }
    LLVMValueRef res = body_call(r, LLVMBuildCall2(e->b, r->read_t, fn, args, 8, ""));
    local_store(r, r->aptr, LLVMBuildExtractValue(e->b, res, 1, ""));
    on_result(r, LLVMBuildExtractValue(e->b, res, 0, ""), fail);
}

enum { BODY_VERIFY, BODY_READ, BODY_READ_ALLOC };

/* The bodies a struct function is defined for: complete ones only (the caller
 * tells them apart); any length, a shorter one (an older writer) bailing at
 * the start (older_guard). */
typedef enum { BODIES_COMPLETE, BODIES_BAILING } bodies;

static LLVMValueRef arena_alloc(rd *r, LLVMValueRef n, LLVMBasicBlockRef fail);

/* The start of a BODIES_BAILING function: a body shorter than the schema's
 * (an older writer) bails to fail (the interpreter then takes the whole
 * frame); the builder is left on the complete bodies' path, with no check per
 * field. */
static void older_guard(rd *r, const fbe_ir_struct *st, LLVMValueRef body, LLVMBasicBlockRef fail)
{
    jit_goto_if(r->e,
                LLVMBuildICmp(r->e->b, LLVMIntULT, ld32(r, body), jit_i64(r->e, st->std_body_size), ""),
                fail);
}

/* chk_struct for the reference at pos (frame base `base`) to a body of type T one
 * level below r->depth (root: level 1, never too deep, and its body always fits
 * the fresh budget), then the body's fields through T's function (inlined when
 * small). The fast test is that every check passes (small structs: and the body
 * is complete); a failing check goes to ref_fail, a shorter body (an older
 * writer: the interpreter takes the whole frame) and a failing field to
 * body_fail. BODY_READ decodes into host; BODY_READ_ALLOC allocates the host
 * struct once the reference passed and stores its address at host (S?). */
static void struct_body(rd *r, const fbe_ir_struct *T, LLVMValueRef pos, LLVMValueRef base,
                        LLVMBasicBlockRef ref_fail, LLVMBasicBlockRef body_fail, int mode,
                        LLVMValueRef host, bool root)
{
    jit_emit *e = r->e;
    size_t ti = jit_struct_index(e, T);
    LLVMBasicBlockRef rare = root && r->delegate ? r->delegate : ref_fail;
    LLVMValueRef budget = local_load(r, r->budget, e->i64);
    LLVMValueRef off = ld32(r, pos);
    offset_test(r, off, base, 8, rare);
    LLVMValueRef b = add(r, base, off);
    LLVMValueRef s = ld32(r, b);
    /* Small structs' function takes complete bodies only (inlined), the others'
     * any length (older_guard). */
    if (r->inl[ti]) {
        /* verify's older root goes to the entry's delegate (the call's own
         * arguments): `fbec verify` compiled 1.8 M instructions more through
         * the bail block */
        LLVMBasicBlockRef older = root && r->delegate && mode == BODY_VERIFY ? r->delegate : body_fail;
        jit_goto_if(e, LLVMBuildICmp(e->b, LLVMIntULT, s, jit_i64(e, T->std_body_size), ""), older);
    } else {
        jit_goto_if(e, LLVMBuildICmp(e->b, LLVMIntULT, s, jit_i64(e, 8), ""), rare);
    }
    /* b + s > size (s >= 8 here) */
    jit_goto_if(e, ugt(r, add(r, b, s), r->size), rare);
    LLVMValueRef type = jit_load_at(e, e->i32, r->data, add_c(r, b, 4));
    jit_goto_if(e, LLVMBuildICmp(e->b, LLVMIntNE, type, jit_i32(e, T->type_number), ""), rare);
    if (!root) { /* the root's body fits the fresh budget (s <= size == budget) */
        jit_goto_if(e, is_zero(r, r->depth), rare);
        jit_goto_if(e, ugt(r, s, budget), rare);
    }
    local_store(r, r->budget, LLVMBuildNUWSub(e->b, budget, s, ""));
    LLVMValueRef target = mode == BODY_VERIFY ? NULL : host;
    if (mode == BODY_READ_ALLOC) {
        target = arena_alloc(r, jit_i64(e, T->host_size), ref_fail);
        jit_store(e, target, host, 0);
    }
    LLVMValueRef fn = mode == BODY_VERIFY ? e->fns[ti].std_verify : e->fns[ti].std_read;
    r->inline_call = root && r->inl[ti];
    call_body(r, fn, b, root ? r->depth : next_depth(r), target, body_fail);
    r->inline_call = false;
}

/* chk_optional for a present optional at pos (flag already non-zero) whose slot
 * holds inl bytes: returns the slot. */
static LLVMValueRef optional_slot(rd *r, uint32_t inl, LLVMValueRef pos, LLVMValueRef base,
                                  LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    LLVMValueRef budget = local_load(r, r->budget, e->i64);
    LLVMValueRef off = ld32(r, add_c(r, pos, 1));
    offset_test(r, off, base, inl, fail);
    jit_goto_if(r->e, ugt(r, jit_i64(e, inl), budget), fail);
    local_store(r, r->budget, LLVMBuildNUWSub(e->b, budget, jit_i64(e, inl), ""));
    return add(r, base, off);
}

/* chk_string (es 0) or chk_block (es >= 1 bytes per element) for the block whose
 * offset is at pos: offset 0 goes to `empty`; otherwise returns the length or
 * count (i64) and sets *first to the payload or first element, with the builder
 * after the checks. */
static LLVMValueRef block_ref(rd *r, uint32_t es, LLVMValueRef pos, LLVMValueRef base,
                              LLVMBasicBlockRef empty, LLVMBasicBlockRef fail, LLVMValueRef *first)
{
    jit_emit *e = r->e;
    LLVMBasicBlockRef zero_or_bad = jit_block(e, "offset_rare");
    LLVMValueRef budget = local_load(r, r->budget, e->i64);
    LLVMValueRef off = ld32(r, pos);
    offset_test(r, off, base, 4, zero_or_bad);
    LLVMValueRef blk = add(r, base, off);
    LLVMValueRef n = ld32(r, blk);
    LLVMValueRef bytes = es > 1 ? mul_c(r, n, es) : n;
    LLVMValueRef charged = add_c(r, bytes, 4);
    jit_goto_if(r->e, ugt(r, add(r, blk, bytes), size_minus(r, 4)), fail);
    jit_goto_if(r->e, ugt(r, charged, budget), fail);
    local_store(r, r->budget, LLVMBuildNUWSub(e->b, budget, charged, ""));
    LLVMBasicBlockRef saved = LLVMGetInsertBlock(e->b);
    jit_position(e, zero_or_bad);
    LLVMBuildCondBr(e->b, is_zero(r, off), empty, fail);
    jit_position(e, saved);
    *first = add_c(r, blk, 4);
    return n;
}

/* ---- verify ------------------------------------------------------------------- */

static void v_value(rd *r, const fbe_ir_type *t, LLVMValueRef pos, LLVMValueRef base,
                    LLVMBasicBlockRef fail);

/* The struct referenced at pos, one level down. */
static void v_struct_ref(rd *r, const fbe_ir_struct *T, LLVMValueRef pos, LLVMValueRef base,
                         LLVMBasicBlockRef fail)
{
    struct_body(r, T, pos, base, fail, fail, BODY_VERIFY, NULL, false);
}

/* count elements of collection t starting at elems (count: i64, may be constant). */
static void v_elems(rd *r, const fbe_ir_type *t, LLVMValueRef elems, LLVMValueRef count,
                    LLVMValueRef base, LLVMBasicBlockRef fail)
{
    const fbe_ir_type *k = fbe_ir_kind_is_keyed(t->kind) ? t->key : NULL, *v = t->elem;
    uint32_t ks = k ? k->std_inline_size : 0, es = fbe_ir_std_entry_size(t);
    jit_loop loop;
    jit_loop_begin(r->e, &loop, count);
    LLVMValueRef p = add(r, elems, mul_c(r, jit_loop_index(r->e, &loop), es));
    if (k && needs_check(k))
        v_value(r, k, p, base, fail);
    if (needs_check(v))
        v_value(r, v, add_c(r, p, ks), base, fail);
    jit_loop_end(r->e, &loop);
}

static void v_value(rd *r, const fbe_ir_type *t, LLVMValueRef pos, LLVMValueRef base,
                    LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_STRING: {
        LLVMBasicBlockRef done = jit_block(e, "string_done");
        LLVMValueRef payload;
        block_ref(r, 0, pos, base, done, fail, &payload);
        LLVMBuildBr(e->b, done);
        jit_position(e, done);
        break;
    }
    case FBE_IR_SHAPE_STRUCT:
        v_struct_ref(r, t->struct_type, pos, base, fail);
        break;
    case FBE_IR_SHAPE_OPTIONAL: case FBE_IR_SHAPE_OPT_STRUCT: {
        const fbe_ir_type *inner = t->elem;
        jit_if c;
        jit_if_begin(e, &c, LLVMBuildICmp(e->b, LLVMIntNE, ld8(r, pos), jit_i8(e, 0), ""));
        LLVMValueRef slot = optional_slot(r, inner->std_inline_size, pos, base, fail);
        if (inner->kind == FBE_IR_STRUCT)
            v_struct_ref(r, inner->struct_type, slot, slot, fail);
        else if (needs_check(inner))
            v_value(r, inner, slot, slot, fail);
        jit_if_end(e, &c);
        break;
    }
    case FBE_IR_SHAPE_ARRAY: {
        const fbe_ir_type *el = t->elem;
        if (!needs_check(el))
            break;
        if (t->array_len <= UNROLL_MAX) {
            for (uint32_t i = 0; i < t->array_len; i++)
                v_value(r, el, add_c(r, pos, (uint64_t)i * el->std_inline_size), base, fail);
        } else {
            jit_loop loop;
            jit_loop_begin(e, &loop, jit_i64(e, t->array_len));
            v_value(r, el, add(r, pos, mul_c(r, jit_loop_index(e, &loop), el->std_inline_size)),
                    base, fail);
            jit_loop_end(e, &loop);
        }
        break;
    }
    case FBE_IR_SHAPE_SEQ: case FBE_IR_SHAPE_MAP: {
        LLVMBasicBlockRef done = jit_block(e, "block_done");
        LLVMValueRef elems;
        LLVMValueRef n = block_ref(r, fbe_ir_std_entry_size(t), pos, base, done, fail, &elems);
        if (needs_check(t->elem) || (fbe_ir_kind_is_keyed(t->kind) && needs_check(t->key)))
            v_elems(r, t, elems, n, base, fail);
        LLVMBuildBr(e->b, done);
        jit_position(e, done);
        break;
    }
    default:
        break;
    }
}

/* Fields [lo, hi) of a body (verify). */
static void v_fields(rd *r, const fbe_ir_struct *st, size_t lo, size_t hi, LLVMValueRef body,
                     LLVMBasicBlockRef done)
{
    for (size_t i = lo; i < hi; i++) {
        const fbe_ir_field *fd = &st->fields[i];
        if (needs_check(fd->type))
            v_value(r, fd->type, add_c(r, body, fd->std_offset), body, r->ret_bb);
    }
    LLVMBuildBr(r->e->b, done);
}

static bool any_checked(const fbe_ir_struct *st, size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++)
        if (needs_check(st->fields[i].type))
            return true;
    return false;
}

/* The base whose functions read st's inherited fields (jit_inherited), or
 * NULL. Only a base whose function takes bodies of any length (not a small
 * struct's complete-body function) can take a derived struct's bodies; a small
 * base's few fields are read again instead. */
static const fbe_ir_struct *shared_base(rd *r, const fbe_ir_struct *st)
{
    if (!jit_inherited(r->e, st) || r->inl[jit_struct_index(r->e, st->base)])
        return NULL;
    return st->base;
}

/* base's function, which reads the inherited fields of the body being read
 * (a derived struct's host value starts with its base's). */
static LLVMValueRef inherited_fn(rd *r, const fbe_ir_struct *base, bool reading)
{
    jit_struct_fns *f = jit_fns_of(r->e, base);
    return reading ? f->std_read : f->std_verify;
}

/* std_verify.S for complete bodies (BODIES_COMPLETE, small structs: the caller
 * tells them apart) or bodies of any length. A chunk function (chunked structs)
 * is the same for fields [lo, hi). With `base` (st's root function:
 * shared_base), fields [0, lo) are base's. */
static void define_verify(rd *r, const fbe_ir_struct *st, LLVMValueRef fn, bodies kind,
                          size_t lo, size_t hi, const fbe_ir_struct *base)
{
    jit_emit *e = r->e;
    begin(r, fn, false);
    LLVMValueRef body = LLVMGetParam(fn, P_BODY);
    bool base_checked = base && any_checked(st, 0, lo);
    if (!base_checked && !any_checked(st, lo, hi)) { /* any body is valid */
        LLVMBuildRet(e->b, LLVMGetParam(fn, P_BUDGET));
        return;
    }
    load_state(r, fn);
    r->body = body;
    r->room = LLVMBuildSub(e->b, r->size, body, "");
    r->many_refs = many_refs(r, st);
    LLVMBasicBlockRef saved;
    r->ret_bb = at_block(r, "fail", &saved);
    ret_failed(r);
    back(r, saved);
    LLVMBasicBlockRef done = at_block(r, "done", &saved);
    ret_ok(r);
    back(r, saved);

    if (kind == BODIES_BAILING)
        older_guard(r, st, body, r->ret_bb);
    if (base_checked)
        call_body(r, inherited_fn(r, base, false), body, r->depth, NULL, r->ret_bb);
    v_fields(r, st, lo, hi, body, done);
}

/* ---- deserialize ---------------------------------------------------------------- */

static void d_value(rd *r, const fbe_ir_type *t, LLVMValueRef pos, LLVMValueRef base,
                    LLVMValueRef host, LLVMBasicBlockRef fail);

/* n bytes of the arena (a host struct or array; strings: read_str) by
 * static_c.h's rule (sc_bump_at) on the cursor: arena->ptr travels in r->aptr
 * (a register once the handler is inlined), arena->end in ctx. NOMEM goes to
 * fail. */
static LLVMValueRef arena_alloc(rd *r, LLVMValueRef n, LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    LLVMValueRef args[] = {r->aptr, ctx_gep(r, CTX_AEND), r->arena, ctx_gep(r, CTX_MEMORY), n};
    LLVMValueRef p = jit_call_handler(e, "alloc", args, 5);
    jit_goto_if(e, LLVMBuildIsNull(e->b, p, ""), fail);
    return p;
}

/* One scalar (t->std_inline_size bytes) from pos to host. */
static void d_scalar(rd *r, const fbe_ir_type *t, LLVMValueRef pos, LLVMValueRef host)
{
    jit_emit *e = r->e;
    if (t->kind == FBE_IR_BOOL) {
        LLVMValueRef v = LLVMBuildICmp(e->b, LLVMIntNE, ld8(r, pos), jit_i8(e, 0), "");
        jit_store(e, LLVMBuildZExt(e->b, v, e->i8, ""), host, 0);
        return;
    }
    jit_store(e, jit_load_at(e, jit_int_type(e, t->std_inline_size), r->data, pos), host, 0);
}

/* count scalars of type el: wire stride el->std_inline_size, host el->host_size. */
static void d_scalars(rd *r, const fbe_ir_type *el, LLVMValueRef pos, LLVMValueRef host,
                      LLVMValueRef count)
{
    jit_emit *e = r->e;
    uint32_t es = el->std_inline_size, hs = el->host_size;
    if (el->kind != FBE_IR_BOOL && es == hs) {
        jit_memcpy(e, host, jit_gep(e, r->data, pos), mul_c(r, count, es));
        return;
    }
    if (LLVMIsAConstantInt(count) && LLVMConstIntGetZExtValue(count) <= UNROLL_MAX) {
        uint64_t n = LLVMConstIntGetZExtValue(count);
        for (uint64_t i = 0; i < n; i++)
            d_scalar(r, el, add_c(r, pos, i * es), jit_gep_c(e, host, i * hs));
        return;
    }
    jit_loop loop;
    jit_loop_begin(e, &loop, count);
    LLVMValueRef i = jit_loop_index(e, &loop);
    d_scalar(r, el, add(r, pos, mul_c(r, i, es)), jit_gep(e, host, mul_c(r, i, hs)));
    jit_loop_end(e, &loop);
}

/* String or bytes at pos into host {pointer, size}. */
static void d_string(rd *r, LLVMValueRef pos, LLVMValueRef base, LLVMValueRef host,
                     LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    LLVMBasicBlockRef empty = jit_block(e, "str.empty"), done = jit_block(e, "str.done");
    LLVMValueRef payload;
    LLVMValueRef n = block_ref(r, 0, pos, base, empty, fail, &payload);
    /* static_c.h's rule (sc_str_into): empty, borrowed or copied */
    LLVMValueRef after = LLVMBuildSub(e->b, LLVMBuildSub(e->b, r->size, payload, ""), n, "");
    LLVMValueRef borrow = LLVMBuildICmp(e->b, LLVMIntNE, r->borrow, jit_i32(e, 0), "");
    LLVMValueRef args[] = {host, jit_gep(e, r->data, payload), LLVMBuildTrunc(e->b, n, e->i32, ""),
                           after, borrow, r->aptr, ctx_gep(r, CTX_AEND), r->arena,
                           ctx_gep(r, CTX_MEMORY)};
    LLVMValueRef st = jit_call_handler(e, "read_str", args, 9);
    jit_goto_if(e, LLVMBuildICmp(e->b, LLVMIntNE, st, jit_i32(e, FBE_OK), ""), fail);
    LLVMBuildBr(e->b, done);
    jit_position(e, empty);
    jit_store(e, LLVMConstNull(e->ptr), host, 0);
    jit_store(e, jit_i64(e, 0), host, 8);
    LLVMBuildBr(e->b, done);
    jit_position(e, done);
}

/* The struct referenced at pos into host (by value). */
static void d_struct(rd *r, const fbe_ir_struct *T, LLVMValueRef pos, LLVMValueRef base,
                     LLVMValueRef host, LLVMBasicBlockRef fail)
{
    struct_body(r, T, pos, base, fail, fail, BODY_READ, host, false);
}

/* Large arrays of elements not yet checked: when the allocation would be out
 * of proportion, the interpreter's deserialize verifies them first (the frame
 * bails to fail). */
static void precheck(rd *r, const fbe_ir_type *t, LLVMValueRef count, uint32_t hs,
                     LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    if (!needs_check(t->elem) && !(fbe_ir_kind_is_keyed(t->kind) && needs_check(t->key)))
        return;
    LLVMValueRef bytes = mul_c(r, count, hs);
    LLVMValueRef budget = local_load(r, r->budget, e->i64);
    LLVMValueRef big = LLVMBuildAnd(
        e->b, ugt(r, bytes, jit_i64(e, 4096)),
        ugt(r, LLVMBuildLShr(e->b, bytes, jit_i64(e, 2), ""), budget), "");
    jit_goto_if(e, big, fail);
}

static void d_seq(rd *r, const fbe_ir_type *t, LLVMValueRef pos, LLVMValueRef base,
                  LLVMValueRef host, LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    bool map = fbe_ir_kind_is_keyed(t->kind);
    const fbe_ir_type *k = map ? t->key : NULL, *v = t->elem;
    uint32_t ks = k ? k->std_inline_size : 0, es = fbe_ir_std_entry_size(t);
    uint32_t hs = map ? t->host_entry_size : v->host_size;
    uint32_t vo = map ? t->host_entry_value_offset : 0;
    jit_store(e, LLVMConstNull(e->ptr), host, 0);
    jit_store(e, jit_i64(e, 0), host, 8);
    LLVMBasicBlockRef done = jit_block(e, "seq.done");
    LLVMValueRef elems;
    LLVMValueRef n = block_ref(r, es, pos, base, done, fail, &elems);
    jit_if c2;
    jit_if_begin(e, &c2, LLVMBuildICmp(e->b, LLVMIntNE, n, jit_i64(e, 0), ""));
    bool scalar = fbe_ir_kind_is_scalar(v->kind) && (!map || fbe_ir_kind_is_scalar(k->kind));
    if (!scalar)
        precheck(r, t, n, hs, fail);
    LLVMValueRef arr = arena_alloc(r, mul_c(r, n, hs), fail);
    jit_store(e, arr, host, 0);
    if (!map && scalar) {
        d_scalars(r, v, elems, arr, n);
    } else {
        jit_loop loop;
        jit_loop_begin(e, &loop, n);
        LLVMValueRef i = jit_loop_index(e, &loop);
        LLVMValueRef p = add(r, elems, mul_c(r, i, es));
        LLVMValueRef item = jit_gep(e, arr, mul_c(r, i, hs));
        if (map && scalar) {
            d_scalar(r, k, p, item);
            d_scalar(r, v, add_c(r, p, ks), jit_gep_c(e, item, vo));
        } else if (map) {
            d_value(r, k, p, base, item, fail);
            d_value(r, v, add_c(r, p, ks), base, jit_gep_c(e, item, vo), fail);
        } else {
            d_value(r, v, p, base, item, fail);
        }
        jit_loop_end(e, &loop);
    }
    jit_store(e, n, host, 8);
    jit_if_end(e, &c2);
    LLVMBuildBr(e->b, done);
    jit_position(e, done);
}

static void d_value(rd *r, const fbe_ir_type *t, LLVMValueRef pos, LLVMValueRef base,
                    LLVMValueRef host, LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_STRING:
        d_string(r, pos, base, host, fail);
        break;
    case FBE_IR_SHAPE_STRUCT:
        d_struct(r, t->struct_type, pos, base, host, fail);
        break;
    case FBE_IR_SHAPE_OPTIONAL: case FBE_IR_SHAPE_OPT_STRUCT: {
        const fbe_ir_type *inner = t->elem;
        if (inner->kind == FBE_IR_STRUCT) {
            /* the pointer stays NULL unless the body passed its checks and was allocated */
            const fbe_ir_struct *T = inner->struct_type;
            jit_store(e, LLVMConstNull(e->ptr), host, 0);
            jit_if c;
            jit_if_begin(e, &c, LLVMBuildICmp(e->b, LLVMIntNE, ld8(r, pos), jit_i8(e, 0), ""));
            LLVMValueRef slot = optional_slot(r, 4, pos, base, fail);
            struct_body(r, T, slot, slot, fail, fail, BODY_READ_ALLOC, host, false);
            jit_if_end(e, &c);
        } else {
            /* absent, or failing its checks: has_value false, value zero */
            jit_if c;
            jit_if_begin(e, &c, LLVMBuildICmp(e->b, LLVMIntNE, ld8(r, pos), jit_i8(e, 0), ""));
            LLVMValueRef slot = optional_slot(r, inner->std_inline_size, pos, base, fail);
            jit_store(e, jit_i8(e, 1), host, 0);
            d_value(r, inner, slot, slot, jit_gep_c(e, host, t->host_value_offset), fail);
            jit_if_else(e, &c);
            store_zero(r, host, t->host_size);
            jit_if_end(e, &c);
        }
        break;
    }
    case FBE_IR_SHAPE_ARRAY: {
        const fbe_ir_type *el = t->elem;
        uint32_t es = el->std_inline_size, hs = el->host_size, n = t->array_len;
        if (fbe_ir_kind_is_scalar(el->kind)) {
            d_scalars(r, el, pos, host, jit_i64(e, n));
            break;
        }
        if (n <= UNROLL_MAX) {
            for (uint32_t i = 0; i < n; i++)
                d_value(r, el, add_c(r, pos, (uint64_t)i * es), base,
                        jit_gep_c(e, host, (uint64_t)i * hs), fail);
            break;
        }
        jit_loop loop;
        jit_loop_begin(e, &loop, jit_i64(e, n));
        LLVMValueRef i = jit_loop_index(e, &loop);
        d_value(r, el, add(r, pos, mul_c(r, i, es)), base, jit_gep(e, host, mul_c(r, i, hs)), fail);
        jit_loop_end(e, &loop);
        break;
    }
    case FBE_IR_SHAPE_SEQ: case FBE_IR_SHAPE_MAP:
        d_seq(r, t, pos, base, host, fail);
        break;
    default:
        d_scalar(r, t, pos, host);
        break;
    }
}

/* Fields [lo, hi) of a body (deserialize): runs of plain scalars whose wire
 * and host layouts agree as one block copy. */
static void d_fields(rd *r, const fbe_ir_struct *st, size_t lo, size_t hi, LLVMValueRef body,
                     LLVMValueRef host, LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    for (size_t i = lo; i < hi;) {
        const fbe_ir_field *fd = &st->fields[i];
        size_t j = fbe_ir_plain_run(st->fields, i, hi);
        if (j > i) {
            uint64_t len = fbe_ir_plain_run_bytes(st->fields, i, j);
            LLVMValueRef src = jit_gep(e, r->data, add_c(r, body, fd->std_offset));
            LLVMValueRef dst = jit_gep_c(e, host, fd->host_offset);
            if (len == 1 || len == 2 || len == 4 || len == 8 || len == 16)
                jit_store(e, jit_load(e, jit_int_type(e, (uint32_t)len), src, 0), dst, 0);
            else
                jit_memcpy(e, dst, src, jit_i64(e, len));
            i = j;
            continue;
        }
        d_value(r, fd->type, add_c(r, body, fd->std_offset), body,
                jit_gep_c(e, host, fd->host_offset), fail);
        i++;
    }
}

/* std_read.S, like define_verify; a chunk function reads fields [lo, hi). */
static void define_read(rd *r, const fbe_ir_struct *st, LLVMValueRef fn, bodies kind,
                        size_t lo, size_t hi, const fbe_ir_struct *base)
{
    jit_emit *e = r->e;
    begin(r, fn, true);
    LLVMValueRef body = LLVMGetParam(fn, P_BODY);
    LLVMValueRef host = LLVMGetParam(fn, P_HOST);
    load_state(r, fn);
    LLVMBasicBlockRef saved, fail = at_block(r, "failed", &saved);
    ret_failed(r);
    back(r, saved);
    r->body = body;
    r->room = LLVMBuildSub(e->b, r->size, body, "");
    r->many_refs = many_refs(r, st);
    if (kind == BODIES_BAILING)
        older_guard(r, st, body, fail);
    if (base)
        call_body(r, inherited_fn(r, base, true), body, r->depth, host, fail);
    d_fields(r, st, lo, hi, body, host, fail);
    ret_ok(r);
}

/* ---- chunked structs ------------------------------------------------------------- */

/* One function per struct and operation costs LLVM more than linearly in its
 * size (InstCombine, MemCpyOpt, JumpThreading, the code generator: a struct of
 * 1,000 mixed fields took 18.7 s to compile, 2.6 times 500 fields'; docs/jit.md).
 * A large struct (emit.h: jit_chunks) is therefore read by a tree of functions,
 * the struct's own function at the root; every function stays bounded, so the
 * compile is linear. Each node has the struct function's signature and the
 * leaves run the same field code, so checks, order and budget are unchanged. */
static bool chunked(const fbe_ir_struct *st)
{
    return st->field_count > jit_chunks.min_fields && jit_chunks.fields >= 2;
}

static void mark_noalias(jit_emit *e, LLVMValueRef fn, unsigned param);

static LLVMValueRef chunk_fn(rd *r, const fbe_ir_struct *st, bool reading, size_t lo, size_t hi)
{
    LLVMValueRef fn = jit_chunk_fn(r->e, reading ? r->read_t : r->verify_t,
                                   reading ? "std_read" : "std_verify", st, lo, hi);
    if (reading)
        mark_noalias(r->e, fn, P_CTX);
    return fn;
}

/* std_verify.S or (reading) std_read.S: a leaf of fields [lo, hi), or for a
 * chunked struct its children in order. The struct's own function (kind
 * BODIES_BAILING) checks the body is complete; its chunks take complete
 * bodies only. */
static bool define_node(rd *r, const fbe_ir_struct *st, LLVMValueRef fn, bool reading,
                        bodies kind, size_t lo, size_t hi, const fbe_ir_struct *base)
{
    if (!chunked(st) || hi - lo <= jit_chunks.fields) {
        if (reading)
            define_read(r, st, fn, kind, lo, hi, base);
        else
            define_verify(r, st, fn, kind, lo, hi, base);
        return true;
    }
    size_t span = jit_chunk_span(lo, hi, jit_chunks.fields), k = (hi - lo + span - 1) / span;
    LLVMValueRef *fns = calloc(k, sizeof *fns);
    if (!fns)
        return false;
    for (size_t c = 0; c < k; c++) {
        size_t a = lo + c * span, b = a + span < hi ? a + span : hi;
        if (!reading && !any_checked(st, a, b))
            continue;
        fns[c] = chunk_fn(r, st, reading, a, b);
        if (!define_node(r, st, fns[c], reading, BODIES_COMPLETE, a, b, NULL)) {
            free(fns);
            return false;
        }
    }
    begin(r, fn, reading);
    load_state(r, fn);
    LLVMValueRef body = LLVMGetParam(fn, P_BODY), host = reading ? LLVMGetParam(fn, P_HOST) : NULL;
    LLVMBasicBlockRef saved, fail = at_block(r, "failed", &saved);
    ret_failed(r);
    back(r, saved);
    if (kind == BODIES_BAILING)
        older_guard(r, st, body, fail);
    if (base && (reading || any_checked(st, 0, lo)))
        call_body(r, inherited_fn(r, base, reading), body, r->depth, host, fail);
    for (size_t c = 0; c < k; c++)
        if (fns[c])
            call_body(r, fns[c], body, r->depth, host, fail);
    ret_ok(r);
    free(fns);
    return true;
}

/* ---- entry points ------------------------------------------------------------------ */

/* The frame header (static_c.h's sc_chk_frame): leaves r->size = full_size =
 * the budget. Failures go to the entry's delegate. */
static void frame(rd *r, LLVMValueRef data, LLVMValueRef size)
{
    jit_emit *e = r->e;
    LLVMValueRef zero = jit_i64(e, 0);
    r->data = data;
    LLVMValueRef slot = jit_alloca(e, e->i64, "full");
    LLVMValueRef args[] = {data, size, slot};
    LLVMValueRef st = jit_call_handler(e, "std_frame", args, 3);
    jit_goto_if(e, LLVMBuildICmp(e->b, LLVMIntNE, st, jit_i32(e, 0), ""), r->delegate);
    LLVMValueRef full = LLVMBuildLoad2(e->b, e->i64, slot, "");
    r->size = full;
    local_store(r, r->budget, full);
    /* the root reference has base 0: its room is the whole frame */
    r->body = zero;
    r->room = full;
    r->many_refs = true;
}

/* `bad` when type is NULL, or data is NULL with a non-zero size. */
static void check_arguments(rd *r, LLVMValueRef type, LLVMValueRef data, LLVMValueRef size,
                            LLVMBasicBlockRef bad)
{
    jit_emit *e = r->e;
    LLVMBasicBlockRef has_type = jit_block(e, "has_type"), null_data = jit_block(e, "null_data"),
                      go = jit_block(e, "arguments_ok");
    LLVMBuildCondBr(e->b, jit_unlikely(e, LLVMBuildIsNull(e->b, type, "")), bad, has_type);
    jit_position(e, has_type);
    LLVMBuildCondBr(e->b, jit_unlikely(e, LLVMBuildIsNull(e->b, data, "")), null_data, go);
    jit_position(e, null_data);
    LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntNE, size, jit_i64(e, 0), ""), bad, go);
    jit_position(e, go);
}

static void define_verify_entry(rd *r, const fbe_ir_struct *st, jit_struct_fns *f)
{
    jit_emit *e = r->e;
    LLVMValueRef fn = f->entry[FBE_STANDARD][FBE_OP_VERIFY];
    if (!fn) /* not a selected type or operation (jit_emit.entry_types, entry_ops) */
        return;
    begin(r, fn, false);
    LLVMValueRef type = LLVMGetParam(fn, 0), data = LLVMGetParam(fn, 1),
                 size = LLVMGetParam(fn, 2), info = LLVMGetParam(fn, 3),
                 options = LLVMGetParam(fn, 4);
    r->delegate = jit_delegate_block(e, FBE_STANDARD, FBE_OP_VERIFY);
    check_arguments(r, type, data, size, r->delegate);

    /* the root body is level 1 (max_depth >= 1); the limit is the call's */
    LLVMValueRef max_depth = jit_depth_limit(e, options, true);
    r->depth = LLVMBuildSub(e->b, max_depth, jit_i32(e, 1), "");
    frame(r, data, size);
    r->ret_bb = jit_verify_bail_block(e, FBE_STANDARD, st, r->data, r->size, info, max_depth);
    struct_body(r, st, jit_i64(e, 4), r->body, r->ret_bb, r->ret_bb, BODY_VERIFY, NULL, true);
    /* *info = {FBE_OK} */
    jit_if c;
    jit_if_begin(e, &c, LLVMBuildIsNotNull(e->b, info, ""));
    jit_store(e, jit_i64(e, 0), info, 0);
    jit_store(e, jit_i64(e, 0), info, 8);
    jit_store(e, jit_i64(e, 0), info, 16);
    jit_store(e, jit_i64(e, 0), info, 24);
    jit_if_end(e, &c);
    LLVMBuildRet(e->b, jit_i32(e, FBE_OK));
}

static void define_read_entry(rd *r, const fbe_ir_struct *st, jit_struct_fns *f)
{
    jit_emit *e = r->e;
    LLVMValueRef fn = f->entry[FBE_STANDARD][FBE_OP_DESERIALIZE];
    if (!fn) /* not a selected type or operation (jit_emit.entry_types, entry_ops) */
        return;
    begin(r, fn, true);
    LLVMValueRef type = LLVMGetParam(fn, 0), data = LLVMGetParam(fn, 1),
                 size = LLVMGetParam(fn, 2), value = LLVMGetParam(fn, 3),
                 options = LLVMGetParam(fn, 4), consumed = LLVMGetParam(fn, 5);
    r->ctx = jit_alloca(e, r->ctx_t, "ctx");

    jit_store_consumed(e, consumed, jit_i64(e, 0));

    LLVMBasicBlockRef bad_arg = r->delegate = jit_delegate_block(e, FBE_STANDARD, FBE_OP_DESERIALIZE);
    jit_goto_if(e, LLVMBuildIsNull(e->b, type, ""), bad_arg);
    jit_goto_if(e, LLVMBuildIsNull(e->b, value, ""), bad_arg);
    jit_goto_if(e, LLVMBuildIsNull(e->b, options, ""), bad_arg);
    LLVMValueRef arena = jit_load(e, e->ptr, options, offsetof(fbe_decode_options, arena));
    jit_goto_if(e, LLVMBuildIsNull(e->b, arena, ""), bad_arg);
    check_arguments(r, type, data, size, bad_arg);

    LLVMValueRef md = jit_depth_limit(e, options, false);
    LLVMValueRef flags = jit_load(e, e->i32, options, offsetof(fbe_decode_options, flags));
    r->depth = LLVMBuildSub(e->b, md, jit_i32(e, 1), "");
    r->arena = arena;
    r->borrow = LLVMBuildAnd(e->b, flags, jit_i32(e, FBE_DECODE_BORROW), "");
    ctx_store(r, CTX_ARENA, arena);
    ctx_store(r, CTX_BORROW, r->borrow);
    ctx_store(r, CTX_AEND, jit_load(e, e->ptr, arena, offsetof(fbe_arena, end)));
    LLVMValueRef aptr = jit_load(e, e->ptr, arena, offsetof(fbe_arena, ptr));
    local_store(r, r->aptr, aptr);

    /* the interpreter's deserialize answers any failure, on the arena as the
     * call found it (the frame's and the root's go to r->delegate) */
    LLVMBasicBlockRef fail = jit_read_bail_block(e, FBE_STANDARD, arena, ctx_gep(r, CTX_MEMORY), aptr);
    frame(r, data, size);
    /* the decode budget (arena.h): input is the frame */
    jit_init_decode_budget(e, ctx_gep(r, CTX_MEMORY), options, r->size);
    struct_body(r, st, jit_i64(e, 4), r->body, fail, fail, BODY_READ, value, true);
    jit_store(e, local_load(r, r->aptr, e->ptr), arena, offsetof(fbe_arena, ptr));
    jit_store_consumed(e, consumed, r->size);
    LLVMBuildRet(e->b, jit_i32(e, FBE_OK));
}

/* ---- inlining ---------------------------------------------------------------------- */

/* A struct's fast path (complete bodies) gets a function of its own, separate
 * from the older writers' path, when it is not part of a reference cycle and its
 * expansion (children inlined too) stays small. Its entry points always inline
 * it; other structs holding it inline it only when it is a leaf this small
 * (else they call it): inlining Account into AccountMessage doubled the
 * optimizer's and code generator's work on proto.fbe for no measured gain
 * (docs/jit.md, "Code shape"). */
#define INLINE_WEIGHT 16
#define INLINE_LEAF_WEIGHT 8

typedef struct weigh {
    rd *r;
    unsigned char *state; /* 0 new, 1 in progress, 2 done */
    unsigned *weight;     /* UINT_MAX: recursive or too big */
} weigh;

static unsigned struct_weight(weigh *w, const fbe_ir_struct *st);

static unsigned sat_add(unsigned a, unsigned b)
{
    return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

static unsigned type_weight(weigh *w, const fbe_ir_type *t)
{
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_STRING:
        return 1;
    case FBE_IR_SHAPE_STRUCT: {
        unsigned sw = struct_weight(w, t->struct_type);
        /* a call is cheap in code, an inlined body counts in full */
        return sat_add(2, sw > INLINE_WEIGHT ? 1 : sw);
    }
    case FBE_IR_SHAPE_OPTIONAL: case FBE_IR_SHAPE_OPT_STRUCT:
        return sat_add(1, type_weight(w, t->elem));
    case FBE_IR_SHAPE_ARRAY: {
        unsigned ew = type_weight(w, t->elem);
        if (!ew)
            return 0;
        unsigned n = t->array_len <= UNROLL_MAX ? t->array_len : 1;
        return ew > UINT32_MAX / n ? UINT32_MAX : ew * n;
    }
    case FBE_IR_SHAPE_SEQ:
        return sat_add(2, type_weight(w, t->elem));
    case FBE_IR_SHAPE_MAP:
        return sat_add(2, sat_add(type_weight(w, t->key), type_weight(w, t->elem)));
    default:
        return 0;
    }
}

/* UINT32_MAX marks structs on a cycle (never inlined). */
static unsigned struct_weight(weigh *w, const fbe_ir_struct *st)
{
    size_t i = jit_struct_index(w->r->e, st);
    if (w->state[i] == 2)
        return w->weight[i];
    if (w->state[i] == 1) {
        w->weight[i] = UINT32_MAX; /* recursive */
        return UINT32_MAX;
    }
    w->state[i] = 1;
    unsigned sum = 0;
    for (size_t f = 0; f < st->field_count; f++)
        sum = sat_add(sum, type_weight(w, st->fields[f].type));
    if (w->weight[i] != UINT32_MAX)
        w->weight[i] = sum;
    w->state[i] = 2;
    return w->weight[i];
}

static void mark_noalias(jit_emit *e, LLVMValueRef fn, unsigned param)
{
    unsigned kind = LLVMGetEnumAttributeKindForName("noalias", 7);
    LLVMAddAttributeAtIndex(fn, param + 1, LLVMCreateEnumAttribute(e->ctx, kind, 0));
}

/* ---- the decode budget (emit_budget.h) ---------------------------------------------- */

LLVMTypeRef jit_decode_budget_t(jit_emit *e)
{
    _Static_assert(sizeof(fbe_decode_budget) == 5 * sizeof(uint64_t), "five i64");
    _Static_assert(offsetof(fbe_decode_budget, mark_head) == 3 * sizeof(uint64_t), "a pointer");
    LLVMTypeRef fields[] = {e->i64, e->i64, e->i64, e->ptr, e->i64};
    return LLVMStructTypeInContext(e->ctx, fields, 5, 0);
}

/* ---- module ---------------------------------------------------------------------- */

bool jit_emit_std_read(jit_emit *e, bool verify, bool read)
{
    rd r = {.e = e};
    bool ok = false;
    LLVMTypeRef ctx_fields[CTX_FIELDS] = {e->ptr, e->ptr, e->i32, jit_decode_budget_t(e)};
    r.ctx_t = LLVMStructTypeInContext(e->ctx, ctx_fields, CTX_FIELDS, 0);
    /* verify functions take the shared parameters, read functions all */
    LLVMTypeRef params[] = {e->ptr, e->i64, e->i64, e->i32, e->i64, e->ptr, e->ptr, e->ptr};
    r.verify_t = LLVMFunctionType(e->i64, params, P_CTX, 0);
    LLVMTypeRef rret[] = {e->i64, e->ptr};
    r.read_ret_t = LLVMStructTypeInContext(e->ctx, rret, 2, 0);
    r.read_t = LLVMFunctionType(r.read_ret_t, params, P_APTR + 1, 0);
    size_t n = e->count;
    r.inl = calloc(n + 1, sizeof *r.inl);
    bool *leafy = calloc(n + 1, sizeof *leafy);
    weigh w = {.r = &r, .state = calloc(n + 1, 1), .weight = calloc(n + 1, sizeof(unsigned))};
    if (!r.inl || !leafy || !w.state || !w.weight)
        goto out;
    for (size_t i = 0; i < n; i++) {
        unsigned wt = struct_weight(&w, e->codec->types[i].ir);
        /* a chunked struct has no complete-body copy: its chunks take every
         * body (an all-scalar struct would be a single function again) */
        r.inl[i] = wt <= INLINE_WEIGHT && !chunked(e->codec->types[i].ir);
        leafy[i] = wt <= INLINE_LEAF_WEIGHT;
    }

    for (size_t i = 0; i < n; i++) {
        const fbe_ir_struct *st = e->codec->types[i].ir;
        jit_struct_fns *f = &e->fns[i];
        char name[512];
        if (verify) {
            snprintf(name, sizeof name, "std_verify.%s", st->c_name);
            f->std_verify = jit_declare(e, name, e->i64, params, P_CTX, false);
            if (r.inl[i] && leafy[i])
                jit_fn_attr(e, f->std_verify, "alwaysinline");
            jit_declare_entry(e, i, FBE_STANDARD, FBE_OP_VERIFY);
        }
        if (read) {
            snprintf(name, sizeof name, "std_read.%s", st->c_name);
            f->std_read = jit_declare(e, name, r.read_ret_t, params, P_APTR + 1, false);
            mark_noalias(e, f->std_read, P_CTX);
            if (r.inl[i] && leafy[i])
                jit_fn_attr(e, f->std_read, "alwaysinline");
            jit_declare_entry(e, i, FBE_STANDARD, FBE_OP_DESERIALIZE);
        }
    }
    for (size_t i = 0; i < n; i++) {
        const fbe_ir_struct *st = e->codec->types[i].ir;
        jit_struct_fns *f = &e->fns[i];
        size_t all = st->field_count;
        /* fields [0, own) are the base's (shared_base), read by its functions */
        const fbe_ir_struct *base = r.inl[i] ? NULL : shared_base(&r, st);
        size_t own = base ? st->own_field_start : 0;
        /* a small struct's function takes complete bodies (its callers tell
         * them apart), the others' any length */
        bodies kind = r.inl[i] ? BODIES_COMPLETE : BODIES_BAILING;
        if (verify) {
            if (!define_node(&r, st, f->std_verify, false, kind, own, all, base))
                goto out;
            define_verify_entry(&r, st, f);
        }
        if (read) {
            if (!define_node(&r, st, f->std_read, true, kind, own, all, base))
                goto out;
            define_read_entry(&r, st, f);
        }
    }
    ok = true;
out:
    free(r.inl);
    free(leafy);
    free(w.state);
    free(w.weight);
    return ok;
}
