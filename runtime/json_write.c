/* Host value -> JSON text, by reflection over the IR: the reference's mapping
 * (wire-format.md 8; generated C++ to_json through a rapidjson Writer), with the
 * differences docs/json.md lists (lossless decimals, char as 0..255, NaN/Inf and
 * non-UTF-8 strings refused, keys of every type).
 *
 * Numbers use rapidjson's layout of the shortest round-trip digits
 * (internal/dtoa.h Prettify): integral values keep ".0", decimal notation while
 * the decimal exponent lies in (-6, 21], otherwise "1.234e33" / "1e-7". */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fbe/codec.h"
#include "fbe/json.h"
#include "json_common.h"
#include "json_internal.h"
#include "port.h"

/* Struct nesting limit: guards against cyclic optional-struct pointers in
 * hand-built values (as fbe_print does). */
#define WRITE_MAX_DEPTH 1000

typedef struct writer {
    fbe_buffer *out;
    bool pretty;
    unsigned indent; /* pretty: current nesting */
    unsigned depth;  /* struct nesting */
    fbe_json_error *err;
    fbe_json_path path;
} writer;

#define TRY(expr)                          \
    do {                                   \
        fbe_status st_ = (expr);           \
        if (UNLIKELY(st_ != FBE_OK))       \
            return st_;                    \
    } while (0)

/* On error, adds where it happened to the path (built while unwinding). */
#define TRY_AT(expr, at)                   \
    do {                                   \
        fbe_status st_ = (expr);           \
        if (UNLIKELY(st_ != FBE_OK)) {     \
            at;                            \
            return st_;                    \
        }                                  \
    } while (0)

/* Room for n more bytes; returns where they go (commit with w->out->size += k). */
static inline char *room(writer *w, size_t n)
{
    fbe_buffer *b = w->out;
    if (UNLIKELY(b->capacity - b->size < n) && fbe_buffer_reserve(b, n) != FBE_OK)
        return NULL;
    return (char *)b->data + b->size;
}

static inline fbe_status put(writer *w, const char *s, size_t n)
{
    char *p = room(w, n);
    if (UNLIKELY(!p))
        return FBE_NOMEM;
    memcpy(p, s, n);
    w->out->size += n;
    return FBE_OK;
}

static inline fbe_status put_char(writer *w, char c)
{
    char *p = room(w, 1);
    if (UNLIKELY(!p))
        return FBE_NOMEM;
    *p = c;
    w->out->size++;
    return FBE_OK;
}

static fbe_status nomem(writer *w)
{
    return fbe_json__fail(w->err, FBE_NOMEM, "out of memory");
}

/* ---- numbers --------------------------------------------------------------------------- */

static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324252627282930"
                                  "31323334353637383940414243444546474849505152535455565758596061"
                                  "62636465666768697071727374757677787980818283848586878889909192"
                                  "93949596979899";

static inline size_t u64_digits(uint64_t v)
{
    size_t n = 1;
    while (v >= 10000) {
        v /= 10000;
        n += 4;
    }
    return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* Decimal digits of v at p; returns the count (1..20). */
static inline size_t u64_text(uint64_t v, char *p)
{
    size_t n = u64_digits(v);
    char *t = p + n;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        t -= 2;
        t[0] = digit_pairs[2 * r];
        t[1] = digit_pairs[2 * r + 1];
    }
    if (v >= 10) {
        t[-2] = digit_pairs[2 * v];
        t[-1] = digit_pairs[2 * v + 1];
    } else {
        t[-1] = (char)('0' + v);
    }
    return n;
}

/* The raw bits of an integer of `kind` at ptr, sign-extended for signed kinds. */
static inline uint64_t load_int(fbe_ir_kind kind, const void *ptr)
{
    switch (kind) {
    case FBE_IR_INT8: { int8_t v; memcpy(&v, ptr, 1); return (uint64_t)(int64_t)v; }
    case FBE_IR_INT16: { int16_t v; memcpy(&v, ptr, 2); return (uint64_t)(int64_t)v; }
    case FBE_IR_INT32: { int32_t v; memcpy(&v, ptr, 4); return (uint64_t)(int64_t)v; }
    case FBE_IR_INT64: { int64_t v; memcpy(&v, ptr, 8); return (uint64_t)v; }
    case FBE_IR_BOOL: case FBE_IR_BYTE: case FBE_IR_CHAR: case FBE_IR_UINT8: {
        uint8_t v; memcpy(&v, ptr, 1); return v;
    }
    case FBE_IR_UINT16: { uint16_t v; memcpy(&v, ptr, 2); return v; }
    case FBE_IR_WCHAR: case FBE_IR_UINT32: { uint32_t v; memcpy(&v, ptr, 4); return v; }
    default: { uint64_t v; memcpy(&v, ptr, 8); return v; }
    }
}

/* An integer of `kind` (enum and flags bases included) as JSON digits. char and
 * wchar are unsigned, as the reference's Uint() (see docs/json.md for char). */
static inline bool is_signed(fbe_ir_kind kind)
{
    return kind == FBE_IR_INT8 || kind == FBE_IR_INT16 || kind == FBE_IR_INT32 ||
           kind == FBE_IR_INT64;
}

static inline size_t int_text(fbe_ir_kind kind, const void *ptr, char *p)
{
    uint64_t bits = load_int(kind, ptr);
    if (is_signed(kind) && (int64_t)bits < 0) {
        p[0] = '-';
        return 1 + u64_text(0 - bits, p + 1);
    }
    return u64_text(bits, p);
}

/* rapidjson's Prettify of digits[0..len) * 10^k (internal/dtoa.h), into p. */
static inline void copy_small(char *dst, const char *src, int n)
{
    for (int i = 0; i < n; i++)
        dst[i] = src[i];
}

static size_t prettify(const char *digits, int len, int k, char *p)
{
    int kk = len + k; /* 10^(kk-1) <= v < 10^kk */
    size_t n = 0;
    if (k >= 0 && kk <= 21) { /* 1234e7 -> 12340000000.0 */
        copy_small(p, digits, len);
        n = (size_t)len;
        for (int i = len; i < kk; i++)
            p[n++] = '0';
        p[n++] = '.';
        p[n++] = '0';
    } else if (kk > 0 && kk <= 21) { /* 1234e-2 -> 12.34 */
        copy_small(p, digits, kk);
        n = (size_t)kk;
        p[n++] = '.';
        copy_small(p + n, digits + kk, len - kk);
        n += (size_t)(len - kk);
    } else if (kk > -6 && kk <= 0) { /* 1234e-6 -> 0.001234 */
        p[n++] = '0';
        p[n++] = '.';
        for (int i = kk; i < 0; i++)
            p[n++] = '0';
        copy_small(p + n, digits, len);
        n += (size_t)len;
    } else { /* 1e30, 1.234e33, 1e-7 */
        p[n++] = digits[0];
        if (len > 1) {
            p[n++] = '.';
            copy_small(p + n, digits + 1, len - 1);
            n += (size_t)(len - 1);
        }
        p[n++] = 'e';
        int e = kk - 1;
        if (e < 0) {
            p[n++] = '-';
            e = -e;
        }
        n += u64_text((uint64_t)e, p + n);
    }
    return n;
}

/* Exact powers of ten 10^0..10^17 (every one is a double). */
static const double pow10_exact[18] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,
                                       1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17};

/* The shortest digits of a positive, finite, non-integral v when they are few:
 * the smallest k for which m = round(v * 10^k) < 2^50 gives m / 10^k == v. Then
 * "m e-k" is what every shortest round-trip algorithm (std::to_chars) produces:
 *  - it reads back as v: m and 10^k are exact doubles and IEEE division rounds
 *    m / 10^k correctly, exactly as strtod rounds the decimal m e-k;
 *  - it is the shortest: below 2^50 the rounding interval of v reaches less
 *    than 1/8 either side at scale 10^k, so round() of the computed product
 *    (error at most 1/16) finds the only possible candidate of each k, and no
 *    integer (k = 0) lies in it;
 *  - it is the closest, being the only candidate of its length.
 * Returns 0 when no k fits (the caller then asks std::to_chars). */
static int short_digits(double v, char digits[24], int *exp10)
{
    for (int k = 1; k < 18; k++) {
        double x = v * pow10_exact[k];
        if (x >= 1125899906842624.0) /* 2^50 */
            return 0;
        uint64_t m = (uint64_t)(x + 0.5);
        if ((double)m / pow10_exact[k] == v) {
            if (m == 0)
                return 0;
            int len = (int)u64_text(m, digits);
            *exp10 = -k;
            return len;
        }
    }
    return 0;
}

/* A finite double in rapidjson's form; returns the length (at most 32). */
static size_t double_text(double v, char *p)
{
    size_t n = 0;
    if (signbit(v)) {
        p[n++] = '-';
        v = -v;
    }
    if (v == 0) {
        memcpy(p + n, "0.0", 3);
        return n + 3;
    }
    /* Integers below 2^53 are their own shortest digits: no conversion needed. */
    if (v < 9007199254740992.0 && v == (double)(uint64_t)v) {
        n += u64_text((uint64_t)v, p + n);
        p[n++] = '.';
        p[n++] = '0';
        return n;
    }
    char digits[24];
    int exp10;
    int len = short_digits(v, digits, &exp10);
    if (!len)
        len = fbe_json_shortest(v, digits, &exp10);
    return n + prettify(digits, len, exp10, p + n);
}

NOINLINE static fbe_status put_double(writer *w, double v)
{
    if (UNLIKELY(!isfinite(v)))
        return fbe_json__fail(w->err, FBE_INVALID_ARGUMENT,
                              "%s cannot be written in JSON", isnan(v) ? "NaN" : "infinity");
    char *p = room(w, 40);
    if (UNLIKELY(!p))
        return nomem(w);
    w->out->size += double_text(v, p);
    return FBE_OK;
}

/* ---- strings ----------------------------------------------------------------------------- */

/* rapidjson's escapes: the short forms \b \t \n \f \r, \uXXXX (upper-case hex)
 * for the other control characters, and \" \\. 0 = copied as is. */
static const char escape[128] = {
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'b', 't', 'n', 'u', 'f', 'r', 'u', 'u',
    'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u', 'u',
    0,   0,   '"', 0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   '\\', 0,  0,   0,
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
    0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
};

/* Length of the well-formed UTF-8 sequence at s[0..n) (s[0] >= 0x80), 0 if
 * ill-formed (Unicode 15, table 3-7: no overlongs, surrogates or > U+10FFFF). */
static size_t utf8_seq(const uint8_t *s, size_t n)
{
    uint8_t c = s[0];
    if (c >= 0xC2 && c <= 0xDF)
        return n >= 2 && (s[1] & 0xC0) == 0x80 ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (n < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
            return 0;
        if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F))
            return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (n < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80)
            return 0;
        if ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] > 0x8F))
            return 0;
        return 4;
    }
    return 0;
}

/* 1 for the bytes a JSON string holds as they are: ASCII that escape[] leaves
 * alone. */
static const uint8_t plain[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* '"' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* '\\' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    /* 0x80..0xFF: UTF-8, checked */
};

/* The escape of ASCII byte c (escape[c] != 0) at q; returns the end. */
static inline char *put_escape(char *q, uint8_t c)
{
    char e = escape[c];
    *q++ = '\\';
    *q++ = e;
    if (e == 'u') {
        static const char hex[] = "0123456789ABCDEF";
        *q++ = '0';
        *q++ = '0';
        *q++ = hex[c >> 4];
        *q++ = hex[c & 15];
    }
    return q;
}

/* A JSON string of s[0..n): quotes, escapes; refuses bytes that are not UTF-8. */
static fbe_status put_string(writer *w, const char *data, size_t n)
{
    const uint8_t *s = (const uint8_t *)data;
    if (UNLIKELY(n && !s))
        return fbe_json__fail(w->err, FBE_INVALID_ARGUMENT,
                              "string of %zu bytes has no data", n);
    if (LIKELY(n <= 4096)) {
        /* One room check for the quotes and the whole string (most strings are
         * short), and one pass: a byte is copied as is unless plain[] says no. */
        char *p = room(w, n * 6 + 2);
        if (UNLIKELY(!p))
            return nomem(w);
        char *q = p;
        *q++ = '"';
        for (size_t i = 0; i < n;) {
            uint8_t c = s[i];
            if (LIKELY(plain[c])) {
                *q++ = (char)c;
                i++;
                continue;
            }
            if (c < 0x80) {
                q = put_escape(q, c);
                i++;
                continue;
            }
            size_t len = utf8_seq(s + i, n - i);
            if (UNLIKELY(!len)) /* nothing committed: the buffer is unchanged */
                return fbe_json__fail(w->err, FBE_INVALID_ARGUMENT,
                                      "string is not valid UTF-8 (byte 0x%02X at offset %zu)",
                                      c, i);
            memcpy(q, s + i, len);
            q += len;
            i += len;
        }
        *q++ = '"';
        w->out->size += (size_t)(q - p);
        return FBE_OK;
    }
    TRY(put_char(w, '"'));
    size_t i = 0;
    while (i < n) {
        /* Chunks of at most 4096 input bytes: at most 6 output bytes each. */
        size_t end = n - i > 4096 ? i + 4096 : n;
        char *p = room(w, (end - i) * 6 + 4);
        if (UNLIKELY(!p))
            return nomem(w);
        char *q = p;
        while (i < end) {
            uint8_t c = s[i];
            if (LIKELY(c < 0x80)) {
                char e = escape[c];
                if (LIKELY(!e)) {
                    *q++ = (char)c;
                } else {
                    *q++ = '\\';
                    *q++ = e;
                    if (e == 'u') {
                        static const char hex[] = "0123456789ABCDEF";
                        *q++ = '0';
                        *q++ = '0';
                        *q++ = hex[c >> 4];
                        *q++ = hex[c & 15];
                    }
                }
                i++;
            } else {
                size_t len = utf8_seq(s + i, n - i);
                if (UNLIKELY(!len)) {
                    w->out->size += (size_t)(q - p); /* discarded by the caller anyway */
                    return fbe_json__fail(w->err, FBE_INVALID_ARGUMENT,
                                          "string is not valid UTF-8 (byte 0x%02X at offset %zu)",
                                          c, i);
                }
                memcpy(q, s + i, len);
                q += len;
                i += len;
            }
        }
        w->out->size += (size_t)(q - p);
    }
    return put_char(w, '"');
}

/* ---- containers and pretty layout ------------------------------------------------------- */

static fbe_status newline_indent(writer *w)
{
    char *p = room(w, 1 + (size_t)w->indent * 4);
    if (UNLIKELY(!p))
        return FBE_NOMEM;
    p[0] = '\n';
    memset(p + 1, ' ', (size_t)w->indent * 4);
    w->out->size += 1 + (size_t)w->indent * 4;
    return FBE_OK;
}

/* Before the i-th item of an array or object. */
static inline fbe_status item_sep(writer *w, size_t i)
{
    if (i)
        TRY(put_char(w, ','));
    return w->pretty ? newline_indent(w) : FBE_OK;
}

static inline fbe_status open_c(writer *w, char c)
{
    w->indent++;
    return put_char(w, c);
}

static inline fbe_status close_c(writer *w, char c, size_t count)
{
    w->indent--;
    if (w->pretty && count)
        TRY(newline_indent(w));
    return put_char(w, c);
}

/* [,]"name": (the name needs no escaping: schema identifiers are ASCII letters,
 * digits and '_'). Compact output only: pretty goes through item_sep. */
static inline fbe_status put_key(writer *w, const char *name, bool comma)
{
    char *p = room(w, 72);
    if (UNLIKELY(!p))
        return FBE_NOMEM;
    char *q = p;
    if (comma)
        *q++ = ',';
    *q++ = '"';
    size_t i = 0;
    while (name[i] && i < 64) {
        q[i] = name[i];
        i++;
    }
    if (UNLIKELY(name[i])) { /* a long name */
        size_t n = strlen(name);
        p = room(w, n + 8);
        if (!p)
            return FBE_NOMEM;
        q = p;
        if (comma)
            *q++ = ',';
        *q++ = '"';
        memcpy(q, name, n);
        i = n;
    }
    q += i;
    *q++ = '"';
    *q++ = ':';
    w->out->size += (size_t)(q - p);
    return FBE_OK;
}

static inline fbe_status put_key_pretty(writer *w, const char *name, size_t i)
{
    TRY(item_sep(w, i));
    TRY(put_key(w, name, false));
    return put_char(w, ' ');
}

/* ---- values --------------------------------------------------------------------------------- */

static fbe_status w_value(writer *w, const fbe_ir_type *t, const void *ptr);
static fbe_status w_struct(writer *w, const fbe_ir_struct *s, const void *value);

NOINLINE static fbe_status w_decimal(writer *w, const void *ptr)
{
    fbe_decimal d;
    memcpy(&d, ptr, sizeof d);
    char *p = room(w, FBE_JSON_DECIMAL_MAX + 2);
    if (UNLIKELY(!p))
        return FBE_NOMEM;
    p[0] = '"';
    size_t n = fbe_json__decimal_format(&d, p + 1);
    p[n + 1] = '"';
    w->out->size += n + 2;
    return FBE_OK;
}

NOINLINE static fbe_status w_uuid(writer *w, const void *ptr)
{
    fbe_uuid u;
    memcpy(&u, ptr, sizeof u);
    char *p = room(w, 40);
    if (UNLIKELY(!p))
        return FBE_NOMEM;
    char text[37];
    fbe_uuid_format(&u, text);
    p[0] = '"';
    memcpy(p + 1, text, 36);
    p[37] = '"';
    w->out->size += 38;
    return FBE_OK;
}

NOINLINE static fbe_status w_bytes(writer *w, const void *ptr)
{
    fbe_bytes b;
    memcpy(&b, ptr, sizeof b);
    if (UNLIKELY(b.size && !b.data))
        return fbe_json__fail(w->err, FBE_INVALID_ARGUMENT,
                              "bytes of size %zu have no data", b.size);
    size_t n = fbe_json__base64_len(b.size);
    char *p = room(w, n + 2);
    if (UNLIKELY(!p))
        return nomem(w);
    p[0] = '"';
    fbe_json__base64_encode(b.data, b.size, p + 1);
    p[n + 1] = '"';
    w->out->size += n + 2;
    return FBE_OK;
}

static fbe_status w_elements(writer *w, const fbe_ir_type *elem, const char *data, size_t count)
{
    if (UNLIKELY(count && !data))
        return fbe_json__fail(w->err, FBE_INVALID_ARGUMENT,
                              "collection of %zu elements has no data", count);
    TRY(open_c(w, '['));
    for (size_t i = 0; i < count; i++) {
        TRY(item_sep(w, i));
        TRY_AT(w_value(w, elem, data + i * elem->host_size), fbe_json_path_index(&w->path, i));
    }
    return close_c(w, ']', count);
}

/* The text of a map/hash key as a JSON string (docs/json.md, "Map keys"). */
static fbe_status w_key(writer *w, const fbe_ir_type *k, const void *ptr)
{
    switch (k->kind) {
    case FBE_IR_STRING: {
        fbe_string s;
        memcpy(&s, ptr, sizeof s);
        return put_string(w, s.data, s.size);
    }
    case FBE_IR_UUID:
    case FBE_IR_DECIMAL:
    case FBE_IR_BYTES:
        return w_value(w, k, ptr); /* already strings */
    case FBE_IR_BOOL: {
        uint8_t b;
        memcpy(&b, ptr, 1);
        return put(w, b ? "\"1\"" : "\"0\"", 3);
    }
    case FBE_IR_FLOAT:
    case FBE_IR_DOUBLE:
    case FBE_IR_STRUCT: {
        /* The key's own JSON text (compact), as a string. */
        fbe_buffer tmp;
        fbe_buffer_init(&tmp, NULL, NULL);
        fbe_buffer *saved = w->out;
        bool pretty = w->pretty;
        unsigned indent = w->indent;
        w->out = &tmp;
        w->pretty = false;
        fbe_status st = w_value(w, k, ptr);
        w->out = saved;
        w->pretty = pretty;
        w->indent = indent;
        if (st == FBE_OK)
            st = put_string(w, (const char *)tmp.data, tmp.size);
        fbe_buffer_free(&tmp);
        return st;
    }
    default: {
        fbe_ir_kind kind = fbe_json_int_kind(k);
        if (!fbe_ir_kind_is_integer(kind))
            return fbe_json__fail(w->err, FBE_INVALID_ARGUMENT,
                                  "a %s cannot be a map key", fbe_ir_kind_name(k->kind));
        char *p = room(w, 26);
        if (UNLIKELY(!p))
            return FBE_NOMEM;
        p[0] = '"';
        size_t n = int_text(kind, ptr, p + 1);
        p[n + 1] = '"';
        w->out->size += n + 2;
        return FBE_OK;
    }
    }
}

static fbe_status w_value(writer *w, const fbe_ir_type *t, const void *ptr)
{
    switch (t->kind) {
    case FBE_IR_BOOL: {
        uint8_t b;
        memcpy(&b, ptr, 1);
        return b ? put(w, "true", 4) : put(w, "false", 5);
    }
    case FBE_IR_BYTE: case FBE_IR_CHAR: case FBE_IR_WCHAR:
    case FBE_IR_INT8: case FBE_IR_UINT8: case FBE_IR_INT16: case FBE_IR_UINT16:
    case FBE_IR_INT32: case FBE_IR_UINT32: case FBE_IR_INT64: case FBE_IR_UINT64:
    case FBE_IR_TIMESTAMP: case FBE_IR_ENUM: case FBE_IR_FLAGS: {
        fbe_ir_kind kind = fbe_json_int_kind(t);
        char *p = room(w, 24);
        if (UNLIKELY(!p))
            return FBE_NOMEM;
        w->out->size += int_text(kind, ptr, p);
        return FBE_OK;
    }
    case FBE_IR_FLOAT: {
        float f;
        memcpy(&f, ptr, sizeof f);
        return put_double(w, (double)f);
    }
    case FBE_IR_DOUBLE: {
        double d;
        memcpy(&d, ptr, sizeof d);
        return put_double(w, d);
    }
    case FBE_IR_DECIMAL:
        return w_decimal(w, ptr);
    case FBE_IR_UUID:
        return w_uuid(w, ptr);
    case FBE_IR_STRING: {
        fbe_string s;
        memcpy(&s, ptr, sizeof s);
        return put_string(w, s.data, s.size);
    }
    case FBE_IR_BYTES:
        return w_bytes(w, ptr);
    case FBE_IR_STRUCT:
        return w_struct(w, t->struct_type, ptr);
    case FBE_IR_OPTIONAL: {
        if (t->elem->kind == FBE_IR_STRUCT) {
            const void *target;
            memcpy(&target, ptr, sizeof target);
            return target ? w_struct(w, t->elem->struct_type, target) : put(w, "null", 4);
        }
        uint8_t has;
        memcpy(&has, ptr, 1);
        if (!has)
            return put(w, "null", 4);
        return w_value(w, t->elem, (const char *)ptr + t->host_value_offset);
    }
    case FBE_IR_ARRAY:
        return w_elements(w, t->elem, ptr, t->array_len);
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET: {
        fbe_seq seq;
        memcpy(&seq, ptr, sizeof seq);
        return w_elements(w, t->elem, seq.data, seq.size);
    }
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        fbe_seq seq;
        memcpy(&seq, ptr, sizeof seq);
        if (UNLIKELY(seq.size && !seq.data))
            return fbe_json__fail(w->err, FBE_INVALID_ARGUMENT,
                                  "map of %zu entries has no data", seq.size);
        TRY(open_c(w, '{'));
        const char *entry = seq.data;
        for (size_t i = 0; i < seq.size; i++, entry += t->host_entry_size) {
            TRY(item_sep(w, i));
            TRY_AT(w_key(w, t->key, entry), fbe_json_path_index(&w->path, i));
            TRY(put(w, ": ", w->pretty ? 2 : 1));
            TRY_AT(w_value(w, t->elem, entry + t->host_entry_value_offset),
                   fbe_json_path_index(&w->path, i));
        }
        return close_c(w, '}', seq.size);
    }
    default:
        return fbe_json__fail(w->err, FBE_INVALID_ARGUMENT, "unknown type kind %d",
                              (int)t->kind);
    }
}

/* Compact output: [,]"name": and, for an integer or finite double field, its
 * value, with one room check and one size update for both (these are most
 * fields, and the separate checks and stores showed in the profile). Returns
 * false, writing nothing, for other fields and names longer than 64 bytes. */
static inline bool put_scalar_field(writer *w, const fbe_ir_field *f, const char *ptr, bool comma)
{
    fbe_ir_kind kind = fbe_json_int_kind(f->type);
    double d = 0;
    bool integer;
    switch (kind) { /* fbe_ir_kind_is_integer, inlined */
    case FBE_IR_BYTE: case FBE_IR_CHAR: case FBE_IR_WCHAR:
    case FBE_IR_INT8: case FBE_IR_UINT8: case FBE_IR_INT16: case FBE_IR_UINT16:
    case FBE_IR_INT32: case FBE_IR_UINT32: case FBE_IR_INT64: case FBE_IR_UINT64:
        integer = true;
        break;
    default:
        integer = false;
        break;
    }
    if (!integer) {
        if (kind == FBE_IR_DOUBLE) {
            memcpy(&d, ptr, sizeof d);
        } else if (kind == FBE_IR_FLOAT) {
            float fl;
            memcpy(&fl, ptr, sizeof fl);
            d = (double)fl;
        } else {
            return false;
        }
        if (UNLIKELY(!isfinite(d)))
            return false; /* put_double reports it */
    }
    char *p = room(w, 72 + 40); /* the key (at most 64 + 4) and a number (at most 32) */
    if (UNLIKELY(!p))
        return false; /* the slow path reports it */
    char *q = p;
    if (comma)
        *q++ = ',';
    *q++ = '"';
    const char *name = f->name;
    size_t i = 0;
    char c;
    while ((c = name[i]) != 0) {
        if (UNLIKELY(i == 64))
            return false; /* nothing committed yet */
        q[i++] = c;
    }
    q += i;
    *q++ = '"';
    *q++ = ':';
    q += integer ? int_text(kind, ptr, q) : double_text(d, q);
    w->out->size += (size_t)(q - p);
    return true;
}

/* An object of every field, base fields first (the IR's flattened list). */
static fbe_status w_struct(writer *w, const fbe_ir_struct *s, const void *value)
{
    if (UNLIKELY(w->depth >= WRITE_MAX_DEPTH))
        return fbe_json__fail(w->err, FBE_TOO_DEEP,
                              "structs nested deeper than %d (a cycle?)", WRITE_MAX_DEPTH);
    w->depth++;
    TRY(open_c(w, '{'));
    const char *base = value;
    for (size_t i = 0; i < s->field_count; i++) {
        const fbe_ir_field *f = &s->fields[i];
        if (w->pretty) {
            TRY(put_key_pretty(w, f->name, i));
        } else {
            if (put_scalar_field(w, f, base + f->host_offset, i != 0))
                continue;
            TRY(put_key(w, f->name, i != 0));
        }
        TRY_AT(w_value(w, f->type, base + f->host_offset), fbe_json_path_field(&w->path, f->name));
    }
    w->depth--;
    return close_c(w, '}', s->field_count);
}

fbe_status fbe_json_write(const fbe_ir_struct *type, const void *value, unsigned flags,
                          fbe_buffer *out, fbe_json_error *err)
{
    if (err) {
        err->status = FBE_OK;
        err->message[0] = 0;
    }
    if (!type || !value || !out)
        return fbe_json__fail(err, FBE_INVALID_ARGUMENT, "invalid argument");
    writer w;
    w.out = out;
    w.pretty = (flags & FBE_JSON_PRETTY) != 0;
    w.indent = 0;
    w.depth = 0;
    w.err = err;
    w.path.depth = 0;
    size_t start = fbe_buffer_position(out);
    fbe_status st = w_struct(&w, type, value);
    if (st != FBE_OK) {
        fbe_buffer_truncate(out, start); /* nothing partial is left behind (but what a sink flushed) */
        if (err && err->status == FBE_OK)
            fbe_json__fail(err, st, "%s", fbe_strerror(st));
        fbe_json__with_path(err, &w.path);
    }
    return st;
}
