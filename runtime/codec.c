/* The codec object, whatever the backend, and AOT codecs: a codec built from an
 * image compiled into the program by `fbec aot` (docs/aot.md), with nothing but
 * this library. */
#include <stdlib.h>
#include <string.h>

#include "codec_impl.h"
#include "fbe/aot.h"

void fbe_codec_free(fbe_codec *codec)
{
    if (!codec)
        return;
    if (codec->destroy_backend)
        codec->destroy_backend(codec);
    fbe_arena_free(&codec->arena);
    free(codec);
}

fbe_backend fbe_codec_backend(const fbe_codec *codec)
{
    return codec->backend;
}

const char *fbe_backend_name(fbe_backend backend)
{
    switch (backend) {
    case FBE_BACKEND_INTERP: return "interp";
    case FBE_BACKEND_JIT: return "jit";
    case FBE_BACKEND_AOT: return "aot";
    case FBE_BACKEND_STATIC: return "static";
    }
    return "?";
}

unsigned fbe_codec_max_depth(const fbe_codec *codec)
{
    return codec->max_depth;
}

const fbe_type *fbe_codec_type(const fbe_codec *codec, const char *name)
{
    /* Types are in package order, imports first: searching backwards prefers the
     * root package for unqualified names. */
    bool qualified = strchr(name, '.') != NULL;
    for (size_t i = codec->type_count; i-- > 0;) {
        const fbe_ir_struct *st = codec->types[i].ir;
        if (strcmp(qualified ? st->full_name : st->name, name) == 0)
            return &codec->types[i];
    }
    return NULL;
}

static size_t type_hash(const fbe_ir_struct *st, size_t mask)
{
    uint64_t h = (uint64_t)(uintptr_t)st * 0x9e3779b97f4a7c15u;
    return (size_t)(h >> 32) & mask;
}

bool fbe_codec_index_types(fbe_codec *codec, size_t count)
{
    size_t cap = 16;
    while (cap < 2 * count)
        cap *= 2;
    codec->type_index = fbe_arena_zalloc(&codec->arena, sizeof *codec->type_index * cap);
    if (!codec->type_index)
        return false;
    codec->type_index_mask = cap - 1;
    for (size_t i = 0; i < count; i++) {
        const fbe_ir_struct *st = codec->types[i].ir;
        size_t h = type_hash(st, cap - 1);
        while (codec->type_index[h] && codec->types[codec->type_index[h] - 1].ir != st)
            h = (h + 1) & (cap - 1);
        if (!codec->type_index[h])
            codec->type_index[h] = (uint32_t)i + 1;
    }
    return true;
}

size_t fbe_codec_index_of(const fbe_codec *codec, const fbe_ir_struct *st)
{
    if (!codec->type_index)
        return SIZE_MAX;
    size_t mask = codec->type_index_mask;
    for (size_t h = type_hash(st, mask); codec->type_index[h]; h = (h + 1) & mask)
        if (codec->types[codec->type_index[h] - 1].ir == st)
            return codec->type_index[h] - 1;
    return SIZE_MAX;
}

const fbe_type *fbe_codec_type_of(const fbe_codec *codec, const fbe_ir_struct *ir)
{
    size_t i = fbe_codec_index_of(codec, ir);
    return i < codec->type_count ? &codec->types[i] : NULL;
}

size_t fbe_codec_type_count(const fbe_codec *codec)
{
    return codec->type_count;
}

const fbe_type *fbe_codec_type_at(const fbe_codec *codec, size_t index)
{
    return index < codec->type_count ? &codec->types[index] : NULL;
}

/* ---- AOT codecs ---------------------------------------------------------------- */

/* Backends whose codec is made from an fbe_aot_image. */
static bool is_image_backend(fbe_backend b)
{
    return b == FBE_BACKEND_AOT || b == FBE_BACKEND_STATIC;
}

static fbe_codec *aot_fail(fbe_codec *codec, fbe_status *status, fbe_status why)
{
    if (status)
        *status = why;
    fbe_codec_free(codec);
    return NULL;
}

static void free_interp(fbe_codec *codec)
{
    fbe_codec_free(codec->interp);
}

/* The image's types, each with the program of the interpreter over the image's
 * IR (made here, freed with the codec): native code hands it every frame it
 * does not take on its own path (a failure, an older writer's body), and an
 * entry point the object lacks is the interpreter's. */
fbe_codec *fbe_aot_codec_create(const fbe_aot_image *image, fbe_status *status)
{
    if (!image || (image->type_count && !image->types))
        return aot_fail(NULL, status, FBE_INVALID_ARGUMENT);
    fbe_status why = FBE_NOMEM;
    fbe_codec *interp = fbe_interp_create_image(image, NULL, &why);
    if (!interp)
        return aot_fail(NULL, status, why);
    fbe_codec *codec = calloc(1, sizeof *codec);
    if (!codec) {
        fbe_codec_free(interp);
        return aot_fail(NULL, status, FBE_NOMEM);
    }
    fbe_arena_init(&codec->arena, NULL, NULL);
    codec->interp = interp;
    codec->destroy_backend = free_interp;
    codec->backend = image->flags & FBE_AOT_IMAGE_STATIC_C ? FBE_BACKEND_STATIC : FBE_BACKEND_AOT;
    codec->max_depth = interp->max_depth;
    codec->backend_data = (void *)(uintptr_t)image;
    size_t n = image->type_count;
    codec->types = fbe_arena_zalloc(&codec->arena, sizeof *codec->types * (n + 1));
    if (!codec->types)
        return aot_fail(codec, status, FBE_NOMEM);
    for (size_t i = 0; i < n; i++) {
        const fbe_aot_type *src = &image->types[i];
        const fbe_type *it = fbe_codec_type_of(interp, src->ir);
        if (!it) /* a type outside the image's packages */
            return aot_fail(codec, status, FBE_INVALID_ARGUMENT);
        fbe_type *t = &codec->types[i];
        t->ir = src->ir;
        t->codec = codec;
        t->impl = it->impl;
        for (int m = 0; m < 2; m++) {
            const fbe_model_ops *in = &src->ops[m], *alt = &it->ops[m];
            t->ops[m] = (fbe_model_ops){
                in->size ? in->size : alt->size,
                in->serialize ? in->serialize : alt->serialize,
                in->verify ? in->verify : alt->verify,
                in->deserialize ? in->deserialize : alt->deserialize,
            };
        }
    }
    codec->type_count = n;
    if (!fbe_codec_index_types(codec, n) || !fbe_codec_guard_depth(codec))
        return aot_fail(codec, status, FBE_NOMEM);
    if (status)
        *status = FBE_OK;
    return codec;
}

const fbe_aot_image *fbe_aot_codec_image(const fbe_codec *codec)
{
    return codec && is_image_backend(codec->backend) ? codec->backend_data : NULL;
}

bool fbe_aot_has_op(const fbe_type *type, fbe_model model, fbe_op op)
{
    if (!type || !type->codec || !is_image_backend(type->codec->backend))
        return true;
    const fbe_aot_image *image = type->codec->backend_data;
    const fbe_model_ops *ops = &image->types[type - type->codec->types].ops[model];
    switch (op) {
    case FBE_OP_SIZE: return ops->size != NULL;
    case FBE_OP_SERIALIZE: return ops->serialize != NULL;
    case FBE_OP_VERIFY: return ops->verify != NULL;
    case FBE_OP_DESERIALIZE: return ops->deserialize != NULL;
    }
    return false;
}

/* One post-pass for every backend: the codecs accept any key order, as the
 * reference's readers do; FBE_DECODE_STRICT_ORDER adds the check (docs/keys.md). */
fbe_status fbe_deserialize_strict(const fbe_type *t, fbe_model m, const uint8_t *data,
                                  size_t size, void *value, const fbe_decode_options *options,
                                  size_t *consumed)
{
    fbe_status st = FBE_LOAD_OP_(t, m, deserialize)(t, data, size, value, options, consumed);
    if (st == FBE_OK)
        st = fbe_value_check_order(t->ir, value, NULL);
    return st;
}
