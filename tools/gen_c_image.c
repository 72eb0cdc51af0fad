/* The IR image of a static C codec: every IR object of the schema as constant
 * C data, the C twin of jit/image.c's LLVM globals (same objects, same links,
 * the same fbe_aot_image descriptor). Written with designated initializers, so
 * the C compiler itself lays the structs out: no layout description is needed.
 *
 * Names: ir_p<i> (package i of the schema, imports first) with ir_p<i>_imports,
 * _enums, _flags, _structs; ir_e<k>/ir_e<k>_v (enums and their values),
 * ir_g<k>/ir_g<k>_v (flags), ir_s<k>/ir_s<k>_f/ir_s<k>_r (struct k of the
 * codec's type table, its fields and rejects), ir_t<k> (type nodes, in the
 * order jit/image.c discovers them), ir_packages.
 *
 * Structs that share one IR field array (ir/resolve.c: a base's first derived
 * struct, its heir, appends its fields to the base's array) share one image
 * array too, named after and as long as its longest user; the others'
 * ir_s<k>_f is a macro for it, so the code that names a struct's fields needs
 * no exception. A chain of N levels of F fields is then N*F field records, not
 * N*N*F/2 (docs/aot.md, "The image"). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen_c_internal.h"
#include "ptrmap.h"

#ifndef FBE_VERSION
#define FBE_VERSION "unknown"
#endif

/* ---- the object tables ----------------------------------------------------------- */

/* Host pointer -> index: every field refers to its type, so a linear search
 * per reference would be quadratic in the schema. */
typedef fbe_ptrmap ptr_index;

static size_t index_get(const ptr_index *m, const void *p)
{
    uintptr_t v;
    return fbe_ptrmap_find(m, p, &v) ? (size_t)v : (size_t)-1;
}

static bool index_put(ptr_index *m, const void *p, size_t v)
{
    bool added;
    uintptr_t *slot = fbe_ptrmap_slot(m, p, &added);
    if (slot)
        *slot = v;
    return slot != NULL;
}

static void index_free(ptr_index *m)
{
    fbe_ptrmap_free(m);
}

typedef struct objs {
    const fbe_ir_enum **enums;
    size_t enum_count;
    const fbe_ir_flags **flags;
    size_t flags_count;
    const fbe_ir_type **types;
    size_t type_count, type_cap;
    ptr_index type_index;
    /* fields_of[k]: the struct whose ir_s<j>_f holds struct k's fields (k
     * itself unless it shares another's array); seen[j]: how many records of
     * that array collect() has walked. */
    size_t *fields_of, *seen;
} objs;

static objs O;

static void objs_free(void)
{
    free(O.enums);
    free(O.flags);
    free(O.types);
    index_free(&O.type_index);
    free(O.fields_of);
    free(O.seen);
    memset(&O, 0, sizeof O);
}

static size_t find(const void *const *items, size_t n, const void *p)
{
    for (size_t i = 0; i < n; i++)
        if (items[i] == p)
            return i;
    return (size_t)-1;
}

static void add_type(gc *g, const fbe_ir_type *t)
{
    if (!t || index_get(&O.type_index, t) != (size_t)-1)
        return;
    if (O.type_count == O.type_cap) {
        size_t cap = O.type_cap ? O.type_cap * 2 : 64;
        const fbe_ir_type **n = realloc(O.types, cap * sizeof *n);
        if (!n) {
            gc_error(g, "out of memory");
            return;
        }
        O.types = n;
        O.type_cap = cap;
    }
    if (!index_put(&O.type_index, t, O.type_count)) {
        gc_error(g, "out of memory");
        return;
    }
    O.types[O.type_count++] = t;
    add_type(g, t->elem);
    add_type(g, t->key);
}

/* qsort has no context argument: the struct table being sorted. */
static const fbe_ir_struct *const *O_sort_structs;

/* By field array, the longest user first, then by type-table order: the first
 * of a run sharing one array names it. */
static int by_fields(const void *pa, const void *pb)
{
    const fbe_ir_struct *a = O_sort_structs[*(const size_t *)pa];
    const fbe_ir_struct *b = O_sort_structs[*(const size_t *)pb];
    size_t ka = *(const size_t *)pa, kb = *(const size_t *)pb;
    if (a->fields != b->fields)
        return (uintptr_t)a->fields < (uintptr_t)b->fields ? -1 : 1;
    if (a->field_count != b->field_count)
        return a->field_count > b->field_count ? -1 : 1;
    return ka < kb ? -1 : ka > kb;
}

static void share_field_arrays(gc *g)
{
    size_t n = g->struct_count;
    size_t *order = malloc(sizeof *order * (n + 1));
    O.fields_of = malloc(sizeof *O.fields_of * (n + 1));
    O.seen = calloc(n + 1, sizeof *O.seen);
    if (!order || !O.fields_of || !O.seen) {
        free(order);
        gc_error(g, "out of memory");
        return;
    }
    for (size_t k = 0; k < n; k++) {
        order[k] = k;
        O.fields_of[k] = k;
    }
    O_sort_structs = g->structs;
    qsort(order, n, sizeof *order, by_fields);
    O_sort_structs = NULL;
    /* Only structs with fields: an empty struct's image has no array (NULL). */
    for (size_t i = 0, run = 0; i < n; i++) {
        const fbe_ir_struct *st = g->structs[order[i]];
        if (i == 0 || st->fields != g->structs[order[run]]->fields)
            run = i;
        if (st->field_count)
            O.fields_of[order[i]] = order[run];
    }
    free(order);
}

static void collect(gc *g)
{
    size_t np = fbe_schema_package_count(g->schema), ne = 0, nf = 0;
    for (size_t i = 0; i < np; i++) {
        ne += fbe_schema_package(g->schema, i)->enum_count;
        nf += fbe_schema_package(g->schema, i)->flags_count;
    }
    objs_free();
    O.enums = calloc(ne + 1, sizeof *O.enums);
    O.flags = calloc(nf + 1, sizeof *O.flags);
    if (!O.enums || !O.flags) {
        gc_error(g, "out of memory");
        return;
    }
    share_field_arrays(g);
    if (g->failed)
        return;
    for (size_t i = 0; i < np; i++) {
        const fbe_ir_package *p = fbe_schema_package(g->schema, i);
        for (size_t k = 0; k < p->enum_count; k++)
            O.enums[O.enum_count++] = p->enums[k];
        for (size_t k = 0; k < p->flags_count; k++)
            O.flags[O.flags_count++] = p->flags[k];
        /* A shared array's prefix was walked for an earlier user: the types
         * come out in the same order, each record visited once. */
        for (size_t k = 0; k < p->struct_count; k++) {
            const fbe_ir_struct *st = p->structs[k];
            size_t at = gc_struct_index(g, st);
            if (at == (size_t)-1) {
                gc_error(g, "IR image: struct %s is not part of the schema", st->full_name);
                return;
            }
            size_t *seen = &O.seen[O.fields_of[at]];
            for (size_t f = *seen; f < st->field_count; f++)
                add_type(g, st->fields[f].type);
            if (st->field_count > *seen)
                *seen = st->field_count;
        }
    }
}

static size_t pkg_index(gc *g, const fbe_ir_package *p)
{
    size_t np = fbe_schema_package_count(g->schema);
    for (size_t i = 0; i < np; i++)
        if (fbe_schema_package(g->schema, i) == p)
            return i;
    gc_error(g, "IR image: package %s is not part of the schema", p ? p->name : "?");
    return 0;
}

/* ---- spelling C constants --------------------------------------------------------- */

static void lit(gc *g, const char *s, size_t len)
{
    if (!s) {
        gc_printf(g, "NULL");
        return;
    }
    gc_printf(g, "\"");
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            gc_printf(g, "\\%c", c);
        else if (c == '?')
            gc_printf(g, "\\?"); /* no trigraphs */
        else if (c >= 0x20 && c < 0x7f)
            gc_printf(g, "%c", c);
        else
            gc_printf(g, "\\%03o", c);
    }
    gc_printf(g, "\"");
}

static void str(gc *g, const char *s)
{
    lit(g, s, s ? strlen(s) : 0);
}

static const char *tf(bool b)
{
    return b ? "true" : "false";
}

static void kind_name(gc *g, fbe_ir_kind k)
{
    const char *n = fbe_ir_kind_name(k);
    gc_printf(g, "FBE_IR_");
    for (; *n; n++)
        gc_printf(g, "%c", *n >= 'a' && *n <= 'z' ? *n - 'a' + 'A' : *n);
}

static const char *const value_kinds[] = {
    "FBE_IR_VALUE_NONE",  "FBE_IR_VALUE_NULL",    "FBE_IR_VALUE_BOOL",  "FBE_IR_VALUE_INT",
    "FBE_IR_VALUE_FLOAT", "FBE_IR_VALUE_DECIMAL", "FBE_IR_VALUE_STRING", "FBE_IR_VALUE_UUID",
    "FBE_IR_VALUE_UUID1", "FBE_IR_VALUE_UUID4",   "FBE_IR_VALUE_UTC"};

/* The exact double: a hexadecimal literal (infinities and NaN by macro). */
static void dbl(gc *g, double d)
{
    if (isnan(d))
        gc_printf(g, "%sNAN", signbit(d) ? "-" : "");
    else if (isinf(d))
        gc_printf(g, "%sHUGE_VAL", d < 0 ? "-" : "");
    else
        gc_printf(g, "%a", d);
}

static void loc(gc *g, const fbe_ir_source_loc *l)
{
    gc_printf(g, "    .loc = {");
    str(g, l->file);
    gc_printf(g, ", %" PRIu32 "u, %" PRIu32 "u},\n", l->line, l->col);
}

static void ref_struct(gc *g, const fbe_ir_struct *st)
{
    if (!st) {
        gc_printf(g, "NULL");
        return;
    }
    size_t k = gc_struct_index(g, st);
    if (k == (size_t)-1)
        gc_error(g, "IR image: struct %s is not part of the schema", st->full_name);
    gc_printf(g, "&ir_s%zu", k);
}

static void ref_type(gc *g, const fbe_ir_type *t)
{
    if (!t) {
        gc_printf(g, "NULL");
        return;
    }
    size_t k = index_get(&O.type_index, t);
    if (k == (size_t)-1)
        gc_error(g, "IR image: a type is not part of the schema");
    gc_printf(g, "&ir_t%zu", k);
}

/* ---- declarations ------------------------------------------------------------------ */

void gc_emit_image_decls(gc *g)
{
    collect(g);
    if (g->failed)
        return;
    size_t np = fbe_schema_package_count(g->schema);
    gc_printf(g, "\n/* ---- the IR image (fbe/ir.h as constant data) ---- */\n\n");
    for (size_t i = 0; i < np; i++) {
        const fbe_ir_package *p = fbe_schema_package(g->schema, i);
        gc_printf(g, "static const fbe_ir_package ir_p%zu;\n", i);
        if (p->import_count)
            gc_printf(g, "static const fbe_ir_package *const ir_p%zu_imports[%zu];\n", i,
                      p->import_count);
        if (p->enum_count)
            gc_printf(g, "static const fbe_ir_enum *const ir_p%zu_enums[%zu];\n", i, p->enum_count);
        if (p->flags_count)
            gc_printf(g, "static const fbe_ir_flags *const ir_p%zu_flags[%zu];\n", i,
                      p->flags_count);
        if (p->struct_count)
            gc_printf(g, "static const fbe_ir_struct *const ir_p%zu_structs[%zu];\n", i,
                      p->struct_count);
    }
    for (size_t k = 0; k < O.enum_count; k++) {
        gc_printf(g, "static const fbe_ir_enum ir_e%zu;\n", k);
        if (O.enums[k]->value_count)
            gc_printf(g, "static const fbe_ir_enum_value ir_e%zu_v[%zu];\n", k,
                      O.enums[k]->value_count);
    }
    for (size_t k = 0; k < O.flags_count; k++) {
        gc_printf(g, "static const fbe_ir_flags ir_g%zu;\n", k);
        if (O.flags[k]->value_count)
            gc_printf(g, "static const fbe_ir_enum_value ir_g%zu_v[%zu];\n", k,
                      O.flags[k]->value_count);
    }
    for (size_t k = 0; k < g->struct_count; k++) {
        const fbe_ir_struct *st = g->structs[k];
        gc_printf(g, "static const fbe_ir_struct ir_s%zu; /* %s */\n", k, st->full_name);
        if (st->field_count && O.fields_of[k] == k)
            gc_printf(g, "static const fbe_ir_field ir_s%zu_f[%zu];\n", k, st->field_count);
        else if (st->field_count)
            gc_printf(g, "#define ir_s%zu_f ir_s%zu_f /* the same field array */\n", k,
                      O.fields_of[k]);
        if (st->reject_count)
            gc_printf(g, "static const fbe_ir_reject ir_s%zu_r[%zu];\n", k, st->reject_count);
    }
    for (size_t k = 0; k < O.type_count; k++)
        gc_printf(g, "static const fbe_ir_type ir_t%zu;\n", k);
}

/* ---- definitions ------------------------------------------------------------------- */

static void values(gc *g, const char *name, const fbe_ir_enum_value *v, size_t n)
{
    if (!n)
        return;
    gc_printf(g, "static const fbe_ir_enum_value %s[%zu] = {\n", name, n);
    for (size_t i = 0; i < n; i++) {
        gc_printf(g, "    {");
        str(g, v[i].name);
        gc_printf(g, ", UINT64_C(%" PRIu64 "), %s, %s},\n", v[i].value, tf(v[i].deprecated),
                  tf(v[i].hidden));
    }
    gc_printf(g, "};\n");
}

/* fbe_ir_enum and fbe_ir_flags have the same members. */
#define ENUM_DEF(T, pre, k, x)                                                            \
    do {                                                                                  \
        gc_printf(g, "static const " #T " " pre "%zu = {\n    .name = ", k);              \
        str(g, (x)->name);                                                                \
        gc_printf(g, ",\n    .full_name = ");                                             \
        str(g, (x)->full_name);                                                           \
        gc_printf(g, ",\n    .c_name = ");                                                \
        str(g, (x)->c_name);                                                              \
        gc_printf(g, ",\n    .package = &ir_p%zu,\n    .base = ", pkg_index(g, (x)->package)); \
        kind_name(g, (x)->base);                                                          \
        if ((x)->value_count)                                                             \
            gc_printf(g, ",\n    .values = " pre "%zu_v", k);                             \
        gc_printf(g, ",\n    .value_count = %zu,\n    .deprecated = %s,\n    .hidden = %s,\n", \
                  (x)->value_count, tf((x)->deprecated), tf((x)->hidden));                \
        loc(g, &(x)->loc);                                                                \
        gc_printf(g, "};\n");                                                             \
    } while (0)

static void field_def(gc *g, const fbe_ir_field *f)
{
    gc_printf(g, "    {\n        .name = ");
    str(g, f->name);
    gc_printf(g, ",\n        .c_name = ");
    str(g, f->c_name);
    gc_printf(g, ",\n        .type = ");
    ref_type(g, f->type);
    gc_printf(g, ",\n        .owner = ");
    ref_struct(g, f->owner);
    gc_printf(g,
              ",\n        .index = %" PRIu32 "u,\n        .std_offset = %" PRIu32
              "u,\n        .host_offset = %" PRIu32 "u,\n",
              f->index, f->std_offset, f->host_offset);
    gc_printf(g,
              "        .is_key = %s,\n        .is_id = %s,\n        .hidden = %s,\n"
              "        .deprecated = %s,\n        .is_reset_flag = %s,\n",
              tf(f->is_key), tf(f->is_id), tf(f->hidden), tf(f->deprecated), tf(f->is_reset_flag));
    const fbe_ir_value *d = &f->default_value;
    size_t vk = (size_t)d->kind;
    gc_printf(g, "        .default_value = {.kind = %s, .b = %s, .u = UINT64_C(%" PRIu64 "), .d = ",
              vk < sizeof value_kinds / sizeof *value_kinds ? value_kinds[vk] : "FBE_IR_VALUE_NONE",
              tf(d->b), d->u);
    dbl(g, d->d);
    gc_printf(g, ",\n            .dec = {UINT64_C(%" PRIu64 "), %" PRIu32 "u, %" PRIu32 "u}, .str = {",
              d->dec.lo, d->dec.hi, d->dec.flags);
    lit(g, d->str.data, d->str.size);
    gc_printf(g, ", %zu},\n            .uuid = {{", d->str.size);
    for (int i = 0; i < 16; i++)
        gc_printf(g, "%s0x%02x", i ? ", " : "", d->uuid.bytes[i]);
    gc_printf(g, "}}},\n");
    gc_printf(g, "        .loc = {");
    str(g, f->loc.file);
    gc_printf(g, ", %" PRIu32 "u, %" PRIu32 "u},\n    },\n", f->loc.line, f->loc.col);
}

static void struct_def(gc *g, size_t k)
{
    const fbe_ir_struct *st = g->structs[k];
    gc_printf(g, "static const fbe_ir_struct ir_s%zu = {\n    .name = ", k);
    str(g, st->name);
    gc_printf(g, ",\n    .full_name = ");
    str(g, st->full_name);
    gc_printf(g, ",\n    .c_name = ");
    str(g, st->c_name);
    gc_printf(g, ",\n    .package = &ir_p%zu,\n", pkg_index(g, st->package));
    gc_printf(g, "    .is_message = %s,\n    .deprecated = %s,\n    .hidden = %s,\n",
              tf(st->is_message), tf(st->deprecated), tf(st->hidden));
    gc_printf(g,
              "    .type_number = %" PRIu32 "u,\n    .declared_number = %" PRIu32
              "u,\n    .number_fixed = %s,\n    .base = ",
              st->type_number, st->declared_number, tf(st->number_fixed));
    ref_struct(g, st->base);
    gc_printf(g, ",\n    .base_depth = %" PRIu32 "u,\n    .value_height = %" PRIu32 "u",
              st->base_depth, st->value_height);
    if (st->field_count)
        gc_printf(g, ",\n    .fields = ir_s%zu_f", O.fields_of[k]);
    gc_printf(g, ",\n    .field_count = %zu,\n    .own_field_start = %zu,\n", st->field_count,
              st->own_field_start);
    gc_printf(g,
              "    .std_body_size = %" PRIu32 "u,\n    .final_fixed = %s,\n    .final_size = %" PRIu32
              "u,\n    .host_size = %" PRIu32 "u,\n    .host_align = %" PRIu32 "u,\n",
              st->std_body_size, tf(st->final_fixed), st->final_size, st->host_size,
              st->host_align);
    gc_printf(g, "    .is_request = %s,\n    .response = ", tf(st->is_request));
    ref_struct(g, st->response);
    if (st->reject_count)
        gc_printf(g, ",\n    .rejects = ir_s%zu_r", k);
    gc_printf(g, ",\n    .reject_count = %zu,\n", st->reject_count);
    loc(g, &st->loc);
    gc_printf(g, "};\n");
    if (st->field_count && O.fields_of[k] == k) {
        gc_printf(g, "static const fbe_ir_field ir_s%zu_f[%zu] = {\n", k, st->field_count);
        for (size_t i = 0; i < st->field_count; i++)
            field_def(g, &st->fields[i]);
        gc_printf(g, "};\n");
    }
    if (st->reject_count) {
        gc_printf(g, "static const fbe_ir_reject ir_s%zu_r[%zu] = {\n", k, st->reject_count);
        for (size_t i = 0; i < st->reject_count; i++) {
            gc_printf(g, "    {");
            ref_struct(g, st->rejects[i].type);
            gc_printf(g, ", %s},\n", tf(st->rejects[i].global));
        }
        gc_printf(g, "};\n");
    }
}

static void type_def(gc *g, size_t k)
{
    const fbe_ir_type *t = O.types[k];
    gc_printf(g, "static const fbe_ir_type ir_t%zu = {\n    .kind = ", k);
    kind_name(g, t->kind);
    gc_printf(g, ",\n    .elem = ");
    ref_type(g, t->elem);
    gc_printf(g, ",\n    .key = ");
    ref_type(g, t->key);
    gc_printf(g, ",\n    .array_len = %" PRIu32 "u,\n", t->array_len);
    if (t->enum_type)
        gc_printf(g, "    .enum_type = &ir_e%zu,\n",
                  find((const void *const *)O.enums, O.enum_count, t->enum_type));
    if (t->flags_type)
        gc_printf(g, "    .flags_type = &ir_g%zu,\n",
                  find((const void *const *)O.flags, O.flags_count, t->flags_type));
    if (t->struct_type) {
        gc_printf(g, "    .struct_type = ");
        ref_struct(g, t->struct_type);
        gc_printf(g, ",\n");
    }
    gc_printf(g,
              "    .std_inline_size = %" PRIu32 "u,\n    .final_fixed = %s,\n    .final_size = %" PRIu32
              "u,\n    .host_size = %" PRIu32 "u,\n    .host_align = %" PRIu32
              "u,\n    .host_value_offset = %" PRIu32 "u,\n    .host_entry_value_offset = %" PRIu32
              "u,\n    .host_entry_size = %" PRIu32 "u,\n};\n",
              t->std_inline_size, tf(t->final_fixed), t->final_size, t->host_size, t->host_align,
              t->host_value_offset, t->host_entry_value_offset, t->host_entry_size);
}

static void ptr_array(gc *g, const char *type, const char *name, size_t i, const char *pre,
                      const void *const *items, size_t n, const void *const *all, size_t all_n)
{
    if (!n)
        return;
    gc_printf(g, "static const %s *const ir_p%zu_%s[%zu] = {", type, i, name, n);
    for (size_t k = 0; k < n; k++) {
        size_t at = find(all, all_n, items[k]);
        if (at == (size_t)-1)
            gc_error(g, "IR image: a %s is not part of the schema", type);
        gc_printf(g, "%s&%s%zu", k ? ", " : "", pre, at);
    }
    gc_printf(g, "};\n");
}

void gc_emit_image(gc *g)
{
    if (g->failed)
        return;
    size_t np = fbe_schema_package_count(g->schema);
    const fbe_ir_package **pk = calloc(np + 1, sizeof *pk);
    if (!pk) {
        gc_error(g, "out of memory");
        return;
    }
    for (size_t i = 0; i < np; i++)
        pk[i] = fbe_schema_package(g->schema, i);
    for (size_t i = 0; i < np; i++) {
        const fbe_ir_package *p = pk[i];
        gc_printf(g, "\nstatic const fbe_ir_package ir_p%zu = {\n    .name = ", i);
        str(g, p->name);
        gc_printf(g, ",\n    .domain = ");
        str(g, p->domain);
        gc_printf(g,
                  ",\n    .offset = %" PRIu32 "u,\n    .version_major = %" PRIu32
                  "u,\n    .version_minor = %" PRIu32 "u,\n    .path = ",
                  p->offset, p->version_major, p->version_minor);
        str(g, p->path);
        gc_printf(g, ",\n");
        if (p->import_count)
            gc_printf(g, "    .imports = ir_p%zu_imports,\n", i);
        gc_printf(g, "    .import_count = %zu,\n", p->import_count);
        if (p->enum_count)
            gc_printf(g, "    .enums = ir_p%zu_enums,\n", i);
        gc_printf(g, "    .enum_count = %zu,\n", p->enum_count);
        if (p->flags_count)
            gc_printf(g, "    .flags = ir_p%zu_flags,\n", i);
        gc_printf(g, "    .flags_count = %zu,\n", p->flags_count);
        if (p->struct_count)
            gc_printf(g, "    .structs = ir_p%zu_structs,\n", i);
        gc_printf(g, "    .struct_count = %zu,\n};\n", p->struct_count);
        ptr_array(g, "fbe_ir_package", "imports", i, "ir_p", (const void *const *)p->imports,
                  p->import_count, (const void *const *)pk, np);
        ptr_array(g, "fbe_ir_enum", "enums", i, "ir_e", (const void *const *)p->enums,
                  p->enum_count, (const void *const *)O.enums, O.enum_count);
        ptr_array(g, "fbe_ir_flags", "flags", i, "ir_g", (const void *const *)p->flags,
                  p->flags_count, (const void *const *)O.flags, O.flags_count);
        ptr_array(g, "fbe_ir_struct", "structs", i, "ir_s", (const void *const *)p->structs,
                  p->struct_count, (const void *const *)g->structs, g->struct_count);
    }
    gc_printf(g, "\nstatic const fbe_ir_package *const ir_packages[%zu] = {", np);
    for (size_t i = 0; i < np; i++)
        gc_printf(g, "%s&ir_p%zu", i ? ", " : "", i);
    gc_printf(g, "};\n\n");
    free(pk);
    for (size_t k = 0; k < O.enum_count; k++) {
        ENUM_DEF(fbe_ir_enum, "ir_e", k, O.enums[k]);
        char name[64];
        snprintf(name, sizeof name, "ir_e%zu_v", k);
        values(g, name, O.enums[k]->values, O.enums[k]->value_count);
    }
    for (size_t k = 0; k < O.flags_count; k++) {
        ENUM_DEF(fbe_ir_flags, "ir_g", k, O.flags[k]);
        char name[64];
        snprintf(name, sizeof name, "ir_g%zu_v", k);
        values(g, name, O.flags[k]->values, O.flags[k]->value_count);
    }
    for (size_t k = 0; k < g->struct_count; k++)
        struct_def(g, k);
    for (size_t k = 0; k < O.type_count; k++)
        type_def(g, k);
}

/* The type table, the exported image and fbe_<P>_codec_create(), after the
 * entry points they refer to. */
void gc_emit_image_tail(gc *g)
{
    char prefix[FBE_IR_MAX_PREFIX + 1];
    fbe_ir_package_prefix(g->root, prefix);
    static const char *const models[2] = {"std", "final"};
    static const char *const ops[4] = {"size", "serialize", "verify", "deserialize"};
    gc_printf(g, "\n/* ---- the image descriptor ---- */\n\n");
    gc_printf(g, "static const fbe_aot_type sc_types[%zu] = {\n", g->struct_count);
    for (size_t k = 0; k < g->struct_count; k++) {
        const fbe_ir_struct *st = g->structs[k];
        const char *pre = st->package == g->root ? "fbe" : "sc";
        gc_printf(g, "    {&ir_s%zu, {", k);
        for (int m = 0; m < 2; m++) {
            gc_printf(g, "%s{", m ? ", " : "");
            for (int op = 0; op < 4; op++)
                gc_printf(g, "%s%s_%s_%s_%s", op ? ", " : "", pre, st->c_name, models[m], ops[op]);
            gc_printf(g, "}");
        }
        gc_printf(g, "}},\n");
    }
    gc_printf(g, "};\n\n");
    size_t root = pkg_index(g, g->root);
    gc_printf(g, "extern const fbe_aot_image %s_aot_image;\n", prefix);
    gc_printf(g,
              "const fbe_aot_image %s_aot_image = {\n"
              "    .abi_version = FBE_AOT_ABI_VERSION,\n"
              "    .layout_check = FBE_AOT_LAYOUT_CHECK,\n"
              "    .max_depth = SC_MAX_DEPTH,\n"
              "    .flags = FBE_AOT_IMAGE_STATIC_C,\n"
              "    .fbe_version = ",
              prefix);
    str(g, FBE_VERSION);
    gc_printf(g,
              ",\n    .target = \"C11 (fbec c)\",\n"
              "    .root = &ir_p%zu,\n"
              "    .packages = ir_packages,\n"
              "    .package_count = %zu,\n"
              "    .types = sc_types,\n"
              "    .type_count = %zu,\n"
              "};\n\n",
              root, fbe_schema_package_count(g->schema), g->struct_count);
    gc_printf(g,
              "fbe_codec *%s_codec_create(fbe_status *status);\n"
              "fbe_codec *%s_codec_create(fbe_status *status)\n"
              "{\n"
              "    return fbe_aot_codec_create(&%s_aot_image, status);\n"
              "}\n",
              prefix, prefix, prefix);
    objs_free();
}
