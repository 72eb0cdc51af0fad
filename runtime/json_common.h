/* Helpers shared by the JSON writer and reader (runtime/json_write.c,
 * runtime/json_read.c): integer access by kind, the JSON path of an error, the
 * exact decimal text and Base64. Not installed. */
#ifndef FBE_JSON_COMMON_H
#define FBE_JSON_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fbe/json.h"
#include "fbe/types.h"

/* ---- integers of every width -------------------------------------------------- */

static inline unsigned fbe_json_int_width(fbe_ir_kind kind)
{
    switch (kind) {
    case FBE_IR_BOOL: case FBE_IR_BYTE: case FBE_IR_CHAR: case FBE_IR_INT8: case FBE_IR_UINT8:
        return 1;
    case FBE_IR_INT16: case FBE_IR_UINT16:
        return 2;
    case FBE_IR_WCHAR: case FBE_IR_INT32: case FBE_IR_UINT32:
        return 4;
    default: /* INT64, UINT64, TIMESTAMP */
        return 8;
    }
}

/* The integer kind a value of type t is stored as: enum and flags by their
 * base, timestamps as uint64; every other kind is itself. */
static inline fbe_ir_kind fbe_json_int_kind(const fbe_ir_type *t)
{
    switch (t->kind) {
    case FBE_IR_ENUM: return t->enum_type->base;
    case FBE_IR_FLAGS: return t->flags_type->base;
    case FBE_IR_TIMESTAMP: return FBE_IR_UINT64;
    default: return t->kind;
    }
}

/* ---- error paths (collected while an error unwinds, innermost first) ------------------------------------------------------------------ */

typedef enum fbe_json_seg_kind { FBE_JSEG_FIELD, FBE_JSEG_INDEX, FBE_JSEG_KEY } fbe_json_seg_kind;

typedef struct fbe_json_seg {
    uint8_t kind;
    const char *name; /* FIELD: field name; KEY: key text */
    size_t len;       /* KEY: key length */
    size_t index;     /* INDEX */
} fbe_json_seg;

#define FBE_JSON_PATH_MAX 256

typedef struct fbe_json_path {
    fbe_json_seg seg[FBE_JSON_PATH_MAX];
    size_t depth; /* may exceed FBE_JSON_PATH_MAX: deeper segments are not kept */
} fbe_json_path;

static inline void fbe_json_path_field(fbe_json_path *p, const char *name)
{
    if (p->depth < FBE_JSON_PATH_MAX)
        p->seg[p->depth] = (fbe_json_seg){.kind = FBE_JSEG_FIELD, .name = name};
    p->depth++;
}

static inline void fbe_json_path_index(fbe_json_path *p, size_t index)
{
    if (p->depth < FBE_JSON_PATH_MAX)
        p->seg[p->depth] = (fbe_json_seg){.kind = FBE_JSEG_INDEX, .index = index};
    p->depth++;
}

static inline void fbe_json_path_key(fbe_json_path *p, const char *key, size_t len)
{
    if (p->depth < FBE_JSON_PATH_MAX)
        p->seg[p->depth] = (fbe_json_seg){.kind = FBE_JSEG_KEY, .name = key, .len = len};
    p->depth++;
}

/* Sets err (may be NULL) to the message and returns status. The path is added
 * while the error unwinds (the fbe_json_path_* calls above, innermost first),
 * then fbe_json__with_path prefixes "$.a.b[2]: ". */
fbe_status fbe_json__fail(fbe_json_error *err, fbe_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void fbe_json__with_path(fbe_json_error *err, const fbe_json_path *path);

/* ---- decimal text ------------------------------------------------------------------- */

/* The exact value of d: optional '-', the integer digits, '.', and max(scale, 6)
 * fractional digits (so every decimal whose double prints exactly with "%f" gets
 * the reference's very text). One exception keeps our own text lossless: a value
 * of more than 15 significant digits whose text is exactly printf("%f") of a
 * double would be read back as the reference's rounded output, so it gets a
 * seventh fractional zero (the same number to the reference's stod). Returns the
 * length written; out holds at least FBE_JSON_DECIMAL_MAX bytes. */
#define FBE_JSON_DECIMAL_MAX 300
size_t fbe_json__decimal_format(const fbe_decimal *d, char *out);

/* Parses decimal text as docs/json.md describes. Returns false when the text is
 * not a decimal number. */
bool fbe_json__decimal_parse(const char *text, size_t len, fbe_decimal *out);

/* ---- Base64 (standard alphabet, '=' padding) ----------------------------------------- */

static inline size_t fbe_json__base64_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

/* Writes fbe_json__base64_len(n) characters. */
void fbe_json__base64_encode(const uint8_t *data, size_t n, char *out);

/* Decodes into out (room for len / 4 * 3 + 3 bytes). Returns false with *bad_at
 * set to the offending character's position when the text is not Base64. */
bool fbe_json__base64_decode(const char *text, size_t len, uint8_t *out, size_t *out_len,
                             size_t *bad_at);

#endif
