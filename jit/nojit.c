/* Built instead of the LLVM backend when FBE_WITH_LLVM=OFF: every request for the
 * JIT gets the interpreter (or an error when native code is demanded). */
#include <stdio.h>
#include <string.h>

#include "fbe/jit.h"

bool fbe_jit_available(void)
{
    return false;
}

fbe_codec *fbe_jit_compile(const struct fbe_schema *schema, const fbe_jit_options *opts,
                           fbe_status *status)
{
    if (opts && opts->require_native) {
        if (status)
            *status = FBE_UNSUPPORTED;
        return NULL;
    }
    fbe_codec_options copts = {.max_depth = opts ? opts->max_depth : 0};
    fbe_codec *codec = fbe_interp_create(schema, &copts, status);
    /* the same refusal as with LLVM: a program's bad list fails in both builds */
    for (const char *const *n = codec && opts && opts->types ? opts->types : NULL; n && *n; n++) {
        if (!fbe_codec_type(codec, *n)) {
            fbe_codec_free(codec);
            if (status)
                *status = FBE_INVALID_ARGUMENT;
            return NULL;
        }
    }
    return codec;
}

fbe_jit_stats fbe_jit_codec_stats(const fbe_codec *codec)
{
    (void)codec;
    return (fbe_jit_stats){0};
}

bool fbe_jit_wait(const fbe_codec *codec, long timeout_ms)
{
    (void)codec;
    (void)timeout_ms;
    return true;
}

fbe_status fbe_aot_compile(const struct fbe_schema *schema, const fbe_aot_options *opts,
                           const char *path, fbe_aot_result *result)
{
    (void)schema;
    (void)opts;
    (void)path;
    if (result) {
        memset(result, 0, sizeof *result);
        snprintf(result->error, sizeof result->error,
                 "fbe-c was built without LLVM (FBE_WITH_LLVM=OFF)");
    }
    return FBE_UNSUPPORTED;
}
