/* The codec object shared by every backend (internal to fbe-c). The interpreter
 * (runtime/interp/program.c) fills it from the IR, the JIT builds on an
 * interpreter codec and replaces entry points, and an AOT codec
 * (runtime/codec.c) is filled from an image compiled into the program. */
#ifndef FBE_RUNTIME_CODEC_IMPL_H
#define FBE_RUNTIME_CODEC_IMPL_H

#include <stdbool.h>
#include <stddef.h>

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
    /* The backend's serialize of every type (2 per type, by model) whose values
     * can nest deeper than max_depth; NULL if none (runtime/depth_guard.c). */
    fbe_serialize_fn *guarded;
};

/* Wraps the serialize entry points of the types whose values can nest deeper
 * than max_depth so that they return FBE_TOO_DEEP instead of writing a frame
 * verify rejects. Called by every backend once its entry points are installed
 * (again after a backend replaces them). False: out of memory. */
bool fbe_codec_guard_depth(fbe_codec *codec);

#endif
