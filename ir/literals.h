/* Interpretation of literal token text, with C++ meaning (the reference pastes
 * enum values and defaults into C++) or std::stoi meaning (where the reference
 * compiler reads the number itself). */
#ifndef FBE_IR_LITERALS_H
#define FBE_IR_LITERALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fbe/arena.h"

/* Result of parsing an integer: sign and magnitude, so that both INT64_MIN and
 * UINT64_MAX are representable. */
typedef struct lit_int {
    bool negative;
    uint64_t magnitude;
} lit_int;

/* C++ rules: 0x.. hex, 0.. octal, else decimal. On failure returns false and
 * sets *error to a static message. */
bool lit_parse_cpp_int(const char *text, lit_int *out, const char **error);

/* Decimal only (the reference's stoi contexts); hex is refused rather than
 * silently read as 0. Leading zeros are decimal (010 = 10), as in the reference. */
bool lit_parse_decimal_int(const char *text, lit_int *out, const char **error);

/* A character literal 'x' (quotes included) with C++ escapes. Multi-byte UTF-8 for
 * a single code point is accepted (value = the code point). */
bool lit_parse_char(const char *text, uint32_t *out, const char **error);

/* A string literal "..." (quotes included) with C++ escapes; \u and \U produce
 * UTF-8. The result is NUL-terminated, may contain NULs (see *len) and must be
 * valid UTF-8 (raw bytes and \x or octal escapes are checked too). */
bool lit_parse_string(fbe_arena *arena, const char *text, char **out, size_t *len,
                      const char **error);

/* Integer range of an integer-like kind, as signed/unsigned limits. */
bool lit_int_fits(lit_int v, bool is_signed, unsigned bits);

/* The two's-complement bits of v truncated to `bits` and sign-extended if signed
 * (the value a C++ cast to that type produces). */
uint64_t lit_int_cast(lit_int v, bool is_signed, unsigned bits);

#endif
