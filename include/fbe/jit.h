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

/* When native code arrives (docs/jit.md, "Tiers"). */
typedef enum fbe_jit_mode {
    /* fbe_jit_compile returns as soon as the interpreter's tables exist; the
     * codec works from the first call, interpreted. Background threads compile
     * the native code unit by unit (standard/final x write/verify/deserialize),
     * units whose entry points have been called first and, in them, the called
     * types before the others, and install entry points as they are ready.
     * Every call returns exactly what the interpreter returns. */
    FBE_JIT_BACKGROUND = 0,
    /* Everything native before fbe_jit_compile returns (benchmarks, AOT-like
     * use); units compile in parallel on `threads` threads. */
    FBE_JIT_EAGER = 1
} fbe_jit_mode;

typedef struct fbe_jit_options {
    const char *cpu;       /* target CPU, e.g. "x86-64"; NULL = the host CPU */
    const char *features;  /* e.g. "+sse4.2"; NULL = the host's when cpu is NULL, else none */
    int opt_level;         /* 0..3; 0 = default (2) */
    bool require_native;   /* fail instead of falling back to the interpreter; implies
                              FBE_JIT_EAGER (the answer is known on return) */
    unsigned max_depth;    /* 0 = FBE_DEFAULT_MAX_DEPTH */
    const char *cache_dir; /* compiled-object cache (created if missing); NULL = none.
                              A compilation whose lowered module, target, CPU,
                              features, optimization level and LLVM/fbe-c versions
                              match a cached object loads it instead of optimizing
                              and generating code again (docs/aot.md). NULL: the
                              environment variable FBE_JIT_CACHE_DIR if set */
    unsigned models;       /* FBE_JIT_MODEL(FBE_STANDARD) | FBE_JIT_MODEL(FBE_FINAL): the
                              models compiled to native code; 0 = both. The other
                              model keeps the interpreter's entry points (the same
                              results, slower): a program that uses one model
                              compiles half the code at start-up */
    unsigned parts;        /* FBE_JIT_WRITE_OF(model) (size, serialize),
                              FBE_JIT_READ_OF(model) (verify, deserialize), or one
                              operation: FBE_JIT_SIZE_OF, FBE_JIT_SERIALIZE_OF,
                              FBE_JIT_VERIFY_OF, FBE_JIT_DESERIALIZE_OF(model)
                              bits: the parts of `models` compiled to native code;
                              0 = all. Like models, the rest stays interpreted: a
                              program that only verifies compiles that alone */
    fbe_jit_mode mode;     /* 0 = FBE_JIT_BACKGROUND */
    unsigned threads;      /* compile threads; 0 = one per core (at most 4) when
                              eager, 1 in the background */
    const char *const *types; /* NULL-terminated names ("pkg.Type" or "Type", as
                              fbe_codec_type) of the structs whose entry points are
                              compiled to native code; NULL = every struct. The
                              structs they hold are compiled into their code, but
                              their own entry points, like every other struct's,
                              stay interpreted: a program that handles one type
                              compiles that type alone. An unknown name fails
                              with FBE_INVALID_ARGUMENT */
} fbe_jit_options;

#define FBE_JIT_MODEL(model) (1u << (model))
#define FBE_JIT_ALL_MODELS (FBE_JIT_MODEL(FBE_STANDARD) | FBE_JIT_MODEL(FBE_FINAL))
#define FBE_JIT_WRITE_OF(model) (1u << ((model) * 2))
#define FBE_JIT_READ_OF(model) (1u << ((model) * 2 + 1))
/* One of the reading side's operations alone (READ_OF is both). */
#define FBE_JIT_VERIFY_OF(model) (1u << ((model) * 2 + 4))
#define FBE_JIT_DESERIALIZE_OF(model) (1u << ((model) * 2 + 5))
/* One of the writing side's operations alone (WRITE_OF is both). */
#define FBE_JIT_SIZE_OF(model) (1u << ((model) * 2 + 8))
#define FBE_JIT_SERIALIZE_OF(model) (1u << ((model) * 2 + 9))
#define FBE_JIT_ALL_PARTS 0xFFFu

/* Entry points are type x model x operation (size, serialize, verify,
 * deserialize): every one is native, pending (its unit is not compiled yet),
 * failed (its unit failed to compile: it stays interpreted) or interpreted by
 * design (a model left out by opts->models). */
typedef struct fbe_jit_stats {
    double lower_ms;    /* IR construction, summed over the units */
    double optimize_ms; /* LLVM passes, summed */
    double codegen_ms;  /* machine code (or loading a cached object), linking, summed */
    size_t functions;   /* native entry points installed */
    bool cached;        /* every unit's object came from opts->cache_dir */
    size_t pending;     /* entry points whose unit is still compiling or queued */
    size_t failed;      /* entry points whose unit failed to compile */
    size_t code_bytes;  /* machine code of the installed units (.text) */
    double return_ms;   /* how long fbe_jit_compile took to return */
    double ready_ms;    /* call to nothing pending, not before return_ms; 0 while pending */
    fbe_jit_mode mode;
    unsigned threads;   /* compile threads used */
} fbe_jit_stats;

/* True when the library was built with LLVM (FBE_WITH_LLVM). */
bool fbe_jit_available(void);

/* Compiles every struct of the schema (opts may be NULL: background mode, host
 * CPU). Without LLVM, or if an eager compilation fails, the result is an
 * interpreter codec (fbe_codec_backend() tells) unless opts->require_native, in
 * which case NULL is returned with *status set. A background codec is a JIT
 * codec from the start; a unit that fails stays interpreted (stats.failed).
 * fbe_codec_free cancels what is still compiling and returns without waiting for
 * LLVM (a compilation step in progress ends on its thread, which exits; the
 * process waits for such threads at exit). Several codecs may coexist and be
 * compiled from several threads. */
fbe_codec *fbe_jit_compile(const struct fbe_schema *schema, const fbe_jit_options *opts,
                           fbe_status *status);

/* Timings and progress of the compilation that produced `codec` (zeros for
 * other backends). Safe to call while a background compilation runs. */
fbe_jit_stats fbe_jit_codec_stats(const fbe_codec *codec);

/* Waits until no entry point of `codec` is pending (every unit native or
 * failed), at most timeout_ms milliseconds (negative: no limit). True when
 * nothing is pending; immediately true for other backends. */
bool fbe_jit_wait(const fbe_codec *codec, long timeout_ms);

/* ---- ahead of time: `fbec aot` (docs/aot.md) ------------------------------------ */

typedef struct fbe_aot_options {
    const char *triple;   /* NULL: the host's, e.g. "x86_64-pc-linux-gnu" */
    const char *cpu;      /* NULL: the architecture's baseline ("x86-64" for x86-64,
                             "generic" elsewhere); "native": the build machine's CPU
                             and features (host triple only) */
    const char *features; /* NULL: none beyond the CPU's (the host's with "native") */
    int opt_level;        /* 0..3; 0 = default (2) */
    unsigned max_depth;   /* the codec's limit, the default of verify/deserialize (options
                             override it per call); 0 = FBE_DEFAULT_MAX_DEPTH */
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
