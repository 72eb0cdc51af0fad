#include "diag.h"

#include <stdarg.h>
#include <stdio.h>

void fbe_diags_init(fbe_diags *diags, fbe_diag_sink sink, void *sink_ctx)
{
    diags->sink = sink ? sink : fbe_diag_print;
    diags->sink_ctx = sink ? sink_ctx : stderr;
    diags->errors = 0;
}

bool fbe_diags_full(const fbe_diags *diags)
{
    return diags->errors >= FBE_MAX_ERRORS;
}

static void emit(fbe_diags *diags, fbe_diag_severity severity, fbe_loc loc, const char *fmt,
                 va_list ap)
{
    char message[512];
    vsnprintf(message, sizeof message, fmt, ap);
    fbe_diag d = {.severity = severity, .message = message};
    if (loc.line && loc.source) {
        d.file = loc.source->path;
        d.line = loc.line;
        d.col = loc.col;
        d.source_line = fbe_source_line(loc.source, loc.line, &d.source_line_len);
    } else if (loc.source) {
        d.file = loc.source->path;
    }
    diags->sink(diags->sink_ctx, &d);
}

void fbe_error(fbe_diags *diags, fbe_loc loc, const char *fmt, ...)
{
    diags->errors++;
    if (diags->errors > FBE_MAX_ERRORS)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(diags, FBE_DIAG_ERROR, loc, fmt, ap);
    va_end(ap);
    if (diags->errors == FBE_MAX_ERRORS)
        diags->sink(diags->sink_ctx, &(fbe_diag){
                                         .severity = FBE_DIAG_NOTE,
                                         .message = "too many errors, stopping",
                                     });
}

void fbe_note(fbe_diags *diags, fbe_loc loc, const char *fmt, ...)
{
    if (diags->errors > FBE_MAX_ERRORS)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(diags, FBE_DIAG_NOTE, loc, fmt, ap);
    va_end(ap);
}

/* gcc layout: the caret line reuses the source's tabs so it lines up in a
 * terminal whatever the tab width. */
void fbe_diag_print(void *ctx, const fbe_diag *d)
{
    FILE *out = ctx;
    const char *sev = d->severity == FBE_DIAG_ERROR ? "error" : "note";
    if (d->file && d->line)
        fprintf(out, "%s:%u:%u: %s: %s\n", d->file, d->line, d->col, sev, d->message);
    else if (d->file)
        fprintf(out, "%s: %s: %s\n", d->file, sev, d->message);
    else
        fprintf(out, "fbec: %s: %s\n", sev, d->message);
    if (!d->source_line || !d->line)
        return;
    for (size_t i = 0; i < d->source_line_len; i++) {
        unsigned char c = (unsigned char)d->source_line[i];
        fputc(c == '\t' || (c >= 0x20 && c < 0x7f) || c >= 0x80 ? c : '?', out);
    }
    fputc('\n', out);
    for (unsigned i = 1; i < d->col && i <= d->source_line_len; i++)
        fputc(d->source_line[i - 1] == '\t' ? '\t' : ' ', out);
    fputs("^\n", out);
}
