/* One lowering for every native backend: target machines and the optimized
 * module of a codec, shared by the in-process JIT (engine.c), AOT objects
 * (aot.c) and the compiled-object cache. */
#ifndef FBE_JIT_MODULE_H
#define FBE_JIT_MODULE_H

#include <stdbool.h>
#include <stddef.h>

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/TargetMachine.h>

#include "emit.h"

/* LLVM set-up, once per process: the host target (JIT) or every target LLVM was
 * built with (AOT cross-compilation). Thread-safe. */
void jit_init_native(void);
void jit_init_all_targets(void);

/* A codec's code comes in six independent units (no function of one calls
 * another's): the JIT compiles and installs them separately, in parallel or in
 * the background, in the order they are needed (engine.c). Verify and
 * deserialize are units of their own: a program (fbec verify, fbec convert)
 * that uses one compiles only that, and two threads share the reading side. */
enum {
    JIT_UNIT_STD_WRITE,    /* standard size, serialize */
    JIT_UNIT_STD_VERIFY,   /* standard verify */
    JIT_UNIT_STD_READ,     /* standard deserialize */
    JIT_UNIT_FINAL_WRITE,  /* final size, serialize */
    JIT_UNIT_FINAL_VERIFY, /* final verify */
    JIT_UNIT_FINAL_READ,   /* final deserialize */
    JIT_UNIT_COUNT
};
#define JIT_UNIT(u) (1u << (u))
#define JIT_ALL_UNITS ((1u << JIT_UNIT_COUNT) - 1)

/* The unit of an entry point (its fbe_op). */
static inline int jit_unit_of(fbe_model model, fbe_op op)
{
    int write = model == FBE_FINAL ? JIT_UNIT_FINAL_WRITE : JIT_UNIT_STD_WRITE;
    return write + (op == FBE_OP_VERIFY ? 1 : op == FBE_OP_DESERIALIZE ? 2 : 0);
}

/* The model of unit u and its operations, [*first, *last]. */
static inline fbe_model jit_unit_ops(int u, fbe_op *first, fbe_op *last)
{
    int k = u % 3;
    *first = k == 0 ? FBE_OP_SIZE : k == 1 ? FBE_OP_VERIFY : FBE_OP_DESERIALIZE;
    *last = k == 0 ? FBE_OP_SERIALIZE : *first;
    return u >= JIT_UNIT_FINAL_WRITE ? FBE_FINAL : FBE_STANDARD;
}

/* How many entry points per type unit u has. */
static inline size_t jit_unit_op_count(int u)
{
    fbe_op first, last;
    jit_unit_ops(u, &first, &last);
    return (size_t)last - (size_t)first + 1;
}

/* The entry points of FBE_JIT_MODEL bits and FBE_JIT_*_OF bits (0: all), one
 * bit each: JIT_ENTRY_OP(model, op) (emit.h). */
unsigned jit_entry_ops_of(unsigned models, unsigned parts);

/* The units that hold the entry points of JIT_ENTRY_OP bits `ops`, and of those
 * the ones unit u holds. */
unsigned jit_units_of(unsigned ops);
unsigned jit_unit_entry_ops(int u, unsigned ops);

typedef struct jit_target {
    const char *triple;   /* NULL: the host's */
    const char *cpu;      /* NULL: the host CPU */
    const char *features; /* NULL: the host's features when cpu is NULL, else none */
    int opt_level;        /* 0..3, 0 = 2 */
    bool object;          /* position-independent code for an object file (AOT,
                             cache) instead of the JIT's defaults */
} jit_target;

/* NULL on failure (message in err). *triple_out receives the normalized triple
 * (free with LLVMDisposeMessage); cpu_out/features_out (may be NULL) the values
 * used (same). */
LLVMTargetMachineRef jit_target_machine(const jit_target *t, char **triple_out, char **cpu_out,
                                        char **features_out, char *err, size_t err_size);

/* The two halves of jit_target_machine: the normalized triple, CPU and
 * features (all three set on success, free with LLVMDisposeMessage), and a
 * target machine for them. Creating the machine costs ~1 ms; a cached object
 * needs only the names. */
bool jit_target_names(const jit_target *t, char **triple_out, char **cpu_out,
                      char **features_out, char *err, size_t err_size);
LLVMTargetMachineRef jit_target_machine_for(const jit_target *t, const char *triple,
                                            const char *cpu, const char *features, char *err,
                                            size_t err_size);

/* Called around the emitters: `before` after jit_emit_init (install a host_ptr
 * hook, emit data), `after` once every emitter ran (export tables). Either may be
 * NULL; returning false fails the build (message in err). */
typedef struct jit_module_hooks {
    bool (*before)(jit_emit *e, void *ctx, char *err, size_t err_size);
    bool (*after)(jit_emit *e, void *ctx, char *err, size_t err_size);
    void *ctx;
} jit_module_hooks;

typedef struct jit_module {
    LLVMModuleRef mod; /* in the context given to jit_module_build */
    jit_emit e;        /* e.fns names the entry points; jit_module_dispose frees it */
    double lower_ms;   /* emitters + verification */
    double optimize_ms;
} jit_module;

/* Lowers every struct of `codec` (the units in `units`, JIT_UNIT bits; 0 =
 * all), verifies the module and optimizes it with
 * default<O{opt_level}> for `tm`. On failure everything is released and false
 * returned (message in err). On success the caller owns m->mod (or hands it to
 * ORC) and calls jit_module_dispose() for the rest. */
bool jit_module_build(jit_module *m, LLVMContextRef ctx, LLVMTargetMachineRef tm,
                      const fbe_codec *codec, unsigned units, int opt_level,
                      const jit_module_hooks *hooks, char *err, size_t err_size);
void jit_module_dispose(jit_module *m);

/* The two halves of jit_module_build: lowering + verification, then the passes
 * (the compiled-object cache hashes the module in between). Same ownership
 * rules: on failure everything is released. */
bool jit_module_lower(jit_module *m, LLVMContextRef ctx, LLVMTargetMachineRef tm,
                      const fbe_codec *codec, unsigned units, const jit_module_hooks *hooks,
                      char *err, size_t err_size);
bool jit_module_optimize(jit_module *m, LLVMTargetMachineRef tm, int opt_level, char *err,
                         size_t err_size);

/* What jit_module_optimize does before the passes: deletes internal functions
 * nothing calls, and marks alwaysinline an internal function called from one
 * place, unless it or the call is noinline or optnone, the call is marked
 * alwaysinline already, or the call is in the function itself (module.c). */
void jit_inline_single_calls(LLVMModuleRef mod);

/* The pass pipeline of jit_module_optimize (opt's syntax; FBE_JIT_PASSES
 * replaces it, to measure other choices) and the LLVM options set once per
 * process: both shape the code, so the object cache's key includes them. */
void jit_pass_pipeline(int opt_level, char *buf, size_t size);
const char *jit_llvm_args(void);

/* Consumes err; writes its message to buf (may be NULL) and, when FBE_JIT_DEBUG
 * is set, to stderr. Returns true if there was an error. */
bool jit_failed(LLVMErrorRef err, const char *what, char *buf, size_t size);

double jit_now_ms(void);

/* Compiles a tiny module through the passes and code generation once per
 * process (thread-safe): LLVM constructs its function-local statics on first
 * use and registers their destructors then, so after this call a compilation
 * creates (almost) none whose destruction at exit could come before the JIT's
 * wait for its compile threads (engine.c). */
void jit_warm_up(void);

#endif
