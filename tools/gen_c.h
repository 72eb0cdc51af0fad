/* `fbec c`: the static C backend. Writes one C11 file implementing the same
 * symbols as an `fbec aot` object (docs/static.md, docs/aot.md): the schema's
 * IR image as constant C data, straight-line size/serialize/verify/deserialize
 * functions per struct and model, and fbe_<P>_codec_create(). The file needs
 * only fbe_runtime (and <fbe/aot.h>) to compile and link. */
#ifndef FBE_TOOLS_GEN_C_H
#define FBE_TOOLS_GEN_C_H

#include <stdbool.h>
#include <stdio.h>

#include "fbe/schema.h"

/* Writes the C file of `schema` (its root package and every import) to `out`,
 * built in memory first so nothing reaches `out` on failure (message on stderr).
 * `max_depth` (>= 1) is the nesting limit compiled into verify/deserialize. */
bool fbe_gen_c(const fbe_schema *schema, unsigned max_depth, FILE *out);

#endif
