/* The compiled-object cache (see cache.h). */
#define _POSIX_C_SOURCE 200809L
#include "cache.h"
#include "module.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm-c/Orc.h>

#include "fbe/schema.h"
#include "interp/program.h"
#include "jit_source_hash.h"

#ifndef FBE_VERSION
#define FBE_VERSION "unknown"
#endif

/* ---- symbolic IR pointers ---------------------------------------------------------- */

static bool ir_symbol(const fbe_codec *codec, const void *p, char *buf, size_t size)
{
    for (size_t i = 0; i < codec->type_count; i++) {
        const fbe_ir_struct *st = codec->types[i].ir;
        if (p == st) {
            snprintf(buf, size, "fbe.ir.s%zu", i);
            return true;
        }
        if (p == codec->types[i].impl) { /* the interpreter's program (older writers) */
            snprintf(buf, size, "fbe.ir.s%zu.prog", i);
            return true;
        }
        if (p == &codec->types[i]) { /* the type (an entry point hands a call over) */
            snprintf(buf, size, "fbe.ir.s%zu.type", i);
            return true;
        }
        const fbe_ir_field *f = p;
        if (st->field_count && f >= st->fields && f < st->fields + st->field_count) {
            if ((size_t)((const char *)p - (const char *)st->fields) % sizeof *f)
                return false;
            snprintf(buf, size, "fbe.ir.s%zu.f%zu", i, (size_t)(f - st->fields));
            return true;
        }
    }
    return false;
}

LLVMValueRef jit_cache_host_ptr(jit_emit *e, const void *p)
{
    char name[64];
    if (!ir_symbol(e->codec, p, name, sizeof name))
        return NULL;
    LLVMValueRef g = LLVMGetNamedGlobal(e->mod, name);
    if (!g) {
        g = LLVMAddGlobal(e->mod, e->i8, name);
        LLVMSetLinkage(g, LLVMExternalLinkage);
        LLVMSetGlobalConstant(g, 1);
    }
    return g;
}

bool jit_cache_define_ir(LLVMOrcLLJITRef jit, const fbe_codec *codec)
{
    size_t n = 0;
    for (size_t i = 0; i < codec->type_count; i++)
        n += 3 + codec->types[i].ir->field_count;
    LLVMOrcCSymbolMapPair *pairs = calloc(n + 1, sizeof *pairs);
    if (!pairs)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < codec->type_count; i++) {
        const fbe_ir_struct *st = codec->types[i].ir;
        for (size_t j = 0; j <= st->field_count + 2; j++) {
            const void *p = j == 0                      ? (const void *)st
                            : j <= st->field_count     ? (const void *)&st->fields[j - 1]
                            : j == st->field_count + 1 ? codec->types[i].impl
                                                        : (const void *)&codec->types[i];
            char name[64];
            ir_symbol(codec, p, name, sizeof name);
            pairs[k].Name = LLVMOrcLLJITMangleAndIntern(jit, name);
            pairs[k].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)p;
            pairs[k].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported;
            pairs[k].Sym.Flags.TargetFlags = 0;
            k++;
        }
    }
    LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, k);
    free(pairs);
    LLVMErrorRef err = LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(jit), mu);
    if (err) {
        LLVMConsumeError(err);
        return false;
    }
    return true;
}

/* ---- keys ---------------------------------------------------------------------------- */

typedef struct hasher {
    uint64_t a, b;
} hasher;

/* Two lanes, FNV-1a-like and multiplicative, eight bytes a step (the cache
 * hashes whole objects on every hit, jit_cache_load). Not cryptographic: keys
 * and sums catch changes and damage, not an attacker (whoever can write the
 * cache directory can write the program). */
static void hash_bytes(hasher *h, const void *data, size_t n)
{
    const uint8_t *p = data;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h->a = (h->a ^ w) * 0x100000001b3ull;
        h->b = (h->b + w + 1) * 0x9e3779b97f4a7c15ull;
        h->b ^= h->b >> 29;
    }
    for (; i < n; i++) {
        h->a = (h->a ^ p[i]) * 0x100000001b3ull;
        h->b = (h->b + p[i] + 1) * 0x9e3779b97f4a7c15ull;
        h->b ^= h->b >> 29;
    }
}

static void hash_str(hasher *h, const char *s)
{
    hash_bytes(h, s ? s : "", (s ? strlen(s) : 0) + 1);
}

bool jit_cache_ir_digest(const fbe_schema *schema, unsigned max_depth, jit_cache_digest *out)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return false;
    /* fbec ir's text names every input of the layouts and the lowering
     * (types, offsets, defaults, attributes), losslessly; the build's source
     * hash covers how they are derived. */
    fprintf(f, "max_depth %u\n", max_depth);
    bool ok = true; /* a name printed in part could make two schemas one key */
    for (size_t i = 0; i < fbe_schema_package_count(schema); i++)
        ok = fbe_ir_print_package(fbe_schema_package(schema, i), f) && ok;
    ok = ok && !ferror(f);
    if (fclose(f) != 0)
        ok = false;
    if (ok) {
        hasher h = {0xcbf29ce484222325ull, 0x243f6a8885a308d3ull};
        hash_bytes(&h, &len, sizeof len);
        hash_bytes(&h, text, len);
        out->h[0] = h.a;
        out->h[1] = h.b;
    }
    free(text);
    return ok;
}

void jit_cache_unit_key(const jit_cache_digest *ir, int unit, unsigned ops, unsigned generation,
                        uint64_t types_key, const char *triple, const char *cpu, const char *features,
                        int opt_level, jit_cache_key *key)
{
    hasher h = {0xcbf29ce484222325ull, 0x243f6a8885a308d3ull};
    char meta[256];
    unsigned major, minor, patch;
    LLVMGetVersion(&major, &minor, &patch);
    snprintf(meta, sizeof meta,
             "fbe-c %s sources %s LLVM %u.%u.%u O%d unit %d ops %x gen %u types %llx", FBE_VERSION,
             FBE_JIT_SOURCE_HASH, major, minor, patch, opt_level, unit, ops, generation,
             (unsigned long long)types_key);
    hash_str(&h, meta);
    char passes[8192];
    jit_pass_pipeline(opt_level, passes, sizeof passes);
    hash_str(&h, passes);
    hash_str(&h, jit_llvm_args());
    hash_str(&h, triple);
    hash_str(&h, cpu);
    hash_str(&h, features);
    hash_bytes(&h, ir->h, sizeof ir->h);
    key->h[0] = h.a;
    key->h[1] = h.b;
    snprintf(key->hex, sizeof key->hex, "%016llx%016llx", (unsigned long long)h.a,
             (unsigned long long)h.b);
}

/* ---- files --------------------------------------------------------------------------- */

/* An entry is the object followed by this trailer: a sum of the object's bytes
 * and of its key. A damaged entry (a file system that lost the write before
 * the rename after a crash, a bad disk, a file copied under another key's
 * name) is then a miss that compiles the unit again, never code that runs
 * wrong or an object LLVM aborts on. */
typedef struct entry_trailer {
    char magic[8];
    uint64_t size;
    uint64_t sum[2];
} entry_trailer;

/* (no terminating NUL: eight bytes in the file) */
static const char trailer_magic[8] = {'f', 'b', 'e', '-', 's', 'u', 'm', '1'};
_Static_assert(sizeof(entry_trailer) == 32, "docs/aot.md and test_cache_damaged say 32 bytes");

static char *entry_path(const char *dir, const jit_cache_key *key, const char *suffix)
{
    size_t n = strlen(dir) + sizeof key->hex + 64;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/fbe-%s.o%s", dir, key->hex, suffix);
    return p;
}

/* A regular file that can hold an object and its trailer. */
static bool entry_file(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           (size_t)st.st_size > sizeof(entry_trailer);
}

bool jit_cache_has(const char *dir, const jit_cache_key *key)
{
    char *path = entry_path(dir, key, "");
    bool has = entry_file(path);
    free(path);
    return has;
}

static void entry_sum(const jit_cache_key *key, const char *data, size_t size, uint64_t out[2])
{
    hasher h = {key->h[0], key->h[1]};
    hash_bytes(&h, &size, sizeof size);
    hash_bytes(&h, data, size);
    out[0] = h.a;
    out[1] = h.b;
}

LLVMMemoryBufferRef jit_cache_load(const char *dir, const jit_cache_key *key)
{
    char *path = entry_path(dir, key, "");
    LLVMMemoryBufferRef file = NULL, obj = NULL;
    char *msg = NULL;
    if (entry_file(path) && LLVMCreateMemoryBufferWithContentsOfFile(path, &file, &msg))
        file = NULL;
    if (msg)
        LLVMDisposeMessage(msg);
    /* The copy is what is checked and loaded (LLVM may map the file, which
     * another process could change meanwhile); the file may have shrunk since
     * the stat. */
    entry_trailer t;
    size_t size = file ? LLVMGetBufferSize(file) : 0;
    if (size > sizeof t) {
        size -= sizeof t;
        memcpy(&t, LLVMGetBufferStart(file) + size, sizeof t);
        obj = LLVMCreateMemoryBufferWithMemoryRangeCopy(LLVMGetBufferStart(file), size, path);
    }
    if (file)
        LLVMDisposeMemoryBuffer(file);
    free(path);
    uint64_t sum[2];
    if (obj)
        entry_sum(key, LLVMGetBufferStart(obj), size, sum);
    if (obj && (memcmp(t.magic, trailer_magic, sizeof t.magic) != 0 || t.size != size ||
                t.sum[0] != sum[0] || t.sum[1] != sum[1])) {
        LLVMDisposeMemoryBuffer(obj);
        obj = NULL;
    }
    return obj;
}

static bool write_all(int fd, const char *data, size_t size)
{
    for (size_t done = 0; done < size;) {
        ssize_t w = write(fd, data + done, size - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        done += (size_t)w;
    }
    return true;
}

bool jit_cache_store(const char *dir, const jit_cache_key *key, const char *data, size_t size)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return false;
    char *path = entry_path(dir, key, "");
    /* Unique per process and call: two threads may store the same unit (two
     * codecs of one schema compiled at once). */
    static unsigned long counter;
    char suffix[48];
    snprintf(suffix, sizeof suffix, ".tmp.%ld.%lu", (long)getpid(),
             __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED));
    char *tmp = entry_path(dir, key, suffix);
    bool ok = path && tmp;
    int fd = ok ? open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666) : -1;
    entry_trailer t = {.size = size};
    memcpy(t.magic, trailer_magic, sizeof t.magic);
    entry_sum(key, data, size, t.sum);
    ok = fd >= 0 && write_all(fd, data, size) && write_all(fd, (const char *)&t, sizeof t);
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    if (ok && rename(tmp, path) != 0)
        ok = false;
    if (!ok && fd >= 0)
        unlink(tmp);
    free(path);
    free(tmp);
    return ok;
}

void jit_cache_remove(const char *dir, const jit_cache_key *key)
{
    char *path = entry_path(dir, key, "");
    if (path)
        unlink(path);
    free(path);
}
