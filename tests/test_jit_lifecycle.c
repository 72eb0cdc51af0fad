/* Lifecycle of JIT codecs: repeated compile/use/free (run under LeakSanitizer in
 * the sanitizer build), several codecs alive at once, concurrent compilation
 * from several threads, target CPU options (baseline and invalid names),
 * require_native, fbe_jit_codec_stats() and the object cache (cache_dir).
 *
 * "Use" always means: random values (tests/value_gen.c) serialized by the JIT
 * codec and the interpreter in both models must give identical bytes, and the
 * JIT's own deserialize must give a value that re-serializes to them. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jit_exercise.h"
#include "test_util.h"
#include "value_gen.h"

#include "fbe/codec.h"
#include "fbe/jit.h"

static void assert_exercise(const fbe_schema *schema, const fbe_codec *jit, unsigned values,
                            uint64_t seed)
{
    fbe_codec *interp = fbe_interp_create(schema, NULL, NULL);
    assert_non_null(interp);
    char msg[512];
    unsigned long bad = exercise(schema, jit, interp, values, seed, msg, sizeof msg);
    fbe_codec_free(interp);
    if (bad)
        fail_msg("%lu mismatches; first: %s", bad, msg);
}

/* Eager: everything native on return, whatever opts says (background
 * compilation has tests of its own, test_jit_tiers.c). */
static fbe_codec *compile_native(const fbe_schema *schema, const fbe_jit_options *opts)
{
    fbe_status st = FBE_UNKNOWN_TYPE;
    fbe_jit_options o = opts ? *opts : (fbe_jit_options){0};
    o.mode = FBE_JIT_EAGER;
    fbe_codec *c = fbe_jit_compile(schema, &o, &st);
    if (!c)
        fail_msg("fbe_jit_compile failed: %s", fbe_status_name(st));
    assert_int_equal(st, FBE_OK);
    if (fbe_jit_available())
        assert_int_equal(fbe_codec_backend(c), FBE_BACKEND_JIT);
    return c;
}

/* ---- tests ------------------------------------------------------------------------------ */

/* 20 x load, compile, use, free (leaks are LeakSanitizer's job in the sanitizer
 * build): proto and enums alternately, to keep the compile time reasonable. */
static void test_compile_free_cycles(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++) {
        fbe_schema *schema = load_golden(round % 2 ? "enums" : "proto");
        fbe_codec *c = compile_native(schema, &(fbe_jit_options){.require_native = fbe_jit_available()});
        assert_exercise(schema, c, 5, (uint64_t)round + 1);
        fbe_codec_free(c);
        fbe_schema_free(schema);
    }
    /* One schema, several codecs compiled from it in turn. */
    fbe_schema *schema = load_golden("proto");
    for (int round = 0; round < 3; round++) {
        fbe_codec *c = compile_native(schema, NULL);
        assert_exercise(schema, c, 2, (uint64_t)round + 100);
        fbe_codec_free(c);
    }
    fbe_schema_free(schema);
}

/* Several codecs alive at once, used interleaved, freed in another order. */
static void test_many_alive(void **state)
{
    (void)state;
    static const char *const names[] = {"proto", "protoex", "enums", "proto", "enums", "protoex"};
    enum { N = sizeof names / sizeof names[0] };
    fbe_schema *schema[N];
    fbe_codec *codec[N];
    for (int i = 0; i < N; i++) {
        schema[i] = load_golden(names[i]);
        codec[i] = compile_native(schema[i], &(fbe_jit_options){.opt_level = 1 + i % 3});
    }
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < N; i++)
            assert_exercise(schema[i], codec[i], 3, (uint64_t)(round * N + i) + 7);
    static const int order[N] = {3, 0, 5, 1, 4, 2};
    for (int i = 0; i < N; i++) {
        fbe_codec_free(codec[order[i]]);
        codec[order[i]] = NULL;
        /* the others keep working */
        for (int j = 0; j < N; j++)
            if (codec[j] && j % 2 == i % 2)
                assert_exercise(schema[j], codec[j], 1, (uint64_t)(i * N + j) + 1000);
    }
    for (int i = 0; i < N; i++)
        fbe_schema_free(schema[i]);
}

/* ---- threads ----------------------------------------------------------------------------- */

#define ROUNDS 2

typedef struct worker {
    const fbe_schema *schema[2]; /* shared, read-only: one per round */
    int id;
    unsigned long bad;
    unsigned long compiled, native;
    char msg[512];
} worker;

static void *worker_main(void *arg)
{
    worker *w = arg;
    for (int round = 0; round < ROUNDS; round++) {
        fbe_status st = FBE_UNKNOWN_TYPE;
        const fbe_schema *schema = w->schema[round % 2];
        fbe_codec *jit = fbe_jit_compile(schema, &(fbe_jit_options){.require_native = false}, &st);
        fbe_codec *interp = fbe_interp_create(schema, NULL, NULL);
        if (!jit || !interp || st != FBE_OK) {
            w->bad++;
            snprintf(w->msg, sizeof w->msg, "thread %d round %d: compile failed (%s)", w->id, round,
                     fbe_status_name(st));
        } else {
            w->compiled++;
            w->native += fbe_codec_backend(jit) == FBE_BACKEND_JIT;
            char msg[400];
            unsigned long bad = exercise(schema, jit, interp, 4,
                                         (uint64_t)(w->id * 100 + round) + 1, msg, sizeof msg);
            if (bad && !w->bad)
                snprintf(w->msg, sizeof w->msg, "thread %d round %d: %s", w->id, round, msg);
            w->bad += bad;
        }
        if (jit)
            fbe_codec_free(jit);
        if (interp)
            fbe_codec_free(interp);
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    enum { THREADS = 4 };
    fbe_schema *proto = load_golden("proto"), *enums = load_golden("enums");
    pthread_t th[THREADS];
    worker w[THREADS];
    for (int i = 0; i < THREADS; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].schema[0] = proto;
        w[i].schema[1] = enums;
        w[i].id = i;
        assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
    }
    unsigned long bad = 0, native = 0, compiled = 0;
    for (int i = 0; i < THREADS; i++) {
        assert_int_equal(pthread_join(th[i], NULL), 0);
        if (w[i].bad)
            print_error("%s\n", w[i].msg);
        bad += w[i].bad;
        native += w[i].native;
        compiled += w[i].compiled;
    }
    print_message("threads: %d threads x %d compilations: %lu compiled, %lu native, %lu mismatches\n",
                  THREADS, ROUNDS, compiled, native, bad);
    assert_int_equal(bad, 0);
    assert_int_equal(compiled, THREADS * ROUNDS);
    if (fbe_jit_available())
        assert_int_equal(native, THREADS * ROUNDS);
    fbe_schema_free(proto);
    fbe_schema_free(enums);
}

/* ---- target CPU --------------------------------------------------------------------------- */

static void test_cpu_baseline(void **state)
{
    (void)state;
#if defined(__x86_64__)
    fbe_schema *schema = load_golden("proto");
    fbe_codec *c = compile_native(schema, &(fbe_jit_options){.cpu = "x86-64", .require_native =
                                                                                    fbe_jit_available()});
    assert_exercise(schema, c, 20, 42);
    fbe_codec_free(c);
    /* explicit features on top of the baseline */
    c = compile_native(schema, &(fbe_jit_options){.cpu = "x86-64", .features = "+sse4.2,+popcnt"});
    assert_exercise(schema, c, 5, 43);
    fbe_codec_free(c);
    fbe_schema_free(schema);
#else
    skip();
#endif
}

/* One compilation with unusual target options, run in a child process so that a
 * crash (an LLVM fatal error aborts) is reported instead of ending the test
 * program. The child describes the outcome on a pipe. */
static void probe_options(const char *label, const fbe_jit_options *opts, bool *crashed,
                          fbe_backend *backend, bool *null_result)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        char out[600];
        fbe_schema *schema = fbe_schema_load(shared_path("golden/schemas/proto.fbe"), NULL, NULL);
        fbe_status st = FBE_UNKNOWN_TYPE;
        fbe_codec *c = schema ? fbe_jit_compile(schema, opts, &st) : NULL;
        if (!c) {
            snprintf(out, sizeof out, "N %s", fbe_status_name(st));
        } else {
            fbe_codec *interp = fbe_interp_create(schema, NULL, NULL);
            char msg[400];
            unsigned long bad = exercise(schema, c, interp, 10, 5, msg, sizeof msg);
            snprintf(out, sizeof out, "%c %s %lu %s", fbe_codec_backend(c) == FBE_BACKEND_JIT ? 'J' : 'I',
                     fbe_status_name(st), bad, bad ? msg : "");
        }
        ssize_t w = write(fd[1], out, strlen(out));
        _exit(w > 0 ? 0 : 3);
    }
    close(fd[1]);
    char buf[600];
    size_t len = 0;
    ssize_t n;
    while (len < sizeof buf - 1 && (n = read(fd[0], buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)n;
    buf[len] = 0;
    close(fd[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    *crashed = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    *null_result = false;
    *backend = FBE_BACKEND_INTERP;
    if (*crashed) {
        print_error("%s: the process died (%s %d): fbe_jit_compile must not crash\n", label,
                    WIFSIGNALED(status) ? "signal" : "exit status",
                    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        return;
    }
    print_message("%s: %s\n", label,
                  buf[0] == 'N' ? "NULL result" : buf[0] == 'J' ? "JIT codec" : "interpreter codec");
    if (buf[0] == 'N') {
        *null_result = true;
        /* a failure must be reported, not OK */
        if (strcmp(buf + 2, "OK") == 0)
            fail_msg("%s: NULL codec with status OK", label);
        return;
    }
    *backend = buf[0] == 'J' ? FBE_BACKEND_JIT : FBE_BACKEND_INTERP;
    char st_name[64];
    unsigned long bad = 0;
    if (sscanf(buf + 2, "%63s %lu", st_name, &bad) != 2)
        fail_msg("%s: unexpected child report \"%s\"", label, buf);
    if (strcmp(st_name, "OK") != 0)
        fail_msg("%s: codec returned with status %s", label, st_name);
    if (bad)
        fail_msg("%s: the codec gives wrong results: %s", label, buf);
}

/* An unknown CPU name must not crash: either the JIT accepts it (LLVM ignores
 * unknown CPUs with a warning) and the code works, or compilation fails and the
 * result is an interpreter codec / require_native fails cleanly. */
static void test_cpu_invalid(void **state)
{
    (void)state;
    bool crashed[3], null_result[3];
    fbe_backend backend[3];
    probe_options("cpu=\"no-such-cpu-9000\"", &(fbe_jit_options){.cpu = "no-such-cpu-9000"},
                  &crashed[0], &backend[0], &null_result[0]);
    probe_options("cpu=\"no-such-cpu-9000\", require_native",
                  &(fbe_jit_options){.cpu = "no-such-cpu-9000", .require_native = true}, &crashed[1],
                  &backend[1], &null_result[1]);
    probe_options("features=\"+no-such-feature\"", &(fbe_jit_options){.features = "+no-such-feature"},
                  &crashed[2], &backend[2], &null_result[2]);
    assert_false(crashed[0] || crashed[1] || crashed[2]);
    /* without require_native there is always a codec */
    assert_false(null_result[0]);
    assert_false(null_result[2]);
    /* consistent: require_native fails exactly when the plain call fell back */
    assert_true(null_result[1] == (backend[0] == FBE_BACKEND_INTERP));
}

/* ---- require_native, options, stats ------------------------------------------------------------ */

static void test_require_native(void **state)
{
    (void)state;
    fbe_schema *schema = load_golden("proto");
    fbe_status st = FBE_UNKNOWN_TYPE;
    fbe_codec *c = fbe_jit_compile(schema, &(fbe_jit_options){.require_native = true}, &st);
    if (fbe_jit_available()) {
        assert_non_null(c);
        assert_int_equal(st, FBE_OK);
        assert_int_equal(fbe_codec_backend(c), FBE_BACKEND_JIT);
        assert_string_equal(fbe_backend_name(fbe_codec_backend(c)),
                            fbe_backend_name(FBE_BACKEND_JIT));
        fbe_codec_free(c);
    } else {
        assert_null(c);
        assert_int_not_equal(st, FBE_OK);
    }
    /* NULL options: defaults, never NULL */
    fbe_schema *small = load_golden("enums");
    st = FBE_UNKNOWN_TYPE;
    c = fbe_jit_compile(small, NULL, &st);
    assert_non_null(c);
    assert_int_equal(st, FBE_OK);
    assert_int_equal(fbe_codec_backend(c),
                     fbe_jit_available() ? FBE_BACKEND_JIT : FBE_BACKEND_INTERP);
    assert_int_equal(fbe_codec_max_depth(c), FBE_DEFAULT_MAX_DEPTH);
    fbe_codec_free(c);
    /* NULL status pointer is allowed */
    c = fbe_jit_compile(small, &(fbe_jit_options){.max_depth = 7}, NULL);
    assert_non_null(c);
    assert_int_equal(fbe_codec_max_depth(c), 7);
    fbe_codec_free(c);
    fbe_schema_free(small);
    /* every optimization level gives the same bytes */
    for (int level = 1; level <= 3; level++) {
        c = compile_native(schema, &(fbe_jit_options){.opt_level = level});
        assert_exercise(schema, c, 3, (uint64_t)level + 77);
        fbe_codec_free(c);
    }
    fbe_schema_free(schema);
}

static void test_stats(void **state)
{
    (void)state;
    /* (test.fbe is left out: compiling it takes far longer than the others, and
     * test_jit_random compiles it anyway) */
    static const char *const names[] = {"enums", "proto", "protoex"};
    for (size_t n = 0; n < 3; n++) {
        fbe_schema *schema = load_golden(names[n]);
        size_t types = 0;
        for (size_t p = 0; p < fbe_schema_package_count(schema); p++)
            types += fbe_schema_package(schema, p)->struct_count;
        fbe_codec *c = compile_native(schema, NULL);
        fbe_jit_stats s = fbe_jit_codec_stats(c);
        print_message("%s: %zu types, %zu native functions, lower %.2f ms, optimize %.2f ms, "
                      "codegen %.2f ms\n",
                      names[n], types, s.functions, s.lower_ms, s.optimize_ms, s.codegen_ms);
        if (fbe_jit_available()) {
            assert_true(s.lower_ms > 0);
            assert_true(s.optimize_ms > 0);
            assert_true(s.codegen_ms > 0);
            assert_true(s.functions > 0);
            /* at most 2 models x 4 operations per type */
            assert_true(s.functions <= types * 8);
            /* at least standard size and serialize for every type */
            assert_true(s.functions >= types * 2);
            assert_true(s.lower_ms < 600000 && s.optimize_ms < 600000 && s.codegen_ms < 600000);
        }
        fbe_codec_free(c);
        /* other backends: zeros */
        fbe_codec *i = fbe_interp_create(schema, NULL, NULL);
        assert_non_null(i);
        fbe_jit_stats z = fbe_jit_codec_stats(i);
        assert_true(z.lower_ms == 0 && z.optimize_ms == 0 && z.codegen_ms == 0 && z.functions == 0);
        fbe_codec_free(i);
        fbe_schema_free(schema);
    }
}

/* fbe_jit_options.models: only the chosen model is native; the other keeps the
 * interpreter's entry points (the very functions an interpreter codec has), and
 * every operation still gives the interpreter's results. */
static void test_models(void **state)
{
    (void)state;
    fbe_schema *schema = load_golden("proto");
    fbe_codec *interp = fbe_interp_create(schema, NULL, NULL);
    assert_non_null(interp);
    size_t types = fbe_codec_type_count(interp);
    for (int only = 0; only < 2; only++) {
        fbe_jit_options o = {.models = FBE_JIT_MODEL((fbe_model)only)};
        fbe_codec *c = compile_native(schema, &o);
        if (fbe_jit_available()) {
            assert_int_equal(fbe_jit_codec_stats(c).functions, types * 4);
            for (size_t i = 0; i < types; i++) {
                const fbe_model_ops *ji = fbe_codec_type_at(c, i)->ops;
                const fbe_model_ops *ii = fbe_codec_type_at(interp, i)->ops;
                int other = !only;
                assert_ptr_not_equal(ji[only].serialize, ii[only].serialize);
                assert_ptr_not_equal(ji[only].deserialize, ii[only].deserialize);
                assert_ptr_equal(ji[other].size, ii[other].size);
                assert_ptr_equal(ji[other].serialize, ii[other].serialize);
                assert_ptr_equal(ji[other].verify, ii[other].verify);
                assert_ptr_equal(ji[other].deserialize, ii[other].deserialize);
            }
        }
        char msg[256] = "";
        unsigned long bad = exercise(schema, c, interp, 50, 0x5eed + (uint64_t)only, msg, sizeof msg);
        if (bad)
            fail_msg("models %d: %lu mismatches, first: %s", only, bad, msg);
        fbe_codec_free(c);
    }
    /* both bits: everything native, as with 0 */
    fbe_jit_options both = {.models = FBE_JIT_ALL_MODELS};
    fbe_codec *c = compile_native(schema, &both);
    if (fbe_jit_available())
        assert_int_equal(fbe_jit_codec_stats(c).functions, types * 8);
    fbe_codec_free(c);
    fbe_codec_free(interp);
    fbe_schema_free(schema);
}

/* Whether struct i of c has the interpreter's entry points (those of `interp`)
 * for every operation of both models, or native ones for all of them. */
static void assert_entries(const fbe_codec *c, const fbe_codec *interp, size_t i, bool native)
{
    const fbe_model_ops *ji = fbe_codec_type_at(c, i)->ops;
    const fbe_model_ops *ii = fbe_codec_type_at(interp, i)->ops;
    for (int m = 0; m < 2; m++) {
        const void *j[] = {(const void *)ji[m].size, (const void *)ji[m].serialize,
                           (const void *)ji[m].verify, (const void *)ji[m].deserialize};
        const void *n[] = {(const void *)ii[m].size, (const void *)ii[m].serialize,
                           (const void *)ii[m].verify, (const void *)ii[m].deserialize};
        for (int op = 0; op < 4; op++)
            if ((j[op] == n[op]) == native)
                fail_msg("type %zu model %d op %d: %s entry point", i, m, op,
                         native ? "the interpreter's" : "a native");
    }
}

/* fbe_jit_options.types: only the named structs get native entry points (their
 * held structs are compiled into their code); every other keeps the
 * interpreter's, every operation gives the interpreter's results, and the
 * selection is part of the object cache's key. */
static void test_types(void **state)
{
    (void)state;
    fbe_schema *schema = load_golden("proto");
    fbe_codec *interp = fbe_interp_create(schema, NULL, NULL);
    assert_non_null(interp);
    size_t types = fbe_codec_type_count(interp);
    size_t account = (size_t)(fbe_codec_type(interp, "proto.Account") - fbe_codec_type_at(interp, 0));
    size_t order = (size_t)(fbe_codec_type(interp, "proto.Order") - fbe_codec_type_at(interp, 0));
    size_t balance = (size_t)(fbe_codec_type(interp, "proto.Balance") - fbe_codec_type_at(interp, 0));
    static const char *const one[] = {"proto.Account", NULL};
    static const char *const two[] = {"Order", "proto.Balance", "Order", NULL}; /* repeats are harmless */
    static const char *const none[] = {NULL};
    const char *const *lists[] = {one, two, none};
    const size_t selected[] = {1, 2, 0};
    for (size_t l = 0; l < 3; l++) {
        fbe_codec *c = compile_native(schema, &(fbe_jit_options){.types = lists[l]});
        if (fbe_jit_available()) {
            fbe_jit_stats st = fbe_jit_codec_stats(c);
            assert_int_equal(st.functions, selected[l] * 8);
            assert_int_equal(st.pending, 0);
            for (size_t i = 0; i < types; i++)
                assert_entries(c, interp, i,
                               l == 0 ? i == account : l == 1 && (i == order || i == balance));
        }
        char msg[256] = "";
        unsigned long bad = exercise(schema, c, interp, 30, 0x7e5 + (uint64_t)l, msg, sizeof msg);
        if (bad)
            fail_msg("list %zu: %lu mismatches, first: %s", l, bad, msg);
        fbe_codec_free(c);
    }
    /* a name the schema does not have: refused, whether native code is required or not */
    static const char *const unknown[] = {"proto.Account", "proto.Nope", NULL};
    for (int require = 0; require < 2; require++) {
        fbe_status st = FBE_OK;
        fbe_jit_options o = {.types = unknown, .require_native = require, .mode = FBE_JIT_EAGER};
        assert_null(fbe_jit_compile(schema, &o, &st));
        assert_int_equal(st, fbe_jit_available() || !require ? FBE_INVALID_ARGUMENT : FBE_UNSUPPORTED);
    }
    /* background: what is pending counts the selected structs only */
    fbe_codec *bg = fbe_jit_compile(schema, &(fbe_jit_options){.types = one}, NULL);
    assert_non_null(bg);
    if (fbe_jit_available()) {
        assert_true(fbe_jit_codec_stats(bg).pending <= 8);
        assert_true(fbe_jit_wait(bg, -1));
        fbe_jit_stats st = fbe_jit_codec_stats(bg);
        assert_int_equal(st.functions, 8);
        assert_int_equal(st.pending + st.failed, 0);
        assert_entries(bg, interp, account, true);
        assert_entries(bg, interp, order, false);
    }
    fbe_codec_free(bg);
    fbe_codec_free(interp);
    fbe_schema_free(schema);
}

/* fbe_jit_options.parts: exactly the operations named get native entry points
 * (a part of a unit too: serialize without size), every other operation keeps
 * the interpreter's and gives its results. Account alone, to compile little. */
static void test_parts(void **state)
{
    (void)state;
    fbe_schema *schema = load_golden("proto");
    fbe_codec *interp = fbe_interp_create(schema, NULL, NULL);
    assert_non_null(interp);
    size_t account = (size_t)(fbe_codec_type(interp, "proto.Account") - fbe_codec_type_at(interp, 0));
    static const char *const one[] = {"proto.Account", NULL};
    enum { S = FBE_STANDARD, F = FBE_FINAL };
    /* parts, then the native operations as [model][op] bits: size, serialize,
     * verify, deserialize */
    static const struct {
        unsigned parts;
        unsigned char native[2];
    } cases[] = {
        {FBE_JIT_SERIALIZE_OF(F), {0x0, 0x2}},
        {FBE_JIT_SIZE_OF(S), {0x1, 0x0}},
        {FBE_JIT_WRITE_OF(S) | FBE_JIT_SERIALIZE_OF(F), {0x3, 0x2}},
        {FBE_JIT_DESERIALIZE_OF(S) | FBE_JIT_SERIALIZE_OF(F), {0x8, 0x2}},
        {FBE_JIT_VERIFY_OF(F) | FBE_JIT_SIZE_OF(F), {0x0, 0x5}},
        {FBE_JIT_READ_OF(S) | FBE_JIT_SERIALIZE_OF(S), {0xE, 0x0}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        fbe_codec *c = compile_native(schema, &(fbe_jit_options){.types = one, .parts = cases[k].parts});
        if (fbe_jit_available()) {
            const fbe_model_ops *ji = fbe_codec_type_at(c, account)->ops;
            const fbe_model_ops *ii = fbe_codec_type_at(interp, account)->ops;
            size_t want = 0;
            for (int m = 0; m < 2; m++) {
                const void *j[] = {(const void *)ji[m].size, (const void *)ji[m].serialize,
                                   (const void *)ji[m].verify, (const void *)ji[m].deserialize};
                const void *n[] = {(const void *)ii[m].size, (const void *)ii[m].serialize,
                                   (const void *)ii[m].verify, (const void *)ii[m].deserialize};
                for (int op = 0; op < 4; op++) {
                    bool native = cases[k].native[m] >> op & 1;
                    want += native;
                    if ((j[op] != n[op]) != native)
                        fail_msg("parts %#x: model %d op %d: %s entry point", cases[k].parts, m,
                                 op, native ? "the interpreter's" : "a native");
                }
            }
            assert_int_equal(fbe_jit_codec_stats(c).functions, want);
        }
        char msg[256] = "";
        unsigned long bad = exercise(schema, c, interp, 20, 0x9a27 + (uint64_t)k, msg, sizeof msg);
        if (bad)
            fail_msg("parts %#x: %lu mismatches, first: %s", cases[k].parts, bad, msg);
        fbe_codec_free(c);
    }
    /* background: an operation left out is the interpreter's from the start, not
     * a trampoline that waits for native code that never comes */
    fbe_codec *bg = fbe_jit_compile(
        schema, &(fbe_jit_options){.types = one, .parts = FBE_JIT_SERIALIZE_OF(F)}, NULL);
    assert_non_null(bg);
    const fbe_model_ops *bi = fbe_codec_type_at(bg, account)->ops;
    const fbe_model_ops *ii = fbe_codec_type_at(interp, account)->ops;
    assert_ptr_equal(bi[F].size, ii[F].size);
    if (fbe_jit_available()) {
        /* what is pending counts the operations asked for: serialize alone */
        assert_true(fbe_jit_codec_stats(bg).pending <= 1);
        assert_true(fbe_jit_wait(bg, -1));
        assert_int_equal(fbe_jit_codec_stats(bg).functions, 1);
        assert_ptr_not_equal(bi[F].serialize, ii[F].serialize);
    }
    assert_ptr_equal(bi[F].size, ii[F].size);
    fbe_codec_free(bg);
    fbe_codec_free(interp);
    fbe_schema_free(schema);
}

/* The object cache (fbe_jit_options.cache_dir): a second compilation of the same
 * schema loads the object instead of compiling, and the codec works the same;
 * both codecs alive at once, then freed (no leaks). */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *ent;
    char path[1024];
    while ((ent = readdir(d)) != NULL) {
        if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        if (unlink(path) != 0)
            remove_tree(path);
    }
    closedir(d);
    rmdir(dir);
}

/* The temporary cache directory of a cache test: made by the setup, removed by
 * the teardown even when the test fails. */
static char cache_root[64];

static int make_cache_root(void **state)
{
    (void)state;
    snprintf(cache_root, sizeof cache_root, "/tmp/fbe-lifecycle-cache-XXXXXX");
    return mkdtemp(cache_root) ? 0 : -1;
}

static int remove_cache_root(void **state)
{
    (void)state;
    if (cache_root[0])
        remove_tree(cache_root);
    cache_root[0] = 0;
    return 0;
}

static void test_cache_dir(void **state)
{
    (void)state;
    if (!fbe_jit_available())
        skip();
    const char *dir = cache_root;
    char cache[128];
    snprintf(cache, sizeof cache, "%s/objects", dir); /* created on demand */
    fbe_schema *schema = load_golden("proto");
    fbe_codec *a = compile_native(schema, &(fbe_jit_options){.cache_dir = cache, .require_native = true});
    fbe_jit_stats sa = fbe_jit_codec_stats(a);
    fbe_codec *b = compile_native(schema, &(fbe_jit_options){.cache_dir = cache, .require_native = true});
    fbe_jit_stats sb = fbe_jit_codec_stats(b);
    print_message("cache: first %s (%zu functions, %.1f ms), second %s (%zu functions, %.1f ms)\n",
                  sa.cached ? "cached" : "compiled", sa.functions,
                  sa.lower_ms + sa.optimize_ms + sa.codegen_ms, sb.cached ? "cached" : "compiled",
                  sb.functions, sb.lower_ms + sb.optimize_ms + sb.codegen_ms);
    assert_false(sa.cached);
    assert_true(sb.cached);
    assert_int_equal(sa.functions, sb.functions);
    assert_exercise(schema, a, 5, 901);
    assert_exercise(schema, b, 5, 902);
    fbe_codec_free(a);
    assert_exercise(schema, b, 2, 903);
    fbe_codec_free(b);
    /* another schema with the same cache: a miss, then a hit */
    fbe_schema *other = load_golden("enums");
    for (int i = 0; i < 2; i++) {
        fbe_codec *c = compile_native(other, &(fbe_jit_options){.cache_dir = cache});
        assert_true(fbe_jit_codec_stats(c).cached == (i == 1));
        assert_exercise(other, c, 5, 904 + (uint64_t)i);
        fbe_codec_free(c);
    }
    fbe_schema_free(other);
    fbe_schema_free(schema);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* The cache's entries (DIR/fbe-*.o), sorted; returns how many (at most max). */
static size_t cache_entries(const char *dir, char names[][320], size_t max)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t n = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL)
        if (strncmp(ent->d_name, "fbe-", 4) == 0 && n < max)
            snprintf(names[n++], 320, "%s/%s", dir, ent->d_name);
    closedir(d);
    qsort(names, n, sizeof names[0], by_name);
    return n;
}

static void damage(const char *path, int how, const char *other)
{
    size_t size;
    uint8_t *data = read_file(path, &size);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    switch (how) {
    case 0: /* one bit of the object flipped */
        data[size / 2] ^= 0x10;
        fwrite(data, 1, size, f);
        break;
    case 1: /* cut short */
        fwrite(data, 1, size / 2, f);
        break;
    case 2: /* the object alone, as entries were written before they had a sum */
        fwrite(data, 1, size - 32, f);
        break;
    default: { /* another key's entry under this name */
        size_t other_size;
        uint8_t *o = read_file(other, &other_size);
        fwrite(o, 1, other_size, f);
        free(o);
        break;
    }
    }
    assert_int_equal(fclose(f), 0);
    free(data);
}

/* A damaged cache entry is a miss: the unit compiles again and its entry is
 * written anew (the same bytes: code generation is deterministic), never an
 * object that runs wrong code or makes LLVM abort (before entries had a sum, a
 * flipped bit in the code crashed the process with SIGILL and a damaged section
 * header ended it in an LLVM fatal error). */
static void test_cache_damaged(void **state)
{
    (void)state;
    if (!fbe_jit_available())
        skip();
    fbe_schema *schema = load_golden("proto");
    fbe_jit_options opts = {.cache_dir = cache_root, .require_native = true};
    fbe_codec_free(compile_native(schema, &opts));
    char names[8][320];
    size_t n = cache_entries(cache_root, names, 8);
    assert_int_equal(n, 6); /* the six units */
    uint8_t *original[8];
    size_t original_size[8];
    for (size_t i = 0; i < n; i++)
        original[i] = read_file(names[i], &original_size[i]);
    for (int how = 0; how < 4; how++) {
        for (size_t i = 0; i < n; i++)
            damage(names[i], how, names[(i + 1) % n]);
        fbe_codec *c = compile_native(schema, &opts);
        fbe_jit_stats st = fbe_jit_codec_stats(c);
        assert_false(st.cached);
        assert_int_equal(st.failed, 0);
        for (size_t i = 0; i < n; i++) { /* every entry was a miss, and stored again */
            size_t size;
            uint8_t *now = read_file(names[i], &size);
            if (size != original_size[i] || memcmp(now, original[i], size) != 0)
                fail_msg("damage %d: %s was not written again", how, names[i]);
            free(now);
        }
        assert_exercise(schema, c, 2, 910 + (uint64_t)how);
        fbe_codec_free(c);
        c = compile_native(schema, &opts); /* written anew */
        assert_true(fbe_jit_codec_stats(c).cached);
        assert_exercise(schema, c, 1, 920 + (uint64_t)how);
        fbe_codec_free(c);
        assert_int_equal(cache_entries(cache_root, names, 8), n);
    }
    for (size_t i = 0; i < n; i++)
        free(original[i]);
    fbe_schema_free(schema);
}

/* Reads the older writer's frame (S without x) with `codec` and returns the
 * default deserialize gave x. */
static double default_read(const fbe_schema *old, fbe_codec *codec)
{
    fbe_codec *writer = fbe_interp_create(old, NULL, NULL);
    assert_non_null(writer);
    const fbe_type *wt = fbe_codec_type(writer, "p.S");
    const fbe_type *t = fbe_codec_type(codec, "p.S");
    assert_non_null(wt);
    assert_non_null(t);
    int32_t a = 7;
    fbe_buffer buf;
    fbe_buffer_init(&buf, NULL, NULL);
    assert_int_equal(fbe_serialize(wt, FBE_STANDARD, &a, &buf), FBE_OK);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    _Alignas(8) unsigned char value[64] = {0};
    assert_true(t->ir->host_size <= sizeof value);
    fbe_decode_options o = {.arena = &arena};
    assert_int_equal(fbe_deserialize(t, FBE_STANDARD, buf.data, buf.size, value, &o, NULL), FBE_OK);
    const fbe_ir_field *x = fbe_field_by_name(t->ir, "x");
    assert_non_null(x);
    double d;
    memcpy(&d, value + x->host_offset, sizeof d);
    fbe_arena_free(&arena);
    fbe_buffer_free(&buf);
    fbe_codec_free(writer);
    return d;
}

/* The cache's key is computed before lowering, from the schema's IR: schemas
 * that differ only in a default's last bit, in a type name past its 512th
 * character, or in the depth limit must not share an object. */
static void test_cache_key(void **state)
{
    (void)state;
    if (!fbe_jit_available())
        skip();
    fbe_jit_options opts = {.cache_dir = cache_root, .models = FBE_JIT_MODEL(FBE_STANDARD)};

    /* 0.1 and the next double up */
    fbe_schema *old = load_text_ok("package p\nstruct S { int32 a; }\n");
    fbe_schema *lo = load_text_ok("package p\nstruct S { int32 a; double x = 0.1; }\n");
    fbe_schema *hi = load_text_ok("package p\nstruct S { int32 a; double x = 0.10000000000000002; }\n");
    double next = nextafter(0.1, 1.0);
    for (int round = 0; round < 2; round++) {
        fbe_codec *c = compile_native(lo, &opts);
        assert_true(fbe_jit_codec_stats(c).cached == (round == 1));
        assert_true(default_read(old, c) == 0.1);
        fbe_codec_free(c);
        c = compile_native(hi, &opts);
        assert_true(fbe_jit_codec_stats(c).cached == (round == 1));
        assert_true(default_read(old, c) == next);
        fbe_codec_free(c);
    }
    fbe_schema_free(old);
    fbe_schema_free(lo);
    fbe_schema_free(hi);

    /* element types whose names differ only at the end, 602 characters in */
    char name[604], text[2][2048];
    memset(name, 'n', sizeof name - 1);
    name[0] = 'Q';
    name[sizeof name - 1] = 0;
    for (int k = 0; k < 2; k++) {
        snprintf(text[k], sizeof text[k],
                 "package p\nstruct %s1 { int32 a; }\nstruct %s2 { int64 b; string c; }\n"
                 "struct S { %s%d[] v; }\n", name, name, name, k + 1);
        fbe_schema *sk = load_text_ok(text[k]);
        fbe_codec *c = compile_native(sk, &opts);
        assert_false(fbe_jit_codec_stats(c).cached);
        assert_exercise(sk, c, 20, 910 + (uint64_t)k);
        fbe_codec_free(c);
        fbe_schema_free(sk);
    }

    /* the depth limit is a constant of the code */
    fbe_schema *proto = load_golden("proto");
    for (unsigned depth = 5; depth <= 6; depth++) {
        fbe_jit_options d = opts;
        d.max_depth = depth;
        fbe_codec *c = compile_native(proto, &d);
        assert_false(fbe_jit_codec_stats(c).cached);
        assert_int_equal(fbe_codec_max_depth(c), depth);
        assert_exercise(proto, c, 5, 920 + depth);
        fbe_codec_free(c);
    }
    /* Background codecs hash the schema on their compile thread: the keys are
     * the eager codecs' (depth 6 above: all hits), and a codec freed at once,
     * before or while its thread hashes (fbe_codec_free then waits for the
     * hash, which reads the schema, not for LLVM), does not leak. */
    fbe_jit_options bg = opts;
    bg.max_depth = 6;
    bg.mode = FBE_JIT_BACKGROUND;
    fbe_codec *c = fbe_jit_compile(proto, &bg, NULL);
    assert_non_null(c);
    assert_true(fbe_jit_wait(c, -1));
    assert_true(fbe_jit_codec_stats(c).cached);
    assert_exercise(proto, c, 5, 926);
    fbe_codec_free(c);
    for (int k = 0; k < 8; k++)
        fbe_codec_free(fbe_jit_compile(proto, &bg, NULL));

    /* the selected structs are part of the key: Account's object alone is not
     * every struct's, nor the reverse (depth 6, standard: cached above for all) */
    static const char *const account[] = {"proto.Account", NULL};
    for (int round = 0; round < 2; round++) {
        fbe_jit_options t = opts;
        t.max_depth = 6;
        t.types = account;
        c = compile_native(proto, &t);
        fbe_jit_stats st = fbe_jit_codec_stats(c);
        assert_true(st.cached == (round == 1));
        assert_int_equal(st.functions, 2 + 2);
        assert_exercise(proto, c, 5, 930 + (uint64_t)round);
        fbe_codec_free(c);
        t.types = NULL;
        c = compile_native(proto, &t);
        st = fbe_jit_codec_stats(c);
        assert_true(st.cached);
        assert_int_equal(st.functions, fbe_codec_type_count(c) * 4);
        fbe_codec_free(c);
    }
    fbe_schema_free(proto);
}

int main(void)
{
    /* These tests are about compiling: a cache from the environment would turn
     * compilations into loads (tests pass their own cache_dir where they mean it). */
    unsetenv("FBE_JIT_CACHE_DIR");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compile_free_cycles),
        cmocka_unit_test(test_many_alive),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_cpu_baseline),
        cmocka_unit_test(test_cpu_invalid),
        cmocka_unit_test(test_require_native),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_models),
        cmocka_unit_test(test_types),
        cmocka_unit_test(test_parts),
        cmocka_unit_test_setup_teardown(test_cache_dir, make_cache_root, remove_cache_root),
        cmocka_unit_test_setup_teardown(test_cache_key, make_cache_root, remove_cache_root),
        cmocka_unit_test_setup_teardown(test_cache_damaged, make_cache_root, remove_cache_root),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
