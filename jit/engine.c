/* fbe_jit_compile: build one LLVM module for a schema, optimize it for the target
 * CPU, hand it to an ORC LLJIT instance, and install the native entry points in
 * an interpreter codec (whatever is not compiled stays interpreted). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "emit.h"
#include "fbe/jit.h"
#include "fbe/schema.h"
#include "helpers.h"
#include "interp/program.h"

typedef struct jit_state {
    LLVMOrcLLJITRef jit;
    fbe_jit_stats stats;
} jit_state;

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

static void fatal_handler(const char *reason)
{
    fprintf(stderr, "fbe-c: LLVM fatal error: %s\n", reason);
    abort();
}

static void init_llvm(void)
{
    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
    LLVMInstallFatalErrorHandler(fatal_handler);
}

bool fbe_jit_available(void)
{
    return true;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Consumes err; reports it when FBE_JIT_DEBUG is set. Returns true if there was one. */
static bool failed(LLVMErrorRef err, const char *what)
{
    if (!err)
        return false;
    char *msg = LLVMGetErrorMessage(err);
    if (getenv("FBE_JIT_DEBUG"))
        fprintf(stderr, "fbe-c JIT: %s: %s\n", what, msg);
    LLVMDisposeErrorMessage(msg);
    return true;
}

static void destroy_jit(fbe_codec *codec)
{
    jit_state *s = codec->backend_data;
    if (s && s->jit)
        failed(LLVMOrcDisposeLLJIT(s->jit), "dispose");
    free(s);
    codec->backend_data = NULL;
}

static LLVMTargetMachineRef create_target_machine(const fbe_jit_options *opts, char **triple_out)
{
    char *triple = LLVMGetDefaultTargetTriple();
    char *err = NULL;
    LLVMTargetRef target;
    if (LLVMGetTargetFromTriple(triple, &target, &err)) {
        if (getenv("FBE_JIT_DEBUG"))
            fprintf(stderr, "fbe-c JIT: target: %s\n", err);
        LLVMDisposeMessage(err);
        LLVMDisposeMessage(triple);
        return NULL;
    }
    char *host_cpu = NULL, *host_features = NULL;
    const char *cpu = opts && opts->cpu ? opts->cpu : (host_cpu = LLVMGetHostCPUName());
    const char *features = opts && opts->features ? opts->features
                           : opts && opts->cpu    ? ""
                                                  : (host_features = LLVMGetHostCPUFeatures());
    int level = opts && opts->opt_level ? opts->opt_level : 2;
    LLVMCodeGenOptLevel cg = level <= 0   ? LLVMCodeGenLevelNone
                             : level == 1 ? LLVMCodeGenLevelLess
                             : level == 2 ? LLVMCodeGenLevelDefault
                                          : LLVMCodeGenLevelAggressive;
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, cpu, features, cg,
                                                      LLVMRelocDefault, LLVMCodeModelJITDefault);
    if (host_cpu)
        LLVMDisposeMessage(host_cpu);
    if (host_features)
        LLVMDisposeMessage(host_features);
    *triple_out = triple;
    return tm;
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

/* Lowers, optimizes and loads the module; on success installs the entry points. */
static bool compile_into(fbe_codec *codec, const fbe_jit_options *opts, jit_state *state)
{
    pthread_once(&llvm_once, init_llvm);
    double t0 = now_ms();
    char *triple = NULL;
    LLVMTargetMachineRef tm = create_target_machine(opts, &triple);
    if (!tm) {
        LLVMDisposeMessage(triple);
        return false;
    }
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    LLVMContextRef ctx = LLVMOrcThreadSafeContextGetContext(tsc);
    LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("fbe", ctx);
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(mod, dl);
    LLVMDisposeTargetData(dl);
    LLVMSetTarget(mod, triple);
    LLVMDisposeMessage(triple);

    jit_emit e;
    bool ok = jit_emit_init(&e, ctx, mod, codec) && jit_emit_std_write(&e) &&
              jit_emit_std_read(&e) && jit_emit_final(&e);
    char *msg = NULL;
    if (ok && LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg)) {
        if (getenv("FBE_JIT_DEBUG"))
            fprintf(stderr, "fbe-c JIT: invalid module: %s\n", msg);
        ok = false;
    }
    if (msg)
        LLVMDisposeMessage(msg);
    double t1 = now_ms();
    if (ok) {
        LLVMPassBuilderOptionsRef pbo = LLVMCreatePassBuilderOptions();
        int level = opts && opts->opt_level ? opts->opt_level : 2;
        char passes[32];
        snprintf(passes, sizeof passes, "default<O%d>", level < 1 ? 1 : level > 3 ? 3 : level);
        ok = !failed(LLVMRunPasses(mod, passes, tm, pbo), "passes");
        LLVMDisposePassBuilderOptions(pbo);
    }
    if (getenv("FBE_JIT_DUMP"))
        LLVMDumpModule(mod);
    double t2 = now_ms();
    if (!ok) {
        jit_emit_dispose(&e);
        LLVMDisposeModule(mod);
        LLVMOrcDisposeThreadSafeContext(tsc);
        LLVMDisposeTargetMachine(tm);
        return false;
    }

    /* The JIT compiles for exactly the CPU and features the passes used. */
    LLVMOrcJITTargetMachineBuilderRef jtmb = LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm);
    LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, jtmb);
    if (failed(LLVMOrcCreateLLJIT(&state->jit, builder), "create")) {
        state->jit = NULL;
        jit_emit_dispose(&e);
        LLVMDisposeModule(mod);
        LLVMOrcDisposeThreadSafeContext(tsc);
        return false;
    }
    ok = define_helpers(state->jit);
    LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(mod, tsc);
    LLVMOrcDisposeThreadSafeContext(tsc);
    if (ok)
        ok = !failed(LLVMOrcLLJITAddLLVMIRModule(state->jit, LLVMOrcLLJITGetMainJITDylib(state->jit), tsm),
                     "add module");
    else
        LLVMOrcDisposeThreadSafeModule(tsm);

    /* Look every entry point up before installing any: all or nothing. */
    size_t n = codec->type_count;
    fbe_model_ops *native = calloc(n * 2 + 1, sizeof *native);
    size_t functions = 0;
    for (size_t i = 0; ok && i < n; i++) {
        for (int m = 0; m < 2 && ok; m++) {
            void **slots = (void **)&native[i * 2 + (size_t)m];
            for (int op = 0; op < 4 && ok; op++) {
                if (!e.fns[i].entry[m][op])
                    continue;
                char name[512];
                jit_entry_name(codec->types[i].ir, (fbe_model)m, op, name, sizeof name);
                LLVMOrcExecutorAddress addr = 0;
                ok = !failed(LLVMOrcLLJITLookup(state->jit, &addr, name), name) && addr;
                slots[op] = (void *)(uintptr_t)addr;
                functions++;
            }
        }
    }
    jit_emit_dispose(&e);
    if (ok && native) {
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
    }
    free(native);
    double t3 = now_ms();
    state->stats = (fbe_jit_stats){t1 - t0, t2 - t1, t3 - t2, functions};
    return ok;
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
