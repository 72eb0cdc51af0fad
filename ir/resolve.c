/* Resolution of one package: names, enum/flags values, inheritance, field types,
 * defaults, type numbers, and the semantic checks the reference leaves to the C++
 * compiler (schema-language.md 4.9). Every error is located at the offending
 * token. Layouts are delegated to layout.c once everything resolved cleanly. */
#include "resolve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "literals.h"
#include "strmap.h"

typedef enum decl_kind { DECL_ENUM, DECL_FLAGS, DECL_STRUCT } decl_kind;

typedef struct local_decl {
    decl_kind kind;
    const char *name;
    fbe_loc loc;
    void *ir;              /* fbe_ir_enum / fbe_ir_flags / fbe_ir_struct */
    const ast_enum *ast_enum;
    const ast_struct *ast_struct;
    int state;             /* DFS marks: 0 new, 1 in progress, 2 done */
    int layout_state;
    bool layout_failed;    /* too large or nested too deep: no usable layout */
    bool failed;           /* an error made this declaration unusable */

    /* Inherited fields are shared, not copied per level: a struct's flattened
     * fields start with its base's, so the first struct deriving from a local
     * base (its heir) appends its own fields in the base's array, which was
     * allocated with room for the whole chain of heirs. The names map of the
     * fields is handed down the same way. */
    struct local_decl *heir;
    bool is_heir;
    fbe_ir_field *chain;   /* the array this struct's fields are in */
    size_t chain_cap;      /* its capacity */
    bool chain_taken;      /* an heir appends to it */
    fbe_strmap *names;     /* every field by name (base fields included) */
} local_decl;

typedef struct resolver {
    fbe_arena *arena;
    fbe_diags *diags;
    const ast_file *file;
    fbe_ir_package *pkg;
    const fbe_ir_package **visible; /* transitive imports, nearest first, no duplicates */
    size_t visible_count;
    local_decl *decls;
    size_t decl_count;
    fbe_strmap locals;         /* name -> local_decl */
    size_t copied_fields;      /* base fields copied (derived structs that are no heir) */
    size_t copy_limit;
    fbe_strmap *visible_names; /* per visible package, built on first use */
    unsigned depth; /* recursion guard for inheritance and by-value nesting */
} resolver;

/* The value of a key that was taken back (fbe_strmap has no removal). */
static char removed_mark;
#define REMOVED ((void *)&removed_mark)

/* Deeper inheritance or by-value nesting than this is refused rather than risking
 * the stack on hostile schemas. */
enum { MAX_NESTING = FBE_IR_MAX_NESTING };

/* A resolved type name. */
typedef struct type_target {
    decl_kind kind;
    void *ir;
    local_decl *local; /* non-NULL when declared in this package */
} type_target;

static fbe_ir_source_loc ir_loc(fbe_loc loc)
{
    return (fbe_ir_source_loc){loc.source ? loc.source->path : NULL, loc.line, loc.col};
}

static void *alloc0(resolver *r, size_t size)
{
    return fbe_arena_zalloc(r->arena, size);
}

static const char *const c_keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double",
    "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
    "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
    "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
    "true", "false", "alignas", "alignof", "asm", "typeof", "NULL", "nullptr", "constexpr",
    "static_assert", "thread_local", "typeof_unqual",
    /* C++ keywords (up to C++20) that are not C's: generated headers are also
     * compiled as C++ (extern "C"), where a member called `new` or `class` is
     * a syntax error. */
    "and", "and_eq", "bitand", "bitor", "catch", "char8_t", "char16_t", "char32_t", "class",
    "co_await", "co_return", "co_yield", "compl", "concept", "consteval", "constinit",
    "const_cast", "decltype", "delete", "dynamic_cast", "explicit", "export", "friend",
    "mutable", "namespace", "new", "noexcept", "not", "not_eq", "operator", "or", "or_eq",
    "private", "protected", "public", "reinterpret_cast", "requires", "static_cast",
    "template", "this", "throw", "try", "typeid", "typename", "using", "virtual", "wchar_t",
    "xor", "xor_eq",
};

/* Object-like macros of the headers generated C includes (<stdint.h>,
 * <math.h>, <stddef.h>, <stdbool.h>), up to C23 and with _GNU_SOURCE, and of
 * GNU C modes: a struct member of that name would be replaced by the
 * preprocessor. The INT.._MIN/_MAX/_WIDTH family of <stdint.h> and the M_ and
 * FP_ constants of <math.h> are matched by shape in c_macro. */
static const char *const c_macros[] = {
    "SIZE_MAX", "PTRDIFF_MIN", "PTRDIFF_MAX", "SIG_ATOMIC_MIN", "SIG_ATOMIC_MAX", "WCHAR_MIN",
    "WCHAR_MAX", "WINT_MIN", "WINT_MAX", "INFINITY", "NAN", "HUGE_VAL", "HUGE_VALF",
    "HUGE_VALL", "MATH_ERRNO", "MATH_ERREXCEPT", "math_errhandling", "SNAN", "SNANF", "SNANL",
    "MAXFLOAT", "SIZE_WIDTH", "PTRDIFF_WIDTH", "WCHAR_WIDTH", "WINT_WIDTH", "SIG_ATOMIC_WIDTH",
    "linux", "unix", "i386",
};

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

static bool c_macro(const char *name)
{
    for (size_t i = 0; i < sizeof c_macros / sizeof *c_macros; i++)
        if (strcmp(name, c_macros[i]) == 0)
            return true;
    /* INT8_MIN, UINT_LEAST16_MAX, INTPTR_MAX, UINTMAX_MAX, INT32_WIDTH (C23), ... */
    if ((strncmp(name, "INT", 3) == 0 || strncmp(name, "UINT", 4) == 0) &&
        (ends_with(name, "_MIN") || ends_with(name, "_MAX") || ends_with(name, "_WIDTH")))
        return true;
    /* <math.h>'s constants: M_PI, M_PIl (_GNU_SOURCE), FP_NAN, FP_INT_UPWARD (C23), ... */
    return strncmp(name, "M_", 2) == 0 || strncmp(name, "FP_", 3) == 0;
}

static const char *c_identifier(resolver *r, const char *name)
{
    for (size_t i = 0; i < sizeof c_keywords / sizeof *c_keywords; i++)
        if (strcmp(name, c_keywords[i]) == 0)
            return fbe_arena_printf(r->arena, "%s_", name);
    if (c_macro(name))
        return fbe_arena_printf(r->arena, "%s_", name);
    if (name[0] == '_')
        return fbe_arena_printf(r->arena, "fbe%s", name);
    return name;
}

/* ---- names ------------------------------------------------------------------- */

/* `pkg_Name`, bounded like every symbol (fbe_ir_symbol_name): the C type name
 * and the stem of the struct's exported entry points. */
static const char *c_type_name(resolver *r, const char *pkg, const char *name)
{
    const char *full = fbe_arena_printf(r->arena, "%s_%s", pkg, name);
    if (!full || strlen(full) <= FBE_IR_MAX_SYMBOL)
        return full;
    char *out = fbe_arena_alloc(r->arena, FBE_IR_MAX_SYMBOL + 1);
    if (out)
        fbe_ir_symbol_name(full, out);
    return out;
}

static local_decl *find_local(resolver *r, const char *name)
{
    return fbe_strmap_get(&r->locals, name);
}

static local_decl *local_of(resolver *r, const fbe_ir_struct *st)
{
    if (st->package != r->pkg)
        return NULL;
    local_decl *d = find_local(r, st->name);
    return d && d->ir == st ? d : NULL;
}

static bool add_package_names(resolver *r, fbe_strmap *m, const fbe_ir_package *p)
{
    if (!fbe_strmap_init(m, r->arena, p->enum_count + p->flags_count + p->struct_count))
        return false;
    /* Names are unique within a package (redefinitions are errors). */
    for (size_t i = 0; i < p->enum_count; i++) {
        type_target *t = alloc0(r, sizeof *t);
        if (!t || !fbe_strmap_put(m, p->enums[i]->name, t))
            return false;
        *t = (type_target){DECL_ENUM, (void *)p->enums[i], NULL};
    }
    for (size_t i = 0; i < p->flags_count; i++) {
        type_target *t = alloc0(r, sizeof *t);
        if (!t || !fbe_strmap_put(m, p->flags[i]->name, t))
            return false;
        *t = (type_target){DECL_FLAGS, (void *)p->flags[i], NULL};
    }
    for (size_t i = 0; i < p->struct_count; i++) {
        type_target *t = alloc0(r, sizeof *t);
        if (!t || !fbe_strmap_put(m, p->structs[i]->name, t))
            return false;
        *t = (type_target){DECL_STRUCT, (void *)p->structs[i], NULL};
    }
    return true;
}

/* `name` declared in visible package number `index`. */
static bool find_in_package(resolver *r, size_t index, const char *name, type_target *out)
{
    fbe_strmap *m = &r->visible_names[index];
    if (!m->keys && !add_package_names(r, m, r->visible[index]))
        return false; /* out of memory: reported as not found, then the arena fails */
    const type_target *t = fbe_strmap_get(m, name);
    if (t)
        *out = *t;
    return t != NULL;
}

/* Returns 1 found, 0 not found (no message), -1 error reported. */
static int lookup_type(resolver *r, const ast_name *name, type_target *out)
{
    const char *dot = strchr(name->text, '.');
    if (dot) {
        size_t plen = (size_t)(dot - name->text);
        const char *rest = dot + 1;
        if (strchr(rest, '.'))
            return 0;
        if (strlen(r->pkg->name) == plen && strncmp(r->pkg->name, name->text, plen) == 0) {
            local_decl *d = find_local(r, rest);
            if (!d)
                return 0;
            *out = (type_target){d->kind, d->ir, d};
            return 1;
        }
        for (size_t i = 0; i < r->visible_count; i++) {
            const fbe_ir_package *p = r->visible[i];
            if (strlen(p->name) == plen && strncmp(p->name, name->text, plen) == 0)
                return find_in_package(r, i, rest, out) ? 1 : 0;
        }
        return 0;
    }
    local_decl *d = find_local(r, name->text);
    if (d) {
        *out = (type_target){d->kind, d->ir, d};
        return 1;
    }
    const fbe_ir_package *found_in = NULL;
    for (size_t i = 0; i < r->visible_count; i++) {
        type_target t;
        if (find_in_package(r, i, name->text, &t)) {
            if (found_in) {
                fbe_error(r->diags, name->loc,
                          "ambiguous type name '%s': declared in packages '%s' and '%s'",
                          name->text, found_in->name, r->visible[i]->name);
                return -1;
            }
            found_in = r->visible[i];
            *out = t;
        }
    }
    return found_in ? 1 : 0;
}

/* ---- declarations ------------------------------------------------------------ */

/* The local struct a struct's base names, found without diagnostics (a bad
 * base is reported once, when the struct is resolved). */
static local_decl *local_base(resolver *r, const ast_struct *s)
{
    if (!s->has_base)
        return NULL;
    const char *name = s->base.text;
    const char *dot = strchr(name, '.');
    if (dot) {
        size_t plen = (size_t)(dot - name);
        if (strlen(r->pkg->name) != plen || strncmp(r->pkg->name, name, plen) != 0)
            return NULL;
        name = dot + 1;
    }
    local_decl *d = find_local(r, name);
    return d && d->kind == DECL_STRUCT ? d : NULL;
}

/* Each local base's heir (the first struct deriving from it), and how many
 * base fields the others may copy in all: proportional to the schema's size. */
static void plan_field_sharing(resolver *r)
{
    size_t declared = 0;
    for (size_t i = 0; i < r->decl_count; i++) {
        local_decl *d = &r->decls[i];
        if (d->kind != DECL_STRUCT)
            continue;
        declared += d->ast_struct->fields.count;
        local_decl *b = local_base(r, d->ast_struct);
        if (b && b != d && !b->heir) {
            b->heir = d;
            d->is_heir = true;
        }
    }
    r->copy_limit = ((size_t)1 << 20) + 16 * declared;
}

/* Two types of one C name would be one C type in the generated headers and
 * one symbol in AOT objects: `pkg_Name` can meet another package's `pkg_Name`
 * (a_b.c and a.b_c) or a hashed long name (fbe_ir_symbol_name). */
static bool check_c_names(resolver *r)
{
    size_t total = r->decl_count;
    for (size_t i = 0; i < r->visible_count; i++)
        total += r->visible[i]->enum_count + r->visible[i]->flags_count +
                 r->visible[i]->struct_count;
    fbe_strmap seen;
    if (!fbe_strmap_init(&seen, r->arena, total))
        return false;
    for (size_t i = 0; i < r->visible_count; i++) {
        const fbe_ir_package *p = r->visible[i];
        for (size_t k = 0; k < p->enum_count; k++)
            if (!fbe_strmap_put(&seen, p->enums[k]->c_name, (void *)p->enums[k]->full_name))
                return false;
        for (size_t k = 0; k < p->flags_count; k++)
            if (!fbe_strmap_put(&seen, p->flags[k]->c_name, (void *)p->flags[k]->full_name))
                return false;
        for (size_t k = 0; k < p->struct_count; k++)
            if (!fbe_strmap_put(&seen, p->structs[k]->c_name, (void *)p->structs[k]->full_name))
                return false;
    }
    for (size_t i = 0; i < r->decl_count; i++) {
        local_decl *d = &r->decls[i];
        const char *c_name, *full_name;
        if (d->kind == DECL_STRUCT) {
            c_name = ((fbe_ir_struct *)d->ir)->c_name;
            full_name = ((fbe_ir_struct *)d->ir)->full_name;
        } else if (d->kind == DECL_FLAGS) {
            c_name = ((fbe_ir_flags *)d->ir)->c_name;
            full_name = ((fbe_ir_flags *)d->ir)->full_name;
        } else {
            c_name = ((fbe_ir_enum *)d->ir)->c_name;
            full_name = ((fbe_ir_enum *)d->ir)->full_name;
        }
        const char *other = fbe_strmap_get(&seen, c_name);
        if (other) {
            fbe_error(r->diags, d->loc, "'%s' has the C name '%s' of '%s'", full_name, c_name,
                      other);
            d->failed = true;
            continue;
        }
        if (!fbe_strmap_put(&seen, c_name, (void *)full_name))
            return false;
    }
    return true;
}

static bool collect_decls(resolver *r)
{
    const ast_file *f = r->file;
    r->decls = alloc0(r, sizeof(local_decl) * (f->decls.count + 1));
    r->visible_names = alloc0(r, sizeof(fbe_strmap) * (r->visible_count + 1));
    if (!r->decls || !r->visible_names || !fbe_strmap_init(&r->locals, r->arena, f->decls.count))
        return false;
    size_t ne = 0, nf = 0, ns = 0;
    for (size_t i = 0; i < f->decls.count; i++) {
        const ast_decl *d = f->decls.items[i];
        if (d->kind == AST_DECL_ENUM) {
            if (d->enum_decl->is_flags)
                nf++;
            else
                ne++;
        } else {
            ns++;
        }
    }
    fbe_ir_package *pkg = r->pkg;
    const fbe_ir_enum **enums = alloc0(r, sizeof(void *) * (ne + 1));
    const fbe_ir_flags **flags = alloc0(r, sizeof(void *) * (nf + 1));
    const fbe_ir_struct **structs = alloc0(r, sizeof(void *) * (ns + 1));
    if (!enums || !flags || !structs)
        return false;
    pkg->enums = enums;
    pkg->flags = flags;
    pkg->structs = structs;

    for (size_t i = 0; i < f->decls.count; i++) {
        const ast_decl *d = f->decls.items[i];
        local_decl ld = {0};
        const ast_name *name;
        if (d->kind == AST_DECL_ENUM) {
            const ast_enum *e = d->enum_decl;
            name = &e->name;
            ld.ast_enum = e;
            ld.kind = e->is_flags ? DECL_FLAGS : DECL_ENUM;
        } else {
            name = &d->struct_decl->name;
            ld.ast_struct = d->struct_decl;
            ld.kind = DECL_STRUCT;
        }
        ld.name = name->text;
        ld.loc = name->loc;
        if (strchr(name->text, '.')) {
            fbe_error(r->diags, name->loc, "declaration name '%s' must not contain '.'",
                      name->text);
            continue;
        }
        local_decl *prev = find_local(r, name->text);
        if (prev) {
            fbe_error(r->diags, name->loc, "redefinition of '%s'", name->text);
            fbe_note(r->diags, prev->loc, "previous definition of '%s' is here", name->text);
            continue;
        }
        const char *full = fbe_arena_printf(r->arena, "%s.%s", pkg->name, name->text);
        const char *cname = c_type_name(r, pkg->name, name->text);
        if (!full || !cname)
            return false;
        if (ld.kind == DECL_STRUCT) {
            fbe_ir_struct *st = alloc0(r, sizeof *st);
            if (!st)
                return false;
            st->name = name->text;
            st->full_name = full;
            st->c_name = cname;
            st->package = pkg;
            st->is_message = ld.ast_struct->is_message;
            st->deprecated = ld.ast_struct->attrs.deprecated;
            st->hidden = ld.ast_struct->attrs.hidden;
            st->loc = ir_loc(name->loc);
            ld.ir = st;
            structs[pkg->struct_count++] = st;
        } else if (ld.kind == DECL_FLAGS) {
            fbe_ir_flags *fl = alloc0(r, sizeof *fl);
            if (!fl)
                return false;
            fl->name = name->text;
            fl->full_name = full;
            fl->c_name = cname;
            fl->package = pkg;
            fl->deprecated = ld.ast_enum->attrs.deprecated;
            fl->hidden = ld.ast_enum->attrs.hidden;
            fl->loc = ir_loc(name->loc);
            ld.ir = fl;
            flags[pkg->flags_count++] = fl;
        } else {
            fbe_ir_enum *en = alloc0(r, sizeof *en);
            if (!en)
                return false;
            en->name = name->text;
            en->full_name = full;
            en->c_name = cname;
            en->package = pkg;
            en->deprecated = ld.ast_enum->attrs.deprecated;
            en->hidden = ld.ast_enum->attrs.hidden;
            en->loc = ir_loc(name->loc);
            ld.ir = en;
            enums[pkg->enum_count++] = en;
        }
        r->decls[r->decl_count] = ld;
        if (!fbe_strmap_put(&r->locals, ld.name, &r->decls[r->decl_count]))
            return false;
        r->decl_count++;
    }
    return true;
}

/* ---- enums and flags ----------------------------------------------------------- */

static bool valid_enum_base(fbe_ir_kind k, bool is_flags)
{
    if (!fbe_ir_kind_is_integer(k))
        return false;
    return !is_flags || (k != FBE_IR_CHAR && k != FBE_IR_WCHAR);
}

static lit_int as_lit(uint64_t bits, fbe_ir_kind base)
{
    if (fbe_ir_kind_is_signed(base) && (int64_t)bits < 0)
        return (lit_int){true, (uint64_t)0 - bits};
    return (lit_int){false, bits};
}

static void resolve_enum(resolver *r, local_decl *ld)
{
    const ast_enum *e = ld->ast_enum;
    bool is_flags = e->is_flags;
    const char *what = is_flags ? "flags" : "enum";
    fbe_ir_kind base = FBE_IR_INT32;
    if (e->has_base) {
        if (!valid_enum_base(e->base.kind, is_flags)) {
            fbe_error(r->diags, e->base.name.loc, "invalid base type '%s' for %s '%s'",
                      e->base.name.text, what, e->name.text);
            ld->failed = true;
            return;
        }
        base = e->base.kind;
    }
    bool is_signed = fbe_ir_kind_is_signed(base);
    unsigned bits = fbe_ir_kind_bits(base);

    fbe_ir_enum_value *values = alloc0(r, sizeof *values * (e->values.count + 1));
    if (!values) {
        ld->failed = true;
        return;
    }
    /* declared: every name -> its last position + 1 (for "used before its
     * declaration"); defined: the values so far -> their index + 1. */
    fbe_strmap declared, defined;
    if (!fbe_strmap_init(&declared, r->arena, e->values.count) ||
        !fbe_strmap_init(&defined, r->arena, e->values.count)) {
        ld->failed = true;
        return;
    }
    for (size_t i = 0; i < e->values.count; i++)
        if (!fbe_strmap_put(&declared, ((ast_enum_value *)e->values.items[i])->name.text,
                            (void *)(uintptr_t)(i + 1))) {
            ld->failed = true;
            return;
        }
    size_t n = 0;
    for (size_t i = 0; i < e->values.count && !fbe_diags_full(r->diags); i++) {
        const ast_enum_value *v = e->values.items[i];
        fbe_ir_enum_value *out = &values[n];
        if (fbe_strmap_get(&defined, v->name.text)) {
            fbe_error(r->diags, v->name.loc, "duplicate value '%s' in %s '%s'", v->name.text,
                      what, e->name.text);
            continue;
        }
        out->name = v->name.text;
        out->deprecated = v->attrs.deprecated;
        out->hidden = v->attrs.hidden;
        const char *err = NULL;
        switch (v->kind) {
        case AST_ENUM_VALUE_AUTO:
            if (is_flags) {
                fbe_error(r->diags, v->name.loc, "flags value '%s' must have a value",
                          v->name.text);
                continue;
            }
            if (n == 0) {
                out->value = 0;
            } else {
                lit_int prev = as_lit(values[n - 1].value, base);
                lit_int next = prev.negative
                                   ? (prev.magnitude == 1 ? (lit_int){false, 0}
                                                          : (lit_int){true, prev.magnitude - 1})
                                   : (lit_int){false, prev.magnitude + 1};
                if ((!prev.negative && prev.magnitude == UINT64_MAX) ||
                    !lit_int_fits(next, is_signed, bits)) {
                    fbe_error(r->diags, v->name.loc,
                              "value of '%s' overflows the base type '%s' of enum '%s'",
                              v->name.text, fbe_ir_kind_name(base), e->name.text);
                    continue;
                }
                out->value = lit_int_cast(next, is_signed, bits);
            }
            break;
        case AST_ENUM_VALUE_INT: {
            lit_int li;
            if (!lit_parse_cpp_int(v->text, &li, &err)) {
                fbe_error(r->diags, v->value_loc, "%s", err);
                continue;
            }
            if (li.negative && li.magnitude > (uint64_t)INT64_MAX + 1) {
                fbe_error(r->diags, v->value_loc, "integer literal is too large");
                continue;
            }
            /* C++ cast semantics: the literal wraps into the base type. */
            out->value = lit_int_cast(li, is_signed, bits);
            break;
        }
        case AST_ENUM_VALUE_CHAR: {
            uint32_t c;
            if (!lit_parse_char(v->text, &c, &err)) {
                fbe_error(r->diags, v->value_loc, "%s", err);
                continue;
            }
            out->value = lit_int_cast((lit_int){false, c}, is_signed, bits);
            break;
        }
        case AST_ENUM_VALUE_NAMES: {
            if (!is_flags && v->names.count != 1) {
                fbe_error(r->diags, v->value_loc, "enum values cannot be combined with '|'");
                continue;
            }
            uint64_t acc = 0;
            bool ok = true;
            for (size_t k = 0; k < v->names.count && ok; k++) {
                const ast_name *ref = v->names.items[k];
                size_t j = (size_t)(uintptr_t)fbe_strmap_get(&defined, ref->text);
                if (j-- == 0) {
                    bool later = (size_t)(uintptr_t)fbe_strmap_get(&declared, ref->text) > i + 1;
                    if (later)
                        fbe_error(r->diags, ref->loc,
                                  "value '%s' of %s '%s' is used before its declaration",
                                  ref->text, what, e->name.text);
                    else
                        fbe_error(r->diags, ref->loc, "unknown value '%s' in %s '%s'",
                                  ref->text, what, e->name.text);
                    ok = false;
                    break;
                }
                acc |= values[j].value;
            }
            if (!ok)
                continue;
            out->value = acc;
            break;
        }
        }
        if (!fbe_strmap_put(&defined, out->name, (void *)(uintptr_t)(n + 1))) {
            ld->failed = true;
            return;
        }
        n++;
    }
    if (is_flags) {
        fbe_ir_flags *fl = ld->ir;
        fl->base = base;
        fl->values = values;
        fl->value_count = n;
    } else {
        fbe_ir_enum *en = ld->ir;
        en->base = base;
        en->values = values;
        en->value_count = n;
    }
}

/* ---- types ---------------------------------------------------------------------- */

static fbe_ir_type *new_type(resolver *r, fbe_ir_kind kind)
{
    fbe_ir_type *t = alloc0(r, sizeof *t);
    if (t)
        t->kind = kind;
    return t;
}

/* The element type named by `ref`: a builtin or a declared enum/flags/struct. */
static fbe_ir_type *resolve_type_ref(resolver *r, const ast_type_ref *ref)
{
    if (ref->kind != FBE_IR_STRUCT)
        return new_type(r, ref->kind);
    type_target t;
    int found = lookup_type(r, &ref->name, &t);
    if (found < 0)
        return NULL;
    if (found == 0) {
        fbe_error(r->diags, ref->name.loc, "unknown type name '%s'", ref->name.text);
        return NULL;
    }
    if (t.local && t.local->failed && t.kind != DECL_STRUCT)
        return NULL;
    fbe_ir_type *ty;
    switch (t.kind) {
    case DECL_ENUM:
        ty = new_type(r, FBE_IR_ENUM);
        if (ty)
            ty->enum_type = t.ir;
        break;
    case DECL_FLAGS:
        ty = new_type(r, FBE_IR_FLAGS);
        if (ty)
            ty->flags_type = t.ir;
        break;
    default:
        ty = new_type(r, FBE_IR_STRUCT);
        if (ty)
            ty->struct_type = t.ir;
        break;
    }
    return ty;
}

static bool keyable(const fbe_ir_type *t)
{
    return t->kind != FBE_IR_BYTES;
}

static fbe_ir_type *resolve_field_type(resolver *r, const ast_field *f)
{
    fbe_ir_type *elem = resolve_type_ref(r, &f->type);
    if (!elem)
        return NULL;
    if (f->optional || f->form == AST_FORM_RESET) {
        fbe_ir_type *opt = new_type(r, FBE_IR_OPTIONAL);
        if (!opt)
            return NULL;
        opt->elem = elem;
        elem = opt;
    }
    fbe_ir_type *t;
    switch (f->form) {
    case AST_FORM_PLAIN:
    case AST_FORM_RESET:
        return elem;
    case AST_FORM_ARRAY: {
        lit_int n;
        const char *err;
        if (!lit_parse_decimal_int(f->array_size_text, &n, &err)) {
            fbe_error(r->diags, f->array_size_loc, "%s", err);
            return NULL;
        }
        if (n.negative || n.magnitude == 0) {
            fbe_error(r->diags, f->array_size_loc, "array size must be greater than zero");
            return NULL;
        }
        if (n.magnitude > 65536) {
            fbe_error(r->diags, f->array_size_loc,
                      "array size %llu is too large (the limit is 65536)",
                      (unsigned long long)n.magnitude);
            return NULL;
        }
        t = new_type(r, FBE_IR_ARRAY);
        if (t) {
            t->elem = elem;
            t->array_len = (uint32_t)n.magnitude;
        }
        return t;
    }
    case AST_FORM_VECTOR:
    case AST_FORM_LIST:
        t = new_type(r, f->form == AST_FORM_VECTOR ? FBE_IR_VECTOR : FBE_IR_LIST);
        if (t)
            t->elem = elem;
        return t;
    case AST_FORM_SET:
        if (!keyable(elem)) {
            fbe_error(r->diags, f->type.name.loc, "type '%s' cannot be a set element",
                      f->type.name.text);
            return NULL;
        }
        t = new_type(r, FBE_IR_SET);
        if (t)
            t->elem = elem;
        return t;
    case AST_FORM_MAP:
    case AST_FORM_HASH: {
        fbe_ir_type *key = resolve_type_ref(r, &f->key);
        if (!key)
            return NULL;
        if (!keyable(key)) {
            fbe_error(r->diags, f->key.name.loc, "type '%s' cannot be a map key",
                      f->key.name.text);
            return NULL;
        }
        t = new_type(r, f->form == AST_FORM_MAP ? FBE_IR_MAP : FBE_IR_HASH);
        if (t) {
            t->elem = elem;
            t->key = key;
        }
        return t;
    }
    }
    return NULL;
}

/* ---- default values -------------------------------------------------------------- */

static const char *value_description(const ast_value *v, char *buf, size_t size)
{
    switch (v->kind) {
    case AST_VALUE_TRUE: return "'true'";
    case AST_VALUE_FALSE: return "'false'";
    case AST_VALUE_NULL: return "'null'";
    case AST_VALUE_EPOCH: return "'epoch'";
    case AST_VALUE_UTC: return "'utc'";
    case AST_VALUE_UUID0: return "'uuid0'";
    case AST_VALUE_UUID1: return "'uuid1'";
    case AST_VALUE_UUID4: return "'uuid4'";
    case AST_VALUE_CHAR: return "a character literal";
    case AST_VALUE_INT: return "an integer literal";
    case AST_VALUE_FLOAT: return "a floating-point literal";
    case AST_VALUE_STRING: return "a string literal";
    case AST_VALUE_NAME: snprintf(buf, size, "'%s'", v->name.text); return buf;
    }
    return "a value";
}

static void report_mismatch(resolver *r, const ast_field *f, const fbe_ir_type *t,
                            const ast_value *v)
{
    char tname[256], vdesc[256];
    fbe_ir_type_spelling(t, tname, sizeof tname);
    fbe_error(r->diags, v->loc, "cannot initialize field '%s' of type '%s' with %s",
              f->name.text, tname, value_description(v, vdesc, sizeof vdesc));
}

static bool integer_default(resolver *r, const ast_field *f, const fbe_ir_type *t,
                            fbe_ir_kind kind, const ast_value *v, fbe_ir_value *out)
{
    bool is_signed = fbe_ir_kind_is_signed(kind);
    unsigned bits = fbe_ir_kind_bits(kind);
    lit_int li;
    const char *err;
    const char *type_name = kind == FBE_IR_TIMESTAMP ? "timestamp" : fbe_ir_kind_name(kind);
    if (v->kind == AST_VALUE_INT) {
        if (!lit_parse_cpp_int(v->text, &li, &err)) {
            fbe_error(r->diags, v->loc, "%s", err);
            return false;
        }
    } else if (v->kind == AST_VALUE_CHAR && kind != FBE_IR_TIMESTAMP) {
        uint32_t c;
        if (!lit_parse_char(v->text, &c, &err)) {
            fbe_error(r->diags, v->loc, "%s", err);
            return false;
        }
        li = (lit_int){false, c};
    } else if (v->kind == AST_VALUE_NAME &&
               (strcmp(v->name.text, "min") == 0 || strcmp(v->name.text, "max") == 0) &&
               kind != FBE_IR_CHAR && kind != FBE_IR_WCHAR && kind != FBE_IR_TIMESTAMP) {
        bool is_min = v->name.text[0] == 'm' && v->name.text[1] == 'i';
        if (is_min)
            li = is_signed ? (lit_int){true, (uint64_t)1 << (bits - 1)} : (lit_int){false, 0};
        else if (is_signed)
            li = (lit_int){false, ((uint64_t)1 << (bits - 1)) - 1};
        else
            li = (lit_int){false, bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1};
    } else if (v->kind == AST_VALUE_EPOCH && kind == FBE_IR_TIMESTAMP) {
        li = (lit_int){false, 0};
    } else if (v->kind == AST_VALUE_UTC && kind == FBE_IR_TIMESTAMP) {
        out->kind = FBE_IR_VALUE_UTC;
        return true;
    } else {
        report_mismatch(r, f, t, v);
        return false;
    }
    if (!lit_int_fits(li, is_signed, bits)) {
        fbe_error(r->diags, v->loc, "default value %s%llu is out of range for type '%s'",
                  li.negative ? "-" : "", (unsigned long long)li.magnitude, type_name);
        return false;
    }
    out->kind = FBE_IR_VALUE_INT;
    out->u = lit_int_cast(li, is_signed, bits);
    return true;
}

/* "E.value" or "pkg.E.value" naming a value of `want` (an fbe_ir_enum/flags). */
static bool enum_member(resolver *r, const ast_name *name, decl_kind kind, const void *want,
                        const char *want_name, const fbe_ir_enum_value *values, size_t count,
                        uint64_t *out)
{
    const char *dot = strrchr(name->text, '.');
    const char *what = kind == DECL_ENUM ? "enum" : "flags";
    if (!dot) {
        fbe_error(r->diags, name->loc, "unknown value '%s' for %s '%s' (qualify it as '%s.%s')",
                  name->text, what, want_name, strrchr(want_name, '.') + 1, name->text);
        return false;
    }
    ast_name prefix = {fbe_arena_strndup(r->arena, name->text, (size_t)(dot - name->text)),
                       name->loc};
    type_target t;
    int found = prefix.text ? lookup_type(r, &prefix, &t) : 0;
    if (found < 0)
        return false;
    if (found == 0 || t.ir != want) {
        fbe_error(r->diags, name->loc, "'%s' is not a value of %s '%s'", name->text, what,
                  want_name);
        return false;
    }
    for (size_t i = 0; i < count; i++)
        if (strcmp(values[i].name, dot + 1) == 0) {
            *out = values[i].value;
            return true;
        }
    fbe_error(r->diags, name->loc, "unknown value '%s' in %s '%s'", dot + 1, what, want_name);
    return false;
}

static bool float_default(resolver *r, const ast_field *f, const fbe_ir_type *t,
                          const ast_value *v, double *out)
{
    bool is_float = t->kind == FBE_IR_FLOAT;
    if (v->kind == AST_VALUE_FLOAT) {
        char *end;
        double d = is_float ? (double)strtof(v->text, &end) : strtod(v->text, &end);
        if (isinf(d)) {
            fbe_error(r->diags, v->loc, "default value %s is out of range for type '%s'",
                      v->text, fbe_ir_kind_name(t->kind));
            return false;
        }
        *out = d;
        return true;
    }
    if (v->kind == AST_VALUE_INT) {
        lit_int li;
        const char *err;
        if (!lit_parse_cpp_int(v->text, &li, &err)) {
            fbe_error(r->diags, v->loc, "%s", err);
            return false;
        }
        double d = (double)li.magnitude;
        if (li.negative)
            d = -d;
        *out = is_float ? (double)(float)d : d;
        return true;
    }
    report_mismatch(r, f, t, v);
    return false;
}

static bool convert_default(resolver *r, const ast_field *f, const fbe_ir_type *t,
                            const ast_value *v, fbe_ir_value *out)
{
    if (v->or_names.count && t->kind != FBE_IR_FLAGS) {
        const ast_name *n = v->or_names.items[0];
        fbe_error(r->diags, n->loc, "'|' can only combine flags values");
        return false;
    }
    const char *err;
    switch (t->kind) {
    case FBE_IR_BOOL:
        if (v->kind != AST_VALUE_TRUE && v->kind != AST_VALUE_FALSE)
            break;
        out->kind = FBE_IR_VALUE_BOOL;
        out->b = v->kind == AST_VALUE_TRUE;
        return true;
    case FBE_IR_BYTE: case FBE_IR_CHAR: case FBE_IR_WCHAR:
    case FBE_IR_INT8: case FBE_IR_UINT8: case FBE_IR_INT16: case FBE_IR_UINT16:
    case FBE_IR_INT32: case FBE_IR_UINT32: case FBE_IR_INT64: case FBE_IR_UINT64:
    case FBE_IR_TIMESTAMP:
        return integer_default(r, f, t, t->kind, v, out);
    case FBE_IR_FLOAT:
    case FBE_IR_DOUBLE:
        if (!float_default(r, f, t, v, &out->d))
            return false;
        out->kind = FBE_IR_VALUE_FLOAT;
        return true;
    case FBE_IR_DECIMAL: {
        if (v->kind != AST_VALUE_FLOAT && v->kind != AST_VALUE_INT)
            break;
        fbe_ir_type as_double = {.kind = FBE_IR_DOUBLE};
        double d;
        if (!float_default(r, f, &as_double, v, &d))
            return false;
        /* The reference converts schema decimals through a double; so do we. */
        if (fabs(d) >= 79228162514264337593543950336.0) {
            fbe_error(r->diags, v->loc, "default value %s is out of range for type 'decimal'",
                      v->text);
            return false;
        }
        out->kind = FBE_IR_VALUE_DECIMAL;
        out->d = d;
        out->dec = fbe_decimal_from_double(d);
        return true;
    }
    case FBE_IR_STRING: {
        if (v->kind != AST_VALUE_STRING)
            break;
        char *s;
        size_t len;
        if (!lit_parse_string(r->arena, v->text, &s, &len, &err)) {
            fbe_error(r->diags, v->loc, "%s", err);
            return false;
        }
        out->kind = FBE_IR_VALUE_STRING;
        out->str = (fbe_string){s, len};
        return true;
    }
    case FBE_IR_UUID:
        switch (v->kind) {
        case AST_VALUE_UUID0:
            out->kind = FBE_IR_VALUE_UUID;
            return true;
        case AST_VALUE_UUID1:
            out->kind = FBE_IR_VALUE_UUID1;
            return true;
        case AST_VALUE_UUID4:
            out->kind = FBE_IR_VALUE_UUID4;
            return true;
        case AST_VALUE_STRING: {
            char *s;
            size_t len;
            if (!lit_parse_string(r->arena, v->text, &s, &len, &err)) {
                fbe_error(r->diags, v->loc, "%s", err);
                return false;
            }
            if (!fbe_uuid_parse(s, len, &out->uuid)) {
                fbe_error(r->diags, v->loc, "invalid uuid literal %s", v->text);
                return false;
            }
            out->kind = FBE_IR_VALUE_UUID;
            return true;
        }
        default:
            break;
        }
        break;
    case FBE_IR_ENUM:
        if (v->kind != AST_VALUE_NAME)
            break;
        if (!enum_member(r, &v->name, DECL_ENUM, t->enum_type, t->enum_type->full_name,
                         t->enum_type->values, t->enum_type->value_count, &out->u))
            return false;
        out->kind = FBE_IR_VALUE_INT;
        return true;
    case FBE_IR_FLAGS: {
        if (v->kind != AST_VALUE_NAME)
            break;
        const fbe_ir_flags *fl = t->flags_type;
        uint64_t acc;
        if (!enum_member(r, &v->name, DECL_FLAGS, fl, fl->full_name, fl->values,
                         fl->value_count, &acc))
            return false;
        for (size_t i = 0; i < v->or_names.count; i++) {
            uint64_t bits;
            if (!enum_member(r, v->or_names.items[i], DECL_FLAGS, fl, fl->full_name,
                             fl->values, fl->value_count, &bits))
                return false;
            acc |= bits;
        }
        out->kind = FBE_IR_VALUE_INT;
        out->u = acc;
        return true;
    }
    default: {
        char tname[256];
        fbe_ir_type_spelling(t, tname, sizeof tname);
        fbe_error(r->diags, v->loc, "field '%s' of type '%s' cannot have a default value",
                  f->name.text, tname);
        return false;
    }
    }
    report_mismatch(r, f, t, v);
    return false;
}

static void resolve_default(resolver *r, const ast_field *f, fbe_ir_field *field)
{
    const ast_value *v = f->default_value;
    if (!v)
        return;
    const fbe_ir_type *t = field->type;
    if (v->kind == AST_VALUE_NULL) {
        if (t->kind != FBE_IR_OPTIONAL) {
            char tname[256];
            fbe_ir_type_spelling(t, tname, sizeof tname);
            fbe_error(r->diags, v->loc,
                      "cannot initialize field '%s' of type '%s' with 'null' (only optional "
                      "fields can be null)",
                      f->name.text, tname);
            return;
        }
        field->default_value.kind = FBE_IR_VALUE_NULL;
        return;
    }
    if (t->kind == FBE_IR_OPTIONAL && t->elem->kind != FBE_IR_STRUCT)
        t = t->elem;
    convert_default(r, f, t, v, &field->default_value);
}

/* ---- structs ------------------------------------------------------------------- */

static bool resolve_struct(resolver *r, local_decl *ld);

/* Inheritance first (depth-first, so a base's flattened fields exist before a
 * derived struct copies them). */
static bool resolve_base(resolver *r, local_decl *ld, const fbe_ir_struct **out)
{
    const ast_struct *s = ld->ast_struct;
    *out = NULL;
    if (!s->has_base)
        return true;
    type_target t;
    int found = lookup_type(r, &s->base, &t);
    if (found < 0)
        return false;
    if (found == 0) {
        fbe_error(r->diags, s->base.loc, "unknown base struct '%s'", s->base.text);
        return false;
    }
    if (t.kind != DECL_STRUCT) {
        fbe_error(r->diags, s->base.loc, "base '%s' of struct '%s' is not a struct",
                  s->base.text, s->name.text);
        return false;
    }
    if (t.local) {
        if (t.local->state == 1) {
            fbe_error(r->diags, s->base.loc, "cyclic inheritance: '%s' derives from itself",
                      s->name.text);
            return false;
        }
        if (r->depth >= MAX_NESTING) {
            fbe_error(r->diags, s->base.loc, "inheritance chain is deeper than %d",
                      MAX_NESTING);
            return false;
        }
        r->depth++;
        bool ok = resolve_struct(r, t.local);
        r->depth--;
        if (!ok)
            return false;
    }
    /* The recursion guard above only sees bases declared later; the chain's
     * length holds in any declaration order and across packages. */
    const fbe_ir_struct *b = t.ir;
    if (b->base_depth + 1 > MAX_NESTING) {
        fbe_error(r->diags, s->base.loc, "inheritance chain is deeper than %d", MAX_NESTING);
        return false;
    }
    ((fbe_ir_struct *)ld->ir)->base_depth = b->base_depth + 1;
    *out = b;
    return true;
}

/* The names of a struct's fields being collected: every field (base ones
 * included) by name, the struct's own by C name. */
typedef struct field_names {
    fbe_strmap *names;  /* -> fbe_ir_field (shared along a chain of heirs) */
    fbe_strmap c_names; /* -> fbe_ir_field, own fields only */
} field_names;

static const fbe_ir_field *field_named(const fbe_strmap *m, const char *name)
{
    void *f = fbe_strmap_get(m, name);
    return f == REMOVED ? NULL : f;
}

/* A renamed field can meet one spelled that way (`int` and `int_`): the later
 * one gets more '_' until no member of the same host struct (the struct's own
 * fields: base fields live in its `base` member) has its C name. */
static const char *unique_c_name(resolver *r, const field_names *fn, const char *c_name)
{
    while (c_name && field_named(&fn->c_names, c_name))
        c_name = fbe_arena_printf(r->arena, "%s_", c_name);
    return c_name;
}

/* Takes back the last field add_field added (its type failed). */
static void drop_last_field(field_names *fn, const fbe_ir_field *f)
{
    fbe_strmap_put(fn->names, f->name, REMOVED);
    fbe_strmap_put(&fn->c_names, f->c_name, REMOVED);
}

static bool add_field(resolver *r, fbe_ir_struct *st, field_names *fn, fbe_ir_field *fields,
                      size_t *n, const char *name, fbe_loc loc)
{
    const fbe_ir_field *prev = field_named(fn->names, name);
    if (prev) {
        if (prev->owner != st)
            fbe_error(r->diags, loc, "field '%s' is already declared in base struct '%s'",
                      name, prev->owner->full_name);
        else
            fbe_error(r->diags, loc, "duplicate field '%s' in struct '%s'", name, st->name);
        return false;
    }
    fbe_ir_field *f = &fields[*n];
    f->name = name;
    f->c_name = unique_c_name(r, fn, c_identifier(r, name));
    if (!f->c_name || !fbe_strmap_put(fn->names, name, f) ||
        !fbe_strmap_put(&fn->c_names, f->c_name, f))
        return false;
    f->owner = st;
    f->index = (uint32_t)*n;
    f->loc = ir_loc(loc);
    (*n)++;
    return true;
}

/* Room for a struct's own fields (T~ adds a field). */
static size_t own_capacity(const local_decl *d)
{
    return 2 * d->ast_struct->fields.count + 1;
}

/* The array of a struct's flattened fields, with its base's fields first, and
 * the names map that goes with it: the base's own array and map when this
 * struct is its heir, else a copy with room for this struct's chain of heirs.
 * NULL: out of memory, or past the limit of copied fields (reported). */
static fbe_ir_field *field_array(resolver *r, local_decl *ld, const fbe_ir_struct *base,
                                 fbe_strmap **names)
{
    size_t base_count = base ? base->field_count : 0;
    local_decl *bl = base ? local_of(r, base) : NULL;
    if (ld->is_heir && bl && bl->heir == ld && bl->chain && !bl->chain_taken && bl->names &&
        bl->chain_cap - base_count >= own_capacity(ld)) {
        bl->chain_taken = true;
        ld->chain = bl->chain;
        ld->chain_cap = bl->chain_cap;
        ld->names = *names = bl->names;
        bl->names = NULL;
        return ld->chain;
    }
    if (base_count) {
        bool was_over = r->copied_fields > r->copy_limit;
        r->copied_fields += base_count;
        if (r->copied_fields > r->copy_limit) {
            if (was_over) /* reported once */
                return NULL;
            fbe_error(r->diags, ld->ast_struct->base.loc,
                      "deriving '%s' from '%s' copies more inherited fields than the schema's "
                      "limit (%zu: 16 per declared field, plus 2^20)",
                      ld->name, base->name, r->copy_limit);
            return NULL;
        }
    }
    size_t cap = base_count + own_capacity(ld);
    size_t steps = 0; /* a cycle of heirs is an inheritance error, reported elsewhere */
    for (const local_decl *h = ld->heir; h && steps < r->decl_count; h = h->heir, steps++)
        cap += own_capacity(h);
    fbe_ir_field *fields = alloc0(r, sizeof *fields * cap);
    fbe_strmap *map = alloc0(r, sizeof *map);
    if (!fields || !map || !fbe_strmap_init(map, r->arena, base_count + own_capacity(ld)))
        return NULL;
    if (base_count)
        memcpy(fields, base->fields, sizeof *fields * base_count);
    for (size_t i = 0; i < base_count; i++)
        if (!fbe_strmap_put(map, fields[i].name, &fields[i]))
            return NULL;
    ld->chain = fields;
    ld->chain_cap = cap;
    ld->names = *names = map;
    return fields;
}

static bool resolve_struct(resolver *r, local_decl *ld)
{
    if (ld->state == 2)
        return !ld->failed;
    ld->state = 1;
    const ast_struct *s = ld->ast_struct;
    fbe_ir_struct *st = ld->ir;
    unsigned errors_before = r->diags->errors;

    const fbe_ir_struct *base;
    if (!resolve_base(r, ld, &base)) {
        ld->state = 2;
        ld->failed = true;
        return false;
    }
    st->base = base;
    size_t base_count = base ? base->field_count : 0;
    field_names fn;
    fbe_ir_field *fields = NULL;
    if (!fbe_strmap_init(&fn.c_names, r->arena, s->fields.count) ||
        !(fields = field_array(r, ld, base, &fn.names))) {
        ld->state = 2;
        ld->failed = true;
        return false;
    }
    size_t n = base_count;
    st->own_field_start = base_count;
    bool have_id = false;

    for (size_t i = 0; i < s->fields.count; i++) {
        const ast_field *af = s->fields.items[i];
        if (af->is_id) {
            if (have_id) {
                fbe_error(r->diags, af->name.loc, "struct '%s' has more than one [id] field",
                          s->name.text);
                continue;
            }
            have_id = true;
        }
        if (strchr(af->name.text, '.')) {
            fbe_error(r->diags, af->name.loc, "field name '%s' must not contain '.'",
                      af->name.text);
            continue;
        }
        fbe_ir_type *type = resolve_field_type(r, af);
        if (!add_field(r, st, &fn, fields, &n, af->name.text, af->name.loc))
            continue;
        fbe_ir_field *f = &fields[n - 1];
        if (!type) {
            drop_last_field(&fn, f);
            n--;
            continue;
        }
        f->type = type;
        f->is_key = af->is_key || af->is_id;
        f->is_id = af->is_id;
        f->hidden = af->attrs.hidden;
        f->deprecated = af->attrs.deprecated;
        resolve_default(r, af, f);
        if (af->form == AST_FORM_RESET) {
            const char *reset = fbe_arena_printf(r->arena, "%sReset", af->name.text);
            fbe_ir_type *b = new_type(r, FBE_IR_BOOL);
            if (!reset || !b)
                continue;
            if (!add_field(r, st, &fn, fields, &n, reset, af->name.loc))
                continue;
            fields[n - 1].type = b;
            fields[n - 1].is_reset_flag = true;
        }
    }
    st->fields = fields;
    st->field_count = n;

    /* Protocol annotations. */
    st->is_request = s->is_request;
    if (s->has_response) {
        type_target t;
        int found = lookup_type(r, &s->response, &t);
        if (found == 0)
            fbe_error(r->diags, s->response.loc, "unknown response type '%s'", s->response.text);
        else if (found > 0 && (t.kind != DECL_STRUCT || !((fbe_ir_struct *)t.ir)->is_message))
            fbe_error(r->diags, s->response.loc, "response type '%s' is not a message",
                      s->response.text);
        else if (found > 0)
            st->response = t.ir;
    }
    if (s->rejects.count) {
        fbe_ir_reject *rejects = alloc0(r, sizeof *rejects * s->rejects.count);
        size_t nr = 0;
        for (size_t i = 0; rejects && i < s->rejects.count; i++) {
            const ast_reject *rj = s->rejects.items[i];
            type_target t;
            int found = lookup_type(r, &rj->name, &t);
            if (found == 0) {
                fbe_error(r->diags, rj->name.loc, "unknown reject type '%s'", rj->name.text);
                continue;
            }
            if (found < 0)
                continue;
            if (t.kind != DECL_STRUCT || !((fbe_ir_struct *)t.ir)->is_message) {
                fbe_error(r->diags, rj->name.loc, "reject type '%s' is not a message",
                          rj->name.text);
                continue;
            }
            bool dup = false;
            for (size_t j = 0; j < nr; j++)
                dup |= rejects[j].type == t.ir;
            if (dup) {
                fbe_error(r->diags, rj->name.loc, "duplicate reject '%s'", rj->name.text);
                continue;
            }
            rejects[nr++] = (fbe_ir_reject){t.ir, rj->global};
        }
        st->rejects = rejects;
        st->reject_count = nr;
    }

    ld->state = 2;
    ld->failed = r->diags->errors != errors_before;
    return !ld->failed;
}

/* ---- type numbers ------------------------------------------------------------------ */

static void assign_type_numbers(resolver *r)
{
    uint32_t counter = 0;
    uint32_t offset = r->pkg->offset;
    for (size_t i = 0; i < r->decl_count; i++) {
        local_decl *ld = &r->decls[i];
        if (ld->kind != DECL_STRUCT)
            continue;
        const ast_struct *s = ld->ast_struct;
        fbe_ir_struct *st = ld->ir;
        lit_int n = {false, 0};
        const char *err;
        if (s->type_spec == AST_TYPE_SPEC_PLUS || s->type_spec == AST_TYPE_SPEC_FIXED) {
            if (!lit_parse_decimal_int(s->type_number_text, &n, &err)) {
                fbe_error(r->diags, s->type_number_loc, "%s", err);
                continue;
            }
            if (n.negative && n.magnitude) {
                fbe_error(r->diags, s->type_number_loc, "type number must not be negative");
                continue;
            }
            if (n.magnitude > UINT32_MAX) {
                fbe_error(r->diags, s->type_number_loc, "type number %s is too large",
                          s->type_number_text);
                continue;
            }
        }
        switch (s->type_spec) {
        case AST_TYPE_SPEC_NONE:
        case AST_TYPE_SPEC_PLUS:
            counter = n.magnitude ? (uint32_t)n.magnitude : counter + 1;
            st->declared_number = counter;
            st->number_fixed = false;
            break;
        case AST_TYPE_SPEC_FIXED:
            st->declared_number = (uint32_t)n.magnitude;
            st->number_fixed = true;
            break;
        case AST_TYPE_SPEC_BASE:
            st->declared_number = 0;
            st->number_fixed = true;
            break;
        }
        if (!st->number_fixed && (uint64_t)st->declared_number + offset > UINT32_MAX) {
            fbe_error(r->diags, s->name.loc,
                      "type number of '%s' overflows with the package offset %u", st->name,
                      offset);
            continue;
        }
    }
}

/* Effective number: (base)/(0)-with-base structs take their base's number,
 * recursively and across packages (imported numbers are already final). */
static uint32_t effective_number(const resolver *r, fbe_ir_struct *st)
{
    if (st->package != r->pkg)
        return st->type_number;
    if (!st->number_fixed)
        st->type_number = st->declared_number + r->pkg->offset;
    else if (st->declared_number == 0 && st->base)
        st->type_number = effective_number(r, (fbe_ir_struct *)st->base);
    else
        st->type_number = st->declared_number;
    return st->type_number;
}

static uint32_t number_of(const local_decl *d)
{
    return ((const fbe_ir_struct *)d->ir)->type_number;
}

/* By type number, then declaration order (decls is one array). */
static int compare_numbers(const void *pa, const void *pb)
{
    const local_decl *a = *(local_decl *const *)pa, *b = *(local_decl *const *)pb;
    if (number_of(a) != number_of(b))
        return number_of(a) < number_of(b) ? -1 : 1;
    return a < b ? -1 : a > b;
}

static void finish_type_numbers(resolver *r)
{
    for (size_t i = 0; i < r->decl_count; i++)
        if (r->decls[i].kind == DECL_STRUCT && !r->decls[i].failed)
            effective_number(r, r->decls[i].ir);
    /* Collisions that break something: two fixed structs with one number (the
     * reference's check, minus its false alarm on two (base) structs), and two
     * messages with one number (the receiver could not tell them apart).
     * Reported in declaration order, each struct against the earlier ones of
     * its number that it can collide with; sorting by number first means no
     * scan over every pair when thousands of structs share a (base) number. */
    size_t n = 0, count = r->decl_count;
    local_decl **sorted = alloc0(r, sizeof *sorted * (count + 1));
    size_t *group = alloc0(r, sizeof *group * (count + 1)); /* decl -> its number's first slot */
    size_t *nfixed = alloc0(r, sizeof *nfixed * (count + 1));
    size_t *nmessages = alloc0(r, sizeof *nmessages * (count + 1));
    local_decl **fixed = alloc0(r, sizeof *fixed * (count + 1));
    local_decl **messages = alloc0(r, sizeof *messages * (count + 1));
    if (!sorted || !group || !nfixed || !nmessages || !fixed || !messages)
        return;
    for (size_t i = 0; i < count; i++)
        if (r->decls[i].kind == DECL_STRUCT && !r->decls[i].failed)
            sorted[n++] = &r->decls[i];
    qsort(sorted, n, sizeof *sorted, compare_numbers);
    for (size_t k = 0, start = 0; k < n; k++) {
        if (k && number_of(sorted[k]) != number_of(sorted[k - 1]))
            start = k;
        group[sorted[k] - r->decls] = start;
    }
    for (size_t i = 0; i < count && !fbe_diags_full(r->diags); i++) {
        local_decl *a = &r->decls[i];
        if (a->kind != DECL_STRUCT || a->failed)
            continue;
        const fbe_ir_struct *sa = a->ir;
        size_t g = group[i];
        bool is_fixed = sa->number_fixed && sa->declared_number;
        /* The earlier candidates of both lists, merged in declaration order. */
        size_t x = 0, y = 0;
        while ((is_fixed && x < nfixed[g]) || (sa->is_message && y < nmessages[g])) {
            local_decl *fb = is_fixed && x < nfixed[g] ? fixed[g + x] : NULL;
            local_decl *mb = sa->is_message && y < nmessages[g] ? messages[g + y] : NULL;
            local_decl *b = !mb || (fb && fb < mb) ? fb : mb;
            x += b == fb;
            y += b == mb;
            const fbe_ir_struct *sb = b->ir;
            fbe_error(r->diags, a->loc, "duplicate type number %u: '%s' and '%s'",
                      sa->type_number, sb->name, sa->name);
            fbe_note(r->diags, b->loc, "'%s' is declared here", sb->name);
            if (fbe_diags_full(r->diags))
                return;
        }
        if (is_fixed)
            fixed[g + nfixed[g]++] = a;
        if (sa->is_message)
            messages[g + nmessages[g]++] = a;
    }
}

/* ---- by-value containment and layout ------------------------------------------------ */

/* The struct a type embeds by value (plain struct field or struct array). */
static const fbe_ir_struct *embedded_struct(const fbe_ir_type *t)
{
    if (t->kind == FBE_IR_STRUCT)
        return t->struct_type;
    if (t->kind == FBE_IR_ARRAY && t->elem->kind == FBE_IR_STRUCT)
        return t->elem->struct_type;
    return NULL;
}

static bool check_sizes(resolver *r, local_decl *ld, bool deep);

static bool layout_struct(resolver *r, local_decl *ld)
{
    if (ld->layout_state == 2)
        return !ld->layout_failed;
    if (ld->layout_state == 1)
        return false;
    ld->layout_state = 1;
    ld->layout_failed = true; /* until the end */
    fbe_ir_struct *st = ld->ir;
    uint32_t height = 1;
    if (st->base) {
        local_decl *b = local_of(r, st->base);
        if (b && b->layout_state == 1) {
            /* The base is being laid out: it holds this struct by value, so
             * this struct would contain itself. */
            fbe_error(r->diags, ld->ast_struct->base.loc,
                      "struct '%s' derives from '%s', which contains '%s' by value (use an "
                      "optional or a collection)",
                      st->name, st->base->name, st->name);
            ld->layout_state = 2;
            return false;
        }
        r->depth++;
        bool ok = !b || layout_struct(r, b);
        r->depth--;
        if (!ok) {
            ld->layout_state = 2;
            return false;
        }
        height = st->base->value_height;
        /* The fields were copied before the base had its offsets (an heir
         * shares its base's array: nothing to copy). */
        if (st->fields != st->base->fields)
            memcpy((fbe_ir_field *)st->fields, st->base->fields,
                   sizeof(fbe_ir_field) * st->own_field_start);
    }
    for (size_t i = st->own_field_start; i < st->field_count; i++) {
        const fbe_ir_field *f = &st->fields[i];
        const fbe_ir_struct *inner = embedded_struct(f->type);
        local_decl *d = inner ? local_of(r, inner) : NULL;
        if (!d)
            continue;
        if (r->depth >= MAX_NESTING) {
            fbe_loc loc = {ld->ast_struct->name.loc.source, f->loc.line, f->loc.col};
            fbe_error(r->diags, loc, "structs are nested by value deeper than %d",
                      MAX_NESTING);
            ld->layout_state = 2;
            return false;
        }
        r->depth++;
        bool ok = d->layout_state != 1 && layout_struct(r, d);
        r->depth--;
        if (!ok) {
            fbe_loc loc = {ld->ast_struct->name.loc.source, f->loc.line, f->loc.col};
            if (d == ld || d->layout_state == 1)
                fbe_error(r->diags, loc,
                          "struct '%s' contains itself by value through field '%s' (use an "
                          "optional or a collection)",
                          st->name, f->name);
            ld->layout_state = 2;
            return false;
        }
    }
    /* The recursion guard above only sees structs laid out on the way; the
     * height holds in any declaration order and across packages. */
    for (size_t i = st->own_field_start; i < st->field_count; i++) {
        const fbe_ir_field *f = &st->fields[i];
        const fbe_ir_struct *inner = embedded_struct(f->type);
        if (!inner || inner->value_height + 1 <= height)
            continue;
        height = inner->value_height + 1;
        if (height > MAX_NESTING) {
            fbe_loc loc = {ld->ast_struct->name.loc.source, f->loc.line, f->loc.col};
            fbe_error(r->diags, loc, "structs are nested by value deeper than %d", MAX_NESTING);
            ld->layout_state = 2;
            return false;
        }
    }
    st->value_height = height;
    fbe_layout_struct(st);
    ld->layout_state = 2;
    ld->layout_failed = !check_sizes(r, ld, false);
    return !ld->layout_failed;
}

static void report_field_too_large(resolver *r, const local_decl *ld, const fbe_ir_field *f)
{
    char tname[256];
    fbe_ir_type_spelling(f->type, tname, sizeof tname);
    fbe_loc loc = {ld->ast_struct->name.loc.source, f->loc.line, f->loc.col};
    fbe_error(r->diags, loc, "field '%s' of type '%s' is larger than %u GiB, the limit of a type's size",
              f->name, tname, (unsigned)(FBE_IR_MAX_SIZE >> 30));
}

/* Sizes saturate rather than wrap (ir/layout.c), so one comparison per type is
 * exact. `deep`: collection elements and map entries are laid out too. */
static bool check_sizes(resolver *r, local_decl *ld, bool deep)
{
    const fbe_ir_struct *st = ld->ir;
    for (size_t i = st->own_field_start; i < st->field_count; i++) {
        const fbe_ir_field *f = &st->fields[i];
        if (fbe_ir_type_too_large(f->type) ||
            (deep && f->type->elem && fbe_ir_type_too_large(f->type->elem))) {
            report_field_too_large(r, ld, f);
            return false;
        }
    }
    if (!deep && fbe_ir_struct_too_large(st)) {
        fbe_error(r->diags, ld->loc, "struct '%s' is larger than %u GiB, the limit of a type's size",
                  st->name, (unsigned)(FBE_IR_MAX_SIZE >> 30));
        return false;
    }
    return true;
}

/* ---- package ----------------------------------------------------------------------- */

/* Transitive imports, each once (import graphs may share packages). */
static bool add_visible(resolver *r, const fbe_ir_package *p, size_t *cap)
{
    for (size_t i = 0; i < r->visible_count; i++)
        if (r->visible[i] == p)
            return true;
    if (r->visible_count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        const fbe_ir_package **grown = alloc0(r, sizeof(void *) * ncap);
        if (!grown)
            return false;
        if (r->visible_count)
            memcpy(grown, r->visible, sizeof(void *) * r->visible_count);
        r->visible = grown;
        *cap = ncap;
    }
    r->visible[r->visible_count++] = p;
    for (size_t i = 0; i < p->import_count; i++)
        if (!add_visible(r, p->imports[i], cap))
            return false;
    return true;
}

static void parse_header(resolver *r)
{
    const ast_file *f = r->file;
    fbe_ir_package *pkg = r->pkg;
    if (f->offset_text) {
        lit_int n;
        const char *err;
        if (!lit_parse_decimal_int(f->offset_text, &n, &err))
            fbe_error(r->diags, f->offset_loc, "%s", err);
        else if (n.negative && n.magnitude)
            fbe_error(r->diags, f->offset_loc, "package offset must not be negative");
        else if (n.magnitude > UINT32_MAX)
            fbe_error(r->diags, f->offset_loc, "package offset %s is too large", f->offset_text);
        else
            pkg->offset = (uint32_t)n.magnitude;
    }
    if (f->version_text) {
        /* The reference reads major and minor with atoi on each side of the '.'. */
        const char *t = f->version_text;
        const char *dot = strchr(t, '.');
        if (dot) {
            pkg->version_major = (uint32_t)strtoul(t, NULL, 10);
            pkg->version_minor = (uint32_t)strtoul(dot + 1, NULL, 10);
        } else {
            pkg->version_major = 0;
            pkg->version_minor = (uint32_t)strtoul(t, NULL, 10);
        }
    }
}

fbe_ir_package *fbe_resolve_package(fbe_arena *arena, fbe_diags *diags, const ast_file *file,
                                    const fbe_ir_package *const *imports, size_t import_count)
{
    resolver rs = {.arena = arena, .diags = diags, .file = file};
    resolver *r = &rs;
    unsigned errors_before = diags->errors;
    fbe_ir_package *pkg = alloc0(r, sizeof *pkg);
    if (!pkg)
        return NULL;
    r->pkg = pkg;
    pkg->name = file->package.text;
    pkg->domain = file->has_domain ? file->domain.text : NULL;
    pkg->path = file->source->path;
    const fbe_ir_package **imp = alloc0(r, sizeof(void *) * (import_count + 1));
    if (!imp)
        return NULL;
    for (size_t i = 0; i < import_count; i++)
        imp[i] = imports[i];
    pkg->imports = imp;
    pkg->import_count = import_count;

    size_t cap = 0;
    for (size_t i = 0; i < import_count; i++)
        if (!add_visible(r, imports[i], &cap))
            return NULL;

    parse_header(r);
    if (!collect_decls(r) || !check_c_names(r))
        return NULL;
    plan_field_sharing(r);

    for (size_t i = 0; i < r->decl_count && !fbe_diags_full(diags); i++)
        if (r->decls[i].kind != DECL_STRUCT)
            resolve_enum(r, &r->decls[i]);
    for (size_t i = 0; i < r->decl_count && !fbe_diags_full(diags); i++)
        if (r->decls[i].kind == DECL_STRUCT)
            resolve_struct(r, &r->decls[i]);
    assign_type_numbers(r);

    if (diags->errors == errors_before) {
        for (size_t i = 0; i < r->decl_count; i++)
            if (r->decls[i].kind == DECL_STRUCT)
                layout_struct(r, &r->decls[i]);
    }
    if (diags->errors == errors_before) {
        /* Collection elements and map entries last: they may name any struct. */
        for (size_t i = 0; i < r->decl_count; i++) {
            if (r->decls[i].kind != DECL_STRUCT)
                continue;
            fbe_ir_struct *st = r->decls[i].ir;
            for (size_t j = st->own_field_start; j < st->field_count; j++)
                fbe_layout_type_deep((fbe_ir_type *)st->fields[j].type);
            check_sizes(r, &r->decls[i], true);
        }
    }
    finish_type_numbers(r);
    return diags->errors == errors_before ? pkg : NULL;
}
