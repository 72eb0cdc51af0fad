/* What natively compiled code (the JIT's, AOT objects) and `fbec c`'s generated
 * C call in fbe_runtime besides the public API: the interpreter's verify and
 * deserialize, which answer every frame native code does not take on its own
 * path, and the arena's rewind before a failing deserialize is handed over.
 * Not API: the names and signatures are part of the AOT object ABI
 * (FBE_AOT_ABI_VERSION). */
#ifndef FBE_INTERNAL_NATIVE_H
#define FBE_INTERNAL_NATIVE_H

#include <fbe/arena.h>
#include <fbe/codec.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The interpreter's entry points (runtime/interp/): they take the codec's
 * fbe_type, whose program every codec built on the interpreter holds. */
fbe_status fbe_interp_std_verify(const fbe_type *type, const uint8_t *data, size_t size,
                                 fbe_verify_info *info, const fbe_decode_options *options);
fbe_status fbe_interp_std_deserialize(const fbe_type *type, const uint8_t *data, size_t size,
                                      void *value, const fbe_decode_options *options,
                                      size_t *consumed);
fbe_status fbe_interp_final_verify(const fbe_type *type, const uint8_t *data, size_t size,
                                   fbe_verify_info *info, const fbe_decode_options *options);
fbe_status fbe_interp_final_deserialize(const fbe_type *type, const uint8_t *data, size_t size,
                                        void *value, const fbe_decode_options *options,
                                        size_t *consumed);

/* A native deserialize that failed returns the arena to where the call found
 * it: ptr as the call read it, and when the call added chunks (budget->cap is
 * set) the head chunk and chunk_size its budget recorded then (chunks added
 * since are freed, total and end follow), so that the interpreter's
 * deserialize, which it then calls on the same frame to find the failure, runs
 * on the arena a lone interpreter call would have had (docs/jit.md, "A failing
 * deserialize is the interpreter's"). */
void fbe_native_arena_rewind(fbe_arena *arena, const fbe_decode_budget *budget, char *ptr);

#ifdef __cplusplus
}
#endif

#endif
