/* Loading .fbe schemas: parse, resolve imports, check, and build the IR. */
#ifndef FBE_SCHEMA_H
#define FBE_SCHEMA_H

#include <stddef.h>
#include <stdio.h>

#include "fbe/ir.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fbe_diag_severity {
    FBE_DIAG_ERROR,
    FBE_DIAG_NOTE
} fbe_diag_severity;

/* One diagnostic. `file` is NULL for errors without a location (e.g. a missing
 * input file); line and col are 1-based (col counts bytes). `source_line` is the
 * text of the offending line without its newline (NULL when unknown). */
typedef struct fbe_diag {
    fbe_diag_severity severity;
    const char *file;
    unsigned line;
    unsigned col;
    const char *message;
    const char *source_line;
    size_t source_line_len;
} fbe_diag;

/* Receives every diagnostic as it is produced. */
typedef void (*fbe_diag_sink)(void *ctx, const fbe_diag *diag);

/* A sink printing gcc-style `file:line:col: error: message`, the source line and a
 * caret to the FILE* passed as ctx. */
void fbe_diag_print(void *file, const fbe_diag *diag);

/* At most this many errors are reported; loading stops after the cap. */
#define FBE_MAX_ERRORS 20

typedef struct fbe_schema_options {
    const char *const *include_dirs; /* searched after the importing file's folder */
    size_t include_dir_count;
    fbe_diag_sink sink;              /* NULL: print to stderr */
    void *sink_ctx;
} fbe_schema_options;

typedef struct fbe_schema fbe_schema;

/* Loads the schema in `path` and every package it imports (transitively).
 * Returns NULL if any error was reported; *error_count (if not NULL) receives the
 * number of errors. */
fbe_schema *fbe_schema_load(const char *path, const fbe_schema_options *options,
                            unsigned *error_count);

/* Same, from memory. `name` is used in diagnostics and as the folder for imports. */
fbe_schema *fbe_schema_load_string(const char *name, const char *text, size_t len,
                                   const fbe_schema_options *options,
                                   unsigned *error_count);

/* Loading is the compiler's (library fbe_compiler); freeing and the accessors
 * below, up to fbe_schema_find_flags, are fbe_runtime's, so that a backend taking
 * a schema (fbe_interp_create, fbe_jit_compile) links without the parser. */
void fbe_schema_free(fbe_schema *schema);

/* The package of the file that was loaded. */
const fbe_ir_package *fbe_schema_root(const fbe_schema *schema);

/* Every loaded package, imports before importers; the root package is last. */
size_t fbe_schema_package_count(const fbe_schema *schema);
const fbe_ir_package *fbe_schema_package(const fbe_schema *schema, size_t index);

/* Looks up "pkg.Name" (or "Name" in the root package). NULL if not found. */
const fbe_ir_struct *fbe_schema_find_struct(const fbe_schema *schema, const char *name);
const fbe_ir_enum *fbe_schema_find_enum(const fbe_schema *schema, const char *name);
const fbe_ir_flags *fbe_schema_find_flags(const fbe_schema *schema, const char *name);

/* The stable text form printed by `fbec ir`. */
void fbe_ir_print(const fbe_schema *schema, FILE *out);
/* The same text for one package (fbe_ir_print prints the root package's).
 * false when a type name longer than 511 bytes could not be printed whole (no
 * memory for it): the text then has its first 511 bytes only. */
bool fbe_ir_print_package(const fbe_ir_package *package, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
