/* The header of `fbec aot --header` and `fbec c --header`: the header of
 * `fbec header` followed by the declarations of the codec's symbols
 * (fbe_P_codec_create, fbe_P_aot_image, the entry points of P's own structs).
 * Both backends export exactly the same symbols, so they share this writer and
 * a program compiles unchanged against either. */
#ifndef FBE_TOOLS_GEN_AOT_HEADER_H
#define FBE_TOOLS_GEN_AOT_HEADER_H

#include <stdbool.h>
#include <stddef.h>

#include "fbe/schema.h"

/* Writes the header to `path`, whole or not at all. missing[model][op] counts
 * the structs without code for that operation (size, serialize, verify,
 * deserialize); those entry points are not declared. `cmd` prefixes error
 * messages ("aot", "c"). */
bool fbe_gen_aot_header(const char *cmd, const char *path, const fbe_schema *schema,
                        const size_t missing[2][4]);

#endif
