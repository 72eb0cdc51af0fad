/* The entry points of a static C codec: per struct, the eight functions of
 * fbe_model_ops for both models (fbe/codec.h signatures). Verify and
 * deserialize take a valid frame of this schema's writers on their own path
 * and hand anything else, the call's own arguments, to the interpreter's entry
 * point (fbe/internal/native.h), whose result is the answer, as native code
 * does (docs/jit.md). The root package's are
 * exported as `fbec aot` exports them (fbe_<c_name>_<std|final>_<op>); those
 * of imported packages are static (sc_...), reachable through the image. */
#include <inttypes.h>

#include "gen_c_internal.h"

static void entries(gc *g, size_t k)
{
    const fbe_ir_struct *st = g->structs[k];
    bool exported = st->package == g->root;
    const char *pre = exported ? "fbe" : "sc";
    const char *stor = exported ? "" : "static ";
    const char *c = st->c_name;

    gc_printf(g, "/* ---- %s ---- */\n\n", st->full_name);
    if (exported) /* prototypes: the header declares the same */
        gc_printf(g,
                  "size_t %s_%s_std_size(const fbe_type *type, const void *value);\n"
                  "fbe_status %s_%s_std_serialize(const fbe_type *type, const void *value, fbe_buffer *out);\n"
                  "fbe_status %s_%s_std_verify(const fbe_type *type, const uint8_t *data, size_t size,\n"
                  "    fbe_verify_info *info, const fbe_decode_options *options);\n"
                  "fbe_status %s_%s_std_deserialize(const fbe_type *type, const uint8_t *data, size_t size,\n"
                  "    void *value, const fbe_decode_options *options, size_t *consumed);\n"
                  "size_t %s_%s_final_size(const fbe_type *type, const void *value);\n"
                  "fbe_status %s_%s_final_serialize(const fbe_type *type, const void *value, fbe_buffer *out);\n"
                  "fbe_status %s_%s_final_verify(const fbe_type *type, const uint8_t *data, size_t size,\n"
                  "    fbe_verify_info *info, const fbe_decode_options *options);\n"
                  "fbe_status %s_%s_final_deserialize(const fbe_type *type, const uint8_t *data, size_t size,\n"
                  "    void *value, const fbe_decode_options *options, size_t *consumed);\n\n",
                  pre, c, pre, c, pre, c, pre, c, pre, c, pre, c, pre, c, pre, c);

    /* standard */
    gc_printf(g,
              "%ssize_t %s_%s_std_size(const fbe_type *type, const void *value)\n{\n"
              "    (void)type;\n"
              "    return (size_t)s%zu_ssize((const uint8_t *)value, 8);\n}\n\n",
              stor, pre, c, k);
    gc_printf(g,
              "%sfbe_status %s_%s_std_serialize(const fbe_type *type, const void *value, fbe_buffer *out)\n{\n"
              "    if (!type || !value || !out)\n        return FBE_INVALID_ARGUMENT;\n"
              "    uint64_t total = s%zu_ssize((const uint8_t *)value, 8);\n"
              "    if (total > UINT32_MAX)\n        return FBE_TOO_LARGE;\n"
              "    if (out->capacity - out->size < total) {\n"
              "        fbe_status st = fbe_buffer_reserve(out, (size_t)total);\n"
              "        if (st != FBE_OK)\n            return st;\n    }\n"
              "    uint8_t *frame = out->data + out->size;\n"
              "    s%zu_swrite(frame + 8, (const uint8_t *)value, frame + 4, frame);\n"
              "    sc_wr32(frame, (uint32_t)total);\n"
              "    out->size += (size_t)total;\n"
              "    return FBE_OK;\n}\n\n",
              stor, pre, c, k, k);
    gc_printf(g,
              "%sfbe_status %s_%s_std_verify(const fbe_type *type, const uint8_t *data, size_t size,\n"
              "    fbe_verify_info *info, const fbe_decode_options *options)\n{\n"
              "    if (SC_UNLIKELY(!type || !data))\n"
              "        return fbe_interp_std_verify(type, data, size, info, options);\n"
              "    sc_rd rd = {.max_depth = options && options->max_depth ? options->max_depth : SC_MAX_DEPTH};\n"
              "    if (SC_UNLIKELY(sc_chk_frame(&rd, data, size) != FBE_OK))\n"
              "        return fbe_interp_std_verify(type, data, size, info, options);\n"
              "    if (SC_LIKELY(s%zu_sv(&rd, 4, 0, 1) == FBE_OK)) {\n"
              "        if (info)\n            *info = (fbe_verify_info){.status = FBE_OK};\n"
              "        return FBE_OK;\n    }\n"
              "    return sc_sverify_failed(type, &rd, info);\n}\n\n",
              stor, pre, c, k);
    gc_printf(g,
              "%sfbe_status %s_%s_std_deserialize(const fbe_type *type, const uint8_t *data, size_t size,\n"
              "    void *value, const fbe_decode_options *options, size_t *consumed)\n{\n"
              "    if (SC_UNLIKELY(!type || !value || !options || !options->arena || !data))\n"
              "        return fbe_interp_std_deserialize(type, data, size, value, options, consumed);\n"
              "    fbe_arena *arena = options->arena;\n"
              "    char *mark = arena->ptr;\n"
              "    fbe_decode_budget memory = {.max_memory = options->max_memory};\n"
              "    sc_rd r = {.max_depth = options->max_depth ? options->max_depth : SC_MAX_DEPTH,\n"
              "               .arena = arena,\n"
              "               .memory = &memory,\n"
              "               .borrow = (options->flags & FBE_DECODE_BORROW) != 0};\n"
              "    if (SC_LIKELY(sc_chk_frame(&r, data, size) == FBE_OK)) {\n"
              "        memory.input = (size_t)r.size;\n"
              "        if (SC_LIKELY(s%zu_sd(&r, 4, 0, (uint8_t *)value, 1) == FBE_OK)) {\n"
              "            if (consumed)\n                *consumed = (size_t)r.size;\n"
              "            return FBE_OK;\n        }\n    }\n"
              "    return sc_read_failed(fbe_interp_std_deserialize, type, data, size, value, options,\n"
              "                          consumed, &memory, mark);\n}\n\n",
              stor, pre, c, k);

    /* final */
    gc_printf(g,
              "%ssize_t %s_%s_final_size(const fbe_type *type, const void *value)\n{\n"
              "    (void)type;\n"
              "    return (size_t)(8 + s%zu_fsize((const uint8_t *)value));\n}\n\n",
              stor, pre, c, k);
    gc_printf(g,
              "%sfbe_status %s_%s_final_serialize(const fbe_type *type, const void *value, fbe_buffer *out)\n{\n"
              "    if (!type || !value || !out)\n        return FBE_INVALID_ARGUMENT;\n"
              "    uint64_t total = 8 + s%zu_fsize((const uint8_t *)value);\n"
              "    if (total > UINT32_MAX)\n        return FBE_TOO_LARGE;\n"
              "    if (out->capacity - out->size < total) {\n"
              "        fbe_status st = fbe_buffer_reserve(out, (size_t)total);\n"
              "        if (st != FBE_OK)\n            return st;\n    }\n"
              "    uint8_t *start = out->data + out->size;\n"
              "    sc_wr32(start, (uint32_t)total);\n"
              "    sc_wr32(start + 4, %" PRIu32 "u);\n"
              "    s%zu_fwrite((const uint8_t *)value, start + 8);\n"
              "    out->size += (size_t)total;\n"
              "    return FBE_OK;\n}\n\n",
              stor, pre, c, k, st->type_number, k);
    gc_printf(g,
              "%sfbe_status %s_%s_final_verify(const fbe_type *type, const uint8_t *data, size_t size,\n"
              "    fbe_verify_info *info, const fbe_decode_options *options)\n{\n"
              "    if (SC_UNLIKELY(!type || !data))\n"
              "        return fbe_interp_final_verify(type, data, size, info, options);\n"
              "    sc_frd r = {.max_depth = options && options->max_depth ? options->max_depth : SC_MAX_DEPTH};\n"
              "    if (SC_UNLIKELY(sc_fchk_frame(&r, %" PRIu32 "u, data, size) != FBE_OK))\n"
              "        return fbe_interp_final_verify(type, data, size, info, options);\n"
              "    if (SC_LIKELY(s%zu_fv(&r, data + 8, 1) == r.end)) {\n"
              "        if (info)\n"
              "            *info = (fbe_verify_info){.status = FBE_OK};\n"
              "        return FBE_OK;\n    }\n"
              "    return sc_fverify_failed(type, &r, info);\n}\n\n",
              stor, pre, c, st->type_number, k);
    gc_printf(g,
              "%sfbe_status %s_%s_final_deserialize(const fbe_type *type, const uint8_t *data, size_t size,\n"
              "    void *value, const fbe_decode_options *options, size_t *consumed)\n{\n"
              "    if (SC_UNLIKELY(!type || !value || !options || !options->arena || !data))\n"
              "        return fbe_interp_final_deserialize(type, data, size, value, options, consumed);\n"
              "    fbe_arena *arena = options->arena;\n"
              "    char *mark = arena->ptr;\n"
              "    fbe_decode_budget memory = {.max_memory = options->max_memory};\n"
              "    sc_frd r = {.max_depth = options->max_depth ? options->max_depth : SC_MAX_DEPTH,\n"
              "                .borrow = (options->flags & FBE_DECODE_BORROW) != 0,\n"
              "                .arena = arena,\n"
              "                .memory = &memory};\n"
              "    if (SC_LIKELY(sc_fchk_frame(&r, %" PRIu32 "u, data, size) == FBE_OK)) {\n"
              "        memory.input = (size_t)(r.end - data);\n"
              "        if (SC_LIKELY(s%zu_fd(&r, data + 8, (uint8_t *)value, 1) == r.end)) {\n"
              "            if (consumed)\n                *consumed = (size_t)(r.end - data);\n"
              "            return FBE_OK;\n        }\n    }\n"
              "    return sc_read_failed(fbe_interp_final_deserialize, type, data, size, value, options,\n"
              "                          consumed, &memory, mark);\n}\n\n",
              stor, pre, c, st->type_number, k);
}

void gc_emit_entries(gc *g)
{
    gc_printf(g, "\n/* ---- entry points ---- */\n\n");
    for (size_t k = 0; k < g->struct_count; k++)
        entries(g, k);
}
