/* Runtime functions that natively compiled code (LLVM JIT and AOT objects) calls
 * besides the public ones (fbe_buffer_reserve, fbe_arena_alloc, fbe_init_field)
 * and the C library (memcpy, memmove, memset). They live in fbe_runtime so an
 * AOT object links against it alone; jit/helpers.c gives their addresses to the
 * JIT. Internal: names and signatures are part of the AOT object ABI
 * (FBE_AOT_ABI_VERSION), not of the public API. */
#ifndef FBE_RUNTIME_NATIVE_HELPERS_H
#define FBE_RUNTIME_NATIVE_HELPERS_H

#include <stdint.h>

#include "fbe/arena.h"
#include "fbe/codec.h"

/* The state a native standard-model deserialize passes to its internal
 * functions (jit/emit_std_read.c builds the same layout as an LLVM struct and
 * checks it against this one before it hands anything to the interpreter). */
struct fbe_native_read_ctx {
    fbe_arena *arena;
    char *arena_end;            /* arena->end; arena->ptr travels by value */
    int32_t borrow;             /* FBE_DECODE_BORROW */
    fbe_decode_budget memory;   /* what the arena's slow path charges */
};

/* Fills *info (when not NULL) on a verify failure: the cold path. */
void fbe_jit_verify_fail(fbe_verify_info *info, int status, uint64_t offset,
                         const fbe_ir_struct *type, const fbe_ir_field *field);

#endif
