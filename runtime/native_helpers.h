/* The runtime function natively compiled code (LLVM JIT and AOT objects) calls
 * besides the public ones (fbe_buffer_reserve, fbe_decode_alloc, the
 * interpreter's entry points) and the C library (memcpy, memmove, memset). It
 * lives in fbe_runtime so an AOT object links against it alone; jit/helpers.c
 * gives the addresses to the JIT. Internal: its name and signature are part of
 * the AOT object ABI (FBE_AOT_ABI_VERSION), not of the public API. */
#ifndef FBE_RUNTIME_NATIVE_HELPERS_H
#define FBE_RUNTIME_NATIVE_HELPERS_H

#include "fbe/arena.h"

/* A native deserialize that failed returns the arena to where the call found
 * it: ptr as the call read it, and when the call added chunks (budget->cap is
 * set) the head chunk and chunk_size its budget recorded then (chunks added
 * since are freed, total and end follow), so that the interpreter's
 * deserialize, which it then calls on the same frame to find the failure, runs
 * on the arena a lone interpreter call would have had (docs/jit.md, "A failing
 * deserialize is the interpreter's"). */
void fbe_native_arena_rewind(fbe_arena *arena, const fbe_decode_budget *budget, char *ptr);

#endif
