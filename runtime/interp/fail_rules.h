/* The interpreter's failure rules over static_c.h's reader state: which struct
 * and field claim an error, which field of a final-model run of plain fields
 * is short, where a fixed value's struct levels pass the depth limit, and what
 * a failed read leaves in the value. Native code (the JIT's, AOT objects) and
 * `fbec c`'s generated code have none of these: they hand every failing frame
 * to the interpreter (fbe/internal/native.h). */
#ifndef FBE_INTERP_FAIL_RULES_H
#define FBE_INTERP_FAIL_RULES_H

#include "fbe/internal/static_c.h"

/* Zeroes fields [from, n) of the host struct at h (`fields` in the IR: their
 * host offsets and sizes): what the interpreter does to the fields a failed
 * read did not reach (a failing field and every later one are zero). */
static SC_COLD void sc_zero_fields(uint8_t *h, const fbe_ir_field *fields, size_t from, size_t n)
{
    for (size_t i = from; i < n; i++)
        memset(h + fields[i].host_offset, 0, fields[i].type->host_size);
}

/* The innermost struct and field on the error path claim the error. */
static SC_COLD void sc_locate(sc_rd *r, const fbe_ir_struct *type, const fbe_ir_field *field)
{
    if (!r->located) {
        r->located = true;
        r->err_type = type;
        r->err_field = field;
    }
}

/* The innermost struct whose field failed (noted while unwinding). */
static SC_COLD void sc_fnote(sc_frd *r, const fbe_ir_struct *type, const fbe_ir_field *field)
{
    if (!r->type) {
        r->type = type;
        r->field = field;
    }
}

/* A fixed struct at p (bounds checked) at level `depth`, known to go deeper
 * than the limit somewhere: walks its struct levels in field order (an
 * array's first element stands for all of them: they have the same shape) and
 * fails TOO_DEEP at the first level past the limit, noting the innermost
 * (struct, field) that holds it. The depth rule of the interpreter and `fbec
 * c`. Recursion is bounded by the schema's by-value nesting
 * (FBE_IR_MAX_NESTING) and stops at the limit. */
static SC_COLD bool sc_fv_fixed_depth(sc_frd *r, const fbe_ir_struct *st, const uint8_t *p,
                                      unsigned depth);

/* The same for a fixed value t at p inside a struct at level `depth`: true
 * unless it holds a struct level past the limit (arrays: the first element
 * stands for all). Inline, not cold: an out-of-line copy changed gcc's code for
 * the interpreter's hot verify loop (README final verify 305 -> 309). */
static inline SC_UNUSED bool sc_fv_fixed_value_depth(sc_frd *r, const fbe_ir_type *t,
                                                     const uint8_t *p, unsigned depth)
{
    while (t->kind == FBE_IR_ARRAY && t->array_len)
        t = t->elem;
    return t->kind != FBE_IR_STRUCT || sc_fv_fixed_depth(r, t->struct_type, p, depth + 1);
}

static SC_COLD bool sc_fv_fixed_depth(sc_frd *r, const fbe_ir_struct *st, const uint8_t *p,
                                      unsigned depth)
{
    if (depth > r->max_depth) {
        sc_ffail(r, FBE_TOO_DEEP, p);
        return false;
    }
    const uint8_t *at = p;
    for (size_t i = 0; i < st->field_count; i++) {
        if (!sc_fv_fixed_value_depth(r, st->fields[i].type, at, depth)) {
            sc_fnote(r, st, &st->fields[i]);
            return false;
        }
        at += st->fields[i].type->final_size;
    }
    return true;
}

/* A run: n fields in a row of a struct (final model) that are fixed and hold
 * no struct level, so only their bounds can fail (fbe_interp_final_plain),
 * read at once when they fit. When they do not, or the bytes the code after
 * them checked with them do not (the next field's length, count or flag),
 * these say what a field-by-field walk finds; `run` points at the run's first
 * field in the IR, which gives the sizes and host layout. The interpreter's
 * (runtime/interp/final.c v_seg_fail, d_short). */

/* How many fields of the run fit in room bytes (n when they all do); *at gets
 * the offset of the first that does not. */
static SC_COLD size_t sc_frun_short(const fbe_ir_field *run, size_t n, uint64_t room, uint64_t *at)
{
    uint64_t off = 0;
    size_t k = 0;
    for (; k < n && run[k].type->final_size <= room - off; k++)
        off += run[k].type->final_size;
    *at = off;
    return k;
}

/* The fields of the run at p that fit in room bytes, read into the host struct
 * at dst (bools normalised to 0/1, alone or in arrays); returns how many and
 * sets *at as sc_frun_short does. */
static SC_COLD size_t sc_frun_read(uint8_t *dst, const uint8_t *p, const fbe_ir_field *run,
                                   size_t n, uint64_t room, uint64_t *at)
{
    size_t k = sc_frun_short(run, n, room, at);
    for (size_t i = 0; i < k; i++) {
        const fbe_ir_type *t = run[i].type;
        const fbe_ir_type *e = t->kind == FBE_IR_ARRAY ? t->elem : t;
        if (e->kind == FBE_IR_BOOL)
            sc_bools(dst + run[i].host_offset, p, t->final_size);
        else
            memcpy(dst + run[i].host_offset, p, t->final_size);
        p += t->final_size;
    }
    return k;
}

/* verify: the run at p does not fit; fails TRUNCATED at the first field that
 * does not, noted against (type, that field). */
static SC_COLD const uint8_t *sc_fv_run_fail(sc_frd *r, const uint8_t *p, const fbe_ir_struct *type,
                                             const fbe_ir_field *run, size_t n)
{
    uint64_t at;
    size_t k = sc_frun_short(run, n, sc_room(r, p), &at);
    sc_ffail(r, FBE_TRUNCATED, p + at);
    if (k < n)
        sc_fnote(r, type, &run[k]);
    return NULL;
}

/* deserialize: the run at p does not fit; reads the fields that do, fails
 * TRUNCATED at the first that does not and returns how many did. */
static SC_COLD size_t sc_fd_run_short(sc_frd *r, const uint8_t *p, uint8_t *dst,
                                      const fbe_ir_field *run, size_t n)
{
    uint64_t at;
    size_t k = sc_frun_read(dst, p, run, n, sc_room(r, p), &at);
    sc_ffail(r, FBE_TRUNCATED, p + at);
    return k;
}

#endif
