/* The IR image of an AOT object (see image.h): every IR object of the schema as
 * a private LLVM constant laid out like its C struct, resolved by host address.
 *
 * The C structs are described member by member (offsetof, kind); the LLVM struct
 * types are built from those descriptions and checked against them under the
 * target's data layout before anything is emitted, so a layout the C compiler
 * and LLVM disagree on is an error, never a misread image. Nested structs
 * (fbe_ir_value, fbe_ir_source_loc, fbe_model_ops) are flattened: the check
 * covers every member offset and the total size and alignment. */
#include "image.h"
#include "ptrmap.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbe/aot.h"
#include "interp/program.h"

_Static_assert(sizeof(void *) == 8 && sizeof(size_t) == 8, "the IR image assumes LP64");
_Static_assert(sizeof(bool) == 1, "bool is one byte");
_Static_assert(sizeof(fbe_ir_kind) == 4 && sizeof(fbe_ir_value_kind) == 4, "enums are int");
_Static_assert(sizeof(double) == 8, "double is 64-bit");
_Static_assert(sizeof(fbe_uuid) == 16 && alignof(fbe_uuid) == 1, "uuid is 16 bytes");

/* ---- layouts ------------------------------------------------------------------- */

typedef enum mkind { K_PTR, K_BOOL, K_I32, K_U32, K_U64, K_F64, K_BYTES16 } mkind;

typedef struct member {
    const char *name;
    size_t offset;
    mkind kind;
    size_t align; /* 0: the kind's; else the alignment of the nested struct it starts */
} member;

typedef struct layout {
    const char *name;
    size_t size;
    size_t align;
    const member *m;
    size_t n;
} layout;

#define MB(T, f, k) {#f, offsetof(T, f), k, 0}
#define MBA(T, f, k, a) {#f, offsetof(T, f), k, a}
#define LOC(T) MBA(T, loc.file, K_PTR, alignof(fbe_ir_source_loc)), MB(T, loc.line, K_U32), MB(T, loc.col, K_U32)

static const member type_m[] = {
    MB(fbe_ir_type, kind, K_I32),
    MB(fbe_ir_type, elem, K_PTR),
    MB(fbe_ir_type, key, K_PTR),
    MB(fbe_ir_type, array_len, K_U32),
    MB(fbe_ir_type, enum_type, K_PTR),
    MB(fbe_ir_type, flags_type, K_PTR),
    MB(fbe_ir_type, struct_type, K_PTR),
    MB(fbe_ir_type, std_inline_size, K_U32),
    MB(fbe_ir_type, final_fixed, K_BOOL),
    MB(fbe_ir_type, final_size, K_U32),
    MB(fbe_ir_type, host_size, K_U32),
    MB(fbe_ir_type, host_align, K_U32),
    MB(fbe_ir_type, host_value_offset, K_U32),
    MB(fbe_ir_type, host_entry_value_offset, K_U32),
    MB(fbe_ir_type, host_entry_size, K_U32),
};

static const member enum_value_m[] = {
    MB(fbe_ir_enum_value, name, K_PTR),
    MB(fbe_ir_enum_value, value, K_U64),
    MB(fbe_ir_enum_value, deprecated, K_BOOL),
    MB(fbe_ir_enum_value, hidden, K_BOOL),
};

/* fbe_ir_enum and fbe_ir_flags have the same members. */
#define ENUM_MEMBERS(T)                                                                   \
    MB(T, name, K_PTR), MB(T, full_name, K_PTR), MB(T, c_name, K_PTR),                    \
        MB(T, package, K_PTR), MB(T, base, K_I32), MB(T, values, K_PTR),                  \
        MB(T, value_count, K_U64), MB(T, deprecated, K_BOOL), MB(T, hidden, K_BOOL), LOC(T)

static const member enum_m[] = {ENUM_MEMBERS(fbe_ir_enum)};
static const member flags_m[] = {ENUM_MEMBERS(fbe_ir_flags)};

static const member field_m[] = {
    MB(fbe_ir_field, name, K_PTR),
    MB(fbe_ir_field, c_name, K_PTR),
    MB(fbe_ir_field, type, K_PTR),
    MB(fbe_ir_field, owner, K_PTR),
    MB(fbe_ir_field, index, K_U32),
    MB(fbe_ir_field, std_offset, K_U32),
    MB(fbe_ir_field, host_offset, K_U32),
    MB(fbe_ir_field, is_key, K_BOOL),
    MB(fbe_ir_field, is_id, K_BOOL),
    MB(fbe_ir_field, hidden, K_BOOL),
    MB(fbe_ir_field, deprecated, K_BOOL),
    MB(fbe_ir_field, is_reset_flag, K_BOOL),
    MBA(fbe_ir_field, default_value.kind, K_I32, alignof(fbe_ir_value)),
    MB(fbe_ir_field, default_value.b, K_BOOL),
    MB(fbe_ir_field, default_value.u, K_U64),
    MB(fbe_ir_field, default_value.d, K_F64),
    MBA(fbe_ir_field, default_value.dec.lo, K_U64, alignof(fbe_decimal)),
    MB(fbe_ir_field, default_value.dec.hi, K_U32),
    MB(fbe_ir_field, default_value.dec.flags, K_U32),
    MBA(fbe_ir_field, default_value.str.data, K_PTR, alignof(fbe_string)),
    MB(fbe_ir_field, default_value.str.size, K_U64),
    MB(fbe_ir_field, default_value.uuid, K_BYTES16),
    LOC(fbe_ir_field),
};

static const member reject_m[] = {
    MB(fbe_ir_reject, type, K_PTR),
    MB(fbe_ir_reject, global, K_BOOL),
};

static const member struct_m[] = {
    MB(fbe_ir_struct, name, K_PTR),
    MB(fbe_ir_struct, full_name, K_PTR),
    MB(fbe_ir_struct, c_name, K_PTR),
    MB(fbe_ir_struct, package, K_PTR),
    MB(fbe_ir_struct, is_message, K_BOOL),
    MB(fbe_ir_struct, deprecated, K_BOOL),
    MB(fbe_ir_struct, hidden, K_BOOL),
    MB(fbe_ir_struct, type_number, K_U32),
    MB(fbe_ir_struct, declared_number, K_U32),
    MB(fbe_ir_struct, number_fixed, K_BOOL),
    MB(fbe_ir_struct, base, K_PTR),
    MB(fbe_ir_struct, base_depth, K_U32),
    MB(fbe_ir_struct, value_height, K_U32),
    MB(fbe_ir_struct, fields, K_PTR),
    MB(fbe_ir_struct, field_count, K_U64),
    MB(fbe_ir_struct, own_field_start, K_U64),
    MB(fbe_ir_struct, std_body_size, K_U32),
    MB(fbe_ir_struct, final_fixed, K_BOOL),
    MB(fbe_ir_struct, final_size, K_U32),
    MB(fbe_ir_struct, host_size, K_U32),
    MB(fbe_ir_struct, host_align, K_U32),
    MB(fbe_ir_struct, is_request, K_BOOL),
    MB(fbe_ir_struct, response, K_PTR),
    MB(fbe_ir_struct, rejects, K_PTR),
    MB(fbe_ir_struct, reject_count, K_U64),
    LOC(fbe_ir_struct),
};

static const member package_m[] = {
    MB(fbe_ir_package, name, K_PTR),
    MB(fbe_ir_package, domain, K_PTR),
    MB(fbe_ir_package, offset, K_U32),
    MB(fbe_ir_package, version_major, K_U32),
    MB(fbe_ir_package, version_minor, K_U32),
    MB(fbe_ir_package, path, K_PTR),
    MB(fbe_ir_package, imports, K_PTR),
    MB(fbe_ir_package, import_count, K_U64),
    MB(fbe_ir_package, enums, K_PTR),
    MB(fbe_ir_package, enum_count, K_U64),
    MB(fbe_ir_package, flags, K_PTR),
    MB(fbe_ir_package, flags_count, K_U64),
    MB(fbe_ir_package, structs, K_PTR),
    MB(fbe_ir_package, struct_count, K_U64),
};

static const member aot_type_m[] = {
    MB(fbe_aot_type, ir, K_PTR),
    MBA(fbe_aot_type, ops[0].size, K_PTR, alignof(fbe_model_ops)),
    MB(fbe_aot_type, ops[0].serialize, K_PTR),
    MB(fbe_aot_type, ops[0].verify, K_PTR),
    MB(fbe_aot_type, ops[0].deserialize, K_PTR),
    MBA(fbe_aot_type, ops[1].size, K_PTR, alignof(fbe_model_ops)),
    MB(fbe_aot_type, ops[1].serialize, K_PTR),
    MB(fbe_aot_type, ops[1].verify, K_PTR),
    MB(fbe_aot_type, ops[1].deserialize, K_PTR),
};

static const member aot_image_m[] = {
    MB(fbe_aot_image, abi_version, K_U32),
    MB(fbe_aot_image, layout_check, K_U32),
    MB(fbe_aot_image, max_depth, K_U32),
    MB(fbe_aot_image, flags, K_U32),
    MB(fbe_aot_image, fbe_version, K_PTR),
    MB(fbe_aot_image, target, K_PTR),
    MB(fbe_aot_image, root, K_PTR),
    MB(fbe_aot_image, packages, K_PTR),
    MB(fbe_aot_image, package_count, K_U64),
    MB(fbe_aot_image, types, K_PTR),
    MB(fbe_aot_image, type_count, K_U64),
};

enum {
    L_TYPE, L_ENUM_VALUE, L_ENUM, L_FLAGS, L_FIELD, L_REJECT, L_STRUCT, L_PACKAGE,
    L_AOT_TYPE, L_AOT_IMAGE, L_COUNT
};

#define LAYOUT(T, m) {#T, sizeof(T), alignof(T), m, sizeof m / sizeof *m}
static const layout layouts[L_COUNT] = {
    [L_TYPE] = LAYOUT(fbe_ir_type, type_m),
    [L_ENUM_VALUE] = LAYOUT(fbe_ir_enum_value, enum_value_m),
    [L_ENUM] = LAYOUT(fbe_ir_enum, enum_m),
    [L_FLAGS] = LAYOUT(fbe_ir_flags, flags_m),
    [L_FIELD] = LAYOUT(fbe_ir_field, field_m),
    [L_REJECT] = LAYOUT(fbe_ir_reject, reject_m),
    [L_STRUCT] = LAYOUT(fbe_ir_struct, struct_m),
    [L_PACKAGE] = LAYOUT(fbe_ir_package, package_m),
    [L_AOT_TYPE] = LAYOUT(fbe_aot_type, aot_type_m),
    [L_AOT_IMAGE] = LAYOUT(fbe_aot_image, aot_image_m),
};

#define MAX_MEMBERS 40

static size_t kind_size(mkind k)
{
    switch (k) {
    case K_BOOL: return 1;
    case K_I32: case K_U32: return 4;
    case K_BYTES16: return 16;
    default: return 8;
    }
}

static size_t kind_align(mkind k)
{
    return k == K_BYTES16 ? 1 : kind_size(k);
}

static LLVMTypeRef kind_type(LLVMContextRef ctx, mkind k)
{
    switch (k) {
    case K_PTR: return LLVMPointerTypeInContext(ctx, 0);
    case K_BOOL: return LLVMInt8TypeInContext(ctx);
    case K_I32: case K_U32: return LLVMInt32TypeInContext(ctx);
    case K_U64: return LLVMInt64TypeInContext(ctx);
    case K_F64: return LLVMDoubleTypeInContext(ctx);
    case K_BYTES16: return LLVMArrayType2(LLVMInt8TypeInContext(ctx), 16);
    }
    return NULL;
}

static size_t align_up(size_t v, size_t a);

/* The LLVM struct of a layout: the members in order, with an explicit [N x i8]
 * before a member that C places further than LLVM naturally would (the start of
 * a flattened nested struct). idx[i] is member i's element number. */
typedef struct ltype {
    LLVMTypeRef t;
    unsigned n;                        /* elements */
    unsigned idx[MAX_MEMBERS];
    LLVMTypeRef el[2 * MAX_MEMBERS];
} ltype;

static void layout_type(LLVMContextRef ctx, const layout *L, ltype *out)
{
    size_t end = 0;
    out->n = 0;
    for (size_t i = 0; i < L->n; i++) {
        const member *m = &L->m[i];
        size_t natural = align_up(end, kind_align(m->kind));
        if (m->offset > natural)
            out->el[out->n++] = LLVMArrayType2(LLVMInt8TypeInContext(ctx), m->offset - end);
        out->idx[i] = out->n;
        out->el[out->n++] = kind_type(ctx, m->kind);
        end = m->offset + kind_size(m->kind);
    }
    out->t = LLVMStructTypeInContext(ctx, out->el, out->n, 0);
}

static size_t align_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

bool jit_image_check_layout(LLVMContextRef ctx, LLVMTargetDataRef dl, char *err, size_t size)
{
    if (LLVMPointerSize(dl) != sizeof(void *) || LLVMByteOrder(dl) != LLVMLittleEndian) {
        snprintf(err, size, "the target is not 64-bit little-endian (the host layout of "
                            "fbe-c values needs one)");
        return false;
    }
    for (size_t l = 0; l < L_COUNT; l++) {
        const layout *L = &layouts[l];
        if (L->n > MAX_MEMBERS) {
            snprintf(err, size, "%s: too many members", L->name);
            return false;
        }
        /* The description itself: members in order, gaps only where C pads. */
        size_t end = 0, align = 1;
        for (size_t i = 0; i < L->n; i++) {
            const member *m = &L->m[i];
            size_t a = m->align > kind_align(m->kind) ? m->align : kind_align(m->kind);
            if (m->offset != align_up(end, a)) {
                snprintf(err, size, "%s.%s: at offset %zu, expected %zu (a member is missing "
                                    "from the image description?)",
                         L->name, m->name, m->offset, align_up(end, a));
                return false;
            }
            end = m->offset + kind_size(m->kind);
            if (kind_align(m->kind) > align)
                align = kind_align(m->kind);
        }
        if (align_up(end, align) != L->size || align != L->align) {
            snprintf(err, size, "%s: described as %zu bytes (align %zu), C has %zu (align %zu)",
                     L->name, align_up(end, align), align, L->size, L->align);
            return false;
        }
        /* LLVM under the target's data layout. */
        ltype lt;
        layout_type(ctx, L, &lt);
        LLVMTypeRef t = lt.t;
        for (size_t i = 0; i < L->n; i++) {
            unsigned long long off = LLVMOffsetOfElement(dl, t, lt.idx[i]);
            if (off != L->m[i].offset) {
                snprintf(err, size, "%s.%s: LLVM puts it at %llu, C at %zu", L->name, L->m[i].name,
                         off, L->m[i].offset);
                return false;
            }
        }
        if (LLVMABISizeOfType(dl, t) != L->size || LLVMABIAlignmentOfType(dl, t) != L->align) {
            snprintf(err, size, "%s: LLVM size %llu align %u, C size %zu align %zu", L->name,
                     LLVMABISizeOfType(dl, t), LLVMABIAlignmentOfType(dl, t), L->size, L->align);
            return false;
        }
    }
    return true;
}

/* ---- host pointer -> constant ----------------------------------------------------- */

typedef fbe_ptrmap ptr_map;

static LLVMValueRef map_get(const ptr_map *m, const void *p)
{
    uintptr_t v;
    return fbe_ptrmap_find(m, p, &v) ? (LLVMValueRef)v : NULL;
}

/* false: out of memory, or p already has another constant. */
static bool map_put(ptr_map *m, const void *p, LLVMValueRef v)
{
    bool added;
    uintptr_t *slot = fbe_ptrmap_slot(m, p, &added);
    if (!slot)
        return false;
    if (!added)
        return *slot == (uintptr_t)v;
    *slot = (uintptr_t)v;
    return true;
}

static void map_free(ptr_map *m)
{
    fbe_ptrmap_free(m);
}

/* Strings, deduplicated by content. */
typedef struct str_entry {
    const char *s;
    size_t len;
    LLVMValueRef g;
} str_entry;

typedef struct str_map {
    str_entry *e;
    size_t cap, count;
} str_map;

static size_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return (size_t)(h ^ n);
}

/* ---- the image ------------------------------------------------------------------- */

struct jit_image {
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    ltype lt[L_COUNT];
    LLVMTypeRef t[L_COUNT];
    LLVMTypeRef i8, i32, i64, f64, ptr;
    ptr_map objects;  /* host IR object -> constant pointer */
    ptr_map arrays;   /* first element of a host record array -> its array global */
    str_map strings;
    const fbe_schema *schema;
    const fbe_ir_type **types; /* every type node, in discovery order */
    size_t type_count, type_cap;
    const void *missing;
    bool failed;
    char *err;
    size_t err_size;
};

static bool fail(jit_image *img, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static bool fail(jit_image *img, const char *fmt, ...)
{
    if (!img->failed && img->err && img->err_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(img->err, img->err_size, fmt, ap);
        va_end(ap);
    }
    img->failed = true;
    return false;
}

static LLVMValueRef add_global(jit_image *img, LLVMTypeRef t, const char *kind, const char *name,
                               size_t align)
{
    char buf[600];
    snprintf(buf, sizeof buf, "fbe.ir.%s%s%s", kind, name ? "." : "", name ? name : "");
    LLVMValueRef g = LLVMAddGlobal(img->mod, t, buf);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetAlignment(g, (unsigned)align);
    return g;
}

static LLVMValueRef elem_ptr(jit_image *img, LLVMTypeRef arr, LLVMValueRef g, size_t i)
{
    LLVMValueRef idx[] = {LLVMConstInt(img->i64, 0, 0), LLVMConstInt(img->i64, i, 0)};
    return LLVMConstInBoundsGEP2(arr, g, idx, 2);
}

static void put(jit_image *img, const void *host, LLVMValueRef v, const char *what)
{
    if (!map_put(&img->objects, host, v))
        fail(img, "IR image: %s registered twice (or out of memory)", what);
}

/* A global array of n records of layout l; element i mirrors hosts + i*stride. */
static LLVMValueRef add_array(jit_image *img, int l, const void *hosts, size_t n, size_t stride,
                              const char *kind, const char *name)
{
    LLVMTypeRef arr = LLVMArrayType2(img->t[l], n);
    LLVMValueRef g = add_global(img, arr, kind, name, layouts[l].align);
    for (size_t i = 0; i < n; i++)
        put(img, (const char *)hosts + i * stride, elem_ptr(img, arr, g, i), kind);
    if (!map_put(&img->arrays, hosts, g))
        fail(img, "IR image: %s registered twice (or out of memory)", kind);
    return g;
}

static LLVMValueRef add_ptr_array(jit_image *img, const void *host, size_t n, const char *kind,
                                  const char *name)
{
    LLVMValueRef g = add_global(img, LLVMArrayType2(img->ptr, n), kind, name, alignof(void *));
    put(img, host, g, kind);
    return g;
}

static void add_type(jit_image *img, const fbe_ir_type *t)
{
    if (!t || map_get(&img->objects, t))
        return;
    if (img->type_count == img->type_cap) {
        size_t cap = img->type_cap ? img->type_cap * 2 : 64;
        const fbe_ir_type **types = realloc(img->types, cap * sizeof *types);
        if (!types) {
            fail(img, "out of memory");
            return;
        }
        img->types = types;
        img->type_cap = cap;
    }
    img->types[img->type_count++] = t;
    put(img, t, add_global(img, img->t[L_TYPE], "type", NULL, layouts[L_TYPE].align), "type");
    add_type(img, t->elem);
    add_type(img, t->key);
}

/* A struct and its position in the schema, sorted by field array, then the
 * longest first, then by position: the first of a run sharing one array is
 * its longest user, the same one whatever the arrays' addresses. */
typedef struct struct_at {
    const fbe_ir_struct *st;
    size_t at;
} struct_at;

static int by_fields_longest_first(const void *pa, const void *pb)
{
    const struct_at *a = pa, *b = pb;
    if (a->st->fields != b->st->fields)
        return (uintptr_t)a->st->fields < (uintptr_t)b->st->fields ? -1 : 1;
    if (a->st->field_count != b->st->field_count)
        return a->st->field_count > b->st->field_count ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

/* Phase 1: a global for every object, so that any pointer can be resolved. */
static void declare_package(jit_image *img, const fbe_ir_package *p)
{
    put(img, p, add_global(img, img->t[L_PACKAGE], "pkg", p->name, layouts[L_PACKAGE].align),
        "package");
    if (p->import_count)
        add_ptr_array(img, p->imports, p->import_count, "pkg.imports", p->name);
    if (p->enum_count)
        add_ptr_array(img, p->enums, p->enum_count, "pkg.enums", p->name);
    if (p->flags_count)
        add_ptr_array(img, p->flags, p->flags_count, "pkg.flags", p->name);
    if (p->struct_count)
        add_ptr_array(img, p->structs, p->struct_count, "pkg.structs", p->name);
    for (size_t i = 0; i < p->enum_count; i++) {
        const fbe_ir_enum *en = p->enums[i];
        put(img, en, add_global(img, img->t[L_ENUM], "enum", en->c_name, layouts[L_ENUM].align),
            "enum");
        if (en->value_count)
            add_array(img, L_ENUM_VALUE, en->values, en->value_count, sizeof *en->values,
                      "enum.values", en->c_name);
    }
    for (size_t i = 0; i < p->flags_count; i++) {
        const fbe_ir_flags *fl = p->flags[i];
        put(img, fl, add_global(img, img->t[L_FLAGS], "flags", fl->c_name, layouts[L_FLAGS].align),
            "flags");
        if (fl->value_count)
            add_array(img, L_ENUM_VALUE, fl->values, fl->value_count, sizeof *fl->values,
                      "flags.values", fl->c_name);
    }
    for (size_t i = 0; i < p->struct_count; i++) {
        const fbe_ir_struct *st = p->structs[i];
        put(img, st,
            add_global(img, img->t[L_STRUCT], "struct", st->c_name, layouts[L_STRUCT].align),
            "struct");
        if (st->reject_count)
            add_array(img, L_REJECT, st->rejects, st->reject_count, sizeof *st->rejects,
                      "struct.rejects", st->c_name);
        for (size_t f = 0; f < st->field_count; f++)
            add_type(img, st->fields[f].type);
    }
}

/* A struct that is its base's heir shares the base's field array
 * (ir/resolve.c), and so does the image: one global per array, as long as its
 * longest user, so a chain of N levels of F fields is N*F records, not N*N*F/2.
 * Grouped over the whole schema, not per package, so that an array shared
 * across packages would be shared too rather than registered twice. */
static void declare_field_arrays(jit_image *img)
{
    size_t np = fbe_schema_package_count(img->schema), n = 0;
    for (size_t i = 0; i < np; i++)
        n += fbe_schema_package(img->schema, i)->struct_count;
    if (!n)
        return;
    struct_at *sorted = malloc(sizeof *sorted * n);
    const fbe_ir_struct **longest = calloc(n, sizeof *longest);
    if (!sorted || !longest) {
        free(sorted);
        free(longest);
        fail(img, "out of memory");
        return;
    }
    n = 0;
    for (size_t i = 0; i < np; i++) {
        const fbe_ir_package *p = fbe_schema_package(img->schema, i);
        for (size_t k = 0; k < p->struct_count; k++, n++)
            sorted[n] = (struct_at){p->structs[k], n};
    }
    qsort(sorted, n, sizeof *sorted, by_fields_longest_first);
    for (size_t i = 0; i < n; i++) {
        const fbe_ir_struct *st = sorted[i].st;
        if (st->field_count && (i == 0 || sorted[i - 1].st->fields != st->fields))
            longest[sorted[i].at] = st;
    }
    /* Declared in schema order: the object's bytes do not depend on where the
     * compiler's allocator put the arrays. */
    for (size_t i = 0; i < n; i++) {
        const fbe_ir_struct *st = longest[i];
        if (st)
            add_array(img, L_FIELD, st->fields, st->field_count, sizeof *st->fields,
                      "struct.fields", st->c_name);
    }
    free(sorted);
    free(longest);
}

/* Phase 2: the initializers. */
typedef struct rec {
    jit_image *img;
    const layout *L;
    const ltype *lt;
    LLVMValueRef v[2 * MAX_MEMBERS]; /* by element (padding included) */
} rec;

static void rec_init(rec *r, jit_image *img, int l)
{
    r->img = img;
    r->L = &layouts[l];
    r->lt = &img->lt[l];
    for (unsigned i = 0; i < r->lt->n; i++)
        r->v[i] = LLVMConstNull(r->lt->el[i]);
}

#define KB(k) (1u << (k))

/* The member at `offset`, which must be of one of the kinds in `kinds`. */
/* The element of the member at `offset`, which must be of one of `kinds`. */
static int rec_slot(rec *r, size_t offset, unsigned kinds)
{
    for (size_t i = 0; i < r->L->n; i++)
        if (r->L->m[i].offset == offset && (kinds & KB(r->L->m[i].kind)))
            return (int)r->lt->idx[i];
    fail(r->img, "IR image: no member of %s at offset %zu of that kind", r->L->name, offset);
    return -1;
}

static void rec_ptr(rec *r, size_t offset, LLVMValueRef v)
{
    int i = rec_slot(r, offset, KB(K_PTR));
    if (i >= 0)
        r->v[i] = v;
}

static void rec_int(rec *r, size_t offset, uint64_t v)
{
    int i = rec_slot(r, offset, KB(K_BOOL) | KB(K_I32) | KB(K_U32) | KB(K_U64));
    if (i >= 0)
        r->v[i] = LLVMConstInt(r->lt->el[i], v, 0);
}

static LLVMValueRef rec_value(rec *r)
{
    return LLVMConstStructInContext(r->img->ctx, r->v, r->lt->n, 0);
}

/* Member setters by C member name. */
#define SET_PTR(r, T, f, v) rec_ptr(r, offsetof(T, f), v)
#define SET_INT(r, T, f, v) rec_int(r, offsetof(T, f), (uint64_t)(v))

static LLVMValueRef str_n(jit_image *img, const char *s, size_t len)
{
    if (!s)
        return LLVMConstPointerNull(img->ptr);
    str_map *m = &img->strings;
    if ((m->count + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 256;
        str_entry *e = calloc(cap, sizeof *e);
        if (!e) {
            fail(img, "out of memory");
            return LLVMConstPointerNull(img->ptr);
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->e[i].g)
                continue;
            size_t j = hash_bytes(m->e[i].s, m->e[i].len) & (cap - 1);
            while (e[j].g)
                j = (j + 1) & (cap - 1);
            e[j] = m->e[i];
        }
        free(m->e);
        m->e = e;
        m->cap = cap;
    }
    size_t j = hash_bytes(s, len) & (m->cap - 1);
    for (; m->e[j].g; j = (j + 1) & (m->cap - 1))
        if (m->e[j].len == len && memcmp(m->e[j].s, s, len) == 0)
            return m->e[j].g;
    /* The bytes plus the terminating NUL every IR string has. */
    LLVMValueRef init = LLVMConstStringInContext2(img->ctx, s, len, 0);
    LLVMValueRef g = LLVMAddGlobal(img->mod, LLVMTypeOf(init), "fbe.ir.str");
    LLVMSetInitializer(g, init);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    LLVMSetAlignment(g, 1);
    m->e[j] = (str_entry){s, len, g};
    m->count++;
    return g;
}

static LLVMValueRef str(jit_image *img, const char *s)
{
    return str_n(img, s, s ? strlen(s) : 0);
}

static LLVMValueRef ref(jit_image *img, const void *host, const char *what)
{
    if (!host)
        return LLVMConstPointerNull(img->ptr);
    LLVMValueRef v = map_get(&img->objects, host);
    if (!v) {
        fail(img, "IR image: the %s at %p is not part of the schema", what, host);
        return LLVMConstPointerNull(img->ptr);
    }
    return v;
}

/* A pointer member to an array of `count` objects (NULL when empty). */
static LLVMValueRef ref_array(jit_image *img, const void *host, size_t count, const char *what)
{
    return count ? ref(img, host, what) : LLVMConstPointerNull(img->ptr);
}

static void set_init(LLVMValueRef g, LLVMValueRef v)
{
    LLVMSetInitializer(g, v);
}

/* The global behind a registered object (the constant itself, or element 0's GEP
 * for arrays: their initializer is set through the array global). */
static LLVMValueRef global_of(jit_image *img, const void *host)
{
    return map_get(&img->objects, host);
}

static void init_ptr_array(jit_image *img, const void *const *items, size_t n, const char *what)
{
    if (!n)
        return;
    LLVMValueRef *v = calloc(n, sizeof *v);
    if (!v) {
        fail(img, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = ref(img, items[i], what);
    set_init(global_of(img, items), LLVMConstArray2(img->ptr, v, n));
    free(v);
}

#define LOC_SET(r, T, x)                                                                  \
    do {                                                                                  \
        SET_PTR(r, T, loc.file, str(img, (x)->loc.file));                                 \
        SET_INT(r, T, loc.line, (x)->loc.line);                                           \
        SET_INT(r, T, loc.col, (x)->loc.col);                                             \
    } while (0)

/* The array global of records whose first element mirrors `first`. */
static LLVMValueRef array_global(jit_image *img, const void *first)
{
    return map_get(&img->arrays, first);
}

static void init_values(jit_image *img, const fbe_ir_enum_value *values, size_t n)
{
    if (!n)
        return;
    LLVMValueRef *v = calloc(n, sizeof *v);
    if (!v) {
        fail(img, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++) {
        rec r;
        rec_init(&r, img, L_ENUM_VALUE);
        SET_PTR(&r, fbe_ir_enum_value, name, str(img, values[i].name));
        SET_INT(&r, fbe_ir_enum_value, value, values[i].value);
        SET_INT(&r, fbe_ir_enum_value, deprecated, values[i].deprecated);
        SET_INT(&r, fbe_ir_enum_value, hidden, values[i].hidden);
        v[i] = rec_value(&r);
    }
    set_init(array_global(img, values), LLVMConstArray2(img->t[L_ENUM_VALUE], v, n));
    free(v);
}

#define INIT_ENUM(T, L, x)                                                                \
    do {                                                                                  \
        rec er;                                                                            \
        rec_init(&er, img, L);                                                             \
        SET_PTR(&er, T, name, str(img, (x)->name));                                        \
        SET_PTR(&er, T, full_name, str(img, (x)->full_name));                              \
        SET_PTR(&er, T, c_name, str(img, (x)->c_name));                                    \
        SET_PTR(&er, T, package, ref(img, (x)->package, "package"));                       \
        SET_INT(&er, T, base, (x)->base);                                                  \
        SET_PTR(&er, T, values, ref_array(img, (x)->values, (x)->value_count, "values"));  \
        SET_INT(&er, T, value_count, (x)->value_count);                                    \
        SET_INT(&er, T, deprecated, (x)->deprecated);                                      \
        SET_INT(&er, T, hidden, (x)->hidden);                                              \
        LOC_SET(&er, T, x);                                                                \
        set_init(global_of(img, x), rec_value(&er));                                       \
        init_values(img, (x)->values, (x)->value_count);                                  \
    } while (0)

static LLVMValueRef field_value(jit_image *img, const fbe_ir_field *f)
{
    rec r;
    rec_init(&r, img, L_FIELD);
    SET_PTR(&r, fbe_ir_field, name, str(img, f->name));
    SET_PTR(&r, fbe_ir_field, c_name, str(img, f->c_name));
    SET_PTR(&r, fbe_ir_field, type, ref(img, f->type, "type"));
    SET_PTR(&r, fbe_ir_field, owner, ref(img, f->owner, "struct"));
    SET_INT(&r, fbe_ir_field, index, f->index);
    SET_INT(&r, fbe_ir_field, std_offset, f->std_offset);
    SET_INT(&r, fbe_ir_field, host_offset, f->host_offset);
    SET_INT(&r, fbe_ir_field, is_key, f->is_key);
    SET_INT(&r, fbe_ir_field, is_id, f->is_id);
    SET_INT(&r, fbe_ir_field, hidden, f->hidden);
    SET_INT(&r, fbe_ir_field, deprecated, f->deprecated);
    SET_INT(&r, fbe_ir_field, is_reset_flag, f->is_reset_flag);
    const fbe_ir_value *d = &f->default_value;
    SET_INT(&r, fbe_ir_field, default_value.kind, d->kind);
    SET_INT(&r, fbe_ir_field, default_value.b, d->b);
    SET_INT(&r, fbe_ir_field, default_value.u, d->u);
    uint64_t bits;
    memcpy(&bits, &d->d, 8);
    int slot = rec_slot(&r, offsetof(fbe_ir_field, default_value.d), KB(K_F64));
    if (slot >= 0) /* the exact bits (NaN payloads, -0.0) */
        r.v[slot] = LLVMConstBitCast(LLVMConstInt(img->i64, bits, 0), img->f64);
    SET_INT(&r, fbe_ir_field, default_value.dec.lo, d->dec.lo);
    SET_INT(&r, fbe_ir_field, default_value.dec.hi, d->dec.hi);
    SET_INT(&r, fbe_ir_field, default_value.dec.flags, d->dec.flags);
    SET_PTR(&r, fbe_ir_field, default_value.str.data, str_n(img, d->str.data, d->str.size));
    SET_INT(&r, fbe_ir_field, default_value.str.size, d->str.size);
    slot = rec_slot(&r, offsetof(fbe_ir_field, default_value.uuid), KB(K_BYTES16));
    if (slot >= 0) {
        LLVMValueRef b[16];
        for (int i = 0; i < 16; i++)
            b[i] = LLVMConstInt(img->i8, d->uuid.bytes[i], 0);
        r.v[slot] = LLVMConstArray2(img->i8, b, 16);
    }
    LOC_SET(&r, fbe_ir_field, f);
    return rec_value(&r);
}

static void init_struct(jit_image *img, const fbe_ir_struct *st)
{
    rec r;
    rec_init(&r, img, L_STRUCT);
    SET_PTR(&r, fbe_ir_struct, name, str(img, st->name));
    SET_PTR(&r, fbe_ir_struct, full_name, str(img, st->full_name));
    SET_PTR(&r, fbe_ir_struct, c_name, str(img, st->c_name));
    SET_PTR(&r, fbe_ir_struct, package, ref(img, st->package, "package"));
    SET_INT(&r, fbe_ir_struct, is_message, st->is_message);
    SET_INT(&r, fbe_ir_struct, deprecated, st->deprecated);
    SET_INT(&r, fbe_ir_struct, hidden, st->hidden);
    SET_INT(&r, fbe_ir_struct, type_number, st->type_number);
    SET_INT(&r, fbe_ir_struct, declared_number, st->declared_number);
    SET_INT(&r, fbe_ir_struct, number_fixed, st->number_fixed);
    SET_PTR(&r, fbe_ir_struct, base, ref(img, st->base, "struct"));
    SET_INT(&r, fbe_ir_struct, base_depth, st->base_depth);
    SET_INT(&r, fbe_ir_struct, value_height, st->value_height);
    SET_PTR(&r, fbe_ir_struct, fields, ref_array(img, st->fields, st->field_count, "fields"));
    SET_INT(&r, fbe_ir_struct, field_count, st->field_count);
    SET_INT(&r, fbe_ir_struct, own_field_start, st->own_field_start);
    SET_INT(&r, fbe_ir_struct, std_body_size, st->std_body_size);
    SET_INT(&r, fbe_ir_struct, final_fixed, st->final_fixed);
    SET_INT(&r, fbe_ir_struct, final_size, st->final_size);
    SET_INT(&r, fbe_ir_struct, host_size, st->host_size);
    SET_INT(&r, fbe_ir_struct, host_align, st->host_align);
    SET_INT(&r, fbe_ir_struct, is_request, st->is_request);
    SET_PTR(&r, fbe_ir_struct, response, ref(img, st->response, "struct"));
    SET_PTR(&r, fbe_ir_struct, rejects, ref_array(img, st->rejects, st->reject_count, "rejects"));
    SET_INT(&r, fbe_ir_struct, reject_count, st->reject_count);
    LOC_SET(&r, fbe_ir_struct, st);
    set_init(global_of(img, st), rec_value(&r));

    size_t n = st->field_count > st->reject_count ? st->field_count : st->reject_count;
    LLVMValueRef *v = calloc(n + 1, sizeof *v);
    if (!v) {
        fail(img, "out of memory");
        return;
    }
    LLVMValueRef fields_g = st->field_count ? array_global(img, st->fields) : NULL;
    /* A shared field array is initialized once, by its longest user (the first
     * of them: an heir without fields of its own is as long as its base). */
    if (fields_g && LLVMGetArrayLength2(LLVMGlobalGetValueType(fields_g)) == st->field_count &&
        !LLVMGetInitializer(fields_g)) {
        for (size_t i = 0; i < st->field_count; i++)
            v[i] = field_value(img, &st->fields[i]);
        set_init(fields_g, LLVMConstArray2(img->t[L_FIELD], v, st->field_count));
    }
    if (st->reject_count) {
        for (size_t i = 0; i < st->reject_count; i++) {
            rec rj;
            rec_init(&rj, img, L_REJECT);
            SET_PTR(&rj, fbe_ir_reject, type, ref(img, st->rejects[i].type, "struct"));
            SET_INT(&rj, fbe_ir_reject, global, st->rejects[i].global);
            v[i] = rec_value(&rj);
        }
        set_init(array_global(img, st->rejects),
                 LLVMConstArray2(img->t[L_REJECT], v, st->reject_count));
    }
    free(v);
}

static void init_type(jit_image *img, const fbe_ir_type *t)
{
    rec r;
    rec_init(&r, img, L_TYPE);
    SET_INT(&r, fbe_ir_type, kind, t->kind);
    SET_PTR(&r, fbe_ir_type, elem, ref(img, t->elem, "type"));
    SET_PTR(&r, fbe_ir_type, key, ref(img, t->key, "type"));
    SET_INT(&r, fbe_ir_type, array_len, t->array_len);
    SET_PTR(&r, fbe_ir_type, enum_type, ref(img, t->enum_type, "enum"));
    SET_PTR(&r, fbe_ir_type, flags_type, ref(img, t->flags_type, "flags"));
    SET_PTR(&r, fbe_ir_type, struct_type, ref(img, t->struct_type, "struct"));
    SET_INT(&r, fbe_ir_type, std_inline_size, t->std_inline_size);
    SET_INT(&r, fbe_ir_type, final_fixed, t->final_fixed);
    SET_INT(&r, fbe_ir_type, final_size, t->final_size);
    SET_INT(&r, fbe_ir_type, host_size, t->host_size);
    SET_INT(&r, fbe_ir_type, host_align, t->host_align);
    SET_INT(&r, fbe_ir_type, host_value_offset, t->host_value_offset);
    SET_INT(&r, fbe_ir_type, host_entry_value_offset, t->host_entry_value_offset);
    SET_INT(&r, fbe_ir_type, host_entry_size, t->host_entry_size);
    set_init(global_of(img, t), rec_value(&r));
}

static void init_package(jit_image *img, const fbe_ir_package *p)
{
    rec r;
    rec_init(&r, img, L_PACKAGE);
    SET_PTR(&r, fbe_ir_package, name, str(img, p->name));
    SET_PTR(&r, fbe_ir_package, domain, str(img, p->domain));
    SET_INT(&r, fbe_ir_package, offset, p->offset);
    SET_INT(&r, fbe_ir_package, version_major, p->version_major);
    SET_INT(&r, fbe_ir_package, version_minor, p->version_minor);
    SET_PTR(&r, fbe_ir_package, path, str(img, p->path));
    SET_PTR(&r, fbe_ir_package, imports, ref_array(img, p->imports, p->import_count, "imports"));
    SET_INT(&r, fbe_ir_package, import_count, p->import_count);
    SET_PTR(&r, fbe_ir_package, enums, ref_array(img, p->enums, p->enum_count, "enums"));
    SET_INT(&r, fbe_ir_package, enum_count, p->enum_count);
    SET_PTR(&r, fbe_ir_package, flags, ref_array(img, p->flags, p->flags_count, "flags"));
    SET_INT(&r, fbe_ir_package, flags_count, p->flags_count);
    SET_PTR(&r, fbe_ir_package, structs, ref_array(img, p->structs, p->struct_count, "structs"));
    SET_INT(&r, fbe_ir_package, struct_count, p->struct_count);
    set_init(global_of(img, p), rec_value(&r));
    init_ptr_array(img, (const void *const *)p->imports, p->import_count, "package");
    init_ptr_array(img, (const void *const *)p->enums, p->enum_count, "enum");
    init_ptr_array(img, (const void *const *)p->flags, p->flags_count, "flags");
    init_ptr_array(img, (const void *const *)p->structs, p->struct_count, "struct");
    for (size_t i = 0; i < p->enum_count; i++)
        INIT_ENUM(fbe_ir_enum, L_ENUM, p->enums[i]);
    for (size_t i = 0; i < p->flags_count; i++)
        INIT_ENUM(fbe_ir_flags, L_FLAGS, p->flags[i]);
    for (size_t i = 0; i < p->struct_count; i++)
        init_struct(img, p->structs[i]);
}

static LLVMValueRef image_host_ptr(jit_emit *e, const void *p)
{
    jit_image *img = e->host_ptr_ctx;
    LLVMValueRef v = map_get(&img->objects, p);
    if (!v && !img->missing)
        img->missing = p;
    return v;
}

jit_image *jit_image_create(jit_emit *e, const fbe_schema *schema, char *err, size_t size)
{
    jit_image *img = calloc(1, sizeof *img);
    if (!img) {
        snprintf(err, size, "out of memory");
        return NULL;
    }
    img->ctx = e->ctx;
    img->mod = e->mod;
    img->schema = schema;
    img->err = err;
    img->err_size = size;
    img->i8 = e->i8;
    img->i32 = e->i32;
    img->i64 = e->i64;
    img->ptr = e->ptr;
    img->f64 = LLVMDoubleTypeInContext(e->ctx);
    for (int l = 0; l < L_COUNT; l++) {
        layout_type(e->ctx, &layouts[l], &img->lt[l]);
        img->t[l] = img->lt[l].t;
    }
    size_t np = fbe_schema_package_count(schema);
    for (size_t i = 0; i < np && !img->failed; i++)
        declare_package(img, fbe_schema_package(schema, i));
    if (!img->failed)
        declare_field_arrays(img);
    for (size_t i = 0; i < np && !img->failed; i++)
        init_package(img, fbe_schema_package(schema, i));
    for (size_t i = 0; i < img->type_count && !img->failed; i++)
        init_type(img, img->types[i]);
    if (img->failed) {
        jit_image_free(img);
        return NULL;
    }
    e->host_ptr = image_host_ptr;
    e->host_ptr_ctx = img;
    return img;
}

const void *jit_image_missing(const jit_image *img)
{
    return img->missing;
}

static bool is_root_entry(const jit_emit *e, const fbe_ir_package *root, LLVMValueRef fn)
{
    for (size_t i = 0; i < e->count; i++) {
        if (e->codec->types[i].ir->package != root)
            continue;
        for (int m = 0; m < 2; m++)
            for (int op = 0; op < 4; op++)
                if (e->fns[i].entry[m][op] == fn)
                    return true;
    }
    return false;
}

bool jit_image_finish(jit_image *img, jit_emit *e, unsigned max_depth, const char *fbe_version,
                      const char *target, char *err, size_t size)
{
    img->err = err;
    img->err_size = size;
    if (img->missing) {
        snprintf(err, size, "the generated code refers to a host object at %p that is not in "
                            "the IR image",
                 img->missing);
        return false;
    }
    const fbe_ir_package *root = fbe_schema_root(img->schema);
    char prefix[FBE_IR_MAX_PREFIX + 1], name[FBE_IR_MAX_PREFIX + 32];
    fbe_ir_package_prefix(root, prefix);

    /* Only the root package's entry points are exported. */
    for (LLVMValueRef fn = LLVMGetFirstFunction(img->mod); fn; fn = LLVMGetNextFunction(fn)) {
        if (LLVMIsDeclaration(fn) || LLVMGetLinkage(fn) != LLVMExternalLinkage)
            continue;
        if (!is_root_entry(e, root, fn))
            LLVMSetLinkage(fn, LLVMInternalLinkage);
    }

    /* fbe_aot_type[] */
    size_t n = e->count;
    LLVMValueRef *types = calloc(n + 1, sizeof *types);
    if (!types)
        return fail(img, "out of memory");
    for (size_t i = 0; i < n; i++) {
        rec r;
        rec_init(&r, img, L_AOT_TYPE);
        SET_PTR(&r, fbe_aot_type, ir, ref(img, e->codec->types[i].ir, "struct"));
        for (int m = 0; m < 2; m++)
            for (int op = 0; op < 4; op++) {
                LLVMValueRef fn = e->fns[i].entry[m][op];
                size_t off = offsetof(fbe_aot_type, ops) + (size_t)m * sizeof(fbe_model_ops) +
                             (size_t)op * sizeof(void *);
                rec_ptr(&r, off, fn ? fn : LLVMConstPointerNull(img->ptr));
            }
        types[i] = rec_value(&r);
    }
    LLVMValueRef types_g = add_global(img, LLVMArrayType2(img->t[L_AOT_TYPE], n), "types", NULL,
                                      layouts[L_AOT_TYPE].align);
    set_init(types_g, LLVMConstArray2(img->t[L_AOT_TYPE], types, n));
    free(types);

    /* The package list. */
    size_t np = fbe_schema_package_count(img->schema);
    LLVMValueRef *pk = calloc(np + 1, sizeof *pk);
    if (!pk)
        return fail(img, "out of memory");
    for (size_t i = 0; i < np; i++)
        pk[i] = ref(img, fbe_schema_package(img->schema, i), "package");
    LLVMValueRef pk_g = add_global(img, LLVMArrayType2(img->ptr, np), "packages", NULL,
                                   alignof(void *));
    set_init(pk_g, LLVMConstArray2(img->ptr, pk, np));
    free(pk);

    rec r;
    rec_init(&r, img, L_AOT_IMAGE);
    SET_INT(&r, fbe_aot_image, abi_version, FBE_AOT_ABI_VERSION);
    SET_INT(&r, fbe_aot_image, layout_check, FBE_AOT_LAYOUT_CHECK);
    SET_INT(&r, fbe_aot_image, max_depth, max_depth);
    SET_PTR(&r, fbe_aot_image, fbe_version, str(img, fbe_version));
    SET_PTR(&r, fbe_aot_image, target, str(img, target));
    SET_PTR(&r, fbe_aot_image, root, ref(img, root, "package"));
    SET_PTR(&r, fbe_aot_image, packages, pk_g);
    SET_INT(&r, fbe_aot_image, package_count, np);
    SET_PTR(&r, fbe_aot_image, types, types_g);
    SET_INT(&r, fbe_aot_image, type_count, n);
    snprintf(name, sizeof name, "%s_aot_image", prefix);
    if (LLVMGetNamedGlobal(img->mod, name) || LLVMGetNamedFunction(img->mod, name))
        return fail(img, "symbol %s is already defined", name);
    LLVMValueRef image = LLVMAddGlobal(img->mod, img->t[L_AOT_IMAGE], name);
    LLVMSetInitializer(image, rec_value(&r));
    LLVMSetGlobalConstant(image, 1);
    LLVMSetAlignment(image, (unsigned)layouts[L_AOT_IMAGE].align);

    /* fbe_codec *fbe_<pkg>_codec_create(fbe_status *status) */
    LLVMTypeRef create_params[] = {img->ptr, img->ptr};
    LLVMTypeRef create_t = LLVMFunctionType(img->ptr, create_params, 2, 0);
    LLVMValueRef create = LLVMGetNamedFunction(img->mod, "fbe_aot_codec_create");
    if (!create)
        create = LLVMAddFunction(img->mod, "fbe_aot_codec_create", create_t);
    snprintf(name, sizeof name, "%s_codec_create", prefix);
    if (LLVMGetNamedGlobal(img->mod, name) || LLVMGetNamedFunction(img->mod, name))
        return fail(img, "symbol %s is already defined", name);
    LLVMTypeRef entry_params[] = {img->ptr};
    LLVMValueRef fn = LLVMAddFunction(img->mod, name, LLVMFunctionType(img->ptr, entry_params, 1, 0));
    LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(img->ctx, fn, "entry");
    LLVMBuilderRef b = LLVMCreateBuilderInContext(img->ctx);
    LLVMPositionBuilderAtEnd(b, bb);
    LLVMValueRef args[] = {image, LLVMGetParam(fn, 0)};
    LLVMValueRef call = LLVMBuildCall2(b, create_t, create, args, 2, "");
    LLVMSetTailCall(call, 1);
    LLVMBuildRet(b, call);
    LLVMDisposeBuilder(b);
    return !img->failed;
}

void jit_image_free(jit_image *img)
{
    if (!img)
        return;
    map_free(&img->objects);
    map_free(&img->arrays);
    free(img->strings.e);
    free(img->types);
    free(img);
}
