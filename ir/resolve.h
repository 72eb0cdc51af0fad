/* AST -> IR for one package, and the layout pass. Internal to the compiler. */
#ifndef FBE_IR_RESOLVE_H
#define FBE_IR_RESOLVE_H

#include "ast.h"
#include "diag.h"
#include "fbe/ir.h"

/* Resolves `file` into a package. `imports` are the already-resolved packages named
 * by the file's import statements, in order. Returns NULL when errors were
 * reported (or memory ran out). Layouts are computed as part of resolution. */
fbe_ir_package *fbe_resolve_package(fbe_arena *arena, fbe_diags *diags, const ast_file *file,
                                    const fbe_ir_package *const *imports, size_t import_count);

/* Layout of one type node / struct (ir/layout.c). Struct layout requires the
 * layouts of the structs it embeds by value to be computed first. */
void fbe_layout_type(fbe_ir_type *type);
/* Full layout including collection elements and map entries; needs every struct
 * the type mentions to be laid out. */
void fbe_layout_type_deep(fbe_ir_type *type);
void fbe_layout_struct(fbe_ir_struct *st);

/* Whether a laid-out type or struct has a size past FBE_IR_MAX_SIZE (sizes
 * saturate instead of wrapping, so this is exact). */
bool fbe_ir_type_too_large(const fbe_ir_type *type);
bool fbe_ir_struct_too_large(const fbe_ir_struct *st);

/* Bits of an integer kind (8..64). */
unsigned fbe_ir_kind_bits(fbe_ir_kind kind);

#endif
