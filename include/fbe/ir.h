/* The resolved, immutable intermediate representation of a set of FBE packages.
 *
 * This is the single source of truth every backend consumes: the interpreter, the
 * LLVM JIT/AOT, the static C backend and the header generator. Wire layouts
 * (standard and final model) and the C host layout of every type are computed in
 * ir/ when the schema is loaded and are never re-derived elsewhere.
 *
 * Everything is owned by the fbe_schema it came from and lives until
 * fbe_schema_free(). All pointers are const: backends only read. */
#ifndef FBE_IR_H
#define FBE_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fbe/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fbe_ir_type fbe_ir_type;
typedef struct fbe_ir_enum fbe_ir_enum;
typedef struct fbe_ir_flags fbe_ir_flags;
typedef struct fbe_ir_struct fbe_ir_struct;
typedef struct fbe_ir_field fbe_ir_field;
typedef struct fbe_ir_package fbe_ir_package;

/* The largest standard inline/body size, final size and C host size of any type
 * or struct (1 GiB). A schema with a type past it is rejected with a located
 * error, so every size and offset in the IR fits comfortably in 32 bits and a
 * sum of two never wraps. */
#define FBE_IR_MAX_SIZE (UINT32_C(1) << 30)

/* The deepest inheritance chain and by-value struct nesting a schema may have,
 * whatever the declaration order (a located error past it). */
#define FBE_IR_MAX_NESTING 256

/* One X-macro table: kind, schema spelling, standard inline size (0 = computed). */
#define FBE_IR_KINDS(X)                        \
    X(BOOL, "bool", 1)                         \
    X(BYTE, "byte", 1)                         \
    X(CHAR, "char", 1)                         \
    X(WCHAR, "wchar", 4)                       \
    X(INT8, "int8", 1)                         \
    X(UINT8, "uint8", 1)                       \
    X(INT16, "int16", 2)                       \
    X(UINT16, "uint16", 2)                     \
    X(INT32, "int32", 4)                       \
    X(UINT32, "uint32", 4)                     \
    X(INT64, "int64", 8)                       \
    X(UINT64, "uint64", 8)                     \
    X(FLOAT, "float", 4)                       \
    X(DOUBLE, "double", 8)                     \
    X(DECIMAL, "decimal", 16)                  \
    X(TIMESTAMP, "timestamp", 8)               \
    X(UUID, "uuid", 16)                        \
    X(STRING, "string", 4)                     \
    X(BYTES, "bytes", 4)                       \
    X(ENUM, "enum", 0)                         \
    X(FLAGS, "flags", 0)                       \
    X(STRUCT, "struct", 4)                     \
    X(OPTIONAL, "optional", 5)                 \
    X(ARRAY, "array", 0)                       \
    X(VECTOR, "vector", 4)                     \
    X(LIST, "list", 4)                         \
    X(SET, "set", 4)                           \
    X(MAP, "map", 4)                           \
    X(HASH, "hash", 4)

typedef enum fbe_ir_kind {
#define FBE_IR_KIND_ENUM_(k, s, n) FBE_IR_##k,
    FBE_IR_KINDS(FBE_IR_KIND_ENUM_)
#undef FBE_IR_KIND_ENUM_
    FBE_IR_KIND_COUNT
} fbe_ir_kind;

/* "bool", "vector", ... */
const char *fbe_ir_kind_name(fbe_ir_kind kind);

/* Kinds whose value is a plain integer (enums and flags by their base). */
bool fbe_ir_kind_is_integer(fbe_ir_kind kind);
bool fbe_ir_kind_is_signed(fbe_ir_kind kind);
/* Kinds whose value has one fixed size and the same bytes on the host and the
 * wire (bool normalised to 0/1): all but string, bytes, struct, optional, array
 * and the collections. Every backend copies them and never checks them. */
bool fbe_ir_kind_is_scalar(fbe_ir_kind kind);
/* The keyed collections (map, hash): their elements are {key; value;} entries. */
bool fbe_ir_kind_is_keyed(fbe_ir_kind kind);
/* The standard model's bytes per element of a collection's block (a keyed one's
 * key and value together). */
uint32_t fbe_ir_std_entry_size(const fbe_ir_type *t);

/* What every backend does with a value of a type: one classification for the
 * interpreter's operations, the JIT's lowering and `fbec c`'s generators.
 * The shapes from FBE_IR_SHAPE_OPTIONAL on hold element types. */
typedef enum fbe_ir_shape {
    FBE_IR_SHAPE_BOOL,       /* one byte, normalised to 0/1 */
    FBE_IR_SHAPE_COPY,       /* a scalar whose host bytes are its wire bytes */
    FBE_IR_SHAPE_STRING,     /* string, bytes: host {pointer, size_t} */
    FBE_IR_SHAPE_STRUCT,     /* by value */
    FBE_IR_SHAPE_OPTIONAL,   /* host {bool has_value; T value;} */
    FBE_IR_SHAPE_OPT_STRUCT, /* host pointer, NULL = absent */
    FBE_IR_SHAPE_ARRAY,      /* N inline elements */
    FBE_IR_SHAPE_SEQ,        /* vector, list, set: host {T *data; size_t size;} */
    FBE_IR_SHAPE_MAP         /* map, hash: host {entry *data; size_t size;} */
} fbe_ir_shape;

fbe_ir_shape fbe_ir_shape_of(const fbe_ir_type *t);

/* Whether a field's type has a shape the schema language can write: a base
 * type (scalar, string, bytes, enum, flags, struct, each with its declaration),
 * an optional of one, a set of one, or an array, vector, list, map or hash of a
 * base type or an optional one, with a base-type key. The compiler makes nothing else; the backends and
 * the serialize depth guard rely on it, and fbe_interp_create_ir refuses IR
 * made otherwise. */
bool fbe_ir_type_has_schema_shape(const fbe_ir_type *t);

/* "Plain" values: their host bytes are their wire bytes in both models and any
 * bytes are a valid value (scalars but bool, arrays of them). Every backend
 * copies a run of plain fields as one block; these two decide what is plain and
 * where a run ends, for all of them. */
bool fbe_ir_type_is_plain(const fbe_ir_type *t);
/* The end of the run of plain fields [i, end) of a struct's `fields` starting at
 * field i, with end <= hi: each field next to the one before it on the wire and
 * in the host. i when field i is not plain. */
size_t fbe_ir_plain_run(const fbe_ir_field *fields, size_t i, size_t hi);
/* The bytes of the run [i, j) fbe_ir_plain_run found: the same on the wire of
 * both models and in the host (0 when j == i). */
uint32_t fbe_ir_plain_run_bytes(const fbe_ir_field *fields, size_t i, size_t j);

/* A type as used by a field. Types form a tree: an optional, array or collection
 * points to its element type (and a map/hash to its key type). Identical types may
 * or may not share a node; compare structurally, never by pointer. */
struct fbe_ir_type {
    fbe_ir_kind kind;
    const fbe_ir_type *elem;        /* OPTIONAL: inner; ARRAY..HASH: element / value */
    const fbe_ir_type *key;         /* MAP, HASH: key type */
    uint32_t array_len;             /* ARRAY: N */
    const fbe_ir_enum *enum_type;   /* ENUM */
    const fbe_ir_flags *flags_type; /* FLAGS */
    const fbe_ir_struct *struct_type; /* STRUCT */

    /* Standard model: bytes occupied inside the parent (offset, 5-byte optional
     * header, N inline elements, scalar value). */
    uint32_t std_inline_size;

    /* Final model: if final_fixed, every value takes exactly final_size bytes. */
    bool final_fixed;
    uint32_t final_size;

    /* C host layout. */
    uint32_t host_size;
    uint32_t host_align;
    /* OPTIONAL of a non-struct: {bool has_value; T value;} with value here.
     * OPTIONAL of a struct is a pointer (NULL = absent) and this is 0. */
    uint32_t host_value_offset;
    /* MAP, HASH: entries are {K key; V value;}, key at 0. */
    uint32_t host_entry_value_offset;
    uint32_t host_entry_size;
    /* VECTOR, LIST, SET: the element stride is elem->host_size. */
};

/* The longest C name the IR derives from schema names (type names, symbol
 * prefixes) and therefore the longest stem of an exported symbol. */
#define FBE_IR_MAX_SYMBOL 120

/* `name` as a C identifier part: every character other than [A-Za-z0-9]
 * becomes '_'; a result longer than FBE_IR_MAX_SYMBOL keeps its first 103
 * characters and ends in '_' and 16 hex digits of the 64-bit FNV-1a hash of the
 * whole name, so symbols stay unique and short whatever a schema's names are. */
void fbe_ir_symbol_name(const char *name, char out[FBE_IR_MAX_SYMBOL + 1]);

/* "fbe_" and the package name as fbe_ir_symbol_name spells it: the prefix of
 * the symbols an AOT object or static C file exports for the package
 * (<prefix>_aot_image, <prefix>_codec_create). */
#define FBE_IR_MAX_PREFIX (FBE_IR_MAX_SYMBOL + 4)
void fbe_ir_package_prefix(const fbe_ir_package *pkg, char out[FBE_IR_MAX_PREFIX + 1]);

/* Schema spelling of a type ("int32?", "proto.Order[]", "string<int32>"), cut to
 * fit `size` bytes (always NUL-terminated when size > 0). Returns the whole
 * spelling's length, as snprintf does: >= size means it was cut. */
size_t fbe_ir_type_spelling(const fbe_ir_type *type, char *buf, size_t size);

/* The kind a value of this type is stored, ordered and hashed as: an enum's or
 * flags' base; else the type's own kind. */
fbe_ir_kind fbe_ir_base_kind(const fbe_ir_type *type);

/* The same for an FBE_IR_VALUE_INT of this type, whose type may be an optional
 * (then its element's). */
fbe_ir_kind fbe_ir_int_kind(const fbe_ir_type *type);

/* A typed constant: schema defaults and enum/flags values. */
typedef enum fbe_ir_value_kind {
    FBE_IR_VALUE_NONE,     /* no default: zero / empty / absent / struct init */
    FBE_IR_VALUE_NULL,     /* optional explicitly absent */
    FBE_IR_VALUE_BOOL,
    FBE_IR_VALUE_INT,      /* integers, char, wchar, enums, flags, timestamp: u64 bits */
    FBE_IR_VALUE_FLOAT,    /* float (as double) and double */
    FBE_IR_VALUE_DECIMAL,  /* already converted with the reference algorithm */
    FBE_IR_VALUE_STRING,
    FBE_IR_VALUE_UUID,     /* a fixed uuid (uuid0 or a literal) */
    FBE_IR_VALUE_UUID1,    /* fresh time-based uuid each time it is applied */
    FBE_IR_VALUE_UUID4,    /* fresh random uuid each time it is applied */
    FBE_IR_VALUE_UTC       /* current time each time it is applied */
} fbe_ir_value_kind;

typedef struct fbe_ir_value {
    fbe_ir_value_kind kind;
    bool b;
    uint64_t u;        /* INT: the value cast to the target type, as u64 bits
                          (sign-extended for signed types) */
    double d;
    fbe_decimal dec;
    fbe_string str;    /* STRING: decoded bytes (escapes applied), NUL-terminated */
    fbe_uuid uuid;
} fbe_ir_value;

typedef struct fbe_ir_source_loc {
    const char *file;
    uint32_t line;
    uint32_t col;
} fbe_ir_source_loc;

typedef struct fbe_ir_enum_value {
    const char *name;
    uint64_t value; /* cast to the base type, sign-extended if signed */
    bool deprecated;
    bool hidden;
} fbe_ir_enum_value;

struct fbe_ir_enum {
    const char *name;      /* "OrderSide" */
    const char *full_name; /* "proto.OrderSide" */
    const char *c_name;    /* "proto_OrderSide" */
    const fbe_ir_package *package;
    fbe_ir_kind base;      /* integer kind (BYTE, CHAR, WCHAR, INT8 .. UINT64) */
    const fbe_ir_enum_value *values;
    size_t value_count;
    bool deprecated;
    bool hidden;
    fbe_ir_source_loc loc;
};

struct fbe_ir_flags {
    const char *name;
    const char *full_name;
    const char *c_name;
    const fbe_ir_package *package;
    fbe_ir_kind base;
    const fbe_ir_enum_value *values;
    size_t value_count;
    bool deprecated;
    bool hidden;
    fbe_ir_source_loc loc;
};

struct fbe_ir_field {
    const char *name;          /* as in the schema */
    const char *c_name;        /* C identifier (C keywords get a trailing '_') */
    const fbe_ir_type *type;
    const fbe_ir_struct *owner; /* the struct (maybe a base) that declares it */
    uint32_t index;            /* position in the flattened field list */

    uint32_t std_offset;       /* from the struct body start (header included: >= 8) */
    uint32_t host_offset;      /* from the start of the outermost host struct */

    bool is_key;               /* [key] or [id] */
    bool is_id;                /* declared as `T [id]` */
    bool hidden;
    bool deprecated;
    bool is_reset_flag;        /* the bool added after a `T~ name` field */
    fbe_ir_value default_value;
    fbe_ir_source_loc loc;
};

typedef struct fbe_ir_reject {
    const fbe_ir_struct *type;
    bool global; /* written `*X`: offered to imported packages' clients first */
} fbe_ir_reject;

struct fbe_ir_struct {
    const char *name;
    const char *full_name;
    const char *c_name;
    const fbe_ir_package *package;
    bool is_message;
    bool deprecated;
    bool hidden;

    /* Type number written in the header (schema-language.md 4.5), after the package
     * offset and (base) resolution. declared_number/number_fixed keep the source. */
    uint32_t type_number;
    uint32_t declared_number;
    bool number_fixed;

    const fbe_ir_struct *base;
    /* Levels of inheritance above this struct (0: no base); at most
     * FBE_IR_MAX_NESTING. */
    uint32_t base_depth;
    /* Struct bodies one value of this struct occupies by value: 1, plus the
     * deepest struct it embeds as a plain field or a struct array (inherited
     * fields included); at most FBE_IR_MAX_NESTING. Optional structs and
     * collections are not counted: their depth depends on the value. */
    uint32_t value_height;
    /* Flattened wire order: the base chain's fields first, then this level's. */
    const fbe_ir_field *fields;
    size_t field_count;
    size_t own_field_start; /* fields[own_field_start..] are declared here */

    /* Standard model body: 8 header bytes + every field's inline part. */
    uint32_t std_body_size;
    /* Final model: fixed only if every field is fixed. */
    bool final_fixed;
    uint32_t final_size;

    /* C host layout. A derived struct embeds its base as the first member `base`. */
    uint32_t host_size;
    uint32_t host_align;

    /* Protocol annotations (messages only). */
    bool is_request;
    const fbe_ir_struct *response;
    const fbe_ir_reject *rejects;
    size_t reject_count;

    fbe_ir_source_loc loc;
};

struct fbe_ir_package {
    const char *name;
    const char *domain;         /* NULL if absent */
    uint32_t offset;
    uint32_t version_major, version_minor;
    const char *path;           /* file it was loaded from */
    const fbe_ir_package *const *imports; /* direct imports, in order */
    size_t import_count;
    const fbe_ir_enum *const *enums;
    size_t enum_count;
    const fbe_ir_flags *const *flags;
    size_t flags_count;
    const fbe_ir_struct *const *structs; /* structs and messages, source order */
    size_t struct_count;
};

#ifdef __cplusplus
}
#endif

#endif
