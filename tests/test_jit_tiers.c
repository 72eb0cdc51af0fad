/* The JIT's tiers (docs/jit.md): a background codec works from its first call
 * and gives the interpreter's results while native code is installed under
 * running calls; units already called are compiled first; fbe_jit_wait and the
 * stats account for every entry point; freeing a codec mid-compilation neither
 * hangs nor leaks. Run under ThreadSanitizer by `make test-tsan`. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jit_exercise.h"
#include "test_util.h"

#include "fbe/codec.h"
#include "fbe/jit.h"

enum { THREADS = 4 };

static fbe_schema *load(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/golden/schemas/%s.fbe", FBE_SHARED_DIR, name);
    fbe_schema *s = fbe_schema_load(path, NULL, NULL);
    if (!s)
        fail_msg("cannot load %s", path);
    return s;
}

static fbe_codec *background(const fbe_schema *schema, const fbe_jit_options *extra)
{
    fbe_jit_options o = extra ? *extra : (fbe_jit_options){0};
    o.mode = FBE_JIT_BACKGROUND;
    fbe_status st = FBE_UNKNOWN_TYPE;
    fbe_codec *c = fbe_jit_compile(schema, &o, &st);
    assert_non_null(c);
    assert_int_equal(st, FBE_OK);
    if (fbe_jit_available())
        assert_int_equal(fbe_codec_backend(c), FBE_BACKEND_JIT);
    return c;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- 4 threads on one codec while native code arrives ---------------------------------- */

typedef struct worker {
    const fbe_schema *schema;
    const fbe_codec *jit, *interp;
    unsigned id;
    unsigned long rounds, bad;
    char msg[512];
} worker;

static void *run_worker(void *arg)
{
    worker *w = arg;
    /* until everything is native, then two more rounds on native code only */
    int after = 0;
    while (after < 2) {
        if (fbe_jit_wait(w->jit, 0))
            after++;
        char msg[512];
        unsigned long bad = exercise(w->schema, w->jit, w->interp, 2,
                                     (uint64_t)w->id << 32 | w->rounds, msg, sizeof msg);
        if (bad && !w->bad)
            snprintf(w->msg, sizeof w->msg, "%s", msg);
        w->bad += bad;
        w->rounds++;
    }
    return NULL;
}

static void run_threads(const char *name)
{
    fbe_schema *schema = load(name);
    fbe_codec *interp = fbe_interp_create(schema, NULL, NULL);
    assert_non_null(interp);
    fbe_codec *jit = background(schema, NULL);
    worker w[THREADS];
    pthread_t tid[THREADS];
    for (unsigned i = 0; i < THREADS; i++) {
        w[i] = (worker){.schema = schema, .jit = jit, .interp = interp, .id = i};
        assert_int_equal(pthread_create(&tid[i], NULL, run_worker, &w[i]), 0);
    }
    unsigned long rounds = 0, bad = 0;
    const char *first = NULL;
    for (unsigned i = 0; i < THREADS; i++) {
        pthread_join(tid[i], NULL);
        rounds += w[i].rounds;
        bad += w[i].bad;
        if (w[i].bad && !first)
            first = w[i].msg;
    }
    fbe_jit_stats s = fbe_jit_codec_stats(jit);
    print_message("%s: %d threads, %lu rounds, %zu native entry points, %zu bytes of code, "
                  "returned in %.2f ms, all native after %.1f ms\n",
                  name, THREADS, rounds, s.functions, s.code_bytes, s.return_ms, s.ready_ms);
    if (bad)
        fail_msg("%lu mismatches; first: %s", bad, first);
    assert_int_equal(s.pending, 0);
    assert_int_equal(s.failed, 0);
    if (fbe_jit_available()) {
        assert_true(s.functions > 0);
        assert_true(s.code_bytes > 0);
        assert_true(s.ready_ms >= s.return_ms);
        assert_int_equal(s.mode, FBE_JIT_BACKGROUND);
        assert_int_equal(s.threads, 1);
    }
    fbe_codec_free(jit);
    fbe_codec_free(interp);
    fbe_schema_free(schema);
}

static void test_threads_proto(void **state)
{
    (void)state;
    run_threads("proto");
}

static void test_threads_test(void **state)
{
    (void)state;
    run_threads("test");
}

/* ---- accounting ------------------------------------------------------------------------ */

static void test_wait_and_stats(void **state)
{
    (void)state;
    fbe_schema *schema = load("proto");
    size_t types = 0;
    for (size_t p = 0; p < fbe_schema_package_count(schema); p++)
        types += fbe_schema_package(schema, p)->struct_count;
    fbe_codec *c = background(schema, NULL);
    fbe_jit_stats s = fbe_jit_codec_stats(c);
    /* every entry point is native, pending or failed: none is left out */
    if (fbe_jit_available())
        assert_int_equal(s.functions + s.pending + s.failed, types * 8);
    assert_true(fbe_jit_wait(c, -1));
    assert_true(fbe_jit_wait(c, 0));
    s = fbe_jit_codec_stats(c);
    assert_int_equal(s.pending, 0);
    assert_int_equal(s.failed, 0);
    if (fbe_jit_available()) {
        assert_int_equal(s.functions, types * 8);
        /* (the suite's shared object cache may have spared the passes) */
        assert_true(s.lower_ms > 0 && (s.optimize_ms > 0 || s.cached) && s.codegen_ms > 0);
    }
    fbe_codec_free(c);
    /* one model: the other is interpreted by design, neither pending nor failed */
    c = background(schema, &(fbe_jit_options){.models = FBE_JIT_MODEL(FBE_FINAL)});
    assert_true(fbe_jit_wait(c, 60000));
    s = fbe_jit_codec_stats(c);
    assert_int_equal(s.pending + s.failed, 0);
    if (fbe_jit_available())
        assert_int_equal(s.functions, types * 4);
    fbe_codec_free(c);
    /* other backends: nothing to wait for */
    fbe_codec *i = fbe_interp_create(schema, NULL, NULL);
    assert_true(fbe_jit_wait(i, 0));
    fbe_codec_free(i);
    fbe_schema_free(schema);
}

/* ---- priority ---------------------------------------------------------------------------- */

/* One compile thread works on the first queued unit (standard write); the test
 * then calls Account's final verify. The next unit compiled must be final
 * verify, ahead of standard verify, which nobody called, and at first for
 * Account alone (the called type): Order's final verify stays interpreted until
 * the rest of the unit comes, after the queued units. */
static void test_called_first(void **state)
{
    (void)state;
    if (!fbe_jit_available())
        skip();
    fbe_schema *schema = load("proto");
    const fbe_ir_struct *account = NULL;
    for (size_t p = 0; p < fbe_schema_package_count(schema); p++)
        for (size_t k = 0; k < fbe_schema_package(schema, p)->struct_count; k++)
            if (strcmp(fbe_schema_package(schema, p)->structs[k]->full_name, "proto.Account") == 0)
                account = fbe_schema_package(schema, p)->structs[k];
    assert_non_null(account);
    bool decided = false;
    for (int attempt = 0; attempt < 5 && !decided; attempt++) {
        /* Not the suite's object cache: a hit installs a unit in about a
         * millisecond, sooner than this thread can look between two units. A
         * directory that cannot exist never hits (nor stores). */
        fbe_codec *c = background(schema, &(fbe_jit_options){.threads = 1,
                                                             .cache_dir = "/dev/null/no-cache"});
        const fbe_type *t = fbe_codec_type_of(c, account);
        fbe_verify_fn std_verify0 = __atomic_load_n(&t->ops[FBE_STANDARD].verify, __ATOMIC_ACQUIRE);
        fbe_verify_fn final_verify0 = __atomic_load_n(&t->ops[FBE_FINAL].verify, __ATOMIC_ACQUIRE);
        const fbe_type *order = fbe_codec_type(c, "proto.Order");
        fbe_verify_fn order_verify0 = __atomic_load_n(&order->ops[FBE_FINAL].verify, __ATOMIC_ACQUIRE);
        uint8_t junk[8] = {0};
        fbe_verify(t, FBE_FINAL, junk, sizeof junk, NULL);
        /* Inconclusive if the first unit was already done when the call came
         * (a machine too busy to run this thread for the whole first unit). */
        if (fbe_jit_codec_stats(c).functions == 0) {
            /* the unit under way when the call came, then final verify: wait
             * for it (standard verify, queued before it, comes after) */
            fbe_verify_fn final_verify;
            while ((final_verify = __atomic_load_n(&t->ops[FBE_FINAL].verify,
                                                   __ATOMIC_ACQUIRE)) == final_verify0 &&
                   fbe_jit_codec_stats(c).failed == 0)
                sleep_ms(1);
            fbe_verify_fn std_verify = __atomic_load_n(&t->ops[FBE_STANDARD].verify, __ATOMIC_ACQUIRE);
            print_message("once final verify was installed: final verify %s, standard verify %s\n",
                          final_verify != final_verify0 ? "native" : "interpreted",
                          std_verify != std_verify0 ? "native" : "interpreted");
            fbe_verify_fn order_verify = __atomic_load_n(&order->ops[FBE_FINAL].verify, __ATOMIC_ACQUIRE);
            fbe_jit_stats st = fbe_jit_codec_stats(c);
            print_message("then: Order's final verify %s, %zu native entry points, %zu pending\n",
                          order_verify != order_verify0 ? "native" : "interpreted", st.functions,
                          st.pending);
            assert_true(final_verify != final_verify0);
            assert_true(std_verify == std_verify0);
            assert_true(order_verify == order_verify0);
            /* Account's final verify, after standard write's 6 x 2 if the
             * thread had started it before the call (else it was still warming
             * up LLVM, and final verify came first) */
            assert_true(st.functions == 1 || st.functions == 6 * 2 + 1);
            assert_int_equal(st.pending, 48 - st.functions);
            assert_true(fbe_jit_wait(c, -1));
            st = fbe_jit_codec_stats(c);
            assert_int_equal(st.functions, 48);
            assert_int_equal(st.pending + st.failed, 0);
            assert_true(__atomic_load_n(&order->ops[FBE_FINAL].verify, __ATOMIC_ACQUIRE) !=
                        order_verify0);
            decided = true;
        }
        fbe_codec_free(c);
    }
    assert_true(decided);
    fbe_schema_free(schema);
}

/* ---- cancellation ---------------------------------------------------------------------- */

/* Freed right away, after a few calls, or mid-way: fbe_codec_free returns
 * without waiting for LLVM, and (under LeakSanitizer) nothing leaks once the
 * compile threads have ended (at the latest at exit). */
static void test_free_while_compiling(void **state)
{
    (void)state;
    fbe_schema *schema = load("test");
    fbe_codec *interp = fbe_interp_create(schema, NULL, NULL);
    assert_non_null(interp);
    for (int round = 0; round < 6; round++) {
        fbe_codec *c = background(schema, &(fbe_jit_options){.threads = 1 + round % 2});
        if (round % 3 == 1) {
            char msg[512];
            unsigned long bad = exercise(schema, c, interp, 1, (uint64_t)round, msg, sizeof msg);
            if (bad)
                fail_msg("%s", msg);
        } else if (round % 3 == 2) {
            sleep_ms(50);
        }
        fbe_codec_free(c);
    }
    fbe_codec_free(interp);
    fbe_schema_free(schema);
}

/* ---- exit while compiling ----------------------------------------------------------------- */

/* A process that exits (status 3) while its background compilation runs, at
 * several moments from "at once" to "mid-way": it must end with its own status,
 * neither hanging nor crashing in LLVM's static destructors. Runs first, before
 * this process has compile threads that a fork would not carry. */
static void test_exit_while_compiling(void **state)
{
    (void)state;
    static const long delays_ms[] = {0, 2, 10, 30, 120, 400};
    for (size_t d = 0; d < sizeof delays_ms / sizeof *delays_ms; d++) {
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            /* Reachable at exit (static), so LeakSanitizer does not count the
             * codec left to the exit handler as a leak at any optimization level. */
            static fbe_schema *schema;
            static fbe_codec *c;
            schema = load("proto");
            c = fbe_jit_compile(schema, NULL, NULL);
            if (!c)
                _exit(10);
            uint8_t junk[8] = {0};
            fbe_verify(fbe_codec_type_at(c, 0), FBE_STANDARD, junk, sizeof junk, NULL);
            sleep_ms(delays_ms[d]);
            printf("exiting after %ld ms\n", delays_ms[d]);
            exit(3); /* the codec is never freed: its thread is still compiling */
        }
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 3)
            fail_msg("delay %ld ms: the process ended with %s %d instead of exit status 3",
                     delays_ms[d], WIFSIGNALED(status) ? "signal" : "status",
                     WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_while_compiling),
        cmocka_unit_test(test_wait_and_stats),
        cmocka_unit_test(test_called_first),
        cmocka_unit_test(test_threads_proto),
        cmocka_unit_test(test_threads_test),
        cmocka_unit_test(test_free_while_compiling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
