/* Built and run by test_aot against an object written by `fbec aot` and the
 * runtime library ONLY (no LLVM, no compiler, no interpreter): every golden case
 * of one package through the AOT codec.
 *
 *   cc -DAOT_PACKAGE=proto -DAOT_TYPE=Account -I<dir of proto.h> aot_check.c \
 *      proto.o libfbe_runtime.a -lm
 *   ./aot_check GOLDEN_DIR
 *
 * test_static builds it unchanged against the C of `fbec c` (same symbols) with
 * -DAOT_BACKEND=FBE_BACKEND_STATIC.
 *
 * With -DAOT_INTERP (still only libfbe_runtime.a, no compiler) the golden cases go
 * through fbe_interp_create_image(&image) instead: the interpreter over the
 * image's IR; the checks of the AOT codec itself (backend, image, entry point
 * symbols) stay on the AOT codec, and damaged copies of every golden frame
 * compare the object's failures with the interpreter's (damaged_agree).
 *
 * AOT_PACKAGE.h is the header `fbec aot --header` wrote; AOT_TYPE a struct of the
 * package whose entry points are also called directly by their symbols.
 *
 * For each cases/<package>/<Type>/<case> row of MANIFEST.tsv, with every
 * operation the object has natively (the others are reported as skipped):
 * verify .bin and .final.bin, deserialize both, fbe_print == .txt exactly,
 * re-serialize == .bin and == .final.bin (and size() == their length); for the
 * `default` cases fbe_init (over the image's IR) + the pinned fields serializes
 * to exactly .bin and .final.bin. Versioning rows read by this package: the
 * other package's bytes deserialize and print as .txt (missing fields get the
 * image's defaults). Prints one line per failure and a summary; exits 1 if any
 * check failed. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#include STR(AOT_PACKAGE.h)
#include "pin_fresh.h"

#define CREATE CAT(CAT(fbe_, AOT_PACKAGE), _codec_create)
#define IMAGE CAT(CAT(fbe_, AOT_PACKAGE), _aot_image)
#define HOST_TYPE CAT(CAT(AOT_PACKAGE, _), AOT_TYPE)
#define HOST_INIT CAT(HOST_TYPE, _init)
#define ENTRY(model, op) CAT(CAT(CAT(CAT(fbe_, HOST_TYPE), _), model), CAT(_, op))
/* test_static builds this file against the C of `fbec c`, which reports itself
 * as FBE_BACKEND_STATIC. */
#ifndef AOT_BACKEND
#define AOT_BACKEND FBE_BACKEND_AOT
#endif

static const char *golden_dir;
static const char *package = STR(AOT_PACKAGE);

/* ---- checks and their tallies -------------------------------------------------------- */

enum {
    C_STD_VERIFY, C_FINAL_VERIFY, C_STD_READ, C_FINAL_READ, C_STD_WRITE, C_FINAL_WRITE,
    C_DEF_STD, C_DEF_FINAL, C_VERSIONING, C_DIRECT, C_BUDGET, C_DEPTH, C_MUTATIONS, C_COUNT
};

static const char *const check_names[C_COUNT] = {
    "std verify .bin", "final verify .final.bin", "std deserialize + print == .txt",
    "final deserialize + print == .txt", "std size + serialize == .bin",
    "final size + serialize == .final.bin", "default: fbe_init + pins, std == .bin",
    "default: fbe_init + pins, final == .final.bin", "versioning: read + print == .txt",
    "entry point symbols", "decode budget: max_memory 1 (both models)",
    "per-call depth: verify == deserialize (both models)",
    "damaged frames: object == interpreter (both models)",
};

static unsigned passed[C_COUNT], failed[C_COUNT], skipped[C_COUNT];
static unsigned long depth_too_deep; /* per-call limits that rejected a golden frame */

static void result(int check, bool ok, const char *where, const char *why)
{
    if (ok) {
        passed[check]++;
        return;
    }
    failed[check]++;
    fprintf(stderr, "aot_check %s: FAIL %s: %s: %s\n", package, check_names[check], where, why);
}

/* ---- files ----------------------------------------------------------------------------- */

static uint8_t *read_all(const char *rel, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", golden_dir, rel);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf)
            break;
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
        uint8_t *b = realloc(buf, cap);
        if (!b) {
            free(buf);
            buf = NULL;
        }
        buf = b;
    }
    fclose(f);
    *len = n;
    return buf;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The file of a manifest row ending with suffix (".bin" never matches ".final.bin",
 * ".txt" neither ".src.txt" nor ".std_readback.txt"). */
static const char *row_file(char files[][256], size_t count, const char *suffix)
{
    for (size_t i = 0; i < count; i++) {
        if (!ends_with(files[i], suffix))
            continue;
        if (strcmp(suffix, ".bin") == 0 && ends_with(files[i], ".final.bin"))
            continue;
        if (strcmp(suffix, ".txt") == 0 &&
            (ends_with(files[i], ".src.txt") || ends_with(files[i], ".std_readback.txt")))
            continue;
        return files[i];
    }
    return NULL;
}

/* ---- helpers over the codec ---------------------------------------------------------- */

static bool has(const fbe_type *t, fbe_model m, fbe_op op)
{
    return fbe_aot_has_op(t, m, op);
}

static void describe(char *out, size_t size, const char *what, fbe_status st,
                     const fbe_verify_info *info)
{
    if (info && st != FBE_OK)
        snprintf(out, size, "%s: %s at byte %zu%s%s%s%s", what, fbe_status_name(st), info->offset,
                 info->type ? " in " : "", info->type ? info->type->full_name : "",
                 info->field ? "." : "", info->field ? info->field->name : "");
    else
        snprintf(out, size, "%s: %s", what, fbe_status_name(st));
}

static bool same(const uint8_t *a, size_t na, const uint8_t *b, size_t nb, char *why, size_t size)
{
    if (na == nb && memcmp(a, b, na) == 0)
        return true;
    size_t i = 0;
    while (i < na && i < nb && a[i] == b[i])
        i++;
    snprintf(why, size, "%zu bytes, expected %zu; first difference at byte %zu", nb, na, i);
    return false;
}

static bool print_is(const fbe_ir_struct *ir, const void *v, const uint8_t *txt, size_t nt,
                     char *why, size_t size)
{
    fbe_buffer b;
    fbe_buffer_init(&b, NULL, NULL);
    fbe_status st = fbe_print(ir, v, &b);
    bool ok = st == FBE_OK && same(txt, nt, b.data, b.size, why, size);
    if (st != FBE_OK)
        snprintf(why, size, "fbe_print: %s", fbe_status_name(st));
    fbe_buffer_free(&b);
    return ok;
}

static bool encodes_to(const fbe_type *t, fbe_model m, const void *v, const uint8_t *want,
                       size_t nw, char *why, size_t size)
{
    size_t n = fbe_size(t, m, v);
    if (n != nw) {
        snprintf(why, size, "size() = %zu, expected %zu", n, nw);
        return false;
    }
    fbe_buffer b;
    fbe_buffer_init(&b, NULL, NULL);
    fbe_status st = fbe_serialize(t, m, v, &b);
    bool ok = st == FBE_OK && same(want, nw, b.data, b.size, why, size);
    if (st != FBE_OK)
        snprintf(why, size, "serialize: %s", fbe_status_name(st));
    fbe_buffer_free(&b);
    return ok;
}

typedef struct decoded {
    fbe_arena arena;
    void *value;
    bool ok;
} decoded;

static void decode(decoded *d, const fbe_type *t, fbe_model m, const uint8_t *data, size_t n,
                   char *why, size_t size)
{
    fbe_arena_init(&d->arena, NULL, NULL);
    d->value = calloc(1, t->ir->host_size ? t->ir->host_size : 1);
    fbe_decode_options o = {.arena = &d->arena};
    size_t consumed = 0;
    fbe_status st = fbe_deserialize(t, m, data, n, d->value, &o, &consumed);
    d->ok = st == FBE_OK && consumed == n;
    if (st != FBE_OK)
        describe(why, size, "deserialize", st, NULL);
    else if (consumed != n)
        snprintf(why, size, "consumed %zu of %zu bytes", consumed, n);
}

/* The decode budget (docs/codec.md, Limits): with max_memory 1 the arena cannot
 * grow, so a value that needs arena memory (`needed`: what the default took)
 * fails with MEMORY_LIMIT and one that needs none decodes; the arena stays empty. */
static bool budget_holds(const fbe_type *t, fbe_model m, const uint8_t *data, size_t n,
                         size_t needed, char *why, size_t size)
{
    fbe_arena a;
    fbe_arena_init(&a, NULL, NULL);
    void *value = calloc(1, t->ir->host_size ? t->ir->host_size : 1);
    fbe_decode_options o = {.arena = &a, .max_memory = 1};
    fbe_status st = fbe_deserialize(t, m, data, n, value, &o, NULL);
    fbe_status want = needed ? FBE_MEMORY_LIMIT : FBE_OK;
    bool ok = st == want && a.total == 0;
    if (!ok)
        snprintf(why, size, "max_memory 1: %s, arena total %zu (expected %s, 0)",
                 fbe_status_name(st), a.total, fbe_status_name(want));
    fbe_arena_free(&a);
    free(value);
    return ok;
}

static void decoded_free(decoded *d)
{
    fbe_arena_free(&d->arena);
    free(d->value);
}

/* Per-call nesting limits (docs/codec.md, Nesting depth): verify with the decode
 * options reports what deserialize reports with the same options, for limits
 * below, at and above the codec's, and the codec's own limit needs no options.
 * Counts the limits that made a golden frame too deep in *too_deep. */
static bool depth_agrees(const fbe_type *t, fbe_model m, const uint8_t *data, size_t n,
                         unsigned long *too_deep, char *why, size_t size)
{
    static const unsigned limits[] = {1, 2, 3, 0, FBE_DEFAULT_MAX_DEPTH, 1000, UINT_MAX};
    unsigned codec = fbe_codec_max_depth(t->codec);
    /* a struct field is always present in a frame of this schema: level 2 */
    bool nested = false;
    for (size_t f = 0; f < t->ir->field_count; f++)
        nested |= t->ir->fields[f].type->kind == FBE_IR_STRUCT;
    void *value = calloc(1, t->ir->host_size ? t->ir->host_size : 1);
    bool ok = true;
    for (size_t i = 0; ok && i < sizeof limits / sizeof *limits; i++) {
        fbe_arena a;
        fbe_arena_init(&a, NULL, NULL);
        fbe_decode_options o = {.arena = &a, .max_depth = limits[i]};
        fbe_verify_info info;
        memset(&info, 0xA5, sizeof info);
        fbe_status vs = fbe_verify_with(t, m, data, n, &info, &o);
        fbe_status ds = fbe_deserialize(t, m, data, n, value, &o, NULL);
        unsigned limit = limits[i] ? limits[i] : codec;
        fbe_status plain = limit == codec ? fbe_verify(t, m, data, n, NULL) : vs;
        if (vs == FBE_TOO_DEEP)
            (*too_deep)++;
        /* success leaves nothing located, in both models (codec.h) */
        bool info_ok = vs != FBE_OK || (!info.offset && !info.type && !info.field);
        if (vs != ds || plain != vs || info.status != vs || !info_ok ||
            (limit >= codec && vs != FBE_OK) || (limit == 1 && nested && vs != FBE_TOO_DEEP)) {
            snprintf(why, size,
                     "%s, max_depth %u: verify %s (without options %s, info %s), deserialize %s",
                     m == FBE_STANDARD ? "std" : "final", limits[i], fbe_status_name(vs),
                     fbe_status_name(plain), info_ok ? "as expected" : "located on success",
                     fbe_status_name(ds));
            ok = false;
        }
        fbe_arena_free(&a);
    }
    free(value);
    return ok;
}

/* ---- pinned non-deterministic defaults (golden README, "Determinism") --------------- */

static const uint64_t pin_timestamp = UINT64_C(1543145597933463000);
static fbe_uuid pin_uuid;

static void pin_struct(const fbe_ir_struct *st, uint8_t *v)
{
    pin_values pv = {.timestamp = pin_timestamp};
    memcpy(pv.uuid, &pin_uuid, 16);
    pin_fresh(&pv, st, v);
}

#ifdef AOT_INTERP
/* Damaged frames (AOT_INTERP): the object's own failure paths against the
 * interpreter's. In process the JIT hands a failing verify, and the rare cases
 * of its entry points, to the interpreter (docs/jit.md), so its differential
 * tests no longer run the native reports, statuses and zeroing; an object,
 * which has no interpreter, keeps them all, and this is where they are held to
 * the interpreter's: truncations of the frame and bytes of it inverted and
 * cleared (every place in frames up to 256 bytes, a stride in larger ones),
 * verify's status, offset, struct and field and
 * deserialize's status, consumed size and printed value (after a failure too:
 * what a partly decoded value looks like is part of the contract). */
static fbe_codec *native_codec;
static unsigned long damaged_frames;

static bool printed_alike(const fbe_ir_struct *ir, const void *a, const void *b)
{
    fbe_buffer x, y;
    fbe_buffer_init(&x, NULL, NULL);
    fbe_buffer_init(&y, NULL, NULL);
    fbe_status sx = fbe_print(ir, a, &x), sy = fbe_print(ir, b, &y);
    bool ok = sx == sy && x.size == y.size && (x.size == 0 || memcmp(x.data, y.data, x.size) == 0);
    fbe_buffer_free(&x);
    fbe_buffer_free(&y);
    return ok;
}

static bool damaged_agree(const fbe_type *interp, fbe_model m, const uint8_t *frame, size_t n,
                          char *why, size_t size)
{
    const fbe_type *native = fbe_codec_type_of(native_codec, interp->ir);
    size_t host = interp->ir->host_size ? interp->ir->host_size : 1;
    uint8_t *buf = malloc(n ? n : 1);
    void *vi = malloc(host), *vn = malloc(host);
    bool ok = buf && vi && vn;
    /* at most about 256 places per kind of damage: large frames are sampled
     * with a stride (the suite's time under the sanitizers) */
    size_t step = n / 256 + 1;
    for (size_t k = 0; ok && k < 3 * n; k += step) {
        size_t len = n;
        memcpy(buf, frame, n);
        if (k < n)
            len = k; /* truncated to k bytes */
        else if (k < 2 * n)
            buf[k - n] ^= 0xFF;
        else
            buf[k - 2 * n] = 0;
        damaged_frames++;
        fbe_verify_info ii, in;
        fbe_status si = fbe_verify(interp, m, buf, len, &ii);
        fbe_status sn = fbe_verify(native, m, buf, len, &in);
        if (si != sn || ii.status != in.status || ii.offset != in.offset || ii.type != in.type ||
            ii.field != in.field) {
            snprintf(why, size,
                     "%s frame, damage %zu: verify %s at %zu (%s.%s), interpreter %s at %zu (%s.%s)",
                     m == FBE_STANDARD ? "std" : "final", k, fbe_status_name(sn), in.offset,
                     in.type ? in.type->full_name : "-", in.field ? in.field->name : "-",
                     fbe_status_name(si), ii.offset, ii.type ? ii.type->full_name : "-",
                     ii.field ? ii.field->name : "-");
            ok = false;
            break;
        }
        fbe_arena ai, an;
        fbe_arena_init(&ai, NULL, NULL);
        fbe_arena_init(&an, NULL, NULL);
        memset(vi, 0xA5, host);
        memset(vn, 0x5A, host);
        fbe_decode_options oi = {.arena = &ai}, on = {.arena = &an};
        size_t ci = 1, cn = 2;
        si = fbe_deserialize(interp, m, buf, len, vi, &oi, &ci);
        sn = fbe_deserialize(native, m, buf, len, vn, &on, &cn);
        pin_struct(interp->ir, vi);
        pin_struct(interp->ir, vn);
        if (si != sn || ci != cn || !printed_alike(interp->ir, vi, vn)) {
            snprintf(why, size,
                     "%s frame, damage %zu: deserialize %s (consumed %zu), interpreter %s "
                     "(consumed %zu)%s",
                     m == FBE_STANDARD ? "std" : "final", k, fbe_status_name(sn), cn,
                     fbe_status_name(si), ci, si == sn && ci == cn ? ", values differ" : "");
            ok = false;
        }
        fbe_arena_free(&ai);
        fbe_arena_free(&an);
    }
    if (!buf || !vi || !vn)
        snprintf(why, size, "out of memory");
    free(buf);
    free(vi);
    free(vn);
    return ok;
}
#endif

/* ---- one case -------------------------------------------------------------------------- */

static void check_case(const fbe_codec *codec, const char *type, const char *name,
                       char files[][256], size_t nfiles)
{
    char where[256], why[512], full[160];
    snprintf(where, sizeof where, "%s.%s/%s", package, type, name);
    snprintf(full, sizeof full, "%s.%s", package, type);
    const fbe_type *t = fbe_codec_type(codec, full);
    const char *fb = row_file(files, nfiles, ".bin"), *ff = row_file(files, nfiles, ".final.bin"),
               *ft = row_file(files, nfiles, ".txt");
    size_t nb = 0, nf = 0, nt = 0;
    uint8_t *bin = fb ? read_all(fb, &nb) : NULL, *fin = ff ? read_all(ff, &nf) : NULL,
            *txt = ft ? read_all(ft, &nt) : NULL;
    if (!t || !bin || !fin || !txt) {
        result(C_STD_VERIFY, false, where, !t ? "no such type in the codec" : "missing file");
        goto out;
    }

    fbe_verify_info info;
    fbe_status st;
    if (has(t, FBE_STANDARD, FBE_OP_VERIFY)) {
        st = fbe_verify(t, FBE_STANDARD, bin, nb, &info);
        describe(why, sizeof why, "verify", st, &info);
        result(C_STD_VERIFY, st == FBE_OK, where, why);
    } else {
        skipped[C_STD_VERIFY]++;
    }
    if (has(t, FBE_FINAL, FBE_OP_VERIFY)) {
        st = fbe_verify(t, FBE_FINAL, fin, nf, &info);
        describe(why, sizeof why, "verify", st, &info);
        result(C_FINAL_VERIFY, st == FBE_OK, where, why);
    } else {
        skipped[C_FINAL_VERIFY]++;
    }

    /* A value to re-encode: decoded from either model. */
    decoded ds = {0}, df = {0};
    if (has(t, FBE_STANDARD, FBE_OP_DESERIALIZE)) {
        decode(&ds, t, FBE_STANDARD, bin, nb, why, sizeof why);
        if (ds.ok)
            ds.ok = print_is(t->ir, ds.value, txt, nt, why, sizeof why);
        result(C_STD_READ, ds.ok, where, why);
    } else {
        skipped[C_STD_READ]++;
    }
    if (has(t, FBE_FINAL, FBE_OP_DESERIALIZE)) {
        decode(&df, t, FBE_FINAL, fin, nf, why, sizeof why);
        if (df.ok)
            df.ok = print_is(t->ir, df.value, txt, nt, why, sizeof why);
        result(C_FINAL_READ, df.ok, where, why);
    } else {
        skipped[C_FINAL_READ]++;
    }
    if (ds.ok && df.ok)
        result(C_BUDGET,
               budget_holds(t, FBE_STANDARD, bin, nb, ds.arena.total, why, sizeof why) &&
                   budget_holds(t, FBE_FINAL, fin, nf, df.arena.total, why, sizeof why),
               where, why);
    else
        skipped[C_BUDGET]++;
    const void *v = ds.ok ? ds.value : df.ok ? df.value : NULL;
    for (int m = 0; m < 2; m++) {
        int check = m == 0 ? C_STD_WRITE : C_FINAL_WRITE;
        if (!v || !has(t, (fbe_model)m, FBE_OP_SIZE) || !has(t, (fbe_model)m, FBE_OP_SERIALIZE)) {
            skipped[check]++;
            continue;
        }
        /* Both decoded values must re-encode to the same bytes. */
        bool ok = encodes_to(t, (fbe_model)m, v, m == 0 ? bin : fin, m == 0 ? nb : nf, why,
                             sizeof why);
        if (ok && ds.ok && df.ok)
            ok = encodes_to(t, (fbe_model)m, df.value, m == 0 ? bin : fin, m == 0 ? nb : nf, why,
                            sizeof why);
        result(check, ok, where, why);
    }
    if (ds.value)
        decoded_free(&ds);
    if (df.value)
        decoded_free(&df);
    if (has(t, FBE_STANDARD, FBE_OP_VERIFY) && has(t, FBE_STANDARD, FBE_OP_DESERIALIZE) &&
        has(t, FBE_FINAL, FBE_OP_VERIFY) && has(t, FBE_FINAL, FBE_OP_DESERIALIZE))
        result(C_DEPTH,
               depth_agrees(t, FBE_STANDARD, bin, nb, &depth_too_deep, why, sizeof why) &&
                   depth_agrees(t, FBE_FINAL, fin, nf, &depth_too_deep, why, sizeof why),
               where, why);
    else
        skipped[C_DEPTH]++;
#ifdef AOT_INTERP
    {
        const fbe_type *nt = fbe_codec_type_of(native_codec, t->ir);
        if (nt && has(nt, FBE_STANDARD, FBE_OP_VERIFY) && has(nt, FBE_STANDARD, FBE_OP_DESERIALIZE) &&
            has(nt, FBE_FINAL, FBE_OP_VERIFY) && has(nt, FBE_FINAL, FBE_OP_DESERIALIZE))
            result(C_MUTATIONS,
                   damaged_agree(t, FBE_STANDARD, bin, nb, why, sizeof why) &&
                       damaged_agree(t, FBE_FINAL, fin, nf, why, sizeof why),
                   where, why);
        else
            skipped[C_MUTATIONS]++;
    }
#else
    skipped[C_MUTATIONS]++;
#endif

    if (strcmp(name, "default") == 0) {
        uint8_t *dv = calloc(1, t->ir->host_size ? t->ir->host_size : 1);
        fbe_init(t->ir, dv);
        pin_struct(t->ir, dv);
        for (int m = 0; m < 2; m++) {
            int check = m == 0 ? C_DEF_STD : C_DEF_FINAL;
            if (!has(t, (fbe_model)m, FBE_OP_SIZE) || !has(t, (fbe_model)m, FBE_OP_SERIALIZE)) {
                skipped[check]++;
                continue;
            }
            result(check,
                   encodes_to(t, (fbe_model)m, dv, m == 0 ? bin : fin, m == 0 ? nb : nf, why,
                              sizeof why),
                   where, why);
        }
        free(dv);
    }
out:
    free(bin);
    free(fin);
    free(txt);
}

/* versioning/<from>_to_<to>_<Type>_<case>: bytes of the other package, read here. */
static void check_versioning(const fbe_codec *codec, const char *type, const char *name,
                             char files[][256], size_t nfiles)
{
    char where[256], why[512], full[160];
    snprintf(where, sizeof where, "versioning/%s", name);
    snprintf(full, sizeof full, "%s.%s", package, type);
    const fbe_type *t = fbe_codec_type(codec, full);
    const char *fb = row_file(files, nfiles, ".bin"), *ft = row_file(files, nfiles, ".txt");
    size_t nb = 0, nt = 0;
    uint8_t *bin = fb ? read_all(fb, &nb) : NULL, *txt = ft ? read_all(ft, &nt) : NULL;
    if (!t || !bin || !txt) {
        result(C_VERSIONING, false, where, !t ? "no such type in the codec" : "missing file");
    } else if (!has(t, FBE_STANDARD, FBE_OP_DESERIALIZE)) {
        skipped[C_VERSIONING]++;
    } else {
        decoded d = {0};
        decode(&d, t, FBE_STANDARD, bin, nb, why, sizeof why);
        if (d.ok)
            d.ok = print_is(t->ir, d.value, txt, nt, why, sizeof why);
        result(C_VERSIONING, d.ok, where, why);
        decoded_free(&d);
    }
    free(bin);
    free(txt);
}

/* The exported symbols are the image's entry points, and the generated header's
 * host struct is the IR's. */
static void check_direct(const fbe_codec *codec)
{
    char full[160], why[512];
    snprintf(full, sizeof full, "%s.%s", package, STR(AOT_TYPE));
    const fbe_type *t = fbe_codec_type(codec, full);
    if (!t) {
        result(C_DIRECT, false, full, "no such type");
        return;
    }
    const fbe_aot_type *at = NULL;
    for (size_t i = 0; i < IMAGE.type_count; i++)
        if (IMAGE.types[i].ir == t->ir)
            at = &IMAGE.types[i];
    result(C_DIRECT, at != NULL, full, "not in the image's type table");
    result(C_DIRECT, sizeof(HOST_TYPE) == t->ir->host_size, full, "sizeof != IR host_size");
    if (!at)
        return;
    result(C_DIRECT, at->ops[0].size == ENTRY(std, size) && at->ops[0].serialize == ENTRY(std, serialize),
           full, "exported std entry points differ from the image's");
#ifdef AOT_ALL_OPS
    result(C_DIRECT,
           at->ops[0].verify == ENTRY(std, verify) && at->ops[0].deserialize == ENTRY(std, deserialize) &&
               at->ops[1].size == ENTRY(final, size) && at->ops[1].serialize == ENTRY(final, serialize) &&
               at->ops[1].verify == ENTRY(final, verify) &&
               at->ops[1].deserialize == ENTRY(final, deserialize),
           full, "exported entry points differ from the image's");
#endif
    /* The header's init and the image's defaults give the same bytes. */
    HOST_TYPE h;
    HOST_INIT(&h);
    void *r = calloc(1, t->ir->host_size);
    fbe_init(t->ir, r);
    fbe_buffer a, b;
    fbe_buffer_init(&a, NULL, NULL);
    fbe_buffer_init(&b, NULL, NULL);
    fbe_status s1 = ENTRY(std, serialize)(t, &h, &a);
    fbe_status s2 = fbe_serialize(t, FBE_STANDARD, r, &b);
    bool ok = s1 == FBE_OK && s2 == FBE_OK && same(b.data, b.size, a.data, a.size, why, sizeof why);
    if (s1 != FBE_OK || s2 != FBE_OK)
        snprintf(why, sizeof why, "serialize: %s / %s", fbe_status_name(s1), fbe_status_name(s2));
    result(C_DIRECT, ok, full, why);
    result(C_DIRECT, ENTRY(std, size)(t, &h) == a.size, full, "direct size() != serialized size");
    fbe_buffer_free(&a);
    fbe_buffer_free(&b);
    free(r);
}

/* Copies the next tab-separated field of *p. */
static void next_field(char **p, char *out, size_t size)
{
    char *s = *p;
    size_t n = strcspn(s, "\t");
    snprintf(out, size, "%.*s", (int)n, s);
    *p = s[n] ? s + n + 1 : s + n;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s GOLDEN_DIR\n", argv[0]);
        return 2;
    }
    golden_dir = argv[1];
    fbe_uuid_parse("e7854072-f0a5-11e8-8f69-ac220bcdd8e0", 36, &pin_uuid);

    fbe_status st = FBE_OK;
    fbe_codec *codec = CREATE(&st);
    if (!codec) {
        fprintf(stderr, "aot_check %s: codec creation failed: %s\n", package, fbe_status_name(st));
        return 1;
    }
    int bad = 0;
    if (fbe_codec_backend(codec) != AOT_BACKEND || fbe_aot_codec_image(codec) != &IMAGE ||
        strcmp(IMAGE.root->name, package) != 0) {
        fprintf(stderr, "aot_check %s: not an AOT codec of this image\n", package);
        bad = 1;
    }
    /* Ops the object lacks, as the codec reports them. */
    static const char *const op_names[4] = {"size", "serialize", "verify", "deserialize"};
    for (int m = 0; m < 2; m++)
        for (int op = 0; op < 4; op++) {
            size_t without = 0;
            for (size_t i = 0; i < IMAGE.type_count; i++)
                if (!fbe_aot_has_op(fbe_codec_type_of(codec, IMAGE.types[i].ir), (fbe_model)m,
                                    (fbe_op)op))
                    without++;
            if (without)
                printf("aot_check %s: no native %s %s in %zu of %zu types: skipped\n", package,
                       m == 0 ? "std" : "final", op_names[op], without, IMAGE.type_count);
        }
    check_direct(codec);
#ifdef AOT_INTERP
    fbe_codec *native = codec;
    native_codec = native;
    codec = fbe_interp_create_image(&IMAGE, NULL, &st);
    if (!codec) {
        fprintf(stderr, "aot_check %s: fbe_interp_create_image failed: %s\n", package,
                fbe_status_name(st));
        return 1;
    }
    if (fbe_codec_backend(codec) != FBE_BACKEND_INTERP || fbe_aot_codec_image(codec) ||
        fbe_codec_max_depth(codec) != fbe_codec_max_depth(native) ||
        fbe_codec_type_count(codec) != IMAGE.type_count) {
        fprintf(stderr, "aot_check %s: not an interpreter codec of this image\n", package);
        bad = 1;
    }
    for (size_t i = 0; i < fbe_codec_type_count(codec); i++)
        if (fbe_codec_type_at(codec, i)->ir != IMAGE.types[i].ir) {
            fprintf(stderr, "aot_check %s: type %zu is not the image's\n", package, i);
            bad = 1;
        }
    printf("aot_check %s: the interpreter over the image\n", package);
#endif

    size_t len = 0;
    char *manifest = (char *)read_all("MANIFEST.tsv", &len);
    if (!manifest) {
        fprintf(stderr, "aot_check: cannot read %s/MANIFEST.tsv\n", golden_dir);
        return 1;
    }
    manifest = realloc(manifest, len + 1);
    manifest[len] = 0;
    size_t rows = 0;
    for (char *line = manifest, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        if (line[0] == '#' || !line[0])
            continue;
        char schema[128], pkg[128], type[128], name[256], filelist[2048];
        char *p = line;
        next_field(&p, schema, sizeof schema);
        next_field(&p, pkg, sizeof pkg);
        next_field(&p, type, sizeof type);
        next_field(&p, name, sizeof name);
        next_field(&p, filelist, sizeof filelist);
        char files[8][256];
        size_t nfiles = 0;
        for (char *f = strtok(filelist, ","); f && nfiles < 8; f = strtok(NULL, ","))
            snprintf(files[nfiles++], sizeof files[0], "%s", f);
        const char *arrow = strchr(pkg, '>');
        if (strcmp(type, "protocol") == 0) {
            continue;
        } else if (!arrow && strcmp(pkg, package) == 0) {
            check_case(codec, type, name, files, nfiles);
            rows++;
        } else if (arrow && strcmp(arrow + 1, package) == 0) {
            check_versioning(codec, type, name, files, nfiles);
            rows++;
        }
    }
    free(manifest);
    fbe_codec_free(codec);
#ifdef AOT_INTERP
    fbe_codec_free(native);
#endif

    unsigned total_failed = 0;
    printf("aot_check %s: %zu golden rows\n", package, rows);
    for (int c = 0; c < C_COUNT; c++) {
        printf("  %-48s %u passed, %u failed, %u skipped\n", check_names[c], passed[c], failed[c],
               skipped[c]);
        total_failed += failed[c];
    }
    printf("  per-call depth limits that rejected a frame: %lu\n", depth_too_deep);
#ifdef AOT_INTERP
    printf("  damaged frames compared: %lu\n", damaged_frames);
#endif
    return bad || total_failed ? 1 : 0;
}
