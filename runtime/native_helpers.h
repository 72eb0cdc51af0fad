/* Runtime functions that natively compiled code (LLVM JIT and AOT objects) calls
 * besides the public ones (fbe_buffer_reserve, fbe_arena_alloc, fbe_init_field)
 * and the C library (memcpy, memmove, memset). They live in fbe_runtime so an
 * AOT object links against it alone; jit/helpers.c gives their addresses to the
 * JIT. Internal: names and signatures are part of the AOT object ABI
 * (FBE_AOT_ABI_VERSION), not of the public API. */
#ifndef FBE_RUNTIME_NATIVE_HELPERS_H
#define FBE_RUNTIME_NATIVE_HELPERS_H

#include <stdint.h>

#include "fbe/arena.h"
#include "fbe/codec.h"

/* Fills *info (when not NULL) on a verify failure: the cold path. */
void fbe_jit_verify_fail(fbe_verify_info *info, int status, uint64_t offset,
                         const fbe_ir_struct *type, const fbe_ir_field *field);

/* A reference in native standard-model code failed its fast test, which is
 * the conjunction of the checks below: this function finds which check failed
 * by running the checks of fbe/internal/static_c.h (the interpreter's and
 * `fbec c`'s) one by one in their documented order, so the order, the statuses
 * and the error positions are written once. what = kind << 33 | (no level
 * left) << 32 | argument:
 *   FBE_NATIVE_REF_STRUCT    the struct's type number  (sc_chk_struct; with no
 *                            level left the body is TOO_DEEP)
 *   FBE_NATIVE_REF_OPTIONAL  the slot's inline size    (sc_chk_optional, flag set)
 *   FBE_NATIVE_REF_STRING    unused                    (sc_chk_string)
 *   FBE_NATIVE_REF_BLOCK     bytes per element, >= 1   (sc_chk_block)
 * The traversal budget is charged last in every one of these rules, so it takes
 * none: whatever check sent native code here fails before the budget matters,
 * and if it was the budget, an empty one fails the same way. Returns the status
 * and the error's position, in registers; the caller reports them. Every
 * check can pass only for a string or block at offset 0 (empty), which native
 * code handles itself: then it answers FBE_UNSUPPORTED, never a silent success. */
enum {
    FBE_NATIVE_REF_STRING, /* 0: what is 0 for every string, the commonest call */
    FBE_NATIVE_REF_STRUCT,
    FBE_NATIVE_REF_OPTIONAL,
    FBE_NATIVE_REF_BLOCK,
};
typedef struct fbe_native_failure {
    uint64_t status;
    uint64_t pos;
} fbe_native_failure;
fbe_native_failure fbe_native_std_ref(const uint8_t *data, uint64_t size, uint64_t pos,
                                      uint64_t base, uint64_t what);


/* A run of final-model fields did not fit (static_c.h sc_frun_short): the n
 * fields at `run` (an IR struct's field array from the run's first field on),
 * with the bytes after them that native code checked together with them.
 * The run is at pos of a frame of `end` bytes (pos <= end; past it, nothing
 * fits). verify reports TRUNCATED against rep at the first field that does
 * not fit, or at run[n] when they all do (then what failed is the next
 * field's header, so run[n] exists). read (static_c.h sc_frun_read) reads the
 * fields that fit into the host struct at dst and zeroes the others and the
 * fields after them up to run[zero] (a failing field and every later one are
 * zero); the caller then returns -FBE_TRUNCATED. */
void fbe_native_final_run_verify(fbe_verify_info *info, uint64_t end, uint64_t pos,
                                 const fbe_ir_field *run, uint64_t n, const fbe_ir_struct *rep);
void fbe_native_final_run_read(const uint8_t *data, uint64_t end, uint64_t pos, uint8_t *dst,
                               const fbe_ir_field *run, uint64_t n, uint64_t zero);

/* Zeroes fields [from, n) of the IR field array `fields` in the host struct at
 * dst (static_c.h sc_zero_fields): what a failed read leaves in the fields it
 * did not reach. */
void fbe_native_zero_fields(uint8_t *dst, const fbe_ir_field *fields, uint64_t from, uint64_t n);

/* A fixed struct st at pos of the frame at data, whose own level is within the
 * limit and which may hold `left` more levels below it, goes deeper somewhere
 * (native final-model verify found so with one compare): reports TOO_DEEP
 * where the walk of static_c.h sc_fv_fixed_depth fails, against the innermost
 * struct and field, and returns -FBE_TOO_DEEP (0 if nothing is too deep). */
int64_t fbe_native_final_depth(fbe_verify_info *info, const uint8_t *data, uint64_t pos,
                               uint64_t left, const fbe_ir_struct *st);

/* An in-process native deserialize that failed returns the arena to where the
 * call found it: ptr as the call read it, and when the call added chunks
 * (budget->cap is set) the head chunk and chunk_size its budget recorded then
 * (chunks added since are freed, total and end follow), so that the
 * interpreter's deserialize, which it then calls on the same frame to find the
 * failure, runs on the arena a lone interpreter call would have had
 * (docs/jit.md, "A failing deserialize is the interpreter's"). */
void fbe_native_arena_rewind(fbe_arena *arena, const fbe_decode_budget *budget, char *ptr);

#endif
