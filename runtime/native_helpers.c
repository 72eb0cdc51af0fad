/* Helpers called by natively compiled code (see native_helpers.h). */
#include "native_helpers.h"

#include "fbe/internal/static_c.h"

void fbe_jit_verify_fail(fbe_verify_info *info, int status, uint64_t offset,
                         const fbe_ir_struct *type, const fbe_ir_field *field)
{
    if (!info)
        return;
    info->status = (fbe_status)status;
    info->offset = (size_t)offset;
    info->type = type;
    /* A base's field code is shared by its derived structs (jit/emit*.c), which
     * pass themselves as `type`: the field reported is the derived struct's own
     * record at the same position (a copy when the IR copied the base's fields). */
    if (type && field && field->index < type->field_count)
        field = &type->fields[field->index];
    info->field = field;
}

fbe_native_failure fbe_native_std_ref(const uint8_t *data, uint64_t size, uint64_t pos,
                                      uint64_t base, uint64_t what)
{
    /* depth 1 against max_depth 0 or 1: TOO_DEEP exactly when no level is left */
    sc_rd r = {.data = data, .size = size, .budget = 0, .max_depth = !(what >> 32 & 1)};
    uint32_t arg = (uint32_t)what, n;
    uint64_t at;
    fbe_status st;
    switch ((unsigned)(what >> 33)) {
    case FBE_NATIVE_REF_STRUCT:
        st = sc_chk_struct(&r, arg, pos, base, 1, &at, &n);
        break;
    case FBE_NATIVE_REF_OPTIONAL:
        st = sc_chk_optional(&r, pos, base, arg, &at);
        break;
    case FBE_NATIVE_REF_STRING:
        st = sc_chk_string(&r, pos, base, &at, &n);
        break;
    default:
        st = sc_chk_block(&r, pos, base, arg, &at, &n);
        break;
    }
    if (st == FBE_OK)
        return (fbe_native_failure){FBE_UNSUPPORTED, pos};
    return (fbe_native_failure){st, r.err_pos};
}

/* Bytes left at pos. Native code calls these with pos <= end; should it not,
 * nothing fits, rather than a wrapped room that would read past the frame. */
static uint64_t room_at(uint64_t end, uint64_t pos)
{
    return pos <= end ? end - pos : 0;
}

void fbe_native_final_run_verify(fbe_verify_info *info, uint64_t end, uint64_t pos,
                                 const fbe_ir_field *run, uint64_t n, const fbe_ir_struct *rep)
{
    uint64_t at;
    size_t k = sc_frun_short(run, n, room_at(end, pos), &at);
    fbe_jit_verify_fail(info, FBE_TRUNCATED, pos + at, rep, &run[k]);
}

void fbe_native_final_run_read(const uint8_t *data, uint64_t end, uint64_t pos, uint8_t *dst,
                               const fbe_ir_field *run, uint64_t n, uint64_t zero)
{
    uint64_t at;
    size_t k = sc_frun_read(dst, data + pos, run, n, room_at(end, pos), &at);
    sc_zero_fields(dst, run, k, zero);
}

void fbe_native_zero_fields(uint8_t *dst, const fbe_ir_field *fields, uint64_t from, uint64_t n)
{
    sc_zero_fields(dst, fields, from, n);
}

int64_t fbe_native_final_depth(fbe_verify_info *info, const uint8_t *data, uint64_t pos,
                               uint64_t left, const fbe_ir_struct *st)
{
    sc_frd r = {.data = data, .max_depth = left > UINT32_MAX ? UINT32_MAX : (unsigned)left};
    if (sc_fv_fixed_depth(&r, st, data + pos, 0))
        return 0;
    fbe_jit_verify_fail(info, FBE_TOO_DEEP, r.pos, r.type, r.field);
    return -(int64_t)FBE_TOO_DEEP;
}
