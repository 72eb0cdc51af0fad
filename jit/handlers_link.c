/* The handler bitcode (jit/handlers.c, static_c.h's rules) linked into a module
 * the first time its lowering calls a handler (see emit.h: jit_handler). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/Linker.h>

#include "emit.h"

/* cmake/EmbedFile.cmake writes them from the bitcode clang compiled. */
extern const unsigned char fbe_jit_handlers_bc[];
extern const size_t fbe_jit_handlers_bc_size;

#define HANDLER_PREFIX "fbe_jit_h_"

static void drop_string_attr(LLVMValueRef fn, const char *name)
{
    LLVMRemoveStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, name, (unsigned)strlen(name));
}

/* Without a handler of the context's own, LLVM reports an error in the
 * bitcode or the link to stderr and exits the process: this one records it,
 * and the module is refused instead. */
static void note_error(LLVMDiagnosticInfoRef info, void *failed)
{
    if (LLVMGetDiagInfoSeverity(info) == LLVMDSError)
        *(bool *)failed = true;
}

/* Parses the bitcode and links it into e->mod, LLVM's diagnostics caught. */
static bool parse_and_link(jit_emit *e, const unsigned char *bc, size_t size)
{
    LLVMDiagnosticHandler old = LLVMContextGetDiagnosticHandler(e->ctx);
    void *old_ctx = LLVMContextGetDiagnosticContext(e->ctx);
    bool failed = false;
    LLVMContextSetDiagnosticHandler(e->ctx, note_error, &failed);
    LLVMMemoryBufferRef buf =
        LLVMCreateMemoryBufferWithMemoryRange((const char *)bc, size, "fbe-jit-handlers", false);
    LLVMModuleRef src = NULL;
    bool bad = LLVMParseBitcodeInContext2(e->ctx, buf, &src);
    LLVMDisposeMemoryBuffer(buf);
    if (!bad && !failed) {
        LLVMSetTarget(src, LLVMGetTarget(e->mod));
        LLVMSetDataLayout(src, LLVMGetDataLayoutStr(e->mod));
        bad = LLVMLinkModules2(e->mod, src); /* src is gone either way */
    } else if (src) {
        LLVMDisposeModule(src);
    }
    LLVMContextSetDiagnosticHandler(e->ctx, old, old_ctx);
    return !bad && !failed;
}

/* Its functions become the module's own: the handlers internal and always
 * inlined (they are the rules the lowering asked for, and inlined their
 * constant arguments fold), every function without the build machine's CPU
 * and features (the module's target machine decides). */
bool jit_link_bitcode(jit_emit *e, const unsigned char *bc, size_t size)
{
    if (!parse_and_link(e, bc, size))
        return false;
    unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
    for (LLVMValueRef f = LLVMGetFirstFunction(e->mod); f; f = LLVMGetNextFunction(f)) {
        /* declarations too: clang gives the runtime functions the handlers
         * call (fbe_decode_alloc) the same attributes */
        drop_string_attr(f, "target-cpu");
        drop_string_attr(f, "target-features");
        drop_string_attr(f, "tune-cpu");
        if (LLVMIsDeclaration(f))
            continue;
        size_t len = 0;
        const char *name = LLVMGetValueName2(f, &len);
        if (len > strlen(HANDLER_PREFIX) && !strncmp(name, HANDLER_PREFIX, strlen(HANDLER_PREFIX))) {
            LLVMSetLinkage(f, LLVMInternalLinkage);
            LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                    LLVMCreateEnumAttribute(e->ctx, always, 0));
        }
    }
    return true;
}

LLVMValueRef jit_handler(jit_emit *e, const char *name, LLVMTypeRef *type)
{
    if (!e->handlers_linked) {
        e->handlers_linked = true;
        if (!jit_link_bitcode(e, fbe_jit_handlers_bc, fbe_jit_handlers_bc_size))
            e->handlers_failed = true;
    }
    char full[64];
    snprintf(full, sizeof full, HANDLER_PREFIX "%s", name);
    LLVMValueRef fn = LLVMGetNamedFunction(e->mod, full);
    if (!fn || LLVMIsDeclaration(fn)) {
        /* a handler the bitcode lacks (a build whose lowering and handlers.c
         * disagree; test_handlers asks for every name the lowering uses): the
         * module is refused (jit_module_lower) before anything checks the
         * calls built with this stand-in's type */
        e->handlers_failed = true;
        if (!fn)
            fn = LLVMAddFunction(e->mod, full, LLVMFunctionType(e->void_t, NULL, 0, false));
    }
    *type = LLVMGlobalGetValueType(fn);
    return fn;
}

LLVMValueRef jit_call_handler(jit_emit *e, const char *name, LLVMValueRef *args, unsigned n)
{
    LLVMTypeRef t;
    LLVMValueRef fn = jit_handler(e, name, &t);
    return LLVMBuildCall2(e->b, t, fn, args, n, "");
}
