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
    const char *cache_dir; /* compiled-object cache (created if missing); NULL = none.
                              A compilation whose lowered module, target, CPU,
                              features, optimization level and LLVM/fbe-c versions
                              match a cached object loads it instead of optimizing
                              and generating code again (docs/aot.md) */
    unsigned models;       /* FBE_JIT_MODEL(FBE_STANDARD) | FBE_JIT_MODEL(FBE_FINAL): the
                              models compiled to native code; 0 = both. The other
                              model keeps the interpreter's entry points (the same
                              results, slower): a program that uses one model
                              compiles half the code at start-up */
} fbe_jit_options;

#define FBE_JIT_MODEL(model) (1u << (model))
#define FBE_JIT_ALL_MODELS (FBE_JIT_MODEL(FBE_STANDARD) | FBE_JIT_MODEL(FBE_FINAL))

typedef struct fbe_jit_stats {
    double lower_ms;    /* IR construction */
    double optimize_ms; /* LLVM passes */
    double codegen_ms;  /* machine code (or loading a cached object), symbol lookup */
    size_t functions;   /* native entry points installed */
    bool cached;        /* the object came from opts->cache_dir */
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

/* ---- ahead of time: `fbec aot` (docs/aot.md) ------------------------------------ */

typedef struct fbe_aot_options {
    const char *triple;   /* NULL: the host's, e.g. "x86_64-pc-linux-gnu" */
    const char *cpu;      /* NULL: the architecture's baseline ("x86-64" for x86-64,
                             "generic" elsewhere); "native": the build machine's CPU
                             and features (host triple only) */
    const char *features; /* NULL: none beyond the CPU's (the host's with "native") */
    int opt_level;        /* 0..3; 0 = default (2) */
    unsigned max_depth;   /* compiled into verify/deserialize; 0 = FBE_DEFAULT_MAX_DEPTH */
} fbe_aot_options;

typedef struct fbe_aot_result {
    size_t types;         /* structs in the image (every package of the schema) */
    size_t exported;      /* entry points exported (the root package's structs) */
    size_t functions;     /* native entry points in the object, all packages */
    size_t missing[2][4]; /* [model][size, serialize, verify, deserialize]: structs
                             without native code for it (their entry returns
                             FBE_UNSUPPORTED in the AOT codec) */
    size_t object_size;   /* bytes written */
    double lower_ms, optimize_ms, codegen_ms;
    char triple[128];
    char cpu[64];
    char error[512];      /* why it failed */
} fbe_aot_result;

/* Compiles every struct of the schema, with the IR image of fbe/aot.h, into one
 * relocatable, position-independent object file written to `path` (replaced only
 * once complete). Returns FBE_OK; FBE_UNSUPPORTED without LLVM or for a target
 * that is not 64-bit little-endian; FBE_INVALID_ARGUMENT for a bad target or
 * option; FBE_IO when the file cannot be written; result->error says more.
 * result may be NULL. */
fbe_status fbe_aot_compile(const struct fbe_schema *schema, const fbe_aot_options *opts,
                           const char *path, fbe_aot_result *result);

#ifdef __cplusplus
}
#endif

#endif
