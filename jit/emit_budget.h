/* The decode budget (fbe/arena.h) in generated deserialize code, shared by both
 * models' emitters (definitions in emit_std_read.c). */
#ifndef FBE_JIT_EMIT_BUDGET_H
#define FBE_JIT_EMIT_BUDGET_H

#include "emit.h"

/* The LLVM type of fbe_decode_budget (three size_t, a pointer, a size_t: the JIT
 * targets 64 bits). */
LLVMTypeRef jit_decode_budget_t(jit_emit *e);

#endif
