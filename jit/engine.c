/* fbe_jit_compile: an interpreter codec first, then native code unit by unit
 * (module.h: standard/final x write/read). Each unit is lowered, optimized and
 * compiled to a relocatable object (unit.c), loaded into the codec's ORC LLJIT
 * and its entry points published atomically (fbe_codec_set_op). Eager mode does
 * it all before returning, on several threads; background mode returns at once
 * and lets detached threads do it, units already called first (docs/jit.md). */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* on_exit */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/TargetMachine.h>

#include "cache.h"
#include "codec_impl.h"
#include "fbe/jit.h"
#include "fbe/schema.h"
#include "helpers.h"
#include "interp/program.h"
#include "module.h"
#include "unit.h"

enum { UNIT_OFF, UNIT_QUEUED, UNIT_RUNNING, UNIT_NATIVE, UNIT_FAILED };

/* Shared by the codec and its compile threads; freed by the last of them. */
typedef struct jit_state {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    unsigned refs;      /* the codec + detached background threads */
    fbe_codec *codec;   /* NULL once the codec is freed */
    bool cancel;
    unsigned lowering;  /* threads reading the codec: fbe_codec_free waits for them */
    LLVMOrcLLJITRef jit;
    jit_unit_options opts;
    char *cpu, *features, *cache_dir; /* opts' strings, owned */
    jit_cache_digest ir_digest;       /* opts.ir: the schema's part of the cache keys */
    /* Background codecs hash the schema on their first compile thread, not in
     * fbe_jit_compile: it is most of what that call would do for a large one. */
    const struct fbe_schema *schema;
    enum { DIGEST_NONE, DIGEST_PENDING, DIGEST_RUNNING } digest;
    uint8_t state[JIT_UNIT_COUNT];
    unsigned generation[JIT_UNIT_COUNT];
    bool retried[JIT_UNIT_COUNT];
    uint8_t called[JIT_UNIT_COUNT]; /* set by the trampolines (relaxed atomics) */
    fbe_model_ops *interp;           /* [type * 2 + model]: the interpreter's entry points */
    uint8_t *native_types;           /* opts.types: [type] 1 if its entry points are compiled */
    size_t native_type_count;        /* types with native entry points (all without a list) */
    /* Background codecs compile a unit's called types first (a part of the
     * unit), then the rest: [unit * type_count + type], set by the trampolines
     * (relaxed atomics) and under the lock once installed. */
    uint8_t *type_called, *type_installed;
    double started_ms;
    fbe_jit_stats stats;
    bool all_cached;
} jit_state;

/* ---- process exit: no compile thread may run while LLVM's statics are destroyed -- */

/* At exit, handlers run in the reverse order of their registration, and LLVM
 * registers the destructor of each function-local static when it first uses it.
 * The exit handler below stops the background threads at their next step and
 * waits for them; to run before the destructors of the statics compilation
 * uses, it is registered again after each step (a bounded number of times),
 * once the thread's first compilation (jit_warm_up) has created them. A thread
 * still in that first compilation at exit may already see its statics
 * destroyed: then the process ends at once, with its exit status, after
 * flushing stdio (glibc's on_exit gives the status). */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t live_changed = PTHREAD_COND_INITIALIZER;
static unsigned live_threads, warming_threads, exit_registrations;
static bool exiting;

enum { MAX_EXIT_REGISTRATIONS = 64 };

static void wait_for_threads(int status)
{
    pthread_mutex_lock(&live_lock);
    if (exiting) { /* an earlier registration already waited */
        pthread_mutex_unlock(&live_lock);
        return;
    }
    exiting = true;
    if (warming_threads) {
        pthread_mutex_unlock(&live_lock);
        fflush(NULL);
        _exit(status);
    }
    while (live_threads)
        pthread_cond_wait(&live_changed, &live_lock);
    pthread_mutex_unlock(&live_lock);
}

#ifdef __GLIBC__
static void exit_handler(int status, void *arg)
{
    (void)arg;
    wait_for_threads(status);
}
#else
static void exit_handler(void)
{
    wait_for_threads(1);
}
#endif

/* live_lock held */
static void register_exit_handler(void)
{
    if (exiting || exit_registrations >= MAX_EXIT_REGISTRATIONS)
        return;
    exit_registrations++;
#ifdef __GLIBC__
    on_exit(exit_handler, NULL);
#else
    atexit(exit_handler);
#endif
}

/* Also re-registers the exit handler after a background thread's step. */
static bool process_exiting(bool after_step)
{
    pthread_mutex_lock(&live_lock);
    if (after_step)
        register_exit_handler();
    bool e = exiting;
    pthread_mutex_unlock(&live_lock);
    return e;
}

/* ---- state ------------------------------------------------------------------------- */

bool fbe_jit_available(void)
{
    return true;
}

static bool failed(LLVMErrorRef err, const char *what)
{
    return jit_failed(err, what, NULL, 0);
}

static void state_free(jit_state *s)
{
    if (s->jit)
        failed(LLVMOrcDisposeLLJIT(s->jit), "dispose");
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->changed);
    free(s->cpu);
    free(s->features);
    free(s->cache_dir);
    free(s->interp);
    free(s->native_types);
    free(s->type_called);
    free(s->type_installed);
    free(s);
}

/* Drops one reference (lock held; released here). */
static void state_release(jit_state *s)
{
    bool last = --s->refs == 0;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    if (last)
        state_free(s);
}

static char *dup_or_null(const char *p, bool *ok)
{
    if (!p)
        return NULL;
    char *d = strdup(p);
    if (!d)
        *ok = false;
    return d;
}

/* A selection's part of the cache keys. */
static uint64_t selection_key(const uint8_t *flags, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ flags[i]) * 0x100000001b3ull;
    return h;
}

/* opts->types as a flag per struct of the codec (s->native_types; NULL for
 * every struct), and its part of the cache keys. FBE_INVALID_ARGUMENT for a name
 * the codec does not have. */
static fbe_status select_types(jit_state *s, const fbe_codec *codec, const char *const *names)
{
    s->native_type_count = codec->type_count;
    if (!names)
        return FBE_OK;
    s->native_types = calloc(codec->type_count + 1, 1);
    if (!s->native_types)
        return FBE_NOMEM;
    for (const char *const *n = names; *n; n++) {
        const fbe_type *t = fbe_codec_type(codec, *n);
        if (!t)
            return FBE_INVALID_ARGUMENT;
        s->native_types[t - codec->types] = 1;
    }
    s->native_type_count = 0;
    for (size_t i = 0; i < codec->type_count; i++)
        s->native_type_count += s->native_types[i];
    s->opts.types = s->native_types;
    s->opts.types_key = selection_key(s->native_types, codec->type_count);
    return FBE_OK;
}

static jit_state *state_new(const fbe_schema *schema, fbe_codec *codec, const fbe_jit_options *o,
                            fbe_status *status)
{
    *status = FBE_NOMEM;
    jit_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    bool ok = true;
    s->cpu = dup_or_null(o->cpu, &ok);
    s->features = dup_or_null(o->features, &ok);
    /* The environment's cache serves programs that do not choose one (and the
     * test suite, which compiles the same schemas in many processes). */
    const char *env_cache = getenv("FBE_JIT_CACHE_DIR");
    s->cache_dir = dup_or_null(o->cache_dir ? o->cache_dir : env_cache && *env_cache ? env_cache : NULL, &ok);
    s->interp = calloc(codec->type_count * 2 + 1, sizeof *s->interp);
    s->type_called = calloc(codec->type_count * JIT_UNIT_COUNT + 1, 1);
    s->type_installed = calloc(codec->type_count * JIT_UNIT_COUNT + 1, 1);
    ok = ok && s->interp && s->type_called && s->type_installed;
    fbe_status selected = ok ? select_types(s, codec, o->types) : FBE_NOMEM;
    if (selected != FBE_OK || pthread_mutex_init(&s->lock, NULL) != 0) {
        *status = selected;
        free(s->cpu);
        free(s->features);
        free(s->cache_dir);
        free(s->interp);
        free(s->native_types);
        free(s->type_called);
        free(s->type_installed);
        free(s);
        return NULL;
    }
    pthread_cond_init(&s->changed, NULL);
    s->refs = 1;
    s->codec = codec;
    s->opts.cpu = s->cpu;
    s->opts.features = s->features;
    s->opts.opt_level = o->opt_level;
    s->opts.cache_dir = s->cache_dir;
    s->schema = schema;
    if (s->cache_dir && o->mode != FBE_JIT_EAGER && !o->require_native)
        s->digest = DIGEST_PENDING;
    else if (s->cache_dir &&
             jit_cache_ir_digest(schema, fbe_codec_max_depth(codec), &s->ir_digest))
        s->opts.ir = &s->ir_digest;
    s->opts.entry_ops = jit_entry_ops_of(o->models, o->parts);
    unsigned units = s->native_type_count ? jit_units_of(s->opts.entry_ops) : 0;
    for (int u = 0; u < JIT_UNIT_COUNT; u++)
        s->state[u] = units & JIT_UNIT(u) ? UNIT_QUEUED : UNIT_OFF;
    s->all_cached = s->cache_dir != NULL;
    s->stats.mode = o->mode;
    *status = FBE_OK;
    return s;
}

/* ---- the LLJIT and installation ------------------------------------------------------ */

static bool define_helpers(LLVMOrcLLJITRef jit)
{
    const jit_helper *helpers;
    size_t n = jit_helpers(&helpers);
    LLVMOrcCSymbolMapPair *pairs = calloc(n, sizeof *pairs);
    if (!pairs)
        return false;
    for (size_t i = 0; i < n; i++) {
        pairs[i].Name = LLVMOrcLLJITMangleAndIntern(jit, helpers[i].name);
        pairs[i].Sym.Address = (LLVMOrcExecutorAddress)helpers[i].address;
        pairs[i].Sym.Flags.GenericFlags = LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
        pairs[i].Sym.Flags.TargetFlags = 0;
    }
    LLVMOrcMaterializationUnitRef mu = LLVMOrcAbsoluteSymbols(pairs, n);
    free(pairs);
    return !failed(LLVMOrcJITDylibDefine(LLVMOrcLLJITGetMainJITDylib(jit), mu), "helpers");
}

/* An LLJIT for exactly the CPU and features of the units, with the runtime
 * helpers (and, for cached objects, the IR's symbols) defined. Lock held. */
static bool create_jit(jit_state *s)
{
    jit_target target = {.cpu = s->cpu, .features = s->features, .opt_level = s->opts.opt_level};
    LLVMTargetMachineRef tm = jit_target_machine(&target, NULL, NULL, NULL, NULL, 0);
    if (!tm)
        return false;
    LLVMOrcJITTargetMachineBuilderRef jtmb = LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm);
    LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(builder, jtmb);
    if (failed(LLVMOrcCreateLLJIT(&s->jit, builder), "create")) {
        s->jit = NULL;
        return false;
    }
    if (define_helpers(s->jit) && (!s->cache_dir || jit_cache_define_ir(s->jit, s->codec)))
        return true;
    failed(LLVMOrcDisposeLLJIT(s->jit), "dispose");
    s->jit = NULL;
    return false;
}

/* Loads the unit's object and publishes its entry points (all or none). Lock
 * held, codec alive. */
static bool install_unit(jit_state *s, jit_unit *u)
{
    if (!s->jit && !create_jit(s))
        return false;
    LLVMMemoryBufferRef obj = u->obj;
    u->obj = NULL; /* the JIT owns it from here, even on failure */
    if (failed(LLVMOrcLLJITAddObjectFile(s->jit, LLVMOrcLLJITGetMainJITDylib(s->jit), obj),
               "add object"))
        return false;
    LLVMOrcExecutorAddress *addr = calloc(u->entry_count + 1, sizeof *addr);
    bool ok = addr != NULL;
    for (size_t k = 0; ok && k < u->entry_count; k++) {
        char name[JIT_ENTRY_NAME_MAX];
        jit_unit_entry_name(u, u->entries[k], name);
        ok = !failed(LLVMOrcLLJITLookup(s->jit, &addr[k], name), name) && addr[k];
    }
    for (size_t k = 0; ok && k < u->entry_count; k++) {
        jit_entry_ref r = u->entries[k];
        fbe_codec_set_op(s->codec, r / 8, (fbe_model)(r / 4 % 2), (fbe_op)(r % 4),
                         (fbe_entry_fn)(uintptr_t)addr[k]);
    }
    free(addr);
    return ok;
}

/* ---- the compile loop ---------------------------------------------------------------- */

static bool nothing_pending(const jit_state *s)
{
    for (int u = 0; u < JIT_UNIT_COUNT; u++)
        if (s->state[u] == UNIT_QUEUED || s->state[u] == UNIT_RUNNING)
            return false;
    return true;
}

static bool selected(const jit_state *s, size_t type)
{
    return !s->native_types || s->native_types[type];
}

/* How many types of unit u are installed (lock held; 0 without a codec). */
static size_t installed_count(const jit_state *s, int u)
{
    if (!s->codec)
        return 0;
    size_t n = s->codec->type_count, count = 0;
    for (size_t i = 0; i < n; i++)
        count += s->type_installed[(size_t)u * n + i];
    return count;
}

/* Whether a type of unit u has been called and is not installed yet (lock held). */
static bool unit_wanted(const jit_state *s, int u)
{
    if (!__atomic_load_n(&s->called[u], __ATOMIC_RELAXED) || !s->codec)
        return false;
    size_t n = s->codec->type_count;
    const uint8_t *called = s->type_called + (size_t)u * n;
    const uint8_t *done = s->type_installed + (size_t)u * n;
    for (size_t i = 0; i < n; i++)
        if (selected(s, i) && !done[i] && __atomic_load_n(&called[i], __ATOMIC_RELAXED))
            return true;
    return false;
}

/* The next unit: one with called types not installed yet first, else the first
 * queued. -1: none. */
static int pick_unit(jit_state *s)
{
    int first = -1;
    for (int u = 0; u < JIT_UNIT_COUNT; u++) {
        if (s->state[u] != UNIT_QUEUED)
            continue;
        if (unit_wanted(s, u))
            return u;
        if (first < 0)
            first = u;
    }
    return first;
}

/* Records the outcome of unit `u` (lock held), which compiled the types of
 * `part` (NULL: every selected one). A part leaves the rest queued. */
static void unit_done(jit_state *s, int u, const jit_unit *unit, const uint8_t *part, bool ok)
{
    if (ok) {
        size_t n = s->codec->type_count;
        uint8_t *done = s->type_installed + (size_t)u * n;
        for (size_t i = 0; i < n; i++) {
            if (part ? part[i] : selected(s, i))
                done[i] = 1;
        }
    }
    bool rest = installed_count(s, u) < s->native_type_count;
    s->state[u] = !ok ? UNIT_FAILED : rest ? UNIT_QUEUED : UNIT_NATIVE;
    if (unit) {
        s->stats.lower_ms += unit->lower_ms;
        s->stats.optimize_ms += unit->optimize_ms;
        s->stats.codegen_ms += unit->codegen_ms;
    }
    if (ok) {
        s->stats.functions += unit->entry_count;
        s->stats.code_bytes += unit->code_bytes;
        s->all_cached = s->all_cached && unit->cached;
    }
    if (nothing_pending(s) && s->stats.ready_ms == 0)
        s->stats.ready_ms = jit_now_ms() - s->started_ms;
    pthread_cond_broadcast(&s->changed);
}

/* The schema's digest for the cache keys, once, by the first thread that gets
 * here, while the codec (and so the schema) is alive: it counts as lowering,
 * which fbe_codec_free waits for. Called and returns with the lock held. */
static void digest_once(jit_state *s)
{
    while (s->digest == DIGEST_RUNNING)
        pthread_cond_wait(&s->changed, &s->lock);
    if (s->digest != DIGEST_PENDING || s->cancel || !s->codec)
        return;
    s->digest = DIGEST_RUNNING;
    s->lowering++;
    const struct fbe_schema *schema = s->schema;
    unsigned depth = fbe_codec_max_depth(s->codec);
    pthread_mutex_unlock(&s->lock);
    jit_cache_digest d;
    bool ok = jit_cache_ir_digest(schema, depth, &d);
    pthread_mutex_lock(&s->lock);
    if (ok) {
        s->ir_digest = d;
        s->opts.ir = &s->ir_digest;
    }
    s->lowering--;
    s->digest = DIGEST_NONE;
    pthread_cond_broadcast(&s->changed);
}

/* What unit u compiles next (lock held, codec alive): NULL for every selected
 * type at once (eager codecs; a background unit nobody has called, or whose
 * whole object is cached), else a mask to free: the called types not installed
 * yet when some are and others are not (so that a program using one type of a
 * large schema gets it native soon: the "entry points already called
 * first"), otherwise every type not installed yet (the rest). *oom on failure. */
static uint8_t *next_part(jit_state *s, int u, bool background, const jit_unit_options *o,
                          bool *oom)
{
    *oom = false;
    if (!background)
        return NULL;
    size_t n = s->codec->type_count;
    const uint8_t *called = s->type_called + (size_t)u * n;
    const uint8_t *done = s->type_installed + (size_t)u * n;
    size_t left = 0, called_left = 0;
    for (size_t i = 0; i < n; i++) {
        if (!selected(s, i) || done[i])
            continue;
        left++;
        called_left += __atomic_load_n(&called[i], __ATOMIC_RELAXED) != 0;
    }
    bool first = called_left > 0 && called_left < left;
    size_t installed = s->native_type_count - left;
    if (!first && installed == 0)
        return NULL;
    if (first && installed == 0 && jit_unit_in_cache(u, o))
        return NULL; /* loading the whole unit is quicker than compiling a part */
    uint8_t *part = calloc(n + 1, 1);
    if (!part) {
        *oom = true;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        part[i] = selected(s, i) && !done[i] &&
                  (!first || __atomic_load_n(&called[i], __ATOMIC_RELAXED) != 0);
    return part;
}

/* Compiles queued units until none is left or the codec is gone. Called and
 * returns with the lock held. */
static void compile_units(jit_state *s, bool background)
{
    digest_once(s);
    for (;;) {
        int u = s->cancel || process_exiting(background) ? -1 : pick_unit(s);
        if (u < 0)
            return;
        s->state[u] = UNIT_RUNNING;
        jit_unit_options o = s->opts;
        o.generation = s->generation[u];
        if (s->retried[u])
            o.cache_dir = NULL;
        bool oom;
        uint8_t *part = next_part(s, u, background, &o, &oom);
        if (oom) {
            unit_done(s, u, NULL, NULL, false);
            continue;
        }
        if (part) {
            o.types = part;
            o.types_key = selection_key(part, s->codec->type_count);
        }
        s->lowering++;
        const fbe_codec *codec = s->codec;
        pthread_mutex_unlock(&s->lock);
        jit_unit *unit = jit_unit_lower(codec, u, &o);
        pthread_mutex_lock(&s->lock);
        s->lowering--;
        pthread_cond_broadcast(&s->changed);
        pthread_mutex_unlock(&s->lock);
        bool ok = unit && jit_unit_finish(unit);
        pthread_mutex_lock(&s->lock);
        if (s->cancel) {
            s->state[u] = UNIT_FAILED;
            pthread_mutex_unlock(&s->lock);
            jit_unit_free(unit);
            free(part);
            pthread_mutex_lock(&s->lock);
            continue;
        }
        ok = ok && install_unit(s, unit);
        if (!ok && unit && unit->cached && !s->retried[u]) {
            /* A cached object that does not load: drop it, compile the unit again
             * under new names (the JIT keeps the failed ones). */
            jit_cache_remove(s->cache_dir, &unit->key);
            s->retried[u] = true;
            s->generation[u]++;
            s->state[u] = UNIT_QUEUED;
        } else {
            unit_done(s, u, unit, part, ok);
        }
        pthread_mutex_unlock(&s->lock);
        jit_unit_free(unit);
        free(part);
        pthread_mutex_lock(&s->lock);
    }
}

static void *eager_thread(void *arg)
{
    jit_state *s = arg;
    pthread_mutex_lock(&s->lock);
    compile_units(s, false);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static void *background_thread(void *arg)
{
    jit_state *s = arg;
    pthread_mutex_lock(&live_lock);
    warming_threads++;
    pthread_mutex_unlock(&live_lock);
    jit_warm_up();
    pthread_mutex_lock(&live_lock);
    warming_threads--;
    pthread_mutex_unlock(&live_lock);
    pthread_mutex_lock(&s->lock);
    compile_units(s, true);
    state_release(s);
    pthread_mutex_lock(&live_lock);
    live_threads--;
    pthread_cond_broadcast(&live_changed);
    pthread_mutex_unlock(&live_lock);
    return NULL;
}

static unsigned default_threads(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 4 ? 4 : (unsigned)n;
}

static unsigned queued_units(const jit_state *s)
{
    unsigned n = 0;
    for (int u = 0; u < JIT_UNIT_COUNT; u++)
        n += s->state[u] == UNIT_QUEUED;
    return n;
}

/* Everything native before returning; false if any unit failed. */
static bool compile_eager(jit_state *s, unsigned threads)
{
    /* Units whose object is cached load in about a millisecond each, faster
     * on this thread than with a second one starting LLVM beside it (proto,
     * four hits: 7.3 ms on one thread, 8.5 ms on two): only misses get threads. */
    unsigned misses = 0;
    for (int u = 0; u < JIT_UNIT_COUNT; u++)
        misses += s->state[u] == UNIT_QUEUED && !jit_unit_in_cache(u, &s->opts);
    if (threads > misses) /* more threads than units to compile have nothing to do */
        threads = misses ? misses : 1;
    pthread_t tid[JIT_UNIT_COUNT];
    unsigned started = 0;
    for (unsigned t = 1; t < threads; t++)
        if (pthread_create(&tid[started], NULL, eager_thread, s) == 0)
            started++;
    pthread_mutex_lock(&s->lock);
    compile_units(s, false);
    pthread_mutex_unlock(&s->lock);
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    s->stats.threads = started + 1;
    for (int u = 0; u < JIT_UNIT_COUNT; u++)
        if (s->state[u] == UNIT_FAILED)
            return false;
    return true;
}

/* ---- trampolines: the interpreter's entry points, noting which unit is wanted --- */

static const fbe_model_ops *noted(const fbe_type *t, fbe_model m, fbe_op op)
{
    jit_state *s = t->codec->backend_data;
    int u = jit_unit_of(m, op);
    size_t i = (size_t)(t - t->codec->types);
    uint8_t *flags[] = {&s->called[u], &s->type_called[(size_t)u * t->codec->type_count + i]};
    for (int k = 0; k < 2; k++)
        if (!__atomic_load_n(flags[k], __ATOMIC_RELAXED))
            __atomic_store_n(flags[k], 1, __ATOMIC_RELAXED);
    return &s->interp[i * 2 + m];
}

#define TRAMPOLINES(M, m)                                                                     \
    static size_t tramp_##m##_size(const fbe_type *t, const void *v)                         \
    {                                                                                         \
        return noted(t, M, FBE_OP_SIZE)->size(t, v);                                          \
    }                                                                                         \
    static fbe_status tramp_##m##_serialize(const fbe_type *t, const void *v, fbe_buffer *o) \
    {                                                                                         \
        return noted(t, M, FBE_OP_SERIALIZE)->serialize(t, v, o);                             \
    }                                                                                         \
    static fbe_status tramp_##m##_verify(const fbe_type *t, const uint8_t *d, size_t n,      \
                                         fbe_verify_info *i, const fbe_decode_options *o)     \
    {                                                                                         \
        return noted(t, M, FBE_OP_VERIFY)->verify(t, d, n, i, o);                             \
    }                                                                                         \
    static fbe_status tramp_##m##_deserialize(const fbe_type *t, const uint8_t *d, size_t n, \
                                              void *v, const fbe_decode_options *o,          \
                                              size_t *c)                                      \
    {                                                                                         \
        return noted(t, M, FBE_OP_DESERIALIZE)->deserialize(t, d, n, v, o, c);                \
    }

TRAMPOLINES(FBE_STANDARD, std)
TRAMPOLINES(FBE_FINAL, final)

static const fbe_model_ops trampolines[2] = {
    {tramp_std_size, tramp_std_serialize, tramp_std_verify, tramp_std_deserialize},
    {tramp_final_size, tramp_final_serialize, tramp_final_verify, tramp_final_deserialize},
};

/* Remembers the interpreter's entry points; with `trampolines` routes the
 * queued units' calls through them. */
static void save_interp(jit_state *s, bool with_trampolines)
{
    fbe_codec *c = s->codec;
    for (size_t i = 0; i < c->type_count; i++) {
        for (int m = 0; m < 2; m++) {
            fbe_model_ops *ops = &s->interp[i * 2 + (size_t)m];
            ops->size = (fbe_size_fn)fbe_codec_get_op(c, i, (fbe_model)m, FBE_OP_SIZE);
            ops->serialize = (fbe_serialize_fn)fbe_codec_get_op(c, i, (fbe_model)m, FBE_OP_SERIALIZE);
            ops->verify = (fbe_verify_fn)fbe_codec_get_op(c, i, (fbe_model)m, FBE_OP_VERIFY);
            ops->deserialize = (fbe_deserialize_fn)fbe_codec_get_op(c, i, (fbe_model)m, FBE_OP_DESERIALIZE);
            if (!with_trampolines)
                continue;
            const fbe_model_ops *t = &trampolines[m];
            for (int op = 0; op < 4; op++) {
                /* an operation its unit leaves out (parts) stays the interpreter's */
                if (s->state[jit_unit_of((fbe_model)m, op)] != UNIT_QUEUED || !selected(s, i) ||
                    !(s->opts.entry_ops & JIT_ENTRY_OP(m, op)))
                    continue;
                fbe_entry_fn fn = op == FBE_OP_SIZE        ? (fbe_entry_fn)t->size
                                  : op == FBE_OP_SERIALIZE ? (fbe_entry_fn)t->serialize
                                  : op == FBE_OP_VERIFY    ? (fbe_entry_fn)t->verify
                                                           : (fbe_entry_fn)t->deserialize;
                fbe_codec_set_op(c, i, (fbe_model)m, op, fn);
            }
        }
    }
}

/* ---- the public interface ------------------------------------------------------------ */

static void destroy_jit(fbe_codec *codec)
{
    jit_state *s = codec->backend_data;
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->cancel = true;
    while (s->lowering)
        pthread_cond_wait(&s->changed, &s->lock);
    s->codec = NULL;
    /* Units still in LLVM finish on their thread, which then finds the codec
     * gone; nothing calls into the JIT's code once the codec is freed. */
    LLVMOrcLLJITRef jit = s->jit;
    s->jit = NULL;
    state_release(s);
    if (jit)
        failed(LLVMOrcDisposeLLJIT(jit), "dispose");
    codec->backend_data = NULL;
}

static bool start_background(jit_state *s, unsigned threads)
{
    pthread_mutex_lock(&live_lock);
    register_exit_handler();
    pthread_mutex_unlock(&live_lock);
    if (threads > queued_units(s))
        threads = queued_units(s);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    unsigned started = 0;
    for (unsigned t = 0; t < threads; t++) {
        pthread_mutex_lock(&s->lock);
        s->refs++;
        pthread_mutex_unlock(&s->lock);
        pthread_mutex_lock(&live_lock);
        live_threads++;
        pthread_mutex_unlock(&live_lock);
        pthread_t tid;
        if (pthread_create(&tid, &attr, background_thread, s) != 0) {
            pthread_mutex_lock(&s->lock);
            s->refs--;
            pthread_mutex_unlock(&s->lock);
            pthread_mutex_lock(&live_lock);
            live_threads--;
            pthread_mutex_unlock(&live_lock);
            break;
        }
        started++;
    }
    pthread_attr_destroy(&attr);
    pthread_mutex_lock(&s->lock);
    s->stats.threads = started;
    pthread_mutex_unlock(&s->lock);
    return started > 0 || threads == 0;
}

fbe_codec *fbe_jit_compile(const fbe_schema *schema, const fbe_jit_options *opts,
                           fbe_status *status)
{
    double t0 = jit_now_ms();
    fbe_jit_options o = opts ? *opts : (fbe_jit_options){0};
    if (o.require_native)
        o.mode = FBE_JIT_EAGER;
    fbe_codec_options copts = {.max_depth = o.max_depth};
    fbe_codec *codec = fbe_interp_create(schema, &copts, status);
    if (!codec)
        return NULL;
    jit_init_native();
    fbe_status made;
    jit_state *s = state_new(schema, codec, &o, &made);
    if (!s) {
        fbe_codec_free(codec);
        if (status)
            *status = made;
        return NULL;
    }
    s->started_ms = t0;
    codec->backend_data = s;
    codec->destroy_backend = destroy_jit;
    bool background = o.mode != FBE_JIT_EAGER;
    save_interp(s, background);
    bool ok = background ? start_background(s, o.threads ? o.threads : 1)
                         : compile_eager(s, o.threads ? o.threads : default_threads());
    if (!ok && !background) {
        fbe_codec_free(codec);
        if (o.require_native) {
            if (status)
                *status = FBE_UNSUPPORTED;
            return NULL;
        }
        /* Fallback: a fresh interpreter codec (the failed one may be partly
         * native). */
        return fbe_interp_create(schema, &copts, status);
    }
    if (!ok) { /* no thread: the codec stays interpreted, correct and slower */
        pthread_mutex_lock(&s->lock);
        for (int u = 0; u < JIT_UNIT_COUNT; u++)
            if (s->state[u] == UNIT_QUEUED)
                s->state[u] = UNIT_FAILED;
        pthread_mutex_unlock(&s->lock);
    }
    codec->backend = FBE_BACKEND_JIT;
    pthread_mutex_lock(&s->lock);
    s->stats.return_ms = jit_now_ms() - t0;
    /* Native code is usable from the return at the earliest: a background
     * thread that finished while this one was descheduled (cached objects, a
     * loaded machine) still reports the return as the time code was ready. */
    if (s->stats.ready_ms < s->stats.return_ms && (!background || nothing_pending(s)))
        s->stats.ready_ms = s->stats.return_ms;
    pthread_mutex_unlock(&s->lock);
    if (status)
        *status = FBE_OK;
    return codec;
}

static size_t entries_in(const jit_state *s, int state)
{
    size_t n = 0;
    for (int u = 0; u < JIT_UNIT_COUNT; u++)
        if (s->state[u] == state || (state == UNIT_QUEUED && s->state[u] == UNIT_RUNNING))
            n += (s->native_type_count - installed_count(s, u)) *
                 (size_t)__builtin_popcount(jit_unit_entry_ops(u, s->opts.entry_ops));
    return n;
}

fbe_jit_stats fbe_jit_codec_stats(const fbe_codec *codec)
{
    if (codec->backend != FBE_BACKEND_JIT || !codec->backend_data)
        return (fbe_jit_stats){0};
    jit_state *s = codec->backend_data;
    pthread_mutex_lock(&s->lock);
    fbe_jit_stats st = s->stats;
    st.pending = entries_in(s, UNIT_QUEUED);
    st.failed = entries_in(s, UNIT_FAILED);
    st.cached = s->all_cached && st.functions > 0 && st.pending == 0 && st.failed == 0;
    pthread_mutex_unlock(&s->lock);
    return st;
}

bool fbe_jit_wait(const fbe_codec *codec, long timeout_ms)
{
    if (!codec || codec->backend != FBE_BACKEND_JIT || !codec->backend_data)
        return true;
    jit_state *s = codec->backend_data;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    if (timeout_ms > 0) {
        until.tv_sec += timeout_ms / 1000;
        until.tv_nsec += (timeout_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
    }
    pthread_mutex_lock(&s->lock);
    while (!nothing_pending(s) && timeout_ms != 0) {
        if (timeout_ms < 0)
            pthread_cond_wait(&s->changed, &s->lock);
        else if (pthread_cond_timedwait(&s->changed, &s->lock, &until) == ETIMEDOUT)
            break;
    }
    bool done = nothing_pending(s);
    pthread_mutex_unlock(&s->lock);
    return done;
}
