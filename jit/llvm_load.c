/* Loading libLLVM at run time (see llvm.h). */
#define _POSIX_C_SOURCE 200809L
#define JIT_LLVM_NO_REDIRECT
#include "llvm.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm/Config/llvm-config.h>

#ifndef FBE_LLVM_LIBRARY
#error "FBE_LLVM_LIBRARY: the path of libLLVM's shared library (set by CMakeLists.txt)"
#endif

jit_llvm_api jit_llvm;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static bool loaded;
static char load_error[512];
static void *library;

static const char *library_path(void)
{
    const char *path = getenv("FBE_LLVM_LIBRARY");
    return path && *path ? path : FBE_LLVM_LIBRARY;
}

/* A symbol's address as a function pointer (POSIX: dlsym's void * converts). */
static bool symbol(const char *name, void *fn_ptr, size_t size)
{
    void *p = dlsym(library, name);
    if (!p) {
        snprintf(load_error, sizeof load_error, "%s has no %s", library_path(), name);
        return false;
    }
    memcpy(fn_ptr, &p, size);
    return true;
}

static void load(void)
{
    library = dlopen(library_path(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load libLLVM (%s)",
                 why ? why : library_path());
        return;
    }
#define JIT_LLVM_RESOLVE(f)                              \
    if (!symbol(#f, &jit_llvm.f, sizeof jit_llvm.f))      \
        return;
    JIT_LLVM_FUNCTIONS(JIT_LLVM_RESOLVE)
#undef JIT_LLVM_RESOLVE
    loaded = true;
}

bool jit_llvm_load(void)
{
    pthread_once(&load_once, load);
    return loaded;
}

const char *jit_llvm_error(void)
{
    return loaded ? "" : load_error;
}

/* Calls LLVM's void initializer `name` (each target's, named as Target.h names them). */
static void call_initializer(const char *name)
{
    void (*init)(void) = NULL;
    if (symbol(name, &init, sizeof init))
        init();
}

#define JIT_STR_(x) #x
#define JIT_STR(x) JIT_STR_(x)

void jit_llvm_init_native_target(void)
{
    call_initializer(JIT_STR(LLVM_NATIVE_TARGETINFO));
    call_initializer(JIT_STR(LLVM_NATIVE_TARGET));
    call_initializer(JIT_STR(LLVM_NATIVE_TARGETMC));
    call_initializer(JIT_STR(LLVM_NATIVE_ASMPRINTER));
}

void jit_llvm_init_all_targets(void)
{
#define LLVM_TARGET(t) call_initializer("LLVMInitialize" #t "TargetInfo");
#include <llvm/Config/Targets.def>
#undef LLVM_TARGET
#define LLVM_TARGET(t) call_initializer("LLVMInitialize" #t "Target");
#include <llvm/Config/Targets.def>
#undef LLVM_TARGET
#define LLVM_TARGET(t) call_initializer("LLVMInitialize" #t "TargetMC");
#include <llvm/Config/Targets.def>
#undef LLVM_TARGET
#define LLVM_ASM_PRINTER(t) call_initializer("LLVMInitialize" #t "AsmPrinter");
#include <llvm/Config/AsmPrinters.def>
#undef LLVM_ASM_PRINTER
}
