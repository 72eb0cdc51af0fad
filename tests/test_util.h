/* Shared helpers for the cmocka tests. */
#ifndef FBE_TEST_UTIL_H
#define FBE_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fbe/schema.h"

/* 1 in a build with AddressSanitizer (gcc or clang): slow tests sample less. */
#if defined(__SANITIZE_ADDRESS__)
#define FBE_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FBE_TEST_SANITIZED 1
#endif
#endif
#ifndef FBE_TEST_SANITIZED
#define FBE_TEST_SANITIZED 0
#endif

/* Absolute path of a file under ../shared (aborts the test run loudly when the
 * shared data is missing). Returned string is static storage, overwritten by the
 * next call. */
const char *shared_path(const char *relative);

/* Reads a whole file; aborts the test on failure. Caller frees. */
uint8_t *read_file(const char *path, size_t *len);

/* Collects diagnostics as text lines "file:line:col: error: message\n" for exact
 * comparison (file is reduced to its base name). */
typedef struct diag_capture {
    char text[16384];
    size_t len;
    unsigned count;
} diag_capture;

void diag_capture_sink(void *ctx, const fbe_diag *diag);

/* Loads schema text from memory as "t.fbe"; returns the schema (or NULL) and fills
 * the capture. */
fbe_schema *load_text(const char *text, diag_capture *cap);

/* Loads a golden schema by name ("proto", "test", ...). Fails the test on error. */
fbe_schema *load_golden(const char *name);

/* Runs a shell command, returns its exit status, captures stdout+stderr (caller
 * frees *output if not NULL). */
int run_command(const char *cmd, char **output);

#endif
