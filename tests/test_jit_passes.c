/* What the JIT does to a lowered module before LLVM's passes
 * (jit_inline_single_calls, jit/module.c): internal functions nothing calls are
 * deleted, chains of them too; an internal function called from one place is
 * marked alwaysinline, and every case that must stay the inliner's decision is
 * left alone. A module built by hand, so each case is exactly one function.
 *
 * And the handler bitcode (jit_handler, jit/handlers_link.c): linked on the
 * first request, its handlers internal, always inlined and free of the build
 * machine's target attributes, gone after the passes; a handler it lacks
 * refuses the module. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "emit.h"
#include "module.h"

typedef struct builder {
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;
    LLVMTypeRef fn_t; /* void () */
    LLVMValueRef entry;
} builder;

static void attr(builder *m, LLVMValueRef fn, const char *name)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(m->ctx, kind, 0));
}

static bool has_attr(LLVMValueRef fn, const char *name)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    return LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind) != NULL;
}

/* An internal function whose body calls `callees` (NULL-terminated), then returns. */
static LLVMValueRef internal(builder *m, const char *name, LLVMValueRef const *callees)
{
    LLVMValueRef fn = LLVMAddFunction(m->mod, name, m->fn_t);
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMPositionBuilderAtEnd(m->b, LLVMAppendBasicBlockInContext(m->ctx, fn, "entry"));
    for (; callees && *callees; callees++)
        LLVMBuildCall2(m->b, m->fn_t, *callees, NULL, 0, "");
    LLVMBuildRetVoid(m->b);
    return fn;
}

/* A call to callee at the end of the external entry function (before its ret). */
static LLVMValueRef call_from_entry(builder *m, LLVMValueRef callee)
{
    LLVMBasicBlockRef bb = LLVMGetLastBasicBlock(m->entry);
    LLVMPositionBuilderBefore(m->b, LLVMGetLastInstruction(bb));
    return LLVMBuildCall2(m->b, m->fn_t, callee, NULL, 0, "");
}

static void site_attr(builder *m, LLVMValueRef call, const char *name)
{
    unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(m->ctx, kind, 0));
}

static void test_inline_single_calls(void **state)
{
    (void)state;
    builder m;
    m.ctx = LLVMContextCreate();
    m.mod = LLVMModuleCreateWithNameInContext("t", m.ctx);
    m.b = LLVMCreateBuilderInContext(m.ctx);
    m.fn_t = LLVMFunctionType(LLVMVoidTypeInContext(m.ctx), NULL, 0, 0);
    m.entry = LLVMAddFunction(m.mod, "entry", m.fn_t);
    LLVMPositionBuilderAtEnd(m.b, LLVMAppendBasicBlockInContext(m.ctx, m.entry, "entry"));
    LLVMBuildRetVoid(m.b);

    /* dead: a chain nothing calls, and a leaf only the chain calls */
    LLVMValueRef dead_leaf = internal(&m, "dead_leaf", NULL);
    internal(&m, "dead_root", (LLVMValueRef[]){internal(&m, "dead_mid", (LLVMValueRef[]){dead_leaf, NULL}), NULL});
    /* marked: called once from entry, and once from a function that is itself
     * called once */
    LLVMValueRef once = internal(&m, "once", NULL);
    call_from_entry(&m, once);
    LLVMValueRef inner = internal(&m, "inner", NULL);
    call_from_entry(&m, internal(&m, "outer", (LLVMValueRef[]){inner, NULL}));
    /* left alone */
    LLVMValueRef twice = internal(&m, "twice", NULL);
    call_from_entry(&m, twice);
    call_from_entry(&m, twice);
    LLVMValueRef never = internal(&m, "never", NULL);
    attr(&m, never, "noinline");
    call_from_entry(&m, never);
    LLVMValueRef optnone = internal(&m, "optnone", NULL);
    attr(&m, optnone, "noinline");
    attr(&m, optnone, "optnone");
    call_from_entry(&m, optnone);
    LLVMValueRef site_never = internal(&m, "site_never", NULL);
    site_attr(&m, call_from_entry(&m, site_never), "noinline");
    LLVMValueRef site_always = internal(&m, "site_always", NULL);
    site_attr(&m, call_from_entry(&m, site_always), "alwaysinline");
    LLVMValueRef self = LLVMAddFunction(m.mod, "self", m.fn_t); /* its one use is its own call */
    LLVMSetLinkage(self, LLVMInternalLinkage);
    LLVMPositionBuilderAtEnd(m.b, LLVMAppendBasicBlockInContext(m.ctx, self, "entry"));
    LLVMBuildCall2(m.b, m.fn_t, self, NULL, 0, "");
    LLVMBuildRetVoid(m.b);
    LLVMValueRef external = LLVMAddFunction(m.mod, "external", m.fn_t);
    LLVMPositionBuilderAtEnd(m.b, LLVMAppendBasicBlockInContext(m.ctx, external, "entry"));
    LLVMBuildRetVoid(m.b);
    call_from_entry(&m, external);
    /* address taken: its one use is not a call of it */
    LLVMValueRef taken = internal(&m, "taken", NULL);
    LLVMValueRef slot = LLVMAddGlobal(m.mod, LLVMPointerTypeInContext(m.ctx, 0), "slot");
    LLVMSetInitializer(slot, taken);

    jit_inline_single_calls(m.mod);

    char *msg = NULL;
    if (LLVMVerifyModule(m.mod, LLVMReturnStatusAction, &msg))
        fail_msg("invalid module: %s", msg);
    LLVMDisposeMessage(msg);
    assert_null(LLVMGetNamedFunction(m.mod, "dead_root"));
    assert_null(LLVMGetNamedFunction(m.mod, "dead_mid"));
    assert_null(LLVMGetNamedFunction(m.mod, "dead_leaf"));
    assert_true(has_attr(once, "alwaysinline"));
    assert_true(has_attr(inner, "alwaysinline"));
    assert_true(has_attr(LLVMGetNamedFunction(m.mod, "outer"), "alwaysinline"));
    const LLVMValueRef alone[] = {twice, never, optnone, site_never, site_always, self, external, taken};
    for (size_t i = 0; i < sizeof alone / sizeof alone[0]; i++) {
        size_t len;
        const char *name = LLVMGetValueName2(alone[i], &len);
        if (has_attr(alone[i], "alwaysinline"))
            fail_msg("%s was marked alwaysinline", name);
        assert_ptr_equal(LLVMGetNamedFunction(m.mod, name), alone[i]); /* not deleted */
    }
    LLVMDisposeBuilder(m.b);
    LLVMDisposeModule(m.mod);
    LLVMContextDispose(m.ctx);
}

static bool has_string_attr(LLVMValueRef fn, const char *name)
{
    return LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, name,
                                         (unsigned)strlen(name)) != NULL;
}

static size_t calls_to(LLVMValueRef caller, const char *callee)
{
    size_t n = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(caller); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
            if (!LLVMIsACallInst(i))
                continue;
            size_t len;
            const char *name = LLVMGetValueName2(LLVMGetCalledValue(i), &len);
            n += strcmp(name, callee) == 0;
        }
    return n;
}

static void test_handlers(void **state)
{
    (void)state;
    jit_init_native();
    jit_target target = {.object = true}; /* the host's CPU */
    LLVMTargetMachineRef tm = jit_target_machine(&target, NULL, NULL, NULL, NULL, 0);
    assert_non_null(tm);
    jit_emit e = {0};
    e.ctx = LLVMContextCreate();
    e.mod = LLVMModuleCreateWithNameInContext("t", e.ctx);
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(e.mod, dl);
    LLVMDisposeTargetData(dl);
    char *triple = LLVMGetTargetMachineTriple(tm);
    LLVMSetTarget(e.mod, triple);
    LLVMDisposeMessage(triple);
    e.b = LLVMCreateBuilderInContext(e.ctx);
    e.void_t = LLVMVoidTypeInContext(e.ctx);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(e.ctx, 0), i64 = LLVMInt64TypeInContext(e.ctx);

    assert_null(LLVMGetNamedFunction(e.mod, "fbe_jit_h_copy_string"));
    LLVMTypeRef t = NULL;
    LLVMValueRef copy = jit_handler(&e, "copy_string", &t);
    assert_true(e.handlers_linked);
    assert_false(e.handlers_failed);
    assert_false(LLVMIsDeclaration(copy));
    assert_int_equal(LLVMGetLinkage(copy), LLVMInternalLinkage);
    assert_true(has_attr(copy, "alwaysinline"));
    assert_ptr_equal(t, LLVMGlobalGetValueType(copy));
    assert_int_equal(LLVMCountParamTypes(t), 4);
    /* the build machine's CPU is not the target's to keep */
    for (LLVMValueRef f = LLVMGetFirstFunction(e.mod); f; f = LLVMGetNextFunction(f)) {
        assert_false(has_string_attr(f, "target-cpu"));
        assert_false(has_string_attr(f, "target-features"));
        assert_false(has_string_attr(f, "tune-cpu"));
    }
    /* every handler the lowering asks for, with its number of parameters */
    static const struct {
        const char *name;
        unsigned params;
    } used[] = {{"copy_string", 4}, {"std_frame", 3}, {"final_frame", 5},
                 {"str_extra", 1},   {"block", 2},     {"swrite_str", 4},
                 {"fstr_size", 1},   {"fwrite_str", 2},  {"alloc", 5},
                 {"alloc_string", 5}, {"read_str", 9}};
    for (size_t i = 0; i < sizeof used / sizeof used[0]; i++) {
        LLVMValueRef h = jit_handler(&e, used[i].name, &t);
        assert_false(LLVMIsDeclaration(h));
        assert_int_equal(LLVMCountParamTypes(t), used[i].params);
    }
    assert_false(e.handlers_failed);
    /* a second request links nothing again */
    LLVMValueRef frame = jit_handler(&e, "std_frame", &t);
    assert_false(LLVMIsDeclaration(frame));
    assert_ptr_equal(jit_handler(&e, "copy_string", &t), copy);

    /* an entry point calling the handler: inlined, and the handler deleted */
    LLVMTypeRef params[] = {ptr, ptr, i64, i64};
    LLVMValueRef entry = LLVMAddFunction(e.mod, "entry", LLVMFunctionType(e.void_t, params, 4, 0));
    LLVMPositionBuilderAtEnd(e.b, LLVMAppendBasicBlockInContext(e.ctx, entry, "entry"));
    LLVMValueRef args[] = {LLVMGetParam(entry, 0), LLVMGetParam(entry, 1), LLVMGetParam(entry, 2),
                           LLVMGetParam(entry, 3)};
    LLVMBuildCall2(e.b, LLVMGlobalGetValueType(copy), copy, args, 4, "");
    LLVMBuildRetVoid(e.b);
    assert_int_equal(calls_to(entry, "fbe_jit_h_copy_string"), 1);
    LLVMPassBuilderOptionsRef pbo = LLVMCreatePassBuilderOptions();
    LLVMErrorRef err = LLVMRunPasses(e.mod, "default<O2>", tm, pbo);
    LLVMDisposePassBuilderOptions(pbo);
    assert_null(err);
    char *msg = NULL;
    if (LLVMVerifyModule(e.mod, LLVMReturnStatusAction, &msg))
        fail_msg("invalid module: %s", msg);
    LLVMDisposeMessage(msg);
    assert_int_equal(calls_to(entry, "fbe_jit_h_copy_string"), 0);
    assert_null(LLVMGetNamedFunction(e.mod, "fbe_jit_h_copy_string"));
    assert_null(LLVMGetNamedFunction(e.mod, "fbe_jit_h_std_frame"));

    /* a handler the bitcode lacks: the module is refused */
    LLVMValueRef missing = jit_handler(&e, "no_such_rule", &t);
    assert_non_null(missing);
    assert_true(e.handlers_failed);
    /* bytes LLVM refuses: false, and the process goes on (LLVM's default is
     * to print the error and exit) */
    static const unsigned char garbage[] = "BC\xc0\xde not bitcode";
    assert_false(jit_link_bitcode(&e, garbage, sizeof garbage));
    static const unsigned char not_bc[] = "definitely not bitcode";
    assert_false(jit_link_bitcode(&e, not_bc, sizeof not_bc));

    LLVMDisposeBuilder(e.b);
    LLVMDisposeModule(e.mod);
    LLVMContextDispose(e.ctx);
    LLVMDisposeTargetMachine(tm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inline_single_calls),
        cmocka_unit_test(test_handlers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
