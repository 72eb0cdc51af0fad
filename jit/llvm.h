/* The LLVM C API as the JIT calls it: through a table filled when libLLVM is
 * loaded (jit_llvm_load, dlopen), not through the dynamic linker at start-up.
 * A program that links fbe_jit then pays nothing for LLVM until it compiles
 * (loading libLLVM costs a process about 21 M instructions and 40 ms: the
 * dynamic loader's relocations), a background compilation loads it on its own
 * thread, and a program runs interpreted where libLLVM is not installed.
 *
 * Every jit/ file includes this header instead of <llvm-c/...>: after it,
 * LLVMFoo(...) means (jit_llvm.LLVMFoo)(...). A function the JIT starts to
 * call goes into jit/llvm_functions.txt (a missing one is an undefined symbol
 * when fbe_jit's programs link, since nothing links libLLVM). */
#ifndef FBE_JIT_LLVM_H
#define FBE_JIT_LLVM_H

#include <stdbool.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Object.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "jit_llvm_list.h" /* JIT_LLVM_FUNCTIONS(X), from jit/llvm_functions.txt */

typedef struct jit_llvm_api {
#define JIT_LLVM_FIELD(f) __typeof__(f) *f;
    JIT_LLVM_FUNCTIONS(JIT_LLVM_FIELD)
#undef JIT_LLVM_FIELD
} jit_llvm_api;

extern jit_llvm_api jit_llvm;

/* Loads libLLVM and fills jit_llvm, once per process (thread-safe). False if
 * it cannot (jit_llvm_error says why); every later call gives the same answer. */
bool jit_llvm_load(void);
const char *jit_llvm_error(void);

/* What <llvm-c/Target.h> defines inline (its bodies would name libLLVM's
 * symbols): this machine's target and asm printer, or every target's. Only
 * after jit_llvm_load succeeded. */
void jit_llvm_init_native_target(void);
void jit_llvm_init_all_targets(void);

#ifndef JIT_LLVM_NO_REDIRECT
#include "jit_llvm_redirect.h" /* #define LLVMFoo (jit_llvm.LLVMFoo), for each */
#endif

#endif
