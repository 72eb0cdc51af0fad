/* fbec compat's rules (docs/compat.md). Two versions of a package are compared
 * type by type, matched by name; fields are paired by position in the binary
 * models (the wire is positional: an inline part sits at the offset ir/layout.c
 * computed) and by name in JSON (members are looked up by name). Every finding
 * says what a reader of the other version sees. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"

#define BOTH (FBE_COMPAT_OLD_READER | FBE_COMPAT_NEW_READER)

typedef struct pair {
    const void *old_type, *new_type;
} pair;

typedef struct ctx {
    const fbe_compat_options *opt;
    const fbe_ir_package *old_pkg, *new_pkg;
    fbe_compat_sources *sources;
    fbe_compat_result *res;
    size_t cap;
    pair *done; /* struct, enum and flags pairs already compared */
    size_t done_count, done_cap;
    size_t struct_errors; /* errors before the fields of the struct being compared */
    bool oom;
} ctx;

/* ---- findings ------------------------------------------------------------------ */

static const char *directions(unsigned breaks)
{
    switch (breaks & BOTH) {
    case FBE_COMPAT_OLD_READER: return "old reader/new writer";
    case FBE_COMPAT_NEW_READER: return "new reader/old writer";
    default: return "old reader/new writer and new reader/old writer";
    }
}

#if defined(__GNUC__)
__attribute__((format(printf, 7, 8)))
#endif
static void add(ctx *c, fbe_compat_severity sev, unsigned breaks, bool in_old,
                fbe_ir_source_loc loc, const char *type, const char *fmt, ...)
{
    fbe_compat_result *r = c->res;
    if (r->count == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        fbe_compat_finding *f = realloc(r->findings, cap * sizeof *f);
        if (!f) {
            c->oom = true;
            return;
        }
        r->findings = f;
        c->cap = cap;
    }
    fbe_compat_finding *f = &r->findings[r->count];
    memset(f, 0, sizeof *f);
    f->severity = sev;
    f->breaks = sev == FBE_COMPAT_ERROR ? (breaks ? breaks & BOTH : BOTH) : 0;
    f->in_old = in_old;
    f->loc = loc;
    f->type = type;
    f->seq = r->count;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
    if (sev == FBE_COMPAT_ERROR && n >= 0 && (size_t)n < sizeof f->message)
        snprintf(f->message + n, sizeof f->message - (size_t)n, " (breaks %s)",
                 directions(f->breaks));
    r->count++;
    switch (sev) {
    case FBE_COMPAT_ERROR: r->errors++; r->breaks |= f->breaks; break;
    case FBE_COMPAT_WARNING: r->warnings++; break;
    case FBE_COMPAT_NOTE: r->notes++; break;
    }
}

/* True the first time a pair is seen: each pair is compared once, however many
 * fields reach it (and recursion through a type's own fields ends). */
static bool first_visit(ctx *c, const void *o, const void *n)
{
    for (size_t i = 0; i < c->done_count; i++)
        if (c->done[i].old_type == o && c->done[i].new_type == n)
            return false;
    if (c->done_count == c->done_cap) {
        size_t cap = c->done_cap ? c->done_cap * 2 : 32;
        pair *p = realloc(c->done, cap * sizeof *p);
        if (!p) {
            c->oom = true;
            return false;
        }
        c->done = p;
        c->done_cap = cap;
    }
    c->done[c->done_count++] = (pair){o, n};
    return true;
}

/* ---- spelling of types and values ---------------------------------------------- */

static const char *spell(const fbe_ir_type *t, char *buf, size_t size)
{
    fbe_ir_type_spelling(t, buf, size);
    return buf;
}

static void format_int(uint64_t bits, fbe_ir_kind kind, char *buf, size_t size)
{
    if (fbe_ir_kind_is_signed(kind))
        snprintf(buf, size, "%" PRId64, (int64_t)bits);
    else
        snprintf(buf, size, "%" PRIu64, bits);
}

static void format_value(const fbe_ir_value *v, const fbe_ir_type *t, char *buf, size_t size)
{
    switch (v->kind) {
    case FBE_IR_VALUE_NONE: snprintf(buf, size, "none"); break;
    case FBE_IR_VALUE_NULL: snprintf(buf, size, "null"); break;
    case FBE_IR_VALUE_BOOL: snprintf(buf, size, "%s", v->b ? "true" : "false"); break;
    case FBE_IR_VALUE_INT: format_int(v->u, fbe_ir_int_kind(t), buf, size); break;
    case FBE_IR_VALUE_FLOAT: {
        /* the shortest of %g's precisions that reads back exactly */
        for (int p = 6; p <= 17; p++) {
            snprintf(buf, size, "%.*g", p, v->d);
            if (strtod(buf, NULL) == v->d)
                break;
        }
        break;
    }
    case FBE_IR_VALUE_DECIMAL: snprintf(buf, size, "%.6f", fbe_decimal_to_double(&v->dec)); break;
    case FBE_IR_VALUE_STRING: snprintf(buf, size, "\"%.60s\"", v->str.data ? v->str.data : ""); break;
    case FBE_IR_VALUE_UUID: {
        char text[37];
        fbe_uuid_format(&v->uuid, text);
        snprintf(buf, size, "uuid \"%s\"", text);
        break;
    }
    case FBE_IR_VALUE_UUID1: snprintf(buf, size, "uuid1"); break;
    case FBE_IR_VALUE_UUID4: snprintf(buf, size, "uuid4"); break;
    case FBE_IR_VALUE_UTC: snprintf(buf, size, "utc"); break;
    }
}

static bool same_value(const fbe_ir_value *a, const fbe_ir_value *b)
{
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case FBE_IR_VALUE_BOOL: return a->b == b->b;
    case FBE_IR_VALUE_INT: return a->u == b->u;
    case FBE_IR_VALUE_FLOAT: return memcmp(&a->d, &b->d, sizeof a->d) == 0;
    case FBE_IR_VALUE_DECIMAL:
        return a->dec.lo == b->dec.lo && a->dec.hi == b->dec.hi && a->dec.flags == b->dec.flags;
    case FBE_IR_VALUE_STRING:
        return a->str.size == b->str.size &&
               (a->str.size == 0 || memcmp(a->str.data, b->str.data, a->str.size) == 0);
    case FBE_IR_VALUE_UUID: return memcmp(&a->uuid, &b->uuid, sizeof a->uuid) == 0;
    default: return true;
    }
}

/* ---- enums and flags ----------------------------------------------------------- */

static const fbe_ir_enum_value *value_named(const fbe_ir_enum_value *v, size_t n,
                                            const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return &v[i];
    return NULL;
}

static const fbe_ir_enum_value *value_numbered(const fbe_ir_enum_value *v, size_t n,
                                               uint64_t value)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].value == value)
            return &v[i];
    return NULL;
}

typedef struct named_values {
    const char *what; /* "enum" or "flags" */
    const char *name;
    fbe_ir_kind base;
    const fbe_ir_enum_value *values;
    size_t count;
    fbe_ir_source_loc loc;
} named_values;

static fbe_ir_source_loc value_loc(ctx *c, const named_values *e, const char *name)
{
    fbe_ir_source_loc loc = e->loc;
    fbe_compat_find_member(c->sources, &e->loc, name, &loc);
    return loc;
}

/* Values travel as numbers (binary models and JSON): a value keeps its meaning
 * when its name keeps its number. */
static void compare_values(ctx *c, const named_values *o, const named_values *n)
{
    char a[32], b[32];
    if (o->base != n->base) {
        /* the field's inline size decides whether this breaks; here only the meaning */
        add(c, FBE_COMPAT_WARNING, 0, false, n->loc, n->name,
            "base of %s '%s' changed from %s to %s: values are reinterpreted", n->what,
            n->name, fbe_ir_kind_name(o->base), fbe_ir_kind_name(n->base));
    }
    for (size_t i = 0; i < o->count; i++) {
        const fbe_ir_enum_value *ov = &o->values[i];
        const fbe_ir_enum_value *nv = value_named(n->values, n->count, ov->name);
        if (nv) {
            if (nv->value != ov->value) {
                format_int(ov->value, o->base, a, sizeof a);
                format_int(nv->value, n->base, b, sizeof b);
                add(c, FBE_COMPAT_ERROR, BOTH, false, value_loc(c, n, nv->name), n->name,
                    "value '%s' of %s '%s' renumbered from %s to %s: the other side reads "
                    "another value", nv->name, n->what, n->name, a, b);
            }
            continue;
        }
        nv = value_numbered(n->values, n->count, ov->value);
        if (nv && !value_named(o->values, o->count, nv->name)) {
            add(c, FBE_COMPAT_WARNING, 0, false, value_loc(c, n, nv->name), n->name,
                "value '%s' of %s '%s' renamed to '%s': same number, the text form changes",
                ov->name, n->what, n->name, nv->name);
            continue;
        }
        format_int(ov->value, o->base, a, sizeof a);
        add(c, FBE_COMPAT_WARNING, 0, true, value_loc(c, o, ov->name), o->name,
            "value '%s' (%s) of %s '%s' removed: new readers of old data keep %s as an "
            "unknown number", ov->name, a, o->what, o->name, a);
    }
    for (size_t i = 0; i < n->count; i++) {
        const fbe_ir_enum_value *nv = &n->values[i];
        if (value_named(o->values, o->count, nv->name))
            continue;
        const fbe_ir_enum_value *ov = value_numbered(o->values, o->count, nv->value);
        if (ov && !value_named(n->values, n->count, ov->name))
            continue; /* a rename, reported above */
        format_int(nv->value, n->base, a, sizeof a);
        add(c, FBE_COMPAT_NOTE, 0, false, value_loc(c, n, nv->name), n->name,
            "value '%s' (%s) added to %s '%s': old readers keep it as an unknown number",
            nv->name, a, n->what, n->name);
    }
}

static named_values enum_values(const fbe_ir_enum *e)
{
    return (named_values){"enum", e->name, e->base, e->values, e->value_count, e->loc};
}

static named_values flags_values(const fbe_ir_flags *f)
{
    return (named_values){"flags", f->name, f->base, f->values, f->value_count, f->loc};
}

static void compare_enum(ctx *c, const fbe_ir_enum *o, const fbe_ir_enum *n)
{
    if (!first_visit(c, o, n))
        return;
    named_values a = enum_values(o), b = enum_values(n);
    compare_values(c, &a, &b);
}

static void compare_flags(ctx *c, const fbe_ir_flags *o, const fbe_ir_flags *n)
{
    if (!first_visit(c, o, n))
        return;
    named_values a = flags_values(o), b = flags_values(n);
    compare_values(c, &a, &b);
}

/* ---- types ------------------------------------------------------------------- */

typedef struct verdict {
    fbe_compat_severity sev; /* NOTE: nothing to say about the field itself */
    unsigned breaks;
    const char *why;         /* what a warning or error means */
} verdict;

static void compare_struct(ctx *c, const fbe_ir_struct *o, const fbe_ir_struct *n);

static bool integer_like(fbe_ir_kind k)
{
    return fbe_ir_kind_is_integer(k) || k == FBE_IR_BOOL || k == FBE_IR_ENUM ||
           k == FBE_IR_FLAGS || k == FBE_IR_TIMESTAMP;
}

static bool sequence(fbe_ir_kind k)
{
    return k == FBE_IR_ARRAY || k == FBE_IR_VECTOR || k == FBE_IR_LIST || k == FBE_IR_SET;
}

static bool mapping(fbe_ir_kind k)
{
    return fbe_ir_kind_is_keyed(k);
}

/* JSON's kind of value for a type (wire-format.md 8). */
typedef enum json_class { J_BOOL, J_INT, J_FLOAT, J_TEXT, J_BASE64, J_OBJECT, J_ARRAY } json_class;

static json_class json_of(fbe_ir_kind k)
{
    switch (k) {
    case FBE_IR_BOOL: return J_BOOL;
    case FBE_IR_FLOAT:
    case FBE_IR_DOUBLE: return J_FLOAT;
    case FBE_IR_STRING:
    case FBE_IR_DECIMAL:
    case FBE_IR_UUID: return J_TEXT;
    case FBE_IR_BYTES: return J_BASE64;
    case FBE_IR_STRUCT:
    case FBE_IR_MAP:
    case FBE_IR_HASH: return J_OBJECT;
    case FBE_IR_ARRAY:
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET: return J_ARRAY;
    default: return J_INT;
    }
}

static verdict worst(verdict a, verdict b)
{
    if (b.sev > a.sev)
        return b;
    if (b.sev == a.sev && b.sev == FBE_COMPAT_ERROR)
        a.breaks |= b.breaks;
    return a;
}

#define SAME ((verdict){FBE_COMPAT_NOTE, 0, NULL})

static verdict type_verdict(ctx *c, const fbe_ir_type *o, const fbe_ir_type *n);

/* Same kind on both sides: what the parts inside decide. */
static verdict same_kind(ctx *c, const fbe_ir_type *o, const fbe_ir_type *n)
{
    bool json = c->opt->model == FBE_COMPAT_JSON;
    switch (o->kind) {
    case FBE_IR_ENUM:
        compare_enum(c, o->enum_type, n->enum_type);
        break;
    case FBE_IR_FLAGS:
        compare_flags(c, o->flags_type, n->flags_type);
        break;
    case FBE_IR_STRUCT:
        /* reached through an offset (standard) or inline (final): its own
         * findings are reported at its own fields */
        compare_struct(c, o->struct_type, n->struct_type);
        return SAME;
    case FBE_IR_OPTIONAL:
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
        return type_verdict(c, o->elem, n->elem);
    case FBE_IR_ARRAY:
        if (o->array_len != n->array_len) {
            verdict v = type_verdict(c, o->elem, n->elem);
            if (json)
                return worst(v, (verdict){FBE_COMPAT_WARNING, 0,
                                          "a longer JSON array fills only the reader's length"});
            return worst(v, (verdict){FBE_COMPAT_ERROR, BOTH, "array length changed"});
        }
        return type_verdict(c, o->elem, n->elem);
    case FBE_IR_MAP:
    case FBE_IR_HASH:
        return worst(type_verdict(c, o->key, n->key), type_verdict(c, o->elem, n->elem));
    default:
        break;
    }
    if (o->std_inline_size != n->std_inline_size && c->opt->model == FBE_COMPAT_STANDARD)
        return (verdict){FBE_COMPAT_ERROR, BOTH, "its size changed"};
    if (o->final_size != n->final_size && c->opt->model == FBE_COMPAT_FINAL)
        return (verdict){FBE_COMPAT_ERROR, BOTH, "its size changed"};
    return SAME;
}

static verdict type_verdict(ctx *c, const fbe_ir_type *o, const fbe_ir_type *n)
{
    if (o->kind == n->kind)
        return same_kind(c, o, n);
    switch (c->opt->model) {
    case FBE_COMPAT_FINAL:
        /* no versioning: every other kind is another encoding or another meaning */
        return (verdict){FBE_COMPAT_ERROR, BOTH, NULL};
    case FBE_COMPAT_JSON:
        if (n->kind == FBE_IR_OPTIONAL && o->kind != FBE_IR_OPTIONAL) {
            verdict v = type_verdict(c, o, n->elem);
            return worst(v, (verdict){FBE_COMPAT_ERROR, FBE_COMPAT_OLD_READER,
                                      "old readers refuse null"});
        }
        if (o->kind == FBE_IR_OPTIONAL && n->kind != FBE_IR_OPTIONAL) {
            verdict v = type_verdict(c, o->elem, n);
            return worst(v, (verdict){FBE_COMPAT_ERROR, FBE_COMPAT_NEW_READER,
                                      "new readers refuse null"});
        }
        if (json_of(o->kind) != json_of(n->kind))
            return (verdict){FBE_COMPAT_ERROR, BOTH, "another kind of JSON value"};
        if (sequence(o->kind) && sequence(n->kind))
            return worst(type_verdict(c, o->elem, n->elem),
                         (verdict){FBE_COMPAT_WARNING, 0, "same JSON array, another collection"});
        if (mapping(o->kind) && mapping(n->kind))
            return worst(worst(type_verdict(c, o->key, n->key), type_verdict(c, o->elem, n->elem)),
                         (verdict){FBE_COMPAT_WARNING, 0, "same JSON object, another collection"});
        if (json_of(o->kind) == J_OBJECT)
            return (verdict){FBE_COMPAT_ERROR, BOTH, "another kind of JSON object"};
        return (verdict){FBE_COMPAT_WARNING, 0, "same kind of JSON value: values are converted"};
    case FBE_COMPAT_STANDARD:
        break;
    }
    if (integer_like(o->kind) && integer_like(n->kind)) {
        if (o->std_inline_size != n->std_inline_size)
            return (verdict){FBE_COMPAT_ERROR, BOTH, "its size changed"};
        /* a bool reads any non-zero byte as true: the other values are lost on the
         * side that reads a bool */
        if (o->kind == FBE_IR_BOOL || n->kind == FBE_IR_BOOL)
            return (verdict){FBE_COMPAT_ERROR,
                             n->kind == FBE_IR_BOOL ? FBE_COMPAT_NEW_READER : FBE_COMPAT_OLD_READER,
                             "a bool reads every other value as true"};
        if (o->kind == FBE_IR_ENUM && n->kind == FBE_IR_ENUM)
            compare_enum(c, o->enum_type, n->enum_type);
        return (verdict){FBE_COMPAT_WARNING, 0, "same size: the bytes are reinterpreted"};
    }
    if ((o->kind == FBE_IR_STRING && n->kind == FBE_IR_BYTES) ||
        (o->kind == FBE_IR_BYTES && n->kind == FBE_IR_STRING))
        return (verdict){FBE_COMPAT_WARNING, 0, "same binary form; JSON and the text form change"};
    if (sequence(o->kind) && sequence(n->kind) && o->kind != FBE_IR_ARRAY &&
        n->kind != FBE_IR_ARRAY)
        return worst(type_verdict(c, o->elem, n->elem),
                     (verdict){FBE_COMPAT_WARNING, 0,
                               "same binary form; order and uniqueness change"});
    if (mapping(o->kind) && mapping(n->kind))
        return worst(worst(type_verdict(c, o->key, n->key), type_verdict(c, o->elem, n->elem)),
                     (verdict){FBE_COMPAT_WARNING, 0, "same binary form; the order changes"});
    return (verdict){FBE_COMPAT_ERROR, BOTH, NULL};
}

/* ---- fields ---------------------------------------------------------------------- */

static long index_named(const fbe_ir_struct *st, const char *name)
{
    for (size_t i = 0; i < st->field_count; i++)
        if (strcmp(st->fields[i].name, name) == 0)
            return (long)i;
    return -1;
}

/* A field both versions have (by name in JSON, by position otherwise). */
static void compare_pair(ctx *c, const fbe_ir_struct *os, const fbe_ir_struct *ns,
                         const fbe_ir_field *of, const fbe_ir_field *nf)
{
    char a[128], b[128];
    verdict v = type_verdict(c, of->type, nf->type);
    bool renamed = strcmp(of->name, nf->name) != 0;
    if (v.sev != FBE_COMPAT_NOTE) {
        char what[160];
        if (renamed)
            snprintf(what, sizeof what, "field '%s' of '%s' replaced field '%s'", nf->name,
                     ns->name, of->name);
        else
            snprintf(what, sizeof what, "field '%s' of '%s'", nf->name, ns->name);
        add(c, v.sev, v.breaks, false, nf->loc, ns->name, "%s changed type from '%s' to '%s'%s%s",
            what, spell(of->type, a, sizeof a), spell(nf->type, b, sizeof b), v.why ? ": " : "",
            v.why ? v.why : "");
        if (v.sev == FBE_COMPAT_ERROR)
            return;
    } else if (renamed) {
        if (c->opt->model == FBE_COMPAT_JSON)
            add(c, FBE_COMPAT_ERROR, BOTH, false, nf->loc, ns->name,
                "field '%s' of '%s' renamed to '%s': readers miss the member", of->name,
                ns->name, nf->name);
        else
            add(c, FBE_COMPAT_WARNING, 0, false, nf->loc, ns->name,
                "field '%s' of '%s' renamed to '%s': same binary form, the JSON member name "
                "changes", of->name, ns->name, nf->name);
    }
    if (c->opt->model != FBE_COMPAT_JSON && of->std_offset != nf->std_offset &&
        c->opt->model == FBE_COMPAT_STANDARD && c->res->errors == c->struct_errors)
        add(c, FBE_COMPAT_ERROR, BOTH, false, nf->loc, ns->name,
            "field '%s' of '%s' moved from offset %" PRIu32 " to %" PRIu32, nf->name, ns->name,
            of->std_offset, nf->std_offset);
    if (!same_value(&of->default_value, &nf->default_value)) {
        format_value(&of->default_value, of->type, a, sizeof a);
        format_value(&nf->default_value, nf->type, b, sizeof b);
        add(c, FBE_COMPAT_WARNING, 0, false, nf->loc, ns->name,
            "default of field '%s' of '%s' changed from %s to %s: %s", nf->name, ns->name, a, b,
            c->opt->model == FBE_COMPAT_FINAL ? "new values start from another value"
                                              : "readers of data without it see another value");
    }
    if (of->is_key != nf->is_key)
        add(c, FBE_COMPAT_WARNING, 0, false, nf->loc, ns->name,
            "field '%s' of '%s' %s a key: equality and the order of sets and maps of '%s' "
            "change", nf->name, ns->name, nf->is_key ? "became" : "is no longer", ns->name);
    (void)os;
}

static void field_added(ctx *c, const fbe_ir_struct *ns, const fbe_ir_field *nf, bool at_end)
{
    char d[128];
    switch (c->opt->model) {
    case FBE_COMPAT_FINAL:
        add(c, FBE_COMPAT_ERROR, BOTH, false, nf->loc, ns->name,
            "field '%s' added to '%s': the final model has no versioning", nf->name, ns->name);
        return;
    case FBE_COMPAT_JSON:
        break;
    case FBE_COMPAT_STANDARD:
        if (!at_end) {
            add(c, FBE_COMPAT_ERROR, BOTH, false, nf->loc, ns->name,
                "field '%s' inserted into '%s' before existing fields: the fields after it "
                "move", nf->name, ns->name);
            return;
        }
        break;
    }
    if (nf->default_value.kind == FBE_IR_VALUE_NONE)
        snprintf(d, sizeof d, "its type's default");
    else {
        char v[100];
        format_value(&nf->default_value, nf->type, v, sizeof v);
        snprintf(d, sizeof d, "its default %s", v);
    }
    add(c, FBE_COMPAT_NOTE, 0, false, nf->loc, ns->name,
        "field '%s' added to '%s': old readers skip it, new readers of old data use %s",
        nf->name, ns->name, d);
}

static void field_removed(ctx *c, const fbe_ir_struct *os, const fbe_ir_field *of, bool at_end)
{
    switch (c->opt->model) {
    case FBE_COMPAT_FINAL:
        add(c, FBE_COMPAT_ERROR, BOTH, true, of->loc, os->name,
            "field '%s' removed from '%s': the final model has no versioning", of->name,
            os->name);
        return;
    case FBE_COMPAT_STANDARD:
        if (!at_end) {
            add(c, FBE_COMPAT_ERROR, BOTH, true, of->loc, os->name,
                "field '%s' removed from '%s' before its last field: the fields after it move",
                of->name, os->name);
            return;
        }
        break;
    case FBE_COMPAT_JSON:
        break;
    }
    add(c, FBE_COMPAT_WARNING, 0, true, of->loc, os->name,
        "field '%s' removed from '%s': old readers of new data see its default", of->name,
        os->name);
}

/* Binary models: the wire is positional. */
static void compare_fields_positional(ctx *c, const fbe_ir_struct *o, const fbe_ir_struct *n)
{
    size_t no = o->field_count, nn = n->field_count;
    size_t errors_before = c->res->errors, outer = c->struct_errors;
    /* a field's offset moves only when something before it changed, which is
     * reported already: "moved" alone is said when nothing else explains it */
    c->struct_errors = errors_before;
    for (size_t i = 0; i < no; i++) {
        const fbe_ir_field *of = &o->fields[i];
        long j = index_named(n, of->name);
        if (j == (long)i) {
            compare_pair(c, o, n, of, &n->fields[i]);
        } else if (j >= 0) {
            add(c, FBE_COMPAT_ERROR, BOTH, false, n->fields[j].loc, n->name,
                "field '%s' of '%s' moved from position %zu to %ld", of->name, n->name, i + 1,
                j + 1);
        } else if (i < nn && index_named(o, n->fields[i].name) < 0) {
            compare_pair(c, o, n, of, &n->fields[i]); /* renamed in place */
        } else {
            field_removed(c, o, of, i >= nn);
        }
    }
    for (size_t j = 0; j < nn; j++) {
        const fbe_ir_field *nf = &n->fields[j];
        if (index_named(o, nf->name) >= 0)
            continue;
        if (j < no && index_named(n, o->fields[j].name) < 0)
            continue; /* renamed in place, reported above */
        field_added(c, n, nf, j >= no);
    }
    /* The reference reads a derived struct's flattened base block only when all
     * of it fits in the body (wire-format.md 3.8): a base that grew past what
     * the other side's frames hold leaves the inherited fields unset. */
    if (c->opt->model == FBE_COMPAT_STANDARD && c->res->errors == errors_before) {
        if (n->base && n->own_field_start > 0) {
            const fbe_ir_field *last = &n->fields[n->own_field_start - 1];
            uint32_t end = last->std_offset + last->type->std_inline_size;
            if (end > o->std_body_size)
                add(c, FBE_COMPAT_ERROR, FBE_COMPAT_NEW_READER, false, n->loc, n->name,
                    "the base fields of '%s' end at byte %" PRIu32 ", past the %" PRIu32
                    " bytes of old data: the reference leaves every inherited field unset",
                    n->name, end, o->std_body_size);
        }
        if (o->base && o->own_field_start > 0) {
            const fbe_ir_field *last = &o->fields[o->own_field_start - 1];
            uint32_t end = last->std_offset + last->type->std_inline_size;
            if (end > n->std_body_size)
                add(c, FBE_COMPAT_ERROR, FBE_COMPAT_OLD_READER, true, o->loc, o->name,
                    "the base fields of old '%s' end at byte %" PRIu32 ", past the %" PRIu32
                    " bytes of new data: the reference leaves every inherited field unset",
                    o->name, end, n->std_body_size);
        }
    }
    c->struct_errors = outer;
}

/* JSON: members by name, in any order. */
static void compare_fields_by_name(ctx *c, const fbe_ir_struct *o, const fbe_ir_struct *n)
{
    for (size_t i = 0; i < o->field_count; i++) {
        const fbe_ir_field *of = &o->fields[i];
        long j = index_named(n, of->name);
        if (j >= 0)
            compare_pair(c, o, n, of, &n->fields[j]);
        else if (i < n->field_count && index_named(o, n->fields[i].name) < 0 &&
                 type_verdict(c, of->type, n->fields[i].type).sev == FBE_COMPAT_NOTE)
            compare_pair(c, o, n, of, &n->fields[i]); /* a rename: reported as one */
        else
            field_removed(c, o, of, true);
    }
    for (size_t j = 0; j < n->field_count; j++) {
        const fbe_ir_field *nf = &n->fields[j];
        if (index_named(o, nf->name) >= 0)
            continue;
        if (j < o->field_count && index_named(n, o->fields[j].name) < 0 &&
            type_verdict(c, o->fields[j].type, nf->type).sev == FBE_COMPAT_NOTE)
            continue;
        field_added(c, n, nf, true);
    }
}

/* ---- structs and the protocol ---------------------------------------------------- */

static const char *opt_name(const fbe_ir_struct *st)
{
    return st ? st->name : "(none)";
}

static bool has_reject(const fbe_ir_struct *st, const char *name)
{
    for (size_t i = 0; i < st->reject_count; i++)
        if (strcmp(st->rejects[i].type->name, name) == 0)
            return true;
    return false;
}

static void compare_protocol(ctx *c, const fbe_ir_struct *o, const fbe_ir_struct *n)
{
    if (o->is_message != n->is_message) {
        add(c, FBE_COMPAT_ERROR, n->is_message ? FBE_COMPAT_OLD_READER : FBE_COMPAT_NEW_READER,
            false, n->loc, n->name, "'%s' %s: %s receivers do not dispatch it", n->name,
            n->is_message ? "became a message" : "is no longer a message",
            n->is_message ? "old" : "new");
        return;
    }
    if (!n->is_message)
        return;
    if (o->type_number != n->type_number && c->opt->model == FBE_COMPAT_JSON)
        add(c, FBE_COMPAT_ERROR, BOTH, false, n->loc, n->name,
            "type number of message '%s' changed from %" PRIu32 " to %" PRIu32
            ": receivers dispatch on it", n->name, o->type_number, n->type_number);
    if (o->is_request != n->is_request || (o->response == NULL) != (n->response == NULL) ||
        (o->response && strcmp(o->response->name, n->response->name) != 0)) {
        add(c, FBE_COMPAT_ERROR, BOTH, false, n->loc, n->name,
            "request '%s' changed its response from '%s' to '%s': clients wait for another "
            "message", n->name, o->is_request ? opt_name(o->response) : "(not a request)",
            n->is_request ? opt_name(n->response) : "(not a request)");
    }
    for (size_t i = 0; i < n->reject_count; i++)
        if (!has_reject(o, n->rejects[i].type->name))
            add(c, FBE_COMPAT_ERROR, FBE_COMPAT_OLD_READER, false, n->loc, n->name,
                "request '%s' may be rejected with '%s': old clients do not fail the request "
                "on it", n->name, n->rejects[i].type->name);
    for (size_t i = 0; i < o->reject_count; i++)
        if (!has_reject(n, o->rejects[i].type->name))
            add(c, FBE_COMPAT_ERROR, FBE_COMPAT_NEW_READER, true, o->loc, o->name,
                "request '%s' is no longer rejected with '%s': new clients do not fail the "
                "request on it", o->name, o->rejects[i].type->name);
}

static void compare_struct(ctx *c, const fbe_ir_struct *o, const fbe_ir_struct *n)
{
    if (!first_visit(c, o, n))
        return;
    if (c->opt->model != FBE_COMPAT_JSON && o->type_number != n->type_number)
        add(c, FBE_COMPAT_ERROR, BOTH, false, n->loc, n->name,
            "type number of '%s' changed from %" PRIu32 " to %" PRIu32
            ": readers check it in every struct header", n->name, o->type_number,
            n->type_number);
    if (c->opt->model == FBE_COMPAT_JSON)
        compare_fields_by_name(c, o, n);
    else
        compare_fields_positional(c, o, n);
    if (c->opt->protocol)
        compare_protocol(c, o, n);
}

/* ---- packages -------------------------------------------------------------------- */

static const fbe_ir_struct *struct_named(const fbe_ir_package *p, const char *name)
{
    for (size_t i = 0; i < p->struct_count; i++)
        if (strcmp(p->structs[i]->name, name) == 0)
            return p->structs[i];
    return NULL;
}

static const fbe_ir_enum *enum_named(const fbe_ir_package *p, const char *name)
{
    for (size_t i = 0; i < p->enum_count; i++)
        if (strcmp(p->enums[i]->name, name) == 0)
            return p->enums[i];
    return NULL;
}

static const fbe_ir_flags *flags_named(const fbe_ir_package *p, const char *name)
{
    for (size_t i = 0; i < p->flags_count; i++)
        if (strcmp(p->flags[i]->name, name) == 0)
            return p->flags[i];
    return NULL;
}

/* "Name" or "pkg.Name" of either root package: the plain name. */
static const char *plain_name(const ctx *c, const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot)
        return name;
    size_t len = (size_t)(dot - name);
    const char *pkgs[2] = {c->old_pkg->name, c->new_pkg->name};
    for (int i = 0; i < 2; i++)
        if (strlen(pkgs[i]) == len && strncmp(pkgs[i], name, len) == 0)
            return dot + 1;
    return NULL;
}

static void compare_all(ctx *c)
{
    const fbe_ir_package *op = c->old_pkg, *np = c->new_pkg;
    for (size_t i = 0; i < np->struct_count; i++) {
        const fbe_ir_struct *n = np->structs[i], *o = struct_named(op, n->name);
        if (o)
            compare_struct(c, o, n);
        else if (c->opt->protocol && n->is_message)
            add(c, FBE_COMPAT_NOTE, 0, false, n->loc, n->name,
                "message '%s' added: old receivers skip it", n->name);
        else
            add(c, FBE_COMPAT_NOTE, 0, false, n->loc, n->name, "%s '%s' added",
                n->is_message ? "message" : "struct", n->name);
    }
    for (size_t i = 0; i < np->enum_count; i++) {
        const fbe_ir_enum *n = np->enums[i], *o = enum_named(op, n->name);
        if (o)
            compare_enum(c, o, n);
        else
            add(c, FBE_COMPAT_NOTE, 0, false, n->loc, n->name, "enum '%s' added", n->name);
    }
    for (size_t i = 0; i < np->flags_count; i++) {
        const fbe_ir_flags *n = np->flags[i], *o = flags_named(op, n->name);
        if (o)
            compare_flags(c, o, n);
        else
            add(c, FBE_COMPAT_NOTE, 0, false, n->loc, n->name, "flags '%s' added", n->name);
    }
    for (size_t i = 0; i < op->struct_count; i++) {
        const fbe_ir_struct *o = op->structs[i];
        if (struct_named(np, o->name))
            continue;
        if (c->opt->protocol && o->is_message)
            add(c, FBE_COMPAT_ERROR, FBE_COMPAT_NEW_READER, true, o->loc, o->name,
                "message '%s' removed: new receivers skip it", o->name);
        else
            add(c, FBE_COMPAT_WARNING, 0, true, o->loc, o->name,
                "%s '%s' removed: new programs cannot read its data", o->is_message ? "message" : "struct",
                o->name);
    }
    for (size_t i = 0; i < op->enum_count; i++)
        if (!enum_named(np, op->enums[i]->name))
            add(c, FBE_COMPAT_NOTE, 0, true, op->enums[i]->loc, op->enums[i]->name,
                "enum '%s' removed", op->enums[i]->name);
    for (size_t i = 0; i < op->flags_count; i++)
        if (!flags_named(np, op->flags[i]->name))
            add(c, FBE_COMPAT_NOTE, 0, true, op->flags[i]->loc, op->flags[i]->name,
                "flags '%s' removed", op->flags[i]->name);
}

static int by_location(const void *pa, const void *pb)
{
    const fbe_compat_finding *a = pa, *b = pb;
    if (a->in_old != b->in_old)
        return a->in_old ? 1 : -1;
    int f = strcmp(a->loc.file ? a->loc.file : "", b->loc.file ? b->loc.file : "");
    if (f)
        return f;
    if (a->loc.line != b->loc.line)
        return a->loc.line < b->loc.line ? -1 : 1;
    if (a->loc.col != b->loc.col)
        return a->loc.col < b->loc.col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

bool fbe_compat_compare(const fbe_schema *old_schema, const fbe_schema *new_schema,
                        const fbe_compat_options *options, fbe_compat_result *result,
                        const char **bad_type)
{
    memset(result, 0, sizeof *result);
    if (bad_type)
        *bad_type = NULL;
    ctx c = {
        .opt = options,
        .old_pkg = fbe_schema_root(old_schema),
        .new_pkg = fbe_schema_root(new_schema),
        .sources = fbe_compat_sources_new(),
        .res = result,
    };
    if (!c.sources)
        return false;
    if (options->type_count == 0) {
        compare_all(&c);
    } else {
        for (size_t i = 0; i < options->type_count && !c.oom; i++) {
            const char *name = plain_name(&c, options->types[i]);
            const fbe_ir_struct *o = name ? struct_named(c.old_pkg, name) : NULL;
            const fbe_ir_struct *n = name ? struct_named(c.new_pkg, name) : NULL;
            const fbe_ir_enum *oe = name ? enum_named(c.old_pkg, name) : NULL;
            const fbe_ir_enum *ne = name ? enum_named(c.new_pkg, name) : NULL;
            const fbe_ir_flags *of = name ? flags_named(c.old_pkg, name) : NULL;
            const fbe_ir_flags *nf = name ? flags_named(c.new_pkg, name) : NULL;
            if (o && n)
                compare_struct(&c, o, n);
            else if (oe && ne)
                compare_enum(&c, oe, ne);
            else if (of && nf)
                compare_flags(&c, of, nf);
            else {
                if (bad_type)
                    *bad_type = options->types[i];
                c.oom = true;
            }
        }
    }
    fbe_compat_sources_free(c.sources);
    free(c.done);
    if (c.oom) {
        fbe_compat_result_free(result);
        return false;
    }
    if (result->count)
        qsort(result->findings, result->count, sizeof *result->findings, by_location);
    return true;
}

void fbe_compat_result_free(fbe_compat_result *result)
{
    free(result->findings);
    memset(result, 0, sizeof *result);
}
