/* Shared helpers of the golden-vector tests (test_golden, test_mutation): the
 * MANIFEST of ../shared/golden, one interpreter codec per golden schema, file
 * access relative to the golden directory and a failure list that is printed
 * in full at the end of a test group. */
#ifndef FBE_GOLDEN_COMMON_H
#define FBE_GOLDEN_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fbe/codec.h"
#include "fbe/schema.h"

typedef enum golden_kind {
    GOLDEN_CASE,       /* cases/<package>/<Type>/<case>.* */
    GOLDEN_PROTOCOL,   /* protocol/<name>.bin + .txt */
    GOLDEN_VERSIONING  /* versioning/<from>_to_<to>_<Type>_<case>.* */
} golden_kind;

#define GOLDEN_MAX_FILES 8

typedef struct golden_row {
    golden_kind kind;
    char schema[64];  /* "proto.fbe", "protoex.fbe,proto.fbe", "proto.fbe>protoex.fbe" */
    char package[64]; /* "proto", "proto>protoex" */
    char type[64];    /* "Account", "protocol" */
    char name[96];    /* case name, or file stem for versioning / protocol */
    char files[GOLDEN_MAX_FILES][160];
    size_t file_count;
    char note[1024];
    unsigned line;    /* line number in MANIFEST.tsv */
} golden_row;

/* Parses MANIFEST.tsv; fails the test when it cannot. Caller frees *rows. */
size_t golden_manifest(golden_row **rows);

/* The file of a row whose name ends with `suffix` (".bin", ".final.bin", ".txt",
 * ".src.txt", ".std_readback.txt"); ".bin" never matches ".final.bin" and ".txt"
 * matches neither ".src.txt" nor ".std_readback.txt". NULL if the row has none. */
const char *golden_row_file(const golden_row *row, const char *suffix);

/* Reads ../shared/golden/<rel> (fails the test if missing). Caller frees. */
uint8_t *golden_read(const char *rel, size_t *len);

/* The four golden schemas, each with its own interpreter codec. */
typedef struct golden_env {
    fbe_schema *schema[4];
    fbe_codec *codec[4];
} golden_env;

void golden_env_load(golden_env *env);
void golden_env_free(golden_env *env);

/* "proto", "proto.fbe", "protoex.fbe,proto.fbe" (first entry counts) -> codec. */
fbe_codec *golden_codec(const golden_env *env, const char *schema);
const fbe_schema *golden_schema(const golden_env *env, const char *schema);

/* A growing list of failure lines. */
typedef struct golden_report {
    char **lines;
    size_t count;
    size_t cap;
} golden_report;

void golden_failf(golden_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints every line (to stderr) and frees them. Returns the count. */
size_t golden_report_flush(golden_report *r, const char *group);

/* "OK", "BAD_OFFSET", ... with the verify position and field when known. */
const char *golden_status_text(fbe_status st, const fbe_verify_info *info, char *buf,
                               size_t size);

/* Describes the first difference between two byte strings (sizes included), with
 * a hex or escaped-text excerpt around it. Returns false if they differ. */
bool golden_same_bytes(const uint8_t *want, size_t want_len, const uint8_t *got,
                       size_t got_len, bool text, char *msg, size_t msg_size);

/* ---- arenas whose chunks can be checked afterwards ------------------------------- */

typedef struct golden_range {
    uintptr_t p;
    size_t n;
} golden_range;

/* The chunks an arena obtained through golden_track_alloc, plus one extra range
 * (the input buffer when decoding with FBE_DECODE_BORROW). */
typedef struct golden_tracker {
    golden_range *r;
    size_t count, cap;
    golden_range extra;
} golden_tracker;

/* An fbe_alloc_fn; ctx is a golden_tracker (which must not move while in use). */
void *golden_track_alloc(void *ctx, void *ptr, size_t size);
void golden_tracker_free(golden_tracker *t);
bool golden_in_range(golden_range r, const void *ptr, size_t n);
/* t == NULL or n == 0: true (trusted). */
bool golden_tracked(const golden_tracker *t, const void *ptr, size_t n);

/* True if data/size is the schema default string of a field (dflt may be NULL). */
bool golden_is_default_view(const fbe_ir_value *dflt, const void *data, size_t size);

/* Checks that a host value is safe to read, by the IR: every bool and has_value
 * byte is 0 or 1, and every pointer a reader would follow (non-empty strings,
 * bytes and collections, present optional structs) lies inside the tracker's
 * ranges (or is the field's schema default string). On failure writes the path and the problem to msg. */
bool golden_value_safe(const fbe_ir_struct *type, const void *value, const golden_tracker *t,
                       char *msg, size_t msg_size);

#endif
