/* fbe-c from another project: the README account built with the generated
 * header, serialized in both models and compared with the reference's bytes,
 * decoded back and printed in the reference's text form.
 *
 *   consumer GOLDEN_DIR [SCHEMA IMPORT_DIR]
 *
 * GOLDEN_DIR holds readme.bin, readme.final.bin, readme.txt and readme.json (the
 * reference's proto.Account "readme" case). The codec comes from fbe_generate
 * (BACKEND aot or c: fbe_app_codec_create), or with CONSUMER_JIT from SCHEMA
 * loaded at run time and compiled by the JIT (app.h from BACKEND header only
 * declares the structs); that program also writes the account as JSON
 * (fbe::json) and builds the proto message tables (fbe::protocol), so that a
 * C-only project links every library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fbe/codec.h>
#ifdef CONSUMER_JIT
#include <fbe/jit.h>
#include <fbe/json.h>
#include <fbe/protocol.h>
#include <fbe/schema.h>
#endif

#include "app.h" /* generated; includes proto.h */
#include "readme_account.h"

/* The file dir/name, whole, in a buffer (fbe_buffer_free). */
static int read_golden(const char *dir, const char *name, fbe_buffer *out)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    char chunk[4096];
    size_t n;
    fbe_status st = FBE_OK;
    while (st == FBE_OK && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        st = fbe_buffer_append(out, chunk, n);
    fclose(f);
    if (st != FBE_OK) {
        fprintf(stderr, "%s: %s\n", path, fbe_status_name(st));
        return 1;
    }
    /* The reference's text files end with a newline; fbe_print writes none. */
    while (out->size && (out->data[out->size - 1] == '\n' || out->data[out->size - 1] == '\r'))
        out->size--;
    return 0;
}

static int same(const char *what, const fbe_buffer *got, const fbe_buffer *want)
{
    if (got->size == want->size && memcmp(got->data, want->data, want->size) == 0)
        return 1;
    fprintf(stderr, "%s differs from the reference's:\n%.*s\n", what, (int)got->size,
            (const char *)got->data);
    return 0;
}

/* Serialize, compare with the reference's bytes, decode, print, compare with
 * the reference's text. 0 when everything matches. */
static int round_trip(const fbe_type *type, fbe_model model, const proto_Account *account,
                      const char *golden_dir, const char *bin_name, const fbe_buffer *text_want)
{
    fbe_buffer bytes, want, text;
    fbe_buffer_init(&bytes, NULL, NULL);
    fbe_buffer_init(&want, NULL, NULL);
    fbe_buffer_init(&text, NULL, NULL);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options options = {.arena = &arena};
    proto_Account back;
    const char *model_name = model == FBE_STANDARD ? "standard" : "final";
    int failed = read_golden(golden_dir, bin_name, &want);
    fbe_status st = fbe_serialize(type, model, account, &bytes);
    if (st == FBE_OK)
        st = fbe_deserialize(type, model, bytes.data, bytes.size, &back, &options, NULL);
    if (st == FBE_OK)
        st = fbe_print(type->ir, &back, &text);
    if (st != FBE_OK) {
        fprintf(stderr, "%s: %s (%s)\n", model_name, fbe_status_name(st), fbe_strerror(st));
        failed = 1;
    } else if (!failed && (bytes.size != want.size || memcmp(bytes.data, want.data, want.size))) {
        fprintf(stderr, "%s: %zu bytes differ from the reference's %s (%zu bytes)\n",
                model_name, bytes.size, bin_name, want.size);
        failed = 1;
    } else if (!same(model_name, &text, text_want)) {
        failed = 1;
    } else {
        printf("%-8s %zu bytes, decoded: %.*s\n", model_name, bytes.size, (int)text.size,
               (const char *)text.data);
    }
    fbe_buffer_free(&bytes);
    fbe_buffer_free(&want);
    fbe_buffer_free(&text);
    fbe_arena_free(&arena);
    return failed;
}

#ifdef CONSUMER_JIT
/* JSON and the protocol on the same codec: the output must be the reference's. */
static int json_and_protocol(const fbe_codec *codec, const fbe_type *type,
                             const proto_Account *account, const char *golden_dir)
{
    fbe_buffer json, want;
    fbe_buffer_init(&json, NULL, NULL);
    fbe_buffer_init(&want, NULL, NULL);
    fbe_json_error error;
    int failed = read_golden(golden_dir, "readme.json", &want);
    if (fbe_json_write(type->ir, account, 0, &json, &error) != FBE_OK) {
        fprintf(stderr, "fbe_json_write: %s\n", error.message);
        failed = 1;
    } else if (!failed && !same("JSON", &json, &want)) {
        failed = 1;
    } else {
        printf("json     %zu bytes\n", json.size);
    }
    fbe_status st = FBE_OK;
    fbe_protocol *protocol = fbe_protocol_create(codec, "proto", &st);
    if (!protocol || strcmp(fbe_protocol_package(protocol)->name, "proto") != 0) {
        fprintf(stderr, "fbe_protocol_create: %s\n", fbe_status_name(st));
        failed = 1;
    }
    fbe_protocol_free(protocol);
    fbe_buffer_free(&json);
    fbe_buffer_free(&want);
    return failed;
}
#endif

int main(int argc, char **argv)
{
#ifdef CONSUMER_JIT
    if (argc != 4) {
        fputs("usage: consumer_jit GOLDEN_DIR SCHEMA IMPORT_DIR\n", stderr);
        return 2;
    }
    const char *import_dirs[] = {argv[3]};
    fbe_schema_options schema_options = {.include_dirs = import_dirs, .include_dir_count = 1};
    fbe_schema *schema = fbe_schema_load(argv[2], &schema_options, NULL);
    if (!schema)
        return 1;
    fbe_status st = FBE_OK;
    fbe_codec *codec = fbe_jit_compile(schema, NULL, &st);
#else
    if (argc != 2) {
        fputs("usage: consumer GOLDEN_DIR\n", stderr);
        return 2;
    }
    fbe_status st = FBE_OK;
    fbe_codec *codec = fbe_app_codec_create(&st);
#endif
    if (!codec) {
        fprintf(stderr, "no codec: %s\n", fbe_status_name(st));
        return 1;
    }
    fbe_backend backend = fbe_codec_backend(codec);
    printf("backend: %s\n", fbe_backend_name(backend));
    const fbe_type *type = fbe_codec_type(codec, "proto.Account");
    proto_Account account;
    proto_Balance asset;
    proto_Order orders[3];
    readme_account_init(&account, &asset, orders);

    fbe_buffer text_want;
    fbe_buffer_init(&text_want, NULL, NULL);
    int failed = !type || read_golden(argv[1], "readme.txt", &text_want);
    if (!failed) {
        failed |= round_trip(type, FBE_STANDARD, &account, argv[1], "readme.bin", &text_want);
        failed |= round_trip(type, FBE_FINAL, &account, argv[1], "readme.final.bin", &text_want);
#ifdef CONSUMER_JIT
        failed |= json_and_protocol(codec, type, &account, argv[1]);
        /* Only a build without LLVM may fall back to the interpreter. */
        if (fbe_jit_available() && backend != FBE_BACKEND_JIT) {
            fputs("the JIT fell back to the interpreter\n", stderr);
            failed = 1;
        }
#endif
    }
    fbe_buffer_free(&text_want);
    fbe_codec_free(codec);
#ifdef CONSUMER_JIT
    fbe_schema_free(schema);
#endif
    return failed;
}
