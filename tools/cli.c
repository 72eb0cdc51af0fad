#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

bool fbec_parse_args(const char *cmd, int argc, char **argv, fbec_args *args)
{
    memset(args, 0, sizeof *args);
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
        } else if ((v = fbec_option_value(argc, argv, &i, "--cache"))) {
            if (!*v)
                return usage_error(cmd, "missing directory after", "--cache");
            args->cache = v;
        } else if (strcmp(arg, "--stats") == 0) {
            args->stats = true;
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
        args->cpu || args->stats || args->cache || args->pretty || args->stream) {
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
