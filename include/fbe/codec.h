/* The codec interface shared by every backend (interpreter, LLVM JIT, AOT objects,
 * static C). A codec is built from a resolved schema; for every struct type and
 * both models it provides four entry points:
 *
 *   size         exact number of bytes serialize will append
 *   serialize    host struct -> bytes, appended to an fbe_buffer as one root frame
 *   verify       bytes -> FBE_OK or the precise reason (and byte position) they are unsafe
 *   deserialize  bytes -> host struct; memory comes from an arena, strings and bytes
 *                can borrow views into the input instead
 *
 * Host structs are laid out as docs/host-abi.md describes (the generated headers
 * pin it). Switching backend changes how a codec is created, nothing else. */
#ifndef FBE_CODEC_H
#define FBE_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "fbe/arena.h"
#include "fbe/buffer.h"
#include "fbe/error.h"
#include "fbe/ir.h"
#include "fbe/value.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fbe_model {
    FBE_STANDARD = 0, /* versioned: offsets, struct headers, schema evolution */
    FBE_FINAL = 1     /* compact: no offsets, same schema on both sides */
} fbe_model;

typedef enum fbe_backend {
    FBE_BACKEND_INTERP,
    FBE_BACKEND_JIT,
    FBE_BACKEND_AOT,
    FBE_BACKEND_STATIC
} fbe_backend;

/* Nesting limit applied by verify and deserialize unless configured. */
#define FBE_DEFAULT_MAX_DEPTH 64

typedef struct fbe_codec fbe_codec;
typedef struct fbe_type fbe_type;

/* Where verify found a problem: the status, the byte position in the buffer, the
 * struct and the field being read (field NULL for frame-level errors). After a
 * successful verify, in either model and with every backend, it is
 * {FBE_OK, 0, NULL, NULL}. */
typedef struct fbe_verify_info {
    fbe_status status;
    size_t offset;
    const fbe_ir_struct *type;
    const fbe_ir_field *field;
} fbe_verify_info;

enum {
    /* Strings and bytes point into the input buffer instead of being copied into
     * the arena; the input must then outlive the value. */
    FBE_DECODE_BORROW = 1u << 0,
    /* Unsorted or duplicate set/map keys fail with FBE_UNORDERED (fbe/value.h). */
    FBE_DECODE_STRICT_ORDER = 1u << 1
};

/* deserialize's options; verify takes them too (fbe_verify_with) and uses only
 * max_depth: arena, flags and max_memory are ignored by verify. */
typedef struct fbe_decode_options {
    fbe_arena *arena;   /* required by deserialize: collections and optional structs live here */
    unsigned flags;     /* FBE_DECODE_* */
    unsigned max_depth; /* 0: the codec's limit; any other value replaces it for this
                           call. It also bounds verify's and deserialize's
                           recursion (a few hundred bytes of stack per level):
                           keep it to thousands, not UINT_MAX, for untrusted input */
    /* The most one call may add to the arena (arena.h, "the decode budget"); past
     * it deserialize fails with FBE_MEMORY_LIMIT. 0: FBE_DECODE_MEMORY_FACTOR x the
     * frame's size + FBE_DECODE_MEMORY_BASE; SIZE_MAX: no budget. */
    size_t max_memory;
} fbe_decode_options;

typedef size_t (*fbe_size_fn)(const fbe_type *type, const void *value);
typedef fbe_status (*fbe_serialize_fn)(const fbe_type *type, const void *value, fbe_buffer *out);
/* options may be NULL (the codec's limits); verify reads only options->max_depth. */
typedef fbe_status (*fbe_verify_fn)(const fbe_type *type, const uint8_t *data, size_t size,
                                    fbe_verify_info *info, const fbe_decode_options *options);
typedef fbe_status (*fbe_deserialize_fn)(const fbe_type *type, const uint8_t *data, size_t size,
                                         void *value, const fbe_decode_options *options,
                                         size_t *consumed);

typedef struct fbe_model_ops {
    fbe_size_fn size;
    fbe_serialize_fn serialize;
    fbe_verify_fn verify;
    fbe_deserialize_fn deserialize;
} fbe_model_ops;

/* One struct type of a codec. Public so the calls below inline to one indirect
 * call; treat it as read-only. */
struct fbe_type {
    const fbe_ir_struct *ir;
    const fbe_codec *codec;
    fbe_model_ops ops[2]; /* indexed by fbe_model */
    const void *impl;     /* backend data (the interpreter's program) */
};

typedef struct fbe_codec_options {
    unsigned max_depth; /* 0: FBE_DEFAULT_MAX_DEPTH */
} fbe_codec_options;

struct fbe_schema;

/* The portable interpreter: works for any schema, no LLVM needed. Covers every
 * struct of every package of the schema. Returns NULL and sets *status (may be
 * NULL) on failure. The schema must outlive the codec. Same as
 * fbe_interp_create_ir over fbe_schema_package(schema, 0 .. count-1). */
fbe_codec *fbe_interp_create(const struct fbe_schema *schema, const fbe_codec_options *options,
                             fbe_status *status);

/* The interpreter over resolved IR packages, however they were made: a loaded
 * schema's (fbe_schema_package) or an image's (fbe/aot.h, fbe_interp_create_image),
 * so a program without the schema compiler can interpret. `packages` lists each
 * package once, after its direct imports (as both list them); the codec covers
 * every struct of every listed package, in that order. FBE_INVALID_ARGUMENT for a
 * list that breaks this (NULL or repeated packages, a missing or later import)
 * and for IR the compiler cannot make: inheritance past FBE_IR_MAX_NESTING or in
 * a loop, a field type the schema language cannot write
 * (fbe_ir_type_has_schema_shape: a collection of collections, an optional
 * collection, an optional key). The layout numbers are trusted as they are.
 * The packages must outlive the codec; the array itself need not. */
fbe_codec *fbe_interp_create_ir(const fbe_ir_package *const *packages, size_t package_count,
                                const fbe_codec_options *options, fbe_status *status);

void fbe_codec_free(fbe_codec *codec);
fbe_backend fbe_codec_backend(const fbe_codec *codec);
const char *fbe_backend_name(fbe_backend backend);
unsigned fbe_codec_max_depth(const fbe_codec *codec);

/* "pkg.Type" (or "Type", searched in every package, first match). NULL if none. */
const fbe_type *fbe_codec_type(const fbe_codec *codec, const char *name);
const fbe_type *fbe_codec_type_of(const fbe_codec *codec, const fbe_ir_struct *ir);

/* Every struct type of the codec, for tools that walk a schema they do not know
 * (converters, protocol tables): index 0 .. count-1, packages in dependency order
 * (imports first), each package's structs in declaration order. NULL past the end. */
size_t fbe_codec_type_count(const fbe_codec *codec);
const fbe_type *fbe_codec_type_at(const fbe_codec *codec, size_t index);

/* A JIT codec compiling in the background replaces entry points while other
 * threads call them (fbe/jit.h): each call loads its pointer once, atomically. */
#define FBE_LOAD_OP_(t, m, op) __atomic_load_n(&(t)->ops[m].op, __ATOMIC_ACQUIRE)

/* The wrappers below are one indirect call each: always inlined, so a call costs
 * what the entry point costs (gcc otherwise keeps fbe_deserialize out of line). */
#if defined(__GNUC__)
#define FBE_WRAPPER_ static inline __attribute__((always_inline))
#else
#define FBE_WRAPPER_ static inline
#endif

FBE_WRAPPER_ size_t fbe_size(const fbe_type *t, fbe_model m, const void *value)
{
    return FBE_LOAD_OP_(t, m, size)(t, value);
}

FBE_WRAPPER_ fbe_status fbe_serialize(const fbe_type *t, fbe_model m, const void *value,
                                      fbe_buffer *out)
{
    return FBE_LOAD_OP_(t, m, serialize)(t, value, out);
}

/* info may be NULL. The codec's nesting limit. */
FBE_WRAPPER_ fbe_status fbe_verify(const fbe_type *t, fbe_model m, const uint8_t *data,
                                   size_t size, fbe_verify_info *info)
{
    return FBE_LOAD_OP_(t, m, verify)(t, data, size, info, NULL);
}

/* The same with deserialize's options (may be NULL): options->max_depth (0: the
 * codec's) limits the nesting for this call, exactly as deserialize applies it,
 * so both report the same status for the same options. arena, flags and
 * max_memory are ignored (verify allocates nothing). Changing the limit per
 * call never recompiles anything. */
FBE_WRAPPER_ fbe_status fbe_verify_with(const fbe_type *t, fbe_model m, const uint8_t *data,
                                        size_t size, fbe_verify_info *info,
                                        const fbe_decode_options *options)
{
    return FBE_LOAD_OP_(t, m, verify)(t, data, size, info, options);
}

/* Fills every field of *value (fields the bytes lack get their schema defaults).
 * On error *value is still safe to read and free with the arena, but incomplete.
 * consumed (may be NULL) receives the frame size. */
fbe_status fbe_deserialize_strict(const fbe_type *t, fbe_model m, const uint8_t *data,
                                  size_t size, void *value, const fbe_decode_options *options,
                                  size_t *consumed);

FBE_WRAPPER_ fbe_status fbe_deserialize(const fbe_type *t, fbe_model m, const uint8_t *data,
                                        size_t size, void *value,
                                        const fbe_decode_options *options, size_t *consumed)
{
    /* FBE_DECODE_STRICT_ORDER goes out of line: with the check in the body, gcc
     * stopped inlining this wrapper and every call paid ~30 instructions. */
    if (options && (options->flags & FBE_DECODE_STRICT_ORDER))
        return fbe_deserialize_strict(t, m, data, size, value, options, consumed);
    return FBE_LOAD_OP_(t, m, deserialize)(t, data, size, value, options, consumed);
}

/* ---- reflection over host structs (by the IR) --------------------------------- */

/* Sets *value to the schema defaults, exactly like the generated `_init`. */
void fbe_init(const fbe_ir_struct *type, void *value);

/* Sets one field to its schema default (what deserialize does for fields an older
 * writer did not have). */
void fbe_init_field(const fbe_ir_field *field, void *field_ptr);

/* The field called `name` (own or inherited), NULL if none. */
const fbe_ir_field *fbe_field_by_name(const fbe_ir_struct *type, const char *name);

/* Address of a field inside a host struct. */
static inline void *fbe_field_ptr(void *value, const fbe_ir_field *field)
{
    return (char *)value + field->host_offset;
}

/* The reference's text form (operator<<, wire-format.md 9), appended to out. */
fbe_status fbe_print(const fbe_ir_struct *type, const void *value, fbe_buffer *out);

#ifdef __cplusplus
}
#endif

#endif
