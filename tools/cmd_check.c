/* fbec check: load every schema given and report all errors. */
#include <stdio.h>

#include "cli.h"

static const char usage[] =
    "usage: fbec check [-I DIR]... SCHEMA...\n\n"
    "Parses and checks each schema and the packages it imports. Errors are printed as\n"
    "file:line:col: error: message, with the source line and a caret.\n\n"
    "  -I DIR   also search DIR for imported packages (after the importing file's folder)\n"
    "exit status: 0 all valid, 1 schema errors, 2 usage error\n";

int cmd_check(int argc, char **argv)
{
    fbec_args args;
    if (!fbec_parse_args("check", argc, argv, &args))
        return FBEC_USAGE;
    if (args.help) {
        fputs(usage, stdout);
        return FBEC_OK;
    }
    if (args.input_count == 0) {
        fputs("fbec check: no schema given\nrun 'fbec check --help' for usage\n", stderr);
        return FBEC_USAGE;
    }
    int status = FBEC_OK;
    for (size_t i = 0; i < args.input_count; i++) {
        fbe_schema *schema = fbec_load(&args, args.inputs[i]);
        if (!schema)
            status = FBEC_FAIL;
        fbe_schema_free(schema);
    }
    return status;
}
