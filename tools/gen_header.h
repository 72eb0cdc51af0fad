/* `fbec header`: a C11 header declaring the host representation of one package.
 *
 * The layout rules are those of docs/host-abi.md; the IR (ir/layout.c) computes
 * every size and offset and the generated header pins each one with
 * _Static_assert, so a header that compiles has exactly the IR's layout. */
#ifndef FBE_TOOLS_GEN_HEADER_H
#define FBE_TOOLS_GEN_HEADER_H

#include <stdbool.h>
#include <stdio.h>

#include "fbe/ir.h"
#include "fbe/schema.h"

/* Writes the header of package `pkg` (normally fbe_schema_root(schema)) to `out`.
 * The text is built in memory first: on failure (an IR value the generator
 * cannot express, out of memory, a write error) a message is printed to stderr,
 * nothing or only a failed write reaches `out`, and false is returned.
 * The output depends only on the IR (no dates, no absolute paths). */
bool fbe_gen_header(const fbe_schema *schema, const fbe_ir_package *pkg, FILE *out);

#endif
