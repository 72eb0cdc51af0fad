/* The IR image's plan (image_plan.h): the objects, their order and names, and
 * the members of every record read through one description of each C struct. */
#include "image_plan.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbe/aot.h"

_Static_assert(sizeof(void *) == 8 && sizeof(size_t) == 8, "the IR image assumes LP64");
_Static_assert(sizeof(bool) == 1, "bool is one byte");
_Static_assert(sizeof(fbe_ir_kind) == 4 && sizeof(fbe_ir_value_kind) == 4, "enums are int");
_Static_assert(sizeof(double) == 8, "double is 64-bit");
_Static_assert(sizeof(fbe_uuid) == 16 && alignof(fbe_uuid) == 1, "uuid is 16 bytes");

/* ---- the C structs, member by member ------------------------------------------ */

#define MB(T, f, k) {#f, offsetof(T, f), FBE_IMAGE_##k, 0, 0}
#define MBA(T, f, k, a) {#f, offsetof(T, f), FBE_IMAGE_##k, a, 0}
#define MBN(T, f, k, n) {#f, offsetof(T, f), FBE_IMAGE_##k, 0, offsetof(T, n)}
#define LOC(T) MBA(T, loc.file, STR, alignof(fbe_ir_source_loc)), MB(T, loc.line, U32), MB(T, loc.col, U32)

static const fbe_image_member type_m[] = {
    MB(fbe_ir_type, kind, I32),
    MB(fbe_ir_type, elem, REF),
    MB(fbe_ir_type, key, REF),
    MB(fbe_ir_type, array_len, U32),
    MB(fbe_ir_type, enum_type, REF),
    MB(fbe_ir_type, flags_type, REF),
    MB(fbe_ir_type, struct_type, REF),
    MB(fbe_ir_type, std_inline_size, U32),
    MB(fbe_ir_type, final_fixed, BOOL),
    MB(fbe_ir_type, final_size, U32),
    MB(fbe_ir_type, host_size, U32),
    MB(fbe_ir_type, host_align, U32),
    MB(fbe_ir_type, host_value_offset, U32),
    MB(fbe_ir_type, host_entry_value_offset, U32),
    MB(fbe_ir_type, host_entry_size, U32),
};

static const fbe_image_member enum_value_m[] = {
    MB(fbe_ir_enum_value, name, STR),
    MB(fbe_ir_enum_value, value, U64),
    MB(fbe_ir_enum_value, deprecated, BOOL),
    MB(fbe_ir_enum_value, hidden, BOOL),
};

/* fbe_ir_enum and fbe_ir_flags have the same members. */
#define ENUM_MEMBERS(T)                                                                   \
    MB(T, name, STR), MB(T, full_name, STR), MB(T, c_name, STR), MB(T, package, REF),     \
        MB(T, base, I32), MBN(T, values, ARRAY, value_count), MB(T, value_count, U64),    \
        MB(T, deprecated, BOOL), MB(T, hidden, BOOL), LOC(T)

static const fbe_image_member enum_m[] = {ENUM_MEMBERS(fbe_ir_enum)};
static const fbe_image_member flags_m[] = {ENUM_MEMBERS(fbe_ir_flags)};

static const fbe_image_member field_m[] = {
    MB(fbe_ir_field, name, STR),
    MB(fbe_ir_field, c_name, STR),
    MB(fbe_ir_field, type, REF),
    MB(fbe_ir_field, owner, REF),
    MB(fbe_ir_field, index, U32),
    MB(fbe_ir_field, std_offset, U32),
    MB(fbe_ir_field, host_offset, U32),
    MB(fbe_ir_field, is_key, BOOL),
    MB(fbe_ir_field, is_id, BOOL),
    MB(fbe_ir_field, hidden, BOOL),
    MB(fbe_ir_field, deprecated, BOOL),
    MB(fbe_ir_field, is_reset_flag, BOOL),
    MBA(fbe_ir_field, default_value.kind, I32, alignof(fbe_ir_value)),
    MB(fbe_ir_field, default_value.b, BOOL),
    MB(fbe_ir_field, default_value.u, U64),
    MB(fbe_ir_field, default_value.d, F64),
    MBA(fbe_ir_field, default_value.dec.lo, U64, alignof(fbe_decimal)),
    MB(fbe_ir_field, default_value.dec.hi, U32),
    MB(fbe_ir_field, default_value.dec.flags, U32),
    {"default_value.str.data", offsetof(fbe_ir_field, default_value.str.data), FBE_IMAGE_STRN,
     alignof(fbe_string), offsetof(fbe_ir_field, default_value.str.size)},
    MB(fbe_ir_field, default_value.str.size, U64),
    MB(fbe_ir_field, default_value.uuid, BYTES16),
    LOC(fbe_ir_field),
};

static const fbe_image_member reject_m[] = {
    MB(fbe_ir_reject, type, REF),
    MB(fbe_ir_reject, global, BOOL),
};

static const fbe_image_member struct_m[] = {
    MB(fbe_ir_struct, name, STR),
    MB(fbe_ir_struct, full_name, STR),
    MB(fbe_ir_struct, c_name, STR),
    MB(fbe_ir_struct, package, REF),
    MB(fbe_ir_struct, is_message, BOOL),
    MB(fbe_ir_struct, deprecated, BOOL),
    MB(fbe_ir_struct, hidden, BOOL),
    MB(fbe_ir_struct, type_number, U32),
    MB(fbe_ir_struct, declared_number, U32),
    MB(fbe_ir_struct, number_fixed, BOOL),
    MB(fbe_ir_struct, base, REF),
    MB(fbe_ir_struct, base_depth, U32),
    MB(fbe_ir_struct, value_height, U32),
    MBN(fbe_ir_struct, fields, ARRAY, field_count),
    MB(fbe_ir_struct, field_count, U64),
    MB(fbe_ir_struct, own_field_start, U64),
    MB(fbe_ir_struct, std_body_size, U32),
    MB(fbe_ir_struct, final_fixed, BOOL),
    MB(fbe_ir_struct, final_size, U32),
    MB(fbe_ir_struct, host_size, U32),
    MB(fbe_ir_struct, host_align, U32),
    MB(fbe_ir_struct, is_request, BOOL),
    MB(fbe_ir_struct, response, REF),
    MBN(fbe_ir_struct, rejects, ARRAY, reject_count),
    MB(fbe_ir_struct, reject_count, U64),
    LOC(fbe_ir_struct),
};

static const fbe_image_member package_m[] = {
    MB(fbe_ir_package, name, STR),
    MB(fbe_ir_package, domain, STR),
    MB(fbe_ir_package, offset, U32),
    MB(fbe_ir_package, version_major, U32),
    MB(fbe_ir_package, version_minor, U32),
    MB(fbe_ir_package, path, STR),
    MBN(fbe_ir_package, imports, ARRAY, import_count),
    MB(fbe_ir_package, import_count, U64),
    MBN(fbe_ir_package, enums, ARRAY, enum_count),
    MB(fbe_ir_package, enum_count, U64),
    MBN(fbe_ir_package, flags, ARRAY, flags_count),
    MB(fbe_ir_package, flags_count, U64),
    MBN(fbe_ir_package, structs, ARRAY, struct_count),
    MB(fbe_ir_package, struct_count, U64),
};

static const fbe_image_member ptr_m[] = {{"", 0, FBE_IMAGE_REF, 0, 0}};

static const fbe_image_member aot_type_m[] = {
    MB(fbe_aot_type, ir, REF),
    MBA(fbe_aot_type, ops[0].size, FN, alignof(fbe_model_ops)),
    MB(fbe_aot_type, ops[0].serialize, FN),
    MB(fbe_aot_type, ops[0].verify, FN),
    MB(fbe_aot_type, ops[0].deserialize, FN),
    MBA(fbe_aot_type, ops[1].size, FN, alignof(fbe_model_ops)),
    MB(fbe_aot_type, ops[1].serialize, FN),
    MB(fbe_aot_type, ops[1].verify, FN),
    MB(fbe_aot_type, ops[1].deserialize, FN),
};

static const fbe_image_member aot_image_m[] = {
    MB(fbe_aot_image, abi_version, U32),
    MB(fbe_aot_image, layout_check, U32),
    MB(fbe_aot_image, max_depth, U32),
    MB(fbe_aot_image, flags, U32),
    MB(fbe_aot_image, fbe_version, STR),
    MB(fbe_aot_image, target, STR),
    MB(fbe_aot_image, root, REF),
    MBN(fbe_aot_image, packages, ARRAY, package_count),
    MB(fbe_aot_image, package_count, U64),
    MBN(fbe_aot_image, types, ARRAY, type_count),
    MB(fbe_aot_image, type_count, U64),
};

#define LAYOUT(T, m) {#T, sizeof(T), alignof(T), m, sizeof m / sizeof *m}
const fbe_image_layout fbe_image_layouts[FBE_IMAGE_L_COUNT] = {
    [FBE_IMAGE_L_TYPE] = LAYOUT(fbe_ir_type, type_m),
    [FBE_IMAGE_L_ENUM_VALUE] = LAYOUT(fbe_ir_enum_value, enum_value_m),
    [FBE_IMAGE_L_ENUM] = LAYOUT(fbe_ir_enum, enum_m),
    [FBE_IMAGE_L_FLAGS] = LAYOUT(fbe_ir_flags, flags_m),
    [FBE_IMAGE_L_FIELD] = LAYOUT(fbe_ir_field, field_m),
    [FBE_IMAGE_L_REJECT] = LAYOUT(fbe_ir_reject, reject_m),
    [FBE_IMAGE_L_STRUCT] = LAYOUT(fbe_ir_struct, struct_m),
    [FBE_IMAGE_L_PACKAGE] = LAYOUT(fbe_ir_package, package_m),
    [FBE_IMAGE_L_PTR] = LAYOUT(void *, ptr_m),
    [FBE_IMAGE_L_AOT_TYPE] = LAYOUT(fbe_aot_type, aot_type_m),
    [FBE_IMAGE_L_AOT_IMAGE] = LAYOUT(fbe_aot_image, aot_image_m),
};

size_t fbe_image_kind_size(fbe_image_kind k)
{
    switch (k) {
    case FBE_IMAGE_BOOL: return 1;
    case FBE_IMAGE_I32: case FBE_IMAGE_U32: return 4;
    case FBE_IMAGE_BYTES16: return 16;
    default: return 8;
    }
}

size_t fbe_image_kind_align(fbe_image_kind k)
{
    return k == FBE_IMAGE_BYTES16 ? 1 : fbe_image_kind_size(k);
}

/* ---- planning ------------------------------------------------------------------- */

static bool fail(fbe_image_plan *plan, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static bool fail(fbe_image_plan *plan, const char *fmt, ...)
{
    if (!plan->failed && plan->err && plan->err_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(plan->err, plan->err_size, fmt, ap);
        va_end(ap);
    }
    plan->failed = true;
    return false;
}

static bool find(const fbe_image_plan *plan, const void *host, uintptr_t *at)
{
    return fbe_ptrmap_find(&plan->where, host, at);
}

static void where_put(fbe_image_plan *plan, const void *host, size_t object, size_t element)
{
    bool added;
    uintptr_t *slot = fbe_ptrmap_slot(&plan->where, host, &added);
    if (!slot)
        fail(plan, "out of memory");
    else if (!added)
        fail(plan, "IR image: an object is registered twice");
    else
        *slot = (uintptr_t)object << 32 | element;
}

/* Adds an object; the elements of record arrays are registered one by one (the
 * generated code refers to single fields), a pointer list only as a whole. */
static void add(fbe_image_plan *plan, fbe_image_role role, fbe_image_layout_id layout,
                const void *host, size_t count, size_t number, const char *label)
{
    if (plan->failed)
        return;
    if (plan->count == plan->cap) {
        size_t cap = plan->cap ? plan->cap * 2 : 64;
        fbe_image_object *o = realloc(plan->objects, cap * sizeof *o);
        if (!o) {
            fail(plan, "out of memory");
            return;
        }
        plan->objects = o;
        plan->cap = cap;
    }
    size_t at = plan->count++;
    plan->objects[at] = (fbe_image_object){role, layout, host, count, number, label};
    size_t stride = fbe_image_layouts[layout].size;
    size_t n = count && layout != FBE_IMAGE_L_PTR ? count : 1;
    for (size_t i = 0; i < n; i++)
        where_put(plan, (const char *)host + i * stride, at, i);
}

static void add_type(fbe_image_plan *plan, const fbe_ir_type *t)
{
    uintptr_t at;
    while (t && !find(plan, t, &at) && !plan->failed) {
        add(plan, FBE_IMAGE_TYPE, FBE_IMAGE_L_TYPE, t, 0, plan->type_count++, NULL);
        add_type(plan, t->key);
        t = t->elem; /* a vector of vectors of ...: no recursion per level */
    }
}

typedef struct struct_at {
    const fbe_ir_struct *st;
    size_t at;
} struct_at;

/* By field array, then the longest first, then by position: the first of a run
 * sharing one array is its longest user, whatever the arrays' addresses. */
static int by_fields_longest_first(const void *pa, const void *pb)
{
    const struct_at *a = pa, *b = pb;
    if (a->st->fields != b->st->fields)
        return (uintptr_t)a->st->fields < (uintptr_t)b->st->fields ? -1 : 1;
    if (a->st->field_count != b->st->field_count)
        return a->st->field_count > b->st->field_count ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

/* An heir shares its base's field array (ir/resolve.c: the first heir appends
 * its fields to the base's), and so does the image: one array per run, as long
 * as its longest user, so a chain of N levels of F fields is N*F records, not
 * N*N*F/2. Grouped over the whole schema, so an array shared across packages is
 * shared too. */
static void share_field_arrays(fbe_image_plan *plan, const fbe_ir_struct **structs)
{
    size_t n = plan->struct_count;
    struct_at *sorted = malloc(sizeof *sorted * (n + 1));
    plan->fields_of = malloc(sizeof *plan->fields_of * (n + 1));
    if (!sorted || !plan->fields_of) {
        free(sorted);
        fail(plan, "out of memory");
        return;
    }
    for (size_t k = 0; k < n; k++) {
        sorted[k] = (struct_at){structs[k], k};
        plan->fields_of[k] = k;
    }
    qsort(sorted, n, sizeof *sorted, by_fields_longest_first);
    for (size_t i = 0, run = 0; i < n; i++) {
        if (i == 0 || sorted[i].st->fields != sorted[run].st->fields)
            run = i;
        if (sorted[i].st->field_count)
            plan->fields_of[sorted[i].at] = sorted[run].at;
    }
    free(sorted);
}

static void plan_package(fbe_image_plan *plan, const fbe_ir_package *p, size_t i,
                         size_t *enums, size_t *flags, size_t *structs)
{
    const char *name = p->name;
    add(plan, FBE_IMAGE_PACKAGE, FBE_IMAGE_L_PACKAGE, p, 0, i, name);
    if (p->import_count)
        add(plan, FBE_IMAGE_IMPORTS, FBE_IMAGE_L_PTR, p->imports, p->import_count, i, name);
    if (p->enum_count)
        add(plan, FBE_IMAGE_ENUMS, FBE_IMAGE_L_PTR, p->enums, p->enum_count, i, name);
    if (p->flags_count)
        add(plan, FBE_IMAGE_FLAGS_LIST, FBE_IMAGE_L_PTR, p->flags, p->flags_count, i, name);
    if (p->struct_count)
        add(plan, FBE_IMAGE_STRUCTS, FBE_IMAGE_L_PTR, p->structs, p->struct_count, i, name);
    for (size_t k = 0; k < p->enum_count; k++, ++*enums) {
        const fbe_ir_enum *en = p->enums[k];
        add(plan, FBE_IMAGE_ENUM, FBE_IMAGE_L_ENUM, en, 0, *enums, en->c_name);
        if (en->value_count)
            add(plan, FBE_IMAGE_ENUM_VALUES, FBE_IMAGE_L_ENUM_VALUE, en->values, en->value_count,
                *enums, en->c_name);
    }
    for (size_t k = 0; k < p->flags_count; k++, ++*flags) {
        const fbe_ir_flags *fl = p->flags[k];
        add(plan, FBE_IMAGE_FLAGS, FBE_IMAGE_L_FLAGS, fl, 0, *flags, fl->c_name);
        if (fl->value_count)
            add(plan, FBE_IMAGE_FLAGS_VALUES, FBE_IMAGE_L_ENUM_VALUE, fl->values, fl->value_count,
                *flags, fl->c_name);
    }
    for (size_t k = 0; k < p->struct_count; k++, ++*structs) {
        const fbe_ir_struct *st = p->structs[k];
        add(plan, FBE_IMAGE_STRUCT, FBE_IMAGE_L_STRUCT, st, 0, *structs, st->c_name);
        if (st->reject_count)
            add(plan, FBE_IMAGE_REJECTS, FBE_IMAGE_L_REJECT, st->rejects, st->reject_count,
                *structs, st->c_name);
    }
}

bool fbe_image_plan_build(fbe_image_plan *plan, const fbe_schema *schema, char *err, size_t size)
{
    memset(plan, 0, sizeof *plan);
    plan->schema = schema;
    plan->err = err;
    plan->err_size = size;
    size_t np = fbe_schema_package_count(schema);
    for (size_t i = 0; i < np; i++)
        plan->struct_count += fbe_schema_package(schema, i)->struct_count;
    const fbe_ir_struct **structs = malloc(sizeof *structs * (plan->struct_count + 1));
    if (!structs)
        return fail(plan, "out of memory");
    size_t ne = 0, nf = 0, ns = 0;
    for (size_t i = 0; i < np && !plan->failed; i++) {
        const fbe_ir_package *p = fbe_schema_package(schema, i);
        memcpy(structs + ns, p->structs, sizeof *structs * p->struct_count);
        plan_package(plan, p, i, &ne, &nf, &ns);
    }
    if (!plan->failed)
        share_field_arrays(plan, structs);
    /* Declared in schema order: the output does not depend on where the
     * compiler's allocator put the arrays. */
    for (size_t k = 0; k < plan->struct_count && !plan->failed; k++)
        if (structs[k]->field_count && plan->fields_of[k] == k)
            add(plan, FBE_IMAGE_FIELDS, FBE_IMAGE_L_FIELD, structs[k]->fields,
                structs[k]->field_count, k, structs[k]->c_name);
    /* Type nodes in the order the fields use them; a shared array's records once. */
    for (size_t k = 0; k < plan->struct_count && !plan->failed; k++)
        if (plan->fields_of[k] == k)
            for (size_t f = 0; f < structs[k]->field_count; f++)
                add_type(plan, structs[k]->fields[f].type);
    free(structs);
    return !plan->failed;
}

void fbe_image_plan_free(fbe_image_plan *plan)
{
    free(plan->objects);
    free(plan->fields_of);
    fbe_ptrmap_free(&plan->where);
    memset(plan, 0, sizeof *plan);
}

bool fbe_image_plan_find(const fbe_image_plan *plan, const void *host, size_t *object,
                         size_t *element)
{
    uintptr_t at;
    if (!find(plan, host, &at))
        return false;
    *object = (size_t)(at >> 32);
    *element = (size_t)(at & 0xffffffffu);
    return true;
}

const char *fbe_image_object_name(const fbe_image_object *o, char *buf, size_t size)
{
    static const char *const pattern[FBE_IMAGE_ROLE_COUNT] = {
        [FBE_IMAGE_PACKAGE] = "ir_p%zu",         [FBE_IMAGE_IMPORTS] = "ir_p%zu_imports",
        [FBE_IMAGE_ENUMS] = "ir_p%zu_enums",     [FBE_IMAGE_FLAGS_LIST] = "ir_p%zu_flags",
        [FBE_IMAGE_STRUCTS] = "ir_p%zu_structs", [FBE_IMAGE_ENUM] = "ir_e%zu",
        [FBE_IMAGE_ENUM_VALUES] = "ir_e%zu_v",   [FBE_IMAGE_FLAGS] = "ir_g%zu",
        [FBE_IMAGE_FLAGS_VALUES] = "ir_g%zu_v",  [FBE_IMAGE_STRUCT] = "ir_s%zu",
        [FBE_IMAGE_FIELDS] = "ir_s%zu_f",        [FBE_IMAGE_REJECTS] = "ir_s%zu_r",
        [FBE_IMAGE_TYPE] = "ir_t%zu",
    };
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#endif
    snprintf(buf, size, pattern[o->role], o->number);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
    return buf;
}

/* ---- member values ------------------------------------------------------------- */

static uint64_t read_uint(const void *p, size_t n)
{
    switch (n) {
    case 1: return *(const uint8_t *)p;
    case 4: return *(const uint32_t *)p;
    default: return *(const uint64_t *)p;
    }
}

bool fbe_image_member_value(fbe_image_plan *plan, const fbe_image_member *m, const void *record,
                            fbe_image_value *out)
{
    const char *at = (const char *)record + m->offset;
    memset(out, 0, sizeof *out);
    out->kind = m->kind;
    switch (m->kind) {
    case FBE_IMAGE_BOOL:
    case FBE_IMAGE_U32:
    case FBE_IMAGE_U64:
    case FBE_IMAGE_F64:
        out->u = read_uint(at, fbe_image_kind_size(m->kind));
        return true;
    case FBE_IMAGE_I32:
        out->u = (uint64_t)(int64_t) * (const int32_t *)at;
        return true;
    case FBE_IMAGE_BYTES16:
        out->bytes = (const uint8_t *)at;
        return true;
    case FBE_IMAGE_FN:
        return fail(plan, "IR image: %s is a function pointer, which only a writer knows", m->name);
    default:
        break;
    }
    const void *p = *(const void *const *)at;
    if (!p || (m->kind == FBE_IMAGE_ARRAY && !*(const size_t *)((const char *)record + m->aux))) {
        out->null = true;
        return true;
    }
    if (m->kind == FBE_IMAGE_STR || m->kind == FBE_IMAGE_STRN) {
        out->str = p;
        out->len = m->kind == FBE_IMAGE_STR ? strlen(p)
                                            : *(const size_t *)((const char *)record + m->aux);
        return true;
    }
    if (!fbe_image_plan_find(plan, p, &out->object, &out->element))
        return fail(plan, "IR image: %s points at %p, which is not part of the schema", m->name, p);
    return true;
}
