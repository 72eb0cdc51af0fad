/* The key functions of a generated header (docs/keys.md): pkg_T_compare,
 * pkg_T_equal and pkg_T_hash for every struct of a package, written with the
 * fbe_key_* primitives of <fbe/value.h> so that they agree with the reflective
 * fbe_value_compare/_equal/_hash. */
#ifndef FBE_TOOLS_GEN_HEADER_KEYS_H
#define FBE_TOOLS_GEN_HEADER_KEYS_H

#include "fbe/ir.h"

/* The C text of the functions of every struct of pkg (prototypes first, so the
 * struct definitions must all precede it), malloc'd; NULL when out of memory. */
char *fbe_gen_header_keys(const fbe_ir_package *pkg);

#endif
