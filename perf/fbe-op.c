/* fbe-op: one codec operation N times on the golden proto.Account `readme` value,
 * for instruction counts under callgrind:
 *
 *   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out \
 *       build/release/perf/fbe-op --model final --op verify -n 10000
 *
 * Instructions per operation = (Ir(-n N) - Ir(-n 0)) / N with the same --model and
 * --op: setup (schema load, codec creation, reading the frames, decoding the value
 * to serialize) is identical in both runs and cancels out. Prints only a checksum
 * of the results so the compiler cannot drop the work. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbe/arena.h"
#include "fbe/buffer.h"
#include "fbe/codec.h"
#include "fbe/jit.h"
#include "fbe/schema.h"

#ifdef FBE_OP_AOT
/* proto.fbe compiled by `fbec aot` at build time (perf/aot_objects.cmake). */
fbe_codec *fbe_bench_aot_proto_codec_create(fbe_status *status);
#endif
#ifdef FBE_OP_STATIC
/* proto.fbe through `fbec c`, compiled with the build's C compiler. */
fbe_codec *fbe_proto_codec_create(fbe_status *status);
#endif

#define GOLDEN FBE_SHARED_DIR "/golden"

static const char usage[] =
    "usage: fbe-op --model standard|final --op serialize|deserialize|verify -n N\n"
    "              [--backend interp|jit|aot|static] [--cpu NAME] [--features LIST]\n"
    "              [--cache DIR] [--jit-mode eager|background] [--opt 1-3] [--stats]\n"
    "\n"
    "  --backend  interp (default); jit: fbe_jit_compile at start-up; aot: the object\n"
    "             of `fbec aot` (baseline x86-64) linked in; static: `fbec c` output\n"
    "  --cpu      the JIT's target CPU (default: this machine's). Under valgrind use\n"
    "             --cpu x86-64: valgrind cannot decode AVX-512\n"
    "  --features the JIT's CPU features, e.g. +sse4.2 (default: the CPU's)\n"
    "  --cache    the JIT's object cache directory (valgrind runs compile once)\n"
    "  --jit-mode eager (default): native code before the loop; background: the\n"
    "             loop starts interpreted and runs native code once installed\n"
    "  --opt      the JIT's optimization level (default 2)\n"
    "  --stats    print the JIT's compile timings to standard error\n";

static int die(const char *what, const char *detail)
{
    fprintf(stderr, "fbe-op: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    return 1;
}

static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0, got;
    uint8_t *data = malloc(cap);
    while (data && (got = fread(data + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *p = realloc(data, cap *= 2);
            if (!p)
                free(data);
            data = p;
        }
    }
    fclose(f);
    *size = n;
    return data;
}

/* Folds a result into the checksum: a few instructions, so it barely shows in
 * the per-operation count. */
static inline uint64_t mix(uint64_t h, uint64_t x)
{
    return h * 31 + x;
}

int main(int argc, char **argv)
{
    const char *model_name = NULL, *op = NULL, *backend = "interp";
    const char *cpu = NULL, *features = NULL, *cache = NULL, *jit_mode = "eager";
    int opt_level = 0;
    bool stats = false;
    long long n = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (strcmp(a, "--stats") == 0) {
            stats = true;
            continue;
        }
        if (!v) {
            fputs(usage, stderr);
            return 2;
        }
        if (strcmp(a, "--model") == 0)
            model_name = v;
        else if (strcmp(a, "--op") == 0)
            op = v;
        else if (strcmp(a, "--backend") == 0)
            backend = v;
        else if (strcmp(a, "--cpu") == 0)
            cpu = v;
        else if (strcmp(a, "--features") == 0)
            features = v;
        else if (strcmp(a, "--cache") == 0)
            cache = v;
        else if (strcmp(a, "--jit-mode") == 0)
            jit_mode = v;
        else if (strcmp(a, "--opt") == 0)
            opt_level = atoi(v);
        else if (strcmp(a, "-n") == 0) {
            char *end;
            errno = 0;
            n = strtoll(v, &end, 10);
            if (errno || *end || n < 0)
                n = -1;
        } else {
            fputs(usage, stderr);
            return 2;
        }
        i++;
    }
    bool is_standard = model_name && strcmp(model_name, "standard") == 0;
    bool is_final = model_name && strcmp(model_name, "final") == 0;
    bool model_ok = is_standard || is_final;
    fbe_model model = is_final ? FBE_FINAL : FBE_STANDARD;
    bool backend_ok = strcmp(backend, "interp") == 0 || strcmp(backend, "jit") == 0 ||
                      strcmp(backend, "aot") == 0 || strcmp(backend, "static") == 0;
    bool background = strcmp(jit_mode, "background") == 0;
    if (!background && strcmp(jit_mode, "eager") != 0)
        backend_ok = false;
    if (!model_ok || !op || n < 0 || !backend_ok ||
        (strcmp(op, "serialize") && strcmp(op, "deserialize") && strcmp(op, "verify"))) {
        fputs(usage, stderr);
        return 2;
    }

    fbe_schema *schema = fbe_schema_load(GOLDEN "/schemas/proto.fbe", NULL, NULL);
    if (!schema)
        return die("cannot load", GOLDEN "/schemas/proto.fbe");
    fbe_status st = FBE_OK;
    fbe_codec *codec = NULL;
    if (strcmp(backend, "interp") == 0) {
        codec = fbe_interp_create(schema, NULL, &st);
    } else if (strcmp(backend, "jit") == 0) {
        fbe_jit_options jopts = {.cpu = cpu, .features = features, .require_native = !background,
                                .cache_dir = cache, .opt_level = opt_level,
                                .mode = background ? FBE_JIT_BACKGROUND : FBE_JIT_EAGER};
        codec = fbe_jit_compile(schema, &jopts, &st);
        if (codec && stats) {
            fbe_jit_stats s = fbe_jit_codec_stats(codec);
            fprintf(stderr,
                    "fbe-op: JIT returned in %.1f ms; lower %.1f ms, optimize %.1f ms, codegen "
                    "%.1f ms; %zu native entry points, %zu pending, %zu bytes of machine code\n",
                    s.return_ms, s.lower_ms, s.optimize_ms, s.codegen_ms, s.functions, s.pending,
                    s.code_bytes);
        }
    } else if (strcmp(backend, "aot") == 0) {
#ifdef FBE_OP_AOT
        codec = fbe_bench_aot_proto_codec_create(&st);
#else
        return die("this fbe-op has no AOT object", "built without LLVM");
#endif
    } else {
#ifdef FBE_OP_STATIC
        codec = fbe_proto_codec_create(&st);
#else
        return die("this fbe-op has no static C codec", NULL);
#endif
    }
    if (!codec)
        return die(backend, fbe_strerror(st));
    const fbe_type *type = fbe_codec_type(codec, "proto.Account");
    size_t std_size, final_size;
    uint8_t *std_frame = read_all(GOLDEN "/cases/proto/Account/readme.bin", &std_size);
    uint8_t *final_frame = read_all(GOLDEN "/cases/proto/Account/readme.final.bin", &final_size);
    if (!type || !std_frame || !final_frame)
        return die("cannot read the golden readme Account", NULL);
    const uint8_t *frame = model == FBE_FINAL ? final_frame : std_frame;
    size_t frame_size = model == FBE_FINAL ? final_size : std_size;

    /* The value to serialize, and the memory deserialize writes into. */
    fbe_arena value_arena, arena;
    fbe_arena_init(&value_arena, NULL, NULL);
    fbe_arena_init(&arena, NULL, NULL);
    void *value = fbe_arena_alloc(&value_arena, type->ir->host_size);
    void *out = fbe_arena_alloc(&value_arena, type->ir->host_size);
    fbe_decode_options opts = {.arena = &value_arena};
    if (!value || !out)
        return die("cannot decode the readme Account", fbe_strerror(FBE_NOMEM));
    st = fbe_deserialize(type, FBE_STANDARD, std_frame, std_size, value, &opts, NULL);
    if (st != FBE_OK)
        return die("cannot decode the readme Account", fbe_strerror(st));
    fbe_buffer buf;
    fbe_buffer_init(&buf, NULL, NULL);
    opts.arena = &arena;

    uint64_t sum = 1;
    int status = 0;
    if (strcmp(op, "serialize") == 0) {
        for (long long i = 0; i < n; i++) {
            fbe_buffer_clear(&buf);
            if ((st = fbe_serialize(type, model, value, &buf)) != FBE_OK)
                break;
            sum = mix(sum, (uint64_t)st + buf.data[buf.size / 2]);
        }
    } else if (strcmp(op, "deserialize") == 0) {
        for (long long i = 0; i < n; i++) {
            fbe_arena_reset(&arena);
            size_t consumed = 0;
            st = fbe_deserialize(type, model, frame, frame_size, out, &opts, &consumed);
            if (st != FBE_OK)
                break;
            int32_t id; /* proto.Account.id, the first host field */
            memcpy(&id, out, sizeof id);
            sum = mix(sum, consumed + (uint64_t)id);
        }
    } else {
        for (long long i = 0; i < n; i++) {
            if ((st = fbe_verify(type, model, frame, frame_size, NULL)) != FBE_OK)
                break;
            sum = mix(sum, (uint64_t)st);
        }
    }
    if (st != FBE_OK)
        status = die(op, fbe_strerror(st));
    printf("%016llx\n", (unsigned long long)sum);

    fbe_buffer_free(&buf);
    fbe_arena_free(&arena);
    fbe_arena_free(&value_arena);
    free(std_frame);
    free(final_frame);
    fbe_codec_free(codec);
    fbe_schema_free(schema);
    return status;
}
