/* Shared by the libFuzzer targets in fuzz/ (built with -DFBE_FUZZ=ON, clang). A
 * broken invariant aborts with a message, which libFuzzer reports as a crash and
 * saves the input for. */
#ifndef FBE_FUZZ_COMMON_H
#define FBE_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stddef.h>
#include <stdint.h>

#include "fbe/schema.h"

/* libFuzzer's entry points (it declares none in a header). */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                             \
    do {                                                                  \
        if (!(cond)) {                                                    \
            fprintf(stderr, "fuzz invariant broken (%s:%d): ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                 \
            fputc('\n', stderr);                                          \
            abort();                                                      \
        }                                                                 \
    } while (0)

/* Decoded memory per input: a few megabytes is all any seed needs, and a cap
 * turns an allocation out of proportion to the input into FBE_NOMEM, which
 * the targets then treat as a finding. */
#define FUZZ_ARENA_LIMIT ((size_t)64 << 20)

/* fuzz_schema: default values whose frames are larger are skipped. */
#define FUZZ_FRAME_LIMIT ((size_t)1 << 20)

/* The golden test.fbe (it imports proto.fbe): every kind of field. Its `utc`
 * and `uuid1` defaults become `epoch` and `uuid0`: a field missing from a frame
 * or a document takes its default when decoded, and a clock-dependent one would
 * make two decodes of the same input differ. */
static inline void fuzz_replace(char *text, const char *from, const char *to)
{
    size_t nf = strlen(from), nt = strlen(to);
    for (char *p = strstr(text, from); p; p = strstr(p + nt, from)) {
        memmove(p + nt, p + nf, strlen(p + nf) + 1);
        memcpy(p, to, nt);
    }
}

static inline fbe_schema *fuzz_load_schema(void)
{
    const char *path = FBE_SHARED_DIR "/golden/schemas/test.fbe";
    FILE *f = fopen(path, "rb");
    FUZZ_CHECK(f, "cannot open %s", path);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 64, f);
    fclose(f);
    FUZZ_CHECK(n > 0 && n < sizeof text - 64, "%s: unexpected size", path);
    text[n] = 0;
    fuzz_replace(text, "= utc;", "= epoch;"); /* grows by 2 bytes per use: room reserved */
    fuzz_replace(text, "= uuid1;", "= uuid0;");
    FUZZ_CHECK(!strstr(text, "utc") && !strstr(text, "uuid1"), "a clock-dependent default is left");
    fbe_schema *s = fbe_schema_load_string(path, text, strlen(text), NULL, NULL);
    FUZZ_CHECK(s, "cannot load %s", path);
    return s;
}

#endif
