/* fbec ir: print the resolved IR of a schema. */
#include <stdio.h>

#include "cli.h"

static const char usage[] =
    "usage: fbec ir [-I DIR]... SCHEMA [-o FILE]\n\n"
    "Prints the resolved IR of SCHEMA's package: enum and flags values, struct type\n"
    "numbers, and for every field its type, standard-model offset+size, C host\n"
    "offset+size, final-model size (var = variable) and default value.\n\n"
    "  -I DIR   also search DIR for imported packages\n"
    "  -o FILE  write to FILE instead of standard output\n";

int cmd_ir(int argc, char **argv)
{
    fbec_args args;
    if (!fbec_parse_args("ir", argc, argv, &args))
        return FBEC_USAGE;
    if (args.help) {
        fputs(usage, stdout);
        return FBEC_OK;
    }
    if (args.input_count != 1) {
        fprintf(stderr, "fbec ir: expected exactly one schema\nrun 'fbec ir --help' for usage\n");
        return FBEC_USAGE;
    }
    fbe_schema *schema = fbec_load(&args, args.inputs[0]);
    if (!schema)
        return FBEC_FAIL;
    FILE *out = fbec_open_output("ir", &args);
    if (!out) {
        fbe_schema_free(schema);
        return FBEC_FAIL;
    }
    fbe_ir_print(schema, out);
    bool ok = fbec_close_output("ir", &args, out);
    fbe_schema_free(schema);
    return ok ? FBEC_OK : FBEC_FAIL;
}
