/* fbe_jit_compile: build one LLVM module for a schema (module.c), optimize it for
 * the target CPU, hand it to an ORC LLJIT instance, and install the native entry
 * points in an interpreter codec (whatever is not compiled stays interpreted).
 * With a cache directory the module becomes a position-independent object that
 * is kept and reloaded by later compilations (cache.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/TargetMachine.h>

#include "cache.h"
#include "emit.h"
#include "fbe/jit.h"
#include "fbe/schema.h"
#include "helpers.h"
#include "interp/program.h"
#include "module.h"

typedef struct jit_state {
    LLVMOrcLLJITRef jit;
    fbe_jit_stats stats;
} jit_state;

bool fbe_jit_available(void)
{
    return true;
}

static bool failed(LLVMErrorRef err, const char *what)
{
    return jit_failed(err, what, NULL, 0);
}

static void destroy_jit(fbe_codec *codec)
{
    jit_state *s = codec->backend_data;
    if (s && s->jit)
        failed(LLVMOrcDisposeLLJIT(s->jit), "dispose");
    free(s);
    codec->backend_data = NULL;
}

static bool define_helpers(LLVMOrcLLJITRef jit)
{
    const jit_helper *helpers;
    size_t n = jit_helpers(&helpers);
    LLVMOrcCSymbolMapPair *pairs = calloc(n, sizeof *pairs);
    if (!pairs)
        return false;
    for (size_t i = 0; i < n; i++) {
        pairs[i].Name = LLVMOrcLLJITMangleAndIntern(jit, helpers[i].name);
        pairs[i].Sym.Address = (LLVMOrcExecutorAddress)helpers[i].address;
        pairs[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
        pairs[i].Sym.Flags.TargetFlags = 0;
    }
    LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, n);
    free(pairs);
    return !failed(LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(jit), mu), "helpers");
}

/* An LLJIT for exactly the CPU and features of tm (which it takes), with the
 * runtime helpers defined. */
static bool create_jit(jit_state *state, LLVMTargetMachineRef tm)
{
    LLVMOrcJITTargetMachineBuilderRef jtmb = LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm);
    LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, jtmb);
    if (failed(LLVMOrcCreateLLJIT(&state->jit, builder), "create")) {
        state->jit = NULL;
        return false;
    }
    return define_helpers(state->jit);
}

/* Looks every entry point of e up, then installs them all (or none). Returns
 * the number installed, or -1. */
static long install_entries(fbe_codec *codec, jit_state *state, const jit_emit *e)
{
    size_t n = codec->type_count;
    fbe_model_ops *native = calloc(n * 2 + 1, sizeof *native);
    bool ok = native != NULL;
    long functions = 0;
    for (size_t i = 0; ok && i < n; i++) {
        for (int m = 0; m < 2 && ok; m++) {
            void **slots = (void **)&native[i * 2 + (size_t)m];
            for (int op = 0; op < 4 && ok; op++) {
                if (!e->fns[i].entry[m][op])
                    continue;
                char name[JIT_ENTRY_NAME_MAX];
                jit_entry_name(e, i, (fbe_model)m, op, name);
                LLVMOrcExecutorAddress addr = 0;
                ok = !failed(LLVMOrcLLJITLookup(state->jit, &addr, name), name) && addr;
                slots[op] = (void *)(uintptr_t)addr;
                functions++;
            }
        }
    }
    if (ok) {
        for (size_t i = 0; i < n; i++) {
            for (int m = 0; m < 2; m++) {
                fbe_model_ops *ops = &codec->types[i].ops[m];
                const fbe_model_ops *nat = &native[i * 2 + (size_t)m];
                if (nat->size)
                    ops->size = nat->size;
                if (nat->serialize)
                    ops->serialize = nat->serialize;
                if (nat->verify)
                    ops->verify = nat->verify;
                if (nat->deserialize)
                    ops->deserialize = nat->deserialize;
            }
        }
        ok = fbe_codec_guard_depth(codec);
    }
    free(native);
    return ok ? functions : -1;
}

/* Lowers, optimizes and loads the module; on success installs the entry points. */
static bool compile_direct(fbe_codec *codec, const fbe_jit_options *opts, jit_state *state)
{
    double t0 = jit_now_ms();
    jit_target target = {
        .cpu = opts ? opts->cpu : NULL,
        .features = opts ? opts->features : NULL,
        .opt_level = opts ? opts->opt_level : 0,
    };
    LLVMTargetMachineRef tm = jit_target_machine(&target, NULL, NULL, NULL, NULL, 0);
    if (!tm)
        return false;
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    LLVMContextRef ctx = LLVMOrcThreadSafeContextGetContext(tsc);
    jit_module jm;
    if (!jit_module_build(&jm, ctx, tm, codec, opts ? opts->models : 0, target.opt_level, NULL,
                          NULL, 0)) {
        LLVMOrcDisposeThreadSafeContext(tsc);
        LLVMDisposeTargetMachine(tm);
        return false;
    }
    double t2 = jit_now_ms();
    LLVMModuleRef mod = jm.mod;
    if (!create_jit(state, tm)) {
        jit_module_dispose(&jm);
        LLVMDisposeModule(mod);
        LLVMOrcDisposeThreadSafeContext(tsc);
        return false;
    }
    LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(mod, tsc);
    LLVMOrcDisposeThreadSafeContext(tsc);
    bool ok = !failed(LLVMOrcLLJITAddLLVMIRModule(state->jit, LLVMOrcLLJITGetMainJITDylib(state->jit),
                                                  tsm),
                      "add module");
    long functions = ok ? install_entries(codec, state, &jm.e) : -1;
    jit_module_dispose(&jm);
    double t3 = jit_now_ms();
    state->stats = (fbe_jit_stats){t2 - t0 - jm.optimize_ms, jm.optimize_ms, t3 - t2,
                                   functions < 0 ? 0 : (size_t)functions, false};
    return functions >= 0;
}

static bool install_symbolic_ir(jit_emit *e, void *ctx, char *err, size_t size)
{
    (void)ctx;
    (void)err;
    (void)size;
    e->host_ptr = jit_cache_host_ptr;
    return true;
}

/* With opts->cache_dir: the module refers to the IR by symbol (cache.h) and is
 * compiled to a position-independent object, which is what gets loaded, whether
 * just generated or found in the cache. 1: done, 0: failed, -1: a cached object
 * could not be loaded (it was removed; compile again). */
static int compile_cached(fbe_codec *codec, const fbe_jit_options *opts, jit_state *state,
                          bool use_cached)
{
    double t0 = jit_now_ms();
    jit_target target = {
        .cpu = opts->cpu,
        .features = opts->features,
        .opt_level = opts->opt_level,
        .object = true,
    };
    char *triple = NULL, *cpu = NULL, *features = NULL;
    LLVMTargetMachineRef tm = jit_target_machine(&target, &triple, &cpu, &features, NULL, 0);
    if (!tm)
        return 0;
    LLVMContextRef ctx = LLVMContextCreate();
    jit_module jm;
    jit_module_hooks hooks = {.before = install_symbolic_ir};
    bool ok = jit_module_lower(&jm, ctx, tm, codec, opts->models, &hooks, NULL, 0);
    jit_cache_key key;
    if (ok)
        jit_cache_key_of(jm.mod, triple, cpu, features, opts->opt_level, &key);
    LLVMDisposeMessage(triple);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);
    double t1 = jit_now_ms();
    LLVMMemoryBufferRef obj = ok && use_cached ? jit_cache_load(opts->cache_dir, &key) : NULL;
    bool hit = obj != NULL;
    double optimize_ms = 0;
    if (ok && !hit) {
        ok = jit_module_optimize(&jm, tm, opts->opt_level, NULL, 0);
        optimize_ms = ok ? jm.optimize_ms : 0;
        char *msg = NULL;
        if (ok && LLVMTargetMachineEmitToMemoryBuffer(tm, jm.mod, LLVMObjectFile, &msg, &obj)) {
            if (getenv("FBE_JIT_DEBUG"))
                fprintf(stderr, "fbe-c JIT: codegen: %s\n", msg ? msg : "");
            obj = NULL;
            ok = false;
        }
        if (msg)
            LLVMDisposeMessage(msg);
        if (ok && !jit_cache_store(opts->cache_dir, &key, LLVMGetBufferStart(obj),
                                   LLVMGetBufferSize(obj)) &&
            getenv("FBE_JIT_DEBUG"))
            fprintf(stderr, "fbe-c JIT: cannot write the cache in %s\n", opts->cache_dir);
    }
    if (!ok) {
        if (jm.mod) { /* lowered and optimized, code generation failed */
            jit_module_dispose(&jm);
            LLVMDisposeModule(jm.mod);
        }
        LLVMContextDispose(ctx);
        LLVMDisposeTargetMachine(tm);
        return 0;
    }
    LLVMDisposeModule(jm.mod); /* only e.fns (entry names) is used from here on */
    jm.mod = NULL;
    ok = create_jit(state, tm) && jit_cache_define_ir(state->jit, codec);
    if (ok)
        ok = !failed(LLVMOrcLLJITAddObjectFile(state->jit, LLVMOrcLLJITGetMainJITDylib(state->jit), obj),
                     "add object");
    else
        LLVMDisposeMemoryBuffer(obj);
    long functions = ok ? install_entries(codec, state, &jm.e) : -1;
    jit_module_dispose(&jm);
    LLVMContextDispose(ctx);
    if (functions < 0) {
        if (state->jit)
            failed(LLVMOrcDisposeLLJIT(state->jit), "dispose");
        state->jit = NULL;
        if (hit) {
            jit_cache_remove(opts->cache_dir, &key);
            return -1;
        }
        return 0;
    }
    state->stats = (fbe_jit_stats){t1 - t0, optimize_ms, jit_now_ms() - t1 - optimize_ms,
                                   (size_t)functions, hit};
    return 1;
}

static bool compile_into(fbe_codec *codec, const fbe_jit_options *opts, jit_state *state)
{
    jit_init_native();
    if (!opts || !opts->cache_dir)
        return compile_direct(codec, opts, state);
    int r = compile_cached(codec, opts, state, true);
    if (r < 0)
        r = compile_cached(codec, opts, state, false);
    return r > 0;
}

fbe_codec *fbe_jit_compile(const fbe_schema *schema, const fbe_jit_options *opts,
                           fbe_status *status)
{
    fbe_codec_options copts = {.max_depth = opts ? opts->max_depth : 0};
    fbe_codec *codec = fbe_interp_create(schema, &copts, status);
    if (!codec)
        return NULL;
    jit_state *state = calloc(1, sizeof *state);
    if (!state) {
        fbe_codec_free(codec);
        if (status)
            *status = FBE_NOMEM;
        return NULL;
    }
    codec->backend_data = state;
    codec->destroy_backend = destroy_jit;
    if (!compile_into(codec, opts, state)) {
        fbe_codec_free(codec);
        if (opts && opts->require_native) {
            if (status)
                *status = FBE_UNSUPPORTED;
            return NULL;
        }
        /* Fallback: a fresh interpreter codec (the failed one may have been
         * partly patched). */
        return fbe_interp_create(schema, &copts, status);
    }
    codec->backend = FBE_BACKEND_JIT;
    if (status)
        *status = FBE_OK;
    return codec;
}

fbe_jit_stats fbe_jit_codec_stats(const fbe_codec *codec)
{
    if (codec->backend != FBE_BACKEND_JIT || !codec->backend_data)
        return (fbe_jit_stats){0};
    return ((const jit_state *)codec->backend_data)->stats;
}
