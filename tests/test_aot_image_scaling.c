/* IR images grow linearly with an inheritance chain (docs/aot.md, docs/static.md).
 *
 * A derived struct's IR field list is flattened, but the first struct deriving
 * from a base (its heir) appends to the base's array: a chain of N levels of F
 * fields is one array of N*F records. Both images, the LLVM constants of `fbec
 * aot` (jit/image.c) and the C initializers of `fbec c` (tools/gen_c_image.c),
 * must share it too; a copy per struct is N*N*F/2 records (and their names,
 * defaults, locations). Not timed: sizes are measured for 32, 64 and 128 levels
 * of 20 fields and may grow at most 2.3 times per doubling (copies grow about 4
 * times). */
#include "test_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "emit.h"
#include "image.h"
#include "module.h"

#define FIELDS 20
#define MAX_GROWTH 2.3

static const int levels[] = {32, 64, 128};
#define LEVEL_COUNT (sizeof levels / sizeof levels[0])

static char dir[4096];

static const char *outdir(void)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "%s/aot_image_scaling", FBE_BINARY_DIR);
        expect_status(fmt("mkdir -p '%s'", dir), 0, NULL);
    }
    return dir;
}

/* S0 <- S1 <- ... <- S<n-1>, each declaring FIELDS fields: every S<i> is its
 * base's heir, so the IR holds one array of n*FIELDS fields. */
static const char *chain_schema(int n)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/chain%d.fbe", outdir(), n);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "package chain\n");
    for (int i = 0; i < n; i++) {
        if (i)
            fprintf(f, "struct S%d : S%d {", i, i - 1);
        else
            fprintf(f, "struct S0 {");
        for (int j = 0; j < FIELDS; j++)
            fprintf(f, " int32 f%d_%d = %d;", i, j, j);
        fprintf(f, " }\n");
    }
    assert_int_equal(fclose(f), 0);
    return path;
}

static void check_growth(const char *what, const size_t *bytes)
{
    for (size_t i = 0; i < LEVEL_COUNT; i++)
        print_message("%s, %d levels of %d fields: %zu bytes\n", what, levels[i], FIELDS,
                      bytes[i]);
    for (size_t i = 1; i < LEVEL_COUNT; i++) {
        double growth = (double)bytes[i] / (double)bytes[i - 1];
        if (growth > MAX_GROWTH)
            fail_msg("%s: %d -> %d levels grows %.2fx (at most %.1fx: inherited fields are "
                     "copied per derived struct?)",
                     what, levels[i - 1], levels[i], growth, MAX_GROWTH);
    }
}

/* ---- fbec aot: the image's LLVM constants ---------------------------------------- */

/* The bytes of every global jit_image_create() adds (records, pointer tables,
 * strings) under the host target's data layout. Only the image is built: the
 * code an object would also hold is another matter (docs/jit.md). */
static size_t aot_image_bytes(const char *schema_path)
{
    fbe_schema *schema = fbe_schema_load(schema_path, NULL, NULL);
    assert_non_null(schema);
    jit_init_native();
    jit_target t = {.object = true};
    char err[512] = "";
    LLVMTargetMachineRef tm = jit_target_machine(&t, NULL, NULL, NULL, err, sizeof err);
    if (!tm)
        fail_msg("no target machine: %s", err);
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("image", ctx);
    /* jit_image_create() reads only the context, the module and these types. */
    jit_emit e;
    memset(&e, 0, sizeof e);
    e.ctx = ctx;
    e.mod = mod;
    e.i8 = LLVMInt8TypeInContext(ctx);
    e.i32 = LLVMInt32TypeInContext(ctx);
    e.i64 = LLVMInt64TypeInContext(ctx);
    e.ptr = LLVMPointerTypeInContext(ctx, 0);
    jit_image *img = jit_image_create(&e, schema, err, sizeof err);
    if (!img)
        fail_msg("jit_image_create: %s", err);
    size_t bytes = 0;
    for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g))
        bytes += LLVMABISizeOfType(dl, LLVMGlobalGetValueType(g));
    jit_image_free(img);
    LLVMDisposeModule(mod);
    LLVMContextDispose(ctx);
    LLVMDisposeTargetData(dl);
    LLVMDisposeTargetMachine(tm);
    fbe_schema_free(schema);
    return bytes;
}

static void test_aot_image_linear(void **state)
{
    (void)state;
    size_t bytes[LEVEL_COUNT];
    for (size_t i = 0; i < LEVEL_COUNT; i++)
        bytes[i] = aot_image_bytes(chain_schema(levels[i]));
    check_growth("fbec aot image", bytes);
}

/* ---- fbec c: the image's C initializers -------------------------------------------- */

/* The image part of a `fbec c` file: the definitions of IR objects (from
 * `static const fbe_ir_... = {` to the `};` that closes them) and the macros
 * that name shared arrays. The functions are left out: they are the code's
 * size, not the image's. */
static size_t c_image_bytes(const char *path)
{
    size_t len = 0;
    char *text = (char *)read_file(path, &len);
    assert_non_null(text);
    size_t bytes = 0;
    bool inside = false;
    for (char *line = text; line < text + len;) {
        char *end = memchr(line, '\n', (size_t)(text + len - line));
        size_t n = end ? (size_t)(end - line) + 1 : (size_t)(text + len - line);
        if (!inside && strncmp(line, "static const fbe_ir_", 20) == 0 && n >= 4 &&
            memcmp(line + n - (end ? 4 : 3), "= {", 3) == 0)
            inside = true;
        if (inside || strncmp(line, "#define ir_", 11) == 0)
            bytes += n;
        if (inside && strncmp(line, "};", 2) == 0)
            inside = false;
        line += n;
    }
    free(text);
    return bytes;
}

static void test_static_image_linear(void **state)
{
    (void)state;
    size_t bytes[LEVEL_COUNT];
    for (size_t i = 0; i < LEVEL_COUNT; i++) {
        char out[4300];
        snprintf(out, sizeof out, "%s/chain%d.c", outdir(), levels[i]);
        expect_status(fmt("'%s' c '%s' -o '%s'", FBEC_PATH, chain_schema(levels[i]), out), 0,
                      NULL);
        bytes[i] = c_image_bytes(out);
        remove(out); /* the code of 128 levels is large */
    }
    check_growth("fbec c image", bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aot_image_linear),
        cmocka_unit_test(test_static_image_linear),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    if (!failed)
        rm_rf(outdir());
    return failed;
}
