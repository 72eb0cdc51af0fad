/* Standard model, reading side: verify and deserialize, lowered per struct.
 * Mirrors runtime/interp/std_read.c (the semantic reference): the same checks
 * with the same statuses and error positions (a reference's are found by the
 * rules themselves, see Errors below), the same traversal budget and depth
 * limit, the same arena allocations in the same order, the same host state on
 * failure. Every offset, size and type number is a constant taken from the IR.
 *
 * Internal functions per struct S (LLVM internal linkage, fastcc after opt):
 *   std_verify.S (ptr data, i64 size, ptr info, i64 body, i32 left, i64 budget,
 *                 ptr rep) -> i64: the budget left, or -status
 *   std_read.S   (ptr data, i64 size, ptr ctx, i64 body, i32 left, ptr host,
 *                 i64 budget, ptr aptr) -> {i64 budget or -status, ptr aptr}
 * `body` is a struct body whose reference the caller checked (offset, size,
 * type, depth, budget): the caller knows which field the reference belongs to,
 * so it reports those failures. `left` is max_depth minus the body's level.
 * `rep` is the struct failures are reported against: S, or the struct derived
 * from S whose body this is (its inherited fields are read by S's functions,
 * jit_inherited). The
 * mutable state (budget, arena cursor) lives in allocas, i.e. registers, and
 * travels by value; ctx (deserialize only) holds what does not change often.
 *
 * Small structs that are not on a reference cycle (Account, Order, ...) have
 * their complete-body function always inlined into their callers, and a second,
 * out-of-line function for bodies an older writer made shorter (fields that do
 * not fit are not examined / get their defaults): the reference site tells the
 * two apart with one compare. Larger structs have one function that checks
 * before each field whether it fits.
 *
 * Errors: the checks of a reference (struct, optional, string, collection
 * block) branch to one cold block of that reference, which asks the runtime's
 * copy of the rules which check failed (fbe_native_std_ref: the checks of
 * static_c.h in their documented order, the interpreter's and `fbec c`'s), so
 * this file states what must hold, not in which order or with which status or
 * position it is reported. Other failing checks (the frame, allocation) branch to
 * their own cold block. Either stores the status, reports it (verify:
 * fbe_jit_verify_fail with the struct and field being read as constants, which
 * is what the interpreter's locate() ends up with: the innermost struct on the
 * path claims the error) and continues at a cleanup block that leaves the host
 * value safe the way the interpreter does. That is AOT objects' way; in process
 * (jit_emit.older_to_interp) every failure, older writer's body and large
 * array's precheck only returns, and the entry point hands the frame to the
 * interpreter (bail, below). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "emit.h"
#include "emit_budget.h"
#include "interp/program.h" /* struct fbe_codec: the type table */
#include "native_helpers.h"  /* fbe_native_std_ref */

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
    LLVMValueRef *vpartial, *rpartial; /* per struct: the older-writer paths (AOT) */
    LLVMValueRef ref_rare;        /* fbe_native_std_ref: a reference's checks one by one */
    LLVMTypeRef ref_rare_t;
    /* the module defines std_verify.S. A deserialize-only unit in process does
     * not: its prechecks bail */
    bool native_verify;
    bool *inl;                    /* per struct: a fast path of its own */
    bool inline_call;             /* the next body call is an entry point's own:
                                     always inlined */
    const fbe_ir_struct *refs_of; /* many_refs(): the struct last asked about */
    bool refs_many;

    /* the function being emitted */
    bool report;                  /* call fbe_jit_verify_fail on failures */
    /* in process (may_bail): a failure, an older writer's body or a large
     * array's precheck reports nothing, zeroes nothing and computes no status
     * of its own (any negative result); the entry point hands the frame to the
     * interpreter's verify or deserialize, which answers (jit_verify_bail_block,
     * jit_read_bail_block) */
    bool bail, may_bail;
    const fbe_ir_struct *st;      /* error location: struct being read */
    LLVMValueRef rep;             /* verify, internal functions: the struct to
                                     report (parameter), else NULL: st */
    const fbe_ir_field *field;    /* error location: field (NULL at the root) */
    LLVMValueRef data, size;
    LLVMValueRef ctx;             /* deserialize: the read_ctx */
    LLVMValueRef info;            /* verify: fbe_verify_info * (may be NULL) */
    LLVMValueRef depth;           /* i32 levels left below the body being read:
                                   * max_depth - its level (0: a struct in it is
                                   * TOO_DEEP) */
    LLVMValueRef body, room;      /* the body being read and size - body (>= 8) */
    bool many_refs;               /* the body has more than two references */
    bool cold;                    /* emitting a rare path: calls stay out of line */
    LLVMValueRef borrow;          /* i32, read once (deserialize) */
    LLVMValueRef arena;           /* fbe_arena *, read once (deserialize) */
    LLVMValueRef status;          /* i32 alloca: the status on the way out */
    /* Mutable state lives in allocas (registers after mem2reg) and travels by
     * value into and out of internal functions. */
    LLVMValueRef budget;          /* i64 alloca */
    LLVMValueRef aptr;            /* ptr alloca: arena->ptr (deserialize) */
    LLVMBasicBlockRef ret_bb;     /* verify: returns the status */
    /* an entry point in process: where anything but a valid frame of a complete
     * root body goes (the interpreter's entry, whose result is the answer) */
    LLVMBasicBlockRef delegate;
} rd;

/* ---- kinds ---------------------------------------------------------------------- */

static bool is_map(const fbe_ir_type *t)
{
    return t->kind == FBE_IR_MAP || t->kind == FBE_IR_HASH;
}

static bool is_scalar(const fbe_ir_type *t)
{
    return fbe_ir_kind_is_scalar(t->kind);
}

/* Whether verify has anything to check for a value of type t. */
static bool needs_check(const fbe_ir_type *t)
{
    if (is_scalar(t))
        return false;
    if (t->kind == FBE_IR_ARRAY)
        return needs_check(t->elem);
    return true;
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

static uint32_t elem_inline(const fbe_ir_type *t)
{
    return is_map(t) ? t->key->std_inline_size + t->elem->std_inline_size
                     : t->elem->std_inline_size;
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

/* A cleanup block: zero `n` bytes at host, then continue at fail (no cleanup
 * when the read bails: the interpreter reads the value again). */
static LLVMBasicBlockRef zero_then(rd *r, LLVMValueRef host, uint64_t n, LLVMBasicBlockRef fail)
{
    if (!n || r->bail)
        return fail;
    LLVMBasicBlockRef saved, bb = at_block(r, "zero", &saved);
    store_zero(r, host, n);
    LLVMBuildBr(r->e->b, fail);
    back(r, saved);
    return bb;
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

/* Internal functions return the budget left (< 2^32), or -status when they
 * failed, and when decoding the arena cursor as well. */
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
    jit_emit *e = r->e;
    if (r->bail) {
        ret_state(r, jit_i64(e, (uint64_t)-1));
        return;
    }
    LLVMValueRef st = LLVMBuildZExt(e->b, local_load(r, r->status, e->i32), e->i64, "");
    ret_state(r, LLVMBuildNeg(e->b, st, ""));
}

/* Starts an internal function or entry point: allocas for the state. */
static void begin(rd *r, LLVMValueRef fn, const fbe_ir_struct *st, bool report, bool reading)
{
    jit_emit *e = r->e;
    jit_begin_function(e, fn);
    r->bail = (report || reading) && r->may_bail;
    r->report = report && !r->bail;
    r->st = st;
    r->rep = NULL;
    r->field = NULL;
    r->status = jit_alloca(e, e->i32, "status");
    r->budget = jit_alloca(e, e->i64, "budget");
    r->aptr = reading ? jit_alloca(e, e->ptr, "aptr") : NULL;
    r->ret_bb = NULL;
    r->delegate = NULL;
    r->borrow = r->arena = r->ctx = r->info = NULL;
    r->body = r->room = NULL;
    r->many_refs = false;
    r->cold = false;
}

/* An internal function's parameters and state from ctx. */
static void load_state(rd *r, LLVMValueRef fn)
{
    jit_emit *e = r->e;
    r->data = LLVMGetParam(fn, 0);
    r->size = LLVMGetParam(fn, 1);
    if (r->aptr)
        r->ctx = LLVMGetParam(fn, 2);
    else
        r->info = LLVMGetParam(fn, 2);
    if (!r->aptr)
        r->rep = LLVMGetParam(fn, 6);
    r->depth = LLVMGetParam(fn, 4);
    local_store(r, r->budget, LLVMGetParam(fn, r->aptr ? 6 : 5));
    if (r->aptr)
        local_store(r, r->aptr, LLVMGetParam(fn, 7));
    if (r->aptr) {
        r->borrow = ctx_load(r, CTX_BORROW, e->i32);
        r->arena = ctx_load(r, CTX_ARENA, e->ptr);
    }
}

/* ---- failures ----------------------------------------------------------------- */

/* fbe_jit_verify_fail only touches what its arguments point to (it writes
 * *info, reads the reported struct and field): telling LLVM so at the call
 * keeps the state it could otherwise read (ctx escapes to the out-of-line
 * paths) out of memory on the hot path. */
/* The call touches only what its arguments point to: memory(argmem: mod_ref),
 * MemoryEffects' ArgMem bits (1 read, 3 read and write). */
static void argmem_only(jit_emit *e, LLVMValueRef call, unsigned mod_ref)
{
    unsigned kind = LLVMGetEnumAttributeKindForName("memory", 6);
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                             LLVMCreateEnumAttribute(e->ctx, kind, mod_ref));
}

static void report_call(jit_emit *e, LLVMValueRef *args)
{
    argmem_only(e, LLVMBuildCall2(e->b, e->fn_verify_fail_t, e->fn_verify_fail, args, 5, ""), 3);
}

/* status (i32) stored; reported at pos (verify); goto fail. Ends the current
 * block. */
static void fail_status(rd *r, LLVMValueRef status, LLVMValueRef pos, LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    LLVMBuildStore(e->b, status, r->status);
    if (r->report) {
        LLVMValueRef args[] = {r->info, status, pos, r->rep ? r->rep : jit_host_ptr(e, r->st),
                               jit_host_ptr(e, r->field)};
        report_call(e, args);
        fail = r->ret_bb;
    }
    LLVMBuildBr(e->b, fail);
}

/* A failing check with a status of its own (allocation, counts): its own
 * cold block and report call, whose arguments are constants there. */
static void fail_with(rd *r, fbe_status code, LLVMValueRef pos, LLVMBasicBlockRef fail)
{
    fail_status(r, jit_i32(r->e, code), pos, fail);
}

/* if (cond) fail with code at pos. */
static void check(rd *r, LLVMValueRef cond, fbe_status code, LLVMValueRef pos,
                  LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    LLVMBasicBlockRef bad = jit_block(e, "bad"), ok = jit_block(e, "ok");
    LLVMBuildCondBr(e->b, jit_unlikely(e, cond), bad, ok);
    jit_position(e, bad);
    fail_with(r, code, pos, fail);
    jit_position(e, ok);
}

/* An internal function's budget result: negative (failed, already reported)
 * goes to fail with its status, anything else is the budget left. */
static void on_result(rd *r, LLVMValueRef budget, LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    LLVMBasicBlockRef bad = jit_block(e, "failed"), ok = jit_block(e, "ok");
    LLVMValueRef failed = LLVMBuildICmp(e->b, LLVMIntSLT, budget, jit_i64(e, 0), "");
    LLVMBuildCondBr(e->b, jit_unlikely(e, failed), bad, ok);
    jit_position(e, bad);
    LLVMBuildStore(e->b, LLVMBuildTrunc(e->b, LLVMBuildNeg(e->b, budget, ""), e->i32, ""),
                   r->status);
    LLVMBuildBr(e->b, r->report ? r->ret_bb : fail);
    jit_position(e, ok);
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

/* The rare block of a reference whose checks did not all pass: which one failed,
 * its status and position, come from the runtime's copy of the rules
 * (fbe_native_std_ref, static_c.h); the failure is reported (verify) and goes
 * to fail. depth: whether r->depth applies (a struct below the root). The
 * budget is not passed (fbe_native_std_ref: it is charged last), so the budget
 * before the checks need not stay live beside the budget after them. */
static void ref_rare(rd *r, LLVMBasicBlockRef rare, unsigned kind, uint32_t arg, LLVMValueRef pos,
                     LLVMValueRef base, bool depth, LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    LLVMBasicBlockRef saved = LLVMGetInsertBlock(e->b);
    jit_position(e, rare);
    if (r->bail) {
        /* any status: the interpreter finds the real one. The store is dead,
         * but a plain branch to fail instead made the README account's
         * standard verify 272 instructions, not 260 (block layout) */
        fail_with(r, FBE_BAD_OFFSET, pos, fail);
        jit_position(e, saved);
        return;
    }
    LLVMValueRef what = jit_i64(e, (uint64_t)kind << 33 | arg);
    if (depth) {
        LLVMValueRef no_level = LLVMBuildZExt(e->b, is_zero(r, r->depth), e->i64, "");
        what = LLVMBuildOr(e->b, what, LLVMBuildShl(e->b, no_level, jit_i64(e, 32), ""), "");
    }
    LLVMValueRef args[] = {r->data, r->size, pos, base, what};
    LLVMValueRef res = LLVMBuildCall2(e->b, r->ref_rare_t, r->ref_rare, args, 5, "");
    LLVMSetInstructionCallConv(res, 14 /* preserve_mostcc */);
    argmem_only(e, res, 1); /* it only reads the frame */
    fail_status(r, LLVMBuildTrunc(e->b, LLVMBuildExtractValue(e->b, res, 0, ""), e->i32, ""),
                LLVMBuildExtractValue(e->b, res, 1, ""), fail);
    jit_position(e, saved);
}

static LLVMValueRef next_depth(rd *r)
{
    return LLVMBuildNUWSub(r->e->b, r->depth, jit_i32(r->e, 1), "");
}

/* Calls an internal function on the body at `body` (level `depth`): a verify
 * function when host is NULL, else a read function into host. */
static LLVMValueRef cold_call(rd *r, LLVMValueRef call)
{
    if (r->cold) {
        unsigned kind = LLVMGetEnumAttributeKindForName("noinline", 8);
        LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                                 LLVMCreateEnumAttribute(r->e->ctx, kind, 0));
    } else if (r->inline_call) {
        unsigned kind = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
        LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                                 LLVMCreateEnumAttribute(r->e->ctx, kind, 0));
    }
    return call;
}

static void call_body(rd *r, const fbe_ir_struct *T, LLVMValueRef fn, LLVMValueRef body,
                      LLVMValueRef depth, LLVMValueRef host, LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    if (!host) {
        /* decoding (a precheck) reports nothing */
        LLVMValueRef info = r->aptr ? LLVMConstNull(e->ptr) : r->info;
        LLVMValueRef args[] = {r->data, r->size, info, body, depth,
                               local_load(r, r->budget, e->i64), jit_host_ptr(e, T)};
        on_result(r, cold_call(r, LLVMBuildCall2(e->b, r->verify_t, fn, args, 7, "")), fail);
        return;
    }
    LLVMValueRef args[] = {r->data, r->size, r->ctx, body, depth, host,
                           local_load(r, r->budget, e->i64), local_load(r, r->aptr, e->ptr)};
    LLVMValueRef res = cold_call(r, LLVMBuildCall2(e->b, r->read_t, fn, args, 8, ""));
    local_store(r, r->aptr, LLVMBuildExtractValue(e->b, res, 1, ""));
    on_result(r, LLVMBuildExtractValue(e->b, res, 0, ""), fail);
}

enum { BODY_VERIFY, BODY_READ, BODY_READ_ALLOC };

/* The bodies a struct function (or chunk) is defined for: complete ones only;
 * any length, each field checked against the body's size (older writers, AOT);
 * any length, a shorter one bailing at the start (older_guard, in process). */
typedef enum { BODIES_COMPLETE, BODIES_GUARDED, BODIES_BAILING } bodies;

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
 * the fresh budget), then the body's fields: a complete body through T's own
 * function (inlined when small), a shorter one (older writer) through T's older
 * function (AOT) or, bailing, the interpreter's reading of the whole frame
 * (in process). The fast test is that every check
 * passes (small structs: and the body is complete); anything else goes to
 * ref_rare. Reference failures go to ref_fail, field failures to body_fail.
 * BODY_READ decodes into host; BODY_READ_ALLOC allocates the host struct once
 * the reference passed and stores its address at host (S?). */
static void struct_body(rd *r, const fbe_ir_struct *T, LLVMValueRef pos, LLVMValueRef base,
                        LLVMBasicBlockRef ref_fail, LLVMBasicBlockRef body_fail, int mode,
                        LLVMValueRef host, bool root)
{
    jit_emit *e = r->e;
    size_t ti = jit_struct_index(e, T);
    LLVMBasicBlockRef rare = jit_block(e, "struct_rare");
    LLVMValueRef budget = local_load(r, r->budget, e->i64);
    LLVMValueRef off = ld32(r, pos);
    offset_test(r, off, base, 8, rare);
    LLVMValueRef b = add(r, base, off);
    LLVMValueRef s = ld32(r, b);
    /* Small structs have a function for complete bodies (inlined) and one for
     * bodies an older writer made shorter; the others one function for both. */
    bool split = r->inl[ti];
    LLVMBasicBlockRef complete = jit_block(e, "complete"), older = jit_block(e, "older"),
                      done = jit_block(e, "struct_done");
    if (split) {
        LLVMValueRef short_ = LLVMBuildICmp(e->b, LLVMIntULT, s, jit_i64(e, T->std_body_size), "");
        LLVMBuildCondBr(e->b, jit_unlikely(e, short_), older, complete);
    } else {
        LLVMBuildBr(e->b, older);
        LLVMDeleteBasicBlock(complete);
    }
    for (int k = split ? 0 : 1; k < 2; k++) {
        jit_position(e, k ? older : complete);
        /* s < 8 || b + s > size (the complete path has s >= body size >= 8) */
        if (k)
            jit_goto_if(r->e, LLVMBuildICmp(e->b, LLVMIntULT, s, jit_i64(e, 8), ""), rare);
        jit_goto_if(r->e, ugt(r, add(r, b, s), r->size), rare);
        LLVMValueRef type = jit_load_at(e, e->i32, r->data, add_c(r, b, 4));
        jit_goto_if(r->e, LLVMBuildICmp(e->b, LLVMIntNE, type, jit_i32(e, T->type_number), ""), rare);
        if (!root) { /* the root's body fits the fresh budget (s <= size == budget) */
            jit_goto_if(r->e, is_zero(r, r->depth), rare);
            jit_goto_if(r->e, ugt(r, s, budget), rare);
        }
        local_store(r, r->budget, LLVMBuildNUWSub(e->b, budget, s, ""));
        LLVMValueRef target = mode == BODY_VERIFY ? NULL : host;
        if (mode == BODY_READ_ALLOC) {
            target = arena_alloc(r, jit_i64(e, T->host_size), ref_fail);
            jit_store(e, target, host, 0);
        }
        bool old = split && k;
        /* verify's older root goes to the entry's delegate (the call's own
         * arguments): `fbec verify` compiled 1.8 M instructions more through
         * the bail block */
        if (old && root && r->delegate && mode == BODY_VERIFY) {
            LLVMBuildBr(e->b, r->delegate);
            continue;
        }
        if (old && r->bail) { /* an older writer's frame: the interpreter takes it all */
            LLVMBuildBr(e->b, body_fail);
            continue;
        }
        LLVMValueRef depth = root ? r->depth : next_depth(r);
        LLVMValueRef fn = mode == BODY_VERIFY ? (old ? r->vpartial[ti] : e->fns[ti].std_verify)
                                              : (old ? r->rpartial[ti] : e->fns[ti].std_read);
        r->inline_call = root && !old && split;
        call_body(r, T, fn, b, depth, target, body_fail);
        r->inline_call = false;
        LLVMBuildBr(e->b, done);
    }
    if (root && r->delegate) {
        jit_position(e, rare);
        LLVMBuildBr(e->b, r->delegate);
    } else {
        ref_rare(r, rare, FBE_NATIVE_REF_STRUCT, T->type_number, pos, base, !root, ref_fail);
    }
    jit_position(e, done);
}

/* chk_optional for a present optional at pos (flag already non-zero) whose slot
 * holds inl bytes: returns the slot. */
static LLVMValueRef optional_slot(rd *r, uint32_t inl, LLVMValueRef pos, LLVMValueRef base,
                                  LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    LLVMBasicBlockRef rare = jit_block(e, "optional_rare");
    LLVMValueRef budget = local_load(r, r->budget, e->i64);
    LLVMValueRef off = ld32(r, add_c(r, pos, 1));
    offset_test(r, off, base, inl, rare);
    jit_goto_if(r->e, ugt(r, jit_i64(e, inl), budget), rare);
    local_store(r, r->budget, LLVMBuildNUWSub(e->b, budget, jit_i64(e, inl), ""));
    ref_rare(r, rare, FBE_NATIVE_REF_OPTIONAL, inl, pos, base, false, fail);
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
    LLVMBasicBlockRef zero_or_bad = jit_block(e, "offset_rare"), rare = jit_block(e, "block_rare");
    LLVMValueRef budget = local_load(r, r->budget, e->i64);
    LLVMValueRef off = ld32(r, pos);
    offset_test(r, off, base, 4, zero_or_bad);
    LLVMValueRef blk = add(r, base, off);
    LLVMValueRef n = ld32(r, blk);
    LLVMValueRef bytes = es > 1 ? mul_c(r, n, es) : n;
    LLVMValueRef charged = add_c(r, bytes, 4);
    jit_goto_if(r->e, ugt(r, add(r, blk, bytes), size_minus(r, 4)), rare);
    jit_goto_if(r->e, ugt(r, charged, budget), rare);
    local_store(r, r->budget, LLVMBuildNUWSub(e->b, budget, charged, ""));
    LLVMBasicBlockRef saved = LLVMGetInsertBlock(e->b);
    jit_position(e, zero_or_bad);
    LLVMBuildCondBr(e->b, is_zero(r, off), empty, rare);
    jit_position(e, saved);
    ref_rare(r, rare, es ? FBE_NATIVE_REF_BLOCK : FBE_NATIVE_REF_STRING, es, pos, base, false,
             fail);
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
    const fbe_ir_type *k = is_map(t) ? t->key : NULL, *v = t->elem;
    uint32_t ks = k ? k->std_inline_size : 0, es = ks + v->std_inline_size;
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
    switch (t->kind) {
    case FBE_IR_STRING:
    case FBE_IR_BYTES: {
        LLVMBasicBlockRef done = jit_block(e, "string_done");
        LLVMValueRef payload;
        block_ref(r, 0, pos, base, done, fail, &payload);
        LLVMBuildBr(e->b, done);
        jit_position(e, done);
        break;
    }
    case FBE_IR_STRUCT:
        v_struct_ref(r, t->struct_type, pos, base, fail);
        break;
    case FBE_IR_OPTIONAL: {
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
    case FBE_IR_ARRAY: {
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
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        LLVMBasicBlockRef done = jit_block(e, "block_done");
        LLVMValueRef elems;
        LLVMValueRef n = block_ref(r, elem_inline(t), pos, base, done, fail, &elems);
        if (needs_check(t->elem) || (is_map(t) && needs_check(t->key)))
            v_elems(r, t, elems, n, base, fail);
        LLVMBuildBr(e->b, done);
        jit_position(e, done);
        break;
    }
    default:
        break;
    }
}

/* Fields [lo, hi) of a body (verify): all of them, or (guarded: ssize != NULL)
 * those that fit in ssize bytes. */
static void v_fields(rd *r, const fbe_ir_struct *st, size_t lo, size_t hi, LLVMValueRef body,
                     LLVMValueRef ssize, LLVMBasicBlockRef done)
{
    jit_emit *e = r->e;
    for (size_t i = lo; i < hi; i++) {
        const fbe_ir_field *fd = &st->fields[i];
        if (!needs_check(fd->type))
            continue;
        if (ssize) {
            /* absent (older writer): so are all the fields after it */
            LLVMBasicBlockRef next = jit_block(e, "present");
            uint64_t end = (uint64_t)fd->std_offset + fd->type->std_inline_size;
            LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntULT, ssize, jit_i64(e, end), ""), done,
                            next);
            jit_position(e, next);
        }
        r->field = fd;
        v_value(r, fd->type, add_c(r, body, fd->std_offset), body, r->ret_bb);
    }
    LLVMBuildBr(e->b, done);
}

static bool any_checked(const fbe_ir_struct *st, size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++)
        if (needs_check(st->fields[i].type))
            return true;
    return false;
}

/* The base whose functions read st's inherited fields (jit_inherited), or
 * NULL. Only a base with one guarded function for bodies of any length (not a
 * small struct's complete-body function) can take a derived struct's bodies,
 * complete or not; a small base's few fields are read again instead. */
static const fbe_ir_struct *shared_base(rd *r, const fbe_ir_struct *st)
{
    if (!jit_inherited(r->e, st) || r->inl[jit_struct_index(r->e, st->base)])
        return NULL;
    return st->base;
}

/* Calls base's verify function on the body being verified (inherited fields),
 * reporting against r->rep: failures return. */
static void verify_inherited(rd *r, const fbe_ir_struct *base, LLVMValueRef fn)
{
    jit_emit *e = r->e;
    LLVMValueRef args[] = {r->data, r->size, r->info, LLVMGetParam(fn, 3), r->depth,
                           local_load(r, r->budget, e->i64), r->rep};
    on_result(r, LLVMBuildCall2(e->b, r->verify_t, r->e->fns[jit_struct_index(e, base)].std_verify,
                                args, 7, ""),
              r->ret_bb);
}

/* std_verify.S (BODIES_COMPLETE, the caller tells complete bodies apart),
 * std_verify_older.S (BODIES_GUARDED) or one function for bodies of any length.
 * A chunk function (chunked structs) is the same for fields [lo, hi). With
 * `base` (st's root function: shared_base), fields [0, lo) are base's. */
static void define_verify(rd *r, const fbe_ir_struct *st, LLVMValueRef fn, bodies kind,
                          size_t lo, size_t hi, const fbe_ir_struct *base)
{
    bool partial = kind == BODIES_GUARDED;
    jit_emit *e = r->e;
    begin(r, fn, st, true, false);
    LLVMValueRef body = LLVMGetParam(fn, 3);
    bool base_checked = base && any_checked(st, 0, lo);
    if (!base_checked && !any_checked(st, lo, hi)) {
        LLVMBuildRet(e->b, LLVMGetParam(fn, 5));
        return;
    }
    load_state(r, fn);
    r->body = body;
    r->room = LLVMBuildSub(e->b, r->size, body, "");
    r->many_refs = many_refs(r, st);
    r->cold = partial && r->inl[jit_struct_index(e, st)];
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
        verify_inherited(r, base, fn);
    v_fields(r, st, lo, hi, body, partial ? ld32(r, body) : NULL, done);
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
    check(r, LLVMBuildIsNull(e->b, p, ""), FBE_NOMEM, jit_i64(e, 0), fail);
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
    LLVMBasicBlockRef clean = zero_then(r, host, 16, fail);
    LLVMBasicBlockRef empty = jit_block(e, "str.empty"), done = jit_block(e, "str.done");
    LLVMValueRef payload;
    LLVMValueRef n = block_ref(r, 0, pos, base, empty, clean, &payload);
    /* static_c.h's rule (sc_str_into): empty, borrowed or copied */
    LLVMValueRef after = LLVMBuildSub(e->b, LLVMBuildSub(e->b, r->size, payload, ""), n, "");
    LLVMValueRef borrow = LLVMBuildICmp(e->b, LLVMIntNE, r->borrow, jit_i32(e, 0), "");
    LLVMValueRef args[] = {host, jit_gep(e, r->data, payload), LLVMBuildTrunc(e->b, n, e->i32, ""),
                           after, borrow, r->aptr, ctx_gep(r, CTX_AEND), r->arena,
                           ctx_gep(r, CTX_MEMORY)};
    LLVMValueRef st = jit_call_handler(e, "read_str", args, 9);
    check(r, LLVMBuildICmp(e->b, LLVMIntNE, st, jit_i32(e, FBE_OK), ""), FBE_NOMEM, jit_i64(e, 0),
          clean);
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
    struct_body(r, T, pos, base, zero_then(r, host, T->host_size, fail), fail, BODY_READ, host,
                false);
}

/* Large arrays of elements not yet checked: verify them first (same budget,
 * restored afterwards) when the allocation would be out of proportion. */
static void precheck(rd *r, const fbe_ir_type *t, LLVMValueRef elems, LLVMValueRef count,
                     LLVMValueRef base, uint32_t hs, LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    if (!needs_check(t->elem) && !(is_map(t) && needs_check(t->key)))
        return;
    LLVMValueRef bytes = mul_c(r, count, hs);
    LLVMValueRef budget = local_load(r, r->budget, e->i64);
    LLVMValueRef big = LLVMBuildAnd(
        e->b, ugt(r, bytes, jit_i64(e, 4096)),
        ugt(r, LLVMBuildLShr(e->b, bytes, jit_i64(e, 2), ""), budget), "");
    if (r->bail) { /* the interpreter's deserialize makes the check */
        jit_goto_if(r->e, big, fail);
        return;
    }
    jit_if c;
    jit_if_begin(e, &c, jit_unlikely(e, big));
    bool report = r->report, cold = r->cold;
    r->report = false;
    r->cold = true;
    v_elems(r, t, elems, count, base, fail);
    r->report = report;
    r->cold = cold;
    local_store(r, r->budget, budget);
    jit_if_end(e, &c);
}

static void d_seq(rd *r, const fbe_ir_type *t, LLVMValueRef pos, LLVMValueRef base,
                  LLVMValueRef host, LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    bool map = is_map(t);
    const fbe_ir_type *k = map ? t->key : NULL, *v = t->elem;
    uint32_t ks = k ? k->std_inline_size : 0, es = ks + v->std_inline_size;
    uint32_t hs = map ? t->host_entry_size : v->host_size;
    uint32_t vo = map ? t->host_entry_value_offset : 0;
    jit_store(e, LLVMConstNull(e->ptr), host, 0);
    jit_store(e, jit_i64(e, 0), host, 8);
    LLVMBasicBlockRef done = jit_block(e, "seq.done");
    LLVMValueRef elems;
    LLVMValueRef n = block_ref(r, es, pos, base, done, fail, &elems);
    jit_if c2;
    jit_if_begin(e, &c2, LLVMBuildICmp(e->b, LLVMIntNE, n, jit_i64(e, 0), ""));
    bool scalar = map ? is_scalar(k) && is_scalar(v) : is_scalar(v);
    if (!scalar)
        precheck(r, t, elems, n, base, hs, fail);
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
        } else {
            /* on failure element i is safe, the ones after it were never written */
            LLVMBasicBlockRef saved, sized = fail;
            if (!r->bail) {
                sized = at_block(r, "seq.fail", &saved);
                jit_store(e, add_c(r, jit_loop_index(e, &loop), 1), host, 8);
                LLVMBuildBr(e->b, fail);
                back(r, saved);
            }
            if (map) {
                d_value(r, k, p, base, item,
                        zero_then(r, jit_gep_c(e, item, vo), v->host_size, sized));
                d_value(r, v, add_c(r, p, ks), base, jit_gep_c(e, item, vo), sized);
            } else {
                d_value(r, v, p, base, item, sized);
            }
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
    switch (t->kind) {
    case FBE_IR_STRING:
    case FBE_IR_BYTES:
        d_string(r, pos, base, host, fail);
        break;
    case FBE_IR_STRUCT:
        d_struct(r, t->struct_type, pos, base, host, fail);
        break;
    case FBE_IR_OPTIONAL: {
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
            LLVMValueRef slot = optional_slot(r, inner->std_inline_size, pos, base,
                                              zero_then(r, host, t->host_size, fail));
            jit_store(e, jit_i8(e, 1), host, 0);
            d_value(r, inner, slot, slot, jit_gep_c(e, host, t->host_value_offset), fail);
            jit_if_else(e, &c);
            store_zero(r, host, t->host_size);
            jit_if_end(e, &c);
        }
        break;
    }
    case FBE_IR_ARRAY: {
        const fbe_ir_type *el = t->elem;
        uint32_t es = el->std_inline_size, hs = el->host_size, n = t->array_len;
        if (is_scalar(el)) {
            d_scalars(r, el, pos, host, jit_i64(e, n));
            break;
        }
        if (n <= UNROLL_MAX) {
            for (uint32_t i = 0; i < n; i++)
                d_value(r, el, add_c(r, pos, (uint64_t)i * es), base,
                        jit_gep_c(e, host, (uint64_t)i * hs),
                        zero_then(r, jit_gep_c(e, host, (uint64_t)(i + 1) * hs),
                                  (uint64_t)(n - i - 1) * hs, fail));
            break;
        }
        jit_loop loop;
        jit_loop_begin(e, &loop, jit_i64(e, n));
        LLVMValueRef i = jit_loop_index(e, &loop);
        LLVMBasicBlockRef saved, rest = fail;
        if (!r->bail) {
            rest = at_block(r, "array.fail", &saved);
            LLVMValueRef j = add_c(r, jit_loop_index(e, &loop), 1);
            jit_memset(e, jit_gep(e, host, mul_c(r, j, hs)), 0,
                       mul_c(r, LLVMBuildSub(e->b, jit_i64(e, n), j, ""), hs));
            LLVMBuildBr(e->b, fail);
            back(r, saved);
        }
        d_value(r, el, add(r, pos, mul_c(r, i, es)), base, jit_gep(e, host, mul_c(r, i, hs)), rest);
        jit_loop_end(e, &loop);
        break;
    }
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH:
        d_seq(r, t, pos, base, host, fail);
        break;
    default:
        d_scalar(r, t, pos, host);
        break;
    }
}

/* Fields [lo, hi) of a body (deserialize). Complete (ssize == NULL): every
 * field, runs of plain scalars whose wire and host layouts agree as one block
 * copy. Guarded: a field i that does not fit goes to init[i - lo] (schema
 * defaults from there on). A failure in field i goes to zero[i + 1 - lo]
 * (fields after it zeroed). */
static void d_fields(rd *r, const fbe_ir_struct *st, size_t lo, size_t hi, LLVMValueRef body,
                     LLVMValueRef ssize, LLVMValueRef host, LLVMBasicBlockRef *zero,
                     LLVMBasicBlockRef *init, LLVMBasicBlockRef done)
{
    jit_emit *e = r->e;
    for (size_t i = lo; i < hi;) {
        const fbe_ir_field *fd = &st->fields[i];
        r->field = fd;
        size_t j = fbe_ir_plain_run(st->fields, i, hi);
        if (j > i) {
            /* a run of fields laid out identically on the wire and in the host:
             * one copy when all of it is present */
            uint64_t len = fbe_ir_plain_run_bytes(st->fields, i, j);
            if (ssize) {
                /* not all of it: field by field up to the first absent one (rare) */
                LLVMBasicBlockRef all = jit_block(e, "run"), some = jit_block(e, "run.part");
                LLVMValueRef short_ = LLVMBuildICmp(e->b, LLVMIntULT, ssize,
                                                    jit_i64(e, fd->std_offset + len), "");
                LLVMBuildCondBr(e->b, jit_unlikely(e, short_), some, all);
                jit_position(e, some);
                for (size_t k = i; k < j; k++) {
                    const fbe_ir_field *fk = &st->fields[k];
                    LLVMBasicBlockRef next = jit_block(e, "present");
                    uint64_t end = (uint64_t)fk->std_offset + fk->type->std_inline_size;
                    LLVMBuildCondBr(e->b,
                                    LLVMBuildICmp(e->b, LLVMIntULT, ssize, jit_i64(e, end), ""),
                                    init[k - lo], next);
                    jit_position(e, next);
                    d_value(r, fk->type, add_c(r, body, fk->std_offset), body,
                            jit_gep_c(e, host, fk->host_offset), zero[k + 1 - lo]);
                }
                /* the run's last field did not fit: never reached */
                LLVMBuildBr(e->b, init[j - lo]);
                jit_position(e, all);
            }
            LLVMValueRef src = jit_gep(e, r->data, add_c(r, body, fd->std_offset));
            LLVMValueRef dst = jit_gep_c(e, host, fd->host_offset);
            if (len == 1 || len == 2 || len == 4 || len == 8 || len == 16)
                jit_store(e, jit_load(e, jit_int_type(e, (uint32_t)len), src, 0), dst, 0);
            else
                jit_memcpy(e, dst, src, jit_i64(e, len));
            i = j;
            continue;
        }
        if (ssize) {
            LLVMBasicBlockRef next = jit_block(e, "present");
            uint64_t end = (uint64_t)fd->std_offset + fd->type->std_inline_size;
            LLVMBuildCondBr(e->b, LLVMBuildICmp(e->b, LLVMIntULT, ssize, jit_i64(e, end), ""),
                            init[i - lo], next);
            jit_position(e, next);
        }
        d_value(r, fd->type, add_c(r, body, fd->std_offset), body,
                jit_gep_c(e, host, fd->host_offset), zero[i + 1 - lo]);
        i++;
    }
    LLVMBuildBr(e->b, done);
}

/* Calls base's read function on the body being read (inherited fields into
 * the same host value, whose first member is the base): a failure, the base's
 * later fields zeroed, goes to fail. */
static void read_inherited(rd *r, const fbe_ir_struct *base, LLVMValueRef fn,
                           LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    LLVMValueRef args[] = {r->data, r->size, r->ctx, LLVMGetParam(fn, 3), r->depth,
                           LLVMGetParam(fn, 5), local_load(r, r->budget, e->i64),
                           local_load(r, r->aptr, e->ptr)};
    LLVMValueRef res = LLVMBuildCall2(e->b, r->read_t, e->fns[jit_struct_index(e, base)].std_read,
                                      args, 8, "");
    local_store(r, r->aptr, LLVMBuildExtractValue(e->b, res, 1, ""));
    on_result(r, LLVMBuildExtractValue(e->b, res, 0, ""), fail);
}

/* std_read.S and std_read_older.S, like define_verify; a chunk function reads
 * fields [lo, hi). */
static bool define_read(rd *r, const fbe_ir_struct *st, LLVMValueRef fn, bodies kind,
                        size_t lo, size_t hi, const fbe_ir_struct *base)
{
    bool partial = kind == BODIES_GUARDED;
    jit_emit *e = r->e;
    begin(r, fn, st, false, true);
    LLVMValueRef body = LLVMGetParam(fn, 3);
    LLVMValueRef host = LLVMGetParam(fn, 5);
    size_t n = hi - lo;
    load_state(r, fn);
    if (n == 0) {
        if (base) {
            LLVMBasicBlockRef saved, fail = at_block(r, "failed", &saved);
            ret_failed(r);
            back(r, saved);
            read_inherited(r, base, fn, fail);
        }
        ret_ok(r);
        return true;
    }
    r->body = body;
    r->room = LLVMBuildSub(e->b, r->size, body, "");
    if (kind == BODIES_BAILING) {
        LLVMBasicBlockRef saved, failed = at_block(r, "older.failed", &saved);
        ret_failed(r);
        back(r, saved);
        older_guard(r, st, body, failed);
    }
    r->many_refs = many_refs(r, st);
    r->cold = partial && r->inl[jit_struct_index(e, st)];
    LLVMBasicBlockRef *zero = calloc(2 * (n + 1), sizeof *zero), *init = zero + n + 1;
    if (!zero)
        return false;
    LLVMBasicBlockRef saved = LLVMGetInsertBlock(e->b);
    for (size_t i = 0; i <= n; i++) {
        zero[i] = !r->bail || i == 0 ? jit_block(e, "zero.rest") : zero[0];
        init[i] = partial ? jit_block(e, "defaults") : NULL;
    }
    /* zero[i]: fields i.. zeroed, then return the status (with the arena cursor:
     * what was allocated stays allocated); bailing, one block returns */
    for (size_t i = 0; i <= n; i++) {
        if (r->bail && i)
            break;
        jit_position(e, zero[i]);
        if (i == n || r->bail) {
            ret_failed(r);
            continue;
        }
        const fbe_ir_field *fd = &st->fields[lo + i];
        store_zero(r, jit_gep_c(e, host, fd->host_offset), fd->type->host_size);
        LLVMBuildBr(e->b, zero[i + 1]);
    }
    /* init[i]: fields i.. an older writer did not have get their defaults */
    for (size_t i = 0; partial && i <= n; i++) {
        jit_position(e, init[i]);
        if (i == n) {
            ret_ok(r);
            continue;
        }
        LLVMValueRef args[] = {jit_host_ptr(e, &st->fields[lo + i]),
                               jit_gep_c(e, host, st->fields[lo + i].host_offset)};
        LLVMBuildCall2(e->b, e->fn_init_field_t, e->fn_init_field, args, 2, "");
        LLVMBuildBr(e->b, init[i + 1]);
    }
    jit_position(e, saved);
    LLVMBasicBlockRef done = at_block(r, "done", &saved);
    ret_ok(r);
    back(r, saved);

    if (base)
        read_inherited(r, base, fn, zero[0]);
    if (partial)
        d_fields(r, st, lo, hi, body, ld32(r, body), host, zero, init, init[n]);
    else
        d_fields(r, st, lo, hi, body, NULL, host, zero, init, done);
    free(zero);
    return true;
}

/* ---- chunked structs ------------------------------------------------------------- */

/* One function per struct and operation costs LLVM more than linearly in its
 * size (InstCombine, MemCpyOpt, JumpThreading, the code generator: a struct of
 * 1,000 mixed fields took 18.7 s to compile, 2.6 times 500 fields'; docs/jit.md).
 * A large struct (emit.h: jit_chunks) is therefore read by a tree of functions,
 * the struct's own function at the root; every function stays bounded, so the
 * compile is linear. Each node has the struct function's signature and the
 * leaves run the same guarded field code, so checks, order, errors and budget
 * are unchanged: a field an older writer left out makes every later field
 * absent too (offsets grow), in the next leaves as well. */

/* Chunks need fields laid out in order on the wire and in the host (which the IR
 * does; checked rather than assumed): a node zeroes its failed child's
 * successors as byte ranges. */
static bool chunked(const fbe_ir_struct *st)
{
    size_t n = st->field_count;
    if (n <= jit_chunks.min_fields || jit_chunks.fields < 2)
        return false;
    for (size_t i = 1; i < n; i++) {
        const fbe_ir_field *a = &st->fields[i - 1], *b = &st->fields[i];
        if (b->std_offset < a->std_offset + (uint64_t)a->type->std_inline_size ||
            b->host_offset < a->host_offset + (uint64_t)a->type->host_size)
            return false;
    }
    return true;
}

static void mark_noalias(jit_emit *e, LLVMValueRef fn, unsigned param);

static LLVMValueRef chunk_fn(rd *r, const fbe_ir_struct *st, bool reading, size_t lo, size_t hi)
{
    LLVMValueRef fn = jit_chunk_fn(r->e, reading ? r->read_t : r->verify_t,
                                   reading ? "std_read" : "std_verify", st, lo, hi);
    if (reading)
        mark_noalias(r->e, fn, 2); /* the read_ctx */
    return fn;
}

/* std_verify for fields [lo, hi) of a chunked struct (guarded: bodies of any
 * length): a leaf or its children in order, each having reported its own
 * failure. */
static bool define_verify_node(rd *r, const fbe_ir_struct *st, LLVMValueRef fn, size_t lo,
                               size_t hi, const fbe_ir_struct *base)
{
    jit_emit *e = r->e;
    if (hi - lo <= jit_chunks.fields) {
        define_verify(r, st, fn, BODIES_GUARDED, lo, hi, base);
        return true;
    }
    size_t span = jit_chunk_span(lo, hi, jit_chunks.fields), k = (hi - lo + span - 1) / span;
    LLVMValueRef *fns = calloc(k, sizeof *fns);
    if (!fns)
        return false;
    for (size_t c = 0; c < k; c++) {
        size_t a = lo + c * span, b = a + span < hi ? a + span : hi;
        if (!any_checked(st, a, b))
            continue;
        fns[c] = chunk_fn(r, st, false, a, b);
        if (!define_verify_node(r, st, fns[c], a, b, NULL)) {
            free(fns);
            return false;
        }
    }
    begin(r, fn, st, true, false);
    load_state(r, fn);
    LLVMBasicBlockRef saved;
    r->ret_bb = at_block(r, "fail", &saved);
    ret_failed(r);
    back(r, saved);
    if (base && any_checked(st, 0, lo))
        verify_inherited(r, base, fn);
    for (size_t c = 0; c < k; c++) {
        if (!fns[c])
            continue;
        LLVMValueRef args[] = {r->data, r->size, r->info, LLVMGetParam(fn, 3), r->depth,
                               local_load(r, r->budget, e->i64), r->rep};
        on_result(r, LLVMBuildCall2(e->b, r->verify_t, fns[c], args, 7, ""), r->ret_bb);
    }
    ret_ok(r);
    free(fns);
    return true;
}

/* std_read for fields [lo, hi) of a chunked struct: a leaf or its children in
 * order. A failed child has zeroed its own fields after the failing one; this
 * zeroes the later children's (one range each: the fields are in order) and
 * returns the status. */
static bool define_read_node(rd *r, const fbe_ir_struct *st, LLVMValueRef fn, size_t lo, size_t hi,
                             const fbe_ir_struct *base)
{
    jit_emit *e = r->e;
    if (hi - lo <= jit_chunks.fields)
        return define_read(r, st, fn, BODIES_GUARDED, lo, hi, base);
    size_t span = jit_chunk_span(lo, hi, jit_chunks.fields), k = (hi - lo + span - 1) / span;
    LLVMValueRef *fns = calloc(k, sizeof *fns);
    LLVMBasicBlockRef *zero = calloc(k + 1, sizeof *zero);
    bool ok = fns && zero;
    for (size_t c = 0; c < k && ok; c++) {
        size_t a = lo + c * span, b = a + span < hi ? a + span : hi;
        fns[c] = chunk_fn(r, st, true, a, b);
        ok = define_read_node(r, st, fns[c], a, b, NULL);
    }
    if (!ok) {
        free(fns);
        free(zero);
        return false;
    }
    begin(r, fn, st, false, true);
    load_state(r, fn);
    LLVMValueRef body = LLVMGetParam(fn, 3), host = LLVMGetParam(fn, 5);
    LLVMBasicBlockRef saved = LLVMGetInsertBlock(e->b);
    for (size_t c = 0; c <= k; c++)
        zero[c] = jit_block(e, "zero.chunks");
    for (size_t c = 0; c <= k; c++) {
        jit_position(e, zero[c]);
        if (c == k) {
            ret_failed(r);
            continue;
        }
        size_t a = lo + c * span, b = a + span < hi ? a + span : hi;
        const fbe_ir_field *last = &st->fields[b - 1];
        uint64_t from = st->fields[a].host_offset;
        store_zero(r, jit_gep_c(e, host, from), last->host_offset + last->type->host_size - from);
        LLVMBuildBr(e->b, zero[c + 1]);
    }
    jit_position(e, saved);
    if (base)
        read_inherited(r, base, fn, zero[0]);
    for (size_t c = 0; c < k; c++) {
        LLVMValueRef args[] = {r->data, r->size, r->ctx, body, r->depth, host,
                               local_load(r, r->budget, e->i64), local_load(r, r->aptr, e->ptr)};
        LLVMValueRef res = LLVMBuildCall2(e->b, r->read_t, fns[c], args, 8, "");
        local_store(r, r->aptr, LLVMBuildExtractValue(e->b, res, 1, ""));
        on_result(r, LLVMBuildExtractValue(e->b, res, 0, ""), zero[c + 1]);
    }
    ret_ok(r);
    free(fns);
    free(zero);
    return true;
}

/* ---- entry points ------------------------------------------------------------------ */

/* The frame header (static_c.h's sc_chk_frame): leaves r->size = full_size =
 * the budget. Failures, all at position 0, go to fail. */
static void frame(rd *r, LLVMValueRef data, LLVMValueRef size, LLVMBasicBlockRef fail)
{
    jit_emit *e = r->e;
    LLVMValueRef zero = jit_i64(e, 0);
    r->data = data;
    LLVMValueRef slot = jit_alloca(e, e->i64, "full");
    LLVMValueRef args[] = {data, size, slot};
    LLVMValueRef st = jit_call_handler(e, "std_frame", args, 3);
    LLVMBasicBlockRef bad = jit_block(e, "bad_frame"), ok = jit_block(e, "frame_ok");
    LLVMBuildCondBr(e->b, jit_unlikely(e, LLVMBuildICmp(e->b, LLVMIntNE, st, jit_i32(e, 0), "")),
                    bad, ok);
    jit_position(e, bad);
    if (r->delegate)
        LLVMBuildBr(e->b, r->delegate);
    else
        fail_status(r, st, zero, fail);
    jit_position(e, ok);
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
    if (!fn) /* not a selected type (jit_emit.entry_types) */
        return;
    begin(r, fn, st, true, false);
    LLVMValueRef type = LLVMGetParam(fn, 0), data = LLVMGetParam(fn, 1),
                 size = LLVMGetParam(fn, 2), info = LLVMGetParam(fn, 3),
                 options = LLVMGetParam(fn, 4);
    r->info = info;

    LLVMBasicBlockRef saved,
        bad_arg = r->delegate = jit_delegate_block(e, FBE_STANDARD, FBE_OP_VERIFY);
    if (!bad_arg) {
        bad_arg = at_block(r, "bad_argument", &saved);
        LLVMValueRef args[] = {info, jit_i32(e, FBE_INVALID_ARGUMENT), jit_i64(e, 0),
                               LLVMConstNull(e->ptr), LLVMConstNull(e->ptr)};
        report_call(e, args);
        LLVMBuildRet(e->b, jit_i32(e, FBE_INVALID_ARGUMENT));
        back(r, saved);
    }
    check_arguments(r, type, data, size, bad_arg);

    /* the root body is level 1 (max_depth >= 1); the limit is the call's */
    LLVMValueRef max_depth = jit_depth_limit(e, options, true);
    r->depth = LLVMBuildSub(e->b, max_depth, jit_i32(e, 1), "");
    if (!r->bail) {
        r->ret_bb = at_block(r, "fail", &saved);
        LLVMBuildRet(e->b, local_load(r, r->status, e->i32));
        back(r, saved);
    }
    frame(r, data, size, r->ret_bb);
    if (r->bail)
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
    if (!fn) /* not a selected type (jit_emit.entry_types) */
        return;
    begin(r, fn, st, false, true);
    LLVMValueRef type = LLVMGetParam(fn, 0), data = LLVMGetParam(fn, 1),
                 size = LLVMGetParam(fn, 2), value = LLVMGetParam(fn, 3),
                 options = LLVMGetParam(fn, 4), consumed = LLVMGetParam(fn, 5);
    r->ctx = jit_alloca(e, r->ctx_t, "ctx");

    jit_if c;
    jit_if_begin(e, &c, LLVMBuildIsNotNull(e->b, consumed, ""));
    jit_store(e, jit_i64(e, 0), consumed, 0);
    jit_if_end(e, &c);

    LLVMBasicBlockRef saved,
        bad_arg = r->delegate = jit_delegate_block(e, FBE_STANDARD, FBE_OP_DESERIALIZE);
    LLVMBasicBlockRef no_arena = bad_arg;
    if (!bad_arg) {
        bad_arg = at_block(r, "bad_argument", &saved);
        LLVMBuildRet(e->b, jit_i32(e, FBE_INVALID_ARGUMENT));
        back(r, saved);
        no_arena = at_block(r, "no_arena", &saved);
        store_zero(r, value, st->host_size);
        LLVMBuildRet(e->b, jit_i32(e, FBE_INVALID_ARGUMENT));
        back(r, saved);
    }
    LLVMBasicBlockRef has_type = jit_block(e, "has_type"), has_value = jit_block(e, "has_value"),
                      has_options = jit_block(e, "has_options");
    LLVMBuildCondBr(e->b, jit_unlikely(e, LLVMBuildIsNull(e->b, type, "")), bad_arg, has_type);
    jit_position(e, has_type);
    LLVMBuildCondBr(e->b, jit_unlikely(e, LLVMBuildIsNull(e->b, value, "")), bad_arg, has_value);
    jit_position(e, has_value);
    LLVMBuildCondBr(e->b, jit_unlikely(e, LLVMBuildIsNull(e->b, options, "")), no_arena,
                    has_options);
    jit_position(e, has_options);
    LLVMValueRef arena = jit_load(e, e->ptr, options, offsetof(fbe_decode_options, arena));
    LLVMBasicBlockRef has_arena = jit_block(e, "has_arena");
    LLVMBuildCondBr(e->b, jit_unlikely(e, LLVMBuildIsNull(e->b, arena, "")), no_arena, has_arena);
    jit_position(e, has_arena);
    check_arguments(r, type, data, size, no_arena);

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

    /* bailing, the interpreter's deserialize answers any failure, on the arena
     * as the call found it (the frame's and the root's go to r->delegate) */
    LLVMBasicBlockRef fail, failed;
    if (r->bail) {
        fail = failed = jit_read_bail_block(e, FBE_STANDARD, arena, ctx_gep(r, CTX_MEMORY), aptr);
    } else {
        fail = at_block(r, "fail", &saved);
        store_zero(r, value, st->host_size);
        LLVMBuildRet(e->b, local_load(r, r->status, e->i32));
        back(r, saved);
        /* a failure in the fields: what was allocated stays allocated */
        failed = at_block(r, "failed", &saved);
        jit_store(e, local_load(r, r->aptr, e->ptr), arena, offsetof(fbe_arena, ptr));
        LLVMBuildRet(e->b, jit_decode_status(e, local_load(r, r->status, e->i32), ctx_gep(r, CTX_MEMORY)));
        back(r, saved);
    }
    frame(r, data, size, fail);
    /* the decode budget (arena.h): input is the frame */
    LLVMValueRef memory = ctx_gep(r, CTX_MEMORY);
    jit_store(e, jit_i64(e, 0), memory, offsetof(fbe_decode_budget, cap));
    jit_store(e, jit_load(e, e->i64, options, offsetof(fbe_decode_options, max_memory)), memory,
              offsetof(fbe_decode_budget, max_memory));
    jit_store(e, r->size, memory, offsetof(fbe_decode_budget, input));
    struct_body(r, st, jit_i64(e, 4), r->body, fail, failed, BODY_READ, value, true);
    jit_store(e, local_load(r, r->aptr, e->ptr), arena, offsetof(fbe_arena, ptr));
    jit_if c2;
    jit_if_begin(e, &c2, LLVMBuildIsNotNull(e->b, consumed, ""));
    jit_store(e, r->size, consumed, 0);
    jit_if_end(e, &c2);
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
    switch (t->kind) {
    case FBE_IR_STRING:
    case FBE_IR_BYTES:
        return 1;
    case FBE_IR_STRUCT: {
        unsigned sw = struct_weight(w, t->struct_type);
        /* a call is cheap in code, an inlined body counts in full */
        return sat_add(2, sw > INLINE_WEIGHT ? 1 : sw);
    }
    case FBE_IR_OPTIONAL:
        return sat_add(1, type_weight(w, t->elem));
    case FBE_IR_ARRAY: {
        unsigned ew = type_weight(w, t->elem);
        if (!ew)
            return 0;
        unsigned n = t->array_len <= UNROLL_MAX ? t->array_len : 1;
        return ew > UINT32_MAX / n ? UINT32_MAX : ew * n;
    }
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
        return sat_add(2, type_weight(w, t->elem));
    case FBE_IR_MAP:
    case FBE_IR_HASH:
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

LLVMValueRef jit_decode_status(jit_emit *e, LLVMValueRef status, LLVMValueRef budget)
{
    LLVMValueRef cap = jit_load(e, e->i64, budget, offsetof(fbe_decode_budget, cap));
    LLVMValueRef spent = LLVMBuildAnd(
        e->b, LLVMBuildICmp(e->b, LLVMIntEQ, status, jit_i32(e, FBE_NOMEM), ""),
        LLVMBuildICmp(e->b, LLVMIntEQ, cap, jit_i64(e, FBE_DECODE_SPENT), ""), "");
    return LLVMBuildSelect(e->b, spent, jit_i32(e, FBE_MEMORY_LIMIT), status, "");
}

/* ---- module ---------------------------------------------------------------------- */

/* An older writer's path (AOT objects): out of line, cold, not optimized. */
static void cold_older(jit_emit *e, LLVMValueRef fn)
{
    jit_fn_attr(e, fn, "noinline");
    jit_fn_attr(e, fn, "cold");
    jit_fn_attr(e, fn, "optnone");
}

/* A runtime function native code calls on a rare path. */
/* The rare blocks call fbe_native_std_ref through a thunk that preserves the
 * caller's registers (preserve_mostcc): with the C convention the values the
 * failure paths need must survive a call, which moved them out of the
 * registers the hot path wants (README account deserialize 664 -> 697
 * instructions, measured). */
static LLVMValueRef ref_rare_thunk(jit_emit *e, LLVMValueRef target, LLVMTypeRef type)
{
    LLVMValueRef fn = LLVMAddFunction(e->mod, "fbe.std_ref", type);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMSetFunctionCallConv(fn, 14 /* preserve_mostcc */);
    jit_fn_attr(e, fn, "noinline");
    jit_fn_attr(e, fn, "cold");
    jit_fn_attr(e, fn, "nounwind");
    LLVMBuilderRef b = LLVMCreateBuilderInContext(e->ctx);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(e->ctx, fn, "entry"));
    LLVMValueRef args[5];
    for (unsigned i = 0; i < 5; i++)
        args[i] = LLVMGetParam(fn, i);
    LLVMBuildRet(b, LLVMBuildCall2(b, type, target, args, 5, ""));
    LLVMDisposeBuilder(b);
    return fn;
}

bool jit_emit_std_read(jit_emit *e, bool verify, bool read)
{
    rd r = {.e = e};
    bool ok = false;
    LLVMTypeRef ctx_fields[CTX_FIELDS] = {e->ptr, e->ptr, e->i32, jit_decode_budget_t(e)};
    r.ctx_t = LLVMStructTypeInContext(e->ctx, ctx_fields, CTX_FIELDS, 0);
    LLVMTypeRef vparams[] = {e->ptr, e->i64, e->ptr, e->i64, e->i32, e->i64, e->ptr};
    r.verify_t = LLVMFunctionType(e->i64, vparams, 7, 0);
    LLVMTypeRef rret[] = {e->i64, e->ptr};
    r.read_ret_t = LLVMStructTypeInContext(e->ctx, rret, 2, 0);
    LLVMTypeRef rparams[] = {e->ptr, e->i64, e->ptr, e->i64, e->i32, e->ptr, e->i64, e->ptr};
    r.read_t = LLVMFunctionType(r.read_ret_t, rparams, 8, 0);
    LLVMTypeRef rr[] = {e->ptr, e->i64, e->i64, e->i64, e->i64};
    LLVMTypeRef two[] = {e->i64, e->i64};
    r.ref_rare_t = LLVMFunctionType(LLVMStructTypeInContext(e->ctx, two, 2, 0), rr, 5, 0);
    r.ref_rare = ref_rare_thunk(e, jit_runtime_fn(e, "fbe_native_std_ref", r.ref_rare_t), r.ref_rare_t);
    r.may_bail = e->older_to_interp; /* in process: the interpreter is there */
    r.native_verify = verify || !r.may_bail;
    size_t n = e->count;
    r.vpartial = calloc(n + 1, sizeof *r.vpartial);
    r.rpartial = calloc(n + 1, sizeof *r.rpartial);
    r.inl = calloc(n + 1, sizeof *r.inl);
    bool *leafy = calloc(n + 1, sizeof *leafy);
    weigh w = {.r = &r, .state = calloc(n + 1, 1), .weight = calloc(n + 1, sizeof(unsigned))};
    if (!r.vpartial || !r.rpartial || !r.inl || !leafy || !w.state || !w.weight)
        goto out;
    for (size_t i = 0; i < n; i++) {
        unsigned wt = struct_weight(&w, e->codec->types[i].ir);
        /* a chunked struct has no complete-body copy: its guarded chunks take
         * every body (an all-scalar struct would be a single function again) */
        r.inl[i] = wt <= INLINE_WEIGHT && !chunked(e->codec->types[i].ir);
        leafy[i] = wt <= INLINE_LEAF_WEIGHT;
    }

    for (size_t i = 0; i < n; i++) {
        const fbe_ir_struct *st = e->codec->types[i].ir;
        jit_struct_fns *f = &e->fns[i];
        char name[512];
        bool older_fns = r.inl[i] && !r.may_bail;
        /* Older writers are rare: their paths stay out of line and are not
         * optimized (optnone): -12% of proto.fbe's compile instructions, +15%
         * machine code, +17% instructions per older-writer frame (docs/jit.md). */
        if (r.native_verify) {
            snprintf(name, sizeof name, "std_verify.%s", st->c_name);
            f->std_verify = jit_declare(e, name, e->i64, vparams, 7, false);
            if (older_fns) {
                snprintf(name, sizeof name, "std_verify_older.%s", st->c_name);
                r.vpartial[i] = jit_declare(e, name, e->i64, vparams, 7, false);
                cold_older(e, r.vpartial[i]);
            }
            if (r.inl[i] && leafy[i])
                jit_fn_attr(e, f->std_verify, "alwaysinline");
            if (verify)
                jit_declare_entry(e, i, FBE_STANDARD, FBE_OP_VERIFY);
        }
        if (read) {
            snprintf(name, sizeof name, "std_read.%s", st->c_name);
            f->std_read = jit_declare(e, name, r.read_ret_t, rparams, 8, false);
            mark_noalias(e, f->std_read, 2); /* the read_ctx */
            if (older_fns) {
                snprintf(name, sizeof name, "std_read_older.%s", st->c_name);
                r.rpartial[i] = jit_declare(e, name, r.read_ret_t, rparams, 8, false);
                mark_noalias(e, r.rpartial[i], 2);
                cold_older(e, r.rpartial[i]);
            }
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
        /* one function takes complete and shorter bodies: the latter go to
         * the interpreter when in process, else each field is guarded */
        bodies any = r.may_bail ? BODIES_BAILING : BODIES_GUARDED;
        if (r.native_verify) {
            if (r.inl[i]) {
                define_verify(&r, st, f->std_verify, BODIES_COMPLETE, 0, all, NULL);
                if (r.vpartial[i])
                    define_verify(&r, st, r.vpartial[i], BODIES_GUARDED, 0, all, NULL);
            } else if (chunked(st)) {
                if (!define_verify_node(&r, st, f->std_verify, own, all, base))
                    goto out;
            } else {
                define_verify(&r, st, f->std_verify, any, own, all, base);
            }
            if (verify)
                define_verify_entry(&r, st, f);
        }
        if (read) {
            bool defined;
            if (r.inl[i])
                defined = define_read(&r, st, f->std_read, BODIES_COMPLETE, 0, all, NULL) &&
                          (!r.rpartial[i] ||
                           define_read(&r, st, r.rpartial[i], BODIES_GUARDED, 0, all, NULL));
            else if (chunked(st))
                defined = define_read_node(&r, st, f->std_read, own, all, base);
            else
                defined = define_read(&r, st, f->std_read, any, own, all, base);
            if (!defined)
                goto out;
            define_read_entry(&r, st, f);
        }
    }
    ok = true;
out:
    free(r.vpartial);
    free(r.rpartial);
    free(r.inl);
    free(leafy);
    free(w.state);
    free(w.weight);
    return ok;
}
