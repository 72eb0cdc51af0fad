/* Shared helpers of the tests that run commands and compile C (fbec, cc): used
 * by test_header.c, test_aot.c, test_static.c and test_protocol_client.c. */
#ifndef FBE_TEST_CMD_H
#define FBE_TEST_CMD_H

#include <stdbool.h>

#include "test_util.h"

/* How generated code and the check programs are compiled. */
#define STRICT_FLAGS "-std=c11 -Wall -Wextra -pedantic -Werror"

/* Formatted into one of 8 rotating static buffers (8192 bytes each): keep a
 * string that must outlive 8 further calls in a local copy. */
char *fmt(const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Runs a command (run_command); on a different exit status prints the command
 * and its output, then fails the test. *output (if not NULL) gets the output,
 * which the caller frees. */
void expect_status(const char *cmd, int expected, char **output);

bool file_exists(const char *path);

/* Writes text to path; fails the test when the file cannot be written. */
void write_text(const char *path, const char *text);

/* Writes len bytes to path; fails the test when the file cannot be written. */
void write_bytes(const char *path, const void *data, size_t len);

/* True if `cc` is not empty and `cc --version` succeeds. */
bool have_compiler(const char *cc);

#endif
