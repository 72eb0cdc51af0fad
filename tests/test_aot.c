/* Ahead-of-time objects (`fbec aot`, docs/aot.md):
 *   - the IR image's layout equals the C compiler's (jit/image.c, per data layout);
 *   - runtime AOT codecs (runtime/codec.c) from hand-made images: missing entry
 *     points, ABI checks, lookups;
 *   - every golden schema compiled to an object, linked with fbe_runtime ONLY and
 *     run through every golden case of its package (tests/aot_check.c), and its
 *     image compared member by member with the compiler's IR
 *     (tests/aot_image_check.c);
 *   - the interpreter over each image (fbe_interp_create_image), linked with
 *     fbe_runtime but not the compiler, through the same cases;
 *   - objects of packages that import each other link into one program;
 *   - cross-compilation, determinism and the command line. */
#include "test_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>

#include "fbe/aot.h"
#include "fbe/jit.h"
#include "image.h"
#include "module.h"
#include "schema_gen.h"

#ifndef FBE_AOT_CC
#define FBE_AOT_CC "cc"
#endif
#ifndef FBE_AOT_LINK_FLAGS
#define FBE_AOT_LINK_FLAGS ""
#endif

/* package, a struct of it for the direct symbol checks */
static const char *const golden[][2] = {
    {"proto", "Account"}, {"protoex", "Account"}, {"test", "StructBytes"}, {"enums", "Enums"}};
#define GOLDEN_COUNT (sizeof golden / sizeof golden[0])

static char out_dir[4096];

static const char *outdir(void)
{
    if (!out_dir[0])
        snprintf(out_dir, sizeof out_dir, "%s/aot_test", FBE_BINARY_DIR);
    return out_dir;
}

/* A local copy of a formatted string (fmt's 8 buffers rotate). */
#define keep(var, ...)                                                                    \
    char var[8192];                                                                       \
    snprintf(var, sizeof var, __VA_ARGS__)

static const char *schemas_dir(void)
{
    static char dir[4096];
    if (!dir[0])
        snprintf(dir, sizeof dir, "%s", shared_path("golden/schemas"));
    return dir;
}

/* ---- the image layout ---------------------------------------------------------------- */

static void check_layout_for(const char *triple, bool expect_ok)
{
    jit_target t = {.triple = triple, .cpu = "generic", .features = "", .object = true};
    char err[512] = "";
    LLVMTargetMachineRef tm = jit_target_machine(&t, NULL, NULL, NULL, err, sizeof err);
    if (!tm) {
        print_message("SKIPPED: no LLVM target for %s (%s)\n", triple, err);
        return;
    }
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
    bool ok = jit_image_check_layout(ctx, dl, err, sizeof err);
    if (ok != expect_ok)
        print_message("%s: %s\n", triple, err);
    assert_int_equal(ok, expect_ok);
    if (!ok)
        assert_non_null(strstr(err, "64-bit"));
    LLVMDisposeTargetData(dl);
    LLVMContextDispose(ctx);
    LLVMDisposeTargetMachine(tm);
}

static void test_image_layout(void **state)
{
    (void)state;
    jit_init_all_targets();
    char *host = LLVMGetDefaultTargetTriple();
    check_layout_for(host, true);
    LLVMDisposeMessage(host);
    /* Other LP64 little-endian targets lay the IR out the same way. */
    check_layout_for("aarch64-unknown-linux-gnu", true);
    check_layout_for("riscv64-unknown-linux-gnu", true);
    /* 32-bit and big-endian ones are refused. */
    check_layout_for("i686-unknown-linux-gnu", false);
    check_layout_for("powerpc64-unknown-linux-gnu", false);
}

/* ---- runtime AOT codecs from hand-made images ------------------------------------------ */

static size_t fake_size(const fbe_type *t, const void *v)
{
    (void)t;
    (void)v;
    return 12345;
}

static void test_runtime_codec(void **state)
{
    (void)state;
    fbe_status st = FBE_OK;
    assert_null(fbe_aot_codec_create(NULL, &st));
    assert_int_equal(st, FBE_INVALID_ARGUMENT);

    fbe_schema *schema = load_golden("proto");
    const fbe_ir_package *root = fbe_schema_root(schema);
    fbe_aot_type types[2] = {{.ir = root->structs[0]}, {.ir = root->structs[2]}};
    types[1].ops[FBE_FINAL].size = fake_size;
    const fbe_ir_package *packages[1] = {root};
    fbe_aot_image img = {
        .abi_version = FBE_AOT_ABI_VERSION, .layout_check = FBE_AOT_LAYOUT_CHECK,
        .max_depth = 9, .root = root, .packages = packages, .package_count = 1,
        .types = types, .type_count = 2,
    };
    fbe_aot_image old = img;
    old.abi_version = 0;
    assert_null(fbe_aot_codec_create(&old, &st));
    assert_int_equal(st, FBE_UNSUPPORTED);
    old = img;
    old.layout_check ^= 1;
    assert_null(fbe_aot_codec_create(&old, &st));
    assert_int_equal(st, FBE_UNSUPPORTED);

    fbe_codec *codec = fbe_aot_codec_create(&img, &st);
    assert_non_null(codec);
    assert_int_equal(st, FBE_OK);
    assert_int_equal(fbe_codec_backend(codec), FBE_BACKEND_AOT);
    assert_string_equal(fbe_backend_name(fbe_codec_backend(codec)), "aot");
    assert_int_equal(fbe_codec_max_depth(codec), 9);
    assert_ptr_equal(fbe_aot_codec_image(codec), &img);
    const fbe_type *order = fbe_codec_type(codec, "proto.Order");
    const fbe_type *account = fbe_codec_type(codec, "Account");
    assert_non_null(order);
    assert_non_null(account);
    assert_null(fbe_codec_type(codec, "proto.Balance")); /* not in this image */
    assert_ptr_equal(fbe_codec_type_of(codec, root->structs[2]), account);
    assert_ptr_equal(order->codec, codec);

    /* Entry points the object does not have are the interpreter's (over the
     * image's IR): the same bytes, verdicts and values as its own codec. */
    fbe_codec *ref = fbe_interp_create_image(&img, NULL, &st);
    assert_non_null(ref);
    const fbe_type *ref_order = fbe_codec_type(ref, "proto.Order");
    void *value = calloc(1, order->ir->host_size), *back = calloc(1, order->ir->host_size);
    assert_non_null(value);
    assert_non_null(back);
    fbe_init(order->ir, value);
    fbe_buffer buf, want;
    fbe_buffer_init(&buf, NULL, NULL);
    fbe_buffer_init(&want, NULL, NULL);
    assert_false(fbe_aot_has_op(order, FBE_STANDARD, FBE_OP_SERIALIZE));
    assert_int_equal(fbe_size(order, FBE_STANDARD, value), fbe_size(ref_order, FBE_STANDARD, value));
    assert_int_equal(fbe_serialize(order, FBE_STANDARD, value, &buf), FBE_OK);
    assert_int_equal(fbe_serialize(ref_order, FBE_STANDARD, value, &want), FBE_OK);
    assert_int_equal(buf.size, want.size);
    assert_memory_equal(buf.data, want.data, want.size);
    fbe_verify_info info = {0};
    assert_int_equal(fbe_verify(order, FBE_STANDARD, buf.data, buf.size, &info), FBE_OK);
    uint8_t bytes[64] = {0};
    fbe_verify_info want_info = {0};
    assert_int_equal(fbe_verify(ref_order, FBE_FINAL, bytes, sizeof bytes, &want_info),
                     FBE_BAD_FRAME_SIZE);
    assert_int_equal(fbe_verify(order, FBE_FINAL, bytes, sizeof bytes, &info), FBE_BAD_FRAME_SIZE);
    assert_int_equal(info.status, want_info.status);
    assert_int_equal(info.offset, want_info.offset);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options o = {.arena = &arena};
    size_t consumed = 99;
    assert_int_equal(fbe_deserialize(order, FBE_STANDARD, buf.data, buf.size, back, &o, &consumed),
                     FBE_OK);
    assert_int_equal(consumed, buf.size);
    assert_true(fbe_value_equal(order->ir, value, back));
    free(value);
    free(back);
    fbe_buffer_free(&want);
    fbe_codec_free(ref);
    /* ...and the ones it has are called. */
    assert_true(fbe_aot_has_op(account, FBE_FINAL, FBE_OP_SIZE));
    assert_false(fbe_aot_has_op(account, FBE_FINAL, FBE_OP_SERIALIZE));
    assert_int_equal(fbe_size(account, FBE_FINAL, bytes), 12345);
    fbe_arena_free(&arena);
    fbe_buffer_free(&buf);
    fbe_codec_free(codec);

    /* The interpreter over the same image: every struct of its packages, the
     * image's limit unless the options set one, the same ABI checks. */
    assert_null(fbe_interp_create_image(NULL, NULL, &st));
    assert_int_equal(st, FBE_INVALID_ARGUMENT);
    old = img;
    old.abi_version = 0;
    assert_null(fbe_interp_create_image(&old, NULL, &st));
    assert_int_equal(st, FBE_UNSUPPORTED);
    old = img;
    old.layout_check ^= 1;
    assert_null(fbe_interp_create_image(&old, NULL, &st));
    assert_int_equal(st, FBE_UNSUPPORTED);
    fbe_codec *over = fbe_interp_create_image(&img, NULL, &st);
    assert_non_null(over);
    assert_int_equal(st, FBE_OK);
    assert_int_equal(fbe_codec_backend(over), FBE_BACKEND_INTERP);
    assert_null(fbe_aot_codec_image(over));
    assert_int_equal(fbe_codec_max_depth(over), 9);
    assert_int_equal(fbe_codec_type_count(over), root->struct_count);
    assert_true(fbe_aot_has_op(fbe_codec_type(over, "proto.Order"), FBE_STANDARD, FBE_OP_SERIALIZE));
    fbe_codec_free(over);
    fbe_codec_options three = {.max_depth = 3};
    over = fbe_interp_create_image(&img, &three, &st);
    assert_non_null(over);
    assert_int_equal(fbe_codec_max_depth(over), 3);
    fbe_codec_free(over);
    old = img;
    old.max_depth = 0;
    over = fbe_interp_create_image(&old, NULL, &st);
    assert_int_equal(fbe_codec_max_depth(over), FBE_DEFAULT_MAX_DEPTH);
    fbe_codec_free(over);

    /* Other backends have every operation. */
    fbe_codec *interp = fbe_interp_create(schema, NULL, NULL);
    assert_non_null(interp);
    assert_null(fbe_aot_codec_image(interp));
    assert_true(fbe_aot_has_op(fbe_codec_type(interp, "proto.Order"), FBE_FINAL, FBE_OP_VERIFY));
    fbe_codec_free(interp);
    fbe_schema_free(schema);
}

/* ---- golden objects -------------------------------------------------------------------- */

static bool all_ops[GOLDEN_COUNT];

/* Compiles every golden schema once (with its header). */
static void ensure_objects(void)
{
    static bool done;
    if (done)
        return;
    expect_status(fmt("mkdir -p '%s'", outdir()), 0, NULL);
    for (size_t i = 0; i < GOLDEN_COUNT; i++) {
        keep(o, "%s/%s.o", outdir(), golden[i][0]);
        keep(h, "%s/%s.h", outdir(), golden[i][0]);
        remove(o);
        remove(h);
        char *out = NULL;
        expect_status(fmt("'%s' aot -I '%s' '%s/%s.fbe' -o '%s' --header '%s' --stats", FBEC_PATH,
                          schemas_dir(), schemas_dir(), golden[i][0], o, h),
                      0, &out);
        print_message("%s", out);
        all_ops[i] = strstr(out, "no native code") == NULL;
        free(out);
        assert_true(file_exists(o));
        assert_true(file_exists(h));
    }
    done = true;
}

/* cc ... -o exe; the sanitizer flags of the build when it has them. */
static const char *link_cmd(const char *src, const char *defs, const char *objs, const char *exe)
{
    return fmt("%s " STRICT_FLAGS " %s %s -I'%s' -I'%s/include' '%s' %s -lm -o '%s'", FBE_AOT_CC,
               FBE_AOT_LINK_FLAGS, defs, outdir(), FBE_SOURCE_DIR, src, objs, exe);
}

static void test_golden_objects(void **state)
{
    (void)state;
    ensure_objects();
    for (size_t i = 0; i < GOLDEN_COUNT; i++) {
        const char *pkg = golden[i][0];
        keep(exe, "%s/aot_check_%s", outdir(), pkg);
        remove(exe);
        /* The object and the runtime library, nothing else. */
        expect_status(link_cmd(fmt("%s/tests/aot_check.c", FBE_SOURCE_DIR),
                               fmt("-DAOT_PACKAGE=%s -DAOT_TYPE=%s%s", pkg, golden[i][1],
                                   all_ops[i] ? " -DAOT_ALL_OPS" : ""),
                               fmt("'%s/%s.o' '%s'", outdir(), pkg, FBE_RUNTIME_LIB), exe),
                      0, NULL);
        char *syms = NULL;
        expect_status(fmt("nm '%s'", exe), 0, &syms);
        /* the runtime's interpreter, which native code hands frames over to */
        assert_non_null(strstr(syms, "fbe_interp_std_deserialize"));
        assert_null(strstr(syms, "LLVM"));         /* no LLVM */
        assert_null(strstr(syms, "fbe_schema_load")); /* no compiler */
        free(syms);
        char *out = NULL;
        expect_status(fmt("'%s' '%s'", exe, shared_path("golden")), 0, &out);
        print_message("%s", out);
        const char *rows = strstr(out, ": ");
        assert_non_null(rows);
        assert_true(atoi(rows + 2) > 0); /* "aot_check PKG: N golden rows" */
        free(out);
    }
}

/* The interpreter over each object's image (fbe_interp_create_image) in a
 * program that links the object and fbe_runtime, not the compiler:
 * every golden case of the package through it (tests/aot_check.c -DAOT_INTERP). */
static void test_interp_from_image(void **state)
{
    (void)state;
    ensure_objects();
    for (size_t i = 0; i < GOLDEN_COUNT; i++) {
        const char *pkg = golden[i][0];
        keep(exe, "%s/aot_interp_check_%s", outdir(), pkg);
        remove(exe);
        expect_status(link_cmd(fmt("%s/tests/aot_check.c", FBE_SOURCE_DIR),
                               fmt("-DAOT_PACKAGE=%s -DAOT_TYPE=%s -DAOT_INTERP%s", pkg,
                                   golden[i][1], all_ops[i] ? " -DAOT_ALL_OPS" : ""),
                               fmt("'%s/%s.o' '%s'", outdir(), pkg, FBE_RUNTIME_LIB),
                               exe),
                      0, NULL);
        char *syms = NULL;
        expect_status(fmt("nm '%s'", exe), 0, &syms);
        assert_non_null(strstr(syms, "fbe_interp_std_deserialize")); /* the interpreter */
        assert_null(strstr(syms, "fbe_schema_load"));          /* no compiler */
        assert_null(strstr(syms, "fbe_resolve_package"));
        assert_null(strstr(syms, "LLVM"));
        free(syms);
        char *out = NULL;
        expect_status(fmt("'%s' '%s'", exe, shared_path("golden")), 0, &out);
        print_message("%s", out);
        assert_non_null(strstr(out, "the interpreter over the image"));
        /* "aot_check PKG: N golden rows", N > 0 */
        const char *rows = strstr(out, " golden rows");
        assert_non_null(rows);
        while (rows > out && rows[-1] != ' ')
            rows--;
        assert_true(atoi(rows) > 0);
        free(out);
    }
}

static void test_image_equals_ir(void **state)
{
    (void)state;
    ensure_objects();
    for (size_t i = 0; i < GOLDEN_COUNT; i++) {
        const char *pkg = golden[i][0];
        keep(exe, "%s/aot_image_check_%s", outdir(), pkg);
        remove(exe);
        expect_status(link_cmd(fmt("%s/tests/aot_image_check.c", FBE_SOURCE_DIR),
                               fmt("-DAOT_PACKAGE=%s%s", pkg, all_ops[i] ? " -DAOT_ALL_OPS" : ""),
                               fmt("'%s/%s.o' '%s' '%s'", outdir(), pkg, FBE_COMPILER_LIB,
                                   FBE_RUNTIME_LIB),
                               exe),
                      0, NULL);
        char *out = NULL;
        expect_status(fmt("'%s' '%s/%s.fbe' '%s'", exe, schemas_dir(), pkg, schemas_dir()), 0,
                      &out);
        print_message("%s", out);
        /* StructSimple <- StructOptional <- StructNested share one field array:
         * the sharing check has something to check. */
        if (strcmp(pkg, "test") == 0)
            assert_null(strstr(out, " 0 pairs of structs share"));
        free(out);
    }
    /* Random schemas of every field shape (tests/schema_gen.c) in one package. */
    keep(rs, "%s/rs.fbe", outdir());
    char *text = gen_schema("rs", 1, 10);
    write_text(rs, text);
    free(text);
    keep(exe, "%s/aot_image_check_rs", outdir());
    expect_status(fmt("'%s' aot '%s' -o '%s/rs.o' --header '%s/rs.h'", FBEC_PATH, rs, outdir(),
                      outdir()),
                  0, NULL);
    expect_status(link_cmd(fmt("%s/tests/aot_image_check.c", FBE_SOURCE_DIR),
                           "-DAOT_PACKAGE=rs -DAOT_ALL_OPS",
                           fmt("'%s/rs.o' '%s' '%s'", outdir(), FBE_COMPILER_LIB, FBE_RUNTIME_LIB),
                           exe),
                  0, NULL);
    char *out = NULL;
    expect_status(fmt("'%s' '%s' '%s'", exe, rs, outdir()), 0, &out);
    print_message("%s", out);
    assert_non_null(strstr(out, " 0 differ"));
    free(out);
}

/* protoex and test both contain proto's types: their objects still link together
 * (only each package's own entry points are exported). */
static void test_link_together(void **state)
{
    (void)state;
    ensure_objects();
    keep(src, "%s/link_all.c", outdir());
    write_text(src,
               "#include <stdio.h>\n#include \"test.h\"\n#include \"protoex.h\"\n"
               "#include \"proto.h\"\n#include \"enums.h\"\n"
               "int main(void)\n{\n"
               "    fbe_codec *c[4] = {fbe_proto_codec_create(NULL), fbe_protoex_codec_create(NULL),\n"
               "                       fbe_test_codec_create(NULL), fbe_enums_codec_create(NULL)};\n"
               "    size_t want[4] = {6, 12, 18, 1};\n"
               "    int bad = 0;\n"
               "    for (int i = 0; i < 4; i++) {\n"
               "        if (!c[i] || fbe_aot_codec_image(c[i])->type_count != want[i]) bad = 1;\n"
               "    }\n"
               "    /* proto.Account of two objects: two images, same layout. */\n"
               "    const fbe_type *a = fbe_codec_type(c[0], \"proto.Account\");\n"
               "    const fbe_type *b = fbe_codec_type(c[1], \"proto.Account\");\n"
               "    if (!a || !b || a->ir == b->ir || a->ir->host_size != b->ir->host_size) bad = 1;\n"
               "    proto_Account acc;\n"
               "    proto_Account_init(&acc);\n"
               "    if (fbe_size(a, FBE_STANDARD, &acc) != fbe_size(b, FBE_STANDARD, &acc)) bad = 1;\n"
               "    if (fbe_proto_Account_std_size(a, &acc) != fbe_size(a, FBE_STANDARD, &acc)) bad = 1;\n"
               "    for (int i = 0; i < 4; i++) fbe_codec_free(c[i]);\n"
               "    puts(bad ? \"link_all: FAILED\" : \"link_all: ok\");\n"
               "    return bad;\n}\n");
    keep(exe, "%s/link_all", outdir());
    remove(exe);
    expect_status(link_cmd(src, "",
                           fmt("'%s/proto.o' '%s/protoex.o' '%s/test.o' '%s/enums.o' '%s'", outdir(),
                               outdir(), outdir(), outdir(), FBE_RUNTIME_LIB),
                           exe),
                  0, NULL);
    char *out = NULL;
    expect_status(fmt("'%s'", exe), 0, &out);
    assert_non_null(strstr(out, "link_all: ok"));
    free(out);
}

/* The same schema and options give the same bytes. */
static void test_deterministic(void **state)
{
    (void)state;
    ensure_objects();
    keep(again, "%s/proto.again.o", outdir());
    expect_status(fmt("'%s' aot '%s/proto.fbe' -o '%s'", FBEC_PATH, schemas_dir(), again), 0, NULL);
    size_t la, lb;
    uint8_t *a = read_file(fmt("%s/proto.o", outdir()), &la);
    uint8_t *b = read_file(again, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    free(a);
    free(b);
}

static uint16_t elf_machine(const char *path)
{
    size_t n;
    uint8_t *p = read_file(path, &n);
    assert_true(n > 20);
    assert_memory_equal(p, "\x7f" "ELF", 4);
    assert_int_equal(p[4], 2); /* 64-bit */
    assert_int_equal(p[5], 1); /* little-endian */
    assert_int_equal(p[16], 1); /* ET_REL */
    uint16_t m = (uint16_t)(p[18] | p[19] << 8);
    free(p);
    return m;
}

static void test_targets(void **state)
{
    (void)state;
    expect_status(fmt("mkdir -p '%s'", outdir()), 0, NULL);
    keep(schema, "%s/enums.fbe", schemas_dir());
    keep(o, "%s/enums.aarch64.o", outdir());
    char *out = NULL;
    expect_status(fmt("'%s' aot '%s' -o '%s' --target aarch64-linux-gnu --stats", FBEC_PATH, schema, o),
                  0, &out);
    assert_non_null(strstr(out, "aarch64"));
    assert_non_null(strstr(out, "cpu generic"));
    free(out);
    assert_int_equal(elf_machine(o), 183); /* EM_AARCH64 */

    keep(host, "%s/enums.host.o", outdir());
    expect_status(fmt("'%s' aot '%s' -o '%s'", FBEC_PATH, schema, host), 0, NULL);
    snprintf(o, sizeof o, "%s/enums.native.o", outdir());
    expect_status(fmt("'%s' aot '%s' -o '%s' --cpu native -O3 --max-depth 10", FBEC_PATH, schema, o),
                  0, NULL);
    assert_int_equal(elf_machine(o), elf_machine(host));

    /* 32-bit and big-endian targets cannot hold fbe-c's host layout. */
    snprintf(o, sizeof o, "%s/enums.i686.o", outdir());
    remove(o);
    expect_status(fmt("'%s' aot '%s' -o '%s' --target i686-linux-gnu", FBEC_PATH, schema, o), 1, &out);
    assert_non_null(strstr(out, "64-bit little-endian"));
    free(out);
    assert_false(file_exists(o));
    expect_status(fmt("'%s' aot '%s' -o '%s' --target no-such-arch-triple", FBEC_PATH, schema, o), 2,
                  NULL);
    expect_status(fmt("'%s' aot '%s' -o '%s' --target aarch64-linux-gnu --cpu native", FBEC_PATH,
                      schema, o),
                  2, NULL);
    assert_false(file_exists(o));
}

/* ---- command line ----------------------------------------------------------------- */

static void test_cli(void **state)
{
    (void)state;
    expect_status(fmt("mkdir -p '%s'", outdir()), 0, NULL);
    char *out = NULL;
    expect_status(fmt("'%s' aot --help", FBEC_PATH), 0, &out);
    assert_non_null(strstr(out, "usage: fbec aot"));
    assert_non_null(strstr(out, "fbe_P_codec_create"));
    free(out);
    expect_status(fmt("'%s' --help", FBEC_PATH), 0, &out);
    assert_non_null(strstr(out, "aot"));
    free(out);

    keep(p, "%s/proto.fbe", schemas_dir());
    keep(o, "%s/cli.o", outdir());
    remove(o);
    expect_status(fmt("'%s' aot", FBEC_PATH), 2, NULL);
    expect_status(fmt("'%s' aot '%s'", FBEC_PATH, p), 2, &out); /* no -o */
    assert_non_null(strstr(out, "-o"));
    free(out);
    expect_status(fmt("'%s' aot '%s' '%s' -o '%s'", FBEC_PATH, p, p, o), 2, NULL);
    expect_status(fmt("'%s' aot '%s' -o '%s' --type proto.Account", FBEC_PATH, p, o), 2, NULL);
    expect_status(fmt("'%s' aot '%s' -o '%s' -O 7", FBEC_PATH, p, o), 2, NULL);
    expect_status(fmt("'%s' aot '%s' -o '%s' --max-depth 0", FBEC_PATH, p, o), 2, NULL);
    expect_status(fmt("'%s' aot '%s' -o '%s' --no-such-option", FBEC_PATH, p, o), 2, NULL);
    expect_status(fmt("'%s' aot '%s' -o '%s' --header", FBEC_PATH, p, o), 2, NULL);
    expect_status(fmt("'%s' aot '%s' -o '%s' --header '%s'", FBEC_PATH, p, o, o), 2, NULL);
    assert_false(file_exists(o));

    /* Schema errors: exit 1, nothing written. */
    keep(bad, "%s/bad.fbe", outdir());
    write_text(bad, "package bad\n\nstruct S\n{\n    Unknown x;\n}\n");
    expect_status(fmt("'%s' aot '%s' -o '%s'", FBEC_PATH, bad, o), 1, &out);
    assert_non_null(strstr(out, "bad.fbe:5:"));
    free(out);
    assert_false(file_exists(o));
    expect_status(fmt("'%s' aot '%s/no-such.fbe' -o '%s'", FBEC_PATH, outdir(), o), 1, NULL);
    /* Unwritable outputs. */
    expect_status(fmt("'%s' aot '%s' -o '%s/no-such-dir/x.o'", FBEC_PATH, p, outdir()), 1, NULL);
    expect_status(fmt("'%s' aot '%s' -o '%s' --header '%s/no-such-dir/x.h'", FBEC_PATH, p, o,
                      outdir()),
                  1, NULL);
    assert_false(file_exists(o)); /* not half a result */

    /* Quiet on success, = and separate forms alike. */
    expect_status(fmt("'%s' aot --schema='%s' -o '%s' --cpu=x86-64 -O1", FBEC_PATH, p, o), 0, &out);
    assert_string_equal(out, "");
    free(out);
    assert_true(file_exists(o));
}

/* ---- the JIT's compiled-object cache ------------------------------------------------ */

/* Decodes and re-encodes a golden case with `codec`; a corrupted copy must fail
 * verify with the schema's own IR in the report. */
static void check_codec(const fbe_codec *codec, const fbe_ir_struct *ir)
{
    const fbe_type *t = fbe_codec_type_of(codec, ir);
    assert_non_null(t);
    size_t n;
    uint8_t *bin = read_file(shared_path("golden/cases/proto/Account/readme.bin"), &n);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options o = {.arena = &arena};
    void *v = calloc(1, ir->host_size);
    size_t consumed = 0;
    assert_int_equal(fbe_deserialize(t, FBE_STANDARD, bin, n, v, &o, &consumed), FBE_OK);
    assert_int_equal(consumed, n);
    fbe_buffer b;
    fbe_buffer_init(&b, NULL, NULL);
    assert_int_equal(fbe_serialize(t, FBE_STANDARD, v, &b), FBE_OK);
    assert_int_equal(b.size, n);
    assert_memory_equal(b.data, bin, n);
    bin[12] ^= 0x55; /* the root struct's type number */
    fbe_verify_info info = {0};
    assert_int_equal(fbe_verify(t, FBE_STANDARD, bin, n, &info), FBE_BAD_TYPE);
    assert_ptr_equal(info.type, ir); /* the IR symbols resolve to the schema's objects */
    fbe_buffer_free(&b);
    fbe_arena_free(&arena);
    free(v);
    free(bin);
}

static void test_jit_cache(void **state)
{
    (void)state;
    keep(dir, "%s/jit_cache", outdir());
    expect_status(fmt("rm -rf '%s'", dir), 0, NULL);
    fbe_schema *schema = load_golden("proto");
    const fbe_ir_struct *account = fbe_schema_find_struct(schema, "proto.Account");
    fbe_jit_options opts = {.cache_dir = dir, .require_native = true};
    fbe_status st;
    fbe_jit_stats s[3];
    for (int i = 0; i < 3; i++) {
        if (i == 2) {
            /* A damaged entry is dropped and compiled again. */
            expect_status(fmt("for f in '%s'/*.o; do echo garbage > \"$f\"; done", dir), 0, NULL);
        }
        fbe_codec *codec = fbe_jit_compile(schema, &opts, &st);
        assert_non_null(codec);
        assert_int_equal(fbe_codec_backend(codec), FBE_BACKEND_JIT);
        s[i] = fbe_jit_codec_stats(codec);
        check_codec(codec, account);
        fbe_codec_free(codec);
    }
    print_message("proto: cold %.1f ms (lower %.1f, optimize %.1f, codegen %.1f), cached %.1f ms "
                  "(lower %.1f, load %.1f)\n",
                  s[0].lower_ms + s[0].optimize_ms + s[0].codegen_ms, s[0].lower_ms,
                  s[0].optimize_ms, s[0].codegen_ms,
                  s[1].lower_ms + s[1].optimize_ms + s[1].codegen_ms, s[1].lower_ms,
                  s[1].codegen_ms);
    assert_false(s[0].cached);
    assert_true(s[1].cached);
    assert_false(s[2].cached);
    assert_int_equal(s[0].functions, s[1].functions);
    /* Another optimization level is another entry. */
    opts.opt_level = 1;
    fbe_codec *codec = fbe_jit_compile(schema, &opts, &st);
    assert_non_null(codec);
    assert_false(fbe_jit_codec_stats(codec).cached);
    fbe_codec_free(codec);
    fbe_schema_free(schema);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_image_layout),
        cmocka_unit_test(test_runtime_codec),
        cmocka_unit_test(test_golden_objects),
        cmocka_unit_test(test_interp_from_image),
        cmocka_unit_test(test_image_equals_ir),
        cmocka_unit_test(test_link_together),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_targets),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_jit_cache),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
