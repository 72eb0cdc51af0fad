/* Random but valid host values of any struct, by reflection over the IR
 * (docs/host-abi.md): used to compare backends on many values of every type.
 *
 * Deterministic: the same IR and the same *rng_state give the same value (and
 * leave the same state behind). Every view (string, bytes, collection, optional
 * struct) points into `arena`, so freeing or resetting the arena frees the value. */
#ifndef FBE_TEST_VALUE_GEN_H
#define FBE_TEST_VALUE_GEN_H

#include <stdint.h>

#include "fbe/arena.h"
#include "fbe/ir.h"

/* Nesting level from which optional structs are absent and collections empty,
 * so generation terminates for recursive types. */
#define GEN_MAX_DEPTH 3

/* What the values generated on this thread held that JSON cannot carry: NaN
 * floats and strings that are not UTF-8, the first GEN_BAD_MAX of those
 * strings kept (counted by gen_value, never reset by it: a test zeroes it
 * before the values it asks about). */
#define GEN_BAD_MAX 32
typedef struct gen_marks {
    unsigned long nan, not_utf8;
    struct {
        const uint8_t *data;
        size_t size;
    } bad[GEN_BAD_MAX];
} gen_marks;
extern _Thread_local gen_marks gen_made;

/* The length of the longest prefix of p[0..n) that is UTF-8 (RFC 3629: no
 * overlong form, no surrogate, nothing past U+10FFFF). */
size_t utf8_valid_prefix(const uint8_t *p, size_t n);

/* xorshift64*: never returns the same stream for a zero state (0 is replaced). */
uint64_t gen_rand(uint64_t *rng_state);

/* Fills *value (st->host_size bytes, host-aligned) with random data: integers
 * (extremes and random bits), finite floats with +-0, subnormals and NaN bit
 * patterns, decimals with a valid flags word (scale 0..28, sign bit), uuids,
 * timestamps, strings (0..40 bytes: random, printable ASCII, or UTF-8 of every
 * kind of code point) and bytes (random or printable) of 0..40 bytes, enums and flags of their
 * base width, optionals present or absent, arrays, and collections of 0..4
 * elements. bool and has_value bytes are 0 or 1; padding bytes are zero. `depth`
 * is the nesting level of `value` (0 for a root). Allocation failure aborts. */
void gen_value(const fbe_ir_struct *st, void *value, fbe_arena *arena, uint64_t *rng_state,
               unsigned depth);

/* Makes views of a generated value claim huge lengths, as a host value may
 * whose strings alias one large buffer: each string or bytes, with
 * probability 1/3, and each collection of scalars, with probability 1/4, gets
 * a length from 2^31 to SIZE_MAX (around 2^32 and 2^40, where the standard and
 * final sizes stop growing). The views then point at a small static buffer:
 * such a value may be sized (sizing reads only lengths and the elements that
 * have extras, which keep their real lengths) and, when the size exceeds 32
 * bits, serialized to TOO_LARGE; nothing else may read it. */
void gen_huge_views(const fbe_ir_struct *st, void *value, uint64_t *rng_state);

#endif
