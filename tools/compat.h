/* fbec compat: which changes between two versions of a schema keep old and new
 * programs talking (docs/compat.md). The rules read the layouts the IR computed
 * (ir/layout.c); nothing here derives a size or an offset of its own. */
#ifndef FBE_TOOLS_COMPAT_H
#define FBE_TOOLS_COMPAT_H

#include <stdbool.h>
#include <stddef.h>

#include "fbe/schema.h"

typedef enum fbe_compat_model {
    FBE_COMPAT_STANDARD, /* the versioned binary model (the default) */
    FBE_COMPAT_FINAL,    /* the final model: no versioning at all */
    FBE_COMPAT_JSON      /* JSON: members by name */
} fbe_compat_model;

typedef enum fbe_compat_severity {
    FBE_COMPAT_NOTE,    /* compatible */
    FBE_COMPAT_WARNING, /* decodes, but the meaning (or JSON, or the text form) changes */
    FBE_COMPAT_ERROR    /* breaks decoding in at least one direction */
} fbe_compat_severity;

/* The directions an error breaks. */
enum {
    FBE_COMPAT_OLD_READER = 1, /* old reader, new writer */
    FBE_COMPAT_NEW_READER = 2  /* new reader, old writer */
};

typedef struct fbe_compat_finding {
    fbe_compat_severity severity;
    unsigned breaks;      /* errors: FBE_COMPAT_OLD_READER | FBE_COMPAT_NEW_READER */
    bool in_old;          /* located in OLD (what NEW removed) */
    fbe_ir_source_loc loc;
    const char *type;     /* name of the type it concerns (no package) */
    char message[400];    /* errors end with the directions they break */
    size_t seq;           /* emission order, the last sort key */
} fbe_compat_finding;

typedef struct fbe_compat_options {
    fbe_compat_model model;
    bool protocol;                /* messages, their type numbers, requests/responses/rejects */
    const char *const *types;     /* only these types (by name) and what they reach; */
    size_t type_count;            /* 0 = every type of the root packages */
} fbe_compat_options;

typedef struct fbe_compat_result {
    fbe_compat_finding *findings; /* sorted: NEW's locations, then OLD's; by file, line, col */
    size_t count;
    unsigned errors, warnings, notes;
    unsigned breaks;              /* union over the errors */
} fbe_compat_result;

/* Compares the root package of `old_schema` with that of `new_schema`. False
 * (result empty) only when a name of options->types is in neither root package
 * (*bad_type then names it) or memory runs out (*bad_type NULL). */
bool fbe_compat_compare(const fbe_schema *old_schema, const fbe_schema *new_schema,
                        const fbe_compat_options *options, fbe_compat_result *result,
                        const char **bad_type);

void fbe_compat_result_free(fbe_compat_result *result);

/* ---- source text, for locations of enum values and carets (compat_source.c) -- */

typedef struct fbe_compat_sources fbe_compat_sources;

fbe_compat_sources *fbe_compat_sources_new(void);
void fbe_compat_sources_free(fbe_compat_sources *sources);

/* The text of line `line` of `path` (without its newline), NULL if unreadable. */
const char *fbe_compat_source_line(fbe_compat_sources *sources, const char *path,
                                   unsigned line, size_t *len);

/* The location of member `name` (an enum or flags value) of the declaration whose
 * name is at `decl`: the first `name` at brace depth 1 that starts a member. False
 * (loc unchanged) when not found. */
bool fbe_compat_find_member(fbe_compat_sources *sources, const fbe_ir_source_loc *decl,
                            const char *name, fbe_ir_source_loc *loc);

#endif
