/* Runtime functions that JIT-compiled and AOT code calls: the JIT's symbol table. */
#ifndef FBE_JIT_HELPERS_H
#define FBE_JIT_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include "fbe/codec.h"

typedef struct jit_helper {
    const char *name;
    uint64_t address;
} jit_helper;

/* The table given to the JIT as absolute symbols (no -rdynamic needed). */
size_t jit_helpers(const jit_helper **table);

/* The helpers' implementations (fbe_decode_alloc, ...) live in fbe_runtime, so
 * that AOT objects link against it alone. */
#include "fbe/internal/native.h"

#endif
