/* Shared command-line conventions of the fbec subcommands:
 *   -I DIR (repeatable), --schema FILE, --type pkg.Type, -o FILE, -h/--help;
 *   the codec commands (verify, decode, convert) add --final, --from MODEL,
 *   --to MODEL, --format FMT, --backend NAME, --cpu NAME, --cache DIR, --jit-mode
 *   MODE and --stats.
 * Exit codes: 0 success, 1 schema/data error, 2 usage error. */
#ifndef FBE_TOOLS_CLI_H
#define FBE_TOOLS_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "fbe/schema.h"

enum { FBEC_OK = 0, FBEC_FAIL = 1, FBEC_USAGE = 2 };

#define FBEC_MAX_INCLUDES 64
#define FBEC_MAX_INPUTS 64

typedef struct fbec_args {
    const char *includes[FBEC_MAX_INCLUDES];
    size_t include_count;
    const char *inputs[FBEC_MAX_INPUTS]; /* positional arguments */
    size_t input_count;
    const char *schema;  /* --schema */
    const char *type;    /* --type */
    const char *output;  /* -o; NULL = stdout */
    bool help;
    bool final;          /* --final: the input is in the final model */
    const char *from;    /* --from standard|final (as given; checked by the command) */
    const char *to;      /* --to standard|final */
    const char *format;  /* --format text|json */
    const char *backend; /* --backend interp|jit|auto */
    const char *cpu;     /* --cpu NAME: the JIT's target CPU (default: the host's) */
    bool stats;          /* --stats: the JIT's compile timings on stderr */
    const char *cache;   /* --cache DIR: the JIT's compiled-object cache */
    bool pretty;         /* --pretty: indented JSON output */
    bool stream;         /* --stream: a protocol stream of messages (fbec decode) */
    const char *max_memory; /* --max-memory BYTES[k|M|G]: the decode budget (as given;
                               fbec_max_memory checks it) */
    unsigned jit_models; /* set by the command, not an option: the models it uses
                            (FBE_JIT_MODEL bits), the only ones --backend jit|auto
                            compiles; 0 = both */
    unsigned jit_parts;  /* the same for FBE_JIT_*_OF bits (fbe/jit.h) */
    const char *jit_mode; /* --jit-mode eager|background (as given) */
    /* The generators only (header, aot, c): */
    bool dep_md;                /* -MD: a depfile next to the output, OUTPUT.d */
    const char *depfile;        /* -MF FILE: the depfile's path */
    const char *import_headers; /* --import-headers DIR: headers of imported packages */
} fbec_args;

/* Parses argv[1..] of a subcommand. On a usage error prints
 * "fbec CMD: message" and a hint to stderr and returns false. */
bool fbec_parse_args(const char *cmd, int argc, char **argv, fbec_args *args);

/* Prints "fbec CMD: MSG ARG" and the --help hint; returns FBEC_USAGE. */
int fbec_usage(const char *cmd, const char *msg, const char *arg);

/* The value of option `name` at argv[*i]: "-I DIR", "-IDIR", "--opt VALUE",
 * "--opt=VALUE" (advancing *i past a separate value). NULL if argv[*i] is not
 * that option, "" if its value is missing. */
const char *fbec_option_value(int argc, char **argv, int *i, const char *name);

/* A decimal number in [min, max] (no sign, nothing after it). */
bool fbec_parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out);

/* The generators (fbec aot, fbec c): one schema (positional or --schema) and a
 * required -o naming `output_what`; the codec commands' options are refused.
 * Returns the schema's path, or NULL after printing a usage error. */
const char *fbec_generator_input(const char *cmd, const fbec_args *args,
                                 const char *output_what);

/* What a generator writes besides its own output, once that output is complete:
 * the header of every package the schema imports (--import-headers DIR, as
 * DIR/PACKAGE.h, each rewritten only when its text changes so that programs
 * including it are not rebuilt for nothing), then the make-style depfile (-MD,
 * -MF) naming `target` and every schema file loaded, so that a build system
 * re-runs fbec when any imported schema changes. False after printing an error. */
bool fbec_write_extras(const char *cmd, const fbec_args *args, const fbe_schema *schema,
                       const char *target);

/* The help lines of the options above, for the generators' usage texts. */
#define FBEC_EXTRAS_HELP                                                         \
    "  --import-headers DIR\n"                                                   \
    "                    also write the header of every imported package to\n"  \
    "                    DIR/PACKAGE.h (the generated header includes them)\n"  \
    "  -MD               write a make-style depfile of the schema files read\n" \
    "                    to OUTPUT.d\n"                                          \
    "  -MF FILE          write that depfile to FILE\n"

/* Loads a schema with the -I directories; diagnostics go to stderr. */
fbe_schema *fbec_load(const fbec_args *args, const char *path);

/* Opens args->output for writing (stdout when NULL). Prints an error and returns
 * NULL on failure. fbec_close_output reports write errors and returns false. */
#include <stdio.h>
FILE *fbec_open_output(const char *cmd, const fbec_args *args);
bool fbec_close_output(const char *cmd, const fbec_args *args, FILE *out);

/* Subcommands: int cmd_X(int argc, char **argv) where argv[0] is the subcommand. */
int cmd_check(int argc, char **argv);
int cmd_ir(int argc, char **argv);
int cmd_header(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_aot(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_c(int argc, char **argv);
int cmd_compat(int argc, char **argv);
int cmd_explain(int argc, char **argv);

#endif
