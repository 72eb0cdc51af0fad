/* The chunked bump allocator of runtime/arena.c (include/fbe/arena.h). */
#include "test_util.h"

#include "fbe/arena.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ---- a counting allocator hook (realloc semantics) ------------------------------ */

typedef struct counting {
    size_t allocs;     /* successful allocations */
    size_t frees;      /* frees of a non-NULL pointer */
    size_t calls;      /* every call */
    size_t live_bytes; /* bytes currently handed out */
    size_t fail_after; /* 0 = never fail; otherwise allocation number N+1 fails */
    size_t max_size;   /* 0 = any size; otherwise larger requests fail */
} counting;

/* Every block carries its size in a 16-byte header so that frees can be accounted
 * and the payload stays as aligned as malloc's. */
typedef union block_header {
    size_t size;
    max_align_t align;
    char pad[16];
} block_header;

static void *counting_alloc(void *ctx, void *ptr, size_t size)
{
    counting *c = ctx;
    c->calls++;
    if (size == 0) {
        if (ptr) {
            block_header *h = (block_header *)ptr - 1;
            c->live_bytes -= h->size;
            c->frees++;
            free(h);
        }
        return NULL;
    }
    if (ptr) { /* realloc: not used by the arena, supported for completeness */
        block_header *h = (block_header *)ptr - 1;
        size_t old = h->size;
        block_header *n = realloc(h, sizeof *h + size);
        if (!n)
            return NULL;
        n->size = size;
        c->live_bytes = c->live_bytes - old + size;
        return n + 1;
    }
    if (c->fail_after && c->allocs >= c->fail_after)
        return NULL;
    if (c->max_size && size > c->max_size)
        return NULL;
    block_header *h = malloc(sizeof *h + size);
    if (!h)
        return NULL;
    h->size = size;
    c->allocs++;
    c->live_bytes += size;
    return h + 1;
}

static bool aligned16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

/* ---- tests -------------------------------------------------------------------- */

static void test_alignment(void **state)
{
    (void)state;
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);
    enum { N = 2000 };
    unsigned char *ptrs[N];
    size_t sizes[N];
    for (size_t i = 0; i < N; i++) {
        sizes[i] = (i * 7) % 53; /* includes 0 */
        ptrs[i] = fbe_arena_alloc(&a, sizes[i]);
        assert_non_null(ptrs[i]);
        assert_true(aligned16(ptrs[i]));
        memset(ptrs[i], (int)(i & 0xFF), sizes[i]);
    }
    /* No block overlaps another: every pattern survived, pointers are distinct. */
    for (size_t i = 0; i < N; i++) {
        for (size_t k = 0; k < sizes[i]; k++)
            assert_int_equal(ptrs[i][k], i & 0xFF);
        if (i > 0)
            assert_ptr_not_equal(ptrs[i], ptrs[i - 1]);
    }
    /* zero-size requests still return distinct, usable pointers */
    void *z1 = fbe_arena_alloc(&a, 0);
    void *z2 = fbe_arena_alloc(&a, 0);
    assert_non_null(z1);
    assert_non_null(z2);
    assert_ptr_not_equal(z1, z2);
    fbe_arena_free(&a);
    assert_null(a.head);
    assert_int_equal(a.total, 0);
}

static void test_zalloc(void **state)
{
    (void)state;
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);
    unsigned char *p = fbe_arena_alloc(&a, 1000);
    assert_non_null(p);
    memset(p, 0xEE, 1000);
    fbe_arena_reset(&a);
    /* the same (dirty) memory comes back, zeroed */
    unsigned char *q = fbe_arena_zalloc(&a, 1000);
    assert_ptr_equal(p, q);
    for (size_t i = 0; i < 1000; i++)
        assert_int_equal(q[i], 0);
    fbe_arena_free(&a);
}

static void test_large_allocations(void **state)
{
    (void)state;
    counting c = {0};
    fbe_arena a;
    fbe_arena_init(&a, counting_alloc, &c);

    char *small = fbe_arena_alloc(&a, 10);
    assert_non_null(small);
    strcpy(small, "small");

    /* larger than the first chunk, and larger than the 1 MiB chunk cap */
    size_t sizes[] = {4097, 100000, (size_t)1 << 20, ((size_t)3 << 20) + 5};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned char *big = fbe_arena_alloc(&a, sizes[i]);
        assert_non_null(big);
        assert_true(aligned16(big));
        memset(big, 0x5A, sizes[i]);
        assert_int_equal(big[0], 0x5A);
        assert_int_equal(big[sizes[i] - 1], 0x5A);
        assert_true(a.total >= sizes[i]);
    }
    /* small allocations keep working after the big ones */
    for (int i = 0; i < 1000; i++) {
        void *p = fbe_arena_alloc(&a, 24);
        assert_non_null(p);
        assert_true(aligned16(p));
    }
    assert_string_equal(small, "small");
    assert_int_equal(c.live_bytes, a.total);
    assert_true(c.allocs >= 5);

    fbe_arena_free(&a);
    assert_int_equal(c.allocs, c.frees);
    assert_int_equal(c.live_bytes, 0);
    assert_int_equal(a.total, 0);
}

static void test_reset_reuses_memory(void **state)
{
    (void)state;
    counting c = {0};
    fbe_arena a;
    fbe_arena_init(&a, counting_alloc, &c);

    assert_non_null(fbe_arena_alloc(&a, 64));
    size_t first_total = a.total;
    /* force several more chunks: 4, 8, 16, 32 and 64 KB */
    for (int i = 0; i < 100; i++)
        assert_non_null(fbe_arena_alloc(&a, 1000));
    assert_int_equal(c.allocs, 5);
    assert_true(a.total > first_total);
    size_t header = first_total - 4096;
    assert_int_equal(a.total, 5 * header + 4096 + 8192 + 16384 + 32768 + 65536);
    char *largest = a.end - 65536; /* the current chunk */

    fbe_arena_reset(&a);
    /* all chunks but the largest (the last, 64 KB) are gone, and it is rewound */
    assert_int_equal(c.allocs - c.frees, 1);
    assert_int_equal(a.total, header + 65536);
    assert_int_equal(c.live_bytes, a.total);
    size_t allocs_before = c.allocs;
    void *first = fbe_arena_alloc(&a, 64);
    assert_ptr_equal(first, largest);
    /* filling the kept chunk needs no new allocation */
    for (int i = 0; i < 60000 / 48; i++)
        assert_non_null(fbe_arena_alloc(&a, 48));
    assert_int_equal(c.allocs, allocs_before);

    /* reset twice in a row, and reset of an empty arena, are harmless */
    fbe_arena_reset(&a);
    fbe_arena_reset(&a);
    assert_ptr_equal(fbe_arena_alloc(&a, 1), first);

    fbe_arena_free(&a);
    assert_int_equal(c.allocs, c.frees);
    assert_int_equal(c.live_bytes, 0);

    fbe_arena empty;
    fbe_arena_init(&empty, counting_alloc, &c);
    fbe_arena_reset(&empty);
    fbe_arena_free(&empty);
    assert_int_equal(c.allocs, c.frees);

    /* an arena is reusable after fbe_arena_free */
    assert_non_null(fbe_arena_alloc(&a, 10));
    fbe_arena_free(&a);
    assert_int_equal(c.allocs, c.frees);
}

/* An arena reset after every message stops allocating once it holds a chunk
 * that fits the message; a chunk made for one oversized request is not kept. */
static void test_reset_settles(void **state)
{
    (void)state;
    counting c = {0};
    fbe_arena a;
    fbe_arena_init(&a, counting_alloc, &c);
    size_t allocs_after_first = 0;
    for (int cycle = 0; cycle < 20; cycle++) {
        for (int i = 0; i < 400; i++) /* 400 KB a message */
            assert_non_null(fbe_arena_alloc(&a, 1024));
        if (cycle == 2)
            allocs_after_first = c.allocs;
        fbe_arena_reset(&a);
        assert_int_equal(c.allocs - c.frees, 1);
    }
    assert_int_equal(c.allocs, allocs_after_first);
    assert_true(a.end - a.ptr >= 400 * 1024);

    /* 3 MB in one piece: a chunk of its own, freed by the reset */
    size_t kept = a.total;
    assert_non_null(fbe_arena_alloc(&a, (size_t)3 << 20));
    assert_true(a.total > kept + ((size_t)3 << 20));
    fbe_arena_reset(&a);
    assert_int_equal(a.total, kept);
    assert_int_equal(c.live_bytes, kept);
    fbe_arena_free(&a);
    assert_int_equal(c.allocs, c.frees);
}

static void test_limit(void **state)
{
    (void)state;
    counting c = {0};
    fbe_arena a;
    fbe_arena_init(&a, counting_alloc, &c);
    a.limit = 64 * 1024;

    size_t n = 0;
    while (fbe_arena_alloc(&a, 100) != NULL) {
        n++;
        assert_true(a.total <= a.limit);
        assert_true(n < 100000);
    }
    assert_true(n * 100 >= 16 * 1024); /* the limit was not hit absurdly early */
    assert_true(a.total <= a.limit);
    assert_int_equal(c.live_bytes, a.total);
    /* stays failing, also for big requests; never asks the allocator for them */
    size_t calls = c.calls;
    assert_null(fbe_arena_alloc(&a, 100));
    assert_null(fbe_arena_alloc(&a, 1u << 20));
    assert_null(fbe_arena_alloc(&a, SIZE_MAX / 2));
    assert_null(fbe_arena_zalloc(&a, 1u << 20));
    assert_null(fbe_arena_strndup(&a, "x", 1u << 20));
    assert_int_equal(c.calls, calls);

    /* after a reset there is room again */
    fbe_arena_reset(&a);
    assert_non_null(fbe_arena_alloc(&a, 100));
    fbe_arena_free(&a);
    assert_int_equal(c.allocs, c.frees);

    /* a limit below the first chunk refuses everything */
    fbe_arena b;
    fbe_arena_init(&b, counting_alloc, &c);
    b.limit = 100;
    assert_null(fbe_arena_alloc(&b, 1));
    assert_null(b.head);
    assert_int_equal(b.total, 0);
    fbe_arena_free(&b);

    /* absurd sizes fail cleanly (limit keeps them away from the allocator) */
    fbe_arena d;
    fbe_arena_init(&d, counting_alloc, &c);
    d.limit = 1u << 20;
    assert_null(fbe_arena_alloc(&d, SIZE_MAX));
    assert_null(fbe_arena_alloc(&d, SIZE_MAX - 15));
    assert_null(fbe_arena_alloc(&d, SIZE_MAX - 16));
    assert_null(fbe_arena_alloc(&d, SIZE_MAX / 2));
    assert_null(fbe_arena_strndup(&d, "abc", SIZE_MAX));
    assert_non_null(fbe_arena_alloc(&d, 1));
    fbe_arena_free(&d);
    assert_int_equal(c.allocs, c.frees);
    assert_int_equal(c.live_bytes, 0);
}

static void test_allocator_failure(void **state)
{
    (void)state;
    counting c = {0};
    c.fail_after = 3;
    fbe_arena a;
    fbe_arena_init(&a, counting_alloc, &c);
    size_t ok = 0;
    void *p;
    while ((p = fbe_arena_alloc(&a, 1024)) != NULL) {
        ok++;
        assert_true(ok < 100000);
    }
    assert_int_equal(c.allocs, 3);
    assert_true(ok > 3);
    /* a big request that the hook refuses */
    c.fail_after = 0;
    c.max_size = 1u << 16;
    assert_null(fbe_arena_alloc(&a, 1u << 20));
    assert_null(fbe_arena_printf(&a, "%100000d", 1));
    /* the arena is still consistent: small requests succeed again */
    assert_non_null(fbe_arena_alloc(&a, 16));
    fbe_arena_free(&a);
    assert_int_equal(c.allocs, c.frees);
    assert_int_equal(c.live_bytes, 0);
}

static void test_custom_allocator_ctx(void **state)
{
    (void)state;
    counting c = {0};
    fbe_arena a;
    fbe_arena_init(&a, counting_alloc, &c);
    /* nothing is allocated before the first request */
    assert_int_equal(c.calls, 0);
    assert_non_null(fbe_arena_alloc(&a, 1));
    assert_int_equal(c.allocs, 1);
    for (int i = 0; i < 10000; i++)
        assert_non_null(fbe_arena_alloc(&a, 200));
    assert_int_equal(c.live_bytes, a.total);
    size_t allocs = c.allocs;
    assert_true(allocs > 1);
    /* chunks grow: 2 MB of requests needs far fewer chunks than 4 KiB each would */
    assert_true(allocs < 2000000 / 4096);
    fbe_arena_free(&a);
    assert_int_equal(c.frees, allocs);
    assert_int_equal(c.live_bytes, 0);
}

static void test_strings(void **state)
{
    (void)state;
    counting c = {0};
    fbe_arena a;
    fbe_arena_init(&a, counting_alloc, &c);

    char *s = fbe_arena_strndup(&a, "hello world", 5);
    assert_string_equal(s, "hello");
    assert_true(aligned16(s));
    s = fbe_arena_strndup(&a, "", 0);
    assert_non_null(s);
    assert_string_equal(s, "");
    s = fbe_arena_strndup(&a, NULL, 0);
    assert_non_null(s);
    assert_string_equal(s, "");
    /* embedded NUL bytes are copied, and a NUL is appended */
    s = fbe_arena_strndup(&a, "a\0b", 3);
    assert_memory_equal(s, "a\0b\0", 4);
    s = fbe_arena_strdup(&a, "copied");
    assert_string_equal(s, "copied");

    char *p = fbe_arena_printf(&a, "%s-%d-%05.1f-%c", "x", -42, 3.25, 'z');
    assert_string_equal(p, "x--42-003.2-z");
    p = fbe_arena_printf(&a, "%s", "");
    assert_string_equal(p, "");
    /* output longer than a chunk */
    p = fbe_arena_printf(&a, "[%10000d]", 7);
    assert_non_null(p);
    assert_int_equal(strlen(p), 10002);
    assert_int_equal(p[0], '[');
    assert_int_equal(p[9999], ' ');
    assert_int_equal(p[10000], '7');
    assert_int_equal(p[10001], ']');
    /* a long strdup */
    char *longs = malloc(20000);
    assert_non_null(longs);
    memset(longs, 'q', 19999);
    longs[19999] = '\0';
    s = fbe_arena_strdup(&a, longs);
    assert_string_equal(s, longs);
    free(longs);

    fbe_arena_free(&a);
    assert_int_equal(c.allocs, c.frees);
    assert_int_equal(c.live_bytes, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alignment),
        cmocka_unit_test(test_zalloc),
        cmocka_unit_test(test_large_allocations),
        cmocka_unit_test(test_reset_reuses_memory),
        cmocka_unit_test(test_reset_settles),
        cmocka_unit_test(test_limit),
        cmocka_unit_test(test_allocator_failure),
        cmocka_unit_test(test_custom_allocator_ctx),
        cmocka_unit_test(test_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
