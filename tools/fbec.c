/* fbec: the fbe-c schema compiler. One subcommand per output kind. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

#ifdef FBEC_LLVM_HELPER
/* This fbec does not link LLVM: loading libLLVM costs a process about 21 M
 * instructions and 40 ms (the dynamic loader relocating it), which `fbec check`,
 * `c`, `header` and the interpreter's codec commands never use. A command that
 * may use it (aot; --backend jit or auto) runs in FBEC_LLVM_HELPER instead, the
 * same program linked with LLVM and installed beside this one. */
enum { LLVM_NONE, LLVM_WANTED, LLVM_NEEDED };

static int llvm_use(int argc, char **argv)
{
    if (strcmp(argv[1], "aot") == 0)
        return LLVM_NEEDED;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        const char *v = fbec_option_value(argc, argv, &i, "--backend");
        if (v && strcmp(v, "jit") == 0)
            return LLVM_NEEDED;
        if (v && strcmp(v, "auto") == 0)
            return LLVM_WANTED;
    }
    return LLVM_NONE;
}

/* Runs the helper with this command line; returns only if it cannot (path
 * then names what it tried, errno why). */
static void exec_llvm_helper(char **argv, char *path, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", path, size - 1);
    char *slash = NULL;
    if (n > 0 && (size_t)n < size - 1) {
        path[n] = '\0';
        slash = strrchr(path, '/');
    }
    if (!slash || (size_t)(slash + 1 - path) + sizeof FBEC_LLVM_HELPER > size) {
        snprintf(path, size, "%s (beside fbec)", FBEC_LLVM_HELPER);
        errno = ENOENT;
        return;
    }
    memcpy(slash + 1, FBEC_LLVM_HELPER, sizeof FBEC_LLVM_HELPER);
    char *self = argv[0];
    argv[0] = path;
    execv(path, argv);
    int error = errno;
    argv[0] = self;
    errno = error;
}
#endif

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
#ifdef FBEC_LLVM_HELPER
    int llvm = llvm_use(argc, argv);
    if (llvm != LLVM_NONE) {
        char path[4096];
        exec_llvm_helper(argv, path, sizeof path);
        if (llvm == LLVM_NEEDED) { /* auto goes on with the interpreter */
            fprintf(stderr, "fbec %s: cannot run %s, which has the LLVM JIT and AOT compiler: %s\n",
                    cmd, path, strerror(errno));
            return FBEC_FAIL;
        }
    }
#endif
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "fbec: unknown command '%s'\n", cmd);
    usage(stderr);
    return FBEC_USAGE;
}
