/* fbec explain: the interpreter's program of one type (runtime/interp/program.h),
 * printed step by step with its constants, as SQLite's EXPLAIN prints a VDBE
 * program: what the codec loops walk, without reading program.c. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "fbe/codec.h"
#include "interp/program.h"

static const char usage[] =
    "usage: fbec explain [-I DIR]... SCHEMA --type pkg.T [--final] [-o FILE]\n\n"
    "Prints the interpreter's program of struct T in the standard model (--final:\n"
    "the final model): its fields as lowered, then each step list the codec loops\n"
    "walk (write and read, verify, size) with the constants of every step. Offsets\n"
    "and sizes are bytes; `wire` is from the start of the struct's body (header\n"
    "included), `host` from the start of the C struct.\n\n"
    "  -I DIR        also search DIR for imported packages\n"
    "  --type pkg.T  the struct (or message) to explain\n"
    "  --final       the final model's program instead of the standard one\n"
    "  -o FILE       write to FILE instead of standard output\n";

/* interp_op, in its order. */
static const char *const node_ops[] = {"BOOL",   "COPY1",  "COPY2",      "COPY4", "COPY8",
                                       "COPY16", "STRING", "STRUCT",     "OPTIONAL",
                                       "OPT_STRUCT", "ARRAY", "SEQ",     "MAP"};
_Static_assert(sizeof node_ops / sizeof *node_ops == OP_MAP + 1, "a name per interp_op");

/* interp_step_op, from the X-macro that defines it (without the SO_ prefix). */
#define STEP_NAME_(P, op) #op,
static const char *const step_ops[SO_COUNT] = {INTERP_STEP_OPS(STEP_NAME_, _)};
#undef STEP_NAME_

static const char *step_name(uint8_t op)
{
    return op < SO_COUNT ? step_ops[op] + 3 : "?";
}

/* The field a step stands for: "a" or, for a run of plain fields, "a..c" (the
 * consecutive fields whose sizes add up to the run's, as program.c builds it). */
static void step_fields(const interp_step *s, char *out, size_t size)
{
    if (!s->field) {
        snprintf(out, size, "%s", "");
        return;
    }
    const interp_field *last = s->field;
    if (s->op < SO_BOOL)
        for (uint64_t covered = last->node.std_size; covered < s->len;
             covered += last->node.std_size)
            last++;
    if (last == s->field)
        snprintf(out, size, "%s", s->field->ir->name);
    else
        snprintf(out, size, "%s..%s", s->field->ir->name, last->ir->name);
}

/* Writes line (without trailing blanks) and a newline. */
static void put_line(FILE *out, char *line)
{
    size_t n = strlen(line);
    while (n && line[n - 1] == ' ')
        line[--n] = 0;
    fprintf(out, "%s\n", line);
}

static void print_steps(FILE *out, const interp_steps *steps, bool final)
{
    if (final)
        fputs("addr  op          len   host     pre    need  field\n", out);
    else
        fputs("addr  op          len   wire   host  field\n", out);
    for (size_t i = 0; i <= steps->count; i++) {
        const interp_step *s = &steps->at[i];
        char names[256], line[512];
        step_fields(s, names, sizeof names);
        int n;
        if (final)
            n = snprintf(line, sizeof line,
                         "%4zu  %-10s %4" PRIu32 " %6" PRIu32 " %7" PRIu64 " %7" PRIu64 "  %s", i,
                         step_name(s->op), s->len, s->host_offset, s->pre, s->need, names);
        else
            n = snprintf(line, sizeof line, "%4zu  %-10s %4" PRIu32 " %6" PRIu32 " %6" PRIu32 "  %s",
                         i, step_name(s->op), s->len, s->std_offset, s->host_offset, names);
        if (s->prog && s->op != SO_END && n > 0 && (size_t)n < sizeof line)
            snprintf(line + n, sizeof line - (size_t)n, " -> %s", s->prog->ir->full_name);
        put_line(out, line);
    }
}

static void print_strings(FILE *out, const uint32_t *at, size_t count)
{
    if (!count) {
        fputs("no string", out);
        return;
    }
    fputs("the lengths of the strings at host", out);
    for (size_t i = 0; i < count; i++)
        fprintf(out, "%s %" PRIu32, i ? "," : "", at[i]);
}

static void explain_std(FILE *out, const interp_prog *p)
{
    fprintf(out, "%s: the interpreter's program, standard model\n", p->ir->full_name);
    fprintf(out, "type %" PRIu32 ", body %" PRIu32 " bytes, header 0x%016" PRIx64 ", host %" PRIu32
                 " bytes\n\nfields\n",
            p->type_number, p->std_body_size, p->std_header, p->host_size);
    fputs("   #  node        wire  size   host  hsize  field\n", out);
    for (size_t i = 0; i < p->field_count; i++) {
        const interp_field *f = &p->fields[i];
        const interp_node *n = &f->node;
        fprintf(out, "%4zu  %-10s %5" PRIu32 " %5" PRIu32 " %6" PRIu32 " %6" PRIu32 "  %s%s%s\n", i,
                node_ops[n->op], f->std_offset, n->std_size, f->host_offset, n->host_size,
                f->ir->name, n->plain ? " plain" : "", n->std_const ? " const" : "");
    }
    fputs("\nwrite, read: std_steps\n", out);
    print_steps(out, &p->std_steps, false);
    fprintf(out, "\nverify: std_check_steps%s\n", p->std_check_leaf ? " (leaf)" : "");
    print_steps(out, &p->std_check_steps, false);
    fprintf(out, "\nsize: %" PRIu64 " + ", p->std_const);
    print_strings(out, p->std_size_strings, p->std_size_string_count);
    fputs(" + std_size_steps\n", out);
    print_steps(out, &p->std_size_steps, false);
}

static void explain_final(FILE *out, const interp_prog *p)
{
    fprintf(out, "%s: the interpreter's program, final model\n", p->ir->full_name);
    if (p->final_fixed)
        fprintf(out, "type %" PRIu32 ", fixed %" PRIu32 " bytes, depth %" PRIu32, p->type_number,
                p->final_size, p->fixed_depth);
    else
        fprintf(out, "type %" PRIu32 ", variable, at least %" PRIu32 " bytes", p->type_number,
                p->final_min);
    fprintf(out, ", host %" PRIu32 " bytes\n\nfields\n", p->host_size);
    fputs("   #  node        size      min   host  hsize  field\n", out);
    for (size_t i = 0; i < p->field_count; i++) {
        const interp_field *f = &p->fields[i];
        const interp_node *n = &f->node;
        char size[16];
        if (n->final_fixed)
            snprintf(size, sizeof size, "%" PRIu32, n->final_size);
        else
            snprintf(size, sizeof size, "var");
        fprintf(out, "%4zu  %-10s %5s %8" PRIu64 " %6" PRIu32 " %6" PRIu32 "  %s%s\n", i,
                node_ops[n->op], size, n->min_size, f->host_offset, n->host_size, f->ir->name,
                n->plain ? " plain" : "");
    }
    fputs("\nwrite, read: final_steps\n", out);
    print_steps(out, &p->final_steps, true);
    fprintf(out, "\nverify: final_check_steps%s\n", p->final_check_leaf ? " (leaf)" : "");
    print_steps(out, &p->final_check_steps, true);
    if (!p->final_fixed) {
        fprintf(out, "\nsize: %" PRIu64 " + ", p->final_const);
        print_strings(out, p->final_size_strings, p->final_size_string_count);
        fputs(" + final_size_steps\n", out);
        print_steps(out, &p->final_size_steps, true);
        fputs("\nexact size walk: final_size_exact\n", out);
        print_steps(out, &p->final_size_exact, true);
    }
}

int cmd_explain(int argc, char **argv)
{
    fbec_args args;
    if (!fbec_parse_args("explain", argc, argv, &args))
        return FBEC_USAGE;
    if (args.help) {
        fputs(usage, stdout);
        return FBEC_OK;
    }
    if (args.input_count != 1)
        return fbec_usage("explain", "expected exactly one schema", NULL);
    if (!args.type)
        return fbec_usage("explain", "missing", "--type");
    fbe_schema *schema = fbec_load(&args, args.inputs[0]);
    if (!schema)
        return FBEC_FAIL;
    fbe_status st = FBE_OK;
    fbe_codec *codec = fbe_interp_create(schema, NULL, &st);
    if (!codec) {
        fprintf(stderr, "fbec explain: %s\n", fbe_strerror(st));
        fbe_schema_free(schema);
        return FBEC_FAIL;
    }
    const fbe_type *type = fbe_codec_type(codec, args.type);
    int status = FBEC_FAIL;
    if (!type) {
        fprintf(stderr, "fbec explain: no struct '%s' in %s\n", args.type, args.inputs[0]);
    } else {
        FILE *out = fbec_open_output("explain", &args);
        if (out) {
            if (args.final)
                explain_final(out, interp_prog_of(type));
            else
                explain_std(out, interp_prog_of(type));
            if (fbec_close_output("explain", &args, out))
                status = FBEC_OK;
        }
    }
    fbe_codec_free(codec);
    fbe_schema_free(schema);
    return status;
}
