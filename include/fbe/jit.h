/* The LLVM JIT backend: native code for every type of a schema, generated at run
 * time through the LLVM C API behind the same codec interface as the
 * interpreter (fbe/codec.h). */
#ifndef FBE_JIT_H
#define FBE_JIT_H

#include <stdbool.h>

#include "fbe/codec.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fbe_jit_options {
    const char *cpu;       /* target CPU, e.g. "x86-64"; NULL = the host CPU */
    const char *features;  /* e.g. "+sse4.2"; NULL = the host's when cpu is NULL, else none */
    int opt_level;         /* 0..3; 0 = default (2) */
    bool require_native;   /* fail instead of falling back to the interpreter */
    unsigned max_depth;    /* 0 = FBE_DEFAULT_MAX_DEPTH */
} fbe_jit_options;

typedef struct fbe_jit_stats {
    double lower_ms;    /* IR construction */
    double optimize_ms; /* LLVM passes */
    double codegen_ms;  /* machine code, symbol lookup */
    size_t functions;   /* native entry points installed */
} fbe_jit_stats;

/* True when the library was built with LLVM (FBE_WITH_LLVM). */
bool fbe_jit_available(void);

/* Compiles every struct of the schema. Without LLVM, or if compilation fails, the
 * result is an interpreter codec (fbe_codec_backend() tells) unless
 * opts->require_native, in which case NULL is returned with *status set.
 * Several codecs may coexist and be compiled from several threads. */
fbe_codec *fbe_jit_compile(const struct fbe_schema *schema, const fbe_jit_options *opts,
                           fbe_status *status);

/* Timings of the compilation that produced `codec` (zeros for other backends). */
fbe_jit_stats fbe_jit_codec_stats(const fbe_codec *codec);

#ifdef __cplusplus
}
#endif

#endif
