/* Helpers called by natively compiled code (see native_helpers.h). */
#include "native_helpers.h"

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
