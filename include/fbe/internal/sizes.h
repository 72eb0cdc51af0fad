/* The size caps of every codec (internal to fbe-c: the interpreter, the JIT and
 * the code `fbec c` writes apply the same ones, docs/codec.md "Limits").
 *
 * Standard sizes stop growing usefully at FBE_SIZE_CAP: a frame past it is
 * TOO_LARGE anyway, and the cap keeps sums of sizes from wrapping. Final sizes
 * saturate at FBE_FINAL_SAT. The minimum size of a value, which count checks
 * use, is clamped at FBE_MIN_CLAMP, above any count's room, so products stay in
 * 64 bits. */
#ifndef FBE_INTERNAL_SIZES_H
#define FBE_INTERNAL_SIZES_H

#include <stdint.h>

#define FBE_SIZE_CAP ((uint64_t)UINT32_MAX + 1)
#define FBE_FINAL_SAT ((uint64_t)1 << 40)
#define FBE_MIN_CLAMP ((uint64_t)1 << 32)

#endif
