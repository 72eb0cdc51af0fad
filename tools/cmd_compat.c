/* fbec compat OLD NEW: the findings of compat.c, gcc-style or as JSON. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "compat.h"

static const char usage[] =
    "usage: fbec compat [-I DIR]... OLD.fbe NEW.fbe [--model standard|final|json]\n"
    "                   [--protocol] [--type NAME]... [--format text|json]\n\n"
    "Tells whether programs built with OLD and NEW (two versions of a package, each\n"
    "with its own imports) still read each other's data. Types are matched by name.\n"
    "Every change is reported at its place in NEW (in OLD for removals):\n"
    "  error:   breaks decoding in at least one direction (old reader/new writer,\n"
    "           new reader/old writer)\n"
    "  warning: decodes, but the meaning, JSON or the text form changes\n"
    "  note:    compatible\n\n"
    "  -I DIR          also search DIR for imported packages\n"
    "  --model M       the data that must keep working: standard (default, the\n"
    "                  versioned binary model), final (no versioning) or json\n"
    "  --protocol      also the protocol: message type numbers, requests, responses\n"
    "                  and rejects, added and removed messages\n"
    "  --type NAME     only this type and the types it uses (repeatable)\n"
    "  --format json   the same findings as one JSON object on stdout\n"
    "exit status: 0 nothing breaks, 1 something breaks (or a schema has errors),\n"
    "2 usage error\n";

#define MAX_TYPES 64

static const char *severity_name(fbe_compat_severity s)
{
    return s == FBE_COMPAT_ERROR ? "error" : s == FBE_COMPAT_WARNING ? "warning" : "note";
}

static void print_text(const fbe_compat_result *r, FILE *out)
{
    fbe_compat_sources *sources = fbe_compat_sources_new();
    for (size_t i = 0; i < r->count; i++) {
        const fbe_compat_finding *f = &r->findings[i];
        fprintf(out, "%s:%u:%u: %s: %s\n", f->loc.file ? f->loc.file : "?",
                (unsigned)f->loc.line, (unsigned)f->loc.col, severity_name(f->severity),
                f->message);
        size_t len = 0;
        const char *line =
            fbe_compat_source_line(sources, f->loc.file, (unsigned)f->loc.line, &len);
        if (!line)
            continue;
        /* the caret line reuses the source's tabs, as frontend/diag.c does */
        for (size_t k = 0; k < len; k++) {
            unsigned char c = (unsigned char)line[k];
            fputc(c == '\t' || (c >= 0x20 && c < 0x7f) || c >= 0x80 ? c : '?', out);
        }
        fputc('\n', out);
        for (size_t k = 1; k < f->loc.col && k <= len; k++)
            fputc(line[k - 1] == '\t' ? '\t' : ' ', out);
        fputs("^\n", out);
    }
    fbe_compat_sources_free(sources);
    fprintf(out, "%u error%s, %u warning%s, %u note%s: %s\n", r->errors,
            r->errors == 1 ? "" : "s", r->warnings, r->warnings == 1 ? "" : "s", r->notes,
            r->notes == 1 ? "" : "s", r->errors ? "incompatible" : "compatible");
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void print_json(const fbe_compat_result *r, FILE *out)
{
    fprintf(out, "{\"compatible\":%s,\"errors\":%u,\"warnings\":%u,\"notes\":%u,",
            r->errors ? "false" : "true", r->errors, r->warnings, r->notes);
    fprintf(out, "\"old_reader_new_writer\":%s,\"new_reader_old_writer\":%s,\"findings\":[",
            r->breaks & FBE_COMPAT_OLD_READER ? "false" : "true",
            r->breaks & FBE_COMPAT_NEW_READER ? "false" : "true");
    for (size_t i = 0; i < r->count; i++) {
        const fbe_compat_finding *f = &r->findings[i];
        fputs(i ? ",{\"severity\":" : "{\"severity\":", out);
        json_string(out, severity_name(f->severity));
        fputs(",\"file\":", out);
        json_string(out, f->loc.file);
        fprintf(out, ",\"line\":%u,\"col\":%u,\"in\":\"%s\",\"type\":", (unsigned)f->loc.line,
                (unsigned)f->loc.col, f->in_old ? "old" : "new");
        json_string(out, f->type);
        fputs(",\"breaks\":[", out);
        if (f->breaks & FBE_COMPAT_OLD_READER)
            fputs("\"old_reader_new_writer\"", out);
        if (f->breaks == (FBE_COMPAT_OLD_READER | FBE_COMPAT_NEW_READER))
            fputc(',', out);
        if (f->breaks & FBE_COMPAT_NEW_READER)
            fputs("\"new_reader_old_writer\"", out);
        fputs("],\"message\":", out);
        json_string(out, f->message);
        fputc('}', out);
    }
    fputs("]}\n", out);
}

int cmd_compat(int argc, char **argv)
{
    const char *includes[FBEC_MAX_INCLUDES], *types[MAX_TYPES], *files[2];
    size_t include_count = 0, type_count = 0, file_count = 0;
    fbe_compat_options opt = {.model = FBE_COMPAT_STANDARD};
    bool json = false, only_files = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        if (only_files || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (file_count == 2)
                return fbec_usage("compat", "expected two schemas, OLD and NEW; extra:", arg);
            files[file_count++] = arg;
        } else if (strcmp(arg, "--") == 0) {
            only_files = true;
        } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            fputs(usage, stdout);
            return FBEC_OK;
        } else if (strcmp(arg, "--protocol") == 0) {
            opt.protocol = true;
        } else if ((v = fbec_option_value(argc, argv, &i, "-I"))) {
            if (!*v)
                return fbec_usage("compat", "missing directory after", "-I");
            if (include_count == FBEC_MAX_INCLUDES)
                return fbec_usage("compat", "too many -I directories", NULL);
            includes[include_count++] = v;
        } else if ((v = fbec_option_value(argc, argv, &i, "--model"))) {
            if (strcmp(v, "standard") == 0)
                opt.model = FBE_COMPAT_STANDARD;
            else if (strcmp(v, "final") == 0)
                opt.model = FBE_COMPAT_FINAL;
            else if (strcmp(v, "json") == 0)
                opt.model = FBE_COMPAT_JSON;
            else
                return fbec_usage("compat", "--model is standard, final or json, not", v);
        } else if ((v = fbec_option_value(argc, argv, &i, "--format"))) {
            if (strcmp(v, "json") == 0)
                json = true;
            else if (strcmp(v, "text") != 0)
                return fbec_usage("compat", "--format is text or json, not", v);
        } else if ((v = fbec_option_value(argc, argv, &i, "--type"))) {
            if (!*v)
                return fbec_usage("compat", "missing type after", "--type");
            if (type_count == MAX_TYPES)
                return fbec_usage("compat", "too many --type names", NULL);
            types[type_count++] = v;
        } else {
            return fbec_usage("compat", "unknown option", arg);
        }
    }
    if (file_count != 2)
        return fbec_usage("compat", "expected two schemas, OLD and NEW", NULL);
    opt.types = types;
    opt.type_count = type_count;

    fbec_args args = {.include_count = include_count};
    memcpy(args.includes, includes, include_count * sizeof *includes);
    fbe_schema *old_schema = fbec_load(&args, files[0]);
    fbe_schema *new_schema = fbec_load(&args, files[1]);
    int status = FBEC_FAIL;
    if (old_schema && new_schema) {
        fbe_compat_result r;
        const char *bad = NULL;
        if (fbe_compat_compare(old_schema, new_schema, &opt, &r, &bad)) {
            if (json)
                print_json(&r, stdout);
            else
                print_text(&r, stdout);
            status = r.errors ? FBEC_FAIL : FBEC_OK;
            fbe_compat_result_free(&r);
        } else if (bad) {
            status = fbec_usage("compat", "no type of that name in both schemas:", bad);
        } else {
            fputs("fbec compat: out of memory\n", stderr);
        }
    }
    fbe_schema_free(old_schema);
    fbe_schema_free(new_schema);
    if (fflush(stdout) != 0 && status == FBEC_OK)
        status = FBEC_FAIL;
    return status;
}
