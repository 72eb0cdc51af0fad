/* fbe_aot_compile: the JIT's lowering written to a relocatable object with the IR
 * image (image.c), for programs that link fbe_runtime only (docs/aot.md). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "fbe/jit.h"
#include "fbe/schema.h"
#include "image.h"
#include "interp/program.h"
#include "module.h"

#ifndef FBE_VERSION
#define FBE_VERSION "unknown"
#endif

typedef struct aot_job {
    const fbe_schema *schema;
    jit_image *image;
    unsigned max_depth;
    const char *target_desc;
} aot_job;

static bool before(jit_emit *e, void *ctx, char *err, size_t size)
{
    aot_job *job = ctx;
    e->export_names = true;
    e->types_at_run_time = true;
    job->image = jit_image_create(e, job->schema, err, size);
    return job->image != NULL;
}

static bool after(jit_emit *e, void *ctx, char *err, size_t size)
{
    aot_job *job = ctx;
    return jit_image_finish(job->image, e, job->max_depth, FBE_VERSION, job->target_desc, err,
                            size);
}

/* The architecture part of a triple ("x86_64" of "x86_64-pc-linux-gnu"). */
static size_t arch_len(const char *triple)
{
    return strcspn(triple, "-");
}

static bool same_arch(const char *a, const char *b)
{
    size_t n = arch_len(a);
    return n == arch_len(b) && strncmp(a, b, n) == 0;
}

/* Writes the bytes to path.tmp.PID, then renames: never a partial object. */
static bool write_file(const char *path, const char *data, size_t size, char *err, size_t err_size)
{
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp) {
        snprintf(err, err_size, "out of memory");
        return false;
    }
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    bool ok = fd >= 0;
    for (size_t done = 0; ok && done < size;) {
        ssize_t w = write(fd, data + done, size - done);
        if (w < 0 && errno == EINTR)
            continue;
        ok = w > 0;
        if (ok)
            done += (size_t)w;
    }
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        snprintf(err, err_size, "cannot write '%s': %s", path, strerror(saved));
        if (fd >= 0)
            unlink(tmp);
    }
    free(tmp);
    return ok;
}

static fbe_status finish(fbe_aot_result *res, fbe_aot_result *out, fbe_status st)
{
    if (out)
        *out = *res;
    return st;
}

fbe_status fbe_aot_compile(const fbe_schema *schema, const fbe_aot_options *opts, const char *path,
                           fbe_aot_result *result)
{
    fbe_aot_result res;
    memset(&res, 0, sizeof res);
    if (!schema || !path || !*path) {
        snprintf(res.error, sizeof res.error, "no schema or output path");
        return finish(&res, result, FBE_INVALID_ARGUMENT);
    }
    jit_init_all_targets();
    fbe_aot_options o = opts ? *opts : (fbe_aot_options){0};

    /* The target: host triple by default, a baseline CPU unless asked. */
    char *host = LLVMGetDefaultTargetTriple();
    char *triple = o.triple ? LLVMNormalizeTargetTriple(o.triple) : LLVMCreateMessage(host);
    jit_target target = {.triple = triple, .opt_level = o.opt_level, .object = true};
    if (o.cpu && strcmp(o.cpu, "native") == 0) {
        if (!same_arch(triple, host)) {
            snprintf(res.error, sizeof res.error,
                     "--cpu native needs the build machine's architecture (%s), not %s", host,
                     triple);
            LLVMDisposeMessage(host);
            LLVMDisposeMessage(triple);
            return finish(&res, result, FBE_INVALID_ARGUMENT);
        }
        target.cpu = NULL; /* the host's, with its features unless given */
        target.features = o.features;
    } else {
        target.cpu = o.cpu ? o.cpu
                     : strncmp(triple, "x86_64", 6) == 0 ? "x86-64"
                                                        : "generic";
        target.features = o.features ? o.features : "";
    }
    LLVMDisposeMessage(host);
    char *cpu = NULL, *features = NULL, *norm = NULL;
    LLVMTargetMachineRef tm =
        jit_target_machine(&target, &norm, &cpu, &features, res.error, sizeof res.error);
    LLVMDisposeMessage(triple);
    if (!tm)
        return finish(&res, result, FBE_INVALID_ARGUMENT);
    snprintf(res.triple, sizeof res.triple, "%s", norm);
    snprintf(res.cpu, sizeof res.cpu, "%s", cpu);

    fbe_status st = FBE_OK;
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
    bool layout_ok = jit_image_check_layout(ctx, dl, res.error, sizeof res.error);
    LLVMDisposeTargetData(dl);
    size_t desc_len = strlen(norm) + strlen(cpu) + strlen(features) + 3;
    char *desc = malloc(desc_len);
    if (desc)
        snprintf(desc, desc_len, "%s %s%s%s", norm, cpu, *features ? " " : "", features);
    LLVMDisposeMessage(norm);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);

    fbe_codec_options copts = {.max_depth = o.max_depth};
    fbe_codec *codec = NULL;
    if (!layout_ok)
        st = FBE_UNSUPPORTED;
    else if (!desc)
        st = FBE_NOMEM;
    else if (!(codec = fbe_interp_create(schema, &copts, &st)))
        snprintf(res.error, sizeof res.error, "cannot build the codec: %s", fbe_strerror(st));

    aot_job job = {.schema = schema, .target_desc = desc};
    jit_module jm;
    bool built = false;
    if (codec) {
        job.max_depth = fbe_codec_max_depth(codec);
        jit_module_hooks hooks = {before, after, &job};
        built = jit_module_build(&jm, ctx, tm, codec, JIT_ALL_UNITS, o.opt_level, &hooks,
                                 res.error, sizeof res.error);
        if (!built)
            st = FBE_UNSUPPORTED;
        res.lower_ms = built ? jm.lower_ms : 0;
        res.optimize_ms = built ? jm.optimize_ms : 0;
    }
    if (built) {
        const fbe_ir_package *root = fbe_schema_root(schema);
        res.types = jm.e.count;
        for (size_t i = 0; i < jm.e.count; i++)
            for (int m = 0; m < 2; m++)
                for (int op = 0; op < 4; op++) {
                    if (!jm.e.fns[i].entry[m][op]) {
                        res.missing[m][op]++;
                        continue;
                    }
                    res.functions++;
                    if (codec->types[i].ir->package == root)
                        res.exported++;
                }
        jit_module_dispose(&jm);
        double t0 = jit_now_ms();
        char *msg = NULL;
        LLVMMemoryBufferRef buf = NULL;
        if (LLVMTargetMachineEmitToMemoryBuffer(tm, jm.mod, LLVMObjectFile, &msg, &buf)) {
            snprintf(res.error, sizeof res.error, "code generation failed: %s", msg ? msg : "");
            st = FBE_UNSUPPORTED;
        } else {
            res.object_size = LLVMGetBufferSize(buf);
            if (!write_file(path, LLVMGetBufferStart(buf), res.object_size, res.error,
                            sizeof res.error))
                st = FBE_IO;
            LLVMDisposeMemoryBuffer(buf);
        }
        if (msg)
            LLVMDisposeMessage(msg);
        res.codegen_ms = jit_now_ms() - t0;
        LLVMDisposeModule(jm.mod);
    }
    jit_image_free(job.image);
    fbe_codec_free(codec);
    free(desc);
    LLVMContextDispose(ctx);
    LLVMDisposeTargetMachine(tm);
    return finish(&res, result, st);
}
