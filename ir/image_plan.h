/* The IR image's plan: which constant objects mirror a schema's IR (fbe/ir.h),
 * in what order, under what names, and what every member of every record holds.
 * The two image writers (jit/image.c: LLVM globals of an AOT object;
 * tools/gen_c_image.c: C data of `fbec c`) only spell what this plan decides, so
 * an AOT object and a static C file hold the same objects with the same links.
 *
 * Records are read member by member from the host IR through one description of
 * each C struct (fbe_image_layouts: offset and kind of every member), which the
 * LLVM writer also checks against the target's data layout. Internal to fbe-c. */
#ifndef FBE_IR_IMAGE_PLAN_H
#define FBE_IR_IMAGE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fbe/ir.h"
#include "fbe/schema.h"
#include "ptrmap.h"

/* How a member is stored and what it holds. */
typedef enum fbe_image_kind {
    FBE_IMAGE_REF,     /* pointer to an object of the image, or NULL */
    FBE_IMAGE_ARRAY,   /* pointer to an array of the image; NULL when the count at aux is 0 */
    FBE_IMAGE_STR,     /* NUL-terminated string, or NULL */
    FBE_IMAGE_STRN,    /* string of the length at aux (the bytes and a NUL), or NULL */
    FBE_IMAGE_FN,      /* function pointer (the descriptor's entry points) */
    FBE_IMAGE_BOOL,
    FBE_IMAGE_I32,     /* enums */
    FBE_IMAGE_U32,
    FBE_IMAGE_U64,
    FBE_IMAGE_F64,
    FBE_IMAGE_BYTES16  /* fbe_uuid */
} fbe_image_kind;

typedef struct fbe_image_member {
    const char *name; /* a C designator: "loc.file", "default_value.dec.lo" */
    size_t offset;
    fbe_image_kind kind;
    size_t align;     /* 0: the kind's; else the alignment of the nested struct it starts */
    size_t aux;       /* ARRAY: offset of the count (size_t); STRN: of the length */
} fbe_image_member;

typedef struct fbe_image_layout {
    const char *name; /* the C type */
    size_t size, align;
    const fbe_image_member *members;
    size_t count;
} fbe_image_layout;

/* One layout per mirrored C struct; FBE_IMAGE_L_PTR is a bare pointer (the
 * elements of a package's import, enum, flags and struct lists). */
typedef enum fbe_image_layout_id {
    FBE_IMAGE_L_TYPE, FBE_IMAGE_L_ENUM_VALUE, FBE_IMAGE_L_ENUM, FBE_IMAGE_L_FLAGS,
    FBE_IMAGE_L_FIELD, FBE_IMAGE_L_REJECT, FBE_IMAGE_L_STRUCT, FBE_IMAGE_L_PACKAGE,
    FBE_IMAGE_L_PTR, FBE_IMAGE_L_AOT_TYPE, FBE_IMAGE_L_AOT_IMAGE, FBE_IMAGE_L_COUNT
} fbe_image_layout_id;

extern const fbe_image_layout fbe_image_layouts[FBE_IMAGE_L_COUNT];

size_t fbe_image_kind_size(fbe_image_kind k);
size_t fbe_image_kind_align(fbe_image_kind k);

/* What an object is, which also names it: C `ir_<role><number><suffix>`, e.g.
 * ir_s3_f (struct 3's fields), ir_p0_enums. */
typedef enum fbe_image_role {
    FBE_IMAGE_PACKAGE, FBE_IMAGE_IMPORTS, FBE_IMAGE_ENUMS, FBE_IMAGE_FLAGS_LIST,
    FBE_IMAGE_STRUCTS, FBE_IMAGE_ENUM, FBE_IMAGE_ENUM_VALUES, FBE_IMAGE_FLAGS,
    FBE_IMAGE_FLAGS_VALUES, FBE_IMAGE_STRUCT, FBE_IMAGE_FIELDS, FBE_IMAGE_REJECTS,
    FBE_IMAGE_TYPE, FBE_IMAGE_ROLE_COUNT
} fbe_image_role;

typedef struct fbe_image_object {
    fbe_image_role role;
    fbe_image_layout_id layout;
    const void *host;  /* the record, or an array's first element */
    size_t count;      /* an array's elements; 0: one record */
    size_t number;     /* the owner's number: package, enum, flags, struct (codec order), type */
    const char *label; /* the owner's name (package name or C name), for writers that name by it */
} fbe_image_object;

typedef struct fbe_image_plan {
    const fbe_schema *schema;
    fbe_image_object *objects; /* declaration order: schema order, every object once */
    size_t count, cap;
    fbe_ptrmap where;          /* host address of every record -> object << 32 | element */
    size_t struct_count, type_count;
    /* fields_of[k]: the number of the struct whose FIELDS object holds struct
     * k's fields (k itself unless it is an heir sharing its base's array, then
     * the array's longest user) */
    size_t *fields_of;
    char *err;
    size_t err_size;
    bool failed;
} fbe_image_plan;

/* Plans the image of every package of `schema`, imports first. Structs are
 * numbered in schema order (the codec's type table order). false: out of memory
 * or an inconsistent IR (message in err); fbe_image_plan_free either way. */
bool fbe_image_plan_build(fbe_image_plan *plan, const fbe_schema *schema, char *err, size_t size);
void fbe_image_plan_free(fbe_image_plan *plan);

/* The object and element mirroring `host`; false if it is not in the image. */
bool fbe_image_plan_find(const fbe_image_plan *plan, const void *host, size_t *object,
                         size_t *element);

/* The C name of object o ("ir_s3_f"), in a buffer of at least 48 bytes. */
const char *fbe_image_object_name(const fbe_image_object *o, char *buf, size_t size);

/* A member's value in the image. */
typedef struct fbe_image_value {
    fbe_image_kind kind;
    bool null;               /* REF, ARRAY, STR, STRN: NULL */
    uint64_t u;              /* BOOL, I32 (sign-extended bits), U32, U64, F64 (the bits) */
    const uint8_t *bytes;    /* BYTES16 */
    const char *str;         /* STR, STRN */
    size_t len;
    size_t object, element;  /* REF, ARRAY */
} fbe_image_value;

/* Member m of the record at `record` (a host object of m's layout). false (and
 * plan->failed) when it points outside the image. */
bool fbe_image_member_value(fbe_image_plan *plan, const fbe_image_member *m, const void *record,
                            fbe_image_value *out);

#endif
