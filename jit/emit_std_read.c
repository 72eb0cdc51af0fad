/* The std_read lowering is not written yet: nothing is emitted, so the interpreter's
 * entry points stay in place for these operations. */
#include "emit.h"

bool jit_emit_std_read(jit_emit *e)
{
    (void)e;
    return true;
}
