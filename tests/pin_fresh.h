/* Defaults applied fresh each time they are applied (utc, uuid1, uuid4: in the
 * golden schemas test.StructSimple's f35 and f37, test.StructOptional's f149)
 * differ between two values that got them, so tests give such fields fixed
 * bytes before comparing: fbe_init's `default` values against the golden
 * files (whose generator pinned the same three fields, README "Determinism"),
 * and two decodes of a body an older writer seems to have sent. Walks the
 * value wherever such a field can be: nested and optional structs, present
 * optionals, arrays, collection elements, map keys and values.
 *
 * A header of static functions: the check programs that test_aot and
 * test_static compile and link with the runtime alone include it too. */
#ifndef FBE_TESTS_PIN_FRESH_H
#define FBE_TESTS_PIN_FRESH_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fbe/ir.h"
#include "fbe/types.h"

typedef struct pin_values {
    uint64_t timestamp;
    uint8_t uuid[16];
} pin_values;

static void pin_fresh_type(const pin_values *pv, const fbe_ir_type *t, uint8_t *p, bool fresh);

static inline void pin_fresh(const pin_values *pv, const fbe_ir_struct *st, uint8_t *v)
{
    for (size_t i = 0; i < st->field_count; i++) {
        const fbe_ir_field *f = &st->fields[i];
        fbe_ir_value_kind k = f->default_value.kind;
        pin_fresh_type(pv, f->type, v + f->host_offset,
                       k == FBE_IR_VALUE_UTC || k == FBE_IR_VALUE_UUID1 || k == FBE_IR_VALUE_UUID4);
    }
}

static void pin_fresh_type(const pin_values *pv, const fbe_ir_type *t, uint8_t *p, bool fresh)
{
    switch (t->kind) {
    case FBE_IR_TIMESTAMP:
        if (fresh)
            memcpy(p, &pv->timestamp, 8);
        break;
    case FBE_IR_UUID:
        if (fresh)
            memcpy(p, pv->uuid, 16);
        break;
    case FBE_IR_STRUCT:
        pin_fresh(pv, t->struct_type, p);
        break;
    case FBE_IR_OPTIONAL:
        if (t->elem->kind == FBE_IR_STRUCT) {
            uint8_t *q;
            memcpy(&q, p, sizeof q);
            if (q)
                pin_fresh(pv, t->elem->struct_type, q);
        } else if (p[0]) {
            pin_fresh_type(pv, t->elem, p + t->host_value_offset, fresh);
        }
        break;
    case FBE_IR_ARRAY:
        for (uint32_t i = 0; i < t->array_len; i++)
            pin_fresh_type(pv, t->elem, p + (size_t)i * t->elem->host_size, false);
        break;
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        fbe_seq s;
        memcpy(&s, p, sizeof s);
        bool map = t->kind == FBE_IR_MAP || t->kind == FBE_IR_HASH;
        size_t stride = map ? t->host_entry_size : t->elem->host_size;
        for (size_t i = 0; s.data && i < s.size; i++) {
            uint8_t *item = (uint8_t *)s.data + i * stride;
            if (map)
                pin_fresh_type(pv, t->key, item, false);
            pin_fresh_type(pv, t->elem, map ? item + t->host_entry_value_offset : item, false);
        }
        break;
    }
    default:
        break;
    }
}

#endif
