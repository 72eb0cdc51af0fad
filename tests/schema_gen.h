/* Random schema text (tests/schema_gen.c). */
#ifndef FBE_TESTS_SCHEMA_GEN_H
#define FBE_TESTS_SCHEMA_GEN_H

#include <stdint.h>

/* "package PACKAGE" and the declarations of seeds first_seed .. first_seed +
 * count - 1; with more than one seed every name is prefixed "A<seed>_" so the
 * schemas share the package. The caller frees the text. */
char *gen_schema(const char *package, uint64_t first_seed, unsigned count);

/* The next version of gen_schema(package, seed, 1): the same declarations, and
 * the structs that are no base have up to 3 fields more at their end, some
 * with defaults: what a newer writer of the same package adds. */
char *gen_schema_newer(const char *package, uint64_t seed);

#endif
