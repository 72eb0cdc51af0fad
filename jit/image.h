/* The IR image of an AOT object: the schema's IR (fbe/ir.h) as LLVM constant
 * data with exactly the C layout of the IR structs, and the fbe_aot_image
 * descriptor (fbe/aot.h) that fbe_aot_codec_create() turns into a codec.
 *
 * Generated code refers to IR objects only through jit_host_ptr(); with an image
 * installed (jit_image_install) that returns the constant mirroring the given
 * host object instead of its address, so the emitters need no AOT mode. A host
 * pointer that is not in the image fails the emission (never a dangling
 * address in an object). */
#ifndef FBE_JIT_IMAGE_H
#define FBE_JIT_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include "emit.h"
#include "fbe/schema.h"

typedef struct jit_image jit_image;

/* Checks that LLVM lays the mirrored structs out exactly as the C compiler that
 * built fbe-c does (offsets, sizes, alignments) under data layout `dl`. On a
 * mismatch writes the first difference to err and returns false. */
bool jit_image_check_layout(LLVMContextRef ctx, LLVMTargetDataRef dl, char *err, size_t size);

/* Emits the IR constants of every package of `schema` into e->mod and makes
 * jit_host_ptr() resolve IR structs and fields to them. Call after
 * jit_emit_init() and before the emitters. NULL on failure (message in err). */
jit_image *jit_image_create(jit_emit *e, const fbe_schema *schema, char *err, size_t size);

/* After the emitters: the fbe_aot_type table (entry points from e->fns, NULL
 * where an operation was not lowered), the exported descriptor
 * `fbe_<root>_aot_image` and `fbe_<root>_codec_create()`. Entry points of
 * imported packages' structs become local to the object. */
bool jit_image_finish(jit_image *img, jit_emit *e, unsigned max_depth, const char *fbe_version,
                      const char *target, char *err, size_t size);

void jit_image_free(jit_image *img);

#endif
