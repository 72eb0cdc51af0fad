/* fbec header [-I DIR]... SCHEMA [-o OUT.h]: the C header of the schema's package. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "gen_header.h"

static void header_usage(FILE *out)
{
    fputs("usage: fbec header [-I DIR]... SCHEMA [-o OUT.h] [--import-headers DIR] [-MD] [-MF FILE]\n"
          "\n"
          "Writes a C11 header declaring the host representation of the package in\n"
          "SCHEMA: enum/flags typedefs and constants, one struct per FBE struct or\n"
          "message, type-number constants, and an init function per struct applying\n"
          "the schema defaults. Every size and offset is pinned with _Static_assert.\n"
          "The header of package P is meant to be saved as P.h: it includes the\n"
          "headers of its imports as \"IMPORT.h\". See docs/host-abi.md.\n"
          "\n"
          "options:\n"
          "  -I DIR            also search DIR for imported schemas (repeatable)\n"
          "  -o FILE           write the header to FILE instead of standard output\n"
          FBEC_EXTRAS_HELP
          "  -h, --help        show this help\n"
          "\n"
          "exit status: 0 success, 1 schema error, 2 usage error\n",
          out);
}

int cmd_header(int argc, char **argv)
{
    fbec_args args = {0};
    if (!fbec_parse_args("header", argc, argv, &args))
        return FBEC_USAGE;
    if (args.help) {
        header_usage(stdout);
        return FBEC_OK;
    }
    const char *input = NULL;
    if (args.input_count == 1 && !args.schema)
        input = args.inputs[0];
    else if (args.input_count == 0 && args.schema)
        input = args.schema;
    if (!input || args.type) {
        if (args.type)
            fputs("fbec header: --type is not used by this command\n", stderr);
        else if (!args.input_count && !args.schema)
            fputs("fbec header: no schema file given\n", stderr);
        else
            fputs("fbec header: expected exactly one schema file\n", stderr);
        fputs("usage: fbec header [-I DIR]... SCHEMA [-o OUT.h]  (fbec header --help)\n",
              stderr);
        return FBEC_USAGE;
    }
    if ((args.dep_md || args.depfile) && (!args.output || strcmp(args.output, "-") == 0))
        return fbec_usage("header", "-MD and -MF need -o FILE", NULL);

    fbe_schema *schema = fbec_load(&args, input);
    if (!schema)
        return FBEC_FAIL;
    FILE *out = fbec_open_output("header", &args);
    if (!out) {
        fbe_schema_free(schema);
        return FBEC_FAIL;
    }
    bool ok = fbe_gen_header(schema, fbe_schema_root(schema), out);
    if (!fbec_close_output("header", &args, out))
        ok = false;
    if (ok)
        ok = fbec_write_extras("header", &args, schema, args.output);
    /* Never leave a truncated header behind for a build system to trust. */
    if (!ok && args.output)
        remove(args.output);
    fbe_schema_free(schema);
    return ok ? FBEC_OK : FBEC_FAIL;
}
