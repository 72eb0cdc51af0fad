#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen_header.h"

int fbec_usage(const char *cmd, const char *msg, const char *arg)
{
    fprintf(stderr, "fbec %s: %s%s%s\n", cmd, msg, arg ? " " : "", arg ? arg : "");
    fprintf(stderr, "run 'fbec %s --help' for usage\n", cmd);
    return FBEC_USAGE;
}

static bool usage_error(const char *cmd, const char *msg, const char *arg)
{
    fbec_usage(cmd, msg, arg);
    return false;
}

const char *fbec_option_value(int argc, char **argv, int *i, const char *name)
{
    const char *arg = argv[*i];
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return NULL;
    if (arg[n] == '\0')
        return *i + 1 < argc ? argv[++*i] : "";
    if (arg[n] == '=' && name[1] == '-')
        return arg + n + 1;
    if (name[1] != '-')
        return arg + n;
    return NULL;
}

/* The commands that write files derived from a schema (see fbec_write_extras). */
static bool is_generator(const char *cmd)
{
    return strcmp(cmd, "header") == 0 || strcmp(cmd, "aot") == 0 || strcmp(cmd, "c") == 0;
}

bool fbec_parse_args(const char *cmd, int argc, char **argv, fbec_args *args)
{
    memset(args, 0, sizeof *args);
    bool generator = is_generator(cmd);
    bool only_inputs = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *v;
        if (only_inputs || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (args->input_count == FBEC_MAX_INPUTS)
                return usage_error(cmd, "too many inputs", NULL);
            args->inputs[args->input_count++] = arg;
        } else if (strcmp(arg, "--") == 0) {
            only_inputs = true;
        } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            args->help = true;
        } else if ((v = fbec_option_value(argc, argv, &i, "-I"))) {
            if (!*v)
                return usage_error(cmd, "missing directory after", "-I");
            if (args->include_count == FBEC_MAX_INCLUDES)
                return usage_error(cmd, "too many -I directories", NULL);
            args->includes[args->include_count++] = v;
        } else if ((v = fbec_option_value(argc, argv, &i, "-o"))) {
            if (!*v)
                return usage_error(cmd, "missing file after", "-o");
            args->output = v;
        } else if ((v = fbec_option_value(argc, argv, &i, "--schema"))) {
            if (!*v)
                return usage_error(cmd, "missing file after", "--schema");
            args->schema = v;
        } else if ((v = fbec_option_value(argc, argv, &i, "--type"))) {
            if (!*v)
                return usage_error(cmd, "missing type after", "--type");
            args->type = v;
        } else if (strcmp(arg, "--final") == 0) {
            args->final = true;
        } else if (strcmp(arg, "--pretty") == 0) {
            args->pretty = true;
        } else if (strcmp(arg, "--stream") == 0) {
            args->stream = true;
        } else if ((v = fbec_option_value(argc, argv, &i, "--from"))) {
            if (!*v)
                return usage_error(cmd, "missing model after", "--from");
            args->from = v;
        } else if ((v = fbec_option_value(argc, argv, &i, "--to"))) {
            if (!*v)
                return usage_error(cmd, "missing model after", "--to");
            args->to = v;
        } else if ((v = fbec_option_value(argc, argv, &i, "--format"))) {
            if (!*v)
                return usage_error(cmd, "missing format after", "--format");
            args->format = v;
        } else if ((v = fbec_option_value(argc, argv, &i, "--backend"))) {
            if (!*v)
                return usage_error(cmd, "missing name after", "--backend");
            args->backend = v;
        } else if ((v = fbec_option_value(argc, argv, &i, "--cpu"))) {
            if (!*v)
                return usage_error(cmd, "missing name after", "--cpu");
            args->cpu = v;
        } else if ((v = fbec_option_value(argc, argv, &i, "--max-memory"))) {
            if (!*v)
                return usage_error(cmd, "missing size after", "--max-memory");
            args->max_memory = v;
        } else if ((v = fbec_option_value(argc, argv, &i, "--cache"))) {
            if (!*v)
                return usage_error(cmd, "missing directory after", "--cache");
            args->cache = v;
        } else if ((v = fbec_option_value(argc, argv, &i, "--jit-mode"))) {
            if (!*v)
                return usage_error(cmd, "missing mode after", "--jit-mode");
            args->jit_mode = v;
        } else if (strcmp(arg, "--stats") == 0) {
            args->stats = true;
        } else if (generator && strcmp(arg, "-MD") == 0) {
            args->dep_md = true;
        } else if (generator && (v = fbec_option_value(argc, argv, &i, "-MF"))) {
            if (!*v)
                return usage_error(cmd, "missing file after", "-MF");
            args->depfile = v;
        } else if (generator && (v = fbec_option_value(argc, argv, &i, "--import-headers"))) {
            if (!*v)
                return usage_error(cmd, "missing directory after", "--import-headers");
            args->import_headers = v;
        } else {
            return usage_error(cmd, "unknown option", arg);
        }
    }
    return true;
}

bool fbec_parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || end == s || s[0] == '-' || v < min || v > max)
        return false;
    *out = v;
    return true;
}

const char *fbec_generator_input(const char *cmd, const fbec_args *args,
                                 const char *output_what)
{
    char msg[160];
    if (args->type || args->final || args->from || args->to || args->format || args->backend ||
        args->cpu || args->stats || args->cache || args->jit_mode || args->pretty || args->stream ||
        args->max_memory) {
        snprintf(msg, sizeof msg,
                 "only -I, -o, --schema and the options of 'fbec %s --help' are used by this "
                 "command", cmd);
        usage_error(cmd, msg, NULL);
        return NULL;
    }
    const char *input = NULL;
    if (args->input_count == 1 && !args->schema)
        input = args->inputs[0];
    else if (args->input_count == 0 && args->schema)
        input = args->schema;
    if (!input) {
        usage_error(cmd, args->input_count || args->schema ? "expected exactly one schema file"
                                                           : "no schema file given",
                    NULL);
        return NULL;
    }
    if (!args->output || strcmp(args->output, "-") == 0) {
        snprintf(msg, sizeof msg, "-o FILE (%s) is required", output_what);
        usage_error(cmd, msg, NULL);
        return NULL;
    }
    return input;
}

fbe_schema *fbec_load(const fbec_args *args, const char *path)
{
    fbe_schema_options opts = {
        .include_dirs = args->includes,
        .include_dir_count = args->include_count,
    };
    unsigned errors = 0;
    fbe_schema *schema = fbe_schema_load(path, &opts, &errors);
    if (!schema)
        fprintf(stderr, "%u error%s generated.\n", errors, errors == 1 ? "" : "s");
    return schema;
}

FILE *fbec_open_output(const char *cmd, const fbec_args *args)
{
    if (!args->output || strcmp(args->output, "-") == 0)
        return stdout;
    FILE *f = fopen(args->output, "w");
    if (!f)
        fprintf(stderr, "fbec %s: cannot open '%s': %s\n", cmd, args->output, strerror(errno));
    return f;
}

bool fbec_close_output(const char *cmd, const fbec_args *args, FILE *out)
{
    bool ok = !ferror(out);
    if (out == stdout)
        ok = fflush(out) == 0 && ok;
    else
        ok = fclose(out) == 0 && ok;
    if (!ok)
        fprintf(stderr, "fbec %s: error writing '%s'\n", cmd,
                args->output ? args->output : "<stdout>");
    return ok;
}

/* The whole content of `path` in *text (malloc'ed), or false if it cannot be read. */
static bool read_file(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    char *buf = NULL;
    size_t n = 0, cap = 0;
    bool ok = true;
    for (;;) {
        if (n == cap) {
            char *grown = realloc(buf, cap = cap ? cap * 2 : 4096);
            if (!grown) {
                ok = false;
                break;
            }
            buf = grown;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            ok = !ferror(f);
            break;
        }
    }
    fclose(f);
    if (!ok) {
        free(buf);
        return false;
    }
    *text = buf;
    *len = n;
    return true;
}

/* True when both files can be read and hold the same bytes. */
static bool same_content(const char *a, const char *b)
{
    char *ta = NULL, *tb = NULL;
    size_t la = 0, lb = 0;
    bool same = read_file(a, &ta, &la) && read_file(b, &tb, &lb) && la == lb &&
                memcmp(ta, tb, la) == 0;
    free(ta);
    free(tb);
    return same;
}

/* DIR/PACKAGE.h for an imported package: written to a temporary file, then
 * renamed over the old one unless that already has the same text, so that
 * nothing including it is rebuilt for nothing and a reader (or another fbec
 * writing the same header for another schema) never sees half a file. */
static bool write_import_header(const char *cmd, const char *dir, const fbe_schema *schema,
                                const fbe_ir_package *pkg)
{
    size_t n = strlen(dir) + strlen(pkg->name) + 40;
    char *path = malloc(n), *tmp = malloc(n);
    if (!path || !tmp) {
        fprintf(stderr, "fbec %s: out of memory\n", cmd);
        free(path);
        free(tmp);
        return false;
    }
    snprintf(path, n, "%s/%s.h", dir, pkg->name);
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    bool ok = f && fbe_gen_header(schema, pkg, f);
    if (f)
        ok = fclose(f) == 0 && ok;
    if (ok && same_content(tmp, path))
        remove(tmp);
    else if (!ok || rename(tmp, path) != 0) {
        fprintf(stderr, "fbec %s: cannot write '%s': %s\n", cmd, path, strerror(errno));
        remove(tmp);
        ok = false;
    }
    free(path);
    free(tmp);
    return ok;
}

static bool write_import_headers(const char *cmd, const char *dir, const fbe_schema *schema)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "fbec %s: cannot create '%s': %s\n", cmd, dir, strerror(errno));
        return false;
    }
    const fbe_ir_package *root = fbe_schema_root(schema);
    bool ok = true;
    for (size_t i = 0; ok && i < fbe_schema_package_count(schema); i++)
        if (fbe_schema_package(schema, i) != root)
            ok = write_import_header(cmd, dir, schema, fbe_schema_package(schema, i));
    return ok;
}

/* A path in make syntax, escaped as gcc -MD does: blanks, '#' and '$'. */
static void put_make_path(FILE *out, const char *path)
{
    for (const char *c = path; *c; c++) {
        if (*c == ' ' || *c == '\t' || *c == '#')
            fputc('\\', out);
        else if (*c == '$')
            fputc('$', out);
        fputc(*c, out);
    }
}

static bool write_depfile(const char *cmd, const char *path, const fbe_schema *schema,
                          const char *target)
{
    FILE *out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "fbec %s: cannot open '%s': %s\n", cmd, path, strerror(errno));
        return false;
    }
    put_make_path(out, target);
    fputc(':', out);
    /* Imports first, the schema itself last: the order of the loaded packages. */
    for (size_t i = 0; i < fbe_schema_package_count(schema); i++) {
        fputs(" \\\n  ", out);
        put_make_path(out, fbe_schema_package(schema, i)->path);
    }
    fputc('\n', out);
    bool ok = !ferror(out);
    ok = fclose(out) == 0 && ok;
    if (!ok) {
        fprintf(stderr, "fbec %s: error writing '%s'\n", cmd, path);
        remove(path);
    }
    return ok;
}

bool fbec_write_extras(const char *cmd, const fbec_args *args, const fbe_schema *schema,
                       const char *target)
{
    if (args->import_headers && !write_import_headers(cmd, args->import_headers, schema))
        return false;
    if (!args->depfile && !args->dep_md)
        return true;
    if (!target || strcmp(target, "-") == 0) {
        fprintf(stderr, "fbec %s: -MD and -MF need an output file (-o)\n", cmd);
        return false;
    }
    if (args->depfile)
        return write_depfile(cmd, args->depfile, schema, target);
    size_t n = strlen(target) + 3;
    char *path = malloc(n);
    if (!path) {
        fprintf(stderr, "fbec %s: out of memory\n", cmd);
        return false;
    }
    snprintf(path, n, "%s.d", target);
    bool ok = write_depfile(cmd, path, schema, target);
    free(path);
    return ok;
}
