/* Using a codec the way the JIT tests do: random values (value_gen.c) through a
 * codec under test and the interpreter, which must agree. No cmocka assertion
 * inside, so threads may call it. */
#ifndef FBE_TESTS_JIT_EXERCISE_H
#define FBE_TESTS_JIT_EXERCISE_H

#include <stddef.h>
#include <stdint.h>

#include "fbe/codec.h"
#include "fbe/schema.h"

/* `values` random values of every struct of `schema` (seeds from `seed`), both
 * models: jit and interp bytes identical, size exact, the jit's verify and
 * decode accept them and the decoded value re-serializes to them; then every
 * frame with one byte changed: verify (status, offset, struct, field) and
 * deserialize (status, and the value when it succeeds) identical. Returns the
 * number of mismatches; writes the first one to msg. */
unsigned long exercise(const fbe_schema *schema, const fbe_codec *jit, const fbe_codec *interp,
                       unsigned values, uint64_t seed, char *msg, size_t msg_size);

#endif
