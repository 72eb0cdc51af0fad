/* Compiler hints of the runtime's hot loops (internal to fbe-c), in one place.
 * Each is a hint only: without GNU C (gcc, clang) it expands to nothing, or to
 * a plain `static inline`, and no result changes. */
#ifndef FBE_RUNTIME_PORT_H
#define FBE_RUNTIME_PORT_H

#if defined(__GNUC__)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Error and slow paths: kept out of the loop's code and its registers. */
#define COLD __attribute__((cold, noinline))
#define NOINLINE __attribute__((noinline))
/* A step handler the loop wants in its body whatever the inliner's budget. */
#define INLINE static inline __attribute__((always_inline))
/* Where the lowering guarantees control never arrives (a step kind a list never
 * holds): the compiler may drop the path. */
#define UNREACHABLE() __builtin_unreachable()
#else
#define LIKELY(x) (x)
#define UNLIKELY(x) (x)
#define COLD
#define NOINLINE
#define INLINE static inline
#define UNREACHABLE() ((void)0)
#endif

#endif
