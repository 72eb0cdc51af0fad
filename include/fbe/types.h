/* Host C representation of FBE values (see docs/host-abi.md).
 *
 * Every generated header, the interpreter, the JIT and the static backend agree on
 * these layouts; ir/ computes the size and alignment of each from the same rules.
 * Views (string, bytes, collections) never own memory: serialization only reads
 * them, deserialization points them into an arena or into the input buffer. */
#ifndef FBE_TYPES_H
#define FBE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Lossless decimal: the exact 16 wire bytes, split into their fields.
 * value = (-1)^sign * (hi:lo) / 10^scale, with scale = (flags >> 16) & 0xFF and
 * sign = flags >> 31. The reference C++ degrades this to a double; we do not. */
typedef struct fbe_decimal {
    uint64_t lo;    /* low 64 bits of the 96-bit magnitude */
    uint32_t hi;    /* high 32 bits of the magnitude */
    uint32_t flags; /* scale in bits 16..23, sign in bit 31 */
} fbe_decimal;

/* 16 bytes in textual (RFC 4122) order: bytes[0] is the first two hex digits. */
typedef struct fbe_uuid {
    uint8_t bytes[16];
} fbe_uuid;

/* UTF-8 text, not NUL-terminated, may contain NUL bytes. */
typedef struct fbe_string {
    const char *data;
    size_t size;
} fbe_string;

typedef struct fbe_bytes {
    const uint8_t *data;
    size_t size;
} fbe_bytes;

/* Layout shared by every vector, list, set, map and hash field: generated headers
 * declare typed equivalents ({T *data; size_t size;}) with the same layout. */
typedef struct fbe_seq {
    void *data;
    size_t size;
} fbe_seq;

/* Nanoseconds since the Unix epoch, UTC (CLOCK_REALTIME). */
uint64_t fbe_timestamp_now(void);

/* Fresh UUIDs for the schema defaults `uuid1` (time-based) and `uuid4` (random). */
fbe_uuid fbe_uuid_v1(void);
fbe_uuid fbe_uuid_v4(void);

/* Parses the reference's uuid text rules: '-', '{', '}' are skipped, everything else
 * must be hex; exactly 32 hex digits are required (the reference's short-input
 * behaviour reads uninitialised memory, we reject it). Returns false on error. */
bool fbe_uuid_parse(const char *text, size_t len, fbe_uuid *out);

/* Writes the 36-character lowercase canonical form plus a NUL into out[37]. */
void fbe_uuid_format(const fbe_uuid *u, char out[37]);

/* The reference's double -> decimal conversion (wire-format.md 2.9.3), bit-exact. */
fbe_decimal fbe_decimal_from_double(double x);

/* The reference's decimal -> double conversion (wire-format.md 2.9.2). */
double fbe_decimal_to_double(const fbe_decimal *d);

#ifdef __cplusplus
}
#endif

#endif
