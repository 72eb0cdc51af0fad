#include "helpers.h"

#include <string.h>

#include "fbe/arena.h"
#include "fbe/buffer.h"

size_t jit_helpers(const jit_helper **table)
{
    static const jit_helper helpers[] = {
        {"fbe_buffer_reserve", 0},
        {"fbe_arena_alloc", 0},
        {"fbe_decode_alloc", 0},
        {"fbe_init_field", 0},
        {"fbe_jit_verify_fail", 0},
        {"memcpy", 0},
        {"memmove", 0},
        {"memset", 0},
    };
    /* Function addresses are not constant expressions in C: fill them once. */
    static jit_helper filled[sizeof helpers / sizeof *helpers];
    static const void *addresses[sizeof helpers / sizeof *helpers];
    addresses[0] = (const void *)(uintptr_t)fbe_buffer_reserve;
    addresses[1] = (const void *)(uintptr_t)fbe_arena_alloc;
    addresses[2] = (const void *)(uintptr_t)fbe_decode_alloc;
    addresses[3] = (const void *)(uintptr_t)fbe_init_field;
    addresses[4] = (const void *)(uintptr_t)fbe_jit_verify_fail;
    addresses[5] = (const void *)(uintptr_t)memcpy;
    addresses[6] = (const void *)(uintptr_t)memmove;
    addresses[7] = (const void *)(uintptr_t)memset;
    for (size_t i = 0; i < sizeof helpers / sizeof *helpers; i++) {
        filled[i].name = helpers[i].name;
        filled[i].address = (uint64_t)(uintptr_t)addresses[i];
    }
    *table = filled;
    return sizeof helpers / sizeof *helpers;
}
