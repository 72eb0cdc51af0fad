/* The IR's type kinds (fbe/ir.h): names and classes. In the runtime, not in ir/,
 * because the interpreter, printing and JSON of a program without the compiler
 * (an AOT image only) need them. */
#include "fbe/ir.h"

#include <stdio.h>
#include <string.h>

const char *fbe_ir_kind_name(fbe_ir_kind kind)
{
    static const char *const names[] = {
#define FBE_IR_KIND_NAME_(k, s, n) s,
        FBE_IR_KINDS(FBE_IR_KIND_NAME_)
#undef FBE_IR_KIND_NAME_
    };
    return (unsigned)kind < FBE_IR_KIND_COUNT ? names[kind] : "?";
}

bool fbe_ir_kind_is_integer(fbe_ir_kind kind)
{
    switch (kind) {
    case FBE_IR_BYTE: case FBE_IR_CHAR: case FBE_IR_WCHAR:
    case FBE_IR_INT8: case FBE_IR_UINT8: case FBE_IR_INT16: case FBE_IR_UINT16:
    case FBE_IR_INT32: case FBE_IR_UINT32: case FBE_IR_INT64: case FBE_IR_UINT64:
        return true;
    default:
        return false;
    }
}

bool fbe_ir_kind_is_scalar(fbe_ir_kind kind)
{
    switch (kind) {
    case FBE_IR_STRING: case FBE_IR_BYTES: case FBE_IR_STRUCT: case FBE_IR_OPTIONAL:
    case FBE_IR_ARRAY: case FBE_IR_VECTOR: case FBE_IR_LIST: case FBE_IR_SET:
    case FBE_IR_MAP: case FBE_IR_HASH:
        return false;
    default:
        return true;
    }
}

bool fbe_ir_kind_is_keyed(fbe_ir_kind kind)
{
    return kind == FBE_IR_MAP || kind == FBE_IR_HASH;
}

uint32_t fbe_ir_std_entry_size(const fbe_ir_type *t)
{
    return (fbe_ir_kind_is_keyed(t->kind) ? t->key->std_inline_size : 0) + t->elem->std_inline_size;
}

fbe_ir_shape fbe_ir_shape_of(const fbe_ir_type *t)
{
    switch (t->kind) {
    case FBE_IR_BOOL: return FBE_IR_SHAPE_BOOL;
    case FBE_IR_STRING:
    case FBE_IR_BYTES: return FBE_IR_SHAPE_STRING;
    case FBE_IR_STRUCT: return FBE_IR_SHAPE_STRUCT;
    case FBE_IR_OPTIONAL:
        return t->elem->kind == FBE_IR_STRUCT ? FBE_IR_SHAPE_OPT_STRUCT : FBE_IR_SHAPE_OPTIONAL;
    case FBE_IR_ARRAY: return FBE_IR_SHAPE_ARRAY;
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET: return FBE_IR_SHAPE_SEQ;
    case FBE_IR_MAP:
    case FBE_IR_HASH: return FBE_IR_SHAPE_MAP;
    default: return FBE_IR_SHAPE_COPY; /* integers, floats, enums, flags, decimal, uuid, timestamp */
    }
}

/* A base type of the schema language: a scalar, string, bytes, or an enum,
 * flags or struct with its declaration. */
static bool base_shape(const fbe_ir_type *t)
{
    if (!t || (unsigned)t->kind >= FBE_IR_KIND_COUNT)
        return false;
    if (t->kind == FBE_IR_ENUM)
        return t->enum_type != NULL;
    if (t->kind == FBE_IR_FLAGS)
        return t->flags_type != NULL;
    if (t->kind == FBE_IR_STRUCT)
        return t->struct_type != NULL;
    return fbe_ir_kind_is_scalar(t->kind) || t->kind == FBE_IR_STRING || t->kind == FBE_IR_BYTES;
}

/* T or T? of a base type T: what an array or collection holds. */
static bool element_shape(const fbe_ir_type *t)
{
    return base_shape(t) || (t && t->kind == FBE_IR_OPTIONAL && base_shape(t->elem));
}

bool fbe_ir_type_has_schema_shape(const fbe_ir_type *t)
{
    if (!t)
        return false;
    switch (t->kind) {
    case FBE_IR_OPTIONAL:
        return base_shape(t->elem);
    case FBE_IR_ARRAY:
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
        return element_shape(t->elem);
    case FBE_IR_SET: /* T! only: no optional elements */
        return base_shape(t->elem);
    case FBE_IR_MAP:
    case FBE_IR_HASH:
        return base_shape(t->key) && element_shape(t->elem);
    default:
        return base_shape(t);
    }
}

bool fbe_ir_type_is_plain(const fbe_ir_type *t)
{
    bool same_size = t->final_fixed && t->host_size == t->std_inline_size &&
                     t->final_size == t->std_inline_size;
    if (t->kind == FBE_IR_ARRAY)
        return same_size && fbe_ir_type_is_plain(t->elem);
    return same_size && t->kind != FBE_IR_BOOL && fbe_ir_kind_is_scalar(t->kind);
}

/* Runs stay below 2^32 bytes: the programs keep a run's length in 32 bits. */
size_t fbe_ir_plain_run(const fbe_ir_field *f, size_t i, size_t hi)
{
    if (i >= hi || !fbe_ir_type_is_plain(f[i].type))
        return i;
    uint64_t len = f[i].type->std_inline_size;
    size_t j = i + 1;
    while (j < hi && fbe_ir_type_is_plain(f[j].type) &&
           f[j].std_offset == (uint64_t)f[i].std_offset + len &&
           f[j].host_offset == (uint64_t)f[i].host_offset + len &&
           len + f[j].type->std_inline_size <= UINT32_MAX) {
        len += f[j].type->std_inline_size;
        j++;
    }
    return j;
}

uint32_t fbe_ir_plain_run_bytes(const fbe_ir_field *f, size_t i, size_t j)
{
    /* adjacent fields, at most UINT32_MAX bytes in all (fbe_ir_plain_run) */
    return j > i ? f[j - 1].std_offset + f[j - 1].type->std_inline_size - f[i].std_offset : 0;
}

bool fbe_ir_kind_is_signed(fbe_ir_kind kind)
{
    return kind == FBE_IR_INT8 || kind == FBE_IR_INT16 || kind == FBE_IR_INT32 ||
           kind == FBE_IR_INT64;
}

fbe_ir_kind fbe_ir_int_kind(const fbe_ir_type *t)
{
    return fbe_ir_base_kind(t->kind == FBE_IR_OPTIONAL ? t->elem : t);
}

fbe_ir_kind fbe_ir_base_kind(const fbe_ir_type *t)
{
    if (t->kind == FBE_IR_ENUM)
        return t->enum_type->base;
    if (t->kind == FBE_IR_FLAGS)
        return t->flags_type->base;
    return t->kind;
}

/* Appends to buf[*len..size) (NUL-terminated while room remains) and counts
 * every byte, so the caller learns the whole length even when it is cut. */
static void spell_put(char *buf, size_t size, size_t *len, const char *s)
{
    for (; *s; s++, (*len)++)
        if (*len + 1 < size)
            buf[*len] = *s;
    if (size)
        buf[*len < size ? *len : size - 1] = '\0';
}

static void spell(const fbe_ir_type *t, char *buf, size_t size, size_t *len)
{
    switch (t->kind) {
    case FBE_IR_ENUM: spell_put(buf, size, len, t->enum_type->full_name); return;
    case FBE_IR_FLAGS: spell_put(buf, size, len, t->flags_type->full_name); return;
    case FBE_IR_STRUCT: spell_put(buf, size, len, t->struct_type->full_name); return;
    default: break;
    }
    if (!t->elem) {
        spell_put(buf, size, len, fbe_ir_kind_name(t->kind));
        return;
    }
    spell(t->elem, buf, size, len);
    char count[16];
    switch (t->kind) {
    case FBE_IR_OPTIONAL: spell_put(buf, size, len, "?"); return;
    case FBE_IR_ARRAY:
        snprintf(count, sizeof count, "[%u]", t->array_len);
        spell_put(buf, size, len, count);
        return;
    case FBE_IR_VECTOR: spell_put(buf, size, len, "[]"); return;
    case FBE_IR_LIST: spell_put(buf, size, len, "()"); return;
    case FBE_IR_SET: spell_put(buf, size, len, "!"); return;
    case FBE_IR_MAP: spell_put(buf, size, len, "<"); break;
    default: spell_put(buf, size, len, "{"); break;
    }
    if (t->key)
        spell(t->key, buf, size, len);
    spell_put(buf, size, len, t->kind == FBE_IR_MAP ? ">" : "}");
}

size_t fbe_ir_type_spelling(const fbe_ir_type *t, char *buf, size_t size)
{
    size_t len = 0;
    if (size)
        buf[0] = '\0';
    spell(t, buf, size, &len);
    return len;
}

void fbe_ir_symbol_name(const char *name, char out[FBE_IR_MAX_SYMBOL + 1])
{
    size_t len = 0;
    uint64_t hash = 0xcbf29ce484222325u; /* FNV-1a, 64 bits */
    for (const char *c = name; *c; c++, len++) {
        hash = (hash ^ (unsigned char)*c) * 0x100000001b3u;
        bool alnum = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                     (*c >= '0' && *c <= '9');
        if (len < FBE_IR_MAX_SYMBOL)
            out[len] = alnum ? *c : '_';
    }
    if (len <= FBE_IR_MAX_SYMBOL) {
        out[len] = '\0';
        return;
    }
    /* 17 characters of suffix: '_' and the hash in 16 hex digits. */
    snprintf(out + FBE_IR_MAX_SYMBOL - 17, 18, "_%016llx", (unsigned long long)hash);
}

void fbe_ir_package_prefix(const fbe_ir_package *pkg, char out[FBE_IR_MAX_PREFIX + 1])
{
    memcpy(out, "fbe_", 4);
    fbe_ir_symbol_name(pkg->name, out + 4);
}
