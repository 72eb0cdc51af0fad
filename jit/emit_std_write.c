/* Standard model, writing side: size and serialize, lowered per struct.
 * Mirrors runtime/interp/std_write.c (the semantic reference) with every offset,
 * size and type number a constant taken from the IR. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "emit.h"
#include "interp/program.h"

/* Whether values of t append extra data after the inline part. */
static bool has_extras(const fbe_ir_type *t)
{
    return !fbe_interp_std_inline_only(t);
}

static void add(jit_emit *e, LLVMValueRef acc, LLVMValueRef v)
{
    LLVMValueRef cur = LLVMBuildLoad2(e->b, e->i64, acc, "");
    LLVMBuildStore(e->b, LLVMBuildAdd(e->b, cur, v, ""), acc);
}

/* The size is the interpreter's (runtime/interp/std_write.c), which stays
 * a fixed function of the host value above 32 bits instead of wrapping (views
 * may alias one huge array many times): string lengths and block sizes count
 * at most FBE_SIZE_CAP, loops stop once the running size reaches it, and a struct's
 * walk returns as soon as it has reached it after a field that is neither a
 * scalar nor a string. The running size `acc` is therefore threaded through
 * every size function: std_size.S (ptr value, i64 acc) returns acc + S's body
 * and extras, with STOPPED set when one of those returns was taken (a heir or
 * the next chunk must then stop too; a holder clears it and checks its own). */
#define STOPPED ((uint64_t)1 << 63)

static LLVMValueRef call_size_raw(jit_emit *e, LLVMValueRef fn, LLVMValueRef p, LLVMValueRef acc)
{
    LLVMValueRef args[] = {p, acc};
    return LLVMBuildCall2(e->b, LLVMGlobalGetValueType(fn), fn, args, 2, "");
}

/* acc + the body and extras of the struct at p (STOPPED cleared). */
static LLVMValueRef call_size(jit_emit *e, const fbe_ir_struct *st, LLVMValueRef p, LLVMValueRef acc)
{
    LLVMValueRef r = call_size_raw(e, jit_fns_of(e, st)->std_size, p, acc);
    return LLVMBuildAnd(e->b, r, jit_i64(e, ~STOPPED), "");
}

static LLVMValueRef below_cap(jit_emit *e, LLVMValueRef acc_slot)
{
    return LLVMBuildICmp(e->b, LLVMIntULT, LLVMBuildLoad2(e->b, e->i64, acc_slot, ""),
                         jit_i64(e, FBE_SIZE_CAP), "");
}

/* acc += extra bytes of the value of type t at host address p (node_extra). */
static void emit_extra(jit_emit *e, const fbe_ir_type *t, LLVMValueRef p, LLVMValueRef acc)
{
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_STRING: /* static_c.h's rule (sc_str_extra) */
        add(e, acc, jit_call_handler(e, "str_extra", &p, 1));
        break;
    case FBE_IR_SHAPE_STRUCT:
        LLVMBuildStore(e->b, call_size(e, t->struct_type, p, LLVMBuildLoad2(e->b, e->i64, acc, "")),
                       acc);
        break;
    case FBE_IR_SHAPE_OPTIONAL: case FBE_IR_SHAPE_OPT_STRUCT: {
        const fbe_ir_type *inner = t->elem;
        if (inner->kind == FBE_IR_STRUCT) {
            LLVMValueRef obj = jit_load(e, e->ptr, p, 0);
            jit_if c;
            jit_if_begin(e, &c, LLVMBuildIsNotNull(e->b, obj, ""));
            LLVMValueRef at = LLVMBuildAdd(e->b, LLVMBuildLoad2(e->b, e->i64, acc, ""), jit_i64(e, 4), "");
            LLVMBuildStore(e->b, call_size(e, inner->struct_type, obj, at), acc);
            jit_if_end(e, &c);
        } else if (!has_extras(inner)) {
            LLVMValueRef has = LLVMBuildICmp(e->b, LLVMIntNE, jit_load(e, e->i8, p, 0), jit_i8(e, 0), "");
            add(e, acc, LLVMBuildSelect(e->b, has, jit_i64(e, inner->std_inline_size), jit_i64(e, 0), ""));
        } else {
            LLVMValueRef has = LLVMBuildICmp(e->b, LLVMIntNE, jit_load(e, e->i8, p, 0), jit_i8(e, 0), "");
            jit_if c;
            jit_if_begin(e, &c, has);
            add(e, acc, jit_i64(e, inner->std_inline_size));
            emit_extra(e, inner, jit_gep_c(e, p, t->host_value_offset), acc);
            jit_if_end(e, &c);
        }
        break;
    }
    case FBE_IR_SHAPE_ARRAY:
        if (!has_extras(t->elem))
            break;
        if (t->array_len <= 8) {
            for (uint32_t i = 0; i < t->array_len; i++) {
                jit_if c;
                jit_if_begin(e, &c, below_cap(e, acc));
                emit_extra(e, t->elem, jit_gep_c(e, p, (uint64_t)i * t->elem->host_size), acc);
                jit_if_end(e, &c);
            }
        } else {
            jit_loop loop;
            jit_loop_begin_below(e, &loop, jit_i64(e, t->array_len), acc, FBE_SIZE_CAP);
            LLVMValueRef i = jit_loop_index(e, &loop);
            emit_extra(e, t->elem,
                       jit_gep(e, p, LLVMBuildMul(e->b, i, jit_i64(e, t->elem->host_size), "")), acc);
            jit_loop_end(e, &loop);
        }
        break;
    case FBE_IR_SHAPE_SEQ: case FBE_IR_SHAPE_MAP: {
        LLVMValueRef n = jit_load(e, e->i64, p, 8);
        bool map = fbe_ir_kind_is_keyed(t->kind);
        uint32_t inline_size = fbe_ir_std_entry_size(t);
        LLVMValueRef args[] = {n, jit_i32(e, inline_size)}; /* static_c.h's sc_block */
        add(e, acc, jit_call_handler(e, "block", args, 2));
        bool key_extras = map && has_extras(t->key);
        if (!has_extras(t->elem) && !key_extras)
            break;
        LLVMValueRef data = jit_load(e, e->ptr, p, 0);
        uint32_t stride = map ? t->host_entry_size : t->elem->host_size;
        jit_loop loop;
        jit_loop_begin_below(e, &loop, n, acc, FBE_SIZE_CAP);
        LLVMValueRef item = jit_gep(e, data, LLVMBuildMul(e->b, jit_loop_index(e, &loop),
                                                          jit_i64(e, stride), ""));
        if (key_extras)
            emit_extra(e, t->key, item, acc);
        if (has_extras(t->elem))
            emit_extra(e, t->elem, map ? jit_gep_c(e, item, t->host_entry_value_offset) : item, acc);
        jit_loop_end(e, &loop);
        break;
    }
    default:
        break;
    }
}

/* Whether the interpreter's walk checks the size after this field (every
 * field but scalars and strings, extras or not). */
static bool checked_after(const fbe_ir_type *t)
{
    return fbe_ir_shape_of(t) >= FBE_IR_SHAPE_STRUCT;
}

static LLVMValueRef trunc32(jit_emit *e, LLVMValueRef v)
{
    return LLVMBuildTrunc(e->b, v, e->i32, "");
}

/* end_slot holds the allocation cursor (frame-relative). Returns the old cursor
 * and advances it by n. */
static LLVMValueRef allocate(jit_emit *e, LLVMValueRef end_slot, LLVMValueRef n)
{
    LLVMValueRef at = LLVMBuildLoad2(e->b, e->i64, end_slot, "");
    LLVMBuildStore(e->b, LLVMBuildAdd(e->b, at, n, ""), end_slot);
    return at;
}

static LLVMValueRef call_write(jit_emit *e, const fbe_ir_struct *st, LLVMValueRef data,
                               LLVMValueRef body, LLVMValueRef end, LLVMValueRef value)
{
    LLVMTypeRef params[] = {e->ptr, e->i64, e->i64, e->ptr};
    LLVMTypeRef ft = LLVMFunctionType(e->i64, params, 4, 0);
    LLVMValueRef args[] = {data, body, end, value};
    return LLVMBuildCall2(e->b, ft, jit_fns_of(e, st)->std_write, args, 4, "");
}

/* A struct body allocated at the cursor, its offset stored at pos. */
static void write_struct_ref(jit_emit *e, const fbe_ir_struct *st, LLVMValueRef data,
                             LLVMValueRef pos, LLVMValueRef base, LLVMValueRef value,
                             LLVMValueRef end_slot)
{
    LLVMValueRef body = allocate(e, end_slot, jit_i64(e, st->std_body_size));
    jit_store_at(e, trunc32(e, LLVMBuildSub(e->b, body, base, "")), data, pos);
    LLVMValueRef end = LLVMBuildLoad2(e->b, e->i64, end_slot, "");
    LLVMBuildStore(e->b, call_write(e, st, data, body, end, value), end_slot);
}

static void emit_write(jit_emit *e, const fbe_ir_type *t, LLVMValueRef data, LLVMValueRef pos,
                       LLVMValueRef base, LLVMValueRef p, LLVMValueRef end_slot);

static void emit_write(jit_emit *e, const fbe_ir_type *t, LLVMValueRef data, LLVMValueRef pos,
                       LLVMValueRef base, LLVMValueRef p, LLVMValueRef end_slot)
{
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_BOOL: {
        LLVMValueRef v = LLVMBuildICmp(e->b, LLVMIntNE, jit_load(e, e->i8, p, 0), jit_i8(e, 0), "");
        jit_store_at(e, LLVMBuildZExt(e->b, v, e->i8, ""), data, pos);
        break;
    }
    case FBE_IR_SHAPE_STRING: { /* static_c.h's rule (sc_swrite_str), on positions in data */
        LLVMValueRef end = LLVMBuildLoad2(e->b, e->i64, end_slot, "");
        LLVMValueRef args[] = {jit_gep(e, data, end), p, jit_gep(e, data, pos), jit_gep(e, data, base)};
        LLVMValueRef block_end = jit_call_handler(e, "swrite_str", args, 4);
        LLVMBuildStore(e->b, LLVMBuildPtrDiff2(e->b, e->i8, block_end, data, ""), end_slot);
        break;
    }
    case FBE_IR_SHAPE_STRUCT:
        write_struct_ref(e, t->struct_type, data, pos, base, p, end_slot);
        break;
    case FBE_IR_SHAPE_OPTIONAL: case FBE_IR_SHAPE_OPT_STRUCT: {
        const fbe_ir_type *inner = t->elem;
        LLVMValueRef present, obj = NULL;
        if (inner->kind == FBE_IR_STRUCT) {
            obj = jit_load(e, e->ptr, p, 0);
            present = LLVMBuildIsNotNull(e->b, obj, "");
        } else {
            present = LLVMBuildICmp(e->b, LLVMIntNE, jit_load(e, e->i8, p, 0), jit_i8(e, 0), "");
        }
        LLVMValueRef pos1 = LLVMBuildAdd(e->b, pos, jit_i64(e, 1), "");
        jit_if c;
        jit_if_begin(e, &c, present);
        jit_store_at(e, jit_i8(e, 1), data, pos);
        LLVMValueRef slot = allocate(e, end_slot, jit_i64(e, inner->std_inline_size));
        jit_store_at(e, trunc32(e, LLVMBuildSub(e->b, slot, base, "")), data, pos1);
        if (inner->kind == FBE_IR_STRUCT)
            write_struct_ref(e, inner->struct_type, data, slot, slot, obj, end_slot);
        else
            emit_write(e, inner, data, slot, slot, jit_gep_c(e, p, t->host_value_offset), end_slot);
        jit_if_else(e, &c);
        /* The reference leaves these 4 offset bytes unwritten; we write zeros. */
        jit_store_at(e, jit_i8(e, 0), data, pos);
        jit_store_at(e, jit_i32(e, 0), data, pos1);
        jit_if_end(e, &c);
        break;
    }
    case FBE_IR_SHAPE_ARRAY: {
        const fbe_ir_type *el = t->elem;
        if (t->array_len <= 8) {
            for (uint32_t i = 0; i < t->array_len; i++)
                emit_write(e, el, data,
                           LLVMBuildAdd(e->b, pos, jit_i64(e, (uint64_t)i * el->std_inline_size), ""),
                           base, jit_gep_c(e, p, (uint64_t)i * el->host_size), end_slot);
        } else {
            jit_loop loop;
            jit_loop_begin(e, &loop, jit_i64(e, t->array_len));
            LLVMValueRef i = jit_loop_index(e, &loop);
            emit_write(e, el, data,
                       LLVMBuildAdd(e->b, pos, LLVMBuildMul(e->b, i, jit_i64(e, el->std_inline_size), ""), ""),
                       base, jit_gep(e, p, LLVMBuildMul(e->b, i, jit_i64(e, el->host_size), "")),
                       end_slot);
            jit_loop_end(e, &loop);
        }
        break;
    }
    case FBE_IR_SHAPE_SEQ: case FBE_IR_SHAPE_MAP: {
        bool map = fbe_ir_kind_is_keyed(t->kind);
        uint32_t key_inline = map ? t->key->std_inline_size : 0;
        uint32_t inline_size = fbe_ir_std_entry_size(t);
        uint32_t stride = map ? t->host_entry_size : t->elem->host_size;
        LLVMValueRef items = jit_load(e, e->ptr, p, 0);
        LLVMValueRef n = jit_load(e, e->i64, p, 8);
        LLVMValueRef blk = allocate(e, end_slot,
                                    LLVMBuildAdd(e->b, jit_i64(e, 4),
                                                 LLVMBuildMul(e->b, n, jit_i64(e, inline_size), ""), ""));
        jit_store_at(e, trunc32(e, LLVMBuildSub(e->b, blk, base, "")), data, pos);
        jit_store_at(e, trunc32(e, n), data, blk);
        jit_loop loop;
        jit_loop_begin(e, &loop, n);
        LLVMValueRef i = jit_loop_index(e, &loop);
        LLVMValueRef wire = LLVMBuildAdd(e->b, LLVMBuildAdd(e->b, blk, jit_i64(e, 4), ""),
                                         LLVMBuildMul(e->b, i, jit_i64(e, inline_size), ""), "");
        LLVMValueRef item = jit_gep(e, items, LLVMBuildMul(e->b, i, jit_i64(e, stride), ""));
        if (map) {
            emit_write(e, t->key, data, wire, base, item, end_slot);
            emit_write(e, t->elem, data, LLVMBuildAdd(e->b, wire, jit_i64(e, key_inline), ""),
                       base, jit_gep_c(e, item, t->host_entry_value_offset), end_slot);
        } else {
            emit_write(e, t->elem, data, wire, base, item, end_slot);
        }
        jit_loop_end(e, &loop);
        break;
    }
    default: {
        /* Every other kind is a little-endian scalar whose host bytes are its
         * wire bytes. */
        LLVMTypeRef it = jit_int_type(e, t->std_inline_size);
        jit_store_at(e, jit_load(e, it, p, 0), data, pos);
        break;
    }
    }
}

/* Returns r (with STOPPED) when it is set: a walk that stopped early. */
static void return_if_stopped(jit_emit *e, LLVMValueRef r)
{
    LLVMValueRef stopped = LLVMBuildICmp(e->b, LLVMIntNE, LLVMBuildAnd(e->b, r, jit_i64(e, STOPPED), ""),
                                         jit_i64(e, 0), "");
    LLVMBasicBlockRef out = jit_block(e, "stopped"), go = jit_block(e, "go");
    LLVMBuildCondBr(e->b, jit_unlikely(e, stopped), out, go);
    jit_position(e, out);
    LLVMBuildRet(e->b, r);
    jit_position(e, go);
}

/* The start of std_size.S or a chunk: the running size plus `base` (st's body
 * at the root), then the inherited fields' (jit_inherited: the base's walk, on
 * a running size that already holds st's body minus the base's). */
static LLVMValueRef size_start(jit_emit *e, const fbe_ir_struct *st, LLVMValueRef fn, uint64_t base,
                               bool inherit)
{
    LLVMValueRef v = LLVMGetParam(fn, 0);
    LLVMValueRef acc = LLVMBuildAdd(e->b, LLVMGetParam(fn, 1), jit_i64(e, base), "");
    if (!inherit)
        return acc;
    acc = LLVMBuildSub(e->b, acc, jit_i64(e, st->base->std_body_size), "");
    LLVMValueRef r = call_size_raw(e, jit_fns_of(e, st->base)->std_size, v, acc);
    return_if_stopped(e, r);
    return r;
}

/* std_size.S, or a chunk of it: the running size + `base` + fields [lo, hi),
 * after the inherited fields' when `inherit` (the root of a derived struct). */
static void define_size_range(jit_emit *e, const fbe_ir_struct *st, LLVMValueRef fn, size_t lo,
                              size_t hi, uint64_t base, bool inherit)
{
    jit_begin_function(e, fn);
    LLVMValueRef v = LLVMGetParam(fn, 0);
    LLVMValueRef acc = jit_alloca(e, e->i64, "size");
    LLVMBuildStore(e->b, size_start(e, st, fn, base, inherit), acc);
    for (size_t i = lo; i < hi; i++) {
        const fbe_ir_field *fd = &st->fields[i];
        if (has_extras(fd->type))
            emit_extra(e, fd->type, jit_gep_c(e, v, fd->host_offset), acc);
        if (!checked_after(fd->type))
            continue;
        /* struct_total_exact: stop once past the cap */
        LLVMValueRef now = LLVMBuildLoad2(e->b, e->i64, acc, "");
        LLVMBasicBlockRef out = jit_block(e, "capped"), go = jit_block(e, "go");
        LLVMBuildCondBr(e->b,
                        jit_unlikely(e, LLVMBuildICmp(e->b, LLVMIntUGE, now,
                                                      jit_i64(e, FBE_SIZE_CAP), "")),
                        out, go);
        jit_position(e, out);
        LLVMBuildRet(e->b, LLVMBuildOr(e->b, now, jit_i64(e, STOPPED), ""));
        jit_position(e, go);
    }
    LLVMBuildRet(e->b, LLVMBuildLoad2(e->b, e->i64, acc, ""));
}

/* A body's first 8 bytes: its size and type number (the program's). */
static uint64_t body_header(jit_emit *e, const fbe_ir_struct *st)
{
    return interp_prog_for(e->codec, st)->std_header;
}

/* The inherited fields of a derived struct's body: the base's writer, whose
 * header (the base's) the caller writes over afterwards. Returns the new end. */
static LLVMValueRef inherited_write(jit_emit *e, const fbe_ir_struct *st, LLVMValueRef *args)
{
    return call_write(e, st->base, args[0], args[1], args[2], args[3]);
}

/* std_write.S (with the header), or a chunk of it: fields [lo, hi), after the
 * inherited ones when `inherit`. */
static void define_write_range(jit_emit *e, const fbe_ir_struct *st, LLVMValueRef fn, size_t lo,
                               size_t hi, bool header_too, bool inherit)
{
    jit_begin_function(e, fn);
    LLVMValueRef args[4];
    for (unsigned i = 0; i < 4; i++)
        args[i] = LLVMGetParam(fn, i);
    LLVMValueRef data = args[0];
    LLVMValueRef body = args[1];
    LLVMValueRef end_slot = jit_alloca(e, e->i64, "end");
    LLVMBuildStore(e->b, inherit ? inherited_write(e, st, args) : args[2], end_slot);
    LLVMValueRef v = args[3];
    /* The whole 8-byte header in one store: size, then type number. */
    if (header_too)
        jit_store_at(e, jit_i64(e, body_header(e, st)), data, body);
    for (size_t i = lo; i < hi;) {
        const fbe_ir_field *fd = &st->fields[i];
        LLVMValueRef pos = LLVMBuildAdd(e->b, body, jit_i64(e, fd->std_offset), "");
        size_t j = fbe_ir_plain_run(st->fields, i, hi);
        if (j > i) { /* fields whose host bytes are their wire bytes: one copy, as `fbec c` */
            uint64_t len = fbe_ir_plain_run_bytes(st->fields, i, j);
            jit_memcpy(e, jit_gep(e, data, pos), jit_gep_c(e, v, fd->host_offset), jit_i64(e, len));
            i = j;
            continue;
        }
        emit_write(e, fd->type, data, pos, body, jit_gep_c(e, v, fd->host_offset), end_slot);
        i++;
    }
    LLVMBuildRet(e->b, LLVMBuildLoad2(e->b, e->i64, end_slot, ""));
}

/* Large structs (emit.h: jit_chunks): a tree of functions of at most
 * jit_chunks.write_fields fields (leaves) or children (nodes). Serialize's
 * code grows worse than its size alone: each element loop's addresses hang on
 * the sum of every extra written before it in the function, and Loop Strength
 * Reduction works through that sum per loop (94% of the code generator's time
 * on 50 mixed fields; docs/jit.md), so its leaves are smaller than the reading
 * side's. Sizes add up mod 2^64 as before (chunks start at 0); the writers
 * chain the end of the extras. */
static void define_size_node(jit_emit *e, const fbe_ir_struct *st, LLVMValueRef fn, size_t lo,
                             size_t hi, uint64_t base, bool inherit);
static void define_write_node(jit_emit *e, const fbe_ir_struct *st, LLVMValueRef fn, size_t lo,
                              size_t hi, bool header_too, bool inherit);

/* The children of chunk node [lo, hi) of `fn`, each defined (a subtree of its
 * own); *k receives their number. */
static LLVMValueRef *write_children(jit_emit *e, const fbe_ir_struct *st, LLVMValueRef fn,
                                    bool size, size_t lo, size_t hi, size_t *k)
{
    size_t span = jit_chunk_span(lo, hi, jit_chunks.write_fields);
    *k = (hi - lo + span - 1) / span;
    LLVMValueRef *fns = calloc(*k, sizeof *fns);
    if (!fns) { /* a node without children: well formed, and the module is refused */
        e->out_of_memory = true;
        *k = 0;
        return NULL;
    }
    for (size_t c = 0; c < *k; c++) {
        size_t a = lo + c * span, b = a + span < hi ? a + span : hi;
        fns[c] = jit_chunk_fn(e, LLVMGlobalGetValueType(fn), size ? "std_size" : "std_write", st, a, b);
        if (size)
            define_size_node(e, st, fns[c], a, b, 0, false);
        else
            define_write_node(e, st, fns[c], a, b, false, false);
    }
    return fns;
}

static void define_size_node(jit_emit *e, const fbe_ir_struct *st, LLVMValueRef fn, size_t lo,
                             size_t hi, uint64_t base, bool inherit)
{
    if (hi - lo <= jit_chunks.write_fields) {
        define_size_range(e, st, fn, lo, hi, base, inherit);
        return;
    }
    size_t k;
    LLVMValueRef *fns = write_children(e, st, fn, true, lo, hi, &k);
    jit_begin_function(e, fn);
    LLVMValueRef v = LLVMGetParam(fn, 0), acc = size_start(e, st, fn, base, inherit);
    for (size_t c = 0; c < k; c++) {
        acc = call_size_raw(e, fns[c], v, acc);
        if (c + 1 < k)
            return_if_stopped(e, acc);
    }
    LLVMBuildRet(e->b, acc);
    free(fns);
}

static void define_write_node(jit_emit *e, const fbe_ir_struct *st, LLVMValueRef fn, size_t lo,
                              size_t hi, bool header_too, bool inherit)
{
    if (hi - lo <= jit_chunks.write_fields) {
        define_write_range(e, st, fn, lo, hi, header_too, inherit);
        return;
    }
    size_t k;
    LLVMValueRef *fns = write_children(e, st, fn, false, lo, hi, &k);
    jit_begin_function(e, fn);
    LLVMValueRef args[4];
    for (unsigned i = 0; i < 4; i++)
        args[i] = LLVMGetParam(fn, i);
    if (inherit)
        args[2] = inherited_write(e, st, args);
    if (header_too) {
        jit_store_at(e, jit_i64(e, body_header(e, st)), args[0], args[1]);
    }
    for (size_t c = 0; c < k; c++)
        args[2] = LLVMBuildCall2(e->b, LLVMGlobalGetValueType(fns[c]), fns[c], args, 4, "");
    LLVMBuildRet(e->b, args[2]);
    free(fns);
}

/* Fields [lo, n) of st are its own (lo = jit_inherited): chunked by those. */
static void define_size(jit_emit *e, const fbe_ir_struct *st, jit_struct_fns *f)
{
    size_t lo = jit_inherited(e, st);
    if (jit_write_chunked(st, lo))
        define_size_node(e, st, f->std_size, lo, st->field_count, st->std_body_size, lo > 0);
    else
        define_size_range(e, st, f->std_size, lo, st->field_count, st->std_body_size, lo > 0);
}

static void define_write(jit_emit *e, const fbe_ir_struct *st, jit_struct_fns *f)
{
    size_t lo = jit_inherited(e, st);
    if (jit_write_chunked(st, lo))
        define_write_node(e, st, f->std_write, lo, st->field_count, true, lo > 0);
    else
        define_write_range(e, st, f->std_write, lo, st->field_count, true, lo > 0);
}

/* size(type, value) = frame header + body + extras, the header counted first:
 * where the sum stops at FBE_SIZE_CAP depends on it (frame_size) */
static void define_entry_size(jit_emit *e, const fbe_ir_struct *st, jit_struct_fns *f)
{
    LLVMValueRef fn = f->entry[FBE_STANDARD][FBE_OP_SIZE];
    if (!fn) /* not a selected type or operation (jit_emit.entry_types, entry_ops) */
        return;
    jit_begin_function(e, fn);
    LLVMBuildRet(e->b, call_size(e, st, LLVMGetParam(fn, 1), jit_i64(e, 8)));
}

/* serialize(type, value, out) */
static void define_entry_serialize(jit_emit *e, const fbe_ir_struct *st, jit_struct_fns *f)
{
    LLVMValueRef fn = f->entry[FBE_STANDARD][FBE_OP_SERIALIZE];
    if (!fn)
        return;
    jit_begin_function(e, fn);
    LLVMValueRef value = LLVMGetParam(fn, 1);
    LLVMValueRef out = LLVMGetParam(fn, 2);
    LLVMValueRef size = call_size(e, st, value, jit_i64(e, 8));
    LLVMBasicBlockRef too_large = jit_block(e, "too_large");
    LLVMBasicBlockRef reserve = jit_block(e, "reserve");
    LLVMBuildCondBr(e->b, jit_unlikely(e, LLVMBuildICmp(e->b, LLVMIntUGT, size, jit_i64(e, UINT32_MAX), "")),
                    too_large, reserve);
    jit_position(e, too_large);
    LLVMBuildRet(e->b, jit_i32(e, FBE_TOO_LARGE));
    jit_position(e, reserve);
    LLVMValueRef st_code = jit_buffer_reserve(e, out, size);
    LLVMBasicBlockRef failed = jit_block(e, "failed");
    LLVMBasicBlockRef write = jit_block(e, "write");
    LLVMBuildCondBr(e->b, jit_unlikely(e, LLVMBuildICmp(e->b, LLVMIntNE, st_code, jit_i32(e, 0), "")),
                    failed, write);
    jit_position(e, failed);
    LLVMBuildRet(e->b, st_code);
    jit_position(e, write);
    /* fbe_buffer: data at 0, size at 8 */
    LLVMValueRef used = jit_load(e, e->i64, out, offsetof(fbe_buffer, size));
    LLVMValueRef frame = jit_gep(e, jit_load(e, e->ptr, out, offsetof(fbe_buffer, data)), used);
    jit_store(e, LLVMBuildOr(e->b, size, jit_i64(e, (uint64_t)8 << 32), ""), frame, 0);
    call_write(e, st, frame, jit_i64(e, 8), jit_i64(e, 8 + (uint64_t)st->std_body_size), value);
    jit_store(e, LLVMBuildAdd(e->b, used, size, ""), out, offsetof(fbe_buffer, size));
    LLVMBuildRet(e->b, jit_i32(e, FBE_OK));
}

bool jit_emit_std_write(jit_emit *e)
{
    for (size_t i = 0; i < e->count; i++) {
        const fbe_ir_struct *st = e->codec->types[i].ir;
        jit_struct_fns *f = &e->fns[i];
        char name[512];
        LLVMTypeRef size_params[] = {e->ptr, e->i64};
        snprintf(name, sizeof name, "std_size.%s", st->c_name);
        f->std_size = jit_declare(e, name, e->i64, size_params, 2, false);
        LLVMTypeRef write_params[] = {e->ptr, e->i64, e->i64, e->ptr};
        snprintf(name, sizeof name, "std_write.%s", st->c_name);
        f->std_write = jit_declare(e, name, e->i64, write_params, 4, false);
        jit_declare_entry(e, i, FBE_STANDARD, FBE_OP_SIZE);
        jit_declare_entry(e, i, FBE_STANDARD, FBE_OP_SERIALIZE);
    }
    for (size_t i = 0; i < e->count; i++) {
        const fbe_ir_struct *st = e->codec->types[i].ir;
        define_size(e, st, &e->fns[i]);
        define_write(e, st, &e->fns[i]);
        define_entry_size(e, st, &e->fns[i]);
        define_entry_serialize(e, st, &e->fns[i]);
    }
    return true;
}
