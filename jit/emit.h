/* Shared machinery for lowering the IR to LLVM IR through the C API: one module
 * per codec, one set of functions per struct and model. Emitters keep mutable
 * state (allocation cursors, loop indices) in allocas and let SROA/mem2reg build
 * the SSA form: simpler emitters, same machine code. */
#ifndef FBE_JIT_EMIT_H
#define FBE_JIT_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>

#include "fbe/aot.h"
#include "fbe/codec.h"

/* The functions of one struct type. Internal ones take host pointers and wire
 * positions; the entry points have exactly the fbe_*_fn signatures. */
typedef struct jit_struct_fns {
    /* standard model */
    LLVMValueRef std_size;     /* i64 (ptr value): body + all extras */
    LLVMValueRef std_write;    /* i64 (ptr data, i64 body, i64 end, ptr value) -> new end */
    LLVMValueRef std_verify;   /* emit_std_read.c */
    LLVMValueRef std_read;     /* emit_std_read.c */
    /* final model */
    LLVMValueRef final_size;
    LLVMValueRef final_write;
    LLVMValueRef final_verify;
    LLVMValueRef final_read;
    /* entry points (external names, looked up after compilation) */
    LLVMValueRef entry[2][4];  /* [model][0 size, 1 serialize, 2 verify, 3 deserialize] */
} jit_struct_fns;

/* Operations are fbe_op (fbe/aot.h), which also indexes entry[model][op]. */

/* An entry point's operation as one bit of a mask (jit_emit.entry_ops). */
#define JIT_ENTRY_OP(model, op) (1u << ((unsigned)(model) * 4 + (unsigned)(op)))

typedef struct jit_emit {
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    LLVMTypeRef void_t, i1, i8, i16, i32, i64, ptr;

    const fbe_codec *codec; /* types[i].ir is the struct of fns[i] */
    jit_struct_fns *fns;
    size_t count;

    /* Runtime functions the generated code calls (see jit/helpers.c). */
    LLVMValueRef fn_buffer_reserve; /* i32 (ptr buffer, i64 extra) */
    LLVMTypeRef fn_buffer_reserve_t;
    LLVMValueRef fn_memcpy;         /* llvm.memcpy.p0.p0.i64 */
    LLVMTypeRef fn_memcpy_t;
    LLVMValueRef fn_memset;         /* llvm.memset.p0.i64 */
    LLVMTypeRef fn_memset_t;

    LLVMValueRef fn;                /* function being emitted */
    LLVMBasicBlockRef entry_block;

    /* How jit_host_ptr() refers to host IR objects. NULL: by absolute address
     * (in-process JIT). AOT objects install a hook returning the module constant
     * that mirrors the object (jit/image.c), or NULL when there is none: then
     * jit_host_ptr() records the pointer in host_ptr_missing, returns a null
     * pointer and the caller must fail the emission. */
    LLVMValueRef (*host_ptr)(struct jit_emit *e, const void *p);
    /* Entry points get exported names (AOT objects), see jit_entry_name. */
    bool export_names;
    /* The codec's fbe_type objects exist only at run time (AOT objects: the
     * codec is made from the image when the program runs), so code cannot
     * name them as constants (jit_verify_bail_block takes the call's own). */
    bool types_at_run_time;
    /* In-process names carry it when > 0: a unit compiled again after its first
     * object failed to link (the JIT keeps the failed symbols) gets new names. */
    unsigned generation;
    /* [type] 1 for the types whose entry points are emitted; NULL: every type.
     * The bodies of the others are still lowered where a selected type holds
     * them; those no entry reaches are internal and unused, and LLVM's first
     * module passes delete them. */
    const uint8_t *entry_types;
    /* JIT_ENTRY_OP bits of the operations whose entry points are
     * emitted; 0: all (a write unit asked for serialize alone leaves out size). */
    unsigned entry_ops;
    /* The first entry point name LLVM had to rename (two structs with one
     * exported name); empty if none. */
    char name_clash[FBE_IR_MAX_SYMBOL + 32];
    void *host_ptr_ctx;
    const void *host_ptr_missing;
    /* An allocation of the lowering failed: the functions are still well
     * formed (unchunked, or returning NOMEM), and the module is refused. */
    bool out_of_memory;
    /* jit_handler: the handler bitcode is linked into mod; it could not be, or
     * lacked a handler asked for (the module is refused). */
    bool handlers_linked, handlers_failed;
} jit_emit;

/* ---- functions and blocks ---- */

/* Creates `name` (internal unless `external`) and positions at its entry block. */
LLVMValueRef jit_begin_function(jit_emit *e, LLVMValueRef fn);
LLVMValueRef jit_declare(jit_emit *e, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                         unsigned n, bool external);
/* Adds the enum attribute `name` (e.g. "cold", "noinline") to a function. */
void jit_fn_attr(jit_emit *e, LLVMValueRef fn, const char *name);
/* The handler fbe_jit_h_<name> of jit/handlers.c (a static_c.h rule), its
 * function type in *type: the first call links the handler bitcode into the
 * module (jit/handlers_link.c). Calls to it are inlined and folded. */
LLVMValueRef jit_handler(jit_emit *e, const char *name, LLVMTypeRef *type);
/* A call to the handler fbe_jit_h_<name> with n arguments (jit_handler). */
LLVMValueRef jit_call_handler(jit_emit *e, const char *name, LLVMValueRef *args, unsigned n);
/* Links bitcode into e->mod as jit_handler does with the handlers' (exposed for
 * tests): false when LLVM refuses it, without exiting the process. */
bool jit_link_bitcode(jit_emit *e, const unsigned char *bc, size_t size);
/* Declares a runtime function native code calls on a cold path (jit/helpers.c
 * gives its address; an AOT object links it from fbe_runtime). */
LLVMValueRef jit_runtime_fn(jit_emit *e, const char *name, LLVMTypeRef type);
LLVMBasicBlockRef jit_block(jit_emit *e, const char *name);
void jit_position(jit_emit *e, LLVMBasicBlockRef bb);
/* if (cond) goto bb, marked unlikely; the builder goes on in a new block. */
void jit_goto_if(jit_emit *e, LLVMValueRef cond, LLVMBasicBlockRef bb);
/* A block of the entry point being emitted (model, op: verify or deserialize;
 * NULL for the others) that hands the whole call, its arguments as they came,
 * to the interpreter's entry point and returns its result, which is the answer
 * by definition (the codec's interpreter in process, the image's in an AOT
 * object: the type's program either way). The entry's fast path tests what
 * a valid frame of a current writer satisfies; what fails before the first
 * host byte is written or failure is reported (bad arguments, the frame's
 * checks, the root's reference, a call's depth limit the code cannot stand
 * for) goes there, so the entry points carry no code of their own for it
 * (docs/jit.md, "What the lowering specialises"). */
LLVMBasicBlockRef jit_delegate_block(jit_emit *e, fbe_model model, fbe_op op);
/* Verify: where a failure found in the root body goes (the verify functions
 * report nothing and compute no status: any negative result), a block calling
 * the interpreter's verify of the same frame, which finds and reports it. Its
 * arguments are rebuilt from what the body keeps live anyway, so that none of
 * the call's own has to survive the body in a register: the type is st's (the
 * call's own where types_at_run_time), the size the frame's (`frame_size`: its
 * header passed, the interpreter's checks stay within it), the options a copy
 * holding the depth limit in force, `max_depth` (i32; verify reads nothing
 * else), or none when max_depth is NULL: where the codec's limit gives the same
 * result. */
LLVMBasicBlockRef jit_verify_bail_block(jit_emit *e, fbe_model model, const fbe_ir_struct *st,
                                        LLVMValueRef data, LLVMValueRef frame_size,
                                        LLVMValueRef info, LLVMValueRef max_depth);

/* Deserialize: where a failure found in the root body goes (the read
 * functions zero nothing and compute no status: any negative result). `ptr` is
 * arena->ptr as the entry read it; the call's decode budget (`budget`,
 * fbe/arena.h) records the rest of where the call found the arena when it
 * first needs a chunk. The block returns the arena there
 * (fbe_native_arena_rewind) and hands the call, its arguments as they came, to
 * the interpreter's deserialize, whose result is the answer: the value,
 * consumed and the arena end as a lone interpreter call leaves them. */
LLVMBasicBlockRef jit_read_bail_block(jit_emit *e, fbe_model model, LLVMValueRef arena,
                                      LLVMValueRef budget, LLVMValueRef ptr);

/* A stack slot in the entry block (promoted to SSA by the optimizer). */
LLVMValueRef jit_alloca(jit_emit *e, LLVMTypeRef t, const char *name);

/* ---- values ---- */
LLVMValueRef jit_i64(jit_emit *e, uint64_t v);
LLVMValueRef jit_i32(jit_emit *e, uint32_t v);
LLVMValueRef jit_i8(jit_emit *e, uint8_t v);
/* A host address known at compile time: IR structs and fields (error reports,
 * defaults). With a host_ptr hook (AOT) only those may be passed; NULL gives a
 * null pointer. */
LLVMValueRef jit_host_ptr(jit_emit *e, const void *p);

/* base + offset (bytes). */
LLVMValueRef jit_gep(jit_emit *e, LLVMValueRef base, LLVMValueRef offset);
LLVMValueRef jit_gep_c(jit_emit *e, LLVMValueRef base, uint64_t offset);

/* Unaligned load/store of an integer/pointer type at base + offset. */
LLVMValueRef jit_load(jit_emit *e, LLVMTypeRef t, LLVMValueRef base, uint64_t offset);
void jit_store(jit_emit *e, LLVMValueRef v, LLVMValueRef base, uint64_t offset);
LLVMValueRef jit_load_at(jit_emit *e, LLVMTypeRef t, LLVMValueRef base, LLVMValueRef offset);
void jit_store_at(jit_emit *e, LLVMValueRef v, LLVMValueRef base, LLVMValueRef offset);

void jit_memcpy(jit_emit *e, LLVMValueRef dst, LLVMValueRef src, LLVMValueRef len);
void jit_memset(jit_emit *e, LLVMValueRef dst, uint8_t byte, LLVMValueRef len);

/* Integer type of a scalar's wire width (1, 2, 4, 8, 16 bytes). */
LLVMTypeRef jit_int_type(jit_emit *e, uint32_t bytes);

/* ---- structured control flow ---- */

typedef struct jit_loop {
    LLVMValueRef index;     /* alloca i64 */
    LLVMValueRef count;
    LLVMBasicBlockRef head, body, done;
} jit_loop;

/* for (i = 0; i < count; i++) { ... }: the body is emitted between begin and end;
 * jit_loop_index() reads i inside it. */
void jit_loop_begin(jit_emit *e, jit_loop *loop, LLVMValueRef count);
/* The same, also ending once the i64 in `slot` reaches `limit` (checked before
 * each iteration; slot NULL: never). */
void jit_loop_begin_below(jit_emit *e, jit_loop *loop, LLVMValueRef count, LLVMValueRef slot,
                          uint64_t limit);
LLVMValueRef jit_loop_index(jit_emit *e, jit_loop *loop);
void jit_loop_end(jit_emit *e, jit_loop *loop);

typedef struct jit_if {
    LLVMBasicBlockRef then_bb, else_bb, done;
    bool has_else;
} jit_if;

void jit_if_begin(jit_emit *e, jit_if *c, LLVMValueRef cond);
void jit_if_else(jit_emit *e, jit_if *c);
void jit_if_end(jit_emit *e, jit_if *c);

/* Branch weights: mark `cond` as unlikely (error paths). */
LLVMValueRef jit_unlikely(jit_emit *e, LLVMValueRef cond);

/* A two-way phi at the insertion point: a when coming from from_a, b from from_b. */
LLVMValueRef jit_phi2(jit_emit *e, LLVMTypeRef t, LLVMValueRef a, LLVMBasicBlockRef from_a,
                      LLVMValueRef b, LLVMBasicBlockRef from_b);

/* The nesting limit of one verify/deserialize call, an i32 >= 1: options->max_depth
 * when options is not NULL and it is not 0, else the codec's limit (the
 * interpreter's rule), read at run time so that no limit is compiled in.
 * `may_be_null`: options can be NULL (verify); deserialize has checked it. */
LLVMValueRef jit_depth_limit(jit_emit *e, LLVMValueRef options, bool may_be_null);

/* fbe_buffer_reserve(out, extra) as an i32 status, with the common case (the
 * buffer already has the room) inline: a reused output buffer then costs a
 * compare instead of a call. */
LLVMValueRef jit_buffer_reserve(jit_emit *e, LLVMValueRef out, LLVMValueRef extra);

/* ---- module setup ---- */
bool jit_emit_init(jit_emit *e, LLVMContextRef ctx, LLVMModuleRef mod, const fbe_codec *codec);
void jit_emit_dispose(jit_emit *e);

/* Emitters, one file per operation family. Each fills its fns[] slots and
 * entry points for every struct; false on failure. */
bool jit_emit_std_write(jit_emit *e);
bool jit_emit_std_read(jit_emit *e, bool verify, bool read);
/* Size and serialize, verify, deserialize are independent: a module can hold
 * any of them (the units, module.h). */
bool jit_emit_final(jit_emit *e, bool write, bool verify, bool read);

/* Large structs: LLVM's passes and code generator cost more than linearly in
 * a function's size, so a struct of more than min_fields fields (default 256;
 * no golden type comes near) has its reading side (standard and final verify,
 * deserialize) and its standard size and serialize lowered as a tree of
 * functions: leaves of at most `fields` consecutive fields (default 64),
 * inner nodes calling at most `fields` children in field order. `fields` < 2
 * turns this off. Tests change it (the lowering's shape, chunks on small
 * structs) while nothing compiles. */
typedef struct jit_chunking {
    size_t min_fields, fields;
    size_t write_fields; /* the same for the standard model's size and serialize
                            (default 16, see emit_std_write.c) */
    size_t write_loops;  /* ... which are also chunked past this many fields
                            that loop over elements (default 4) */
} jit_chunking;
extern jit_chunking jit_chunks;

/* A chunk function for fields [lo, hi) of st: `what`.<c_name>.<lo>-<hi>, of
 * type `type`, internal and noinline (inlined back, the chunks would make the
 * one large function again). */
LLVMValueRef jit_chunk_fn(jit_emit *e, LLVMTypeRef type, const char *what, const fbe_ir_struct *st,
                          size_t lo, size_t hi);

/* Whether the writing side (size, serialize) of fields [lo, n) of st is
 * lowered as a tree of chunks of at most write_fields fields (emit.c). */
bool jit_write_chunked(const fbe_ir_struct *st, size_t lo);

/* The fields of each child of chunk node [lo, hi): a power of `per` (a leaf's
 * fields, jit_chunks.fields or .write_fields) such that there are at most
 * `per` children. */
size_t jit_chunk_span(size_t lo, size_t hi, size_t per);

/* Index of a struct in fns[] (by IR pointer: the codec's type index); SIZE_MAX
 * if it is not there. */
size_t jit_struct_index(const jit_emit *e, const fbe_ir_struct *st);
/* *consumed = v when consumed (a deserialize entry's last argument) is not NULL. */
void jit_store_consumed(jit_emit *e, LLVMValueRef consumed, LLVMValueRef v);
/* A deserialize entry's decode budget (fbe_decode_budget at `memory`): no cap
 * yet, the options' max_memory, `input` bytes of frame. */
void jit_init_decode_budget(jit_emit *e, LLVMValueRef memory, LLVMValueRef options,
                            LLVMValueRef input);
/* The functions of struct st (it must be in fns[]). */
jit_struct_fns *jit_fns_of(jit_emit *e, const fbe_ir_struct *st);

/* Inherited fields are lowered once, in the base's functions: a derived struct's
 * functions call its base's for fields [0, n) and emit only their own (a chain
 * of N levels costs N times its fields, not N^2/2). n is the base's field count
 * (its fields are st's first ones, at the same standard and host offsets), or
 * 0 when st has no base with fields in this codec. Each emitter may decline
 * (e.g. a base whose code assumes complete bodies) and copy the fields instead. */
size_t jit_inherited(const jit_emit *e, const fbe_ir_struct *st);

/* Symbol of an entry point. AOT objects (export_names) export
 * fbe_<c_name>_<std|final>_<op>, c_name being bounded (fbe_ir_symbol_name); an
 * in-process module names entry point i fbe.<i>.<model>.<op> (fbe.r<g>.<i>... in
 * generation g > 0), which no two structs can share whatever their names. */
enum { JIT_ENTRY_NAME_MAX = FBE_IR_MAX_SYMBOL + 32 };
void jit_entry_name(const jit_emit *e, size_t index, fbe_model model, fbe_op op,
                    char buf[JIT_ENTRY_NAME_MAX]);
/* Declares entry point `op` of struct `index`, with the signature of its
 * fbe_*_fn type (fbe/codec.h: the one place the entry ABI is spelled in LLVM
 * types), and records it in fns; a name another function already has is
 * recorded in name_clash (the module then fails to build). */
LLVMValueRef jit_declare_entry(jit_emit *e, size_t index, fbe_model model, fbe_op op);

#endif
