/* The schema object (fbe/schema.h), internal to fbe-c. The loader
 * (frontend/load.c, library fbe_compiler) fills it; its accessors
 * (runtime/schema.c) are in fbe_runtime, so that the backends that take a
 * schema (fbe_interp_create, fbe_jit_compile) do not link the loader. */
#ifndef FBE_RUNTIME_SCHEMA_IMPL_H
#define FBE_RUNTIME_SCHEMA_IMPL_H

#include <stddef.h>

#include "fbe/arena.h"
#include "fbe/schema.h"

struct fbe_schema {
    fbe_arena arena;                 /* the IR of every package, and what loading needed */
    const fbe_ir_package **packages; /* imports before importers; root last */
    size_t package_count;
    const fbe_ir_package *root;
};

#endif
