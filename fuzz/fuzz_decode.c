/* Untrusted frames into every type of test.fbe, both models. Oracles:
 *  - verify and deserialize agree on the status (codec.md's contract);
 *  - the JIT and the interpreter agree on verify's status and, for an accepted
 *    frame, on the decoded value (compared by re-serializing it);
 *  - a decoded value serializes to a frame that verifies and decodes back to the
 *    same bytes; its JSON reads back, and after that first pass (which may
 *    canonicalize decimals) the value goes through JSON unchanged. */
#include <stdint.h>
#include <string.h>

#include "fbe/arena.h"
#include "fbe/buffer.h"
#include "fbe/codec.h"
#include "fbe/jit.h"
#include "fbe/json.h"
#include "fuzz_common.h"

static fbe_codec *interp, *jit;
static fbe_json_reader *reader;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fbe_schema *schema = fuzz_load_schema(); /* lives as long as the process */
    fbe_status st;
    interp = fbe_interp_create(schema, NULL, &st);
    FUZZ_CHECK(interp, "fbe_interp_create: %s", fbe_strerror(st));
    fbe_jit_options o = {.cache_dir = getenv("FBE_FUZZ_JIT_CACHE")};
    jit = fbe_jit_compile(schema, &o, &st); /* the interpreter again without LLVM */
    FUZZ_CHECK(jit, "fbe_jit_compile: %s", fbe_strerror(st));
    reader = fbe_json_reader_new();
    FUZZ_CHECK(reader, "out of memory");
    return 0;
}

static fbe_status decode(const fbe_type *t, fbe_model m, const uint8_t *data, size_t size,
                         fbe_arena *arena, void **value)
{
    *value = fbe_arena_zalloc(arena, t->ir->host_size ? t->ir->host_size : 1);
    FUZZ_CHECK(*value, "no memory for the host struct");
    fbe_decode_options o = {.arena = arena};
    return fbe_deserialize(t, m, data, size, *value, &o, NULL);
}

static void serialize(const fbe_type *t, fbe_model m, const void *value, fbe_buffer *out)
{
    fbe_buffer_clear(out);
    fbe_status st = fbe_serialize(t, m, value, out);
    FUZZ_CHECK(st == FBE_OK, "%s: serialize of a decoded value: %s", t->ir->full_name,
               fbe_strerror(st));
}

/* value -> JSON (into json) -> *back. A write error is returned; a JSON text
 * we wrote that does not read back is a finding. */
static void free_arenas(fbe_arena *arenas, int count)
{
    for (int a = 0; a < count; a++)
        fbe_arena_free(&arenas[a]);
}

static fbe_status json_pass(const fbe_type *t, const void *value, fbe_arena *arena,
                            fbe_buffer *json, void **back, fbe_json_error *err)
{
    fbe_buffer_clear(json);
    fbe_status st = fbe_json_write(t->ir, value, 0, json, err);
    if (st != FBE_OK)
        return st;
    *back = fbe_arena_zalloc(arena, t->ir->host_size ? t->ir->host_size : 1);
    FUZZ_CHECK(*back, "no memory for the host struct");
    fbe_json_read_options ro = {.arena = arena};
    st = fbe_json_read(reader, t->ir, (const char *)json->data, json->size, *back, &ro, err);
    FUZZ_CHECK(st == FBE_OK, "%s: our JSON does not read back: %s\n%.*s", t->ir->full_name,
               err->message, (int)json->size, (const char *)json->data);
    return FBE_OK;
}

static void one(size_t index, fbe_model m, const uint8_t *data, size_t size)
{
    const fbe_type *ti = fbe_codec_type_at(interp, index);
    const fbe_type *tj = fbe_codec_type_at(jit, index);
    const char *name = ti->ir->full_name;
    fbe_status vi = fbe_verify(ti, m, data, size, NULL);
    fbe_status vj = fbe_verify(tj, m, data, size, NULL);
    FUZZ_CHECK(vi == vj, "%s model %d: verify interp %s, jit %s", name, m, fbe_strerror(vi),
               fbe_strerror(vj));

    /* One arena per decode: each gets the whole limit, whatever the others took. */
    enum { A_INTERP, A_JIT, A_AGAIN, A_JSON1, A_JSON2, A_COUNT };
    fbe_arena arenas[A_COUNT];
    for (int a = 0; a < A_COUNT; a++) {
        fbe_arena_init(&arenas[a], NULL, NULL);
        arenas[a].limit = FUZZ_ARENA_LIMIT;
    }
    void *value, *value_jit;
    fbe_status di = decode(ti, m, data, size, &arenas[A_INTERP], &value);
    FUZZ_CHECK(di == vi, "%s model %d: verify %s but deserialize %s", name, m, fbe_strerror(vi),
               fbe_strerror(di));
    fbe_status dj = decode(tj, m, data, size, &arenas[A_JIT], &value_jit);
    FUZZ_CHECK(dj == di, "%s model %d: deserialize interp %s, jit %s", name, m,
               fbe_strerror(di), fbe_strerror(dj));
    if (di != FBE_OK) {
        free_arenas(arenas, A_COUNT);
        return;
    }

    fbe_buffer once, twice;
    fbe_buffer_init(&once, NULL, NULL);
    fbe_buffer_init(&twice, NULL, NULL);
    serialize(ti, m, value, &once);
    serialize(ti, m, value_jit, &twice);
    FUZZ_CHECK(once.size == twice.size && !memcmp(once.data, twice.data, once.size),
               "%s model %d: the JIT decoded another value", name, m);
    void *again;
    fbe_status st = decode(ti, m, once.data, once.size, &arenas[A_AGAIN], &again);
    FUZZ_CHECK(st == FBE_OK, "%s model %d: our own frame fails: %s", name, m, fbe_strerror(st));
    serialize(ti, m, again, &twice);
    FUZZ_CHECK(once.size == twice.size && !memcmp(once.data, twice.data, once.size),
               "%s model %d: serialize(deserialize(frame)) is not a fixed point", name, m);

    /* JSON: refused only for a NaN, an infinity or a string that is not UTF-8.
     * The first pass may canonicalize (a decimal's -0, scale and unused flag
     * bits have no JSON form, as in the reference); from then on the value
     * must go through JSON unchanged. */
    fbe_buffer json;
    fbe_buffer_init(&json, NULL, NULL);
    fbe_json_error err;
    void *canonical = NULL;
    st = json_pass(ti, value, &arenas[A_JSON1], &json, &canonical, &err);
    if (st == FBE_OK) {
        serialize(ti, m, canonical, &once);
        void *again_json = NULL;
        st = json_pass(ti, canonical, &arenas[A_JSON2], &json, &again_json, &err);
        FUZZ_CHECK(st == FBE_OK, "%s: JSON of a value read from JSON: %s", name, err.message);
        serialize(ti, m, again_json, &twice);
        FUZZ_CHECK(once.size == twice.size && !memcmp(once.data, twice.data, once.size),
                   "%s model %d: the JSON round trip changed the value\n%.*s", name, m,
                   (int)json.size, (const char *)json.data);
    } else {
        /* binary strings are bytes; JSON text must be UTF-8 (docs/json.md) */
        FUZZ_CHECK(strstr(err.message, "NaN") || strstr(err.message, "infinit") ||
                       strstr(err.message, "not valid UTF-8"),
                   "%s: JSON write failed: %s", name, err.message);
    }
    fbe_buffer_free(&json);
    fbe_buffer_free(&once);
    fbe_buffer_free(&twice);
    free_arenas(arenas, A_COUNT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n = fbe_codec_type_count(interp);
    for (size_t i = 0; i < n; i++) {
        one(i, FBE_STANDARD, data, size);
        one(i, FBE_FINAL, data, size);
    }
    return 0;
}
