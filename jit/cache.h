/* The compiled-object cache of fbe_jit_compile (fbe_jit_options.cache_dir).
 *
 * A cached module must not contain host addresses: its IR pointers (structs and
 * fields, for error reports and defaults) become references to external symbols
 * "fbe.ir.s<i>" and "fbe.ir.s<i>.f<j>" (struct i of the codec, field j), defined
 * as absolute symbols when the object is loaded. The key hashes the lowered,
 * unoptimized module with the target, CPU, features, optimization level and the
 * LLVM and fbe-c versions; a hit skips optimization and code generation. */
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

void jit_cache_key_of(LLVMModuleRef mod, const char *triple, const char *cpu,
                      const char *features, int opt_level, jit_cache_key *key);

/* The cached object, or NULL on a miss (or an unreadable entry). */
LLVMMemoryBufferRef jit_cache_load(const char *dir, const jit_cache_key *key);

/* Stores atomically (a temporary file renamed into place); creates dir if it
 * does not exist. False if it could not (the cache is then just not used). */
bool jit_cache_store(const char *dir, const jit_cache_key *key, const char *data, size_t size);

void jit_cache_remove(const char *dir, const jit_cache_key *key);

#endif
