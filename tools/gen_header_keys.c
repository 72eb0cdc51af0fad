/* Key functions of generated headers (docs/keys.md). Each field kind is spelled
 * with the fbe_key_* primitives of <fbe/value.h>, in the same order and with the
 * same recipes as runtime/value.c, so the generated and the reflective functions
 * give identical results (tests/test_value_gen.c checks it on random values). */
#include "gen_header_keys.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A growable string; on allocation failure it stays failed and is freed. */
typedef struct text {
    char *data;
    size_t len, cap;
    bool oom;
} text;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(text *t, const char *fmt, ...)
{
    if (t->oom)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->oom = true;
        return;
    }
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->len + (size_t)n + 1)
            cap *= 2;
        char *p = realloc(t->data, cap);
        if (!p) {
            t->oom = true;
            return;
        }
        t->data = p;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->data + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

static const char *str(const text *t)
{
    return t->data ? t->data : "";
}

/* An integer-like value as the argument of fbe_key_*_i64/_u64, with the signed
 * reading of `char` and `wchar_t` of the reference on x86-64 Linux. Sets *sig. */
static void int_arg(text *t, fbe_ir_kind k, const char *v, bool *sig)
{
    switch (k) {
    case FBE_IR_CHAR:
        put(t, "(int8_t)%s", v);
        *sig = true;
        break;
    case FBE_IR_WCHAR:
        put(t, "(int32_t)%s", v);
        *sig = true;
        break;
    default:
        put(t, "%s", v);
        *sig = fbe_ir_kind_is_signed(k);
        break;
    }
}

/* An expression of the comparison of a and b, when one exists (not for optionals
 * and sequences, which need statements). */
static bool cmp_expr(text *t, const fbe_ir_type *ty, const char *a, const char *b)
{
    fbe_ir_kind k = fbe_ir_base_kind(ty);
    switch (k) {
    case FBE_IR_BOOL: put(t, "fbe_key_cmp_u64(%s, %s)", a, b); return true;
    case FBE_IR_FLOAT:
    case FBE_IR_DOUBLE: put(t, "fbe_key_cmp_double(%s, %s)", a, b); return true;
    case FBE_IR_DECIMAL: put(t, "fbe_key_cmp_decimal(&%s, &%s)", a, b); return true;
    case FBE_IR_UUID: put(t, "fbe_key_cmp_uuid(&%s, &%s)", a, b); return true;
    case FBE_IR_STRING: put(t, "fbe_key_cmp_string(&%s, &%s)", a, b); return true;
    case FBE_IR_BYTES:
        put(t, "fbe_key_cmp_bytes(%s.data, %s.size, %s.data, %s.size)", a, a, b, b);
        return true;
    case FBE_IR_STRUCT:
        put(t, "%s_compare(&%s, &%s)", ty->struct_type->c_name, a, b);
        return true;
    case FBE_IR_OPTIONAL:
    case FBE_IR_ARRAY:
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH: return false;
    default: {
        text x = {0}, y = {0};
        bool sig = false;
        int_arg(&x, k, a, &sig);
        int_arg(&y, k, b, &sig);
        put(t, "fbe_key_cmp_%s(%s, %s)", sig ? "i64" : "u64", str(&x),
            str(&y));
        t->oom |= x.oom || y.oom;
        free(x.data);
        free(y.data);
        return true;
    }
    }
}

/* Statements returning the comparison of a and b when it is not zero; loop
 * variables are numbered by `depth`. */
static void emit_cmp(text *t, const fbe_ir_type *ty, const char *a, const char *b, int depth,
                     int ind)
{
    text e = {0};
    if (cmp_expr(&e, ty, a, b)) {
        put(t, "%*sif ((c = %s) != 0)\n%*sreturn c;\n", ind, "", str(&e),
            ind + 4, "");
        t->oom |= e.oom;
        free(e.data);
        return;
    }
    free(e.data);
    text x = {0}, y = {0};
    switch (ty->kind) {
    case FBE_IR_OPTIONAL:
        if (ty->elem->kind == FBE_IR_STRUCT) {
            /* absent (NULL) sorts first, like std::nullopt */
            put(t, "%*sif ((c = fbe_key_cmp_i64(%s != NULL, %s != NULL)) != 0)\n%*sreturn c;\n",
                ind, "", a, b, ind + 4, "");
            put(t, "%*sif (%s && (c = %s_compare(%s, %s)) != 0)\n%*sreturn c;\n", ind, "", a,
                ty->elem->struct_type->c_name, a, b, ind + 4, "");
        } else {
            put(t, "%*sif ((c = fbe_key_cmp_u64(%s.has_value, %s.has_value)) != 0)\n%*sreturn c;\n",
                ind, "", a, b, ind + 4, "");
            put(t, "%*sif (%s.has_value) {\n", ind, "", a);
            put(&x, "%s.value", a);
            put(&y, "%s.value", b);
            emit_cmp(t, ty->elem, str(&x), str(&y), depth, ind + 4);
            put(t, "%*s}\n", ind, "");
        }
        break;
    case FBE_IR_ARRAY:
        put(t, "%*sfor (size_t i%d = 0; i%d < %" PRIu32 "; i%d++) {\n", ind, "", depth, depth,
            ty->array_len, depth);
        put(&x, "%s[i%d]", a, depth);
        put(&y, "%s[i%d]", b, depth);
        emit_cmp(t, ty->elem, str(&x), str(&y), depth + 1, ind + 4);
        put(t, "%*s}\n", ind, "");
        break;
    default: /* sequences: lexicographic, then the shorter first */
        put(t, "%*sfor (size_t i%d = 0; i%d < %s.size && i%d < %s.size; i%d++) {\n", ind, "",
            depth, depth, a, depth, b, depth);
        if (fbe_ir_kind_is_keyed(ty->kind)) {
            put(&x, "%s.data[i%d].key", a, depth);
            put(&y, "%s.data[i%d].key", b, depth);
            emit_cmp(t, ty->key, str(&x), str(&y), depth + 1, ind + 4);
            x.len = y.len = 0;
            put(&x, "%s.data[i%d].value", a, depth);
            put(&y, "%s.data[i%d].value", b, depth);
        } else {
            put(&x, "%s.data[i%d]", a, depth);
            put(&y, "%s.data[i%d]", b, depth);
        }
        emit_cmp(t, ty->elem, str(&x), str(&y), depth + 1, ind + 4);
        put(t, "%*s}\n", ind, "");
        put(t, "%*sif ((c = fbe_key_cmp_u64(%s.size, %s.size)) != 0)\n%*sreturn c;\n", ind, "",
            a, b, ind + 4, "");
        break;
    }
    t->oom |= x.oom || y.oom;
    free(x.data);
    free(y.data);
}

/* An expression of the hash of v, when one exists. */
static bool hash_expr(text *t, const fbe_ir_type *ty, const char *v)
{
    fbe_ir_kind k = fbe_ir_base_kind(ty);
    switch (k) {
    case FBE_IR_BOOL: put(t, "fbe_key_hash_u64(%s)", v); return true;
    case FBE_IR_FLOAT: put(t, "fbe_key_hash_float(%s)", v); return true;
    case FBE_IR_DOUBLE: put(t, "fbe_key_hash_double(%s)", v); return true;
    case FBE_IR_DECIMAL: put(t, "fbe_key_hash_decimal(&%s)", v); return true;
    case FBE_IR_UUID: put(t, "fbe_key_hash_uuid(&%s)", v); return true;
    case FBE_IR_STRING: put(t, "fbe_key_hash_string(&%s)", v); return true;
    case FBE_IR_BYTES:
        put(t, "(size_t)fbe_hash_bytes(%s.data, %s.size, FBE_KEY_HASH_SEED)", v, v);
        return true;
    case FBE_IR_STRUCT: put(t, "%s_hash(&%s)", ty->struct_type->c_name, v); return true;
    case FBE_IR_OPTIONAL:
        if (ty->elem->kind != FBE_IR_STRUCT)
            return false;
        put(t, "(%s ? %s_hash(%s) : FBE_KEY_HASH_ABSENT)", v, ty->elem->struct_type->c_name, v);
        return true;
    case FBE_IR_ARRAY:
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH: return false;
    default: {
        text x = {0};
        bool sig = false;
        int_arg(&x, k, v, &sig);
        put(t, "fbe_key_hash_%s(%s)", sig ? "i64" : "u64", str(&x));
        t->oom |= x.oom;
        free(x.data);
        return true;
    }
    }
}

/* Statements setting the variable h<depth> (declared by the caller) to the hash
 * of v. */
static void emit_hash(text *t, const fbe_ir_type *ty, const char *v, int depth, int ind)
{
    text e = {0};
    if (hash_expr(&e, ty, v)) {
        put(t, "%*sh%d = %s;\n", ind, "", depth, str(&e));
        t->oom |= e.oom;
        free(e.data);
        return;
    }
    free(e.data);
    text x = {0};
    if (ty->kind == FBE_IR_OPTIONAL) {
        put(t, "%*sh%d = FBE_KEY_HASH_ABSENT;\n%*sif (%s.has_value) {\n", ind, "", depth, ind,
            "", v);
        put(&x, "%s.value", v);
        emit_hash(t, ty->elem, str(&x), depth, ind + 4);
        put(t, "%*s}\n", ind, "");
    } else {
        /* Not hashable in the reference: 17, then *31 + each element (entries:
         * key, then value), as fbe_value_hash_type. */
        const char *sub = ty->kind == FBE_IR_ARRAY ? "" : ".data";
        put(t, "%*sh%d = 17;\n", ind, "", depth);
        if (ty->kind == FBE_IR_ARRAY)
            put(t, "%*sfor (size_t i%d = 0; i%d < %" PRIu32 "; i%d++) {\n", ind, "", depth,
                depth, ty->array_len, depth);
        else
            put(t, "%*sfor (size_t i%d = 0; i%d < %s.size; i%d++) {\n", ind, "", depth, depth,
                v, depth);
        put(t, "%*ssize_t h%d;\n", ind + 4, "", depth + 1);
        if (fbe_ir_kind_is_keyed(ty->kind)) {
            put(&x, "%s.data[i%d].key", v, depth);
            emit_hash(t, ty->key, str(&x), depth + 1, ind + 4);
            put(t, "%*sh%d = h%d * 31 + h%d;\n", ind + 4, "", depth, depth, depth + 1);
            x.len = 0;
            put(&x, "%s.data[i%d].value", v, depth);
        } else {
            put(&x, "%s%s[i%d]", v, sub, depth);
        }
        emit_hash(t, ty->elem, str(&x), depth + 1, ind + 4);
        put(t, "%*sh%d = h%d * 31 + h%d;\n", ind + 4, "", depth, depth, depth + 1);
        put(t, "%*s}\n", ind, "");
    }
    t->oom |= x.oom;
    free(x.data);
}

static void key_list(text *t, const fbe_ir_struct *s)
{
    bool any = false;
    for (const fbe_ir_struct *level = s; level; level = level->base)
        for (size_t i = level->own_field_start; i < level->field_count; i++)
            if (level->fields[i].is_key)
                any = true;
    if (!any) {
        put(t, "no [key] fields: all values are equal");
        return;
    }
    bool own = false;
    for (size_t i = s->own_field_start; i < s->field_count; i++)
        own |= s->fields[i].is_key;
    if (s->base)
        put(t, own ? "the keys of %s, then " : "the keys of %s only", s->base->full_name);
    own = false;
    for (size_t i = s->own_field_start; i < s->field_count; i++)
        if (s->fields[i].is_key) {
            put(t, "%s%s", own ? ", " : "", s->fields[i].name);
            own = true;
        }
}

static void gen_struct_keys(text *t, const fbe_ir_struct *s)
{
    const char *S = s->c_name;
    put(t, "/* %s by its keys (", s->full_name);
    key_list(t, s);
    put(t, ").\n * _compare: negative, zero or positive as the reference's operator< orders a\n"
           " * and b; _equal: compare == 0; _hash: the reference's std::hash (LP64). */\n");

    /* compare */
    text body = {0};
    if (s->base)
        put(&body, "    if ((c = %s_compare(&a->base, &b->base)) != 0)\n        return c;\n",
            s->base->c_name);
    for (size_t i = s->own_field_start; i < s->field_count; i++) {
        const fbe_ir_field *f = &s->fields[i];
        if (!f->is_key)
            continue;
        text a = {0}, b = {0};
        put(&a, "a->%s", f->c_name);
        put(&b, "b->%s", f->c_name);
        emit_cmp(&body, f->type, str(&a), str(&b), 0, 4);
        body.oom |= a.oom || b.oom;
        free(a.data);
        free(b.data);
    }
    put(t, "static inline int %s_compare(const %s *a, const %s *b)\n{\n", S, S, S);
    if (body.len)
        put(t, "    int c;\n%s    return 0;\n}\n", body.data);
    else
        put(t, "    (void)a;\n    (void)b;\n    return 0;\n}\n");
    t->oom |= body.oom;
    free(body.data);

    put(t, "static inline bool %s_equal(const %s *a, const %s *b)\n{\n"
           "    return %s_compare(a, b) == 0;\n}\n",
        S, S, S, S);

    /* hash */
    put(t, "static inline size_t %s_hash(const %s *value)\n{\n    size_t h = 17;\n", S, S);
    bool used = false;
    if (s->base) {
        put(t, "    h = h * 31 + %s_hash(&value->base);\n", s->base->c_name);
        used = true;
    }
    for (size_t i = s->own_field_start; i < s->field_count; i++) {
        const fbe_ir_field *f = &s->fields[i];
        if (!f->is_key)
            continue;
        text v = {0}, e = {0};
        put(&v, "value->%s", f->c_name);
        if (hash_expr(&e, f->type, str(&v))) {
            put(t, "    h = h * 31 + %s;\n", str(&e));
        } else {
            put(t, "    {\n        size_t h0;\n");
            emit_hash(t, f->type, str(&v), 0, 8);
            put(t, "        h = h * 31 + h0;\n    }\n");
        }
        t->oom |= v.oom || e.oom;
        free(v.data);
        free(e.data);
        used = true;
    }
    if (!used)
        put(t, "    (void)value;\n");
    put(t, "    return h;\n}\n\n");
}

char *fbe_gen_header_keys(const fbe_ir_package *pkg)
{
    text t = {0};
    put(&t, "/* Keys (docs/keys.md, <fbe/value.h>): equality, order and hash by the [key]\n"
            " * fields, base first, as the reference's operator==, operator< and std::hash;\n"
            " * identical to fbe_value_equal/_compare/_hash. Floats: -0.0 equals 0.0, NaN\n"
            " * equals NaN and sorts after every number. A decimal key compares as its\n"
            " * double (fbe_decimal_to_double: link fbe_runtime). */\n");
    for (size_t i = 0; i < pkg->struct_count; i++) {
        const char *S = pkg->structs[i]->c_name;
        put(&t, "static inline int %s_compare(const %s *a, const %s *b);\n", S, S, S);
        put(&t, "static inline size_t %s_hash(const %s *value);\n", S, S);
    }
    put(&t, "\n");
    for (size_t i = 0; i < pkg->struct_count; i++)
        gen_struct_keys(&t, pkg->structs[i]);
    if (t.oom) {
        free(t.data);
        return NULL;
    }
    return t.data;
}
