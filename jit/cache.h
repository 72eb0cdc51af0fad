/* The compiled-object cache of fbe_jit_compile (fbe_jit_options.cache_dir).
 *
 * A cached module must not contain host addresses: its IR pointers (structs and
 * fields, for error reports and defaults) become references to external symbols
 * "fbe.ir.s<i>" and "fbe.ir.s<i>.f<j>" (struct i of the codec, field j), and the
 * interpreter program of struct i (older writers' bodies) "fbe.ir.s<i>.prog",
 * defined as absolute symbols when the object is loaded.
 *
 * The key is known before anything is lowered, so a hit costs a hash and a file
 * read: it hashes the schema's IR (every package, as `fbec ir` prints it), the
 * codec's depth limit, the unit and its selected structs (fbe_jit_options.types),
 * the target, CPU, features, optimization level, pass pipeline and LLVM options,
 * the LLVM and fbe-c versions, and a hash of the
 * sources that decide what is lowered (jit/, ir/, runtime/, frontend/ and the
 * public headers, computed when fbe-c is built: cmake/HashSources.cmake). */
#ifndef FBE_JIT_CACHE_H
#define FBE_JIT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/LLJIT.h>

#include "emit.h"

typedef struct jit_cache_key {
    uint64_t h[2];
    char hex[33];
} jit_cache_key;

/* The jit_emit host_ptr hook of cached modules (host_ptr_ctx unused). */
LLVMValueRef jit_cache_host_ptr(jit_emit *e, const void *p);

/* Defines the "fbe.ir.*" symbols of `codec` in the JIT's main dylib. */
bool jit_cache_define_ir(LLVMOrcLLJITRef jit, const fbe_codec *codec);

typedef struct jit_cache_digest {
    uint64_t h[2];
} jit_cache_digest;

struct fbe_schema;

/* The part of every unit's key that depends on the schema and codec. False:
 * out of memory (the cache is then not used). */
bool jit_cache_ir_digest(const struct fbe_schema *schema, unsigned max_depth,
                         jit_cache_digest *out);

/* The key of one unit's object (types_key: the structs whose entry points it
 * has, 0 for all; ops: its operations, JIT_ENTRY_OP bits). */
void jit_cache_unit_key(const jit_cache_digest *ir, int unit, unsigned ops, unsigned generation,
                        uint64_t types_key, const char *triple, const char *cpu, const char *features,
                        int opt_level, jit_cache_key *key);

/* Whether an entry exists (it may still fail to load). */
bool jit_cache_has(const char *dir, const jit_cache_key *key);

/* The cached object, or NULL on a miss, an unreadable entry or one whose sum
 * (a trailer after the object, written by jit_cache_store) does not match. */
LLVMMemoryBufferRef jit_cache_load(const char *dir, const jit_cache_key *key);

/* Stores atomically (a temporary file renamed into place); creates dir if it
 * does not exist. False if it could not (the cache is then just not used). */
bool jit_cache_store(const char *dir, const jit_cache_key *key, const char *data, size_t size);

void jit_cache_remove(const char *dir, const jit_cache_key *key);

#endif
