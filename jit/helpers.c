#include "helpers.h"

#include <pthread.h>
#include <string.h>

#include "fbe/arena.h"
#include "fbe/buffer.h"
#include "interp/program.h"

/* The runtime functions native code calls, by the name it calls them. */
#define JIT_HELPER_LIST(X)                                                                    \
    X(fbe_buffer_reserve)                                                                     \
    X(fbe_decode_alloc)                                                                       \
    X(fbe_interp_std_verify)                                                                  \
    X(fbe_interp_std_deserialize)                                                             \
    X(fbe_interp_final_verify)                                                                \
    X(fbe_interp_final_deserialize)                                                           \
    X(fbe_native_arena_rewind)                                                                \
    X(memcpy)                                                                                 \
    X(memmove)                                                                                \
    X(memset)

#define JIT_HELPER_ONE(f) +1
enum { HELPER_COUNT = 0 JIT_HELPER_LIST(JIT_HELPER_ONE) };
static jit_helper filled[HELPER_COUNT];
static pthread_once_t filled_once = PTHREAD_ONCE_INIT;

/* Function addresses are not constant expressions in C: filled once per
 * process (compilations on several threads read the table). */
static void fill(void)
{
    size_t n = 0;
#define JIT_HELPER_FILL(f) filled[n++] = (jit_helper){#f, (uint64_t)(uintptr_t)(f)};
    JIT_HELPER_LIST(JIT_HELPER_FILL)
#undef JIT_HELPER_FILL
}

size_t jit_helpers(const jit_helper **table)
{
    pthread_once(&filled_once, fill);
    *table = filled;
    return HELPER_COUNT;
}
