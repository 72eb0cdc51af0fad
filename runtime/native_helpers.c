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
    info->field = field;
}
