/* The JIT against the interpreter on schemas nobody wrote: each seed makes a
 * random schema (tests/schema_gen.c: enums, flags, structs with fields of every
 * shape the schema language has, structs held by value, optionally, in arrays
 * and collections, bases, self-references through vectors and lists), compiled
 * eagerly. Three comparisons: jit_exercise.c's (random values of every struct,
 * both models, then every frame with one byte changed); older and newer
 * writers (a schema and its next version read each other's frames); per-call
 * depth limits of 1 to 4. The golden schemas cover the reference's shapes;
 * these cover the combinations they do not. A mismatch prints the schema text,
 * so it can be kept as a regression case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbe/jit.h"
#include "jit_exercise.h"
#include "schema_gen.h"
#include "test_util.h"
#include "value_gen.h"

/* How many schemas, values per struct: enough to meet every shape many times
 * over while the suite stays fast (each schema is one LLVM compile). */
enum { SCHEMAS = 40, VALUES = 4 };

/* FBE_TEST_SCHEMAS=N FBE_TEST_FIRST=K: seeds K .. K+N-1, for longer searches. */
static uint64_t seeds(uint64_t count, uint64_t *first)
{
    const char *n_env = getenv("FBE_TEST_SCHEMAS"), *first_env = getenv("FBE_TEST_FIRST");
    *first = first_env ? strtoull(first_env, NULL, 10) : 1;
    return n_env ? strtoull(n_env, NULL, 10) : count;
}

/* A random schema and its two codecs: the interpreter and the eager JIT
 * (`parts` of the entry points native, 0: all). */
typedef struct side {
    fbe_schema *schema;
    fbe_codec *interp, *jit;
} side;

static void open_side(side *s, const char *src, uint64_t seed, unsigned parts)
{
    s->schema = fbe_schema_load_string("random.fbe", src, strlen(src), NULL, NULL);
    if (!s->schema)
        fail_msg("seed %llu: the generated schema does not load:\n%s", (unsigned long long)seed, src);
    fbe_status st = FBE_OK;
    s->interp = fbe_interp_create(s->schema, NULL, &st);
    fbe_jit_options o = {.require_native = true, .mode = FBE_JIT_EAGER, .parts = parts};
    s->jit = fbe_jit_compile(s->schema, &o, &st);
    if (!s->interp || !s->jit)
        fail_msg("seed %llu: no codec (%s):\n%s", (unsigned long long)seed, fbe_status_name(st), src);
}

static void close_side(side *s)
{
    fbe_codec_free(s->jit);
    fbe_codec_free(s->interp);
    fbe_schema_free(s->schema);
}

/* Room for a host value of st (16-byte aligned, as value_gen writes it). */
static uint8_t *host_alloc(const fbe_ir_struct *st)
{
    uint8_t *p = aligned_alloc(16, (st->host_size + 15) / 16 * 16 + 16);
    assert_non_null(p);
    return p;
}

static void test_random_schemas(void **state)
{
    (void)state;
    if (!fbe_jit_available())
        skip();
    uint64_t first, count = seeds(SCHEMAS, &first);
    unsigned long compared = 0;
    for (uint64_t seed = first; seed < first + count; seed++) {
        char *src = gen_schema("rs", seed, 1);
        side c;
        open_side(&c, src, seed, 0);
        char msg[512];
        unsigned long bad = exercise(c.schema, c.jit, c.interp, VALUES, seed, msg, sizeof msg);
        if (bad)
            fail_msg("seed %llu: %lu mismatches, first: %s\nschema:\n%s", (unsigned long long)seed,
                     bad, msg, src);
        compared += fbe_schema_root(c.schema)->struct_count;
        close_side(&c);
        free(src);
    }
    print_message("%llu random schemas, %lu structs compared\n", (unsigned long long)count,
                  compared);
}

/* Whether two decoded values of t differ: their frames in model m (written by
 * t's codec, the reader's interpreter) are not the same bytes. */
static bool values_differ(const fbe_type *t, fbe_model m, const void *a, const void *b)
{
    fbe_buffer fa, fb;
    fbe_buffer_init(&fa, NULL, NULL);
    fbe_buffer_init(&fb, NULL, NULL);
    bool differ = fbe_serialize(t, m, a, &fa) != FBE_OK || fbe_serialize(t, m, b, &fb) != FBE_OK ||
                  fa.size != fb.size || memcmp(fa.data, fb.data, fa.size) != 0;
    fbe_buffer_free(&fa);
    fbe_buffer_free(&fb);
    return differ;
}

/* Older and newer writers (wire-format versioning, standard model): version 1
 * of a random schema and version 2, whose structs that are no base have more
 * fields at the end (some with defaults). A frame each version's interpreter
 * writes is read by the other version's JIT and interpreter: the same status,
 * bytes consumed and value (re-serialized by the reader's interpreter). */
/* Values of `from`'s struct `name` read by `to`; returns the mismatches (the
 * first described in msg). */
static unsigned long cross(const side *from, const side *to, const char *name, uint64_t seed,
                           char *msg, size_t size)
{
    const fbe_type *w = fbe_codec_type(from->interp, name);
    const fbe_type *ri = fbe_codec_type(to->interp, name), *rj = fbe_codec_type(to->jit, name);
    assert_non_null(w);
    assert_non_null(ri);
    assert_non_null(rj);
    unsigned long bad = 0;
    fbe_arena gen, dec;
    fbe_arena_init(&gen, NULL, NULL);
    fbe_arena_init(&dec, NULL, NULL);
    fbe_buffer frame;
    fbe_buffer_init(&frame, NULL, NULL);
    uint8_t *value = host_alloc(w->ir), *vi = host_alloc(ri->ir), *vj = host_alloc(ri->ir);
    for (unsigned i = 0; i < VALUES; i++) {
        uint64_t s = seed * 1000 + i;
        fbe_arena_reset(&gen);
        fbe_arena_reset(&dec);
        gen_value(w->ir, value, &gen, &s, 0);
        fbe_buffer_clear(&frame);
        assert_int_equal(fbe_serialize(w, FBE_STANDARD, value, &frame), FBE_OK);
        fbe_verify_info ii, ij;
        fbe_status vsi = fbe_verify(ri, FBE_STANDARD, frame.data, frame.size, &ii);
        fbe_status vsj = fbe_verify(rj, FBE_STANDARD, frame.data, frame.size, &ij);
        fbe_decode_options o = {.arena = &dec};
        size_t ci = 0, cj = 0;
        fbe_status di = fbe_deserialize(ri, FBE_STANDARD, frame.data, frame.size, vi, &o, &ci);
        fbe_status dj = fbe_deserialize(rj, FBE_STANDARD, frame.data, frame.size, vj, &o, &cj);
        const char *what = NULL;
        if (vsi != vsj || ii.offset != ij.offset || ii.type != ij.type || ii.field != ij.field)
            what = "verify differs";
        else if (di != dj || ci != cj)
            what = "deserialize status or consumed differs";
        else if (di == FBE_OK && values_differ(ri, FBE_STANDARD, vi, vj))
            what = "decoded values differ";
        if (what && !bad++)
            snprintf(msg, size, "%s value %u: %s (verify %s/%s, deserialize %s/%s)", name, i, what,
                     fbe_status_name(vsi), fbe_status_name(vsj), fbe_status_name(di),
                     fbe_status_name(dj));
    }
    free(value);
    free(vi);
    free(vj);
    fbe_buffer_free(&frame);
    fbe_arena_free(&gen);
    fbe_arena_free(&dec);
    return bad;
}

/* Per-call depth limits (fbe_decode_options.max_depth) on random schemas:
 * frames of random values, read with limits 1 to 4 by the JIT and the
 * interpreter: the same verify report and the same deserialize status,
 * consumed size and value. Shallow limits make TOO_DEEP common, so the native
 * depth checks (and the fast path that skips them where a type cannot reach the
 * limit) meet every shape. */
static unsigned long depth_mismatches(const fbe_type *ti, const fbe_type *tj, fbe_model m,
                                      const fbe_buffer *frame, fbe_arena *dec, char *msg,
                                      size_t size, unsigned long *too_deep)
{
    unsigned long bad = 0;
    uint8_t *vi = host_alloc(ti->ir), *vj = host_alloc(ti->ir);
    for (unsigned limit = 1; limit <= 4; limit++) {
        fbe_arena_reset(dec);
        fbe_decode_options o = {.arena = dec, .max_depth = limit};
        fbe_verify_info ii, ij;
        fbe_status vsi = fbe_verify_with(ti, m, frame->data, frame->size, &ii, &o);
        fbe_status vsj = fbe_verify_with(tj, m, frame->data, frame->size, &ij, &o);
        size_t ci = 0, cj = 0;
        fbe_status di = fbe_deserialize(ti, m, frame->data, frame->size, vi, &o, &ci);
        fbe_status dj = fbe_deserialize(tj, m, frame->data, frame->size, vj, &o, &cj);
        *too_deep += vsi == FBE_TOO_DEEP;
        const char *what = NULL;
        if (vsi != vsj || ii.offset != ij.offset || ii.type != ij.type || ii.field != ij.field)
            what = "verify differs";
        else if (di != dj || ci != cj)
            what = "deserialize status or consumed differs";
        else if (di == FBE_OK && values_differ(ti, m, vi, vj))
            what = "decoded values differ";
        if (what && !bad++)
            snprintf(msg, size, "%s %s max_depth %u: %s (verify %s/%s at %zu/%zu, deserialize %s/%s)",
                     ti->ir->full_name, m ? "final" : "std", limit, what, fbe_status_name(vsi),
                     fbe_status_name(vsj), ii.offset, ij.offset, fbe_status_name(di),
                     fbe_status_name(dj));
    }
    free(vi);
    free(vj);
    return bad;
}

enum { DEPTHS = 15 };

static void test_random_depths(void **state)
{
    (void)state;
    if (!fbe_jit_available())
        skip();
    uint64_t first, count = seeds(DEPTHS, &first);
    unsigned long frames = 0, too_deep = 0;
    fbe_arena gen, dec;
    fbe_arena_init(&gen, NULL, NULL);
    fbe_arena_init(&dec, NULL, NULL);
    for (uint64_t seed = first; seed < first + count; seed++) {
        char *src = gen_schema("rs", seed, 1);
        side c;
        open_side(&c, src, seed, FBE_JIT_READ_OF(FBE_STANDARD) | FBE_JIT_READ_OF(FBE_FINAL));
        for (size_t k = 0; k < fbe_codec_type_count(c.interp); k++) {
            const fbe_type *ti = fbe_codec_type_at(c.interp, k);
            const fbe_type *tj = fbe_codec_type_of(c.jit, ti->ir);
            uint8_t *value = host_alloc(ti->ir);
            for (unsigned i = 0; i < VALUES; i++) {
                uint64_t rng = seed * 7919 + k * 131 + i;
                fbe_arena_reset(&gen);
                gen_value(ti->ir, value, &gen, &rng, 0);
                for (int m = 0; m < 2; m++) {
                    fbe_buffer frame;
                    fbe_buffer_init(&frame, NULL, NULL);
                    assert_int_equal(fbe_serialize(ti, (fbe_model)m, value, &frame), FBE_OK);
                    char msg[512];
                    if (depth_mismatches(ti, tj, (fbe_model)m, &frame, &dec, msg, sizeof msg,
                                         &too_deep))
                        fail_msg("seed %llu value %u: %s\n%s", (unsigned long long)seed, i, msg,
                                 src);
                    frames++;
                    fbe_buffer_free(&frame);
                }
            }
            free(value);
        }
        close_side(&c);
        free(src);
    }
    fbe_arena_free(&gen);
    fbe_arena_free(&dec);
    print_message("%llu schemas: %lu frames read at depths 1-4, %lu verifies TOO_DEEP\n",
                  (unsigned long long)count, frames, too_deep);
    assert_true(too_deep > 0);
}

enum { VERSIONED = 15 };

static void test_random_versions(void **state)
{
    (void)state;
    if (!fbe_jit_available())
        skip();
    uint64_t first, count = seeds(VERSIONED, &first);
    unsigned long pairs = 0, added = 0;
    for (uint64_t seed = first; seed < first + count; seed++) {
        char *old_src = gen_schema("rs", seed, 1), *new_src = gen_schema_newer("rs", seed);
        side older, newer;
        unsigned std = FBE_JIT_WRITE_OF(FBE_STANDARD) | FBE_JIT_READ_OF(FBE_STANDARD);
        open_side(&older, old_src, seed, std);
        open_side(&newer, new_src, seed, std);
        const fbe_ir_package *p = fbe_schema_root(older.schema);
        for (size_t k = 0; k < p->struct_count; k++) {
            const char *name = p->structs[k]->full_name;
            const fbe_ir_struct *n = fbe_schema_root(newer.schema)->structs[k];
            added += n->field_count - p->structs[k]->field_count;
            char msg[512];
            unsigned long bad = cross(&older, &newer, name, seed, msg, sizeof msg);
            if (bad)
                fail_msg("seed %llu, older writer: %lu mismatches, first: %s\nolder:\n%s\nnewer:\n%s",
                         (unsigned long long)seed, bad, msg, old_src, new_src);
            bad = cross(&newer, &older, name, seed, msg, sizeof msg);
            if (bad)
                fail_msg("seed %llu, newer writer: %lu mismatches, first: %s\nolder:\n%s\nnewer:\n%s",
                         (unsigned long long)seed, bad, msg, old_src, new_src);
            pairs++;
        }
        close_side(&older);
        close_side(&newer);
        free(old_src);
        free(new_src);
    }
    print_message("%llu pairs of versions: %lu structs both ways, %lu fields added\n",
                  (unsigned long long)count, pairs, added);
    assert_true(added > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_schemas),
        cmocka_unit_test(test_random_versions),
        cmocka_unit_test(test_random_depths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
