/* Operations on host values (docs/keys.md): equality, ordering and hashing by the
 * `[key]` fields as the reference C++ defines them (wire-format.md §10), deep
 * equality and deep copy, and the canonical order of sets and maps (§3.7).
 *
 * Two layers:
 *  - static inline primitives (fbe_key_*), one per key type, which the functions
 *    `pkg_T_equal`, `pkg_T_compare` and `pkg_T_hash` of every generated header
 *    (`fbec header`, `fbec aot --header`, `fbec c --header`) are written with;
 *  - the same operations by reflection over the IR (fbe_value_*) for any backend
 *    and for schemas loaded at run time. Both give identical results.
 *
 * The order of a key type is the reference's `operator<` (numbers by value, `char`
 * signed as on x86 Linux, strings by unsigned bytes, uuids by bytes, decimals by
 * their double, structs by their keys, base first); equality is "neither is less"
 * and hashes are libstdc++'s std::hash on LP64 targets. One deliberate difference:
 * the reference's `<` and `==` are not an order on NaN (NaN != NaN, and NaN is
 * neither less nor greater than anything), so a NaN key makes its std::set
 * misbehave. Here every NaN is equal to every other NaN and greater than every
 * number, so compare is a total order; -0.0 and 0.0 are equal, as in C++. */
#ifndef FBE_VALUE_H
#define FBE_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fbe/arena.h"
#include "fbe/error.h"
#include "fbe/ir.h"
#include "fbe/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- key primitives (what generated headers call) ------------------------------ */

/* -1, 0 or 1. */
static inline int fbe_key_cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

static inline int fbe_key_cmp_u64(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}

/* The reference's `<` on doubles (floats promote exactly), made total: NaN equals
 * NaN and sorts after every number; -0.0 equals 0.0. */
static inline int fbe_key_cmp_double(double a, double b)
{
    bool na = a != a, nb = b != b;
    if (na || nb)
        return (int)na - (int)nb;
    return (a > b) - (a < b);
}

/* std::string's order: unsigned bytes, a proper prefix first. */
static inline int fbe_key_cmp_bytes(const void *a, size_t an, const void *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c < 0 ? -1 : 1;
    return (an > bn) - (an < bn);
}

static inline int fbe_key_cmp_string(const fbe_string *a, const fbe_string *b)
{
    return fbe_key_cmp_bytes(a->data, a->size, b->data, b->size);
}

static inline int fbe_key_cmp_uuid(const fbe_uuid *a, const fbe_uuid *b)
{
    return fbe_key_cmp_bytes(a->bytes, 16, b->bytes, 16);
}

/* The reference keeps decimals as doubles: they compare (and hash) as
 * fbe_decimal_to_double, so 1.0 and 1.00 are equal. Links fbe_runtime. */
static inline int fbe_key_cmp_decimal(const fbe_decimal *a, const fbe_decimal *b)
{
    return fbe_key_cmp_double(fbe_decimal_to_double(a), fbe_decimal_to_double(b));
}

/* libstdc++'s _Hash_bytes for a 64-bit size_t (MurmurHash64A with its own tail),
 * on little-endian hosts. */
static inline uint64_t fbe_hash_bytes(const void *data, size_t len, uint64_t seed)
{
    const uint64_t mul = (UINT64_C(0xc6a4a793) << 32) + UINT64_C(0x5bd1e995);
    const unsigned char *p = (const unsigned char *)data;
    size_t aligned = len & ~(size_t)7;
    uint64_t h = seed ^ ((uint64_t)len * mul);
    for (size_t i = 0; i < aligned; i += 8) {
        uint64_t k;
        memcpy(&k, p + i, 8);
        k *= mul;
        k ^= k >> 47;
        h ^= k * mul;
        h *= mul;
    }
    if (len & 7) {
        uint64_t k = 0;
        for (size_t i = len; i-- > aligned;)
            k = (k << 8) + p[i];
        h ^= k;
        h *= mul;
    }
    h ^= h >> 47;
    h *= mul;
    h ^= h >> 47;
    return h;
}

/* The seed std::hash<std::string> (and float, double) pass to _Hash_bytes. */
#define FBE_KEY_HASH_SEED UINT64_C(0xc70f6907)

/* std::hash<std::optional<T>> of an empty optional (libstdc++). */
#define FBE_KEY_HASH_ABSENT ((size_t)-3333)

/* Integers, bool, char, wchar, enums, flags, timestamps: std::hash is the value
 * converted to size_t (signed types sign-extend: pass them as int64_t). */
static inline size_t fbe_key_hash_i64(int64_t v)
{
    return (size_t)v;
}

static inline size_t fbe_key_hash_u64(uint64_t v)
{
    return (size_t)v;
}

static inline size_t fbe_key_hash_string(const fbe_string *s)
{
    return (size_t)fbe_hash_bytes(s->data, s->size, FBE_KEY_HASH_SEED);
}

/* std::hash<double>: 0 for both zeros, else _Hash_bytes of the 8 bytes. Every NaN
 * hashes like the default quiet NaN (0x7ff8000000000000) since they compare equal. */
static inline size_t fbe_key_hash_double(double d)
{
    if (d == 0.0)
        return 0;
    uint64_t bits = UINT64_C(0x7ff8000000000000);
    if (d == d)
        memcpy(&bits, &d, 8);
    return (size_t)fbe_hash_bytes(&bits, 8, FBE_KEY_HASH_SEED);
}

/* std::hash<float>: the same over 4 bytes; NaN as 0x7fc00000. */
static inline size_t fbe_key_hash_float(float f)
{
    if (f == 0.0f)
        return 0;
    uint32_t bits = UINT32_C(0x7fc00000);
    if (f == f)
        memcpy(&bits, &f, 4);
    return (size_t)fbe_hash_bytes(&bits, 4, FBE_KEY_HASH_SEED);
}

/* The reference's std::hash<FBE::uuid_t>: 17, then *31 + each byte. */
static inline size_t fbe_key_hash_uuid(const fbe_uuid *u)
{
    size_t h = 17;
    for (size_t i = 0; i < 16; i++)
        h = h * 31 + u->bytes[i];
    return h;
}

/* The reference's std::hash<FBE::decimal_t>: 17 * 31 + std::hash<double>. */
static inline size_t fbe_key_hash_decimal(const fbe_decimal *d)
{
    return (size_t)17 * 31 + fbe_key_hash_double(fbe_decimal_to_double(d));
}

/* ---- by reflection over the IR ---------------------------------------------------
 * Values are host structs as docs/host-abi.md lays them out, from any backend or a
 * generated header. Each struct nested in another (by value, optional, element)
 * counts one level; past FBE_VALUE_MAX_DEPTH levels (a hand-made cycle of optional
 * structs) compare, equal and hash ignore the deeper part, and the functions that
 * return a status fail with FBE_TOO_DEEP. */
#define FBE_VALUE_MAX_DEPTH 1024

/* By keys: base first, then each [key] / [id] field in declaration order. A struct
 * without keys at any level: every two values are equal, hash 17 (per level). */
int fbe_value_compare(const fbe_ir_struct *type, const void *a, const void *b);
bool fbe_value_equal(const fbe_ir_struct *type, const void *a, const void *b);
size_t fbe_value_hash(const fbe_ir_struct *type, const void *value);

/* The same for a value of any type (a set element, a map key): a struct by its
 * keys, an optional absent first, arrays and collections lexicographically by
 * element (map entries by key, then value). Hashes of optionals are libstdc++'s;
 * arrays, collections and bytes have no std::hash in the reference: here
 * 17, then *31 + each element's hash (map entries: key, then value), and bytes
 * hash like strings. */
int fbe_value_compare_type(const fbe_ir_type *type, const void *a, const void *b);
size_t fbe_value_hash_type(const fbe_ir_type *type, const void *value);

/* Deep equality of every field: true when the two values would serialize to the
 * same bytes. Numbers compare by representation (0.0 and -0.0 differ, a NaN equals
 * the same NaN bits, 1.0 and 1.00 decimals differ), strings and bytes by content,
 * collections element by element in their order (normalize first to compare sets
 * and maps as such). */
bool fbe_value_equal_all(const fbe_ir_struct *type, const void *a, const void *b);

/* Deep copy of *src into *dst (type->host_size bytes): every string, bytes,
 * collection and optional struct is copied into `arena`; empty views become
 * {NULL, 0}. On error (FBE_NOMEM, FBE_TOO_LARGE, FBE_TOO_DEEP) *dst is safe to read
 * but incomplete. */
fbe_status fbe_value_copy(const fbe_ir_struct *type, void *dst, const void *src,
                          fbe_arena *arena);

/* The reference's container semantics, in place, at every depth: each set (`T!`)
 * and map (`V<K>`) sorted ascending by key, with later duplicates of a key dropped
 * (std::set::insert and std::map::emplace keep the first); each hash (`V{K}`) keeps
 * its order and drops later duplicate keys (its iteration order in the reference
 * is libstdc++'s, not reproducible). Writes through the collections' data pointers
 * (they must be writable) and shortens their sizes. Scratch memory comes from
 * malloc: FBE_NOMEM when it fails (the value is then unchanged at that field). */
fbe_status fbe_value_normalize(const fbe_ir_struct *type, void *value);

/* Deep copy into `arena`, then normalize the copy: what to serialize to write the
 * bytes the reference writes for a value whose sets and maps were filled in any
 * order, without touching the original (which may be const or static). */
fbe_status fbe_value_normalized_copy(const fbe_ir_struct *type, void *dst, const void *src,
                                     fbe_arena *arena);

/* Strict input: FBE_OK when every set and map (at every depth) is in strictly
 * ascending key order, as the reference writes them; FBE_UNORDERED at the first
 * that is not (unsorted or a duplicate key), with *field (may be NULL) set to that
 * field. Hashes are not checked. What FBE_DECODE_STRICT_ORDER runs after decoding. */
fbe_status fbe_value_check_order(const fbe_ir_struct *type, const void *value,
                                 const fbe_ir_field **field);

/* Binary search in a set or map that is in key order (normalized or checked):
 * `collection` points to the host field ({data, size}) of type `type` (SET or MAP;
 * an optional map value is fine), `key` to a value of the element (set) or key (map)
 * type. Returns the element or entry with an equal key, NULL if none (or if `type`
 * is not a set or map). */
const void *fbe_value_find(const fbe_ir_type *type, const void *collection, const void *key);

#ifdef __cplusplus
}
#endif

#endif
