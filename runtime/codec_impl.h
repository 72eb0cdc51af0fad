/* The codec object shared by every backend (internal to fbe-c). The interpreter
 * (runtime/interp/program.c) fills it from the IR, the JIT builds on an
 * interpreter codec and replaces entry points, and an AOT codec
 * (runtime/codec.c) is filled from an image compiled into the program. */
#ifndef FBE_RUNTIME_CODEC_IMPL_H
#define FBE_RUNTIME_CODEC_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "fbe/aot.h" /* fbe_op */
#include "fbe/arena.h"
#include "fbe/codec.h"

struct fbe_codec {
    fbe_backend backend;
    unsigned max_depth;
    fbe_arena arena;       /* programs, nodes, the type table */
    fbe_type *types;
    size_t type_count;
    /* Native backends build on an interpreter codec and replace entry points;
     * they release their own state here (JIT memory, loaded objects). */
    void (*destroy_backend)(struct fbe_codec *codec);
    void *backend_data;
    /* AOT and static C codecs: the interpreter over the image, whose programs
     * their types hold (impl) and whose entry points take what native code
     * hands over; freed with the codec. */
    struct fbe_codec *interp;
    /* The serialize depth guard's tables (runtime/depth_guard.c). */
    struct fbe_depth_guard *depth_guard;
    /* types[] by IR address (open addressing, 1 + the index, 0 empty): every
     * lookup of a struct's type (fbe_codec_type_of, the lowerings, the depth
     * guard) is O(1), not a scan, for schemas of tens of thousands of structs. */
    uint32_t *type_index;
    size_t type_index_mask;
};

/* Builds type_index over types[0..count) (their `ir` set; a struct listed
 * twice keeps its first index). False: out of memory. */
bool fbe_codec_index_types(fbe_codec *codec, size_t count);

/* The index of st in codec->types, or SIZE_MAX. */
size_t fbe_codec_index_of(const fbe_codec *codec, const fbe_ir_struct *st);

/* Wraps the serialize entry points of the types whose values can nest deeper
 * than max_depth so that they return FBE_TOO_DEEP instead of writing a frame
 * verify rejects. Called by every backend once its entry points are installed
 * (again after a backend replaces them). False: out of memory. */
bool fbe_codec_guard_depth(fbe_codec *codec);

/* The most struct levels a frame of type i can hold, its own included (what the
 * depth limit counts), saturated at max_depth + 1 (UINT_MAX at most), which a
 * type on a cycle gets: the guard's table, also what lets native verify keep
 * the codec's limit as a constant when a call's limit cannot change the result
 * (jit/emit_final.c). */
unsigned fbe_codec_type_reach(const fbe_codec *codec, size_t i);

/* Any entry point, as stored (cast back to the fbe_*_fn of its op). */
typedef void (*fbe_entry_fn)(void);

/* Entry point `op` (size, serialize, verify, deserialize) of type i,
 * model m, as the codec finally runs it: for a type whose serialize the depth
 * guard wraps, the serialize inside the guard. set publishes atomically
 * (release): a call in progress finishes on the code it started with, the next
 * one runs fn. Readers (fbe/codec.h) load with acquire. */
fbe_entry_fn fbe_codec_get_op(const fbe_codec *codec, size_t i, fbe_model m, fbe_op op);
void fbe_codec_set_op(fbe_codec *codec, size_t i, fbe_model m, fbe_op op, fbe_entry_fn fn);

#endif
