/* The reference's text form: what the generated C++ `operator<<` writes
 * (wire-format.md 9; golden/README.md "Text form").
 *
 * The generator (source/generator_cpp.cpp, GenerateStructOutputStream and
 * ConvertOutputStreamType) emits, per field:
 *   bool                 "true" / "false"
 *   byte, int8, uint8    (int)v                         -> decimal
 *   char                 "'" << v << "'"                -> the raw byte
 *   wchar                "'" << (char)v << "'"          -> the low byte only
 *   string, uuid         "\"" << v << "\""              -> raw bytes / canonical uuid
 *   bytes                "bytes[" << v.size() << "]"
 *   decimal              std::to_string(double)         -> "%f"
 *   float, double        ostream default, precision 6   -> "%.6g" (float widened)
 *   everything else      stream << v                    -> integers decimal, enums,
 *                                                          flags and structs by their
 *                                                          own operator<<
 * Optionals print "null" when absent. libstdc++ formats floating point through
 * vsnprintf("%.*g"), so printf gives exactly its "inf", "-inf", "nan", "-nan" and
 * "-0". */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fbe/codec.h"

/* Struct nesting limit (FBE_TOO_DEEP beyond it): guards against cyclic
 * optional-struct pointers in hand-built values and bounds the stack (under 100
 * bytes a level optimised, about 300 with AddressSanitizer). Decoded values are
 * nested at most the codec's max_depth (64 by default). */
#define PRINT_MAX_DEPTH 1000

/* Leaf helpers that own formatting buffers stay out of the recursive frames. */
#if defined(__GNUC__)
#define PRINT_NOINLINE __attribute__((noinline))
#else
#define PRINT_NOINLINE
#endif

typedef struct printer {
    fbe_buffer *out;
    unsigned depth;
} printer;

static fbe_status put(printer *p, const void *data, size_t len)
{
    return fbe_buffer_append(p->out, data, len);
}

static fbe_status puts_(printer *p, const char *s)
{
    return put(p, s, strlen(s));
}

#define TRY(expr)                          \
    do {                                   \
        fbe_status st_ = (expr);           \
        if (st_ != FBE_OK)                 \
            return st_;                    \
    } while (0)

PRINT_NOINLINE static fbe_status print_fmt_u64(printer *p, uint64_t v)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%" PRIu64, v);
    return put(p, buf, (size_t)n);
}

PRINT_NOINLINE static fbe_status print_fmt_i64(printer *p, int64_t v)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%" PRId64, v);
    return put(p, buf, (size_t)n);
}

/* ---- integers of every width, as the host stores them ------------------------- */

static unsigned int_width(fbe_ir_kind kind)
{
    switch (kind) {
    case FBE_IR_BYTE: case FBE_IR_CHAR: case FBE_IR_INT8: case FBE_IR_UINT8: return 1;
    case FBE_IR_INT16: case FBE_IR_UINT16: return 2;
    case FBE_IR_WCHAR: case FBE_IR_INT32: case FBE_IR_UINT32: return 4;
    default: return 8; /* INT64, UINT64, TIMESTAMP */
    }
}

/* The raw bits of an integer of `kind` at p, zero-extended. */
static uint64_t load_bits(fbe_ir_kind kind, const void *ptr)
{
    switch (int_width(kind)) {
    case 1: {
        uint8_t v;
        memcpy(&v, ptr, 1);
        return v;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, ptr, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, ptr, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, ptr, 8);
        return v;
    }
    }
}

static uint64_t width_mask(fbe_ir_kind kind)
{
    unsigned w = int_width(kind);
    return w == 8 ? UINT64_MAX : (((uint64_t)1 << (w * 8)) - 1);
}

/* Decimal text of an integer of `kind` (signedness of the C++ type). */
static fbe_status print_integer(printer *p, fbe_ir_kind kind, const void *ptr)
{
    uint64_t bits = load_bits(kind, ptr);
    if (fbe_ir_kind_is_signed(kind)) {
        unsigned w = int_width(kind);
        int64_t v;
        if (w == 8)
            memcpy(&v, &bits, 8); /* two's complement reinterpretation */
        else if (bits >> (w * 8 - 1))
            v = (int64_t)bits - ((int64_t)1 << (w * 8)); /* negative: bits - 2^(8w) */
        else
            v = (int64_t)bits;
        return print_fmt_i64(p, v);
    }
    return print_fmt_u64(p, bits);
}

/* ---- enums and flags ------------------------------------------------------------ */

static fbe_status print_enum(printer *p, const fbe_ir_enum *e, const void *ptr)
{
    if (e->value_count == 0)
        return puts_(p, "<empty>");
    uint64_t mask = width_mask(e->base);
    uint64_t v = load_bits(e->base, ptr);
    for (size_t i = 0; i < e->value_count; i++)
        if ((e->values[i].value & mask) == v)
            return puts_(p, e->values[i].name);
    return puts_(p, "<unknown>");
}

static fbe_status print_flags(printer *p, const fbe_ir_flags *f, const void *ptr)
{
    uint64_t mask = width_mask(f->base);
    uint64_t v = load_bits(f->base, ptr);
    bool first = true;
    for (size_t i = 0; i < f->value_count; i++) {
        uint64_t fv = f->values[i].value & mask;
        if ((v & fv) != 0 && (v & fv) == fv) {
            if (!first)
                TRY(put(p, "|", 1));
            TRY(puts_(p, f->values[i].name));
            first = false;
        }
    }
    return FBE_OK;
}

/* ---- values ------------------------------------------------------------------------ */

static fbe_status print_struct(printer *p, const fbe_ir_struct *s, const void *value);

static fbe_status print_quoted_char(printer *p, uint8_t c)
{
    uint8_t text[3] = {'\'', c, '\''};
    return put(p, text, 3);
}

static fbe_status print_value(printer *p, const fbe_ir_type *t, const void *ptr);

/* Elements of an array, vector, list or set, separated by ','. */
static fbe_status print_elements(printer *p, const fbe_ir_type *elem, const void *data,
                                 size_t count)
{
    const char *base = data;
    for (size_t i = 0; i < count; i++) {
        if (i)
            TRY(put(p, ",", 1));
        TRY(print_value(p, elem, base + i * elem->host_size));
    }
    return FBE_OK;
}

PRINT_NOINLINE static fbe_status print_count(printer *p, size_t n, const char *open)
{
    char buf[48];
    int len = snprintf(buf, sizeof buf, "[%zu]%s", n, open);
    return put(p, buf, (size_t)len);
}

/* The scalars that need a formatting buffer, kept out of the recursive
 * print_value frame so deep struct nesting uses little stack. */
PRINT_NOINLINE static fbe_status print_scalar(printer *p, fbe_ir_kind kind, const void *ptr)
{
    switch (kind) {
    case FBE_IR_FLOAT:
    case FBE_IR_DOUBLE: {
        double d;
        if (kind == FBE_IR_FLOAT) {
            float f;
            memcpy(&f, ptr, sizeof f);
            d = f;
        } else {
            memcpy(&d, ptr, sizeof d);
        }
        char buf[64];
        int n = snprintf(buf, sizeof buf, "%.6g", d);
        return put(p, buf, (size_t)n);
    }
    case FBE_IR_DECIMAL: {
        fbe_decimal dec;
        memcpy(&dec, ptr, sizeof dec);
        /* std::to_string(double): "%f". A decimal is at most ~7.9e28, but size the
         * buffer for any double anyway. */
        char buf[400];
        int n = snprintf(buf, sizeof buf, "%f", fbe_decimal_to_double(&dec));
        return put(p, buf, (size_t)n);
    }
    case FBE_IR_UUID: {
        fbe_uuid u;
        memcpy(&u, ptr, sizeof u);
        char text[38];
        text[0] = '"';
        fbe_uuid_format(&u, text + 1);
        text[37] = '"';
        return put(p, text, 38);
    }
    case FBE_IR_STRING: {
        const fbe_string *s = ptr;
        TRY(put(p, "\"", 1));
        TRY(put(p, s->data, s->size));
        return put(p, "\"", 1);
    }
    case FBE_IR_BYTES: {
        const fbe_bytes *b = ptr;
        char buf[40];
        int n = snprintf(buf, sizeof buf, "bytes[%zu]", b->size);
        return put(p, buf, (size_t)n);
    }
    default:
        return FBE_INVALID_ARGUMENT;
    }
}

static fbe_status print_value(printer *p, const fbe_ir_type *t, const void *ptr)
{
    switch (t->kind) {
    case FBE_IR_BOOL: {
        uint8_t b;
        memcpy(&b, ptr, 1);
        return puts_(p, b ? "true" : "false");
    }
    case FBE_IR_CHAR:
        return print_quoted_char(p, *(const uint8_t *)ptr);
    case FBE_IR_WCHAR: /* (char)value: the low byte only */
        return print_quoted_char(p, (uint8_t)load_bits(FBE_IR_WCHAR, ptr));
    case FBE_IR_BYTE: case FBE_IR_INT8: case FBE_IR_UINT8:
    case FBE_IR_INT16: case FBE_IR_UINT16: case FBE_IR_INT32: case FBE_IR_UINT32:
    case FBE_IR_INT64: case FBE_IR_UINT64:
        return print_integer(p, t->kind, ptr);
    case FBE_IR_TIMESTAMP:
        return print_integer(p, FBE_IR_UINT64, ptr);
    case FBE_IR_FLOAT:
    case FBE_IR_DOUBLE:
    case FBE_IR_DECIMAL:
    case FBE_IR_UUID:
    case FBE_IR_STRING:
    case FBE_IR_BYTES:
        return print_scalar(p, t->kind, ptr);
    case FBE_IR_ENUM:
        return print_enum(p, t->enum_type, ptr);
    case FBE_IR_FLAGS:
        return print_flags(p, t->flags_type, ptr);
    case FBE_IR_STRUCT:
        return print_struct(p, t->struct_type, ptr);
    case FBE_IR_OPTIONAL: {
        if (t->elem->kind == FBE_IR_STRUCT) {
            const void *target;
            memcpy(&target, ptr, sizeof target);
            return target ? print_struct(p, t->elem->struct_type, target) : puts_(p, "null");
        }
        uint8_t has;
        memcpy(&has, ptr, 1);
        if (!has)
            return puts_(p, "null");
        return print_value(p, t->elem, (const char *)ptr + t->host_value_offset);
    }
    case FBE_IR_ARRAY:
        TRY(print_count(p, t->array_len, "["));
        TRY(print_elements(p, t->elem, ptr, t->array_len));
        return put(p, "]", 1);
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET: {
        fbe_seq seq;
        memcpy(&seq, ptr, sizeof seq);
        const char *open = t->kind == FBE_IR_VECTOR ? "[" : t->kind == FBE_IR_LIST ? "<" : "{";
        const char *close = t->kind == FBE_IR_VECTOR ? "]" : t->kind == FBE_IR_LIST ? ">" : "}";
        TRY(print_count(p, seq.size, open));
        TRY(print_elements(p, t->elem, seq.data, seq.size));
        return puts_(p, close);
    }
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        fbe_seq seq;
        memcpy(&seq, ptr, sizeof seq);
        TRY(print_count(p, seq.size, t->kind == FBE_IR_MAP ? "<{" : "[{"));
        const char *entry = seq.data;
        for (size_t i = 0; i < seq.size; i++, entry += t->host_entry_size) {
            if (i)
                TRY(put(p, ",", 1));
            TRY(print_value(p, t->key, entry));
            TRY(put(p, "->", 2));
            TRY(print_value(p, t->elem, entry + t->host_entry_value_offset));
        }
        return puts_(p, t->kind == FBE_IR_MAP ? "}>" : "}]");
    }
    default:
        return FBE_INVALID_ARGUMENT;
    }
}

static fbe_status print_struct(printer *p, const fbe_ir_struct *s, const void *value)
{
    if (p->depth >= PRINT_MAX_DEPTH)
        return FBE_TOO_DEEP;
    p->depth++;
    fbe_status st = puts_(p, s->name);
    if (st == FBE_OK)
        st = put(p, "(", 1);
    bool first = true;
    /* The base part prints in place as the first item; it lives at offset 0 of the
     * host struct and its fields carry the same absolute offsets. */
    if (st == FBE_OK && s->base) {
        st = print_struct(p, s->base, value);
        first = false;
    }
    for (size_t i = s->own_field_start; st == FBE_OK && i < s->field_count; i++) {
        const fbe_ir_field *f = &s->fields[i];
        if (!first)
            st = put(p, ",", 1);
        first = false;
        if (st == FBE_OK)
            st = puts_(p, f->name);
        if (st == FBE_OK)
            st = put(p, "=", 1);
        if (st != FBE_OK)
            break;
        if (f->hidden)
            st = put(p, "***", 3);
        else
            st = print_value(p, f->type, (const char *)value + f->host_offset);
    }
    if (st == FBE_OK)
        st = put(p, ")", 1);
    p->depth--;
    return st;
}

fbe_status fbe_print(const fbe_ir_struct *type, const void *value, fbe_buffer *out)
{
    if (!type || !value || !out)
        return FBE_INVALID_ARGUMENT;
    printer p = {.out = out, .depth = 0};
    size_t start = fbe_buffer_position(out);
    fbe_status st = print_struct(&p, type, value);
    if (st != FBE_OK)
        fbe_buffer_truncate(out, start); /* nothing partial is left behind (but what a sink flushed) */
    return st;
}
