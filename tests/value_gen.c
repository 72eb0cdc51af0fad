/* Random valid host values by reflection over the IR (see value_gen.h). */
#include "value_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbe/types.h"

_Thread_local gen_marks gen_made;

uint64_t gen_rand(uint64_t *s)
{
    uint64_t x = *s ? *s : UINT64_C(0x9E3779B97F4A7C15);
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * UINT64_C(0x2545F4914F6CDD1D);
}

static uint32_t below(uint64_t *s, uint32_t n)
{
    return (uint32_t)((gen_rand(s) >> 32) % n);
}

static void *alloc_or_die(fbe_arena *arena, size_t n)
{
    void *p = fbe_arena_zalloc(arena, n ? n : 1);
    if (!p) {
        fprintf(stderr, "value_gen: out of memory (%zu bytes)\n", n);
        abort();
    }
    return p;
}

/* Stores the low `width` bytes of v in host order. */
static void store_int(void *p, uint64_t v, uint32_t width)
{
    switch (width) {
    case 1: {
        uint8_t x = (uint8_t)v;
        memcpy(p, &x, 1);
        break;
    }
    case 2: {
        uint16_t x = (uint16_t)v;
        memcpy(p, &x, 2);
        break;
    }
    case 4: {
        uint32_t x = (uint32_t)v;
        memcpy(p, &x, 4);
        break;
    }
    default: {
        memcpy(p, &v, 8);
        break;
    }
    }
}

/* Integer bits of a given width: zero, one, all ones, the signed extremes, small
 * values and random bits. Only the low `width` bytes matter. */
static uint64_t rand_int(uint64_t *s, uint32_t width)
{
    uint64_t sign = UINT64_C(1) << (width * 8 - 1);
    switch (below(s, 10)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return ~UINT64_C(0);
    case 3: return sign;           /* signed minimum */
    case 4: return sign - 1;       /* signed maximum */
    case 5: return below(s, 256);
    default: return gen_rand(s);
    }
}

/* A declared value of an enum or flags type when there is one, else random bits. */
static uint64_t rand_named(uint64_t *s, const fbe_ir_enum_value *values, size_t count,
                           uint32_t width)
{
    if (count && below(s, 3) == 0)
        return values[below(s, (uint32_t)count)].value;
    return rand_int(s, width);
}

static void gen_float(uint64_t *s, void *p)
{
    uint32_t bits;
    switch (below(s, 12)) {
    case 0: bits = 0; break;                        /* +0 */
    case 1: bits = UINT32_C(0x80000000); break;     /* -0 */
    case 2: bits = UINT32_C(0x7F7FFFFF); break;     /* FLT_MAX */
    case 3: bits = UINT32_C(0xFF7FFFFF); break;     /* -FLT_MAX */
    case 4: bits = 1; break;                        /* smallest subnormal */
    case 5: bits = UINT32_C(0x3F800000); break;     /* 1.0 */
    case 6: /* NaN: quiet or signalling, any payload, any sign */
        gen_made.nan++;
        bits = UINT32_C(0x7F800000) | (uint32_t)(gen_rand(s) & UINT32_C(0x807FFFFF));
        if (!(bits & UINT32_C(0x007FFFFF)))
            bits |= 1;
        break;
    default: /* random finite */
        do
            bits = (uint32_t)gen_rand(s);
        while ((bits & UINT32_C(0x7F800000)) == UINT32_C(0x7F800000));
        break;
    }
    memcpy(p, &bits, 4);
}

static void gen_double(uint64_t *s, void *p)
{
    const uint64_t exp = UINT64_C(0x7FF0000000000000);
    const uint64_t man = UINT64_C(0x000FFFFFFFFFFFFF);
    uint64_t bits;
    switch (below(s, 12)) {
    case 0: bits = 0; break;
    case 1: bits = UINT64_C(1) << 63; break;
    case 2: bits = UINT64_C(0x7FEFFFFFFFFFFFFF); break; /* DBL_MAX */
    case 3: bits = UINT64_C(0xFFEFFFFFFFFFFFFF); break;
    case 4: bits = 1; break;
    case 5: bits = UINT64_C(0x3FF0000000000000); break;
    case 6:
        gen_made.nan++;
        bits = exp | (gen_rand(s) & (man | UINT64_C(1) << 63));
        if (!(bits & man))
            bits |= 1;
        break;
    default:
        do
            bits = gen_rand(s);
        while ((bits & exp) == exp);
        break;
    }
    memcpy(p, &bits, 8);
}

/* One code point of the kinds JSON treats differently: control characters
 * (escaped), the characters JSON escapes by name, ASCII, and two-, three- and
 * four-byte sequences (never a surrogate), written at p if they fit in `room`
 * bytes; returns the bytes written (0: did not fit). */
static size_t put_code_point(uint64_t *s, uint8_t *p, size_t room)
{
    static const uint32_t named[] = {'"', '\\', '/', 0x7F, 0x2028, 0x2029, 0xFEFF, 0xFFFF};
    uint32_t c;
    switch (below(s, 8)) {
    case 0: c = below(s, 0x20); break;
    case 1: c = named[below(s, sizeof named / sizeof *named)]; break;
    case 2: c = 0x80 + below(s, 0x800 - 0x80); break;
    case 3:
        c = 0x800 + below(s, 0x10000 - 0x800 - 0x800);
        if (c >= 0xD800)
            c += 0x800; /* past the surrogates */
        break;
    case 4: c = 0x10000 + below(s, 0x110000 - 0x10000); break;
    default: c = ' ' + below(s, 95); break;
    }
    size_t n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (n > room)
        return 0;
    static const uint8_t lead[] = {0, 0, 0xC0, 0xE0, 0xF0};
    for (size_t i = n - 1; i > 0; i--, c >>= 6)
        p[i] = (uint8_t)(0x80 | (c & 0x3F));
    p[0] = (uint8_t)(lead[n] | c);
    return n;
}

size_t utf8_valid_prefix(const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = p[i];
        size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3
                   : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (len == 0 || len > n - i)
            return i;
        uint32_t cp = len == 1 ? c : c & (0x7F >> len);
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xC0) != 0x80)
                return i;
            cp = cp << 6 | (p[i + k] & 0x3F);
        }
        static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < least[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
            return i;
        i += len;
    }
    return i;
}

/* 0..40 bytes: random, printable ASCII only or (`text`) valid UTF-8 of every
 * kind of code point; an empty view is either {NULL, 0} or a non-NULL pointer
 * with size 0. */
static void gen_blob(uint64_t *s, fbe_arena *arena, bool text, const void **data, size_t *size)
{
    size_t n = below(s, 4) == 0 ? 0 : below(s, 41);
    if (n == 0) {
        *data = below(s, 2) ? NULL : alloc_or_die(arena, 1);
        *size = 0;
        return;
    }
    uint8_t *p = alloc_or_die(arena, n + 1);
    enum { RAW, PRINTABLE, UTF8 } mode = below(s, text ? 3 : 2);
    size_t i = 0;
    while (i < n) {
        if (mode == UTF8) { /* a code point that does not fit ends in printable bytes */
            size_t k = put_code_point(s, p + i, n - i);
            if (k) {
                i += k;
                continue;
            }
        }
        uint8_t c = (uint8_t)gen_rand(s);
        p[i++] = mode == RAW ? c : (uint8_t)(' ' + c % 95);
    }
    if (text && utf8_valid_prefix(p, n) != n) {
        if (gen_made.not_utf8 < GEN_BAD_MAX) {
            gen_made.bad[gen_made.not_utf8].data = p;
            gen_made.bad[gen_made.not_utf8].size = n;
        }
        gen_made.not_utf8++;
    }
    *data = p;
    *size = n;
}

static void gen_type(const fbe_ir_type *t, uint8_t *host, fbe_arena *arena, uint64_t *s,
                     unsigned depth);

static void gen_fields(const fbe_ir_struct *st, uint8_t *host, fbe_arena *arena, uint64_t *s,
                       unsigned depth)
{
    for (size_t i = 0; i < st->field_count; i++)
        gen_type(st->fields[i].type, host + st->fields[i].host_offset, arena, s, depth);
}

static void gen_type(const fbe_ir_type *t, uint8_t *host, fbe_arena *arena, uint64_t *s,
                     unsigned depth)
{
    switch (t->kind) {
    case FBE_IR_BOOL:
        *host = (uint8_t)below(s, 2);
        break;
    case FBE_IR_BYTE:
    case FBE_IR_CHAR:
    case FBE_IR_WCHAR:
    case FBE_IR_INT8:
    case FBE_IR_UINT8:
    case FBE_IR_INT16:
    case FBE_IR_UINT16:
    case FBE_IR_INT32:
    case FBE_IR_UINT32:
    case FBE_IR_INT64:
    case FBE_IR_UINT64:
    case FBE_IR_TIMESTAMP:
        store_int(host, rand_int(s, t->host_size), t->host_size);
        break;
    case FBE_IR_ENUM:
        store_int(host,
                  rand_named(s, t->enum_type->values, t->enum_type->value_count, t->host_size),
                  t->host_size);
        break;
    case FBE_IR_FLAGS:
        store_int(host,
                  rand_named(s, t->flags_type->values, t->flags_type->value_count, t->host_size),
                  t->host_size);
        break;
    case FBE_IR_FLOAT:
        gen_float(s, host);
        break;
    case FBE_IR_DOUBLE:
        gen_double(s, host);
        break;
    case FBE_IR_DECIMAL: {
        fbe_decimal d;
        switch (below(s, 4)) {
        case 0: d.lo = 0; d.hi = 0; break;
        case 1: d.lo = ~UINT64_C(0); d.hi = UINT32_MAX; break;
        default: d.lo = gen_rand(s); d.hi = (uint32_t)gen_rand(s); break;
        }
        d.flags = (uint32_t)below(s, 29) << 16 | (uint32_t)below(s, 2) << 31;
        memcpy(host, &d, sizeof d);
        break;
    }
    case FBE_IR_UUID:
        for (int i = 0; i < 16; i++)
            host[i] = (uint8_t)gen_rand(s);
        break;
    case FBE_IR_STRING: {
        fbe_string v;
        const void *data;
        gen_blob(s, arena, true, &data, &v.size);
        v.data = data;
        memcpy(host, &v, sizeof v);
        break;
    }
    case FBE_IR_BYTES: {
        fbe_bytes v;
        const void *data;
        gen_blob(s, arena, false, &data, &v.size);
        v.data = data;
        memcpy(host, &v, sizeof v);
        break;
    }
    case FBE_IR_STRUCT:
        gen_value(t->struct_type, host, arena, s, depth);
        break;
    case FBE_IR_OPTIONAL:
        if (t->elem->kind == FBE_IR_STRUCT) {
            void *p = NULL;
            if (depth < GEN_MAX_DEPTH && below(s, 3) != 0) {
                p = alloc_or_die(arena, t->elem->struct_type->host_size);
                gen_value(t->elem->struct_type, p, arena, s, depth + 1);
            }
            memcpy(host, &p, sizeof p);
        } else {
            memset(host, 0, t->host_size);
            if (below(s, 3) != 0) {
                host[0] = 1;
                gen_type(t->elem, host + t->host_value_offset, arena, s, depth);
            }
        }
        break;
    case FBE_IR_ARRAY:
        for (uint32_t i = 0; i < t->array_len; i++)
            gen_type(t->elem, host + (size_t)i * t->elem->host_size, arena, s, depth);
        break;
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        bool map = t->kind == FBE_IR_MAP || t->kind == FBE_IR_HASH;
        size_t stride = map ? t->host_entry_size : t->elem->host_size;
        size_t n = depth < GEN_MAX_DEPTH ? below(s, 5) : 0;
        fbe_seq seq = {NULL, n};
        if (n) {
            uint8_t *items = alloc_or_die(arena, n * stride);
            for (size_t i = 0; i < n; i++) {
                uint8_t *item = items + i * stride;
                if (map) {
                    gen_type(t->key, item, arena, s, depth + 1);
                    gen_type(t->elem, item + t->host_entry_value_offset, arena, s, depth + 1);
                } else {
                    gen_type(t->elem, item, arena, s, depth + 1);
                }
            }
            seq.data = items;
        } else if (below(s, 2)) {
            seq.data = alloc_or_die(arena, 1); /* empty but not NULL */
        }
        memcpy(host, &seq, sizeof seq);
        break;
    }
    default:
        fprintf(stderr, "value_gen: unknown kind %d\n", (int)t->kind);
        abort();
    }
}

void gen_value(const fbe_ir_struct *st, void *value, fbe_arena *arena, uint64_t *rng_state,
               unsigned depth)
{
    memset(value, 0, st->host_size);
    gen_fields(st, value, arena, rng_state, depth);
}

/* ---- huge views ------------------------------------------------------------------------ */

static const uint64_t huge_lengths[] = {
    (UINT64_C(1) << 31) + 3,  UINT32_MAX - 200,          UINT32_MAX - 5,
    UINT32_MAX,               UINT64_C(1) << 32,         (UINT64_C(1) << 40) - 50,
    (UINT64_C(1) << 40) - 1,  UINT64_C(1) << 40,         (UINT64_C(1) << 40) + 7,
    UINT64_C(1) << 52,        SIZE_MAX / 3,              SIZE_MAX};

/* Whether sizing a value of type t reads nothing behind it (a collection of
 * such elements may claim any count). */
static bool sized_by_count(const fbe_ir_type *t)
{
    switch (t->kind) {
    case FBE_IR_STRING: case FBE_IR_BYTES: case FBE_IR_STRUCT: case FBE_IR_OPTIONAL:
    case FBE_IR_VECTOR: case FBE_IR_LIST: case FBE_IR_SET: case FBE_IR_MAP: case FBE_IR_HASH:
        return false;
    case FBE_IR_ARRAY:
        return sized_by_count(t->elem);
    default:
        return true;
    }
}

static uint64_t huge_length(uint64_t *s)
{
    return huge_lengths[below(s, sizeof huge_lengths / sizeof huge_lengths[0])];
}

static void huge_type(const fbe_ir_type *t, uint8_t *host, uint64_t *s)
{
    static char target[64];
    switch (t->kind) {
    case FBE_IR_STRING:
    case FBE_IR_BYTES:
        if (below(s, 3) == 0)
            *(fbe_string *)host = (fbe_string){target, (size_t)huge_length(s)};
        return;
    case FBE_IR_STRUCT:
        gen_huge_views(t->struct_type, host, s);
        return;
    case FBE_IR_OPTIONAL:
        if (t->elem->kind == FBE_IR_STRUCT) {
            uint8_t *p;
            memcpy(&p, host, sizeof p);
            if (p)
                gen_huge_views(t->elem->struct_type, p, s);
        } else if (*host) {
            huge_type(t->elem, host + t->host_value_offset, s);
        }
        return;
    case FBE_IR_ARRAY:
        for (uint32_t i = 0; i < t->array_len; i++)
            huge_type(t->elem, host + (size_t)i * t->elem->host_size, s);
        return;
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        bool map = t->kind == FBE_IR_MAP || t->kind == FBE_IR_HASH;
        fbe_seq *q = (fbe_seq *)host;
        if (sized_by_count(t->elem) && (!map || sized_by_count(t->key)) && below(s, 4) == 0) {
            *q = (fbe_seq){target, (size_t)huge_length(s)};
            return;
        }
        size_t stride = map ? t->host_entry_size : t->elem->host_size;
        for (size_t i = 0; i < q->size; i++) {
            uint8_t *item = (uint8_t *)q->data + i * stride;
            if (map) {
                huge_type(t->key, item, s);
                huge_type(t->elem, item + t->host_entry_value_offset, s);
            } else {
                huge_type(t->elem, item, s);
            }
        }
        return;
    }
    default:
        return;
    }
}

void gen_huge_views(const fbe_ir_struct *st, void *value, uint64_t *rng_state)
{
    uint8_t *host = value;
    for (size_t i = 0; i < st->field_count; i++)
        huge_type(st->fields[i].type, host + st->fields[i].host_offset, rng_state);
}
