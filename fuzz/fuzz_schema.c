/* Untrusted schema text. Oracles: the front end either reports at least one
 * error or returns a schema; a schema gets a codec, and every struct's default
 * value serializes in both models to a frame that verifies, decodes and writes
 * as JSON that reads back. */
#include <stdint.h>
#include <string.h>

#include "fbe/arena.h"
#include "fbe/buffer.h"
#include "fbe/codec.h"
#include "fbe/json.h"
#include "fuzz_common.h"

static fbe_json_reader *reader;

static void count_errors(void *ctx, const fbe_diag *d)
{
    if (d->severity == FBE_DIAG_ERROR)
        ++*(unsigned *)ctx;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    reader = fbe_json_reader_new();
    FUZZ_CHECK(reader, "out of memory");
    return 0;
}

static void check_type(const fbe_type *t)
{
    const char *name = t->ir->full_name;
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    arena.limit = FUZZ_ARENA_LIMIT;
    size_t host = t->ir->host_size ? t->ir->host_size : 1;
    void *v = fbe_arena_zalloc(&arena, host);
    if (!v) { /* a host struct bigger than the cap (huge fixed arrays): fine */
        fbe_arena_free(&arena);
        return;
    }
    fbe_init(t->ir, v);
    /* Frames and JSON of huge fixed arrays can be many times the host size: past
     * a few megabytes the work would say more about the fuzzer's memory limit
     * than about the library. */
    if (fbe_size(t, FBE_STANDARD, v) > FUZZ_FRAME_LIMIT || fbe_size(t, FBE_FINAL, v) > FUZZ_FRAME_LIMIT) {
        fbe_arena_free(&arena);
        return;
    }
    fbe_buffer b;
    fbe_buffer_init(&b, NULL, NULL);
    for (int m = 0; m < 2; m++) {
        fbe_buffer_clear(&b);
        fbe_status st = fbe_serialize(t, (fbe_model)m, v, &b);
        FUZZ_CHECK(st == FBE_OK, "%s: serialize of the default value: %s", name, fbe_strerror(st));
        st = fbe_verify(t, (fbe_model)m, b.data, b.size, NULL);
        FUZZ_CHECK(st == FBE_OK, "%s model %d: default frame fails verify: %s", name, m,
                   fbe_strerror(st));
        void *dec = fbe_arena_zalloc(&arena, host);
        if (!dec)
            break;
        fbe_decode_options o = {.arena = &arena};
        st = fbe_deserialize(t, (fbe_model)m, b.data, b.size, dec, &o, NULL);
        FUZZ_CHECK(st == FBE_OK || st == FBE_NOMEM, "%s model %d: default frame: %s", name, m,
                   fbe_strerror(st));
    }
    fbe_buffer_clear(&b);
    fbe_json_error err;
    fbe_status st = fbe_json_write(t->ir, v, 0, &b, &err);
    if (st == FBE_OK) {
        void *back = fbe_arena_zalloc(&arena, host);
        if (back) {
            fbe_json_read_options o = {.arena = &arena};
            st = fbe_json_read(reader, t->ir, (const char *)b.data, b.size, back, &o, &err);
            FUZZ_CHECK(st == FBE_OK || st == FBE_NOMEM, "%s: default JSON does not read back: %s",
                       name, err.message);
        }
    } else {
        FUZZ_CHECK(st == FBE_NOMEM || strstr(err.message, "NaN") || strstr(err.message, "infinit"),
                   "%s: JSON write of the default value: %s", name, err.message);
    }
    fbe_buffer_free(&b);
    fbe_arena_free(&arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned reported = 0, errors = 0;
    fbe_schema_options o = {.sink = count_errors, .sink_ctx = &reported};
    fbe_schema *s = fbe_schema_load_string("fuzz.fbe", (const char *)data, size, &o, &errors);
    if (!s) {
        FUZZ_CHECK(errors > 0 && reported > 0, "no schema but no error reported");
        return 0;
    }
    FUZZ_CHECK(errors == 0, "a schema despite %u errors", errors);
    fbe_status st;
    fbe_codec *codec = fbe_interp_create(s, NULL, &st);
    FUZZ_CHECK(codec, "a loaded schema without a codec: %s", fbe_strerror(st));
    for (size_t i = 0; i < fbe_codec_type_count(codec); i++)
        check_type(fbe_codec_type_at(codec, i));
    fbe_codec_free(codec);
    fbe_schema_free(s);
    return 0;
}
