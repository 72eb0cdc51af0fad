/* fbec: the fbe-c schema compiler. One subcommand per output kind. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"check", cmd_check, "parse and check schemas, report every error"},
    {"ir", cmd_ir, "print the resolved IR: type numbers, layouts, defaults"},
    {"header", cmd_header, "generate the C header of a schema's package"},
    {"verify", cmd_verify, "check that a binary frame is safe to decode"},
    {"decode", cmd_decode, "print a binary frame as text"},
    {"convert", cmd_convert, "re-encode a binary frame (standard <-> final)"},
    {"aot", cmd_aot, "compile a schema to an object file (link with fbe_runtime only)"},
    {"encode", cmd_encode, "JSON -> a binary frame (standard or final)"},
    {"c", cmd_c, "generate a static C codec (same symbols as aot, C compiler only)"},
    {"compat", cmd_compat, "tell whether two versions of a schema still read each other"},
    {"explain", cmd_explain, "print the interpreter's program of a type, step by step"},
};

static void usage(FILE *out)
{
    fputs("usage: fbec COMMAND [options] [args]\n\n"
          "Fast Binary Encoding schema compiler (fbe-c).\n\ncommands:\n",
          out);
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fputs("\ncommon options: -I DIR (import search path, repeatable), -o FILE, --help\n"
          "run 'fbec COMMAND --help' for the options of a command;\n"
          "'fbec --version' (or -V) prints the version.\n",
          out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return FBEC_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return FBEC_OK;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
        printf("fbec (fbe-c) %s\n", FBE_VERSION);
        return FBEC_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "fbec: unknown command '%s'\n", cmd);
    usage(stderr);
    return FBEC_USAGE;
}
