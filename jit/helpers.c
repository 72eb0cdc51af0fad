#include "helpers.h"

#include <pthread.h>
#include <string.h>

#include "fbe/arena.h"
#include "fbe/buffer.h"
#include "interp/program.h"

static const jit_helper helpers[] = {
    {"fbe_buffer_reserve", 0},
    {"fbe_arena_alloc", 0},
    {"fbe_decode_alloc", 0},
    {"fbe_init_field", 0},
    {"fbe_jit_verify_fail", 0},
    {"fbe_interp_std_verify_older", 0},
    {"fbe_interp_std_read_older", 0},
    {"fbe_interp_std_precheck", 0},
    {"fbe_native_std_ref", 0},
    {"fbe_native_final_run_verify", 0},
    {"fbe_native_final_run_read", 0},
    {"fbe_native_zero_fields", 0},
    {"fbe_native_final_depth", 0},
    {"memcpy", 0},
    {"memmove", 0},
    {"memset", 0},
};
#define HELPER_COUNT (sizeof helpers / sizeof *helpers)
static jit_helper filled[HELPER_COUNT];
static pthread_once_t filled_once = PTHREAD_ONCE_INIT;

/* Function addresses are not constant expressions in C: filled once per
 * process (compilations on several threads read the table). */
static void fill(void)
{
    const void *addresses[HELPER_COUNT];
    addresses[0] = (const void *)(uintptr_t)fbe_buffer_reserve;
    addresses[1] = (const void *)(uintptr_t)fbe_arena_alloc;
    addresses[2] = (const void *)(uintptr_t)fbe_decode_alloc;
    addresses[3] = (const void *)(uintptr_t)fbe_init_field;
    addresses[4] = (const void *)(uintptr_t)fbe_jit_verify_fail;
    addresses[5] = (const void *)(uintptr_t)fbe_interp_std_verify_older;
    addresses[6] = (const void *)(uintptr_t)fbe_interp_std_read_older;
    addresses[7] = (const void *)(uintptr_t)fbe_interp_std_precheck;
    addresses[8] = (const void *)(uintptr_t)fbe_native_std_ref;
    addresses[9] = (const void *)(uintptr_t)fbe_native_final_run_verify;
    addresses[10] = (const void *)(uintptr_t)fbe_native_final_run_read;
    addresses[11] = (const void *)(uintptr_t)fbe_native_zero_fields;
    addresses[12] = (const void *)(uintptr_t)fbe_native_final_depth;
    addresses[13] = (const void *)(uintptr_t)memcpy;
    addresses[14] = (const void *)(uintptr_t)memmove;
    addresses[15] = (const void *)(uintptr_t)memset;
    for (size_t i = 0; i < HELPER_COUNT; i++) {
        filled[i].name = helpers[i].name;
        filled[i].address = (uint64_t)(uintptr_t)addresses[i];
    }
}

size_t jit_helpers(const jit_helper **table)
{
    pthread_once(&filled_once, fill);
    *table = filled;
    return HELPER_COUNT;
}
