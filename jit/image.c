/* The IR image of an AOT object (see image.h): the objects of ir/image_plan.h
 * as private LLVM constants laid out like their C structs, resolved by host
 * address (tools/gen_c_image.c spells the same plan as C data).
 *
 * The LLVM struct types are built from the plan's member descriptions and
 * checked against them under the target's data layout before anything is
 * emitted, so a layout the C compiler and LLVM disagree on is an error, never a
 * misread image. Nested structs (fbe_ir_value, fbe_ir_source_loc,
 * fbe_model_ops) are flattened: the check covers every member offset and the
 * total size and alignment. */
#include "image.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_impl.h"
#include "fbe/aot.h"
#include "image_plan.h"

#define L_COUNT FBE_IMAGE_L_COUNT
#define MAX_MEMBERS 40

typedef fbe_image_member member;
typedef fbe_image_layout layout;
#define layouts fbe_image_layouts

static LLVMTypeRef kind_type(LLVMContextRef ctx, fbe_image_kind k)
{
    switch (k) {
    case FBE_IMAGE_BOOL: return LLVMInt8TypeInContext(ctx);
    case FBE_IMAGE_I32: case FBE_IMAGE_U32: return LLVMInt32TypeInContext(ctx);
    case FBE_IMAGE_U64: return LLVMInt64TypeInContext(ctx);
    case FBE_IMAGE_F64: return LLVMDoubleTypeInContext(ctx);
    case FBE_IMAGE_BYTES16: return LLVMArrayType2(LLVMInt8TypeInContext(ctx), 16);
    default: return LLVMPointerTypeInContext(ctx, 0);
    }
}

static size_t align_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

/* The LLVM struct of a layout: the members in order, with an explicit [N x i8]
 * before a member that C places further than LLVM naturally would (the start of
 * a flattened nested struct). idx[i] is member i's element number. */
typedef struct ltype {
    LLVMTypeRef t;
    unsigned n; /* elements */
    unsigned idx[MAX_MEMBERS];
    LLVMTypeRef el[2 * MAX_MEMBERS];
} ltype;

static void layout_type(LLVMContextRef ctx, const layout *L, ltype *out)
{
    size_t end = 0;
    out->n = 0;
    for (size_t i = 0; i < L->count; i++) {
        const member *m = &L->members[i];
        size_t natural = align_up(end, fbe_image_kind_align(m->kind));
        if (m->offset > natural)
            out->el[out->n++] = LLVMArrayType2(LLVMInt8TypeInContext(ctx), m->offset - end);
        out->idx[i] = out->n;
        out->el[out->n++] = kind_type(ctx, m->kind);
        end = m->offset + fbe_image_kind_size(m->kind);
    }
    out->t = LLVMStructTypeInContext(ctx, out->el, out->n, 0);
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
        if (L->count > MAX_MEMBERS) {
            snprintf(err, size, "%s: too many members", L->name);
            return false;
        }
        /* The description itself: members in order, gaps only where C pads. */
        size_t end = 0, align = 1;
        for (size_t i = 0; i < L->count; i++) {
            const member *m = &L->members[i];
            size_t ka = fbe_image_kind_align(m->kind), a = m->align > ka ? m->align : ka;
            if (m->offset != align_up(end, a)) {
                snprintf(err, size, "%s.%s: at offset %zu, expected %zu (a member is missing "
                                    "from the image description?)",
                         L->name, m->name, m->offset, align_up(end, a));
                return false;
            }
            end = m->offset + fbe_image_kind_size(m->kind);
            if (ka > align)
                align = ka;
        }
        if (align_up(end, align) != L->size || align != L->align) {
            snprintf(err, size, "%s: described as %zu bytes (align %zu), C has %zu (align %zu)",
                     L->name, align_up(end, align), align, L->size, L->align);
            return false;
        }
        /* LLVM under the target's data layout. */
        ltype lt;
        layout_type(ctx, L, &lt);
        for (size_t i = 0; i < L->count; i++) {
            unsigned long long off = LLVMOffsetOfElement(dl, lt.t, lt.idx[i]);
            if (off != L->members[i].offset) {
                snprintf(err, size, "%s.%s: LLVM puts it at %llu, C at %zu", L->name,
                         L->members[i].name, off, L->members[i].offset);
                return false;
            }
        }
        if (LLVMABISizeOfType(dl, lt.t) != L->size || LLVMABIAlignmentOfType(dl, lt.t) != L->align) {
            snprintf(err, size, "%s: LLVM size %llu align %u, C size %zu align %zu", L->name,
                     LLVMABISizeOfType(dl, lt.t), LLVMABIAlignmentOfType(dl, lt.t), L->size,
                     L->align);
            return false;
        }
    }
    return true;
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
    LLVMTypeRef i8, i64, f64, ptr;
    fbe_image_plan plan;
    LLVMValueRef *globals; /* one per plan object */
    str_map strings;
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

static LLVMValueRef add_global(jit_image *img, LLVMTypeRef t, const char *name, size_t align)
{
    LLVMValueRef g = LLVMAddGlobal(img->mod, t, name);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetAlignment(g, (unsigned)align);
    return g;
}

static LLVMTypeRef object_type(jit_image *img, const fbe_image_object *o)
{
    LLVMTypeRef t = o->layout == FBE_IMAGE_L_PTR ? img->ptr : img->lt[o->layout].t;
    return o->count ? LLVMArrayType2(t, o->count) : t;
}

/* The constant address of element `element` of plan object `object`. */
static LLVMValueRef address(jit_image *img, size_t object, size_t element)
{
    const fbe_image_object *o = &img->plan.objects[object];
    if (!o->count)
        return img->globals[object];
    LLVMValueRef idx[] = {LLVMConstInt(img->i64, 0, 0), LLVMConstInt(img->i64, element, 0)};
    return LLVMConstInBoundsGEP2(object_type(img, o), img->globals[object], idx, 2);
}

static LLVMValueRef str_n(jit_image *img, const char *s, size_t len)
{
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
    LLVMValueRef g = add_global(img, LLVMTypeOf(init), "fbe.ir.str", 1);
    LLVMSetInitializer(g, init);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    m->e[j] = (str_entry){s, len, g};
    m->count++;
    return g;
}

static LLVMValueRef constant(jit_image *img, LLVMTypeRef t, const fbe_image_value *v)
{
    switch (v->kind) {
    case FBE_IMAGE_REF:
    case FBE_IMAGE_ARRAY:
        return v->null ? LLVMConstPointerNull(img->ptr) : address(img, v->object, v->element);
    case FBE_IMAGE_STR:
    case FBE_IMAGE_STRN:
        return v->null ? LLVMConstPointerNull(img->ptr) : str_n(img, v->str, v->len);
    case FBE_IMAGE_F64: /* the exact bits (NaN payloads, -0.0) */
        return LLVMConstBitCast(LLVMConstInt(img->i64, v->u, 0), img->f64);
    case FBE_IMAGE_BYTES16: {
        LLVMValueRef b[16];
        for (int i = 0; i < 16; i++)
            b[i] = LLVMConstInt(img->i8, v->bytes[i], 0);
        return LLVMConstArray2(img->i8, b, 16);
    }
    case FBE_IMAGE_FN: return LLVMConstPointerNull(img->ptr);
    default: return LLVMConstInt(t, v->u, 0);
    }
}

/* A record under construction: element values by element number (padding
 * included, zero unless set). */
typedef struct rec {
    const ltype *lt;
    const layout *L;
    LLVMValueRef v[2 * MAX_MEMBERS];
} rec;

static void rec_init(rec *r, jit_image *img, fbe_image_layout_id l)
{
    r->L = &layouts[l];
    r->lt = &img->lt[l];
    for (unsigned i = 0; i < r->lt->n; i++)
        r->v[i] = LLVMConstNull(r->lt->el[i]);
}

static LLVMValueRef rec_value(jit_image *img, rec *r)
{
    return LLVMConstStructInContext(img->ctx, r->v, r->lt->n, 0);
}

/* A record of the plan: every member read from the host object. */
static LLVMValueRef record(jit_image *img, fbe_image_layout_id l, const void *host)
{
    rec r;
    rec_init(&r, img, l);
    for (size_t i = 0; i < r.L->count; i++) {
        fbe_image_value v;
        if (!fbe_image_member_value(&img->plan, &r.L->members[i], host, &v)) {
            fail(img, "%s", img->plan.err);
            break;
        }
        unsigned e = r.lt->idx[i];
        r.v[e] = constant(img, r.lt->el[e], &v);
    }
    return rec_value(img, &r);
}

/* The element of the descriptor member at `offset` (set by the writer, not read
 * from the IR); -1 if the layout has none, which fails the image. */
static int rec_element(jit_image *img, const rec *r, size_t offset)
{
    for (size_t i = 0; i < r->L->count; i++)
        if (r->L->members[i].offset == offset)
            return (int)r->lt->idx[i];
    fail(img, "IR image: %s has no member at offset %zu", r->L->name, offset);
    return -1;
}

static void rec_set(jit_image *img, rec *r, size_t offset, LLVMValueRef v)
{
    int e = rec_element(img, r, offset);
    if (e >= 0)
        r->v[e] = v;
}

static void set_int(jit_image *img, rec *r, size_t offset, uint64_t v)
{
    int e = rec_element(img, r, offset);
    if (e >= 0)
        r->v[e] = LLVMConstInt(r->lt->el[e], v, 0);
}

#define SET_PTR(r, T, f, v) rec_set(img, r, offsetof(T, f), v)

static const char *const role_names[FBE_IMAGE_ROLE_COUNT] = {
    [FBE_IMAGE_PACKAGE] = "pkg",          [FBE_IMAGE_IMPORTS] = "pkg.imports",
    [FBE_IMAGE_ENUMS] = "pkg.enums",      [FBE_IMAGE_FLAGS_LIST] = "pkg.flags",
    [FBE_IMAGE_STRUCTS] = "pkg.structs",  [FBE_IMAGE_ENUM] = "enum",
    [FBE_IMAGE_ENUM_VALUES] = "enum.values", [FBE_IMAGE_FLAGS] = "flags",
    [FBE_IMAGE_FLAGS_VALUES] = "flags.values", [FBE_IMAGE_STRUCT] = "struct",
    [FBE_IMAGE_FIELDS] = "struct.fields", [FBE_IMAGE_REJECTS] = "struct.rejects",
    [FBE_IMAGE_TYPE] = "type",
};

/* A global for every object first, so any pointer resolves; then the values. */
static void emit_objects(jit_image *img)
{
    fbe_image_plan *plan = &img->plan;
    img->globals = calloc(plan->count + 1, sizeof *img->globals);
    if (!img->globals) {
        fail(img, "out of memory");
        return;
    }
    char name[600];
    for (size_t i = 0; i < plan->count; i++) {
        const fbe_image_object *o = &plan->objects[i];
        snprintf(name, sizeof name, "fbe.ir.%s%s%s", role_names[o->role], o->label ? "." : "",
                 o->label ? o->label : "");
        size_t align = o->layout == FBE_IMAGE_L_PTR ? alignof(void *) : layouts[o->layout].align;
        img->globals[i] = add_global(img, object_type(img, o), name, align);
    }
    for (size_t i = 0; i < plan->count && !img->failed; i++) {
        const fbe_image_object *o = &plan->objects[i];
        if (!o->count) {
            LLVMSetInitializer(img->globals[i], record(img, o->layout, o->host));
            continue;
        }
        LLVMValueRef *v = calloc(o->count, sizeof *v);
        if (!v) {
            fail(img, "out of memory");
            return;
        }
        size_t stride = layouts[o->layout].size;
        for (size_t e = 0; e < o->count && !img->failed; e++) {
            const void *host = (const char *)o->host + e * stride;
            if (o->layout == FBE_IMAGE_L_PTR) {
                fbe_image_value pv;
                if (!fbe_image_member_value(plan, &layouts[o->layout].members[0], host, &pv))
                    fail(img, "%s", plan->err);
                v[e] = constant(img, img->ptr, &pv);
            } else {
                v[e] = record(img, o->layout, host);
            }
        }
        LLVMTypeRef t = o->layout == FBE_IMAGE_L_PTR ? img->ptr : img->lt[o->layout].t;
        if (!img->failed)
            LLVMSetInitializer(img->globals[i], LLVMConstArray2(t, v, o->count));
        free(v);
    }
}

static LLVMValueRef image_host_ptr(jit_emit *e, const void *p)
{
    jit_image *img = e->host_ptr_ctx;
    size_t object, element;
    if (fbe_image_plan_find(&img->plan, p, &object, &element))
        return address(img, object, element);
    if (!img->missing)
        img->missing = p;
    return NULL;
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
    img->err = err;
    img->err_size = size;
    img->i8 = e->i8;
    img->i64 = e->i64;
    img->ptr = e->ptr;
    img->f64 = LLVMDoubleTypeInContext(e->ctx);
    for (int l = 0; l < L_COUNT; l++)
        layout_type(e->ctx, &layouts[l], &img->lt[l]);
    if (!fbe_image_plan_build(&img->plan, schema, err, size))
        img->failed = true;
    else
        emit_objects(img);
    if (img->failed) {
        jit_image_free(img);
        return NULL;
    }
    e->host_ptr = image_host_ptr;
    e->host_ptr_ctx = img;
    return img;
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

/* The address of a host IR object the descriptor points at. */
static LLVMValueRef ref(jit_image *img, const void *host)
{
    size_t object, element;
    if (fbe_image_plan_find(&img->plan, host, &object, &element))
        return address(img, object, element);
    fail(img, "IR image: an object of the descriptor is not part of the schema");
    return LLVMConstPointerNull(img->ptr);
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
    const fbe_schema *schema = img->plan.schema;
    const fbe_ir_package *root = fbe_schema_root(schema);
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
        rec_init(&r, img, FBE_IMAGE_L_AOT_TYPE);
        SET_PTR(&r, fbe_aot_type, ir, ref(img, e->codec->types[i].ir));
        for (int m = 0; m < 2; m++)
            for (int op = 0; op < 4; op++) {
                LLVMValueRef fn = e->fns[i].entry[m][op];
                size_t off = offsetof(fbe_aot_type, ops) + (size_t)m * sizeof(fbe_model_ops) +
                             (size_t)op * sizeof(void *);
                rec_set(img, &r, off, fn ? fn : LLVMConstPointerNull(img->ptr));
            }
        types[i] = rec_value(img, &r);
    }
    LLVMTypeRef aot_type = img->lt[FBE_IMAGE_L_AOT_TYPE].t;
    LLVMValueRef types_g = add_global(img, LLVMArrayType2(aot_type, n), "fbe.ir.types",
                                      layouts[FBE_IMAGE_L_AOT_TYPE].align);
    LLVMSetInitializer(types_g, LLVMConstArray2(aot_type, types, n));
    free(types);

    /* The package list. */
    size_t np = fbe_schema_package_count(schema);
    LLVMValueRef *pk = calloc(np + 1, sizeof *pk);
    if (!pk)
        return fail(img, "out of memory");
    for (size_t i = 0; i < np; i++)
        pk[i] = ref(img, fbe_schema_package(schema, i));
    LLVMValueRef pk_g = add_global(img, LLVMArrayType2(img->ptr, np), "fbe.ir.packages",
                                   alignof(void *));
    LLVMSetInitializer(pk_g, LLVMConstArray2(img->ptr, pk, np));
    free(pk);

    rec r;
    rec_init(&r, img, FBE_IMAGE_L_AOT_IMAGE);
    set_int(img, &r, offsetof(fbe_aot_image, abi_version), FBE_AOT_ABI_VERSION);
    set_int(img, &r, offsetof(fbe_aot_image, layout_check), FBE_AOT_LAYOUT_CHECK);
    set_int(img, &r, offsetof(fbe_aot_image, max_depth), max_depth);
    SET_PTR(&r, fbe_aot_image, fbe_version, str_n(img, fbe_version, strlen(fbe_version)));
    SET_PTR(&r, fbe_aot_image, target, str_n(img, target, strlen(target)));
    SET_PTR(&r, fbe_aot_image, root, ref(img, root));
    SET_PTR(&r, fbe_aot_image, packages, pk_g);
    set_int(img, &r, offsetof(fbe_aot_image, package_count), np);
    SET_PTR(&r, fbe_aot_image, types, types_g);
    set_int(img, &r, offsetof(fbe_aot_image, type_count), n);
    snprintf(name, sizeof name, "%s_aot_image", prefix);
    if (LLVMGetNamedGlobal(img->mod, name) || LLVMGetNamedFunction(img->mod, name))
        return fail(img, "symbol %s is already defined", name);
    LLVMValueRef image = LLVMAddGlobal(img->mod, img->lt[FBE_IMAGE_L_AOT_IMAGE].t, name);
    LLVMSetInitializer(image, rec_value(img, &r));
    LLVMSetGlobalConstant(image, 1);
    LLVMSetAlignment(image, (unsigned)layouts[FBE_IMAGE_L_AOT_IMAGE].align);

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
    fbe_image_plan_free(&img->plan);
    free(img->globals);
    free(img->strings.e);
    free(img);
}
