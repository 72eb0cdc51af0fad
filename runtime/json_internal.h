/* Internal interface of the fbe_json library: the thin C API over simdjson
 * (runtime/json_simd.cc, the only C++ in the library) that the C reader and
 * writer (runtime/json_read.c, runtime/json_write.c) use. Not installed. */
#ifndef FBE_JSON_INTERNAL_H
#define FBE_JSON_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fbe_jn_type {
    FBE_JN_NULL,
    FBE_JN_FALSE,
    FBE_JN_TRUE,
    FBE_JN_INT64,  /* an integer that fits int64 */
    FBE_JN_UINT64, /* an integer above INT64_MAX that fits uint64 */
    FBE_JN_DOUBLE, /* a number written with a fraction or an exponent (or a huge integer) */
    FBE_JN_STRING,
    FBE_JN_ARRAY,
    FBE_JN_OBJECT
} fbe_jn_type;

/* A parsed document is a flat array of nodes in document order. A container is
 * followed by its children (an object by key, value, key, value, ...; keys are
 * STRING nodes); `next` is the index just past a node's whole subtree. */
typedef struct fbe_jnode {
    uint8_t type;   /* fbe_jn_type */
    uint32_t next;  /* index after this node's subtree */
    uint32_t count; /* ARRAY: elements, OBJECT: members */
    union {
        int64_t i;
        uint64_t u;
        double d;
        struct {
            const char *p; /* unescaped UTF-8, NUL-terminated (may hold NULs) */
            size_t n;
        } s;
    } v;
} fbe_jnode;

typedef struct fbe_jparser fbe_jparser;

fbe_jparser *fbe_jparser_new(void);
void fbe_jparser_free(fbe_jparser *p);

/* Parses `len` bytes (no padding needed). On success returns 0 and sets *nodes
 * and *count (valid until the next parse or free). On failure returns -1 with
 * *message set to a static sentence; -2 means out of memory. Arrays and objects
 * nest at most 1024 deep (simdjson's default limit). */
int fbe_jparser_parse(fbe_jparser *p, const char *text, size_t len,
                      const fbe_jnode **nodes, size_t *count, const char **message);

/* The parse the reader walks: simdjson 3's DOM tape read in place (simdjson
 * doc/tape.md), which saves copying it into nodes (docs/json.md, speed). One
 * 64-bit word per value, its type character in the top byte:
 *   '{' '['  low 32 bits: the index just past the matching close word;
 *            bits 32..55: the member (object) or element (array) count,
 *            FBE_JTAPE_COUNT_MAX when saturated (count them);
 *   '"'      low 56 bits: offset in `strings` of a u32 length, the unescaped
 *            bytes (may hold NULs) and a NUL;
 *   'l' 'u' 'd'  int64, uint64, double: the bits are in the next word;
 *   't' 'f' 'n'  true, false, null.
 * The root value is at FBE_JTAPE_ROOT; an object's members follow it as key
 * (a string), value, key, value, ... */
typedef struct fbe_jtape {
    const uint64_t *tape;
    const uint8_t *strings;
} fbe_jtape;

#define FBE_JTAPE_ROOT 1
#define FBE_JTAPE_PAYLOAD UINT64_C(0x00FFFFFFFFFFFFFF)
#define FBE_JTAPE_COUNT_MAX UINT32_C(0xFFFFFF)

/* As fbe_jparser_parse, giving the tape (valid until the next parse or free). */
int fbe_jparser_parse_tape(fbe_jparser *p, const char *text, size_t len, fbe_jtape *tape,
                           const char **message);

/* The shortest decimal digits that read back as `v` (finite, > 0): writes up to 17
 * digits to `digits` (no NUL), returns their count and sets *exp10 so that
 * v == digits * 10^exp10 after rounding to the nearest double. */
int fbe_json_shortest(double v, char digits[24], int *exp10);

#ifdef __cplusplus
}
#endif

#endif
