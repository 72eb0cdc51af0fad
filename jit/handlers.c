/* The codec rules native code calls, written once in static_c.h (the
 * interpreter and `fbec c` call the same functions). This file is compiled to
 * LLVM bitcode by clang at build time (CMakeLists.txt: handlers.bc, embedded in
 * libfbe_jit as fbe_jit_handlers_bc) and linked into a module the first time
 * its lowering asks for a handler (jit_handler, handlers_link.c); the
 * optimizer inlines them and folds the constant arguments.
 *
 * Only pointers and integers cross these functions' boundaries, and fbe-c's
 * host layout is LP64 little-endian everywhere, so the bitcode compiled for the
 * build machine is valid for every target the JIT and AOT objects support
 * (the target attributes clang wrote are dropped when linked). No handler may
 * depend on plain char, signed on x86-64 and unsigned on aarch64. Every function
 * here is named fbe_jit_h_*: the prefix the linker step internalizes. */
#define SC_COLD __attribute__((cold, unused))
#include <fbe/internal/static_c.h>

/* Not part of any library: the declarations exist for -Wmissing-prototypes. */
void fbe_jit_h_copy_string(uint8_t *dst, const uint8_t *src, size_t n, uint64_t after);
fbe_status fbe_jit_h_std_frame(const uint8_t *data, size_t size, uint64_t *full);
fbe_status fbe_jit_h_final_frame(const uint8_t *data, size_t size, uint32_t type_number,
                                 uint64_t *full, uint64_t *at);
uint64_t fbe_jit_h_str_extra(const uint8_t *h);
fbe_status fbe_jit_h_read_str(uint8_t *h, const uint8_t *src, uint32_t len, uint64_t after,
                              bool borrow, char **ptr, char **end, fbe_arena *a,
                              fbe_decode_budget *m);
void *fbe_jit_h_alloc(char **ptr, char **end, fbe_arena *a, fbe_decode_budget *m, size_t n);
void *fbe_jit_h_alloc_string(char **ptr, char **end, fbe_arena *a, fbe_decode_budget *m,
                             uint32_t len);
uint64_t fbe_jit_h_block(size_t count, uint32_t inline_size);
uint8_t *fbe_jit_h_swrite_str(uint8_t *end, const uint8_t *h, uint8_t *pos, const uint8_t *base);
uint64_t fbe_jit_h_fstr_size(const uint8_t *h);
uint8_t *fbe_jit_h_fwrite_str(const uint8_t *h, uint8_t *w);

void fbe_jit_h_copy_string(uint8_t *dst, const uint8_t *src, size_t n, uint64_t after)
{
    sc_copy_string(dst, src, n, after);
}

/* The standard frame's header: FBE_OK and *full = its size, or the status (at
 * position 0). */
fbe_status fbe_jit_h_std_frame(const uint8_t *data, size_t size, uint64_t *full)
{
    sc_rd r;
    fbe_status st = sc_chk_frame(&r, data, size);
    *full = st == FBE_OK ? r.size : 0;
    return st;
}

/* The final frame's header and type: FBE_OK and *full = its struct size, or
 * the status and *at its position. */
fbe_status fbe_jit_h_final_frame(const uint8_t *data, size_t size, uint32_t type_number,
                                 uint64_t *full, uint64_t *at)
{
    sc_frd r = {0};
    fbe_status st = sc_fchk_frame(&r, type_number, data, size);
    *full = st == FBE_OK ? (uint64_t)(r.end - data) : 0;
    *at = st == FBE_OK ? 0 : r.pos;
    return st;
}

/* n bytes of the arena (fbe_decode_alloc, its bump path inline) on the
 * cursor *ptr, *end, which native code keeps in registers or in the arena.
 * Native code allocates host structs and arrays of fewer than 2^32 elements
 * of fewer than 2^32 bytes: n is never near overflowing (sc_rounded). */
void *fbe_jit_h_alloc(char **ptr, char **end, fbe_arena *a, fbe_decode_budget *m, size_t n)
{
    return sc_bump_at(ptr, end, a, m, n, sc_rounded(n));
}

/* The same for a read string's len + 1 bytes. */
void *fbe_jit_h_alloc_string(char **ptr, char **end, fbe_arena *a, fbe_decode_budget *m,
                             uint32_t len)
{
    return sc_alloc_string_at(ptr, end, a, m, len);
}

/* A standard string, its reference checked, read into the host: FBE_OK or
 * FBE_NOMEM (the final model keeps these steps inline: docs/jit.md). */
fbe_status fbe_jit_h_read_str(uint8_t *h, const uint8_t *src, uint32_t len, uint64_t after,
                              bool borrow, char **ptr, char **end, fbe_arena *a,
                              fbe_decode_budget *m)
{
    return sc_str_into(h, src, len, after, borrow, ptr, end, a, m);
}

/* A host string's standard extra bytes (its block, the length capped). */
uint64_t fbe_jit_h_str_extra(const uint8_t *h)
{
    return sc_str_extra(h);
}

/* A collection's standard block size (the count capped). */
uint64_t fbe_jit_h_block(size_t count, uint32_t inline_size)
{
    return sc_block(count, inline_size);
}

/* A host string's standard block written at end, its offset at pos; returns the
 * block's end. */
uint8_t *fbe_jit_h_swrite_str(uint8_t *end, const uint8_t *h, uint8_t *pos, const uint8_t *base)
{
    return sc_swrite_str(end, h, pos, base);
}

/* A host string's final size (saturated above 32 bits). */
uint64_t fbe_jit_h_fstr_size(const uint8_t *h)
{
    return sc_fstr_size(h);
}

/* A host string written in the final model at w; returns what follows it. */
uint8_t *fbe_jit_h_fwrite_str(const uint8_t *h, uint8_t *w)
{
    return sc_fwrite_str(h, w);
}
