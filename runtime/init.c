/* Schema defaults applied to host values by reflection over the IR: the runtime
 * twin of the generated `_init` functions, also used by deserialize for fields
 * an older writer did not have. */
#include <string.h>

#include "fbe/codec.h"

static void store_int(void *p, uint32_t size, uint64_t v)
{
    switch (size) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

/* Writes a non-optional value of type t. */
static void store_value(const fbe_ir_type *t, const fbe_ir_value *v, void *p)
{
    switch (v->kind) {
    case FBE_IR_VALUE_BOOL:
        *(bool *)p = v->b;
        break;
    case FBE_IR_VALUE_INT:
        store_int(p, t->host_size, v->u);
        break;
    case FBE_IR_VALUE_FLOAT:
        if (t->kind == FBE_IR_FLOAT) {
            float f = (float)v->d;
            memcpy(p, &f, 4);
        } else {
            memcpy(p, &v->d, 8);
        }
        break;
    case FBE_IR_VALUE_DECIMAL:
        memcpy(p, &v->dec, sizeof v->dec);
        break;
    case FBE_IR_VALUE_STRING: {
        fbe_string s = v->str;
        memcpy(p, &s, sizeof s);
        break;
    }
    case FBE_IR_VALUE_UUID:
        memcpy(p, &v->uuid, sizeof v->uuid);
        break;
    case FBE_IR_VALUE_UUID1: {
        fbe_uuid u = fbe_uuid_v1();
        memcpy(p, &u, sizeof u);
        break;
    }
    case FBE_IR_VALUE_UUID4: {
        fbe_uuid u = fbe_uuid_v4();
        memcpy(p, &u, sizeof u);
        break;
    }
    case FBE_IR_VALUE_UTC: {
        uint64_t now = fbe_timestamp_now();
        memcpy(p, &now, 8);
        break;
    }
    default:
        break;
    }
}

static void init_zeroed(const fbe_ir_struct *type, void *value);

/* The default of a value whose bytes are already zero: nested struct inits,
 * then the declared default. Zeroing once at the top instead of at every
 * nesting level keeps a deep by-value chain linear in its size. */
static void init_type_zeroed(const fbe_ir_type *t, const fbe_ir_value *v, void *p)
{
    if (t->kind == FBE_IR_STRUCT) {
        init_zeroed(t->struct_type, p);
        return;
    }
    if (t->kind == FBE_IR_ARRAY && t->elem->kind == FBE_IR_STRUCT) {
        for (uint32_t i = 0; i < t->array_len; i++)
            init_zeroed(t->elem->struct_type, (char *)p + (size_t)i * t->elem->host_size);
        return;
    }
    if (!v || v->kind == FBE_IR_VALUE_NONE || v->kind == FBE_IR_VALUE_NULL)
        return;
    if (t->kind == FBE_IR_OPTIONAL) {
        if (t->elem->kind == FBE_IR_STRUCT)
            return; /* struct optionals have no non-null default */
        *(bool *)p = true;
        store_value(t->elem, v, (char *)p + t->host_value_offset);
        return;
    }
    store_value(t, v, p);
}

static void init_zeroed(const fbe_ir_struct *type, void *value)
{
    for (size_t i = 0; i < type->field_count; i++) {
        const fbe_ir_field *f = &type->fields[i];
        init_type_zeroed(f->type, &f->default_value, (char *)value + f->host_offset);
    }
}

void fbe_init_field(const fbe_ir_field *field, void *field_ptr)
{
    memset(field_ptr, 0, field->type->host_size);
    init_type_zeroed(field->type, &field->default_value, field_ptr);
}

void fbe_init(const fbe_ir_struct *type, void *value)
{
    memset(value, 0, type->host_size);
    init_zeroed(type, value);
}

const fbe_ir_field *fbe_field_by_name(const fbe_ir_struct *type, const char *name)
{
    for (size_t i = 0; i < type->field_count; i++)
        if (strcmp(type->fields[i].name, name) == 0)
            return &type->fields[i];
    return NULL;
}
