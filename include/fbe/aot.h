/* Ahead-of-time codecs: objects written by `fbec aot` and the runtime side that
 * turns them into an fbe_codec with nothing but fbe_runtime (no LLVM, no
 * compiler; the runtime's interpreter over the image's IR takes the frames native
 * code hands over, and fbe_interp_create_image makes an interpreter codec of the
 * same image). See docs/aot.md.
 *
 * An object compiled from package P exports (C linkage, default visibility):
 *
 *   fbe_codec *fbe_P_codec_create(fbe_status *status);
 *       A new codec for every struct of P and of its imports; free it with
 *       fbe_codec_free(). Same as fbe_aot_codec_create(&fbe_P_aot_image, status).
 *   extern const fbe_aot_image fbe_P_aot_image;
 *       The image: the schema's IR as constant data (the same structs as
 *       fbe/ir.h, so fbe_print, fbe_init and reflection work on it) and the
 *       native entry points of every type.
 *   fbe_<c_name>_<std|final>_<size|serialize|verify|deserialize>
 *       The entry points of the structs declared in P itself (fbe_size_fn,
 *       fbe_serialize_fn, fbe_verify_fn, fbe_deserialize_fn). Those of imported
 *       packages are local to the object, so objects of packages that import
 *       each other link together.
 *
 * `fbec aot --header P.h` declares all of these after the host structs. */
#ifndef FBE_AOT_H
#define FBE_AOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fbe/codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever fbe_aot_image, fbe_aot_type, the IR structs or the entry points'
 * signatures change, or the runtime helpers' meaning (3: fbe_verify_fn takes the
 * decode options; 4: fbe_jit_verify_fail reports type->fields[field->index];
 * 5: fbe_decode_budget, which native deserialize code holds, records where the
 * arena was; 6: native code hands failing and older writers' frames to the
 * interpreter's entry points, whose program each codec type holds). */
#define FBE_AOT_ABI_VERSION 6u

/* One struct type of an image: its IR (inside the image) and the native entry
 * points. A NULL entry point was not lowered natively when the object was
 * compiled: the codec's entry then returns FBE_UNSUPPORTED (size returns 0). */
typedef struct fbe_aot_type {
    const fbe_ir_struct *ir;
    fbe_model_ops ops[2]; /* indexed by fbe_model */
} fbe_aot_type;

typedef struct fbe_aot_image {
    uint32_t abi_version;    /* FBE_AOT_ABI_VERSION of the compiler */
    uint32_t layout_check;   /* FBE_AOT_LAYOUT_CHECK of the compiler */
    uint32_t max_depth;      /* the codec's nesting limit (options->max_depth overrides it per call) */
    uint32_t flags;          /* FBE_AOT_IMAGE_* */
    const char *fbe_version; /* of the fbec that wrote the object */
    const char *target;      /* triple, CPU and features the code was compiled for */
    const fbe_ir_package *root;
    const fbe_ir_package *const *packages; /* imports before importers, root last */
    size_t package_count;
    const fbe_aot_type *types; /* every struct of every package, package order */
    size_t type_count;
} fbe_aot_image;

/* fbe_aot_image.flags: the entry points are C written by `fbec c` (compiled by
 * the user's C compiler) rather than an object of `fbec aot`; the codec then
 * reports FBE_BACKEND_STATIC. Everything else is the same. */
#define FBE_AOT_IMAGE_STATIC_C 1u

/* Sizes of the structs an image mirrors, folded into one number: an object
 * compiled against other IR structs is refused instead of misread. */
#define FBE_AOT_LAYOUT_CHECK                                                              \
    ((uint32_t)(sizeof(fbe_ir_package) * 1u + sizeof(fbe_ir_struct) * 3u +               \
                sizeof(fbe_ir_field) * 5u + sizeof(fbe_ir_type) * 7u +                   \
                sizeof(fbe_ir_enum) * 11u + sizeof(fbe_ir_flags) * 13u +                 \
                sizeof(fbe_ir_enum_value) * 17u + sizeof(fbe_ir_reject) * 19u +          \
                sizeof(fbe_ir_value) * 23u + sizeof(fbe_aot_type) * 29u +                \
                sizeof(fbe_aot_image) * 31u + sizeof(void *) * 37u))

/* A codec whose entries are the image's native code (FBE_BACKEND_AOT, or
 * FBE_BACKEND_STATIC for the C of `fbec c`), built on the interpreter over the
 * image's IR (FBE_INVALID_ARGUMENT if a type is outside the image's packages):
 * an entry point the image lacks is the interpreter's, and native code hands the
 * interpreter every frame it does not take on its own path (a failure, an older
 * writer's body), so its results are the interpreter's by construction.
 * Its fbe_codec_max_depth() is image->max_depth (decode options can still lower
 * or raise it per call, as with every backend). Returns NULL and sets *status
 * (may be NULL): FBE_INVALID_ARGUMENT for a NULL image, FBE_UNSUPPORTED for an
 * image of another ABI, FBE_NOMEM. The image must outlive the codec (it is
 * static data of the linked object). */
fbe_codec *fbe_aot_codec_create(const fbe_aot_image *image, fbe_status *status);

/* The interpreter over the image's IR instead of its native code:
 * fbe_interp_create_ir(image->packages, image->package_count, ...), whose
 * nesting limit is image->max_depth unless options->max_depth is set. A program
 * linking an object of `fbec aot` or `fbec c` gets an interpreter codec of the
 * same schema with fbe_runtime only (no compiler, no LLVM).
 * NULL and *status: FBE_INVALID_ARGUMENT (NULL image), FBE_UNSUPPORTED (another
 * ABI, as fbe_aot_codec_create), FBE_NOMEM. The image must outlive the codec. */
fbe_codec *fbe_interp_create_image(const fbe_aot_image *image, const fbe_codec_options *options,
                                   fbe_status *status);

/* The image behind an AOT or static C codec (NULL for other backends). */
const fbe_aot_image *fbe_aot_codec_image(const fbe_codec *codec);

typedef enum fbe_op {
    FBE_OP_SIZE,
    FBE_OP_SERIALIZE,
    FBE_OP_VERIFY,
    FBE_OP_DESERIALIZE
} fbe_op;

/* False when `type` belongs to an AOT (or static C) codec whose object has no native code for
 * this operation (the entry is the interpreter's); true otherwise, and for
 * every type of the other backends. */
bool fbe_aot_has_op(const fbe_type *type, fbe_model model, fbe_op op);

#ifdef __cplusplus
}
#endif

#endif
