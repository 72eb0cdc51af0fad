/* One unit of a codec's native code (module.h: standard or final, write or read
 * side) compiled to a relocatable object, in two phases: lowering reads the
 * codec; finishing (cache lookup, passes, code generation) touches only LLVM
 * objects of its own, so it may run on any thread, even after the codec is
 * gone. The JIT (engine.c) loads the object and installs its entry points. */
#ifndef FBE_JIT_UNIT_H
#define FBE_JIT_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "cache.h"
#include "fbe/codec.h"
#include "module.h"

typedef struct jit_unit_options {
    const char *cpu;       /* NULL: the host's */
    const char *features;  /* NULL: the host's when cpu is NULL, else none */
    int opt_level;         /* 0..3, 0 = 2 */
    const char *cache_dir; /* NULL: no object cache */
    const jit_cache_digest *ir; /* the schema's part of the cache keys (with cache_dir) */
    unsigned generation;   /* > 0 on a retry: other entry symbol names (emit.h) */
    const uint8_t *types;  /* [type] 1: its entry points are compiled; NULL: every type */
    uint64_t types_key;    /* the selection's part of the cache keys (0 without one) */
    unsigned entry_ops;    /* JIT_ENTRY_OP bits of the operations whose entry points
                              are compiled (a write unit may leave out one); 0: all */
} jit_unit_options;

/* An entry point of a unit: type index * 8 + model * 4 + op. */
typedef uint32_t jit_entry_ref;

typedef struct jit_unit {
    int unit;                 /* JIT_UNIT_* */
    unsigned generation;
    jit_unit_options opts;
    LLVMContextRef ctx;
    LLVMTargetMachineRef tm;
    jit_module jm;            /* jm.mod until finished */
    char *triple, *cpu, *features;
    jit_entry_ref *entries;   /* the entry points the object defines */
    size_t entry_count;
    LLVMMemoryBufferRef obj;  /* after jit_unit_finish; jit_unit_take_object hands it over */
    jit_cache_key key;
    bool cached;              /* obj came from the cache */
    size_t code_bytes;        /* machine code (.text sections) of obj */
    double lower_ms, optimize_ms, codegen_ms;
} jit_unit;

/* Lowers unit `unit` of every struct of `codec`, or, when the cache holds its
 * object, only reads that. NULL on failure (FBE_JIT_DEBUG says why). */
jit_unit *jit_unit_lower(const fbe_codec *codec, int unit, const jit_unit_options *opts);

/* Whether the cache holds unit `unit`'s object (a key and a stat, no lowering). */
bool jit_unit_in_cache(int unit, const jit_unit_options *opts);

/* From the cache, or optimized and compiled (and then stored in the cache). */
bool jit_unit_finish(jit_unit *u);

/* The symbol of entry point r (what the object defines). */
void jit_unit_entry_name(const jit_unit *u, jit_entry_ref r, char buf[JIT_ENTRY_NAME_MAX]);

void jit_unit_free(jit_unit *u);

#endif
