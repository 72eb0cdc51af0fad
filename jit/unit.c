/* Compiling one unit of a codec to an object (unit.h). */
#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Object.h>

#include "codec_impl.h"

typedef struct lower_ctx {
    const jit_unit_options *opts;
} lower_ctx;

static bool before_emit(jit_emit *e, void *ctx, char *err, size_t size)
{
    (void)err;
    (void)size;
    const jit_unit_options *o = ((lower_ctx *)ctx)->opts;
    e->generation = o->generation;
    e->entry_types = o->types;
    e->entry_ops = o->entry_ops;
    /* A cached object must not hold this process's addresses (cache.h). */
    if (o->cache_dir)
        e->host_ptr = jit_cache_host_ptr;
    return true;
}

static bool collect_entries(jit_unit *u)
{
    const jit_emit *e = &u->jm.e;
    u->entries = malloc(sizeof *u->entries * (e->count * 8 + 1));
    if (!u->entries)
        return false;
    for (size_t i = 0; i < e->count; i++)
        for (int m = 0; m < 2; m++)
            for (int op = 0; op < 4; op++)
                if (e->fns[i].entry[m][op])
                    u->entries[u->entry_count++] = (jit_entry_ref)(i * 8 + (size_t)m * 4 + (size_t)op);
    return true;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The entry points a cached object defines: every candidate of the unit (each
 * type's two ops of its side) whose symbol the object has. */
static bool entries_of_object(jit_unit *u, size_t type_count)
{
    char *msg = NULL;
    LLVMBinaryRef bin = LLVMCreateBinary(u->obj, u->ctx, &msg);
    if (msg)
        LLVMDisposeMessage(msg);
    if (!bin)
        return false;
    /* The names point into the object's buffer, alive with bin. */
    size_t count = 0, cap = 64;
    const char **names = malloc(sizeof *names * cap);
    bool ok = names != NULL;
    LLVMSymbolIteratorRef it = ok ? LLVMObjectFileCopySymbolIterator(bin) : NULL;
    for (; ok && it && !LLVMObjectFileIsSymbolIteratorAtEnd(bin, it); LLVMMoveToNextSymbol(it)) {
        if (count == cap) {
            const char **grown = realloc(names, sizeof *names * (cap *= 2));
            ok = grown != NULL;
            if (!ok)
                break;
            names = grown;
        }
        names[count++] = LLVMGetSymbolName(it);
    }
    if (it)
        LLVMDisposeSymbolIterator(it);
    u->entries = ok ? malloc(sizeof *u->entries * (type_count * jit_unit_op_count(u->unit) + 1))
                    : NULL;
    ok = ok && u->entries;
    if (ok)
        qsort(names, count, sizeof *names, by_name);
    fbe_op first_op, last_op;
    fbe_model m = jit_unit_ops(u->unit, &first_op, &last_op);
    for (size_t i = 0; ok && i < type_count; i++)
        for (int op = (int)first_op; op <= (int)last_op; op++) {
            jit_entry_ref r = (jit_entry_ref)(i * 8 + (size_t)m * 4 + (size_t)op);
            char name[JIT_ENTRY_NAME_MAX];
            const char *key = name;
            jit_unit_entry_name(u, r, name);
            if (bsearch(&key, names, count, sizeof *names, by_name))
                u->entries[u->entry_count++] = r;
        }
    free(names);
    LLVMDisposeBinary(bin);
    return ok;
}

/* The unit's operations, for its cache key. */
static unsigned unit_ops(int unit, const jit_unit_options *o)
{
    return jit_unit_entry_ops(unit, o->entry_ops ? o->entry_ops : ~0u);
}

bool jit_unit_in_cache(int unit, const jit_unit_options *opts)
{
    if (!opts->cache_dir || !opts->ir)
        return false;
    jit_target target = {.cpu = opts->cpu, .features = opts->features,
                         .opt_level = opts->opt_level, .object = true};
    char *triple, *cpu, *features;
    if (!jit_target_names(&target, &triple, &cpu, &features, NULL, 0))
        return false;
    jit_cache_key key;
    jit_cache_unit_key(opts->ir, unit, unit_ops(unit, opts), opts->generation, opts->types_key,
                       triple, cpu, features, opts->opt_level, &key);
    LLVMDisposeMessage(triple);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);
    return jit_cache_has(opts->cache_dir, &key);
}

/* A hit of the object cache: the unit is its object. */
static bool lower_from_cache(jit_unit *u, const fbe_codec *codec)
{
    const jit_unit_options *o = &u->opts;
    jit_cache_unit_key(o->ir, u->unit, unit_ops(u->unit, o), o->generation, o->types_key, u->triple,
                       u->cpu, u->features, o->opt_level, &u->key);
    u->obj = jit_cache_load(o->cache_dir, &u->key);
    if (!u->obj)
        return false;
    if (!entries_of_object(u, codec->type_count)) {
        LLVMDisposeMemoryBuffer(u->obj);
        u->obj = NULL;
        free(u->entries);
        u->entries = NULL;
        u->entry_count = 0;
        return false;
    }
    u->cached = true;
    return true;
}

jit_unit *jit_unit_lower(const fbe_codec *codec, int unit, const jit_unit_options *opts)
{
    double t0 = jit_now_ms();
    jit_unit *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->unit = unit;
    u->opts = *opts;
    jit_target target = {.cpu = opts->cpu, .features = opts->features,
                         .opt_level = opts->opt_level, .object = true};
    if (!jit_target_names(&target, &u->triple, &u->cpu, &u->features, NULL, 0)) {
        free(u);
        return NULL;
    }
    u->ctx = LLVMContextCreate();
    if (opts->cache_dir && opts->ir && lower_from_cache(u, codec)) {
        u->lower_ms = jit_now_ms() - t0;
        return u;
    }
    u->tm = jit_target_machine_for(&target, u->triple, u->cpu, u->features, NULL, 0);
    if (!u->tm) {
        jit_unit_free(u);
        return NULL;
    }
    lower_ctx lc = {&u->opts};
    jit_module_hooks hooks = {.before = before_emit, .ctx = &lc};
    if (!jit_module_lower(&u->jm, u->ctx, u->tm, codec, JIT_UNIT(unit), &hooks, NULL, 0) ||
        !collect_entries(u)) {
        jit_unit_free(u);
        return NULL;
    }
    u->lower_ms = jit_now_ms() - t0;
    return u;
}

/* The bytes of machine code in the object: what the unit costs in memory. */
static size_t text_bytes(LLVMMemoryBufferRef obj, LLVMContextRef ctx)
{
    char *msg = NULL;
    LLVMBinaryRef bin = LLVMCreateBinary(obj, ctx, &msg);
    if (msg)
        LLVMDisposeMessage(msg);
    if (!bin)
        return 0;
    size_t total = 0;
    LLVMSectionIteratorRef it = LLVMObjectFileCopySectionIterator(bin);
    while (it && !LLVMObjectFileIsSectionIteratorAtEnd(bin, it)) {
        const char *name = LLVMGetSectionName(it);
        if (name && strncmp(name, ".text", 5) == 0)
            total += (size_t)LLVMGetSectionSize(it);
        LLVMMoveToNextSection(it);
    }
    if (it)
        LLVMDisposeSectionIterator(it);
    LLVMDisposeBinary(bin);
    return total;
}

bool jit_unit_finish(jit_unit *u)
{
    double t0 = jit_now_ms();
    /* The key was computed (and missed) before lowering. */
    const char *dir = u->opts.cache_dir && u->opts.ir ? u->opts.cache_dir : NULL;
    bool ok = true;
    if (!u->obj) {
        ok = jit_module_optimize(&u->jm, u->tm, u->opts.opt_level, NULL, 0);
        u->optimize_ms = ok ? u->jm.optimize_ms : 0;
        t0 = jit_now_ms();
        char *msg = NULL;
        if (ok && LLVMTargetMachineEmitToMemoryBuffer(u->tm, u->jm.mod, LLVMObjectFile, &msg, &u->obj)) {
            if (getenv("FBE_JIT_DEBUG"))
                fprintf(stderr, "fbe-c JIT: codegen: %s\n", msg ? msg : "");
            u->obj = NULL;
            ok = false;
        }
        if (msg)
            LLVMDisposeMessage(msg);
        if (ok && dir &&
            !jit_cache_store(dir, &u->key, LLVMGetBufferStart(u->obj), LLVMGetBufferSize(u->obj)) &&
            getenv("FBE_JIT_DEBUG"))
            fprintf(stderr, "fbe-c JIT: cannot write the cache in %s\n", dir);
    }
    /* jit_module_optimize releases the module when it fails */
    if (u->jm.mod) {
        LLVMDisposeModule(u->jm.mod);
        u->jm.mod = NULL;
    }
    if (ok)
        u->code_bytes = text_bytes(u->obj, u->ctx);
    u->codegen_ms = jit_now_ms() - t0;
    return ok;
}

void jit_unit_entry_name(const jit_unit *u, jit_entry_ref r, char buf[JIT_ENTRY_NAME_MAX])
{
    jit_emit e = {.generation = u->opts.generation};
    jit_entry_name(&e, r / 8, (fbe_model)(r / 4 % 2), (int)(r % 4), buf);
}

void jit_unit_free(jit_unit *u)
{
    if (!u)
        return;
    if (u->jm.mod)
        LLVMDisposeModule(u->jm.mod);
    jit_module_dispose(&u->jm);
    if (u->obj)
        LLVMDisposeMemoryBuffer(u->obj);
    if (u->ctx)
        LLVMContextDispose(u->ctx);
    if (u->tm)
        LLVMDisposeTargetMachine(u->tm);
    LLVMDisposeMessage(u->triple);
    LLVMDisposeMessage(u->cpu);
    LLVMDisposeMessage(u->features);
    free(u->entries);
    free(u);
}
