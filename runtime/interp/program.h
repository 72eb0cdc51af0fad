/* The interpreter's programs: the IR lowered once per codec into compact,
 * pointer-linked tables that the codec loops walk without looking anything up.
 * Every number here is copied from ir/ (never recomputed). */
#ifndef FBE_INTERP_PROGRAM_H
#define FBE_INTERP_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fbe/codec.h"

/* What to do with one value. Scalars are grouped by wire width: on the
 * (little-endian) hosts we support, their host and wire bytes are identical. */
typedef enum interp_op {
    OP_BOOL,       /* 1 byte; any non-zero byte reads as true */
    OP_COPY1,      /* byte, char, int8, uint8, 1-byte enums/flags */
    OP_COPY2,
    OP_COPY4,      /* wchar, int32, uint32, float, 4-byte enums/flags */
    OP_COPY8,      /* int64, uint64, double, timestamp, 8-byte enums/flags */
    OP_COPY16,     /* decimal, uuid */
    OP_STRING,     /* string and bytes: host {pointer, size_t} */
    OP_STRUCT,     /* nested struct, by value in the host */
    OP_OPTIONAL,   /* host {bool has_value; T value;} */
    OP_OPT_STRUCT, /* host pointer, NULL = absent */
    OP_ARRAY,      /* N inline elements */
    OP_SEQ,        /* vector, list, set: host {T *data; size_t size;} */
    OP_MAP         /* map, hash: host {entry *data; size_t size;} */
} interp_op;

typedef struct interp_prog interp_prog;

/* A type: what a field, an optional's inner value or a collection element is. */
typedef struct interp_node {
    uint8_t op;                 /* interp_op */
    bool final_fixed;
    uint32_t std_size;          /* standard inline size */
    uint32_t final_size;        /* final size when final_fixed */
    uint32_t final_min;         /* smallest final encoding (for count checks) */
    uint32_t host_size;
    uint32_t host_value_offset; /* OP_OPTIONAL */
    uint32_t entry_value_offset;/* OP_MAP */
    uint32_t entry_size;        /* OP_MAP: host entry size */
    uint32_t count;             /* OP_ARRAY: N */
    const struct interp_node *elem; /* OPTIONAL inner, ARRAY/SEQ element, MAP value */
    const struct interp_node *key;  /* OP_MAP key */
    const interp_prog *prog;        /* OP_STRUCT, OP_OPT_STRUCT */
    const fbe_ir_type *ir;
} interp_node;

typedef struct interp_field {
    interp_node node;
    uint32_t std_offset;  /* from the body start (header included) */
    uint32_t host_offset;
    const fbe_ir_field *ir;
} interp_field;

struct interp_prog {
    const fbe_ir_struct *ir;
    uint32_t type_number;
    uint32_t std_body_size;
    bool final_fixed;
    uint32_t final_size;
    uint32_t final_min;   /* smallest final encoding of the fields */
    uint32_t host_size;
    const interp_field *fields;
    size_t field_count;
};

struct fbe_codec {
    fbe_backend backend;
    unsigned max_depth;
    fbe_arena arena;       /* programs, nodes, the type table */
    fbe_type *types;
    size_t type_count;
    /* Native backends build on an interpreter codec and replace entry points;
     * they release their own state here (JIT memory, loaded objects). */
    void (*destroy_backend)(struct fbe_codec *codec);
    void *backend_data;
};

/* The program behind a codec type. */
static inline const interp_prog *interp_prog_of(const fbe_type *type)
{
    return (const interp_prog *)type->impl;
}

/* Little-endian access to unaligned wire bytes. */
static inline uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline void wr32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

/* Entry points (std_write.c, std_read.c, final.c). */
size_t interp_std_size(const fbe_type *type, const void *value);
fbe_status interp_std_serialize(const fbe_type *type, const void *value, fbe_buffer *out);
fbe_status interp_std_verify(const fbe_type *type, const uint8_t *data, size_t size,
                             fbe_verify_info *info);
fbe_status interp_std_deserialize(const fbe_type *type, const uint8_t *data, size_t size,
                                  void *value, const fbe_decode_options *options,
                                  size_t *consumed);
size_t interp_final_size(const fbe_type *type, const void *value);
fbe_status interp_final_serialize(const fbe_type *type, const void *value, fbe_buffer *out);
fbe_status interp_final_verify(const fbe_type *type, const uint8_t *data, size_t size,
                               fbe_verify_info *info);
fbe_status interp_final_deserialize(const fbe_type *type, const uint8_t *data, size_t size,
                                    void *value, const fbe_decode_options *options,
                                    size_t *consumed);

#endif
