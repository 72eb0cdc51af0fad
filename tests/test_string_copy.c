/* Deserialize copies a string of up to 16 bytes with one 16-byte load when at
 * least 16 - n bytes of the frame follow it, memcpy otherwise (sc_copy_string
 * for the interpreter and `fbec c`, its copy_string handler for native code). Native
 * code has no sanitizer checks, so the frames here end at a page whose
 * successor is inaccessible: a load past the frame's end faults, with either
 * codec. Every length 0..40 of two strings (the first followed by 4..44 bytes
 * of the frame, the second by none), both models, the interpreter and the JIT
 * (when built with LLVM), copied and borrowed: exact bytes, sizes and NUL
 * terminators, and blocks 16 bytes apart. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "test_util.h"

#include "fbe/codec.h"
#include "fbe/jit.h"

#define MAX_LEN 40

static const char schema_text[] = "package s\n"
                                  "struct S { string a; bytes b; }\n";

typedef struct host_s {
    fbe_string a;
    fbe_bytes b;
} host_s;

typedef struct env {
    fbe_schema *schema;
    fbe_codec *interp, *jit;
    const fbe_type *ti, *tj;
    uint8_t *pages; /* two pages, the second inaccessible */
    size_t page;
} env;

static int setup(void **state)
{
    env *v = calloc(1, sizeof *v);
    assert_non_null(v);
    v->schema = fbe_schema_load_string("s.fbe", schema_text, sizeof schema_text - 1, NULL, NULL);
    assert_non_null(v->schema);
    fbe_status st = FBE_UNKNOWN_TYPE;
    v->interp = fbe_interp_create(v->schema, NULL, &st);
    assert_non_null(v->interp);
    v->ti = fbe_codec_type(v->interp, "s.S");
    assert_non_null(v->ti);
    assert_int_equal(v->ti->ir->host_size, sizeof(host_s));
    if (fbe_jit_available()) {
        v->jit = fbe_jit_compile(
            v->schema, &(fbe_jit_options){.require_native = true, .mode = FBE_JIT_EAGER}, &st);
        assert_non_null(v->jit);
        assert_int_equal(fbe_codec_backend(v->jit), FBE_BACKEND_JIT);
        v->tj = fbe_codec_type(v->jit, "s.S");
        assert_non_null(v->tj);
    }
    v->page = (size_t)sysconf(_SC_PAGESIZE);
    v->pages = mmap(NULL, 2 * v->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(v->pages != MAP_FAILED);
    assert_int_equal(mprotect(v->pages + v->page, v->page, PROT_NONE), 0);
    *state = v;
    return 0;
}

static int teardown(void **state)
{
    env *v = *state;
    munmap(v->pages, 2 * v->page);
    fbe_codec_free(v->jit);
    fbe_codec_free(v->interp);
    fbe_schema_free(v->schema);
    free(v);
    return 0;
}

static void expect_view(const void *data, size_t size, const char *want, size_t n, bool nul)
{
    assert_int_equal(size, n);
    if (!n) {
        assert_null(data);
        return;
    }
    assert_memory_equal(data, want, n);
    if (nul)
        assert_int_equal(((const char *)data)[n], 0);
}

static void run_model(env *v, const fbe_type *t, fbe_model model)
{
    char text[2][MAX_LEN];
    for (size_t i = 0; i < MAX_LEN; i++) {
        text[0][i] = (char)('a' + i % 26);
        text[1][i] = (char)(0x80 + i);
    }
    for (size_t la = 0; la <= MAX_LEN; la++) {
        for (size_t lb = 0; lb <= MAX_LEN; lb++) {
            host_s in = {{la ? text[0] : NULL, la}, {lb ? (const uint8_t *)text[1] : NULL, lb}};
            fbe_buffer frame;
            fbe_buffer_init(&frame, NULL, NULL);
            assert_int_equal(fbe_serialize(v->ti, model, &in, &frame), FBE_OK);
            /* the frame ends where the inaccessible page starts */
            assert_true(frame.size <= v->page);
            uint8_t *at = v->pages + v->page - frame.size;
            memcpy(at, frame.data, frame.size);
            for (int borrow = 0; borrow < 2; borrow++) {
                fbe_arena arena;
                fbe_arena_init(&arena, NULL, NULL);
                fbe_decode_options opts = {.arena = &arena,
                                           .flags = borrow ? FBE_DECODE_BORROW : 0};
                host_s out;
                memset(&out, 0xa5, sizeof out);
                size_t consumed = 0;
                assert_int_equal(fbe_deserialize(t, model, at, frame.size, &out, &opts,
                                                 &consumed),
                                 FBE_OK);
                assert_int_equal(consumed, frame.size);
                expect_view(out.a.data, out.a.size, text[0], la, !borrow);
                expect_view(out.b.data, out.b.size, text[1], lb, !borrow);
                if (borrow) {
                    /* borrowed views point into the frame */
                    assert_true(!la || ((const uint8_t *)out.a.data >= at &&
                                        (const uint8_t *)out.a.data + la <= at + frame.size));
                    assert_true(!lb || (out.b.data >= at && out.b.data + lb <= at + frame.size));
                } else {
                    /* copies are the arena's */
                    assert_true(!la || (const uint8_t *)out.a.data + la <= at ||
                                (const uint8_t *)out.a.data >= at + frame.size);
                    assert_true(!lb || out.b.data + lb <= at || out.b.data >= at + frame.size);
                    /* the 16-byte store of a short string stays in its block:
                     * the next block (b's, read after a's) starts 16 bytes on
                     * at least (a fresh arena: one chunk) */
                    if (la && lb)
                        assert_true(out.b.data >= (const uint8_t *)out.a.data + 16);
                }
                fbe_arena_free(&arena);
            }
            fbe_buffer_free(&frame);
        }
    }
}

static void test_standard(void **state)
{
    env *v = *state;
    run_model(v, v->ti, FBE_STANDARD);
    if (v->tj)
        run_model(v, v->tj, FBE_STANDARD);
}

static void test_final(void **state)
{
    env *v = *state;
    run_model(v, v->ti, FBE_FINAL);
    if (v->tj)
        run_model(v, v->tj, FBE_FINAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standard),
        cmocka_unit_test(test_final),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
