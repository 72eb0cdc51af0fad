/* What fbec verify, decode and convert share: checking their options, reading the
 * input frame, building the codec and finding the type, and verifying the frame
 * with the one error message all three print.
 *
 * Every function prints its own error ("fbec CMD: ...") to stderr and returns an
 * exit status (FBEC_OK, FBEC_FAIL, FBEC_USAGE) or false. */
#ifndef FBE_TOOLS_CODEC_CLI_H
#define FBE_TOOLS_CODEC_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "fbe/codec.h"
#include "fbe/jit.h"
#include "fbe/schema.h"

/* The largest input read: a frame's size is a u32, so no valid frame is larger. */
#define FBEC_MAX_INPUT ((size_t)UINT32_MAX)

/* Name used in messages for standard input / output. */
#define FBEC_STDIN_NAME "<stdin>"

/* A whole input file in memory. */
typedef struct fbec_input {
    uint8_t *data; /* never NULL after a successful read, even when size == 0 */
    size_t size;
    const char *name; /* the path, or FBEC_STDIN_NAME */
} fbec_input;

/* Reads `path` (standard input when NULL or "-") completely. Fails with a clear
 * message when the file cannot be read or holds more than `limit` bytes. */
bool fbec_read_input(const char *cmd, const char *path, size_t limit, fbec_input *in);
void fbec_input_free(fbec_input *in);

/* Prints "fbec CMD: MESSAGE" and the --help hint; returns FBEC_USAGE. */
int fbec_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The one positional FILE of a codec command (NULL = standard input); prints a usage
 * error when there are several. */
bool fbec_single_input(const char *cmd, const fbec_args *args, const char **path);

/* Checks --schema and --type are present and --backend names a backend that can be
 * used. Returns FBEC_OK or FBEC_USAGE (after printing why). */
int fbec_check_codec_args(const char *cmd, const fbec_args *args);

/* "standard" / "final" after the option `opt`; prints a usage error otherwise. */
bool fbec_parse_model(const char *cmd, const char *opt, const char *value, fbe_model *model);
const char *fbec_model_name(fbe_model model);

/* The input model of verify and decode: --final or --from MODEL (standard when
 * neither is given). */
bool fbec_input_model(const char *cmd, const fbec_args *args, fbe_model *model);

/* A loaded schema, its codec and the type named by --type. */
typedef struct fbec_codec {
    fbe_schema *schema;
    fbe_codec *codec;
    const fbe_type *type;
} fbec_codec;

/* The codec of --backend (with --cpu, --stats) for `schema`; NULL after printing why.
 * A JIT compiles native entry points for `only_type` alone when it is not NULL
 * (a command that handles one type), for every struct otherwise. */
fbe_codec *fbec_make_codec(const char *cmd, const fbec_args *args, const fbe_schema *schema,
                           const char *only_type);

/* The --stats line of a JIT codec, on stderr. */
void fbec_print_jit_stats(const char *cmd, const fbe_codec *codec);

/* Loads --schema, creates the codec of --backend and looks up --type.
 * Returns FBEC_OK or FBEC_FAIL (after printing why); on failure nothing is held. */
int fbec_codec_open(const char *cmd, const fbec_args *args, fbec_codec *c);
void fbec_codec_close(fbec_codec *c);

/* Verifies that `in` holds exactly one valid frame of c->type in `model`. On failure
 * prints "fbec CMD: FILE: invalid frame at byte N: REASON (in pkg.Type.field)" (or
 * the number of bytes following the frame) and returns false. */
bool fbec_verify_input(const char *cmd, const fbec_codec *c, fbe_model model,
                       const fbec_input *in);

/* Deserializes the frame in `in` into `value` with `opts` and checks that it is
 * the whole input. Deserialize makes every check verify makes, with the same
 * status (docs/codec.md), so a valid frame is read once; when it fails, the
 * frame is verified to say where, exactly as fbec_verify_input does, and only a
 * frame that verifies gets fbec_decode_error's message (the budget, memory).
 * Returns false after printing the failure. */
bool fbec_deserialize_input(const char *cmd, const fbec_codec *c, fbe_model model,
                            const fbec_input *in, void *value, const fbe_decode_options *opts);

/* --max-memory: the decode budget in bytes, with an optional k, M or G suffix
 * (binary multiples); 0 when not given (the library's default: 64 x the input
 * + 1 MiB). Prints a usage error and returns false when it is malformed. */
bool fbec_max_memory(const char *cmd, const fbec_args *args, size_t *bytes);

/* "fbec CMD: NAME: cannot decode: REASON", saying what the limit was and how to
 * raise it when the reason is the decode budget (max_memory 0: the default). */
void fbec_decode_error(const char *cmd, const char *name, fbe_status st, size_t max_memory,
                       size_t input);
/* " (N bytes...; raise it with --max-memory)": what the budget was for `input` bytes. */
void fbec_budget_note(size_t max_memory, size_t input);

/* Output written as it is produced: buf is a sink (fbe_buffer_init_sink) into -o
 * (standard output when absent), opened by fbec_sink_open. */
typedef struct fbec_sink {
    FILE *file;
    fbe_buffer buf;
} fbec_sink;

bool fbec_sink_open(const char *cmd, const fbec_args *args, fbec_sink *sink);
/* Flushes (when ok) and closes; false when ok was false or writing failed, and then
 * -o is removed, as fbec_write_output would never have created it. */
bool fbec_sink_close(const char *cmd, const fbec_args *args, fbec_sink *sink, bool ok);

/* Writes `len` bytes to -o (standard output when absent). The output file is only
 * opened here, so a failed command never creates or truncates it. */
bool fbec_write_output(const char *cmd, const fbec_args *args, const void *data, size_t len);

#endif
