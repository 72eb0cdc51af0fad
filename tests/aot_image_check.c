/* Built and run by test_aot: the IR image inside an object written by `fbec aot`
 * against the IR the compiler builds from the schema source, member by member
 * (every member of every struct of fbe/ir.h).
 *
 *   cc -DAOT_PACKAGE=proto -I<dir of proto.h> aot_image_check.c proto.o \
 *      libfbe_compiler.a libfbe_runtime.a -lm
 *   ./aot_image_check SCHEMA.fbe [IMPORT_DIR]
 *
 * References between IR objects (a field's owner, a struct's package, a type's
 * enum) are compared by name; owned objects (fields, types, values) deeply.
 * Field arrays are shared exactly where the IR shares them (a base and its
 * heirs, ir/resolve.c): two structs' image `fields` are the same pointer if
 * and only if their IR `fields` are.
 * Prints one line per difference; exits 1 if there was any. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbe/schema.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#include STR(AOT_PACKAGE.h)

#define IMAGE CAT(CAT(fbe_, AOT_PACKAGE), _aot_image)

static unsigned compared, differences;

static void diff(const char *where, const char *member)
{
    differences++;
    if (differences <= 50)
        fprintf(stderr, "aot_image_check: %s.%s differs\n", where, member);
}

#define EQ(a, b, where, m)                                                                \
    do {                                                                                  \
        compared++;                                                                       \
        if ((a)->m != (b)->m)                                                             \
            diff(where, #m);                                                              \
    } while (0)

static bool same_str(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

#define STREQ(a, b, where, m)                                                             \
    do {                                                                                  \
        compared++;                                                                       \
        if (!same_str((a)->m, (b)->m))                                                    \
            diff(where, #m);                                                              \
    } while (0)

/* A reference to a named IR object: both NULL or the same full name. */
#define REFEQ(a, b, where, m, name)                                                       \
    do {                                                                                  \
        compared++;                                                                       \
        if (!(a)->m != !(b)->m || ((a)->m && !same_str((a)->m->name, (b)->m->name)))     \
            diff(where, #m);                                                              \
    } while (0)

#define LOCEQ(a, b, where)                                                                \
    do {                                                                                  \
        STREQ(a, b, where, loc.file);                                                     \
        EQ(a, b, where, loc.line);                                                        \
        EQ(a, b, where, loc.col);                                                         \
    } while (0)

static void cmp_type(const fbe_ir_type *a, const fbe_ir_type *b, const char *where)
{
    compared++;
    if (!a != !b) {
        diff(where, "(type presence)");
        return;
    }
    if (!a)
        return;
    EQ(a, b, where, kind);
    EQ(a, b, where, array_len);
    EQ(a, b, where, std_inline_size);
    EQ(a, b, where, final_fixed);
    EQ(a, b, where, final_size);
    EQ(a, b, where, host_size);
    EQ(a, b, where, host_align);
    EQ(a, b, where, host_value_offset);
    EQ(a, b, where, host_entry_value_offset);
    EQ(a, b, where, host_entry_size);
    REFEQ(a, b, where, enum_type, full_name);
    REFEQ(a, b, where, flags_type, full_name);
    REFEQ(a, b, where, struct_type, full_name);
    cmp_type(a->elem, b->elem, where);
    cmp_type(a->key, b->key, where);
}

static void cmp_values(const fbe_ir_enum_value *a, const fbe_ir_enum_value *b, size_t n,
                       const char *where)
{
    for (size_t i = 0; i < n; i++) {
        STREQ(&a[i], &b[i], where, name);
        EQ(&a[i], &b[i], where, value);
        EQ(&a[i], &b[i], where, deprecated);
        EQ(&a[i], &b[i], where, hidden);
    }
}

#define CMP_ENUM(a, b)                                                                    \
    do {                                                                                  \
        const char *w = (b)->full_name;                                                   \
        STREQ(a, b, w, name);                                                             \
        STREQ(a, b, w, full_name);                                                        \
        STREQ(a, b, w, c_name);                                                           \
        REFEQ(a, b, w, package, name);                                                    \
        EQ(a, b, w, base);                                                                \
        EQ(a, b, w, value_count);                                                         \
        EQ(a, b, w, deprecated);                                                          \
        EQ(a, b, w, hidden);                                                              \
        LOCEQ(a, b, w);                                                                   \
        if ((a)->value_count == (b)->value_count)                                         \
            cmp_values((a)->values, (b)->values, (b)->value_count, w);                    \
    } while (0)

static void cmp_field(const fbe_ir_field *a, const fbe_ir_field *b, const char *st)
{
    char where[256];
    snprintf(where, sizeof where, "%s.%s", st, b->name);
    STREQ(a, b, where, name);
    STREQ(a, b, where, c_name);
    REFEQ(a, b, where, owner, full_name);
    EQ(a, b, where, index);
    EQ(a, b, where, std_offset);
    EQ(a, b, where, host_offset);
    EQ(a, b, where, is_key);
    EQ(a, b, where, is_id);
    EQ(a, b, where, hidden);
    EQ(a, b, where, deprecated);
    EQ(a, b, where, is_reset_flag);
    LOCEQ(a, b, where);
    cmp_type(a->type, b->type, where);
    const fbe_ir_value *x = &a->default_value, *y = &b->default_value;
    EQ(x, y, where, kind);
    EQ(x, y, where, b);
    EQ(x, y, where, u);
    compared++;
    if (memcmp(&x->d, &y->d, sizeof x->d) != 0)
        diff(where, "default_value.d");
    EQ(x, y, where, dec.lo);
    EQ(x, y, where, dec.hi);
    EQ(x, y, where, dec.flags);
    EQ(x, y, where, str.size);
    compared++;
    if (!x->str.data != !y->str.data ||
        (x->str.data && memcmp(x->str.data, y->str.data, y->str.size + 1) != 0))
        diff(where, "default_value.str.data");
    compared++;
    if (memcmp(&x->uuid, &y->uuid, sizeof x->uuid) != 0)
        diff(where, "default_value.uuid");
}

static void cmp_struct(const fbe_ir_struct *a, const fbe_ir_struct *b)
{
    const char *w = b->full_name;
    STREQ(a, b, w, name);
    STREQ(a, b, w, full_name);
    STREQ(a, b, w, c_name);
    REFEQ(a, b, w, package, name);
    EQ(a, b, w, is_message);
    EQ(a, b, w, deprecated);
    EQ(a, b, w, hidden);
    EQ(a, b, w, type_number);
    EQ(a, b, w, declared_number);
    EQ(a, b, w, number_fixed);
    REFEQ(a, b, w, base, full_name);
    EQ(a, b, w, base_depth);
    EQ(a, b, w, value_height);
    EQ(a, b, w, field_count);
    EQ(a, b, w, own_field_start);
    EQ(a, b, w, std_body_size);
    EQ(a, b, w, final_fixed);
    EQ(a, b, w, final_size);
    EQ(a, b, w, host_size);
    EQ(a, b, w, host_align);
    EQ(a, b, w, is_request);
    REFEQ(a, b, w, response, full_name);
    EQ(a, b, w, reject_count);
    LOCEQ(a, b, w);
    if (a->field_count == b->field_count)
        for (size_t i = 0; i < b->field_count; i++)
            cmp_field(&a->fields[i], &b->fields[i], w);
    if (a->reject_count == b->reject_count)
        for (size_t i = 0; i < b->reject_count; i++) {
            REFEQ(&a->rejects[i], &b->rejects[i], w, type, full_name);
            EQ(&a->rejects[i], &b->rejects[i], w, global);
        }
}

static void cmp_package(const fbe_ir_package *a, const fbe_ir_package *b)
{
    const char *w = b->name;
    STREQ(a, b, w, name);
    STREQ(a, b, w, domain);
    EQ(a, b, w, offset);
    EQ(a, b, w, version_major);
    EQ(a, b, w, version_minor);
    STREQ(a, b, w, path);
    EQ(a, b, w, import_count);
    EQ(a, b, w, enum_count);
    EQ(a, b, w, flags_count);
    EQ(a, b, w, struct_count);
    if (a->import_count == b->import_count)
        for (size_t i = 0; i < b->import_count; i++)
            STREQ(a->imports[i], b->imports[i], w, name);
    if (a->enum_count == b->enum_count)
        for (size_t i = 0; i < b->enum_count; i++)
            CMP_ENUM(a->enums[i], b->enums[i]);
    if (a->flags_count == b->flags_count)
        for (size_t i = 0; i < b->flags_count; i++)
            CMP_ENUM(a->flags[i], b->flags[i]);
    if (a->struct_count == b->struct_count)
        for (size_t i = 0; i < b->struct_count; i++)
            cmp_struct(a->structs[i], b->structs[i]);
}

/* Every struct with fields, source and image side by side. */
typedef struct struct_pair {
    const fbe_ir_struct *src, *img;
} struct_pair;

static unsigned shared_pairs;

/* The golden schemas have a few dozen structs: every pair is checked. */
static void cmp_sharing(const struct_pair *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            bool src_shared = s[i].src->fields == s[j].src->fields;
            compared++;
            if (src_shared != (s[i].img->fields == s[j].img->fields)) {
                char where[512];
                snprintf(where, sizeof where, "%s/%s", s[i].src->full_name, s[j].src->full_name);
                diff(where, src_shared ? "fields (shared in the IR, not in the image)"
                                       : "fields (copies in the IR, shared in the image)");
            }
            shared_pairs += src_shared;
        }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s SCHEMA [IMPORT_DIR]\n", argv[0]);
        return 2;
    }
    const char *dirs[1] = {argc > 2 ? argv[2] : NULL};
    fbe_schema_options opts = {.include_dirs = dirs, .include_dir_count = argc > 2 ? 1 : 0};
    fbe_schema *schema = fbe_schema_load(argv[1], &opts, NULL);
    if (!schema) {
        fprintf(stderr, "aot_image_check: cannot load %s\n", argv[1]);
        return 1;
    }
    const fbe_aot_image *img = &IMAGE;
    compared++;
    if (img->abi_version != FBE_AOT_ABI_VERSION || img->layout_check != FBE_AOT_LAYOUT_CHECK)
        diff("image", "abi_version/layout_check");
    EQ(img, &(fbe_aot_image){.max_depth = FBE_DEFAULT_MAX_DEPTH}, "image", max_depth);
    compared++;
    if (!img->fbe_version || !img->target || !img->target[0])
        diff("image", "fbe_version/target");
    size_t np = fbe_schema_package_count(schema);
    compared++;
    if (img->package_count != np || !img->root || !same_str(img->root->name, fbe_schema_root(schema)->name) ||
        img->packages[np - 1] != img->root)
        diff("image", "packages/root");
    size_t k = 0, total = 0, paired = 0;
    for (size_t i = 0; i < np; i++)
        total += fbe_schema_package(schema, i)->struct_count;
    struct_pair *pairs = calloc(total + 1, sizeof *pairs);
    if (!pairs) {
        fprintf(stderr, "aot_image_check: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < np && i < img->package_count; i++) {
        const fbe_ir_package *src = fbe_schema_package(schema, i);
        cmp_package(img->packages[i], src);
        if (img->packages[i]->struct_count == src->struct_count)
            for (size_t j = 0; j < src->struct_count; j++)
                if (src->structs[j]->field_count &&
                    img->packages[i]->structs[j]->field_count == src->structs[j]->field_count)
                    pairs[paired++] = (struct_pair){src->structs[j], img->packages[i]->structs[j]};
        /* The type table: every struct of every package, in package order, each
         * the image's own IR object. */
        for (size_t j = 0; j < src->struct_count; j++, k++) {
            compared++;
            if (k >= img->type_count || img->types[k].ir != img->packages[i]->structs[j])
                diff("image.types", src->structs[j]->full_name);
#ifdef AOT_ALL_OPS
            for (int m = 0; k < img->type_count && m < 2; m++) {
                const fbe_model_ops *ops = &img->types[k].ops[m];
                compared++;
                if (!ops->size || !ops->serialize || !ops->verify || !ops->deserialize)
                    diff("image.types (entry points)", src->structs[j]->full_name);
            }
#endif
        }
    }
    compared++;
    if (k != img->type_count)
        diff("image", "type_count");
    cmp_sharing(pairs, paired);
    free(pairs);
    fbe_schema_free(schema);
    printf("aot_image_check %s: %u members compared, %u differ; %u pairs of structs share a "
           "field array\n",
           STR(AOT_PACKAGE), compared, differences, shared_pairs);
    return differences ? 1 : 0;
}
