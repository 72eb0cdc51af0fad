/* `fbec header`: emits the C11 host representation of one package (see
 * docs/host-abi.md). Every size and offset comes from the IR; the header pins
 * them with _Static_assert so that the C compiler verifies the IR's layout. */
#include "gen_header.h"
#include "gen_header_keys.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define GEN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GEN_PRINTF(f, a)
#endif

/* ---- a growable text buffer --------------------------------------------------- */

typedef struct sbuf {
    char *data;
    size_t len;
    size_t cap;
    bool oom;
} sbuf;

static bool sb_reserve(sbuf *sb, size_t extra)
{
    if (sb->oom)
        return false;
    if (sb->len + extra + 1 <= sb->cap)
        return true;
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + extra + 1)
        cap *= 2;
    char *p = realloc(sb->data, cap);
    if (!p) {
        sb->oom = true;
        return false;
    }
    sb->data = p;
    sb->cap = cap;
    return true;
}

static void sb_putn(sbuf *sb, const char *s, size_t n)
{
    if (!sb_reserve(sb, n))
        return;
    memcpy(sb->data + sb->len, s, n);
    sb->len += n;
    sb->data[sb->len] = 0;
}

static void sb_puts(sbuf *sb, const char *s)
{
    sb_putn(sb, s, strlen(s));
}

static void sb_putc(sbuf *sb, char c)
{
    sb_putn(sb, &c, 1);
}

GEN_PRINTF(2, 3)
static void sb_printf(sbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        sb->oom = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        sb_putn(sb, small, (size_t)n);
        return;
    }
    if (!sb_reserve(sb, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

static const char *sb_str(const sbuf *sb)
{
    return sb->data ? sb->data : "";
}

static void sb_free(sbuf *sb)
{
    free(sb->data);
    memset(sb, 0, sizeof *sb);
}

/* ---- generator state ------------------------------------------------------------ */

typedef struct gen {
    const fbe_ir_package *pkg;
    const fbe_ir_struct *cur_struct; /* where we are, for messages */
    const fbe_ir_field *cur_field;
    bool failed;
    bool oom;        /* a temporary buffer ran out of memory */
    bool needs_math; /* an infinite or NaN default needs <math.h> */
    bool *done;      /* per struct of pkg: its definition has been written */
    sbuf tail;       /* written after every struct: see gen_struct */
} gen;

GEN_PRINTF(2, 3)
static void gen_error(gen *g, const char *fmt, ...)
{
    fputs("fbec header: error: ", stderr);
    if (g->cur_struct && g->cur_field)
        fprintf(stderr, "%s.%s: ", g->cur_struct->full_name, g->cur_field->name);
    else if (g->cur_struct)
        fprintf(stderr, "%s: ", g->cur_struct->full_name);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    g->failed = true;
}

static const char *kind_name(fbe_ir_kind kind)
{
    static const char *const names[] = {
#define GEN_KIND_NAME_(k, s, n) s,
        FBE_IR_KINDS(GEN_KIND_NAME_)
#undef GEN_KIND_NAME_
    };
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

static const char *value_kind_name(fbe_ir_value_kind kind)
{
    switch (kind) {
    case FBE_IR_VALUE_NONE: return "none";
    case FBE_IR_VALUE_NULL: return "null";
    case FBE_IR_VALUE_BOOL: return "bool";
    case FBE_IR_VALUE_INT: return "int";
    case FBE_IR_VALUE_FLOAT: return "float";
    case FBE_IR_VALUE_DECIMAL: return "decimal";
    case FBE_IR_VALUE_STRING: return "string";
    case FBE_IR_VALUE_UUID: return "uuid";
    case FBE_IR_VALUE_UUID1: return "uuid1";
    case FBE_IR_VALUE_UUID4: return "uuid4";
    case FBE_IR_VALUE_UTC: return "utc";
    }
    return "?";
}

/* Frees a temporary buffer, remembering whether it ran out of memory. */
static void tmp_free(gen *g, sbuf *sb)
{
    if (sb->oom)
        g->oom = true;
    sb_free(sb);
}

/* ---- C spelling of types ----------------------------------------------------------- */

/* The C type of a scalar kind (also enum/flags bases); NULL for composite kinds. */
static const char *scalar_c_type(fbe_ir_kind kind)
{
    switch (kind) {
    case FBE_IR_BOOL: return "bool";
    case FBE_IR_BYTE:
    case FBE_IR_CHAR:
    case FBE_IR_UINT8: return "uint8_t";
    case FBE_IR_WCHAR:
    case FBE_IR_UINT32: return "uint32_t";
    case FBE_IR_INT8: return "int8_t";
    case FBE_IR_INT16: return "int16_t";
    case FBE_IR_UINT16: return "uint16_t";
    case FBE_IR_INT32: return "int32_t";
    case FBE_IR_INT64: return "int64_t";
    case FBE_IR_UINT64:
    case FBE_IR_TIMESTAMP: return "uint64_t";
    case FBE_IR_FLOAT: return "float";
    case FBE_IR_DOUBLE: return "double";
    case FBE_IR_DECIMAL: return "fbe_decimal";
    case FBE_IR_UUID: return "fbe_uuid";
    case FBE_IR_STRING: return "fbe_string";
    case FBE_IR_BYTES: return "fbe_bytes";
    default: return NULL;
    }
}

/* Bit width of an integer kind (0 if the kind is not an integer). */
static unsigned int_width(fbe_ir_kind kind)
{
    switch (kind) {
    case FBE_IR_BYTE:
    case FBE_IR_CHAR:
    case FBE_IR_INT8:
    case FBE_IR_UINT8: return 8;
    case FBE_IR_INT16:
    case FBE_IR_UINT16: return 16;
    case FBE_IR_WCHAR:
    case FBE_IR_INT32:
    case FBE_IR_UINT32: return 32;
    case FBE_IR_INT64:
    case FBE_IR_UINT64:
    case FBE_IR_TIMESTAMP: return 64;
    default: return 0;
    }
}

static bool int_signed(fbe_ir_kind kind)
{
    return kind == FBE_IR_INT8 || kind == FBE_IR_INT16 || kind == FBE_IR_INT32 ||
           kind == FBE_IR_INT64;
}

/* The name of a non-composite type (scalar, enum, flags, struct). */
static const char *type_name(gen *g, const fbe_ir_type *t)
{
    switch (t->kind) {
    case FBE_IR_ENUM:
        if (t->enum_type && t->enum_type->c_name)
            return t->enum_type->c_name;
        break;
    case FBE_IR_FLAGS:
        if (t->flags_type && t->flags_type->c_name)
            return t->flags_type->c_name;
        break;
    case FBE_IR_STRUCT:
        if (t->struct_type && t->struct_type->c_name)
            return t->struct_type->c_name;
        break;
    default: {
        const char *s = scalar_c_type(t->kind);
        if (s)
            return s;
        break;
    }
    }
    gen_error(g, "type of kind %s has no C name in the IR", kind_name(t->kind));
    return "int";
}

static bool is_struct_optional(const fbe_ir_type *t)
{
    return t->kind == FBE_IR_OPTIONAL && t->elem && t->elem->kind == FBE_IR_STRUCT;
}

static bool require_elem(gen *g, const fbe_ir_type *t)
{
    bool keyed = fbe_ir_kind_is_keyed(t->kind);
    if (t->elem && (!keyed || t->key))
        return true;
    gen_error(g, "%s type without its element/key type in the IR", kind_name(t->kind));
    return false;
}

/* Appends the declaration `spec declarator` of type t (no trailing ';'). */
static void spell(gen *g, sbuf *sb, const fbe_ir_type *t, const char *decl)
{
    sbuf d = {0};
    switch (t->kind) {
    case FBE_IR_OPTIONAL:
        if (!require_elem(g, t))
            break;
        if (t->elem->kind == FBE_IR_STRUCT) {
            sb_putc(&d, '*');
            sb_puts(&d, decl);
            spell(g, sb, t->elem, sb_str(&d));
        } else {
            sb_puts(sb, "struct { bool has_value; ");
            spell(g, sb, t->elem, "value");
            sb_puts(sb, "; } ");
            sb_puts(sb, decl);
        }
        break;
    case FBE_IR_ARRAY:
        if (!require_elem(g, t))
            break;
        if (decl[0] == '*')
            sb_printf(&d, "(%s)[%" PRIu32 "]", decl, t->array_len);
        else
            sb_printf(&d, "%s[%" PRIu32 "]", decl, t->array_len);
        spell(g, sb, t->elem, sb_str(&d));
        break;
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
        if (!require_elem(g, t))
            break;
        sb_puts(sb, "struct { ");
        spell(g, sb, t->elem, "*data");
        sb_puts(sb, "; size_t size; } ");
        sb_puts(sb, decl);
        break;
    case FBE_IR_MAP:
    case FBE_IR_HASH:
        if (!require_elem(g, t))
            break;
        sb_puts(sb, "struct { struct { ");
        spell(g, sb, t->key, "key");
        sb_puts(sb, "; ");
        spell(g, sb, t->elem, "value");
        sb_puts(sb, "; } *data; size_t size; } ");
        sb_puts(sb, decl);
        break;
    default:
        sb_puts(sb, type_name(g, t));
        sb_putc(sb, ' ');
        sb_puts(sb, decl);
        break;
    }
    tmp_free(g, &d);
}

/* ---- literals ------------------------------------------------------------------------ */

static int64_t as_signed(uint64_t u)
{
    return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
}

/* Is `bits` a value of an integer kind as the IR stores it (sign-extended for
 * signed kinds, zero-extended for unsigned ones)? */
static bool int_in_range(fbe_ir_kind kind, uint64_t bits)
{
    unsigned w = int_width(kind);
    if (w == 0 || w == 64)
        return w == 64;
    if (int_signed(kind)) {
        int64_t s = as_signed(bits);
        int64_t lim = (int64_t)1 << (w - 1);
        return s >= -lim && s < lim;
    }
    return bits < ((uint64_t)1 << w);
}

/* An integer constant expression of the value `bits` of kind `kind`. */
static void int_literal(sbuf *sb, fbe_ir_kind kind, uint64_t bits)
{
    unsigned w = int_width(kind);
    if (int_signed(kind)) {
        int64_t s = as_signed(bits);
        if (w == 64) {
            if (s == INT64_MIN)
                sb_puts(sb, "(-INT64_C(9223372036854775807) - 1)");
            else if (s < 0)
                sb_printf(sb, "(-INT64_C(%" PRId64 "))", -s);
            else
                sb_printf(sb, "INT64_C(%" PRId64 ")", s);
        } else if (s == INT32_MIN) {
            sb_puts(sb, "(-2147483647 - 1)");
        } else if (s < 0) {
            sb_printf(sb, "(%" PRId64 ")", s);
        } else {
            sb_printf(sb, "%" PRId64, s);
        }
    } else if (w == 64) {
        sb_printf(sb, "UINT64_C(%" PRIu64 ")", bits);
    } else {
        sb_printf(sb, "%" PRIu64 "u", bits);
    }
}

/* A hexadecimal floating literal (exact), or a <math.h> macro for inf/NaN. */
static void float_literal(gen *g, sbuf *sb, double d, bool is_float)
{
    if (isnan(d)) {
        g->needs_math = true;
        sb_puts(sb, is_float ? "NAN" : "(double)NAN");
    } else if (isinf(d)) {
        g->needs_math = true;
        sb_puts(sb, d < 0 ? "-" : "");
        sb_puts(sb, is_float ? "HUGE_VALF" : "HUGE_VAL");
    } else {
        sb_puts(sb, is_float ? "(float)" : "");
        sb_printf(sb, "%a", d);
    }
}

/* A C string literal of the bytes s[0..n): printable ASCII as is except `"`, `\`
 * and `?` (trigraphs), every other byte as a three-digit octal escape (so that a
 * following digit can never join it). */
static void string_literal(sbuf *sb, const char *s, size_t n)
{
    sb_putc(sb, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\' || c == '?') {
            sb_putc(sb, '\\');
            sb_putc(sb, (char)c);
        } else if (c >= 0x20 && c < 0x7f) {
            sb_putc(sb, (char)c);
        } else {
            sb_printf(sb, "\\%03o", c);
        }
    }
    sb_putc(sb, '"');
}

/* The integer kind that holds values of t (an enum/flags base), 0 if none. */
static fbe_ir_kind int_base(const fbe_ir_type *t)
{
    if (t->kind == FBE_IR_ENUM)
        return t->enum_type ? t->enum_type->base : FBE_IR_BOOL;
    if (t->kind == FBE_IR_FLAGS)
        return t->flags_type ? t->flags_type->base : FBE_IR_BOOL;
    return t->kind;
}

/* Appends a C expression of value v for a (non-optional) target type t. */
static bool value_expr(gen *g, sbuf *sb, const fbe_ir_type *t, const fbe_ir_value *v)
{
    switch (v->kind) {
    case FBE_IR_VALUE_BOOL:
        if (t->kind != FBE_IR_BOOL)
            break;
        sb_puts(sb, v->b ? "true" : "false");
        return true;
    case FBE_IR_VALUE_INT: {
        if (t->kind == FBE_IR_BOOL) {
            if (v->u > 1)
                break;
            sb_puts(sb, v->u ? "true" : "false");
            return true;
        }
        fbe_ir_kind base = int_base(t);
        if (int_width(base) == 0)
            break;
        if (!int_in_range(base, v->u)) {
            gen_error(g, "integer default 0x%" PRIx64 " is not a value of %s (IR values are "
                         "cast to the type: sign-extended if signed, zero-extended otherwise)",
                      v->u, kind_name(base));
            return false;
        }
        sb_printf(sb, "(%s)", type_name(g, t));
        int_literal(sb, base, v->u);
        return true;
    }
    case FBE_IR_VALUE_FLOAT:
        if (t->kind != FBE_IR_FLOAT && t->kind != FBE_IR_DOUBLE)
            break;
        float_literal(g, sb, v->d, t->kind == FBE_IR_FLOAT);
        return true;
    case FBE_IR_VALUE_DECIMAL:
        if (t->kind != FBE_IR_DECIMAL)
            break;
        sb_printf(sb, "FBE_LITERAL(fbe_decimal){UINT64_C(0x%" PRIx64 "), 0x%" PRIx32 "u, 0x%" PRIx32 "u}",
                  v->dec.lo, v->dec.hi, v->dec.flags);
        return true;
    case FBE_IR_VALUE_STRING:
        if (t->kind != FBE_IR_STRING)
            break;
        if (!v->str.data && v->str.size) {
            gen_error(g, "string default without data");
            return false;
        }
        sb_puts(sb, "FBE_LITERAL(fbe_string){");
        string_literal(sb, v->str.data ? v->str.data : "", v->str.size);
        sb_printf(sb, ", %zuu}", v->str.size);
        return true;
    case FBE_IR_VALUE_UUID:
        if (t->kind != FBE_IR_UUID)
            break;
        sb_puts(sb, "FBE_LITERAL(fbe_uuid){{");
        for (size_t i = 0; i < 16; i++)
            sb_printf(sb, "%s0x%02x", i ? ", " : "", v->uuid.bytes[i]);
        sb_puts(sb, "}}");
        return true;
    case FBE_IR_VALUE_UUID1:
    case FBE_IR_VALUE_UUID4:
        if (t->kind != FBE_IR_UUID)
            break;
        sb_puts(sb, v->kind == FBE_IR_VALUE_UUID1 ? "fbe_uuid_v1()" : "fbe_uuid_v4()");
        return true;
    case FBE_IR_VALUE_UTC:
        if (t->kind != FBE_IR_TIMESTAMP)
            break;
        sb_puts(sb, "fbe_timestamp_now()");
        return true;
    case FBE_IR_VALUE_NONE:
    case FBE_IR_VALUE_NULL:
        break;
    }
    gen_error(g, "a default of kind %s does not fit a field of type %s",
              value_kind_name(v->kind), kind_name(t->kind));
    return false;
}

/* ---- names ------------------------------------------------------------------------------ */

static const char *base_name(const char *path)
{
    if (!path)
        return "<unknown>";
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Text safe inside a C block comment. */
static void comment_text(sbuf *sb, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '*' && s[1] == '/')
            sb_puts(sb, "* ");
        else if (c < 0x20 || c == 0x7f)
            sb_putc(sb, '?');
        else
            sb_putc(sb, (char)c);
    }
}

/* ---- enums and flags ------------------------------------------------------------------- */

static void gen_enum_like(gen *g, sbuf *out, const char *what, const char *full_name,
                          const char *c_name, fbe_ir_kind base,
                          const fbe_ir_enum_value *values, size_t count, bool deprecated)
{
    const char *ctype = scalar_c_type(base);
    if (!ctype || int_width(base) == 0) {
        gen_error(g, "%s %s has base kind %s, not an integer", what, full_name,
                  kind_name(base));
        return;
    }
    sb_printf(out, "/* %s %s : %s%s */\n", what, full_name, kind_name(base),
              deprecated ? " (deprecated)" : "");
    sb_printf(out, "typedef %s %s;\n", ctype, c_name);
    for (size_t i = 0; i < count; i++) {
        const fbe_ir_enum_value *ev = &values[i];
        if (!int_in_range(base, ev->value)) {
            gen_error(g, "%s %s: value %s = 0x%" PRIx64 " is not a value of %s", what,
                      full_name, ev->name, ev->value, kind_name(base));
            continue;
        }
        sb_printf(out, "#define %s_%s ((%s)", c_name, ev->name, c_name);
        int_literal(out, base, ev->value);
        sb_puts(out, ev->deprecated ? ") /* deprecated */\n" : ")\n");
    }
    sb_putc(out, '\n');
}

/* ---- declaration order ---------------------------------------------------------------
 *
 * The resolver accepts a struct used by value (or as a base) before its declaration,
 * and maps keyed by or holding the struct being declared. C needs complete types for
 * both, so structs are written in dependency order (the first ready struct in
 * source order each time: plain source order whenever that works), and the entry
 * type of a map whose key or value is not complete yet gets a name and is defined
 * after all structs ("tail"), together with the checks that need it. */

static ptrdiff_t struct_index(const gen *g, const fbe_ir_struct *st)
{
    for (size_t i = 0; i < g->pkg->struct_count; i++)
        if (g->pkg->structs[i] == st)
            return (ptrdiff_t)i;
    return -1;
}

/* Is the C spelling of t complete here? Structs of other packages always are. */
static bool type_complete(const gen *g, const fbe_ir_type *t)
{
    switch (t->kind) {
    case FBE_IR_STRUCT: {
        ptrdiff_t i = struct_index(g, t->struct_type);
        return i < 0 || g->done[i];
    }
    case FBE_IR_OPTIONAL:
        return !t->elem || t->elem->kind == FBE_IR_STRUCT || type_complete(g, t->elem);
    case FBE_IR_ARRAY:
        return !t->elem || type_complete(g, t->elem);
    default:
        return true; /* scalars, and collections (a pointer and a size) */
    }
}

static bool struct_ready(const gen *g, const fbe_ir_struct *s)
{
    if (s->base) {
        ptrdiff_t i = struct_index(g, s->base);
        if (i >= 0 && !g->done[i])
            return false;
    }
    for (size_t i = s->own_field_start; i < s->field_count; i++)
        if (!type_complete(g, s->fields[i].type))
            return false;
    return true;
}

static bool is_map(const fbe_ir_type *t)
{
    return fbe_ir_kind_is_keyed(t->kind) && t->key && t->elem;
}

/* ---- structs ------------------------------------------------------------------------------ */

/* "base.base." for a field declared two levels up, "" for an own field. */
static bool member_prefix(gen *g, const fbe_ir_struct *s, const fbe_ir_field *f, sbuf *prefix)
{
    const fbe_ir_struct *owner = f->owner ? f->owner : s;
    for (const fbe_ir_struct *level = s; level; level = level->base) {
        if (level == owner)
            return true;
        sb_puts(prefix, "base.");
    }
    gen_error(g, "field owner %s is not %s or one of its bases",
              owner->full_name ? owner->full_name : "?", s->full_name);
    return false;
}

static uint32_t align_up(uint32_t n, uint32_t a)
{
    return a ? (n + a - 1) / a * a : n;
}

/* Layout facts C11 cannot check with _Static_assert (members of anonymous types
 * reached through pointers): verified here against the host ABI rules. */
static void check_hidden_layout(gen *g, const fbe_ir_type *t)
{
    if (!t)
        return;
    if (t->kind == FBE_IR_OPTIONAL && t->elem && t->elem->kind != FBE_IR_STRUCT) {
        uint32_t expect = align_up(1, t->elem->host_align);
        if (t->host_value_offset != expect)
            gen_error(g, "optional %s: host_value_offset is %" PRIu32 ", expected %" PRIu32
                         " ({bool has_value; T value;} with alignof(T) = %" PRIu32 ")",
                      kind_name(t->elem->kind), t->host_value_offset, expect,
                      t->elem->host_align);
    }
    if (is_map(t)) {
        uint32_t expect = align_up(t->key->host_size, t->elem->host_align);
        uint32_t align = t->key->host_align > t->elem->host_align ? t->key->host_align
                                                                   : t->elem->host_align;
        uint32_t size = align_up(expect + t->elem->host_size, align);
        if (t->host_entry_value_offset != expect || t->host_entry_size != size)
            gen_error(g, "%s entry: value offset %" PRIu32 " / size %" PRIu32
                         ", expected %" PRIu32 " / %" PRIu32 " ({K key; V value;})",
                      kind_name(t->kind), t->host_entry_value_offset, t->host_entry_size,
                      expect, size);
    }
    if (t->kind != FBE_IR_STRUCT) {
        check_hidden_layout(g, t->elem);
        check_hidden_layout(g, t->key);
    }
}

/* Static asserts pinning the layout of the member `path` (e.g. "base.f2") of s.
 * An inherited field only gets its offset checked: the rest of its layout is
 * pinned where its own struct is declared. Checks that need a type completed
 * later go to the tail; those of a named map entry are written with the entry. */
static void field_asserts(gen *g, sbuf *out, const fbe_ir_struct *s, const fbe_ir_field *f,
                          const char *path, bool inherited, bool named_entry)
{
    const char *S = s->c_name;
    const fbe_ir_type *t = f->type;
    sb_printf(out, "_Static_assert(offsetof(%s, %s) == %" PRIu32 ", \"%s.%s offset\");\n", S,
              path, f->host_offset, S, path);
    if (inherited)
        return;
    sb_printf(out, "_Static_assert(sizeof(((%s *)0)->%s) == %" PRIu32 ", \"%s.%s size\");\n",
              S, path, t->host_size, S, path);
    const fbe_ir_type *e = t;
    const char *sub = "";
    if (t->kind == FBE_IR_ARRAY && t->elem) {
        e = t->elem;
        sub = "[0]";
        sb_printf(out,
                  "_Static_assert(sizeof(((%s *)0)->%s[0]) == %" PRIu32
                  ", \"%s.%s element size\");\n",
                  S, path, e->host_size, S, path);
    }
    if (e->kind == FBE_IR_OPTIONAL && e->elem && e->elem->kind != FBE_IR_STRUCT) {
        sb_printf(out,
                  "_Static_assert(offsetof(%s, %s%s.value) == %" PRIu32
                  ", \"%s.%s value offset\");\n",
                  S, path, sub, f->host_offset + e->host_value_offset, S, path);
    }
    if ((t->kind == FBE_IR_VECTOR || t->kind == FBE_IR_LIST || t->kind == FBE_IR_SET) &&
        t->elem) {
        sbuf *where = type_complete(g, t->elem) ? out : &g->tail;
        sb_printf(where,
                  "_Static_assert(sizeof(*((%s *)0)->%s.data) == %" PRIu32
                  ", \"%s.%s element size\");\n",
                  S, path, t->elem->host_size, S, path);
    }
    if (is_map(t) && !named_entry) {
        sb_printf(out,
                  "_Static_assert(sizeof(*((%s *)0)->%s.data) == %" PRIu32
                  ", \"%s.%s entry size\");\n",
                  S, path, t->host_entry_size, S, path);
        sb_printf(out,
                  "_Static_assert(sizeof(((%s *)0)->%s.data->key) == %" PRIu32
                  ", \"%s.%s key size\");\n",
                  S, path, t->key->host_size, S, path);
        sb_printf(out,
                  "_Static_assert(sizeof(((%s *)0)->%s.data->value) == %" PRIu32
                  ", \"%s.%s value size\");\n",
                  S, path, t->elem->host_size, S, path);
    }
}

/* The named entry type of map field f of s: "<S>_<field>_entry". */
static void entry_name(sbuf *sb, const fbe_ir_struct *s, const fbe_ir_field *f)
{
    sb_printf(sb, "%s_%s_entry", s->c_name, f->c_name);
}

/* Defines a named map entry type (in the tail) and pins its layout. */
static void named_entry_definition(gen *g, const fbe_ir_struct *s, const fbe_ir_field *f)
{
    const fbe_ir_type *t = f->type;
    sbuf name = {0};
    entry_name(&name, s, f);
    const char *E = sb_str(&name);
    sb_printf(&g->tail, "/* entry of %s.%s */\nstruct %s {\n    ", s->full_name, f->name, E);
    spell(g, &g->tail, t->key, "key");
    sb_puts(&g->tail, ";\n    ");
    spell(g, &g->tail, t->elem, "value");
    sb_puts(&g->tail, ";\n};\n");
    sb_printf(&g->tail, "_Static_assert(sizeof(%s) == %" PRIu32 ", \"%s size\");\n", E,
              t->host_entry_size, E);
    sb_printf(&g->tail, "_Static_assert(offsetof(%s, value) == %" PRIu32
                        ", \"%s value offset\");\n",
              E, t->host_entry_value_offset, E);
    sb_printf(&g->tail, "_Static_assert(sizeof(((%s *)0)->key) == %" PRIu32
                        ", \"%s key size\");\n",
              E, t->key->host_size, E);
    sb_printf(&g->tail, "_Static_assert(sizeof(((%s *)0)->value) == %" PRIu32
                        ", \"%s value size\");\n",
              E, t->elem->host_size, E);
    tmp_free(g, &name);
}

/* Does a value of type t need an init call (a struct by value, or an array of them)? */
static bool needs_init(const fbe_ir_type *t)
{
    while (t && t->kind == FBE_IR_ARRAY)
        t = t->elem;
    return t && t->kind == FBE_IR_STRUCT;
}

/* Emits the init calls for the lvalue `lv` of type t (struct or array of structs). */
static void init_calls(gen *g, sbuf *out, const fbe_ir_type *t, const char *lv, int depth,
                       int indent)
{
    if (t->kind == FBE_IR_STRUCT) {
        if (!t->struct_type || !t->struct_type->c_name) {
            gen_error(g, "struct type without a name in the IR");
            return;
        }
        sb_printf(out, "%*s%s_init(&%s);\n", indent, "", t->struct_type->c_name, lv);
        return;
    }
    /* ARRAY */
    sbuf elem = {0};
    sb_printf(&elem, "%s[i%d]", lv, depth);
    sb_printf(out, "%*sfor (size_t i%d = 0; i%d < %" PRIu32 "; i%d++)\n", indent, "", depth,
              depth, t->array_len, depth);
    init_calls(g, out, t->elem, sb_str(&elem), depth + 1, indent + 4);
    tmp_free(g, &elem);
}

/* Checks what gen_struct and the ordering rely on. */
static bool struct_valid(gen *g, const fbe_ir_struct *s)
{
    g->cur_struct = s;
    g->cur_field = NULL;
    bool ok = true;
    if (!s->c_name || !s->full_name) {
        gen_error(g, "struct without a name in the IR");
        ok = false;
    }
    if (s->base && !s->base->c_name) {
        gen_error(g, "base struct without a C name");
        ok = false;
    }
    if (s->own_field_start > s->field_count || (s->field_count && !s->fields)) {
        gen_error(g, "own_field_start %zu is beyond field_count %zu", s->own_field_start,
                  s->field_count);
        return false;
    }
    for (size_t i = 0; i < s->field_count; i++) {
        g->cur_field = &s->fields[i];
        if (!s->fields[i].type || !s->fields[i].c_name) {
            gen_error(g, "field without a type or C name in the IR");
            ok = false;
        }
    }
    g->cur_struct = NULL;
    g->cur_field = NULL;
    return ok;
}

static void gen_struct(gen *g, sbuf *out, const fbe_ir_struct *s)
{
    g->cur_struct = s;
    g->cur_field = NULL;
    const char *S = s->c_name;
    size_t own = s->field_count - s->own_field_start;
    bool *named = calloc(own ? own : 1, sizeof *named);
    if (!named) {
        g->oom = true;
        return;
    }

    /* Declaration. */
    sb_printf(out, "/* %s %s", s->is_message ? "message" : "struct", s->full_name);
    if (s->base)
        sb_printf(out, " : %s", s->base->full_name);
    sb_printf(out, ", type number %" PRIu32 "%s */\n", s->type_number,
              s->deprecated ? " (deprecated)" : "");
    sb_printf(out, "#define %s_TYPE %" PRIu32 "u\n", S, s->type_number);
    for (size_t i = 0; i < own; i++) {
        const fbe_ir_field *f = &s->fields[s->own_field_start + i];
        const fbe_ir_type *t = f->type;
        named[i] = is_map(t) && (!type_complete(g, t->key) || !type_complete(g, t->elem));
        if (named[i]) {
            sbuf name = {0};
            entry_name(&name, s, f);
            sb_printf(out, "typedef struct %s %s;\n", sb_str(&name), sb_str(&name));
            tmp_free(g, &name);
        }
    }
    sb_printf(out, "struct %s {\n", S);
    if (s->base)
        sb_printf(out, "    %s base;\n", s->base->c_name);
    else if (s->field_count == 0)
        sb_puts(out, "    uint8_t fbe_empty_;\n");
    for (size_t i = 0; i < own; i++) {
        const fbe_ir_field *f = &s->fields[s->own_field_start + i];
        g->cur_field = f;
        check_hidden_layout(g, f->type);
        sb_puts(out, "    ");
        if (named[i]) {
            sb_puts(out, "struct { ");
            entry_name(out, s, f);
            sb_printf(out, " *data; size_t size; } %s", f->c_name);
        } else {
            spell(g, out, f->type, f->c_name);
        }
        sb_putc(out, ';');
        if (f->is_key || f->deprecated || f->hidden)
            sb_printf(out, " /*%s%s%s */", f->is_key ? " [key]" : "",
                      f->deprecated ? " [deprecated]" : "", f->hidden ? " [hidden]" : "");
        sb_putc(out, '\n');
    }
    g->cur_field = NULL;
    sb_puts(out, "};\n");
    ptrdiff_t index = struct_index(g, s);
    if (index >= 0)
        g->done[index] = true;

    /* Layout pinned to the IR. */
    sb_printf(out, "_Static_assert(sizeof(%s) == %" PRIu32 ", \"%s size\");\n", S,
              s->host_size, S);
    sb_printf(out, "_Static_assert(_Alignof(%s) == %" PRIu32 ", \"%s alignment\");\n", S,
              s->host_align, S);
    if (s->base)
        sb_printf(out, "_Static_assert(offsetof(%s, base) == 0, \"%s base offset\");\n", S, S);
    for (size_t i = 0; i < s->field_count; i++) {
        const fbe_ir_field *f = &s->fields[i];
        bool inherited = i < s->own_field_start;
        g->cur_field = f;
        sbuf path = {0};
        if (member_prefix(g, s, f, &path)) {
            sb_puts(&path, f->c_name);
            field_asserts(g, out, s, f, sb_str(&path), inherited,
                          !inherited && named[i - s->own_field_start]);
        }
        tmp_free(g, &path);
        if (!inherited && named[i - s->own_field_start])
            named_entry_definition(g, s, f);
    }
    g->cur_field = NULL;

    /* Initialisation to the schema defaults. */
    sb_printf(out, "static inline void %s_init(%s *value)\n{\n", S, S);
    sb_puts(out, "    memset(value, 0, sizeof *value);\n");
    if (s->base)
        sb_printf(out, "    %s_init(&value->base);\n", s->base->c_name);
    for (size_t i = s->own_field_start; i < s->field_count; i++) {
        const fbe_ir_field *f = &s->fields[i];
        g->cur_field = f;
        const fbe_ir_type *t = f->type;
        const fbe_ir_value *v = &f->default_value;
        sbuf lv = {0};
        sb_printf(&lv, "value->%s", f->c_name);
        if (needs_init(t))
            init_calls(g, out, t, sb_str(&lv), 0, 4);
        if (v->kind == FBE_IR_VALUE_NULL && t->kind != FBE_IR_OPTIONAL) {
            gen_error(g, "null default for a field of type %s", kind_name(t->kind));
        } else if (v->kind != FBE_IR_VALUE_NONE && v->kind != FBE_IR_VALUE_NULL) {
            sbuf expr = {0};
            if (t->kind == FBE_IR_OPTIONAL && !is_struct_optional(t) && t->elem) {
                if (value_expr(g, &expr, t->elem, v))
                    sb_printf(out, "    %s.has_value = true;\n    %s.value = %s;\n",
                              sb_str(&lv), sb_str(&lv), sb_str(&expr));
            } else if (value_expr(g, &expr, t, v)) {
                sb_printf(out, "    %s = %s;\n", sb_str(&lv), sb_str(&expr));
            }
            tmp_free(g, &expr);
        }
        tmp_free(g, &lv);
    }
    g->cur_field = NULL;
    sb_puts(out, "}\n\n");
    g->cur_struct = NULL;
    free(named);
}

/* ---- protocol helpers (docs/protocol.md) ----------------------------------------------- */

static bool has_messages(const fbe_ir_package *pkg)
{
    for (size_t i = 0; i < pkg->struct_count; i++)
        if (pkg->structs[i]->is_message)
            return true;
    return false;
}

/* A helper name must not be a type of the package. */
static bool helper_clash(gen *g, const char *name)
{
    const fbe_ir_package *pkg = g->pkg;
    for (size_t i = 0; i < pkg->struct_count; i++)
        if (strcmp(pkg->structs[i]->c_name, name) == 0)
            return true;
    for (size_t i = 0; i < pkg->enum_count; i++)
        if (strcmp(pkg->enums[i]->c_name, name) == 0)
            return true;
    for (size_t i = 0; i < pkg->flags_count; i++)
        if (strcmp(pkg->flags[i]->c_name, name) == 0)
            return true;
    return false;
}

/* Typed wrappers over <fbe/protocol.h> for the package's messages: send, client
 * send and request helpers, and a handler table bound to a receiver. The type is
 * found by its full name, cached per sender. */
static void gen_protocol(gen *g, sbuf *out)
{
    const fbe_ir_package *pkg = g->pkg;
    const char *P = pkg->name;
    sbuf name = {0};
    sb_printf(&name, "%s_handlers", P);
    if (helper_clash(g, sb_str(&name)))
        gen_error(g, "the protocol handler table %s clashes with a type of the package",
                  sb_str(&name));
    name.len = 0;
    sb_printf(&name, "%s_receiver_bind", P);
    if (helper_clash(g, sb_str(&name)))
        gen_error(g, "the protocol helper %s clashes with a type of the package",
                  sb_str(&name));
    sb_puts(out, "/* Protocol helpers over <fbe/protocol.h> (docs/protocol.md). */\n");
    for (size_t i = 0; i < pkg->struct_count; i++) {
        const fbe_ir_struct *s = pkg->structs[i];
        if (!s->is_message)
            continue;
        const char *S = s->c_name;
        const char *const helpers[] = {"send", "client_send", "request", "on"};
        for (size_t k = 0; k < sizeof helpers / sizeof helpers[0]; k++) {
            name.len = 0;
            sb_printf(&name, "%s_%s_%s", P, helpers[k], s->name);
            if (helper_clash(g, sb_str(&name)))
                gen_error(g, "the protocol helper %s clashes with a type of the package",
                          sb_str(&name));
        }
        sb_printf(out,
                  "static inline fbe_status %s_send_%s(fbe_sender *sender, const %s *value)\n"
                  "{\n    return fbe_sender_send_named(sender, \"%s\", value, NULL);\n}\n\n",
                  P, s->name, S, s->full_name);
        sb_printf(out,
                  "static inline fbe_status %s_client_send_%s(fbe_client *client, const %s *value)\n"
                  "{\n    return fbe_client_send_named(client, \"%s\", value, NULL);\n}\n\n",
                  P, s->name, S, s->full_name);
        if (s->is_request && s->response)
            sb_printf(out, "/* [request]: done gets the %s response, a reject, a timeout, a reset or\n"
                           " * a send failure. */\n",
                      s->response->full_name);
        else if (s->is_request)
            sb_puts(out, "/* [request] without [response]: done reports the send. */\n");
        if (s->is_request)
            sb_printf(out,
                      "static inline fbe_status %s_request_%s(fbe_client *client, const %s *value,\n"
                      "                                      uint64_t timeout_ms, fbe_request_fn done, void *ctx)\n"
                      "{\n    return fbe_client_request_named(client, \"%s\", value, timeout_ms, done, ctx);\n}\n\n",
                      P, s->name, S, s->full_name);
    }
    sb_printf(out, "/* One handler per message of package %s (NULL: not handled). A value and\n"
                   " * what it points to live until the handler returns. */\n"
                   "typedef struct %s_handlers {\n    void *ctx;\n", P, P);
    for (size_t i = 0; i < pkg->struct_count; i++) {
        const fbe_ir_struct *s = pkg->structs[i];
        if (s->is_message)
            sb_printf(out, "    void (*on_%s)(void *ctx, const %s *value);\n", s->name, s->c_name);
    }
    sb_printf(out, "} %s_handlers;\n\n", P);
    for (size_t i = 0; i < pkg->struct_count; i++) {
        const fbe_ir_struct *s = pkg->structs[i];
        if (!s->is_message)
            continue;
        sb_printf(out,
                  "static inline void %s_on_%s(void *handlers, const fbe_type *type, const void *value)\n"
                  "{\n    const %s_handlers *h = (const %s_handlers *)handlers;\n    (void)type;\n"
                  "    h->on_%s(h->ctx, (const %s *)value);\n}\n\n",
                  P, s->name, P, P, s->name, s->c_name);
    }
    sb_printf(out,
              "/* Registers every non-NULL handler of *handlers (which must outlive the\n"
              " * receiver) with fbe_receiver_on. Stops at the first error. */\n"
              "static inline fbe_status %s_receiver_bind(fbe_receiver *receiver, %s_handlers *handlers)\n"
              "{\n    fbe_status st = FBE_OK;\n",
              P, P);
    for (size_t i = 0; i < pkg->struct_count; i++) {
        const fbe_ir_struct *s = pkg->structs[i];
        if (s->is_message)
            sb_printf(out,
                      "    if (st == FBE_OK && handlers->on_%s)\n"
                      "        st = fbe_receiver_on_named(receiver, \"%s\", %s_on_%s, handlers);\n",
                      s->name, s->full_name, P, s->name);
    }
    sb_puts(out, "    return st;\n}\n\n");
    tmp_free(g, &name);
}

/* ---- the header ---------------------------------------------------------------------------- */

static void guard_name(sbuf *sb, const char *pkg)
{
    sb_puts(sb, "FBE_GENERATED_");
    for (const char *p = pkg; *p; p++) {
        char c = *p;
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            c = '_';
        sb_putc(sb, c);
    }
    sb_puts(sb, "_H");
}

bool fbe_gen_header(const fbe_schema *schema, const fbe_ir_package *pkg, FILE *out)
{
    (void)schema; /* everything needed is reachable from the package */
    gen g = {.pkg = pkg};
    if (!pkg || !pkg->name) {
        fputs("fbec header: error: no package\n", stderr);
        return false;
    }

    sbuf body = {0};
    for (size_t i = 0; i < pkg->enum_count; i++) {
        const fbe_ir_enum *e = pkg->enums[i];
        gen_enum_like(&g, &body, "enum", e->full_name, e->c_name, e->base, e->values,
                      e->value_count, e->deprecated);
    }
    for (size_t i = 0; i < pkg->flags_count; i++) {
        const fbe_ir_flags *f = pkg->flags[i];
        gen_enum_like(&g, &body, "flags", f->full_name, f->c_name, f->base, f->values,
                      f->value_count, f->deprecated);
    }
    if (pkg->struct_count) {
        for (size_t i = 0; i < pkg->struct_count; i++)
            sb_printf(&body, "typedef struct %s %s;\n", pkg->structs[i]->c_name,
                      pkg->structs[i]->c_name);
        sb_putc(&body, '\n');
    }
    bool structs_ok = true;
    for (size_t i = 0; i < pkg->struct_count; i++)
        structs_ok = struct_valid(&g, pkg->structs[i]) && structs_ok;
    g.done = calloc(pkg->struct_count ? pkg->struct_count : 1, sizeof *g.done);
    if (!g.done)
        g.oom = true;
    for (size_t n = 0; structs_ok && g.done && n < pkg->struct_count; n++) {
        size_t i = 0;
        while (i < pkg->struct_count && (g.done[i] || !struct_ready(&g, pkg->structs[i])))
            i++;
        if (i == pkg->struct_count) {
            gen_error(&g, "structs of package %s contain each other by value", pkg->name);
            break;
        }
        gen_struct(&g, &body, pkg->structs[i]);
    }
    if (g.tail.len) {
        sb_puts(&body, "/* Types and checks that need structs completed above. */\n");
        sb_putn(&body, sb_str(&g.tail), g.tail.len);
        sb_putc(&body, '\n');
    }
    if (structs_ok && pkg->struct_count) {
        char *keys = fbe_gen_header_keys(pkg);
        if (keys)
            sb_puts(&body, keys);
        else
            g.oom = true;
        free(keys);
    }
    bool protocol = structs_ok && has_messages(pkg);
    if (protocol)
        gen_protocol(&g, &body);

    sbuf text = {0};
    sbuf guard = {0};
    guard_name(&guard, pkg->name);
    sb_puts(&text, "/* Generated by fbec from ");
    comment_text(&text, base_name(pkg->path));
    sb_puts(&text, " (package ");
    comment_text(&text, pkg->name);
    sb_puts(&text, ") - do not edit.\n"
                   " * Host representation of FBE values: see docs/host-abi.md.\n"
                   " * Imported package P is declared in \"P.h\". */\n");
    sb_printf(&text, "#ifndef %s\n#define %s\n\n", sb_str(&guard), sb_str(&guard));
    if (g.needs_math)
        sb_puts(&text, "#include <math.h>\n");
    sb_puts(&text, "#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n"
                   "#include <string.h>\n\n#include <fbe/types.h>\n#include <fbe/value.h>\n\n");
    if (protocol)
        sb_puts(&text, "#include <fbe/protocol.h>\n\n");
    for (size_t i = 0; i < pkg->import_count; i++)
        sb_printf(&text, "#include \"%s.h\"\n", pkg->imports[i]->name);
    if (pkg->import_count)
        sb_putc(&text, '\n');
    /* C++ (17 and later) sees the same declarations with C linkage; it spells the
     * C11 layout checks static_assert and alignof, and a compound literal T{...}. */
    sb_puts(&text, "#ifndef FBE_LITERAL\n#ifdef __cplusplus\n#define FBE_LITERAL(T) T\n#else\n"
                   "#define FBE_LITERAL(T) (T)\n#endif\n#endif\n"
                   "#ifdef __cplusplus\n#ifndef _Static_assert\n#define _Static_assert static_assert\n"
                   "#endif\n#ifndef _Alignof\n#define _Alignof alignof\n#endif\n"
                   "extern \"C\" {\n#endif\n\n");
    sb_printf(&text, "#define %s_VERSION_MAJOR %" PRIu32 "\n", pkg->name, pkg->version_major);
    sb_printf(&text, "#define %s_VERSION_MINOR %" PRIu32 "\n\n", pkg->name, pkg->version_minor);
    sb_putn(&text, sb_str(&body), body.len);
    sb_puts(&text, "#ifdef __cplusplus\n}\n#endif\n\n");
    sb_printf(&text, "#endif /* %s */\n", sb_str(&guard));

    bool ok = !g.failed;
    if (g.oom || g.tail.oom || text.oom || body.oom || guard.oom) {
        fputs("fbec header: error: out of memory\n", stderr);
        ok = false;
    }
    if (ok && fwrite(text.data, 1, text.len, out) != text.len)
        ok = false; /* reported by the caller when it closes the stream */
    sb_free(&text);
    sb_free(&body);
    sb_free(&guard);
    sb_free(&g.tail);
    free(g.done);
    return ok;
}
