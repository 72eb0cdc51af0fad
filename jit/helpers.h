/* Runtime functions that JIT-compiled and AOT code calls. */
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

/* Fills *info (when not NULL) on a verify failure: the cold path. */
void fbe_jit_verify_fail(fbe_verify_info *info, int status, uint64_t offset,
                         const fbe_ir_struct *type, const fbe_ir_field *field);

#endif
