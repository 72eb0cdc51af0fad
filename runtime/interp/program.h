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
#include "fbe/internal/native.h"
#include "../codec_impl.h"
#include "../port.h"

/* The size rules' constants (FBE_SIZE_CAP, FBE_FINAL_SAT, FBE_MIN_CLAMP),
 * defined once for every backend: the interpreter, the JIT and the code fbec c
 * writes, which includes the same installed header. */
#include "fbe/internal/sizes.h"
#include "fbe/internal/static_c.h" /* the rules the backends share */
#include "fail_rules.h"            /* and the interpreter's alone */

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
typedef struct interp_field interp_field;

/* A type: what a field, an optional's inner value or a collection element is. */
typedef struct interp_node {
    uint8_t op;                 /* interp_op */
    bool final_fixed;
    /* The host bytes are the wire bytes in both models and any bytes are a valid
     * value: a COPY scalar or an array of them, host_size == std_size ==
     * final_size. */
    bool plain;
    /* Standard model: the bytes outside the inline part do not depend on the
     * value (scalars, arrays of them, structs made only of such parts); they are
     * std_extra (struct bodies included). */
    bool std_const;
    uint32_t std_size;          /* standard inline size */
    uint32_t final_size;        /* final size when final_fixed */
    /* final_fixed only: how many struct levels the value spans (0: none, so only
     * its bounds can fail; see final.c v_fixed_depth) */
    uint32_t final_depth;
    uint64_t min_size;          /* smallest final encoding of any node, clamped at 2^32 */
    uint64_t std_extra;         /* std_const only */
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

struct interp_field {
    interp_node node;
    uint32_t std_offset;  /* from the body start (header included) */
    uint32_t host_offset;
    const fbe_ir_field *ir;
};

/* ---- steps ---------------------------------------------------------------------
 * The field list says what a struct is; step lists say what a loop does with it.
 * They are derived from the fields (their IR numbers) when the codec is created
 * and never change a result, only how much work it takes:
 *  - adjacent plain fields (same bytes in the host and on the wire, adjacent in
 *    both) are one run, copied at once;
 *  - a list may leave out what cannot matter to its loop (verify: scalars; size:
 *    whatever has a constant size, added up beforehand) and flatten structs held
 *    by value into their parent (the size lists);
 *  - every list ends with SO_END, so the loops need no counter.
 *
 * The opcodes, in this order (X(P, op) for each):
 *  - a plain run of `len` bytes, by size class: exact widths first, then two
 *    overlapping moves of the next smaller power of two (3: 2 + 2, 5..7: 4 + 4,
 *    9..15: 8 + 8, 17..32: 16 + 16), then memcpy;
 *  - SO_BOOL: one bool, normalised to 0/1;
 *  - SO_FIXED (final lists): a final_fixed struct or array that is not plain;
 *  - one field that is not a scalar, by the kind of its node;
 *  - SO_LEVEL: where the fields of a base end in a list its heirs share (see
 *    below): for that base (step.prog) it is its SO_END, for the others nothing;
 *  - SO_END (in the final size and check lists its `pre` is the fixed bytes
 *    after the last other step).
 *
 * Shared lists. A struct's fields begin with its base's, at the same offsets.
 * Where the IR shares one field array along a chain of heirs (the first struct
 * deriving from a base appends to the base's array: fbe_ir_struct.fields), the
 * programs do the same: one interp_field array, and one array per step list,
 * each struct's list being a prefix of its heir's. The base's SO_END becomes an
 * SO_LEVEL step when an heir appends: a loop walking the base stops there (its
 * `pre`, `need` and place are the SO_END's), a loop walking an heir goes on (a
 * plain run never spans it, and the heir's next step's `pre` counts the fixed
 * bytes since the last real step, SO_LEVEL's included). So a chain of N levels
 * costs its fields once, not N times (a chain of 64 structs of 1,000 fields
 * each took 1.3 GB, one list entry per inherited field per level). A loop only
 * ever compares SO_LEVEL's prog with the struct it walks. */
#define INTERP_STEP_OPS(X, P)                                                          \
    X(P, SO_COPY1) X(P, SO_COPY2) X(P, SO_COPY4) X(P, SO_COPY8) X(P, SO_COPY16)         \
    X(P, SO_COPY3) X(P, SO_COPY5_7) X(P, SO_COPY9_15) X(P, SO_COPY17_32) X(P, SO_COPYN) \
    X(P, SO_BOOL) X(P, SO_FIXED) X(P, SO_STRING) X(P, SO_STRUCT) X(P, SO_OPT_STRUCT)    \
    X(P, SO_SEQ) X(P, SO_OPTIONAL) X(P, SO_ARRAY) X(P, SO_MAP) X(P, SO_LEVEL) X(P, SO_END)

typedef enum interp_step_op {
#define INTERP_STEP_ENUM_(P, op) op,
    INTERP_STEP_OPS(INTERP_STEP_ENUM_, _)
#undef INTERP_STEP_ENUM_
    SO_COUNT
} interp_step_op;

/* Step dispatch. A loop over a step list is written
 *
 *     STEP_BEGIN(P, s)
 *     STEP_CASE(P, SO_COPY1): ...; STEP_NEXT(P, s);
 *     ...                     (every opcode once; unused ones grouped)
 *     STEP_CASE(P, SO_END): return ...;
 *     STEP_FINISH
 *
 * With GNU C each step ends with a jump straight to the code of the next one,
 * through a table of label addresses (an interpreter's cheapest dispatch: one
 * indirect jump per step, predicted per step kind); P names the table and the
 * labels and must be unique in the function. Elsewhere (or with
 * -DFBE_INTERP_NO_THREADING) it is a switch in a loop. So that both work:
 * STEP_NEXT is the only way on to the next step and STEP_RESUME(P, s) starts
 * step s afresh (after s was changed); neither may be used inside an inner loop
 * (a do-while included), and no step ends with `break`. */
#if defined(__GNUC__) && !defined(FBE_INTERP_NO_THREADING)
#define STEP_LABEL_ADDR_(P, op) &&P##_##op,
#define STEP_BEGIN(P, s)                                                                   \
    static const void *const P##_table_[SO_COUNT] = {INTERP_STEP_OPS(STEP_LABEL_ADDR_, P)}; \
    goto *P##_table_[(s)->op];
#define STEP_CASE(P, op) P##_##op
#define STEP_NEXT(P, s) goto *P##_table_[(++(s))->op]
#define STEP_RESUME(P, s) goto *P##_table_[(s)->op]
#define STEP_FINISH
#else
#define STEP_BEGIN(P, s) \
    for (;; ++(s)) {     \
        switch ((s)->op) {
#define STEP_CASE(P, op) case op
#define STEP_NEXT(P, s) continue
#define STEP_RESUME(P, s) \
    --(s);                \
    continue
#define STEP_FINISH \
    default:        \
        break;      \
        }           \
        }
#endif

/* Put right before STEP_CASE(P, SO_END): SO_LEVEL ends the walk of `g` (the
 * struct whose list the loop walks) like SO_END, and is skipped otherwise. */
#define STEP_LEVEL(P, s, g)           \
    STEP_CASE(P, SO_LEVEL):           \
        if ((s)->prog != (g))         \
            STEP_NEXT(P, s);

/* Every plain copy opcode, as one group of labels. */
#define STEP_COPIES(P)                                                                   \
    STEP_CASE(P, SO_COPY1)                                                               \
        : STEP_CASE(P, SO_COPY2) : STEP_CASE(P, SO_COPY4) : STEP_CASE(P, SO_COPY8)      \
        : STEP_CASE(P, SO_COPY16) : STEP_CASE(P, SO_COPY3) : STEP_CASE(P, SO_COPY5_7)   \
        : STEP_CASE(P, SO_COPY9_15) : STEP_CASE(P, SO_COPY17_32) : STEP_CASE(P, SO_COPYN)

typedef struct interp_step {
    uint8_t op;                /* interp_step_op */
    uint32_t len;              /* copies: the run's bytes; otherwise final_size */
    uint32_t std_offset;       /* standard: from the body start */
    uint32_t host_offset;      /* from the start of the host struct of the list */
    /* final size and check lists: the fixed bytes of the fields left out since
     * the previous step (their sizes only add up) */
    uint64_t pre;
    /* final check lists: the bytes that must be left when the step starts for
     * its first read (`pre`, plus the 4 of a string's length; SO_END: `pre`), so
     * a leaf's fast check is one comparison per string (final.c v_leaf) */
    uint64_t need;
    const interp_node *node;   /* the (first) field's node */
    const interp_prog *prog;   /* node->prog; SO_SEQ: the element's, if a struct;
                                  SO_LEVEL: the base whose fields end here */
    const interp_field *field; /* the (first) field: error locations, slow paths */
} interp_step;

typedef struct interp_steps {
    const interp_step *at;
    size_t count; /* SO_END (or the SO_LEVEL that ends it) not included */
} interp_steps;

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

    /* ---- derived by the lowering for the codec loops (program.c) ---- */

    /* Standard model. */
    uint64_t std_header;          /* a body's first 8 bytes: std_body_size, type_number */
    interp_steps std_steps;       /* every field: write, read of a whole body */
    interp_steps std_check_steps; /* what verify checks: the fields but scalars */
    bool std_check_leaf;          /* ... all strings (or none) */
    /* The size of a body and its extras is std_const (std_body_size, every extra
     * that does not depend on the value, 4 per string) + the length of the string
     * at each host offset of std_size_strings + what std_size_steps add (the
     * optionals, collections and arrays that vary). Small structs held by value
     * are flattened into the lists (their offsets shifted), larger ones are one
     * SO_STRUCT step (program.c FLATTEN_MAX). Exact below 2^32; see
     * std_write.c for the rest. */
    uint64_t std_const;
    const uint32_t *std_size_strings;
    size_t std_size_string_count;
    interp_steps std_size_steps;

    /* Final model. */
    uint32_t fixed_depth;           /* final_fixed: the struct levels it spans */
    interp_steps final_steps;       /* every field: write, read */
    interp_steps final_check_steps; /* what verify checks (with `pre`) */
    bool final_check_leaf;          /* ... all strings (or nothing) */
    /* The size when not final_fixed, as for std_const (the fixed fields and 4
     * per string in final_const); final_size_exact is the field by field walk
     * that defines it (with `pre`), which final.c falls back to near SAT. */
    uint64_t final_const;
    const uint32_t *final_size_strings;
    size_t final_size_string_count;
    interp_steps final_size_steps;
    interp_steps final_size_exact;
};

/* struct fbe_codec is shared with the other backends: runtime/codec_impl.h. */

/* The program behind a codec type. */
static inline const interp_prog *interp_prog_of(const fbe_type *type)
{
    return (const interp_prog *)type->impl;
}

/* The program of struct st in codec (NULL if st is not one of its types). */
static inline const interp_prog *interp_prog_for(const fbe_codec *codec, const fbe_ir_struct *st)
{
    size_t i = fbe_codec_index_of(codec, st);
    return i < codec->type_count ? interp_prog_of(&codec->types[i]) : NULL;
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

static inline void wr64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

/* The scalar ops as case labels: values every loop copies and never checks. */
#define CASE_SCALAR_OPS                                                              \
    case OP_BOOL:                                                                    \
    case OP_COPY1:                                                                   \
    case OP_COPY2:                                                                   \
    case OP_COPY4:                                                                   \
    case OP_COPY8:                                                                   \
    case OP_COPY16

/* Moves one scalar of op `op` between host and wire, either way: the bytes are
 * the same but bool's, normalised to 0/1. Returns its width. */
INLINE size_t scalar_move(uint8_t op, uint8_t *restrict dst, const uint8_t *restrict src)
{
    switch ((interp_op)op) {
    case OP_BOOL:
        *dst = *src != 0;
        return 1;
    case OP_COPY1:
        *dst = *src;
        return 1;
    case OP_COPY2:
        memcpy(dst, src, 2);
        return 2;
    case OP_COPY4:
        memcpy(dst, src, 4);
        return 4;
    case OP_COPY8:
        memcpy(dst, src, 8);
        return 8;
    default: /* OP_COPY16 */
        memcpy(dst, src, 16);
        return 16;
    }
}

/* The steps of a loop that copy a plain run: `len` bytes from src to dst, with
 * BEFORE(n) before (a bounds check, or STEP_NOTHING) and AFTER(n) after (at
 * least STEP_NEXT), two function-like macros given the run's length: a constant
 * for the exact widths, `len` for the others. */
#define STEP_NOTHING(n) ((void)0)
#define STEP_COPY_CASES(P, dst, src, len, BEFORE, AFTER) \
    STEP_CASE(P, SO_COPY1) : BEFORE(1);                  \
    *(dst) = *(src);                                     \
    AFTER(1);                                            \
    STEP_CASE(P, SO_COPY2) : BEFORE(2);                  \
    memcpy(dst, src, 2);                                 \
    AFTER(2);                                            \
    STEP_CASE(P, SO_COPY4) : BEFORE(4);                  \
    memcpy(dst, src, 4);                                 \
    AFTER(4);                                            \
    STEP_CASE(P, SO_COPY8) : BEFORE(8);                  \
    memcpy(dst, src, 8);                                 \
    AFTER(8);                                            \
    STEP_CASE(P, SO_COPY16) : BEFORE(16);                \
    memcpy(dst, src, 16);                                \
    AFTER(16);                                           \
    STEP_CASE(P, SO_COPY3) : BEFORE(3);                  \
    sc_copy_ov2(dst, src, 3);                            \
    AFTER(3);                                            \
    STEP_CASE(P, SO_COPY5_7) : BEFORE(len);              \
    sc_copy_ov4(dst, src, len);                          \
    AFTER(len);                                          \
    STEP_CASE(P, SO_COPY9_15) : BEFORE(len);             \
    sc_copy_ov8(dst, src, len);                          \
    AFTER(len);                                          \
    STEP_CASE(P, SO_COPY17_32) : BEFORE(len);            \
    sc_copy_ov16(dst, src, len);                         \
    AFTER(len);                                          \
    STEP_CASE(P, SO_COPYN) : BEFORE(len);                \
    memcpy(dst, src, len);                               \
    AFTER(len)

/* The smallest final encoding of a value of type t, clamped at FBE_MIN_CLAMP:
 * what a count check multiplies a count by. From the programs of `codec` (a
 * struct's final_min), for the JIT and fbec c; the interpreter's nodes hold the
 * same number (interp_node.min_size). */
uint64_t fbe_interp_final_min(const fbe_codec *codec, const fbe_ir_type *t);
/* What the final count check of collection t multiplies its count by: an
 * element's (a map entry's key and value) smallest encoding, clamped at
 * FBE_MIN_CLAMP; 0 for elements of no bytes, which are bounded by the frame's
 * size instead (static_c.h sc_count_fits). */
uint64_t fbe_interp_count_min(const fbe_codec *codec, const fbe_ir_type *t);

/* Struct levels a final_fixed value of type t spans, its own included (0 for
 * scalars and arrays of them): what a depth check compares with the levels
 * left. The programs' number (interp_node.final_depth, interp_prog.fixed_depth)
 * for the JIT and fbec c. */
uint32_t fbe_interp_fixed_height(const fbe_codec *codec, const fbe_ir_type *t);
/* Standard model: a value of type t is its inline bytes alone (scalars and arrays
 * of them): no extra bytes for size and serialize, nothing for verify to check. */
bool fbe_interp_std_inline_only(const fbe_ir_type *t);
/* The final bytes of st's fields after its last field that is not final_fixed:
 * the JIT and fbec c compute a struct's exact final sum and saturate it when
 * the sum up to that field passed FBE_FINAL_SAT (final.c's walk stops there),
 * i.e. when the whole sum passes FBE_FINAL_SAT plus these bytes. */
uint64_t fbe_interp_final_trailing(const fbe_ir_struct *st);
/* Final model: fixed and holding no struct level, so only its bounds can fail:
 * fields of this kind in a row form a run, read at once (fail_rules.h sc_frun_*). */
bool fbe_interp_final_plain(const fbe_codec *codec, const fbe_ir_type *t);

/* Entry points (std_write.c, std_read.c, final.c; verify and deserialize in
 * fbe/internal/native.h, which native code calls). */
size_t fbe_interp_std_size(const fbe_type *type, const void *value);
fbe_status fbe_interp_std_serialize(const fbe_type *type, const void *value, fbe_buffer *out);
size_t fbe_interp_final_size(const fbe_type *type, const void *value);
fbe_status fbe_interp_final_serialize(const fbe_type *type, const void *value, fbe_buffer *out);

#endif
