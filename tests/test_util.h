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

/* load_text that must succeed: fails the test with the diagnostics otherwise. */
fbe_schema *load_text_ok(const char *text);

/* Loads a golden schema by name ("proto", "test", ...). Fails the test on error. */
fbe_schema *load_golden(const char *name);

/* Runs a shell command, returns its exit status, captures stdout+stderr (caller
 * frees *output if not NULL). */
int run_command(const char *cmd, char **output);

/* The schema of wire-format.md 11.4 and 11.5 (package ex: inheritance, optionals,
 * every collection). */
extern const char ex_schema[];

/* Calls fn for every cases/<pkg>/<Type>/<case>.final.bin listed in
 * golden/MANIFEST.tsv, with the schema ("proto" for proto.fbe), the full type name
 * ("proto.Account"), the path relative to golden/ and the file's bytes (freed when
 * fn returns). Returns how many. */
typedef void (*final_case_fn)(const char *schema, const char *type_name, const char *path,
                              const uint8_t *data, size_t len, void *ctx);
int for_each_final_case(final_case_fn fn, void *ctx);

/* `rm -rf 'dir'` (a temporary directory of a test group): 0 on success, else -1. */
int rm_rf(const char *dir);

/* Seconds on the monotonic clock (for time budgets and reports). */
double now_seconds(void);

/* Nanoseconds on the monotonic clock, as a protocol client's clock
 * (fbe_client_options.clock; ctx unused): a step of the wall clock (an NTP
 * correction, a virtual machine resumed) cannot expire every pending request
 * at once, as fbe_timestamp_now's UTC can. */
uint64_t monotonic_ns(void *ctx);

/* A growing heap string (free t.s) and printf onto its end. */
typedef struct text_buf {
    char *s;
    size_t len, cap;
} text_buf;

void tprintf(text_buf *t, const char *format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- deterministic randomness, hashing, little-endian words ------------------------ */

#define SPLITMIX64_GAMMA UINT64_C(0x9E3779B97F4A7C15)

/* splitmix64's output function: mixes z into a well-distributed value. */
static inline uint64_t splitmix64_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* splitmix64: advances *state by the gamma and returns the next value. */
static inline uint64_t rng_next(uint64_t *state)
{
    return splitmix64_mix(*state += SPLITMIX64_GAMMA);
}

/* 64-bit FNV-1a of a NUL-terminated string. */
static inline uint64_t fnv1a(const char *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * UINT64_C(0x100000001b3);
    return h;
}

static inline uint32_t rd_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void wr_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

#endif
