/* JSON text -> host value, by reflection over the IR. The text is parsed by
 * simdjson (runtime/json_simd.cc) into its DOM tape; this file walks the tape in
 * place (json_internal.h: fbe_jtape), without a copy into nodes.
 *
 * Leniency where it is harmless, as the reference's from_json: unknown members
 * are ignored, missing members keep the schema defaults, members may come in any
 * order, float/double accept integers. Everything else is an error that names the
 * JSON path: a wrong JSON type, an integer outside the field's range, bad
 * Base64/uuid/decimal text, more array elements than a fixed array holds. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbe/codec.h"
#include "fbe/json.h"
#include "json_common.h"
#include "json_internal.h"
#include "port.h"

struct fbe_json_reader {
    fbe_jparser *parser;
    fbe_jparser *key_parser; /* struct-typed map keys hold JSON text of their own */
    bool key_parser_busy;
};

typedef struct jreader {
    const uint64_t *tape;
    const uint8_t *strings;
    fbe_arena *arena;
    fbe_decode_budget memory; /* what the arena may grow by (fbe/arena.h) */
    fbe_json_reader *owner;
    unsigned depth;
    unsigned max_depth;
    fbe_json_error *err;
    fbe_json_path path;
} jreader;

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

/* ---- the tape (json_internal.h) ------------------------------------------------------ */

static inline unsigned tag(const jreader *r, size_t i)
{
    return (unsigned)(r->tape[i] >> 56);
}

/* The index just past value i (its whole subtree). */
static inline size_t after(const jreader *r, size_t i)
{
    uint64_t w = r->tape[i];
    unsigned t = (unsigned)(w >> 56);
    if (t == '{' || t == '[')
        return (uint32_t)w;
    return t == 'l' || t == 'u' || t == 'd' ? i + 2 : i + 1;
}

/* Elements of an array, members of an object. */
NOINLINE static uint32_t slow_count(const jreader *r, size_t i)
{
    uint32_t count = 0;
    size_t end = (uint32_t)r->tape[i] - 1; /* the closing word */
    bool object = tag(r, i) == '{';
    for (size_t j = i + 1; j < end; count++)
        j = object ? after(r, j + 1) : after(r, j);
    return count;
}

static inline uint32_t count_of(const jreader *r, size_t i)
{
    uint32_t c = (uint32_t)(r->tape[i] >> 32) & FBE_JTAPE_COUNT_MAX;
    return LIKELY(c != FBE_JTAPE_COUNT_MAX) ? c : slow_count(r, i);
}

/* String i: its bytes (NUL-terminated, may hold NULs) and length. */
static inline const char *str_at(const jreader *r, size_t i, size_t *n)
{
    const uint8_t *at = r->strings + (r->tape[i] & FBE_JTAPE_PAYLOAD);
    uint32_t len;
    memcpy(&len, at, sizeof len);
    *n = len;
    return (const char *)at + sizeof len;
}

static inline int64_t i64_at(const jreader *r, size_t i)
{
    int64_t v;
    memcpy(&v, &r->tape[i + 1], sizeof v);
    return v;
}

static inline double f64_at(const jreader *r, size_t i)
{
    double v;
    memcpy(&v, &r->tape[i + 1], sizeof v);
    return v;
}

static const char *got(unsigned t)
{
    switch (t) {
    case 'n': return "null";
    case 't': case 'f': return "a boolean";
    case 'l': case 'u': return "an integer";
    case 'd': return "a number";
    case '"': return "a string";
    case '[': return "an array";
    default: return "an object";
    }
}

NOINLINE static fbe_status type_error(jreader *r, size_t idx, const char *expected)
{
    return fbe_json__fail(r->err, FBE_INVALID_ARGUMENT, "expected %s, got %s",
                          expected, got(tag(r, idx)));
}

NOINLINE static fbe_status nomem(jreader *r)
{
    if (fbe_decode_status(FBE_NOMEM, &r->memory) == FBE_MEMORY_LIMIT)
        return fbe_json__fail(r->err, FBE_MEMORY_LIMIT,
                              "the value needs more memory than the limit for %zu bytes of "
                              "JSON allows (max_memory)",
                              r->memory.input);
    return fbe_json__fail(r->err, FBE_NOMEM, "out of memory");
}

/* Every allocation of a read is held to its budget. */
static void *jalloc(jreader *r, size_t n)
{
    return fbe_decode_alloc(r->arena, n, &r->memory);
}

static void *jzalloc(jreader *r, size_t n)
{
    void *p = jalloc(r, n);
    if (p)
        memset(p, 0, n);
    return p;
}

static char *jstrndup(jreader *r, const char *s, size_t n)
{
    char *p = n < SIZE_MAX ? jalloc(r, n + 1) : NULL;
    if (p) {
        memcpy(p, s, n);
        p[n] = 0;
    }
    return p;
}

/* ---- integers ------------------------------------------------------------------------------ */

/* An integer value: negative (then v is its two's complement) or not. */
typedef struct jint {
    bool neg;
    uint64_t v;
} jint;

/* Range-checks and stores an integer of `kind`. */
static fbe_status store_int(jreader *r, fbe_ir_kind kind, jint x, void *ptr)
{
    unsigned width = fbe_json_int_width(kind);
    int64_t smin = 0;
    uint64_t max = 0;
    bool ok;
    switch (kind) {
    case FBE_IR_CHAR:
        /* 0..255; also the reference's sign-extended Uint(char) (4294967168..
         * 4294967295) and signed -128..-1: all the same byte. */
        ok = x.neg ? (int64_t)x.v >= -128 : (x.v <= 255 || (x.v >= 0xFFFFFF80u && x.v <= 0xFFFFFFFFu));
        smin = -128;
        max = 255;
        break;
    case FBE_IR_WCHAR: /* u32, or a negative wchar_t */
        ok = x.neg ? (int64_t)x.v >= INT32_MIN : x.v <= UINT32_MAX;
        smin = INT32_MIN;
        max = UINT32_MAX;
        break;
    default:
        if (kind == FBE_IR_INT8 || kind == FBE_IR_INT16 || kind == FBE_IR_INT32 ||
            kind == FBE_IR_INT64) { /* fbe_ir_kind_is_signed, inlined: a call per integer showed */
            int bits = (int)width * 8;
            smin = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
            max = bits == 64 ? (uint64_t)INT64_MAX : ((uint64_t)1 << (bits - 1)) - 1;
            ok = x.neg ? (int64_t)x.v >= smin : x.v <= max;
        } else {
            max = width == 8 ? UINT64_MAX : ((uint64_t)1 << (width * 8)) - 1;
            ok = !x.neg && x.v <= max;
        }
        break;
    }
    if (UNLIKELY(!ok)) {
        char lo[24], hi[24], val[24];
        snprintf(lo, sizeof lo, "%lld", (long long)smin);
        snprintf(hi, sizeof hi, "%llu", (unsigned long long)max);
        if (x.neg)
            snprintf(val, sizeof val, "%lld", (long long)(int64_t)x.v);
        else
            snprintf(val, sizeof val, "%llu", (unsigned long long)x.v);
        return fbe_json__fail(r->err, FBE_INVALID_ARGUMENT,
                              "%s is out of range for %s [%s, %s]", val, fbe_ir_kind_name(kind),
                              lo, hi);
    }
    switch (width) {
    case 1: { uint8_t v = (uint8_t)x.v; memcpy(ptr, &v, 1); break; }
    case 2: { uint16_t v = (uint16_t)x.v; memcpy(ptr, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)x.v; memcpy(ptr, &v, 4); break; }
    default: memcpy(ptr, &x.v, 8); break;
    }
    return FBE_OK;
}

static fbe_status read_int(jreader *r, fbe_ir_kind kind, size_t idx, void *ptr)
{
    jint x;
    unsigned t = tag(r, idx);
    if (LIKELY(t == 'l')) {
        int64_t v = i64_at(r, idx);
        x = (jint){v < 0, (uint64_t)v};
    } else if (t == 'u') {
        x = (jint){false, (uint64_t)i64_at(r, idx)};
    } else {
        return type_error(r, idx, "an integer");
    }
    return store_int(r, kind, x, ptr);
}

/* Integer text of a map key: -?[0-9]+ */
static bool parse_int_text(const char *s, size_t n, jint *x)
{
    size_t i = 0;
    bool neg = false;
    if (i < n && s[i] == '-') {
        neg = true;
        i++;
    }
    if (i == n)
        return false;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (neg) {
        if (v > (uint64_t)INT64_MAX + 1)
            return false;
        x->neg = v != 0;
        x->v = 0 - v;
    } else {
        x->neg = false;
        x->v = v;
    }
    return true;
}

/* ---- floating point -------------------------------------------------------------------------- */

static bool node_number(const jreader *r, size_t idx, double *d)
{
    switch (tag(r, idx)) {
    case 'd': *d = f64_at(r, idx); return true;
    case 'l': *d = (double)i64_at(r, idx); return true;
    case 'u': *d = (double)(uint64_t)i64_at(r, idx); return true;
    default: return false;
    }
}

static fbe_status store_float(jreader *r, fbe_ir_kind kind, double d, void *ptr)
{
    if (kind == FBE_IR_DOUBLE) {
        memcpy(ptr, &d, sizeof d);
        return FBE_OK;
    }
    /* Values that round to +-FLT_MAX are floats; beyond half an ulp past it, not. */
    if (UNLIKELY(fabs(d) >= 0x1.ffffffp127))
        return fbe_json__fail(r->err, FBE_INVALID_ARGUMENT,
                              "%g is out of range for float", d);
    float f = (float)d;
    memcpy(ptr, &f, sizeof f);
    return FBE_OK;
}

/* ---- strings and the text types ------------------------------------------------------------------- */

static fbe_status copy_string(jreader *r, const char *s, size_t n, void *ptr)
{
    fbe_string out = {NULL, 0};
    if (n) {
        /* NUL-terminated as a convenience, as binary deserialize does */
        out.data = jstrndup(r, s, n);
        if (UNLIKELY(!out.data))
            return nomem(r);
        out.size = n;
    }
    memcpy(ptr, &out, sizeof out);
    return FBE_OK;
}

static fbe_status parse_bytes(jreader *r, const char *s, size_t n, void *ptr)
{
    fbe_bytes out = {NULL, 0};
    if (n) {
        uint8_t *p = jalloc(r, n / 4 * 3 + 3);
        if (UNLIKELY(!p))
            return nomem(r);
        size_t len = 0, bad = 0;
        if (!fbe_json__base64_decode(s, n, p, &len, &bad))
            return fbe_json__fail(r->err, FBE_INVALID_ARGUMENT,
                                  "invalid Base64 at character %zu", bad);
        if (len) {
            out.data = p;
            out.size = len;
        }
    }
    memcpy(ptr, &out, sizeof out);
    return FBE_OK;
}

static fbe_status parse_uuid(jreader *r, const char *s, size_t n, void *ptr)
{
    fbe_uuid u;
    if (!fbe_uuid_parse(s, n, &u))
        return fbe_json__fail(r->err, FBE_INVALID_ARGUMENT,
                              "invalid uuid \"%.*s\" (expected 32 hex digits, '-' allowed)",
                              (int)(n > 60 ? 60 : n), s);
    memcpy(ptr, &u, sizeof u);
    return FBE_OK;
}

static fbe_status parse_decimal(jreader *r, const char *s, size_t n, void *ptr)
{
    fbe_decimal d;
    if (!fbe_json__decimal_parse(s, n, &d))
        return fbe_json__fail(r->err, FBE_INVALID_ARGUMENT,
                              "invalid decimal \"%.*s\"", (int)(n > 60 ? 60 : n), s);
    memcpy(ptr, &d, sizeof d);
    return FBE_OK;
}

/* ---- values ------------------------------------------------------------------------------------------ */

static fbe_status read_value(jreader *r, const fbe_ir_type *t, void *ptr, size_t idx);
static fbe_status read_struct(jreader *r, const fbe_ir_struct *s, void *value, size_t idx);

/* Default contents of a fresh element: zero, struct defaults inside. */
static void init_value(const fbe_ir_type *t, void *ptr)
{
    if (t->kind == FBE_IR_STRUCT) {
        fbe_init(t->struct_type, ptr);
        return;
    }
    memset(ptr, 0, t->host_size);
    if (t->kind == FBE_IR_ARRAY &&
        (t->elem->kind == FBE_IR_STRUCT || t->elem->kind == FBE_IR_ARRAY))
        for (uint32_t i = 0; i < t->array_len; i++)
            init_value(t->elem, (char *)ptr + (size_t)i * t->elem->host_size);
}

static bool needs_init(const fbe_ir_type *t)
{
    return t->kind == FBE_IR_STRUCT || (t->kind == FBE_IR_ARRAY && needs_init(t->elem));
}

/* A fresh zeroed array of n elements of `size` bytes from the arena. */
static void *alloc_elems(jreader *r, size_t n, size_t size)
{
    if (n == 0)
        return NULL;
    if (size && n > SIZE_MAX / size)
        return NULL;
    return jzalloc(r, size ? n * size : 1);
}

static fbe_status read_key(jreader *r, const fbe_ir_type *k, const char *s, size_t n, void *ptr);

static fbe_status read_map(jreader *r, const fbe_ir_type *t, void *ptr, size_t idx)
{
    if (tag(r, idx) != '{')
        return type_error(r, idx, "an object");
    uint32_t count = count_of(r, idx);
    fbe_seq seq = {NULL, count};
    if (count) {
        seq.data = alloc_elems(r, count, t->host_entry_size);
        if (!seq.data)
            return nomem(r);
    }
    /* Set before filling: on error the value stays safe to read. */
    memcpy(ptr, &seq, sizeof seq);
    char *entry = seq.data;
    size_t i = idx + 1;
    for (uint32_t m = 0; m < count; m++, entry += t->host_entry_size) {
        size_t kn;
        const char *ks = str_at(r, i, &kn);
        TRY_AT(read_key(r, t->key, ks, kn, entry), fbe_json_path_key(&r->path, ks, kn));
        TRY_AT(read_value(r, t->elem, entry + t->host_entry_value_offset, i + 1),
               fbe_json_path_key(&r->path, ks, kn));
        i = after(r, i + 1);
    }
    return FBE_OK;
}

static fbe_status read_elements(jreader *r, const fbe_ir_type *elem, char *data, size_t idx,
                                uint32_t count)
{
    size_t i = idx + 1;
    for (uint32_t m = 0; m < count; m++) {
        TRY_AT(read_value(r, elem, data + (size_t)m * elem->host_size, i),
               fbe_json_path_index(&r->path, m));
        i = after(r, i);
    }
    return FBE_OK;
}

static fbe_status read_value(jreader *r, const fbe_ir_type *t, void *ptr, size_t idx)
{
    unsigned tt = tag(r, idx);
    size_t sn;
    const char *sp;
    switch (t->kind) {
    case FBE_IR_BOOL: {
        if (tt != 't' && tt != 'f')
            return type_error(r, idx, "true or false");
        uint8_t b = tt == 't';
        memcpy(ptr, &b, 1);
        return FBE_OK;
    }
    case FBE_IR_BYTE: case FBE_IR_CHAR: case FBE_IR_WCHAR:
    case FBE_IR_INT8: case FBE_IR_UINT8: case FBE_IR_INT16: case FBE_IR_UINT16:
    case FBE_IR_INT32: case FBE_IR_UINT32: case FBE_IR_INT64: case FBE_IR_UINT64:
    case FBE_IR_TIMESTAMP: case FBE_IR_ENUM: case FBE_IR_FLAGS:
        return read_int(r, fbe_json_int_kind(t), idx, ptr);
    case FBE_IR_FLOAT:
    case FBE_IR_DOUBLE: {
        double d;
        if (!node_number(r, idx, &d))
            return type_error(r, idx, "a number");
        return store_float(r, t->kind, d, ptr);
    }
    case FBE_IR_DECIMAL: {
        if (tt == '"') {
            sp = str_at(r, idx, &sn);
            return parse_decimal(r, sp, sn, ptr);
        }
        fbe_decimal d;
        if (tt == 'l' || tt == 'u') {
            /* lenient: an exact integer */
            int64_t iv = i64_at(r, idx);
            bool neg = tt == 'l' && iv < 0;
            uint64_t mag = tt == 'u' ? (uint64_t)iv : neg ? 0 - (uint64_t)iv : (uint64_t)iv;
            d = (fbe_decimal){mag, 0, neg && mag ? 0x80000000u : 0};
        } else if (tt == 'd') {
            d = fbe_decimal_from_double(f64_at(r, idx)); /* lenient: what the reference does with a double */
        } else {
            return type_error(r, idx, "a decimal string");
        }
        memcpy(ptr, &d, sizeof d);
        return FBE_OK;
    }
    case FBE_IR_UUID:
        if (tt != '"')
            return type_error(r, idx, "a uuid string");
        sp = str_at(r, idx, &sn);
        return parse_uuid(r, sp, sn, ptr);
    case FBE_IR_STRING:
        if (UNLIKELY(tt != '"'))
            return type_error(r, idx, "a string");
        sp = str_at(r, idx, &sn);
        return copy_string(r, sp, sn, ptr);
    case FBE_IR_BYTES:
        if (tt != '"')
            return type_error(r, idx, "a Base64 string");
        sp = str_at(r, idx, &sn);
        return parse_bytes(r, sp, sn, ptr);
    case FBE_IR_STRUCT:
        return read_struct(r, t->struct_type, ptr, idx);
    case FBE_IR_OPTIONAL: {
        const fbe_ir_type *e = t->elem;
        if (e->kind == FBE_IR_STRUCT) {
            void *target = NULL;
            memcpy(ptr, &target, sizeof target);
            if (tt == 'n')
                return FBE_OK;
            target = jzalloc(r, e->struct_type->host_size ? e->struct_type->host_size : 1);
            if (!target)
                return nomem(r);
            memcpy(ptr, &target, sizeof target);
            return read_struct(r, e->struct_type, target, idx);
        }
        memset(ptr, 0, t->host_size);
        if (tt == 'n')
            return FBE_OK;
        void *inner = (char *)ptr + t->host_value_offset;
        fbe_status st = read_value(r, e, inner, idx);
        if (st == FBE_OK) {
            uint8_t one = 1;
            memcpy(ptr, &one, 1);
        }
        return st;
    }
    case FBE_IR_ARRAY: {
        if (tt != '[')
            return type_error(r, idx, "an array");
        uint32_t count = count_of(r, idx);
        if (count > t->array_len)
            return fbe_json__fail(r->err, FBE_INVALID_ARGUMENT,
                                  "expected at most %u elements, got %u", t->array_len, count);
        /* Elements the JSON lacks get their defaults. */
        if (needs_init(t->elem))
            for (uint32_t i = count; i < t->array_len; i++)
                init_value(t->elem, (char *)ptr + (size_t)i * t->elem->host_size);
        return read_elements(r, t->elem, ptr, idx, count);
    }
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET: {
        if (tt != '[')
            return type_error(r, idx, "an array");
        uint32_t count = count_of(r, idx);
        fbe_seq seq = {NULL, count};
        if (count) {
            seq.data = alloc_elems(r, count, t->elem->host_size);
            if (!seq.data)
                return nomem(r);
        }
        memcpy(ptr, &seq, sizeof seq);
        return read_elements(r, t->elem, seq.data, idx, count);
    }
    case FBE_IR_MAP:
    case FBE_IR_HASH:
        return read_map(r, t, ptr, idx);
    default:
        return fbe_json__fail(r->err, FBE_INVALID_ARGUMENT, "unknown type kind %d",
                              (int)t->kind);
    }
}

/* The error path's key segments added since `mark` point into a parser that is
 * about to be freed (a key inside a key): move their text into the arena. A key
 * that cannot be copied is dropped from the message rather than read later. */
static void keep_key_segments(jreader *r, size_t mark)
{
    size_t end = r->path.depth < FBE_JSON_PATH_MAX ? r->path.depth : FBE_JSON_PATH_MAX;
    for (size_t i = mark; i < end; i++) {
        fbe_json_seg *seg = &r->path.seg[i];
        if (seg->kind != FBE_JSEG_KEY)
            continue;
        /* the message shows at most 40 bytes and whether there were more */
        seg->name = jstrndup(r, seg->name, seg->len > 41 ? 41 : seg->len);
        if (!seg->name)
            seg->len = 0;
    }
}

/* A struct-typed key: its text is the JSON of the key struct. */
static fbe_status read_struct_key(jreader *r, const fbe_ir_struct *s, const char *ks,
                                  size_t kn, void *ptr)
{
    fbe_json_reader *o = r->owner;
    fbe_jparser *p;
    bool temp = false;
    if (!o->key_parser_busy) {
        if (!o->key_parser && !(o->key_parser = fbe_jparser_new()))
            return nomem(r);
        p = o->key_parser;
        o->key_parser_busy = true;
    } else {
        /* a key inside a key: rare, a parser of its own */
        if (!(p = fbe_jparser_new()))
            return nomem(r);
        temp = true;
    }
    fbe_jtape tape;
    const char *msg;
    fbe_status st;
    int rc = fbe_jparser_parse_tape(p, ks, kn, &tape, &msg);
    if (rc != 0) {
        st = fbe_json__fail(r->err, rc == -2 ? FBE_NOMEM : FBE_INVALID_ARGUMENT,
                            "key is not the JSON of a %s: %s", s->full_name, msg);
    } else {
        const uint64_t *saved_tape = r->tape;
        const uint8_t *saved_strings = r->strings;
        r->tape = tape.tape;
        r->strings = tape.strings;
        size_t mark = r->path.depth;
        st = read_struct(r, s, ptr, FBE_JTAPE_ROOT);
        r->tape = saved_tape;
        r->strings = saved_strings;
        if (temp && st != FBE_OK)
            keep_key_segments(r, mark);
    }
    if (temp)
        fbe_jparser_free(p);
    else
        o->key_parser_busy = false;
    return st;
}

static fbe_status read_key(jreader *r, const fbe_ir_type *k, const char *s, size_t n, void *ptr)
{
    switch (k->kind) {
    case FBE_IR_STRING:
        return copy_string(r, s, n, ptr);
    case FBE_IR_UUID:
        return parse_uuid(r, s, n, ptr);
    case FBE_IR_DECIMAL:
        return parse_decimal(r, s, n, ptr);
    case FBE_IR_BYTES:
        return parse_bytes(r, s, n, ptr);
    case FBE_IR_BOOL: {
        uint8_t b;
        if ((n == 1 && s[0] == '1') || (n == 4 && memcmp(s, "true", 4) == 0))
            b = 1;
        else if ((n == 1 && s[0] == '0') || (n == 5 && memcmp(s, "false", 5) == 0))
            b = 0;
        else
            return fbe_json__fail(r->err, FBE_INVALID_ARGUMENT,
                                  "a bool key must be \"1\", \"0\", \"true\" or \"false\"");
        memcpy(ptr, &b, 1);
        return FBE_OK;
    }
    case FBE_IR_FLOAT:
    case FBE_IR_DOUBLE: {
        char buf[64];
        char *end = NULL;
        double d = 0;
        bool ok = n > 0 && n < sizeof buf && !(s[0] == ' ' || s[0] == '\t' || s[0] == '\n');
        if (ok) {
            memcpy(buf, s, n);
            buf[n] = 0;
            d = strtod(buf, &end);
            ok = end == buf + n && isfinite(d);
        }
        if (!ok)
            return fbe_json__fail(r->err, FBE_INVALID_ARGUMENT,
                                  "a %s key must be a finite number", fbe_ir_kind_name(k->kind));
        return store_float(r, k->kind, d, ptr);
    }
    case FBE_IR_STRUCT:
        return read_struct_key(r, k->struct_type, s, n, ptr);
    default: {
        fbe_ir_kind kind = fbe_json_int_kind(k);
        if (!fbe_ir_kind_is_integer(kind))
            return fbe_json__fail(r->err, FBE_INVALID_ARGUMENT,
                                  "a %s cannot be a map key", fbe_ir_kind_name(k->kind));
        jint x;
        if (!parse_int_text(s, n, &x))
            return fbe_json__fail(r->err, FBE_INVALID_ARGUMENT,
                                  "key is not an integer");
        return store_int(r, kind, x, ptr);
    }
    }
}

/* Keys are NUL-terminated (json_internal.h) and field names hold no NUL, so one
 * comparison per byte suffices: the walk stops at the first difference or at the
 * field's end, never reads the key past name[len], and a key with a NUL inside
 * stops early with i < len (no match). */
static inline bool name_is(const char *field, const char *name, size_t len)
{
    size_t i = 0;
    while (field[i] == name[i]) {
        if (!field[i])
            return i == len;
        i++;
    }
    return false;
}

/* Any field, scanning from the first; *hint becomes the one after it. */
static const fbe_ir_field *find_field(const fbe_ir_struct *s, const char *name, size_t len,
                                      size_t *hint)
{
    for (size_t i = 0; i < s->field_count; i++) {
        if (name_is(s->fields[i].name, name, len)) {
            *hint = i + 1;
            return &s->fields[i];
        }
    }
    return NULL;
}

/* The member value at tape index v into field f. The common scalars are stored
 * here, without the call into read_value and its dispatch (with store_int,
 * about a quarter of the fill's instructions); everything else, and every
 * error, goes through read_value, so values and messages are the same either
 * way. *next becomes the index past the value. */
static inline fbe_status read_member(jreader *r, const fbe_ir_field *f, char *dst, size_t v,
                                     size_t *next)
{
    const fbe_ir_type *t = f->type;
    unsigned tt = tag(r, v);
    switch (t->kind) {
    case FBE_IR_DOUBLE:
        if (LIKELY(tt == 'd')) {
            memcpy(dst, &r->tape[v + 1], sizeof(double));
            *next = v + 2;
            return FBE_OK;
        }
        break;
    case FBE_IR_STRING:
        if (LIKELY(tt == '"')) {
            size_t sn;
            const char *sp = str_at(r, v, &sn);
            *next = v + 1;
            return copy_string(r, sp, sn, dst);
        }
        break;
    case FBE_IR_BYTE: case FBE_IR_INT8: case FBE_IR_UINT8: case FBE_IR_INT16:
    case FBE_IR_UINT16: case FBE_IR_INT32: case FBE_IR_UINT32: case FBE_IR_INT64:
    case FBE_IR_UINT64: case FBE_IR_TIMESTAMP: case FBE_IR_ENUM: case FBE_IR_FLAGS:
        if (LIKELY(tt == 'l')) {
            int64_t x = i64_at(r, v);
            fbe_ir_kind kind = fbe_json_int_kind(t);
            *next = v + 2;
            /* the widths most fields have, when in range; the rest (and the
             * range errors) through store_int */
            if (kind == FBE_IR_INT32 && x == (int32_t)x) {
                int32_t y = (int32_t)x;
                memcpy(dst, &y, sizeof y);
                return FBE_OK;
            }
            if ((kind == FBE_IR_BYTE || kind == FBE_IR_UINT8) && (uint64_t)x <= UINT8_MAX) {
                uint8_t y = (uint8_t)x;
                memcpy(dst, &y, sizeof y);
                return FBE_OK;
            }
            if (kind == FBE_IR_INT64) {
                memcpy(dst, &x, sizeof x);
                return FBE_OK;
            }
            return store_int(r, kind, (jint){x < 0, (uint64_t)x}, dst);
        }
        break;
    default:
        break;
    }
    *next = after(r, v);
    return read_value(r, t, dst, v);
}

/* Reads an object into a struct whose memory is zero (a fresh allocation, or
 * zeroed by the caller). Fields the object lacks get their schema defaults
 * afterwards, field by field: the same value fbe_init gives, without first
 * initialising what the members overwrite.
 *
 * Members usually come in field order. While they do (unknown members aside),
 * the fields seen are exactly fields[0..hint) and no per-field bookkeeping is
 * needed; the first member out of order switches to a bitmap of the fields
 * seen. */
#define FIELD_BITS 1024

static fbe_status read_struct(jreader *r, const fbe_ir_struct *s, void *value, size_t idx)
{
    if (UNLIKELY(tag(r, idx) != '{'))
        return type_error(r, idx, "an object");
    uint32_t count = count_of(r, idx);
    if (UNLIKELY(r->depth >= r->max_depth))
        return fbe_json__fail(r->err, FBE_TOO_DEEP,
                              "structs nested deeper than the limit (%u)", r->max_depth);
    r->depth++;
    const fbe_ir_field *fields = s->fields;
    size_t field_count = s->field_count;
    uint64_t seen[FIELD_BITS / 64];
    bool tracked = field_count <= FIELD_BITS;
    if (!tracked)
        fbe_init(s, value); /* a huge struct: defaults first */
    bool ordered = true;
    size_t hint = 0;  /* the field expected next */
    size_t found = 0; /* out of order: distinct fields seen */
    size_t i = idx + 1;
    for (uint32_t m = 0; m < count; m++) {
        size_t kn;
        const char *ks = str_at(r, i, &kn);
        const fbe_ir_field *f;
        if (LIKELY(hint < field_count && name_is(fields[hint].name, ks, kn))) {
            f = &fields[hint++];
        } else {
            size_t before = hint;
            f = find_field(s, ks, kn, &hint);
            if (!f) {
                i = after(r, i + 1); /* an unknown member: ignored */
                continue;
            }
            if (ordered && tracked) {
                /* the in-order run so far: fields[0..before) */
                ordered = false;
                memset(seen, 0, (field_count + 63) / 64 * sizeof(uint64_t));
                for (size_t fi = 0; fi < before; fi++)
                    seen[fi / 64] |= (uint64_t)1 << (fi % 64);
                found = before;
            }
        }
        if (UNLIKELY(!ordered)) { /* only ever cleared when tracked */
            size_t fi = (size_t)(f - fields);
            uint64_t bit = (uint64_t)1 << (fi % 64);
            if (!(seen[fi / 64] & bit)) {
                seen[fi / 64] |= bit;
                found++;
            }
        }
        TRY_AT(read_member(r, f, (char *)value + f->host_offset, i + 1, &i),
               fbe_json_path_field(&r->path, f->name));
    }
    if (tracked) {
        if (ordered) {
            for (size_t fi = hint; fi < field_count; fi++)
                fbe_init_field(&fields[fi], (char *)value + fields[fi].host_offset);
        } else if (found < field_count) {
            for (size_t fi = 0; fi < field_count; fi++)
                if (!(seen[fi / 64] >> (fi % 64) & 1))
                    fbe_init_field(&fields[fi], (char *)value + fields[fi].host_offset);
        }
    }
    r->depth--;
    return FBE_OK;
}

/* ---- locating a bad number (the parser only says that one is bad) -------------------- */

static bool num_char(char c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* The first number token outside strings that no JSON number type holds (beyond
 * uint64 or the double range) or that is malformed. */
static bool find_bad_number(const char *t, size_t len, size_t *at, size_t *n)
{
    for (size_t i = 0; i < len; i++) {
        char c = t[i];
        if (c == '"') {
            for (i++; i < len && t[i] != '"'; i++)
                if (t[i] == '\\')
                    i++;
            continue;
        }
        if (!(c == '-' || (c >= '0' && c <= '9')))
            continue;
        size_t j = i;
        while (j < len && num_char(t[j]))
            j++;
        size_t tl = j - i;
        char buf[400];
        bool bad = tl >= sizeof buf;
        if (!bad) {
            memcpy(buf, t + i, tl);
            buf[tl] = 0;
            const char *d = buf + (buf[0] == '-');
            bool integer = !strpbrk(buf, ".eE");
            char *end;
            if (!*d || (d[0] == '0' && d[1] >= '0' && d[1] <= '9') || !(d[0] >= '0' && d[0] <= '9'))
                bad = true; /* empty, leading zero, "-." */
            else if (integer && buf[0] != '-')
                bad = strlen(d) > 20 || (strlen(d) == 20 && strcmp(d, "18446744073709551615") > 0);
            else if (integer)
                bad = strlen(d) > 19 || (strlen(d) == 19 && strcmp(d, "9223372036854775808") > 0);
            if (!bad && !integer) {
                double v = strtod(buf, &end);
                bad = *end || isinf(v);
            }
        }
        if (bad) {
            *at = i;
            *n = tl;
            return true;
        }
        i = j - 1;
    }
    return false;
}

/* ---- public API --------------------------------------------------------------------------------------------- */

fbe_json_reader *fbe_json_reader_new(void)
{
    fbe_json_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->parser = fbe_jparser_new();
    if (!r->parser) {
        free(r);
        return NULL;
    }
    return r;
}

void fbe_json_reader_free(fbe_json_reader *reader)
{
    if (!reader)
        return;
    fbe_jparser_free(reader->parser);
    fbe_jparser_free(reader->key_parser);
    free(reader);
}

fbe_status fbe_json_read(fbe_json_reader *reader, const fbe_ir_struct *type, const char *text,
                         size_t len, void *value, const fbe_json_read_options *options,
                         fbe_json_error *err)
{
    if (err) {
        err->status = FBE_OK;
        err->message[0] = 0;
    }
    if (!type || !value || !options || !options->arena || (!text && len))
        return fbe_json__fail(err, FBE_INVALID_ARGUMENT, "invalid argument");
    memset(value, 0, type->host_size);
    fbe_json_reader *owned = NULL;
    if (!reader) {
        reader = owned = fbe_json_reader_new();
        if (!reader)
            return fbe_json__fail(err, FBE_NOMEM, "out of memory");
    }
    fbe_jtape tape;
    const char *msg;
    fbe_status st;
    int rc = fbe_jparser_parse_tape(reader->parser, text ? text : "", len, &tape, &msg);
    size_t at, n;
    if (rc == -1 && strstr(msg, "number") && find_bad_number(text, len, &at, &n)) {
        st = fbe_json__fail(err, FBE_INVALID_ARGUMENT,
                            "invalid JSON: a number out of range or malformed at byte %zu: %.*s",
                            at, (int)(n > 60 ? 60 : n), text + at);
    } else if (rc != 0) {
        st = fbe_json__fail(err, rc == -2 ? FBE_NOMEM : FBE_INVALID_ARGUMENT,
                            "invalid JSON: %s", msg);
    } else {
        jreader r;
        r.tape = tape.tape;
        r.strings = tape.strings;
        r.arena = options->arena;
        r.memory = (fbe_decode_budget){.max_memory = options->max_memory, .input = len};
        r.owner = reader;
        r.depth = 0;
        r.max_depth = options->max_depth ? options->max_depth : FBE_DEFAULT_MAX_DEPTH;
        r.err = err;
        r.path.depth = 0;
        st = read_struct(&r, type, value, FBE_JTAPE_ROOT);
        if (st != FBE_OK)
            fbe_json__with_path(err, &r.path);
    }
    if (rc != 0)
        fbe_init(type, value); /* nothing read: the defaults */
    fbe_json_reader_free(owned);
    return st;
}
