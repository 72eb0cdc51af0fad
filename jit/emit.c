#include "emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "fbe/buffer.h"
#include "interp/program.h"

static LLVMValueRef intrinsic(jit_emit *e, const char *name, LLVMTypeRef *types, unsigned n,
                              LLVMTypeRef *fn_type)
{
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    *fn_type = LLVMIntrinsicGetType(e->ctx, id, types, n);
    return LLVMGetIntrinsicDeclaration(e->mod, id, types, n);
}

bool jit_emit_init(jit_emit *e, LLVMContextRef ctx, LLVMModuleRef mod, const fbe_codec *codec)
{
    memset(e, 0, sizeof *e);
    e->ctx = ctx;
    e->mod = mod;
    e->b = LLVMCreateBuilderInContext(ctx);
    e->void_t = LLVMVoidTypeInContext(ctx);
    e->i1 = LLVMInt1TypeInContext(ctx);
    e->i8 = LLVMInt8TypeInContext(ctx);
    e->i16 = LLVMInt16TypeInContext(ctx);
    e->i32 = LLVMInt32TypeInContext(ctx);
    e->i64 = LLVMInt64TypeInContext(ctx);
    e->ptr = LLVMPointerTypeInContext(ctx, 0);
    e->codec = codec;
    e->count = codec->type_count;
    e->fns = calloc(e->count + 1, sizeof *e->fns);
    if (!e->fns)
        return false;

    LLVMTypeRef reserve[] = {e->ptr, e->i64};
    e->fn_buffer_reserve_t = LLVMFunctionType(e->i32, reserve, 2, 0);
    e->fn_buffer_reserve = LLVMAddFunction(mod, "fbe_buffer_reserve", e->fn_buffer_reserve_t);

    LLVMTypeRef mc[] = {e->ptr, e->ptr, e->i64};
    e->fn_memcpy = intrinsic(e, "llvm.memcpy", mc, 3, &e->fn_memcpy_t);
    LLVMTypeRef ms[] = {e->ptr, e->i64};
    e->fn_memset = intrinsic(e, "llvm.memset", ms, 2, &e->fn_memset_t);
    return true;
}

void jit_emit_dispose(jit_emit *e)
{
    if (e->b)
        LLVMDisposeBuilder(e->b);
    free(e->fns);
    e->b = NULL;
    e->fns = NULL;
}

size_t jit_struct_index(const jit_emit *e, const fbe_ir_struct *st)
{
    size_t i = fbe_codec_index_of(e->codec, st);
    return i < e->count ? i : SIZE_MAX;
}

void jit_store_consumed(jit_emit *e, LLVMValueRef consumed, LLVMValueRef v)
{
    jit_if c;
    jit_if_begin(e, &c, LLVMBuildIsNotNull(e->b, consumed, ""));
    jit_store(e, v, consumed, 0);
    jit_if_end(e, &c);
}

void jit_init_decode_budget(jit_emit *e, LLVMValueRef memory, LLVMValueRef options,
                            LLVMValueRef input)
{
    jit_store(e, jit_i64(e, 0), memory, offsetof(fbe_decode_budget, cap));
    jit_store(e, jit_load(e, e->i64, options, offsetof(fbe_decode_options, max_memory)), memory,
              offsetof(fbe_decode_budget, max_memory));
    jit_store(e, input, memory, offsetof(fbe_decode_budget, input));
}

jit_struct_fns *jit_fns_of(jit_emit *e, const fbe_ir_struct *st)
{
    return &e->fns[jit_struct_index(e, st)];
}

size_t jit_inherited(const jit_emit *e, const fbe_ir_struct *st)
{
    const fbe_ir_struct *b = st->base;
    if (!b || !b->field_count || st->own_field_start != b->field_count ||
        jit_struct_index(e, b) == SIZE_MAX)
        return 0;
    return b->field_count;
}

void jit_entry_name(const jit_emit *e, size_t index, fbe_model model, fbe_op op,
                    char buf[JIT_ENTRY_NAME_MAX])
{
    static const char *const ops[] = {"size", "serialize", "verify", "deserialize"};
    const char *m = model == FBE_STANDARD ? "std" : "final";
    if (e->export_names)
        snprintf(buf, JIT_ENTRY_NAME_MAX, "fbe_%s_%s_%s", e->codec->types[index].ir->c_name, m,
                 ops[op]);
    else if (e->generation)
        snprintf(buf, JIT_ENTRY_NAME_MAX, "fbe.r%u.%zu.%s.%s", e->generation, index, m, ops[op]);
    else
        snprintf(buf, JIT_ENTRY_NAME_MAX, "fbe.%zu.%s.%s", index, m, ops[op]);
}

LLVMValueRef jit_declare_entry(jit_emit *e, size_t index, fbe_model model, fbe_op op)
{
    /* (type, value) -> size; (type, value, out) -> status;
     * (type, data, size, info, options) -> status;
     * (type, data, size, value, options, consumed) -> status */
    LLVMTypeRef params[][6] = {
        {e->ptr, e->ptr},
        {e->ptr, e->ptr, e->ptr},
        {e->ptr, e->ptr, e->i64, e->ptr, e->ptr},
        {e->ptr, e->ptr, e->i64, e->ptr, e->ptr, e->ptr},
    };
    static const unsigned counts[] = {2, 3, 5, 6};
    if ((e->entry_types && !e->entry_types[index]) ||
        (e->entry_ops && !(e->entry_ops & JIT_ENTRY_OP(model, op))))
        return NULL; /* the entry stays the interpreter's: its define_*_entry does nothing */
    char name[JIT_ENTRY_NAME_MAX];
    jit_entry_name(e, index, model, op, name);
    LLVMValueRef fn = jit_declare(e, name, op == FBE_OP_SIZE ? e->i64 : e->i32, params[op], counts[op], true);
    /* LLVM renames a second function of the same name instead of failing: the
     * object would export, and a lookup would find, another struct's code. */
    size_t len;
    const char *given = LLVMGetValueName2(fn, &len);
    if ((len != strlen(name) || memcmp(given, name, len) != 0) && !e->name_clash[0])
        snprintf(e->name_clash, sizeof e->name_clash, "%s", name);
    e->fns[index].entry[model][op] = fn;
    return fn;
}

LLVMValueRef jit_declare(jit_emit *e, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                         unsigned n, bool external)
{
    LLVMTypeRef ft = LLVMFunctionType(ret, params, n, 0);
    LLVMValueRef fn = LLVMAddFunction(e->mod, name, ft);
    LLVMSetLinkage(fn, external ? LLVMExternalLinkage : LLVMInternalLinkage);
    unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(e->ctx, nounwind, 0));
    return fn;
}

LLVMValueRef jit_begin_function(jit_emit *e, LLVMValueRef fn)
{
    e->fn = fn;
    e->entry_block = LLVMAppendBasicBlockInContext(e->ctx, fn, "entry");
    LLVMPositionBuilderAtEnd(e->b, e->entry_block);
    return fn;
}

void jit_fn_attr(jit_emit *e, LLVMValueRef fn, const char *name)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(e->ctx, kind, 0));
}

LLVMValueRef jit_runtime_fn(jit_emit *e, const char *name, LLVMTypeRef type)
{
    /* both models' lowerings may ask in one module (AOT) */
    LLVMValueRef fn = LLVMGetNamedFunction(e->mod, name);
    if (fn)
        return fn;
    fn = LLVMAddFunction(e->mod, name, type);
    jit_fn_attr(e, fn, "cold");
    return fn;
}

LLVMBasicBlockRef jit_block(jit_emit *e, const char *name)
{
    return LLVMAppendBasicBlockInContext(e->ctx, e->fn, name);
}

/* Returns, from the entry point being emitted, what the interpreter's entry
 * point for (model, op) returns for args: the entry's own signature. */
static void ret_interp_entry(jit_emit *e, fbe_model model, fbe_op op, LLVMValueRef *args,
                             bool musttail)
{
    static const char *const names[2][2] = {
        {"fbe_interp_std_verify", "fbe_interp_std_deserialize"},
        {"fbe_interp_final_verify", "fbe_interp_final_deserialize"}};
    LLVMTypeRef type = LLVMGlobalGetValueType(e->fn);
    LLVMValueRef callee = jit_runtime_fn(e, names[model][op == FBE_OP_DESERIALIZE], type);
    LLVMValueRef call = LLVMBuildCall2(e->b, type, callee, args, LLVMCountParams(e->fn), "");
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                             LLVMCreateEnumAttribute(e->ctx, LLVMGetEnumAttributeKindForName("cold", 4), 0));
    if (musttail)
        LLVMSetTailCallKind(call, LLVMTailCallKindMustTail);
    LLVMBuildRet(e->b, call);
}

LLVMBasicBlockRef jit_delegate_block(jit_emit *e, fbe_model model, fbe_op op)
{
    if (op != FBE_OP_VERIFY && op != FBE_OP_DESERIALIZE)
        return NULL;
    LLVMValueRef args[6]; /* deserialize's; verify has 5 */
    LLVMGetParams(e->fn, args);
    LLVMBasicBlockRef saved = LLVMGetInsertBlock(e->b), bb = jit_block(e, "to_interp");
    jit_position(e, bb);
    ret_interp_entry(e, model, op, args, true);
    if (saved)
        jit_position(e, saved);
    return bb;
}

LLVMBasicBlockRef jit_verify_bail_block(jit_emit *e, fbe_model model, const fbe_ir_struct *st,
                                        LLVMValueRef data, LLVMValueRef frame_size,
                                        LLVMValueRef info, LLVMValueRef max_depth)
{
    LLVMValueRef opts = LLVMConstPointerNull(e->ptr);
    if (max_depth)
        opts = jit_alloca(e, LLVMArrayType(e->i8, sizeof(fbe_decode_options)), "opts");
    LLVMBasicBlockRef saved = LLVMGetInsertBlock(e->b), bb = jit_block(e, "bail");
    jit_position(e, bb);
    if (max_depth) {
        jit_memset(e, opts, 0, jit_i64(e, sizeof(fbe_decode_options)));
        jit_store(e, max_depth, opts, offsetof(fbe_decode_options, max_depth));
    }
    /* a constant where it can be: the call's own, kept live through the body,
     * cost README verify 262 / final verify 150 instead of 260 / 145 */
    LLVMValueRef type = e->types_at_run_time
                            ? LLVMGetParam(e->fn, 0)
                            : jit_host_ptr(e, &e->codec->types[jit_struct_index(e, st)]);
    LLVMValueRef args[] = {type, data, frame_size, info, opts};
    ret_interp_entry(e, model, FBE_OP_VERIFY, args, false);
    jit_position(e, saved);
    return bb;
}

LLVMBasicBlockRef jit_read_bail_block(jit_emit *e, fbe_model model, LLVMValueRef arena,
                                      LLVMValueRef budget, LLVMValueRef ptr)
{
    LLVMBasicBlockRef saved = LLVMGetInsertBlock(e->b), bb = jit_block(e, "bail");
    jit_position(e, bb);
    LLVMTypeRef params[] = {e->ptr, e->ptr, e->ptr};
    LLVMTypeRef type = LLVMFunctionType(e->void_t, params, 3, 0);
    LLVMValueRef args[] = {arena, budget, ptr};
    LLVMBuildCall2(e->b, type, jit_runtime_fn(e, "fbe_native_arena_rewind", type), args, 3, "");
    LLVMValueRef own[6];
    LLVMGetParams(e->fn, own);
    ret_interp_entry(e, model, FBE_OP_DESERIALIZE, own, true);
    jit_position(e, saved);
    return bb;
}

void jit_goto_if(jit_emit *e, LLVMValueRef cond, LLVMBasicBlockRef bb)
{
    LLVMBasicBlockRef cont = jit_block(e, "ok");
    LLVMBuildCondBr(e->b, jit_unlikely(e, cond), bb, cont);
    jit_position(e, cont);
}

void jit_position(jit_emit *e, LLVMBasicBlockRef bb)
{
    LLVMPositionBuilderAtEnd(e->b, bb);
}

LLVMValueRef jit_alloca(jit_emit *e, LLVMTypeRef t, const char *name)
{
    LLVMBuilderRef ab = LLVMCreateBuilderInContext(e->ctx);
    LLVMValueRef first = LLVMGetFirstInstruction(e->entry_block);
    if (first)
        LLVMPositionBuilderBefore(ab, first);
    else
        LLVMPositionBuilderAtEnd(ab, e->entry_block);
    LLVMValueRef slot = LLVMBuildAlloca(ab, t, name);
    LLVMDisposeBuilder(ab);
    return slot;
}

LLVMValueRef jit_i64(jit_emit *e, uint64_t v)
{
    return LLVMConstInt(e->i64, v, 0);
}

LLVMValueRef jit_i32(jit_emit *e, uint32_t v)
{
    return LLVMConstInt(e->i32, v, 0);
}

LLVMValueRef jit_i8(jit_emit *e, uint8_t v)
{
    return LLVMConstInt(e->i8, v, 0);
}

LLVMValueRef jit_host_ptr(jit_emit *e, const void *p)
{
    if (!p)
        return LLVMConstPointerNull(e->ptr);
    if (e->host_ptr) {
        LLVMValueRef v = e->host_ptr(e, p);
        if (v)
            return v;
        if (!e->host_ptr_missing)
            e->host_ptr_missing = p;
        return LLVMConstPointerNull(e->ptr);
    }
    return LLVMConstIntToPtr(jit_i64(e, (uint64_t)(uintptr_t)p), e->ptr);
}

LLVMValueRef jit_gep(jit_emit *e, LLVMValueRef base, LLVMValueRef offset)
{
    return LLVMBuildInBoundsGEP2(e->b, e->i8, base, &offset, 1, "");
}

LLVMValueRef jit_gep_c(jit_emit *e, LLVMValueRef base, uint64_t offset)
{
    if (offset == 0)
        return base;
    return jit_gep(e, base, jit_i64(e, offset));
}

LLVMValueRef jit_load(jit_emit *e, LLVMTypeRef t, LLVMValueRef base, uint64_t offset)
{
    LLVMValueRef v = LLVMBuildLoad2(e->b, t, jit_gep_c(e, base, offset), "");
    LLVMSetAlignment(v, 1);
    return v;
}

void jit_store(jit_emit *e, LLVMValueRef v, LLVMValueRef base, uint64_t offset)
{
    LLVMValueRef s = LLVMBuildStore(e->b, v, jit_gep_c(e, base, offset));
    LLVMSetAlignment(s, 1);
}

LLVMValueRef jit_load_at(jit_emit *e, LLVMTypeRef t, LLVMValueRef base, LLVMValueRef offset)
{
    LLVMValueRef v = LLVMBuildLoad2(e->b, t, jit_gep(e, base, offset), "");
    LLVMSetAlignment(v, 1);
    return v;
}

void jit_store_at(jit_emit *e, LLVMValueRef v, LLVMValueRef base, LLVMValueRef offset)
{
    LLVMValueRef s = LLVMBuildStore(e->b, v, jit_gep(e, base, offset));
    LLVMSetAlignment(s, 1);
}

void jit_memcpy(jit_emit *e, LLVMValueRef dst, LLVMValueRef src, LLVMValueRef len)
{
    LLVMValueRef args[] = {dst, src, len, LLVMConstInt(e->i1, 0, 0)};
    LLVMBuildCall2(e->b, e->fn_memcpy_t, e->fn_memcpy, args, 4, "");
}

void jit_memset(jit_emit *e, LLVMValueRef dst, uint8_t byte, LLVMValueRef len)
{
    LLVMValueRef args[] = {dst, jit_i8(e, byte), len, LLVMConstInt(e->i1, 0, 0)};
    LLVMBuildCall2(e->b, e->fn_memset_t, e->fn_memset, args, 4, "");
}

LLVMTypeRef jit_int_type(jit_emit *e, uint32_t bytes)
{
    return LLVMIntTypeInContext(e->ctx, bytes * 8);
}

void jit_loop_begin_below(jit_emit *e, jit_loop *loop, LLVMValueRef count, LLVMValueRef slot,
                          uint64_t limit)
{
    loop->index = jit_alloca(e, e->i64, "i");
    loop->count = count;
    LLVMBuildStore(e->b, jit_i64(e, 0), loop->index);
    loop->head = jit_block(e, "loop.head");
    loop->body = jit_block(e, "loop.body");
    loop->done = jit_block(e, "loop.done");
    LLVMBuildBr(e->b, loop->head);
    jit_position(e, loop->head);
    LLVMValueRef i = LLVMBuildLoad2(e->b, e->i64, loop->index, "");
    LLVMValueRef go = LLVMBuildICmp(e->b, LLVMIntULT, i, count, "");
    if (slot)
        go = LLVMBuildAnd(e->b, go,
                          LLVMBuildICmp(e->b, LLVMIntULT, LLVMBuildLoad2(e->b, e->i64, slot, ""),
                                        jit_i64(e, limit), ""), "");
    LLVMBuildCondBr(e->b, go, loop->body, loop->done);
    jit_position(e, loop->body);
}

void jit_loop_begin(jit_emit *e, jit_loop *loop, LLVMValueRef count)
{
    jit_loop_begin_below(e, loop, count, NULL, 0);
}

LLVMValueRef jit_loop_index(jit_emit *e, jit_loop *loop)
{
    return LLVMBuildLoad2(e->b, e->i64, loop->index, "");
}

void jit_loop_end(jit_emit *e, jit_loop *loop)
{
    LLVMValueRef i = LLVMBuildLoad2(e->b, e->i64, loop->index, "");
    LLVMBuildStore(e->b, LLVMBuildAdd(e->b, i, jit_i64(e, 1), ""), loop->index);
    LLVMBuildBr(e->b, loop->head);
    jit_position(e, loop->done);
}

void jit_if_begin(jit_emit *e, jit_if *c, LLVMValueRef cond)
{
    c->then_bb = jit_block(e, "then");
    c->else_bb = jit_block(e, "else");
    c->done = jit_block(e, "endif");
    c->has_else = false;
    LLVMBuildCondBr(e->b, cond, c->then_bb, c->else_bb);
    jit_position(e, c->then_bb);
}

void jit_if_else(jit_emit *e, jit_if *c)
{
    LLVMBuildBr(e->b, c->done);
    jit_position(e, c->else_bb);
    c->has_else = true;
}

void jit_if_end(jit_emit *e, jit_if *c)
{
    LLVMBuildBr(e->b, c->done);
    if (!c->has_else) {
        jit_position(e, c->else_bb);
        LLVMBuildBr(e->b, c->done);
    }
    jit_position(e, c->done);
}

LLVMValueRef jit_phi2(jit_emit *e, LLVMTypeRef t, LLVMValueRef a, LLVMBasicBlockRef from_a,
                      LLVMValueRef b, LLVMBasicBlockRef from_b)
{
    LLVMValueRef phi = LLVMBuildPhi(e->b, t, "");
    LLVMValueRef values[] = {a, b};
    LLVMBasicBlockRef blocks[] = {from_a, from_b};
    LLVMAddIncoming(phi, values, blocks, 2);
    return phi;
}

LLVMValueRef jit_depth_limit(jit_emit *e, LLVMValueRef options, bool may_be_null)
{
    LLVMValueRef md;
    if (may_be_null) {
        LLVMBasicBlockRef from = LLVMGetInsertBlock(e->b);
        LLVMBasicBlockRef has = jit_block(e, "has_options"), join = jit_block(e, "depth_limit");
        LLVMBuildCondBr(e->b, LLVMBuildIsNull(e->b, options, ""), join, has);
        jit_position(e, has);
        LLVMValueRef asked = jit_load(e, e->i32, options, offsetof(fbe_decode_options, max_depth));
        LLVMBuildBr(e->b, join);
        jit_position(e, join);
        md = jit_phi2(e, e->i32, jit_i32(e, 0), from, asked, has);
    } else {
        md = jit_load(e, e->i32, options, offsetof(fbe_decode_options, max_depth));
    }
    LLVMValueRef unset = LLVMBuildICmp(e->b, LLVMIntEQ, md, jit_i32(e, 0), "");
    return LLVMBuildSelect(e->b, unset, jit_i32(e, fbe_codec_max_depth(e->codec)), md, "max_depth");
}

LLVMValueRef jit_buffer_reserve(jit_emit *e, LLVMValueRef out, LLVMValueRef extra)
{
    LLVMValueRef used = jit_load(e, e->i64, out, offsetof(fbe_buffer, size));
    LLVMValueRef cap = jit_load(e, e->i64, out, offsetof(fbe_buffer, capacity));
    LLVMValueRef room = LLVMBuildSub(e->b, cap, used, "");
    LLVMValueRef fits = LLVMBuildICmp(e->b, LLVMIntULE, extra, room, "");
    LLVMBasicBlockRef entry = LLVMGetInsertBlock(e->b);
    LLVMBasicBlockRef grow = jit_block(e, "grow");
    LLVMBasicBlockRef done = jit_block(e, "reserved");
    LLVMBuildCondBr(e->b, fits, done, grow);
    jit_position(e, grow);
    LLVMValueRef args[] = {out, extra};
    LLVMValueRef rc = LLVMBuildCall2(e->b, e->fn_buffer_reserve_t, e->fn_buffer_reserve, args, 2, "");
    LLVMBuildBr(e->b, done);
    jit_position(e, done);
    return jit_phi2(e, e->i32, jit_i32(e, FBE_OK), entry, rc, grow);
}

LLVMValueRef jit_unlikely(jit_emit *e, LLVMValueRef cond)
{
    LLVMTypeRef ft;
    LLVMTypeRef types[] = {e->i1};
    LLVMValueRef expect = intrinsic(e, "llvm.expect", types, 1, &ft);
    LLVMValueRef args[] = {cond, LLVMConstInt(e->i1, 0, 0)};
    return LLVMBuildCall2(e->b, ft, expect, args, 2, "");
}

/* ---- large structs ---- */

jit_chunking jit_chunks = {256, 64, 16, 4};

size_t jit_chunk_span(size_t lo, size_t hi, size_t per)
{
    size_t span = per;
    while (span * per < hi - lo)
        span *= per;
    return span;
}

LLVMValueRef jit_chunk_fn(jit_emit *e, LLVMTypeRef type, const char *what, const fbe_ir_struct *st,
                          size_t lo, size_t hi)
{
    char name[512];
    snprintf(name, sizeof name, "%s.%s.%zu-%zu", what, st->c_name, lo, hi);
    LLVMValueRef fn = LLVMAddFunction(e->mod, name, type);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    unsigned kind = LLVMGetEnumAttributeKindForName("noinline", 8);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(e->ctx, kind, 0));
    return fn;
}

/* Fields whose serialize is a loop over elements (an optional's inner type
 * counted): what Loop Strength Reduction's cost grows with. */
static size_t loop_fields(const fbe_ir_struct *st, size_t lo)
{
    size_t n = 0;
    for (size_t i = lo; i < st->field_count; i++) {
        const fbe_ir_type *t = st->fields[i].type;
        if (t->kind == FBE_IR_OPTIONAL)
            t = t->elem;
        if (fbe_ir_shape_of(t) >= FBE_IR_SHAPE_ARRAY)
            n++;
    }
    return n;
}

/* Chunked above min_fields fields, or above write_loops element loops: 48
 * fields of which 12 are int32[] took 3.3 s of code generation, 64 with 16
 * took 9.2 s (unchunked, FBE_JIT_CACHE_DIR= fbec encode --stats). A struct of
 * at most write_fields fields is one leaf either way: no golden type changes
 * (those of more than 16 fields have no loop). */
bool jit_write_chunked(const fbe_ir_struct *st, size_t lo)
{
    size_t n = st->field_count - lo;
    if (jit_chunks.write_fields < 2 || n <= jit_chunks.write_fields)
        return false;
    return n > jit_chunks.min_fields || loop_fields(st, lo) > jit_chunks.write_loops;
}
