/* The entry points of a static C codec: per struct, the eight functions of
 * fbe_model_ops for both models (fbe/codec.h signatures), with the argument
 * checks, frame handling and error reports of the interpreter's entry points
 * (runtime/interp/std_write.c, std_read.c, final.c). The root package's are
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
    uint32_t hs = st->host_size;

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
              "    if (!type || (!data && size)) {\n"
              "        if (info)\n            *info = (fbe_verify_info){.status = FBE_INVALID_ARGUMENT};\n"
              "        return FBE_INVALID_ARGUMENT;\n    }\n"
              "    sc_rd rd = {.max_depth = options && options->max_depth ? options->max_depth : SC_MAX_DEPTH};\n    sc_rd *r = &rd;\n"
              "    fbe_status st = sc_chk_frame(r, data, size);\n"
              "    if (st == FBE_OK)\n        st = s%zu_sv(r, 4, 0, 1);\n"
              "    if (info) {\n"
              "        if (st == FBE_OK) {\n"
              "            *info = (fbe_verify_info){.status = FBE_OK};\n"
              "        } else {\n"
              "            sc_locate(r, &ir_s%zu, NULL);\n"
              "            *info = (fbe_verify_info){.status = st, .offset = (size_t)r->err_pos,\n"
              "                                      .type = r->err_type, .field = r->err_field};\n"
              "        }\n    }\n    return st;\n}\n\n",
              stor, pre, c, k, k);
    gc_printf(g,
              "%sfbe_status %s_%s_std_deserialize(const fbe_type *type, const uint8_t *data, size_t size,\n"
              "    void *value, const fbe_decode_options *options, size_t *consumed)\n{\n"
              "    if (consumed)\n        *consumed = 0;\n"
              "    if (!type || !value)\n        return FBE_INVALID_ARGUMENT;\n"
              "    if (!options || !options->arena || (!data && size)) {\n"
              "        memset(value, 0, %" PRIu32 ");\n        return FBE_INVALID_ARGUMENT;\n    }\n"
              "    fbe_decode_budget memory = {.max_memory = options->max_memory};\n"
              "    sc_rd r = {.max_depth = options->max_depth ? options->max_depth : SC_MAX_DEPTH,\n"
              "               .arena = options->arena,\n"
              "               .memory = &memory,\n"
              "               .borrow = (options->flags & FBE_DECODE_BORROW) != 0};\n"
              "    fbe_status st = sc_chk_frame(&r, data, size);\n"
              "    if (st != FBE_OK) {\n        memset(value, 0, %" PRIu32 ");\n        return st;\n    }\n"
              "    memory.input = (size_t)r.size;\n"
              "    st = s%zu_sd(&r, 4, 0, (uint8_t *)value, 1);\n"
              "    if (st != FBE_OK)\n        return fbe_decode_status(st, &memory);\n"
              "    if (consumed)\n        *consumed = (size_t)r.size;\n"
              "    return FBE_OK;\n}\n\n",
              stor, pre, c, hs, hs, k);

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
              "    if (!type || (!data && size)) {\n"
              "        if (info)\n            *info = (fbe_verify_info){FBE_INVALID_ARGUMENT, 0, NULL, NULL};\n"
              "        return FBE_INVALID_ARGUMENT;\n    }\n"
              "    sc_frd r = {.max_depth = options && options->max_depth ? options->max_depth : SC_MAX_DEPTH};\n"
              "    fbe_status st = sc_fchk_frame(&r, %" PRIu32 "u, data, size);\n"
              "    if (st == FBE_OK) {\n"
              "        const uint8_t *q = s%zu_fv(&r, data + 8, 1);\n"
              "        if (!q) {\n            st = r.status;\n"
              "        } else if (q != r.end) {\n"
              "            st = r.status = FBE_FINAL_SIZE;\n"
              "            r.pos = (size_t)(q - data);\n        }\n    }\n"
              "    if (info) {\n"
              "        info->status = st;\n"
              "        info->offset = st == FBE_OK ? 0 : r.pos;\n"
              "        info->type = r.type ? r.type : &ir_s%zu;\n"
              "        info->field = r.field;\n    }\n"
              "    return st;\n}\n\n",
              stor, pre, c, st->type_number, k, k);
    gc_printf(g,
              "%sfbe_status %s_%s_final_deserialize(const fbe_type *type, const uint8_t *data, size_t size,\n"
              "    void *value, const fbe_decode_options *options, size_t *consumed)\n{\n"
              "    if (consumed)\n        *consumed = 0;\n"
              "    if (!type || !value || !options || !options->arena || (!data && size))\n"
              "        return FBE_INVALID_ARGUMENT;\n"
              "    fbe_decode_budget memory = {.max_memory = options->max_memory};\n"
              "    sc_frd r = {.max_depth = options->max_depth ? options->max_depth : SC_MAX_DEPTH,\n"
              "                .borrow = (options->flags & FBE_DECODE_BORROW) != 0,\n"
              "                .arena = options->arena,\n"
              "                .memory = &memory};\n"
              "    fbe_status st = sc_fchk_frame(&r, %" PRIu32 "u, data, size);\n"
              "    if (st != FBE_OK) {\n        memset(value, 0, %" PRIu32 ");\n        return st;\n    }\n"
              "    memory.input = (size_t)(r.end - data);\n"
              "    const uint8_t *q = s%zu_fd(&r, data + 8, (uint8_t *)value, 1);\n"
              "    if (!q) {\n",
              stor, pre, c, st->type_number, hs, k);
    if (st->final_fixed)
        gc_printf(g, "        memset(value, 0, %" PRIu32 "); /* nothing to salvage */\n", hs);
    gc_printf(g,
              "        return fbe_decode_status(r.status, &memory);\n    }\n"
              "    if (q != r.end)\n        return FBE_FINAL_SIZE;\n"
              "    if (consumed)\n        *consumed = (size_t)(r.end - data);\n"
              "    return FBE_OK;\n}\n\n");
}

void gc_emit_entries(gc *g)
{
    gc_printf(g, "\n/* ---- entry points ---- */\n\n");
    for (size_t k = 0; k < g->struct_count; k++)
        entries(g, k);
}
