/* Untrusted JSON into every type of test.fbe. Oracles: whatever is accepted
 * writes back to JSON that reads to the same value (the second text equals the
 * first: the writer is a fixed point), and serializes in both models to frames
 * that verify and decode. */
#include <stdint.h>
#include <string.h>

#include "fbe/arena.h"
#include "fbe/buffer.h"
#include "fbe/codec.h"
#include "fbe/json.h"
#include "fuzz_common.h"

static fbe_codec *interp;
static fbe_json_reader *reader;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fbe_status st;
    interp = fbe_interp_create(fuzz_load_schema(), NULL, &st);
    FUZZ_CHECK(interp, "fbe_interp_create: %s", fbe_strerror(st));
    reader = fbe_json_reader_new();
    FUZZ_CHECK(reader, "out of memory");
    return 0;
}

static void *read_json(const fbe_type *t, const char *text, size_t len, fbe_arena *arena,
                       fbe_status *st, fbe_json_error *err)
{
    void *v = fbe_arena_zalloc(arena, t->ir->host_size ? t->ir->host_size : 1);
    FUZZ_CHECK(v, "no memory for the host struct");
    fbe_json_read_options o = {.arena = arena};
    *st = fbe_json_read(reader, t->ir, text, len, v, &o, err);
    return v;
}

static void one(const fbe_type *t, const char *text, size_t len)
{
    const char *name = t->ir->full_name;
    /* The value and the later decodes in arenas of their own: each may use the
     * whole limit, whatever the others took. */
    fbe_arena arena, again;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_arena_init(&again, NULL, NULL);
    arena.limit = again.limit = FUZZ_ARENA_LIMIT;
    fbe_status st;
    fbe_json_error err;
    void *value = read_json(t, text, len, &arena, &st, &err);
    if (st != FBE_OK) {
        FUZZ_CHECK(err.status == st && err.message[0], "%s: status %s without a message", name,
                   fbe_strerror(st));
        fbe_arena_free(&arena);
        fbe_arena_free(&again);
        return;
    }
    fbe_buffer a, b;
    fbe_buffer_init(&a, NULL, NULL);
    fbe_buffer_init(&b, NULL, NULL);
    st = fbe_json_write(t->ir, value, 0, &a, &err);
    FUZZ_CHECK(st == FBE_OK, "%s: accepted JSON does not write back: %s", name, err.message);
    void *back = read_json(t, (const char *)a.data, a.size, &again, &st, &err);
    FUZZ_CHECK(st == FBE_OK, "%s: our JSON does not read back: %s\n%.*s", name, err.message,
               (int)a.size, (const char *)a.data);
    st = fbe_json_write(t->ir, back, 0, &b, &err);
    FUZZ_CHECK(st == FBE_OK && a.size == b.size && !memcmp(a.data, b.data, a.size),
               "%s: JSON write is not a fixed point\n%.*s\n%.*s", name, (int)a.size,
               (const char *)a.data, (int)b.size, (const char *)b.data);
    for (int m = 0; m < 2; m++) {
        fbe_arena_reset(&again);
        fbe_buffer_clear(&b);
        st = fbe_serialize(t, (fbe_model)m, value, &b);
        FUZZ_CHECK(st == FBE_OK, "%s: serialize: %s", name, fbe_strerror(st));
        st = fbe_verify(t, (fbe_model)m, b.data, b.size, NULL);
        FUZZ_CHECK(st == FBE_OK, "%s model %d: our frame fails verify: %s", name, m,
                   fbe_strerror(st));
        void *dec = fbe_arena_zalloc(&again, t->ir->host_size ? t->ir->host_size : 1);
        FUZZ_CHECK(dec, "no memory for the host struct");
        fbe_decode_options o = {.arena = &again};
        st = fbe_deserialize(t, (fbe_model)m, b.data, b.size, dec, &o, NULL);
        FUZZ_CHECK(st == FBE_OK, "%s model %d: our frame fails deserialize: %s", name, m,
                   fbe_strerror(st));
    }
    fbe_buffer_free(&a);
    fbe_buffer_free(&b);
    fbe_arena_free(&arena);
    fbe_arena_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n = fbe_codec_type_count(interp);
    for (size_t i = 0; i < n; i++)
        one(fbe_codec_type_at(interp, i), (const char *)data, size);
    return 0;
}
