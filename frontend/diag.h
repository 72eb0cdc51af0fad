/* Collects diagnostics for one load and forwards them to the user's sink. */
#ifndef FBE_FRONTEND_DIAG_H
#define FBE_FRONTEND_DIAG_H

#include <stdbool.h>

#include "fbe/schema.h"
#include "source.h"

typedef struct fbe_diags {
    fbe_diag_sink sink;
    void *sink_ctx;
    unsigned errors;
} fbe_diags;

void fbe_diags_init(fbe_diags *diags, fbe_diag_sink sink, void *sink_ctx);

/* Reports an error at `loc` (loc.line == 0: no location). Errors past
 * FBE_MAX_ERRORS are counted but not forwarded. */
void fbe_error(fbe_diags *diags, fbe_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A note attached to the previous error (e.g. "previous definition is here").
 * Not counted as an error; dropped once the cap is reached. */
void fbe_note(fbe_diags *diags, fbe_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* True once the error cap is reached: callers stop doing work. */
bool fbe_diags_full(const fbe_diags *diags);

#endif
