/* jit_exercise.h */
#define _POSIX_C_SOURCE 200809L
#include "jit_exercise.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "value_gen.h"

/* Whether a value of st can hold a default evaluated at decode time (utc,
 * uuid1, uuid4: an older writer's frame gets a fresh one per decode, so two
 * decodes differ there; test_jit_std compares such values field by field). */
static bool dynamic_type(const fbe_ir_type *t, unsigned depth);

static bool dynamic_defaults(const fbe_ir_struct *st, unsigned depth)
{
    if (depth > 16)
        return true; /* deep or recursive: assume so */
    for (size_t i = 0; i < st->field_count; i++) {
        fbe_ir_value_kind k = st->fields[i].default_value.kind;
        if (k == FBE_IR_VALUE_UTC || k == FBE_IR_VALUE_UUID1 || k == FBE_IR_VALUE_UUID4 ||
            dynamic_type(st->fields[i].type, depth))
            return true;
    }
    return false;
}

static bool dynamic_type(const fbe_ir_type *t, unsigned depth)
{
    if (!t)
        return false;
    if (t->kind == FBE_IR_STRUCT)
        return dynamic_defaults(t->struct_type, depth + 1);
    return dynamic_type(t->elem, depth) || dynamic_type(t->key, depth);
}

/* One byte of the frame changed (where and to what from `s`): both codecs must
 * reject it the same way, or accept it with the same value. */
static const char *mutated(const fbe_type *ti, const fbe_type *tj, fbe_model m, fbe_buffer *frame,
                           uint64_t s, fbe_arena *dec, void *out)
{
    if (!frame->size)
        return NULL;
    size_t pos = (size_t)(s % frame->size);
    uint8_t old = frame->data[pos];
    frame->data[pos] = (uint8_t)(old ^ (1u << (s >> 32) % 8) ^ (s >> 40 & 0xF0));
    const char *what = NULL;
    fbe_verify_info vi = {0}, vj = {0};
    fbe_status si = fbe_verify(ti, m, frame->data, frame->size, &vi);
    fbe_status sj = fbe_verify(tj, m, frame->data, frame->size, &vj);
    if (si != sj || vi.status != vj.status || vi.offset != vj.offset || vi.type != vj.type ||
        vi.field != vj.field)
        what = "mutated frame: verify differs";
    fbe_buffer a, b;
    fbe_buffer_init(&a, NULL, NULL);
    fbe_buffer_init(&b, NULL, NULL);
    if (!what) {
        fbe_arena_reset(dec);
        fbe_decode_options o = {.arena = dec};
        size_t ci = 0, cj = 0;
        size_t host = ti->ir->host_size;
        uint8_t *vi_value = fbe_arena_zalloc(dec, host ? host : 1);
        si = vi_value ? fbe_deserialize(ti, m, frame->data, frame->size, vi_value, &o, &ci) : FBE_NOMEM;
        sj = fbe_deserialize(tj, m, frame->data, frame->size, out, &o, &cj);
        if (si != sj)
            what = "mutated frame: deserialize status differs";
        else if (si == FBE_OK && ci != cj)
            what = "mutated frame: consumed sizes differ";
        else if (si == FBE_OK && !dynamic_defaults(ti->ir, 0) &&
                 ( fbe_serialize(ti, m, vi_value, &a) != FBE_OK ||
                  fbe_serialize(ti, m, out, &b) != FBE_OK || a.size != b.size ||
                  memcmp(a.data, b.data, a.size) != 0))
            what = "mutated frame: decoded values differ";
    }
    fbe_buffer_free(&a);
    fbe_buffer_free(&b);
    frame->data[pos] = old;
    return what;
}

unsigned long exercise(const fbe_schema *schema, const fbe_codec *jit, const fbe_codec *interp,
                              unsigned values, uint64_t seed, char *msg, size_t msg_size)
{
    unsigned long bad = 0;
    fbe_arena gen, dec;
    fbe_arena_init(&gen, NULL, NULL);
    fbe_arena_init(&dec, NULL, NULL);
    fbe_buffer bi, bj, re;
    fbe_buffer_init(&bi, NULL, NULL);
    fbe_buffer_init(&bj, NULL, NULL);
    fbe_buffer_init(&re, NULL, NULL);
    if (msg_size)
        msg[0] = 0;
    for (size_t p = 0; p < fbe_schema_package_count(schema); p++) {
        const fbe_ir_package *pkg = fbe_schema_package(schema, p);
        for (size_t k = 0; k < pkg->struct_count; k++) {
            const fbe_ir_struct *ir = pkg->structs[k];
            const fbe_type *ti = fbe_codec_type_of(interp, ir), *tj = fbe_codec_type_of(jit, ir);
            size_t cap = (ir->host_size + 15) / 16 * 16;
            uint8_t *value = aligned_alloc(16, cap), *out = aligned_alloc(16, cap);
            if (!ti || !tj || !value || !out) {
                bad++;
                snprintf(msg, msg_size, "%s: no type or no memory", ir->full_name);
                free(value);
                free(out);
                continue;
            }
            for (unsigned i = 0; i < values; i++) {
                uint64_t s = seed + i * UINT64_C(0x9E3779B97F4A7C15) + k;
                uint64_t value_seed = s;
                fbe_arena_reset(&gen);
                gen_value(ir, value, &gen, &s, 0);
                for (int m = 0; m < 2; m++) {
                    fbe_buffer_clear(&bi);
                    fbe_buffer_clear(&bj);
                    fbe_buffer_clear(&re);
                    fbe_arena_reset(&dec);
                    const char *what = NULL;
                    fbe_decode_options o = {.arena = &dec};
                    if (fbe_serialize(ti, (fbe_model)m, value, &bi) != FBE_OK ||
                        fbe_serialize(tj, (fbe_model)m, value, &bj) != FBE_OK)
                        what = "serialize failed";
                    else if (fbe_size(tj, (fbe_model)m, value) != bj.size)
                        what = "size differs from serialized size";
                    else if (bi.size != bj.size || memcmp(bi.data, bj.data, bi.size) != 0)
                        what = "interp and jit bytes differ";
                    else if (fbe_verify(tj, (fbe_model)m, bj.data, bj.size, NULL) != FBE_OK)
                        what = "jit verify failed";
                    else if (fbe_deserialize(tj, (fbe_model)m, bj.data, bj.size, out, &o, NULL) != FBE_OK)
                        what = "jit deserialize failed";
                    else if (fbe_serialize(ti, (fbe_model)m, out, &re) != FBE_OK || re.size != bj.size ||
                             memcmp(re.data, bj.data, re.size) != 0)
                        what = "jit-decoded value re-serializes differently";
                    if (!what)
                        what = mutated(ti, tj, (fbe_model)m, &bj, s, &dec, out);
                    if (what) {
                        if (!bad++)
                            snprintf(msg, msg_size, "%s %s seed=0x%016" PRIx64 ": %s", ir->full_name,
                                     m ? "final" : "std", value_seed, what);
                    }
                }
            }
            free(value);
            free(out);
        }
    }
    fbe_buffer_free(&bi);
    fbe_buffer_free(&bj);
    fbe_buffer_free(&re);
    fbe_arena_free(&gen);
    fbe_arena_free(&dec);
    return bad;
}

