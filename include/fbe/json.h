/* JSON form of FBE values: the reference's mapping (wire-format.md 8), written
 * and read by reflection over the IR for every struct of any schema.
 *
 * Library: fbe_json (link it only if you use JSON; its parser, simdjson, is C++,
 * so it brings libstdc++; the rest of fbe-c does not). docs/json.md describes the
 * mapping, the differences from the reference and the measured speed.
 *
 *   write  host value -> JSON text, appended to an fbe_buffer (compact, or
 *          indented with FBE_JSON_PRETTY). NaN/Inf and strings that are not
 *          UTF-8 are errors: nothing partial is left in the buffer.
 *   read   JSON text -> host value. The value first gets its schema defaults
 *          (fbe_init); members the JSON lacks keep them, unknown members are
 *          ignored. Strings, bytes, collections and optional structs are
 *          allocated from the arena, exactly as binary deserialize does.
 *
 * Errors carry a sentence that names the place: "$.orders[2].price: expected a
 * number, got a string". */
#ifndef FBE_JSON_H
#define FBE_JSON_H

#include <stddef.h>

#include "fbe/arena.h"
#include "fbe/buffer.h"
#include "fbe/error.h"
#include "fbe/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    FBE_JSON_PRETTY = 1u << 0 /* 4-space indentation, "key": value (rapidjson PrettyWriter) */
};

/* What went wrong. status is FBE_OK on success; otherwise
 *   FBE_INVALID_ARGUMENT  the JSON text or the value cannot be converted (message says why),
 *   FBE_TOO_DEEP          structs nested deeper than max_depth,
 *   FBE_MEMORY_LIMIT      the value needs more memory than max_memory allows,
 *   FBE_NOMEM             the arena or the output buffer could not grow. */
typedef struct fbe_json_error {
    fbe_status status;
    char message[512];
} fbe_json_error;

/* Appends the JSON text of `value` (a host struct of `type`) to `out`.
 * err may be NULL. */
fbe_status fbe_json_write(const fbe_ir_struct *type, const void *value, unsigned flags,
                          fbe_buffer *out, fbe_json_error *err);

/* A reusable parser (its buffers grow to the largest document seen). One reader
 * must not be used by two threads at once; use one per thread. */
typedef struct fbe_json_reader fbe_json_reader;

fbe_json_reader *fbe_json_reader_new(void);
void fbe_json_reader_free(fbe_json_reader *reader);

typedef struct fbe_json_read_options {
    fbe_arena *arena;   /* required: strings, bytes, collections, optional structs */
    unsigned max_depth; /* struct nesting limit; 0: FBE_DEFAULT_MAX_DEPTH (64) */
    /* The most one read may add to the arena (arena.h, "the decode budget"); past
     * it the read fails with FBE_MEMORY_LIMIT. 0: FBE_DECODE_MEMORY_FACTOR x the
     * text's length + FBE_DECODE_MEMORY_BASE; SIZE_MAX: no budget. */
    size_t max_memory;
} fbe_json_read_options;

/* Reads the JSON object in text[0..len) into *value (a host struct of `type`).
 * reader may be NULL (a temporary one is made: slower). On error *value is safe
 * to read and to free with the arena, but incomplete. err may be NULL. */
fbe_status fbe_json_read(fbe_json_reader *reader, const fbe_ir_struct *type, const char *text,
                         size_t len, void *value, const fbe_json_read_options *options,
                         fbe_json_error *err);

#ifdef __cplusplus
}
#endif

#endif
