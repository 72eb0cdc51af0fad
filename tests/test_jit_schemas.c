/* The JIT against the interpreter on schemas nobody wrote: each seed makes a
 * random schema (enums, flags, structs with fields of every shape the schema
 * language has, structs held by value, optionally, in arrays and collections,
 * bases, self-references through vectors and lists), compiles it eagerly and
 * runs jit_exercise.c's comparison (random values of every struct, both models,
 * then every frame with one byte changed). The golden schemas cover the
 * reference's shapes; these cover the combinations they do not. A mismatch
 * prints the schema text, so it can be kept as a regression case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbe/jit.h"
#include "jit_exercise.h"
#include "schema_gen.h"
#include "test_util.h"

/* How many schemas, values per struct: enough to meet every shape many times
 * over while the suite stays fast (each schema is one LLVM compile). */
enum { SCHEMAS = 60, VALUES = 6 };

static void test_random_schemas(void **state)
{
    (void)state;
    if (!fbe_jit_available())
        skip();
    /* FBE_TEST_SCHEMAS=N FBE_TEST_FIRST=K: seeds K .. K+N-1, for longer searches */
    const char *n_env = getenv("FBE_TEST_SCHEMAS"), *first_env = getenv("FBE_TEST_FIRST");
    uint64_t count = n_env ? strtoull(n_env, NULL, 10) : SCHEMAS;
    uint64_t first = first_env ? strtoull(first_env, NULL, 10) : 1;
    unsigned long compared = 0;
    for (uint64_t seed = first; seed < first + count; seed++) {
        char *src = gen_schema("rs", seed, 1);
        unsigned errors = 0;
        fbe_schema *schema = fbe_schema_load_string("random.fbe", src, strlen(src), NULL, &errors);
        if (!schema)
            fail_msg("seed %llu: the generated schema does not load:\n%s",
                     (unsigned long long)seed, src);
        fbe_status st = FBE_OK;
        fbe_codec *interp = fbe_interp_create(schema, NULL, &st);
        fbe_jit_options o = {.require_native = true, .mode = FBE_JIT_EAGER};
        fbe_codec *jit = fbe_jit_compile(schema, &o, &st);
        if (!interp || !jit)
            fail_msg("seed %llu: no codec (%s):\n%s", (unsigned long long)seed,
                     fbe_status_name(st), src);
        char msg[512];
        unsigned long bad = exercise(schema, jit, interp, VALUES, seed, msg, sizeof msg);
        if (bad)
            fail_msg("seed %llu: %lu mismatches, first: %s\nschema:\n%s", (unsigned long long)seed,
                     bad, msg, src);
        compared += fbe_schema_root(schema)->struct_count;
        fbe_codec_free(jit);
        fbe_codec_free(interp);
        fbe_schema_free(schema);
        free(src);
    }
    print_message("%llu random schemas, %lu structs compared\n", (unsigned long long)count,
                  compared);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_schemas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
