/* The IR image of a static C codec: the objects of ir/image_plan.h spelled as
 * constant C data (jit/image.c spells the same plan as LLVM globals). Written
 * with designated initializers, so the C compiler itself lays the structs out;
 * members that are zero are left out.
 *
 * Names are the plan's (fbe_image_object_name): ir_p<i> (package i, imports
 * first) and its lists, ir_e<k>/ir_g<k> (enums, flags) and their values,
 * ir_s<k>/_f/_r (struct k of the codec's type table, its fields and rejects),
 * ir_t<k> (type nodes), and ir_packages. Structs that share one IR field array
 * share one image array, named after its longest user; the others' ir_s<k>_f
 * is a macro for it, so the code that names a struct's fields needs no
 * exception (docs/aot.md, "The image"). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gen_c_internal.h"
#include "image_plan.h"

#ifndef FBE_VERSION
#define FBE_VERSION "unknown"
#endif

static fbe_image_plan P;
static char P_err[256];

/* ---- spelling C constants --------------------------------------------------------- */

static void lit(gc *g, const char *s, size_t len)
{
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
    lit(g, s, strlen(s));
}

/* The exact double: a hexadecimal literal (infinities and NaN by macro). */
static void dbl(gc *g, uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    if (isnan(d))
        gc_printf(g, "%sNAN", signbit(d) ? "-" : "");
    else if (isinf(d))
        gc_printf(g, "%sHUGE_VAL", d < 0 ? "-" : "");
    else
        gc_printf(g, "%a", d);
}

static const char *name_of(size_t object, char *buf, size_t size)
{
    return fbe_image_object_name(&P.objects[object], buf, size);
}

/* The C type of an object's elements ("fbe_ir_enum *const" for a list). */
static const char *elem_type(const fbe_image_object *o)
{
    switch (o->role) {
    case FBE_IMAGE_IMPORTS: return "fbe_ir_package *const";
    case FBE_IMAGE_ENUMS: return "fbe_ir_enum *const";
    case FBE_IMAGE_FLAGS_LIST: return "fbe_ir_flags *const";
    case FBE_IMAGE_STRUCTS: return "fbe_ir_struct *const";
    default: return fbe_image_layouts[o->layout].name;
    }
}

static void value(gc *g, const fbe_image_value *v)
{
    char name[64];
    switch (v->kind) {
    case FBE_IMAGE_REF:
    case FBE_IMAGE_ARRAY:
        if (P.objects[v->object].count)
            gc_printf(g, "&%s[%zu]", name_of(v->object, name, sizeof name), v->element);
        else
            gc_printf(g, "&%s", name_of(v->object, name, sizeof name));
        break;
    case FBE_IMAGE_STR:
    case FBE_IMAGE_STRN: lit(g, v->str, v->len); break;
    case FBE_IMAGE_BOOL: gc_printf(g, "true"); break;
    case FBE_IMAGE_I32: gc_printf(g, "%" PRId32, (int32_t)v->u); break;
    case FBE_IMAGE_U32: gc_printf(g, "%" PRIu64 "u", v->u); break;
    case FBE_IMAGE_U64: gc_printf(g, "UINT64_C(%" PRIu64 ")", v->u); break;
    case FBE_IMAGE_F64: dbl(g, v->u); break;
    case FBE_IMAGE_BYTES16:
        gc_printf(g, "{{");
        for (int i = 0; i < 16; i++)
            gc_printf(g, "%s0x%02x", i ? ", " : "", v->bytes[i]);
        gc_printf(g, "}}");
        break;
    case FBE_IMAGE_FN: break;
    }
}

static bool is_zero(const fbe_image_value *v)
{
    switch (v->kind) {
    case FBE_IMAGE_REF:
    case FBE_IMAGE_ARRAY:
    case FBE_IMAGE_STR:
    case FBE_IMAGE_STRN: return v->null;
    case FBE_IMAGE_BYTES16: {
        static const uint8_t zero[16];
        return memcmp(v->bytes, zero, 16) == 0;
    }
    default: return v->u == 0; /* +0.0 only: -0.0 has a bit set */
    }
}

/* One record: {.member = value, ...} without its zero members. */
static void record(gc *g, fbe_image_layout_id l, const void *host, const char *indent)
{
    const fbe_image_layout *L = &fbe_image_layouts[l];
    gc_printf(g, "{");
    bool first = true;
    for (size_t i = 0; i < L->count; i++) {
        fbe_image_value v;
        if (!fbe_image_member_value(&P, &L->members[i], host, &v)) {
            gc_error(g, "%s", P.err);
            return;
        }
        if (is_zero(&v))
            continue;
        gc_printf(g, "%s\n%s    .%s = ", first ? "" : ",", indent, L->members[i].name);
        value(g, &v);
        first = false;
    }
    gc_printf(g, "%s%s}", first ? "" : "\n", first ? "" : indent);
}

/* ---- declarations ------------------------------------------------------------------ */

void gc_emit_image_decls(gc *g)
{
    if (!fbe_image_plan_build(&P, g->schema, P_err, sizeof P_err)) {
        gc_error(g, "%s", P_err);
        return;
    }
    if (P.struct_count != g->struct_count) {
        gc_error(g, "IR image: %zu structs, the codec has %zu", P.struct_count, g->struct_count);
        return;
    }
    gc_printf(g, "\n/* ---- the IR image (fbe/ir.h as constant data) ---- */\n\n");
    char name[64];
    for (size_t i = 0; i < P.count; i++) {
        const fbe_image_object *o = &P.objects[i];
        gc_printf(g, "static const %s %s", elem_type(o), name_of(i, name, sizeof name));
        if (o->count)
            gc_printf(g, "[%zu]", o->count);
        gc_printf(g, ";");
        if (o->role == FBE_IMAGE_STRUCT)
            gc_printf(g, " /* %s */", ((const fbe_ir_struct *)o->host)->full_name);
        gc_printf(g, "\n");
    }
    for (size_t k = 0; k < g->struct_count; k++)
        if (g->structs[k]->field_count && P.fields_of[k] != k)
            gc_printf(g, "#define ir_s%zu_f ir_s%zu_f /* the same field array */\n", k,
                      P.fields_of[k]);
}

/* ---- definitions ------------------------------------------------------------------- */

void gc_emit_image(gc *g)
{
    if (g->failed)
        return;
    char name[64];
    for (size_t i = 0; i < P.count && !g->failed; i++) {
        const fbe_image_object *o = &P.objects[i];
        gc_printf(g, "static const %s %s", elem_type(o), name_of(i, name, sizeof name));
        if (!o->count) {
            gc_printf(g, " = ");
            record(g, o->layout, o->host, "");
            gc_printf(g, ";\n");
            continue;
        }
        gc_printf(g, "[%zu] = {", o->count);
        size_t stride = fbe_image_layouts[o->layout].size;
        for (size_t e = 0; e < o->count; e++) {
            const void *host = (const char *)o->host + e * stride;
            if (o->layout == FBE_IMAGE_L_PTR) {
                fbe_image_value v;
                if (!fbe_image_member_value(&P, &fbe_image_layouts[o->layout].members[0], host, &v))
                    gc_error(g, "%s", P.err);
                gc_printf(g, "%s", e ? ", " : "");
                value(g, &v);
            } else {
                gc_printf(g, "\n    ");
                record(g, o->layout, host, "    ");
                gc_printf(g, ",");
            }
        }
        gc_printf(g, "%s};\n", o->layout == FBE_IMAGE_L_PTR ? "" : "\n");
    }
    size_t np = fbe_schema_package_count(g->schema);
    gc_printf(g, "\nstatic const fbe_ir_package *const ir_packages[%zu] = {", np);
    for (size_t i = 0; i < np; i++)
        gc_printf(g, "%s&ir_p%zu", i ? ", " : "", i);
    gc_printf(g, "};\n");
}

/* The type table, the exported image and fbe_<P>_codec_create(), after the
 * entry points they refer to. */
void gc_emit_image_tail(gc *g)
{
    if (g->failed) {
        fbe_image_plan_free(&P);
        return;
    }
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
    size_t root = 0, element = 0;
    if (!fbe_image_plan_find(&P, g->root, &root, &element))
        gc_error(g, "IR image: the root package is not part of the schema");
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
              P.objects[root].number, fbe_schema_package_count(g->schema), g->struct_count);
    gc_printf(g,
              "fbe_codec *%s_codec_create(fbe_status *status);\n"
              "fbe_codec *%s_codec_create(fbe_status *status)\n"
              "{\n"
              "    return fbe_aot_codec_create(&%s_aot_image, status);\n"
              "}\n",
              prefix, prefix, prefix);
    fbe_image_plan_free(&P);
}
