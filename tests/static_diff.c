/* Built and run by test_static: the static C codecs of the four golden schemas
 * (`fbec c`, compiled into this program) against the interpreter, the semantic
 * reference. For every type of every codec:
 *   - random values (tests/value_gen.c): size, serialize bytes, verify, and
 *     deserialize (copying and borrowing) of both models agree exactly; then
 *     the same value claiming huge lengths (gen_huge_views): sizes to the byte,
 *     TOO_LARGE from both;
 *   - every golden and versioning buffer of the package, every truncation (as
 *     is and with the frame size patched to the new length) and byte flips
 *     (every byte for small buffers, a fixed sample otherwise): the verify
 *     status, error offset, struct and field, the deserialize status, consumed
 *     and the decoded value (fbe_print, also after a failure) agree;
 *   - the golden buffers decoded with max_depth 1..4, with a small arena
 *     limit (NOMEM) and with small decode budgets (MEMORY_LIMIT) agree, the
 *     arena's total included;
 *   - package hc (HC_SCHEMA, written by test_static: inheritance chains, a
 *     base's second derived struct, whose fields are a copy, fixed and
 *     non-fixed levels) has no golden rows: the same mutations of its random
 *     values. Derived structs run their base's code for inherited fields, so
 *     a failure there must still name the derived struct and ITS field: every
 *     report's field is checked to be &type->fields[index] of the type the
 *     codec reports, the static image's struct of that name.
 *
 *   - package rs (RS_SCHEMA, written by test_static from tests/schema_gen.c:
 *     many random schemas in one package, every field shape) the same way.
 *
 *   static_diff GOLDEN_DIR VALUES_PER_TYPE HC_SCHEMA RS_SCHEMA
 * Prints one line per divergence (at most 40) and a summary; exits 1 if any. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbe/aot.h"
#include "fbe/codec.h"
#include "fbe/schema.h"
#include "pin_fresh.h"
#include "value_gen.h"

fbe_codec *fbe_enums_codec_create(fbe_status *status);
fbe_codec *fbe_proto_codec_create(fbe_status *status);
fbe_codec *fbe_protoex_codec_create(fbe_status *status);
fbe_codec *fbe_test_codec_create(fbe_status *status);
fbe_codec *fbe_hc_codec_create(fbe_status *status);
fbe_codec *fbe_rs_codec_create(fbe_status *status);

static const struct {
    const char *name;
    fbe_codec *(*create)(fbe_status *);
    int schema_arg; /* not a golden schema (no golden rows): its path is argv[schema_arg] */
} packages[] = {{"enums", fbe_enums_codec_create, 0},
                {"proto", fbe_proto_codec_create, 0},
                {"protoex", fbe_protoex_codec_create, 0},
                {"test", fbe_test_codec_create, 0},
                {"hc", fbe_hc_codec_create, 3},
                {"rs", fbe_rs_codec_create, 4}};

#define MAX_TRUNCATIONS 300
#define MAX_FLIPS 400

static const char *golden;
static unsigned long checks, failures;
/* verify failures in an inherited field of a struct whose fields are a copy
 * of its base's (not its base's heir), by both codecs alike */
static unsigned long copy_failures;
/* fbe_decode_options.max_memory of compare_read's decodes (0: the default budget) */
static size_t read_budget;

static void diverge(const char *type, const char *what, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#include <stdarg.h>
static void diverge(const char *type, const char *what, const char *fmt, ...)
{
    if (failures++ >= 40)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "DIVERGENCE %s %s: %s\n", type, what, buf);
}

static uint8_t *read_all(const char *rel, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", golden, rel);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    *len = b ? fread(b, 1, (size_t)n, f) : 0;
    fclose(f);
    return b;
}

/* ---- one input, both codecs ------------------------------------------------------------ */

typedef struct pair {
    const fbe_type *t[2]; /* [0] interpreter, [1] static */
    const fbe_codec *c[2];
} pair;

static char *print_value(const fbe_type *t, const void *v, size_t *n)
{
    fbe_buffer b;
    fbe_buffer_init(&b, NULL, NULL);
    if (fbe_print(t->ir, v, &b) != FBE_OK)
        fbe_buffer_append(&b, "<print failed>", 14);
    fbe_buffer_append(&b, "", 1);
    *n = b.size;
    return (char *)b.data;
}

static const char *fname(const fbe_ir_field *f)
{
    return f ? f->name : "-";
}

static const char *sname(const fbe_ir_struct *s)
{
    return s ? s->full_name : "-";
}

/* Two decodes that applied a fresh default (a body from an older writer) get
 * the same bytes there before they are compared (pin_fresh.h). */
static void pin_struct(const fbe_ir_struct *st, uint8_t *v)
{
    pin_values pv;
    memset(&pv, 0x3c, sizeof pv);
    pin_fresh(&pv, st, v);
}

/* Verify and deserialize `data` (an exact malloc'd copy, so overreads show in
 * the sanitizer build) with both codecs and compare everything. */
static void compare_read(const pair *p, fbe_model m, const uint8_t *src, size_t n,
                         unsigned max_depth, size_t arena_limit, unsigned flags, const char *label)
{
    const char *tn = p->t[0]->ir->full_name;
    uint8_t *data = malloc(n ? n : 1);
    if (n)
        memcpy(data, src, n);
    checks++;
    fbe_verify_info vi[2];
    fbe_status vs[2];
    /* verify takes the per-call depth limit as deserialize does */
    fbe_decode_options vo = {.max_depth = max_depth};
    for (int b = 0; b < 2; b++) {
        memset(&vi[b], 0x77, sizeof vi[b]);
        vs[b] = max_depth ? fbe_verify_with(p->t[b], m, data, n, &vi[b], &vo)
                          : fbe_verify(p->t[b], m, data, n, &vi[b]);
    }
    if (arena_limit == 0 &&
        (vs[0] != vs[1] || vi[0].status != vi[1].status || vi[0].offset != vi[1].offset ||
         strcmp(sname(vi[0].type), sname(vi[1].type)) != 0 ||
         strcmp(fname(vi[0].field), fname(vi[1].field)) != 0 ||
         (vi[0].field && vi[1].field && vi[0].field->index != vi[1].field->index)))
        diverge(tn, label, "%s verify: interp %s at %zu in %s.%s, static %s at %zu in %s.%s",
                m ? "final" : "std", fbe_status_name(vs[0]), vi[0].offset, sname(vi[0].type),
                fname(vi[0].field), fbe_status_name(vs[1]), vi[1].offset, sname(vi[1].type),
                fname(vi[1].field));
    /* The reported struct is the codec's own one of that name, and the field
     * is one of ITS fields (not the base's array that the code ran on). */
    for (int b = 0; b < 2 && vs[b] != FBE_OK && vi[b].type && arena_limit == 0; b++) {
        const fbe_type *own = fbe_codec_type(p->c[b], vi[b].type->full_name);
        if (!own || own->ir != vi[b].type ||
            (vi[b].field && (vi[b].field->index >= vi[b].type->field_count ||
                             vi[b].field != &vi[b].type->fields[vi[b].field->index])))
            diverge(tn, label, "%s verify (%s): %s reported %s.%s, not a field of its own struct",
                    m ? "final" : "std", b ? "static" : "interp", fbe_status_name(vs[b]),
                    sname(vi[b].type), fname(vi[b].field));
    }
    const fbe_ir_struct *rs = vi[0].type;
    if (vs[0] != FBE_OK && vs[0] == vs[1] && rs && vi[0].field && rs->base &&
        rs->fields != rs->base->fields && vi[0].field->index < rs->own_field_start &&
        vi[1].field && vi[1].field->index == vi[0].field->index)
        copy_failures++;
    fbe_arena arena[2];
    void *value[2];
    fbe_status ds[2];
    size_t consumed[2];
    char *text[2];
    size_t tl[2];
    size_t hs = p->t[0]->ir->host_size;
    for (int b = 0; b < 2; b++) {
        fbe_arena_init(&arena[b], NULL, NULL);
        arena[b].limit = arena_limit;
        value[b] = aligned_alloc(16, (hs + 15) / 16 * 16);
        memset(value[b], 0xA5, hs); /* a field deserialize forgets shows in the text */
        fbe_decode_options o = {
            .arena = &arena[b], .flags = flags, .max_depth = max_depth, .max_memory = read_budget};
        consumed[b] = 12345;
        ds[b] = fbe_deserialize(p->t[b], m, data, n, value[b], &o, &consumed[b]);
        pin_struct(p->t[b]->ir, value[b]);
        text[b] = print_value(p->t[b], value[b], &tl[b]);
    }
    if (ds[0] != ds[1] || consumed[0] != consumed[1])
        diverge(tn, label, "%s deserialize: interp %s (consumed %zu), static %s (consumed %zu)",
                m ? "final" : "std", fbe_status_name(ds[0]), consumed[0], fbe_status_name(ds[1]),
                consumed[1]);
    else if (arena[0].total != arena[1].total) /* the same allocations in the same order */
        diverge(tn, label, "%s deserialize (%s): arena total interp %zu, static %zu",
                m ? "final" : "std", fbe_status_name(ds[0]), arena[0].total, arena[1].total);
    else if (tl[0] != tl[1] || memcmp(text[0], text[1], tl[0]) != 0) {
        size_t at = 0;
        while (text[0][at] && text[0][at] == text[1][at])
            at++;
        at = at > 60 ? at - 60 : 0;
        diverge(tn, label, "%s deserialize (%s): values differ:\n  interp ...%.200s\n  static ...%.200s",
                m ? "final" : "std", fbe_status_name(ds[0]), text[0] + at, text[1] + at);
    }
    if (arena_limit == 0 && read_budget == 0 && vs[0] != ds[0] &&
        ds[0] != FBE_NOMEM)
        diverge(tn, label, "interpreter verify %s but deserialize %s (not a static backend bug)",
                fbe_status_name(vs[0]), fbe_status_name(ds[0]));
    for (int b = 0; b < 2; b++) {
        free(text[b]);
        free(value[b]);
        fbe_arena_free(&arena[b]);
    }
    free(data);
}

static void wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Every truncation (as is, and with the frame size patched), byte flips. */
static void mutate(const pair *p, fbe_model m, const uint8_t *buf, size_t n, const char *name)
{
    char label[512];
    uint8_t *copy = malloc(n + 1);
    /* every truncation of small buffers; of large ones the first and last 64
     * and an even sample of MAX_TRUNCATIONS in between (O(n^2) otherwise) */
    size_t step = n > MAX_TRUNCATIONS + 128 ? (n - 128) / MAX_TRUNCATIONS : 1;
    for (size_t len = 0; len < n; len += len < 64 || len + 64 >= n ? 1 : step) {
        snprintf(label, sizeof label, "%s truncated to %zu", name, len);
        compare_read(p, m, buf, len, 0, 0, 0, label);
        if (len >= 8) {
            memcpy(copy, buf, len);
            wr32(copy, (uint32_t)len);
            snprintf(label, sizeof label, "%s truncated to %zu, size patched", name, len);
            compare_read(p, m, copy, len, 0, 0, 0, label);
        }
    }
    static const uint8_t masks[] = {0x01, 0x80, 0xff, 0x10, 0x04};
    uint64_t seed = n * 7919u + m;
    size_t flips = n <= 200 ? n * 5 : MAX_FLIPS;
    for (size_t k = 0; k < flips; k++) {
        size_t at = n <= 200 ? k / 5 : (size_t)(rng(&seed) % n);
        uint8_t mask = n <= 200 ? masks[k % 5] : masks[rng(&seed) % 5];
        memcpy(copy, buf, n);
        copy[at] ^= mask;
        snprintf(label, sizeof label, "%s byte %zu ^= 0x%02x", name, at, mask);
        compare_read(p, m, copy, n, 0, 0, (unsigned)(k & 1) * FBE_DECODE_BORROW, label);
    }
    static const unsigned depths[] = {1, 2, 3, 4, FBE_DEFAULT_MAX_DEPTH, 1000, UINT_MAX};
    for (size_t d = 0; d < sizeof depths / sizeof *depths; d++) {
        snprintf(label, sizeof label, "%s max_depth %u", name, depths[d]);
        compare_read(p, m, buf, n, depths[d], 0, 0, label);
    }
    for (size_t lim = 4200; lim <= 4200 + 3 * 4096; lim += 4096) {
        snprintf(label, sizeof label, "%s arena limit %zu", name, lim);
        compare_read(p, m, buf, n, 0, lim, 0, label);
    }
    /* the decode budget stops both at the same allocation (MEMORY_LIMIT) */
    for (read_budget = 1; read_budget <= 3 * 4096; read_budget = read_budget * 4 + 33) {
        snprintf(label, sizeof label, "%s max_memory %zu", name, read_budget);
        compare_read(p, m, buf, n, 0, 0, 0, label);
    }
    read_budget = 0;
    free(copy);
}

/* ---- random values ----------------------------------------------------------------------- */

/* The value v made to claim huge lengths (gen_huge_views): both models' sizes
 * agree to the byte above the caps, and a frame that does not fit is
 * TOO_LARGE from both (nothing else may read such a value). */
static void huge_views(const pair *p, uint8_t *v, uint64_t *seed, const char *label)
{
    const fbe_ir_struct *ir = p->t[0]->ir;
    gen_huge_views(ir, v, seed);
    for (int m = 0; m < 2; m++) {
        checks++;
        size_t sz[2];
        fbe_status st[2] = {FBE_TOO_LARGE, FBE_TOO_LARGE};
        for (int b = 0; b < 2; b++)
            sz[b] = fbe_size(p->t[b], (fbe_model)m, v);
        if (sz[0] > UINT32_MAX) {
            for (int b = 0; b < 2; b++) {
                uint8_t mem[16];
                fbe_buffer out;
                fbe_buffer_init_fixed(&out, mem, sizeof mem);
                st[b] = fbe_serialize(p->t[b], (fbe_model)m, v, &out);
            }
        }
        if (sz[0] != sz[1] || st[0] != FBE_TOO_LARGE || st[1] != FBE_TOO_LARGE)
            diverge(ir->full_name, label, "huge views, %s size %zu/%zu serialize %s/%s",
                    m ? "final" : "std", sz[0], sz[1], fbe_status_name(st[0]),
                    fbe_status_name(st[1]));
    }
}

/* mutations: also every truncation and byte flips of the first values'
 * buffers (a package without golden rows) */
static void random_values(const pair *p, unsigned long count, bool mutations)
{
    const fbe_ir_struct *ir = p->t[0]->ir;
    size_t hs = (ir->host_size + 15) / 16 * 16;
    uint8_t *v = aligned_alloc(16, hs);
    fbe_arena gen;
    fbe_arena_init(&gen, NULL, NULL);
    for (unsigned long i = 0; i < count; i++) {
        uint64_t seed = (uint64_t)i * UINT64_C(0x9E3779B97F4A7C15) + strlen(ir->full_name) * 131 +
                        (uint8_t)ir->full_name[0];
        char label[128];
        snprintf(label, sizeof label, "random value %lu", i);
        memset(v, 0, hs);
        fbe_arena_reset(&gen);
        gen_value(ir, v, &gen, &seed, 0);
        for (int m = 0; m < 2; m++) {
            checks++;
            size_t sz[2];
            fbe_buffer out[2];
            fbe_status st[2];
            for (int b = 0; b < 2; b++) {
                sz[b] = fbe_size(p->t[b], (fbe_model)m, v);
                fbe_buffer_init(&out[b], NULL, NULL);
                st[b] = fbe_serialize(p->t[b], (fbe_model)m, v, &out[b]);
            }
            if (sz[0] != sz[1] || st[0] != st[1] || out[0].size != out[1].size ||
                (out[0].size && memcmp(out[0].data, out[1].data, out[0].size) != 0))
                diverge(ir->full_name, label, "%s size %zu/%zu serialize %s/%s %zu/%zu bytes",
                        m ? "final" : "std", sz[0], sz[1], fbe_status_name(st[0]),
                        fbe_status_name(st[1]), out[0].size, out[1].size);
            else if (sz[1] != out[1].size)
                diverge(ir->full_name, label, "size %zu but %zu bytes written", sz[1], out[1].size);
            compare_read(p, (fbe_model)m, out[0].data, out[0].size, 0, 0,
                         (unsigned)(i & 1) * FBE_DECODE_BORROW, label);
            if (mutations && i < 3 && out[0].size)
                mutate(p, (fbe_model)m, out[0].data, out[0].size, label);
            fbe_buffer_free(&out[0]);
            fbe_buffer_free(&out[1]);
        }
        huge_views(p, v, &seed, label); /* the same value, claiming huge lengths */
    }
    fbe_arena_free(&gen);
    free(v);
}

/* ---- the golden rows ----------------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static void golden_rows(fbe_codec *interp, fbe_codec *sc, const char *pkg)
{
    size_t len = 0;
    char *manifest = (char *)read_all("MANIFEST.tsv", &len);
    if (!manifest) {
        diverge(pkg, "MANIFEST.tsv", "cannot read it");
        return;
    }
    manifest = realloc(manifest, len + 1);
    manifest[len] = 0;
    for (char *line = manifest, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        if (line[0] == '#')
            continue;
        char *col[5] = {0};
        char *s = line;
        for (int c = 0; c < 5 && s; c++) {
            col[c] = s;
            s = strchr(s, '\t');
            if (s)
                *s++ = 0;
        }
        if (!col[4] || strcmp(col[2], "protocol") == 0)
            continue;
        const char *arrow = strchr(col[1], '>');
        const char *reader = arrow ? arrow + 1 : col[1];
        if (strcmp(reader, pkg) != 0)
            continue;
        char full[256];
        snprintf(full, sizeof full, "%s.%s", pkg, col[2]);
        pair p = {{fbe_codec_type(interp, full), fbe_codec_type(sc, full)}, {interp, sc}};
        if (!p.t[0] || !p.t[1]) {
            diverge(full, col[3], "type missing in a codec");
            continue;
        }
        for (char *f = strtok(col[4], ","); f; f = strtok(NULL, ",")) {
            int m = ends_with(f, ".final.bin") ? 1 : ends_with(f, ".bin") ? 0 : -1;
            if (m < 0 || (arrow && m == 1))
                continue;
            size_t n = 0;
            uint8_t *buf = read_all(f, &n);
            if (!buf) {
                diverge(full, f, "cannot read it");
                continue;
            }
            mutate(&p, (fbe_model)m, buf, n, f);
            free(buf);
        }
    }
    free(manifest);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s GOLDEN_DIR VALUES_PER_TYPE HC_SCHEMA RS_SCHEMA\n", argv[0]);
        return 2;
    }
    golden = argv[1];
    unsigned long count = strtoul(argv[2], NULL, 10);
    char schemas[1024];
    snprintf(schemas, sizeof schemas, "%s/schemas", golden);
    const char *inc[1] = {schemas};
    fbe_schema_options so = {.include_dirs = inc, .include_dir_count = 1};
    for (size_t i = 0; i < sizeof packages / sizeof *packages; i++) {
        char path[1200];
        bool generated = packages[i].schema_arg != 0;
        if (generated)
            snprintf(path, sizeof path, "%s", argv[packages[i].schema_arg]);
        else
            snprintf(path, sizeof path, "%s/%s.fbe", schemas, packages[i].name);
        fbe_schema *schema = fbe_schema_load(path, &so, NULL);
        fbe_codec *interp = schema ? fbe_interp_create(schema, NULL, NULL) : NULL;
        fbe_status st = FBE_OK;
        fbe_codec *sc = packages[i].create(&st);
        if (!interp || !sc) {
            diverge(packages[i].name, "setup", "cannot create the codecs (%s)", fbe_status_name(st));
            continue;
        }
        const fbe_aot_image *img = fbe_aot_codec_image(sc);
        unsigned long before = checks;
        for (size_t k = 0; k < img->type_count; k++) {
            pair p = {{fbe_codec_type(interp, img->types[k].ir->full_name),
                       fbe_codec_type_of(sc, img->types[k].ir)},
                      {interp, sc}};
            if (!p.t[0] || !p.t[1]) {
                diverge(img->types[k].ir->full_name, "setup", "type missing in a codec");
                continue;
            }
            random_values(&p, count, generated);
        }
        if (!generated)
            golden_rows(interp, sc, packages[i].name);
        printf("static_diff %s: %zu types, %lu checks\n", packages[i].name, img->type_count,
               checks - before);
        fbe_codec_free(sc);
        fbe_codec_free(interp);
        fbe_schema_free(schema);
    }
    printf("static_diff: %lu verify failures in the inherited fields of a copy\n", copy_failures);
    printf("static_diff: %lu checks, %lu divergences\n", checks, failures);
    return failures ? 1 : 0;
}
