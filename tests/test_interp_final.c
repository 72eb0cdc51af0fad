/* The interpreter's final model: the worked examples of wire-format.md 11 (bytes
 * typed by hand from the spec), every golden final case of the reference, and
 * hostile input (docs/codec.md "Final model"). */
#include "test_util.h"

#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbe/codec.h"
#include "interp/program.h"

/* ---- environment ------------------------------------------------------------- */

typedef struct env {
    fbe_schema *schema;
    fbe_codec *codec;
    fbe_arena arena; /* hand-built values */
} env;

static void env_codec(env *e, unsigned max_depth)
{
    fbe_status st;
    fbe_codec_options copts = {.max_depth = max_depth};
    e->codec = fbe_interp_create(e->schema, &copts, &st);
    if (!e->codec)
        fail_msg("fbe_interp_create: %s", fbe_status_name(st));
    fbe_arena_init(&e->arena, NULL, NULL);
}

static void env_text(env *e, const char *text, unsigned max_depth)
{
    e->schema = load_text_ok(text);
    env_codec(e, max_depth);
}

static void env_golden(env *e, const char *name)
{
    e->schema = load_golden(name);
    env_codec(e, 0);
}

static void env_free(env *e)
{
    fbe_arena_free(&e->arena);
    fbe_codec_free(e->codec);
    fbe_schema_free(e->schema);
    memset(e, 0, sizeof *e);
}

static const fbe_type *type_of(const env *e, const char *name)
{
    const fbe_type *t = fbe_codec_type(e->codec, name);
    if (!t)
        fail_msg("no type %s", name);
    return t;
}

/* A value set to its schema defaults, in the environment's arena. */
static void *new_value(env *e, const fbe_ir_struct *st)
{
    void *v = fbe_arena_zalloc(&e->arena, st->host_size);
    assert_non_null(v);
    fbe_init(st, v);
    return v;
}

static void *new_array(env *e, const fbe_ir_type *elem, size_t n)
{
    void *v = fbe_arena_zalloc(&e->arena, elem->host_size * n);
    assert_non_null(v);
    return v;
}

/* ---- poking host values through the IR ---------------------------------------- */

static const fbe_ir_field *fld(const fbe_ir_struct *st, const char *name)
{
    const fbe_ir_field *f = fbe_field_by_name(st, name);
    if (!f)
        fail_msg("%s has no field %s", st->full_name, name);
    return f;
}

static void *at(const fbe_ir_struct *st, void *v, const char *name)
{
    return fbe_field_ptr(v, fld(st, name));
}

static void set_raw(const fbe_ir_struct *st, void *v, const char *name, const void *src,
                    size_t n)
{
    assert_int_equal(fld(st, name)->type->host_size, n);
    memcpy(at(st, v, name), src, n);
}

#define SET(st, v, name, T, x)                          \
    do {                                                \
        T tmp_ = (x);                                   \
        set_raw(st, v, name, &tmp_, sizeof tmp_);       \
    } while (0)

static void set_str(const fbe_ir_struct *st, void *v, const char *name, const char *s)
{
    fbe_ir_kind k = fld(st, name)->type->kind;
    assert_true(k == FBE_IR_STRING || k == FBE_IR_BYTES);
    *(fbe_string *)at(st, v, name) = (fbe_string){s, strlen(s)};
}

static void set_seq(const fbe_ir_struct *st, void *v, const char *name, void *data, size_t n)
{
    fbe_ir_kind k = fld(st, name)->type->kind;
    assert_true(k >= FBE_IR_VECTOR && k <= FBE_IR_HASH);
    *(fbe_seq *)at(st, v, name) = (fbe_seq){data, n};
}

/* A non-struct optional: {bool has_value; T value;} */
static void set_opt(const fbe_ir_struct *st, void *v, const char *name, const void *src,
                    size_t n)
{
    const fbe_ir_type *t = fld(st, name)->type;
    assert_int_equal(t->kind, FBE_IR_OPTIONAL);
    assert_int_equal(t->elem->host_size, n);
    uint8_t *p = at(st, v, name);
    *(bool *)p = true;
    memcpy(p + t->host_value_offset, src, n);
}

/* ---- structural equality of host values, by the IR ---------------------------- */

static bool eq_struct(const fbe_ir_struct *st, const uint8_t *a, const uint8_t *b);

static bool eq_type(const fbe_ir_type *t, const uint8_t *a, const uint8_t *b)
{
    switch (t->kind) {
    case FBE_IR_BOOL:
        return (*a != 0) == (*b != 0);
    case FBE_IR_STRING:
    case FBE_IR_BYTES: {
        const fbe_string *x = (const fbe_string *)a, *y = (const fbe_string *)b;
        return x->size == y->size && (x->size == 0 || memcmp(x->data, y->data, x->size) == 0);
    }
    case FBE_IR_STRUCT:
        return eq_struct(t->struct_type, a, b);
    case FBE_IR_OPTIONAL:
        if (t->elem->kind == FBE_IR_STRUCT) {
            const uint8_t *pa = *(const uint8_t *const *)a, *pb = *(const uint8_t *const *)b;
            if (!pa || !pb)
                return pa == pb;
            return eq_struct(t->elem->struct_type, pa, pb);
        }
        if ((*a != 0) != (*b != 0))
            return false;
        return !*a || eq_type(t->elem, a + t->host_value_offset, b + t->host_value_offset);
    case FBE_IR_ARRAY:
        for (uint32_t i = 0; i < t->array_len; i++)
            if (!eq_type(t->elem, a + i * t->elem->host_size, b + i * t->elem->host_size))
                return false;
        return true;
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET: {
        const fbe_seq *x = (const fbe_seq *)a, *y = (const fbe_seq *)b;
        if (x->size != y->size)
            return false;
        for (size_t i = 0; i < x->size; i++)
            if (!eq_type(t->elem, (const uint8_t *)x->data + i * t->elem->host_size,
                         (const uint8_t *)y->data + i * t->elem->host_size))
                return false;
        return true;
    }
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        const fbe_seq *x = (const fbe_seq *)a, *y = (const fbe_seq *)b;
        if (x->size != y->size)
            return false;
        for (size_t i = 0; i < x->size; i++) {
            const uint8_t *ea = (const uint8_t *)x->data + i * t->host_entry_size;
            const uint8_t *eb = (const uint8_t *)y->data + i * t->host_entry_size;
            if (!eq_type(t->key, ea, eb) ||
                !eq_type(t->elem, ea + t->host_entry_value_offset, eb + t->host_entry_value_offset))
                return false;
        }
        return true;
    }
    default: /* integers, floats (bit patterns), enums, flags, decimal, uuid, timestamp */
        return memcmp(a, b, t->host_size) == 0;
    }
}

static bool eq_struct(const fbe_ir_struct *st, const uint8_t *a, const uint8_t *b)
{
    for (size_t i = 0; i < st->field_count; i++) {
        const fbe_ir_field *f = &st->fields[i];
        if (!eq_type(f->type, a + f->host_offset, b + f->host_offset))
            return false;
    }
    return true;
}

/* ---- round trips ----------------------------------------------------------------- */

/* serialize(value) appends exactly `expect`; expect verifies; deserializing it (copy
 * and borrow) gives a value equal to `value` that serializes to `expect` again. */
static void check_final(const fbe_type *t, const void *value, const uint8_t *expect, size_t len)
{
    assert_int_equal(fbe_size(t, FBE_FINAL, value), len);
    fbe_buffer buf;
    fbe_buffer_init(&buf, NULL, NULL);
    assert_int_equal(fbe_buffer_append(&buf, "xyz", 3), FBE_OK); /* serialize appends */
    assert_int_equal(fbe_serialize(t, FBE_FINAL, value, &buf), FBE_OK);
    assert_int_equal(buf.size, 3 + len);
    assert_memory_equal(buf.data, "xyz", 3);
    assert_memory_equal(buf.data + 3, expect, len);

    fbe_verify_info info;
    assert_int_equal(fbe_verify(t, FBE_FINAL, expect, len, &info), FBE_OK);
    assert_int_equal(info.status, FBE_OK);

    for (int borrow = 0; borrow < 2; borrow++) {
        fbe_arena arena;
        fbe_arena_init(&arena, NULL, NULL);
        fbe_decode_options opts = {.arena = &arena, .flags = borrow ? FBE_DECODE_BORROW : 0};
        uint8_t *out = malloc(t->ir->host_size);
        assert_non_null(out);
        memset(out, 0xA5, t->ir->host_size); /* every field must be written */
        size_t consumed = 0;
        assert_int_equal(fbe_deserialize(t, FBE_FINAL, expect, len, out, &opts, &consumed),
                         FBE_OK);
        assert_int_equal(consumed, len);
        assert_true(eq_struct(t->ir, value, out));
        fbe_buffer_clear(&buf);
        assert_int_equal(fbe_serialize(t, FBE_FINAL, out, &buf), FBE_OK);
        assert_int_equal(buf.size, len);
        assert_memory_equal(buf.data, expect, len);
        free(out);
        fbe_arena_free(&arena);
    }
    fbe_buffer_free(&buf);
}

static void check_verify(const fbe_type *t, const uint8_t *data, size_t len, fbe_status want,
                         size_t offset, const char *field)
{
    fbe_verify_info info;
    fbe_status st = fbe_verify(t, FBE_FINAL, data, len, &info);
    if (st != want)
        fail_msg("verify: %s, expected %s", fbe_status_name(st), fbe_status_name(want));
    assert_int_equal(info.status, want);
    assert_int_equal(info.offset, offset);
    if (field) {
        assert_non_null(info.field);
        assert_string_equal(info.field->name, field);
    } else {
        assert_null(info.field);
    }
    /* deserialize reports the same status */
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena};
    void *out = malloc(t->ir->host_size);
    assert_non_null(out);
    memset(out, 0xA5, t->ir->host_size);
    assert_int_equal(fbe_deserialize(t, FBE_FINAL, data, len, out, &opts, NULL), want);
    /* and leaves a value that is safe to walk (serialize refuses, as verify
     * would, a value cut at the depth limit that holds the level past it, and
     * every value of a type nested by value deeper than the limit) */
    fbe_buffer buf;
    fbe_buffer_init(&buf, NULL, NULL);
    (void)fbe_size(t, FBE_FINAL, out);
    fbe_status again = fbe_serialize(t, FBE_FINAL, out, &buf);
    bool may_be_deep =
        want == FBE_TOO_DEEP || t->ir->value_height > fbe_codec_max_depth(t->codec);
    if (!may_be_deep || again != FBE_TOO_DEEP)
        assert_int_equal(again, FBE_OK);
    fbe_buffer_free(&buf);
    free(out);
    fbe_arena_free(&arena);
}

/* ---- wire-format 11.1, 11.2, 11.3, 11.6: package proto ------------------------- */

static const uint8_t order_final[40] = {
    0x28, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,             /* size 40, type 1 */
    0x01, 0x00, 0x00, 0x00,                                     /* id */
    0x06, 0x00, 0x00, 0x00, 0x45, 0x55, 0x52, 0x55, 0x53, 0x44, /* "EURUSD" */
    0x00,                                                       /* side */
    0x00,                                                       /* type */
    0x38, 0x32, 0x8f, 0xfc, 0xc1, 0xc0, 0xf3, 0x3f,             /* price */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x8f, 0x40,             /* volume */
};

static const uint8_t account_final[81] = {
    0x51, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,             /* size 81, type 3 */
    0x07, 0x00, 0x00, 0x00,                                     /* id */
    0x02, 0x00, 0x00, 0x00, 0x4a, 0x6f,                         /* name */
    0x06,                                                       /* state */
    0x03, 0x00, 0x00, 0x00, 0x55, 0x53, 0x44,                   /* wallet.currency */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x59, 0x40,             /* wallet.amount */
    0x01,                                                       /* asset present */
    0x03, 0x00, 0x00, 0x00, 0x45, 0x55, 0x52,                   /* asset.currency */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,             /* asset.amount */
    0x01, 0x00, 0x00, 0x00,                                     /* orders count 1 */
    0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x58, 0x00, 0x02,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf8, 0x3f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x24, 0x40,
};

static const uint8_t account_default_final[34] = {
    0x22, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const uint8_t balance_message_final[23] = {
    0x17, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
    0x55, 0x53, 0x44, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f,
};

static void fill_order(const fbe_ir_struct *st, void *o, int32_t id, const char *symbol,
                       uint8_t side, uint8_t type, double price, double volume)
{
    SET(st, o, "id", int32_t, id);
    set_str(st, o, "symbol", symbol);
    SET(st, o, "side", uint8_t, side);
    SET(st, o, "type", uint8_t, type);
    SET(st, o, "price", double, price);
    SET(st, o, "volume", double, volume);
}

static void fill_balance(const fbe_ir_struct *st, void *b, const char *currency, double amount)
{
    set_str(st, b, "currency", currency);
    SET(st, b, "amount", double, amount);
}

static void test_order(void **state)
{
    (void)state;
    env e;
    env_golden(&e, "proto");
    const fbe_type *t = type_of(&e, "proto.Order");
    void *o = new_value(&e, t->ir);
    fill_order(t->ir, o, 1, "EURUSD", 0, 0, 1.23456, 1000.0);
    check_final(t, o, order_final, sizeof order_final);

    /* borrowed strings point into the input */
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena, .flags = FBE_DECODE_BORROW};
    void *out = new_value(&e, t->ir);
    assert_int_equal(fbe_deserialize(t, FBE_FINAL, order_final, sizeof order_final, out, &opts,
                                     NULL),
                     FBE_OK);
    const fbe_string *sym = at(t->ir, out, "symbol");
    assert_ptr_equal(sym->data, (const char *)order_final + 0x10);
    assert_int_equal(sym->size, 6);
    assert_int_equal(arena.total, 0); /* nothing to allocate */
    /* copies are NUL-terminated arena strings */
    opts.flags = 0;
    assert_int_equal(fbe_deserialize(t, FBE_FINAL, order_final, sizeof order_final, out, &opts,
                                     NULL),
                     FBE_OK);
    assert_true(sym->data < (const char *)order_final ||
                sym->data >= (const char *)order_final + sizeof order_final);
    assert_string_equal(sym->data, "EURUSD");
    fbe_arena_free(&arena);
    env_free(&e);
}

static void test_account(void **state)
{
    (void)state;
    env e;
    env_golden(&e, "proto");
    const fbe_type *t = type_of(&e, "proto.Account");
    const fbe_ir_struct *acc = t->ir;
    const fbe_ir_struct *bal = type_of(&e, "proto.Balance")->ir;
    const fbe_ir_struct *ord = type_of(&e, "proto.Order")->ir;

    void *a = new_value(&e, acc);
    SET(acc, a, "id", int32_t, 7);
    set_str(acc, a, "name", "Jo");
    SET(acc, a, "state", uint8_t, 6);
    fill_balance(bal, at(acc, a, "wallet"), "USD", 100.5);
    void *asset = new_value(&e, bal);
    fill_balance(bal, asset, "EUR", 2.0);
    *(void **)at(acc, a, "asset") = asset;
    const fbe_ir_type *orders_t = fld(acc, "orders")->type;
    assert_int_equal(orders_t->elem->host_size, ord->host_size);
    void *orders = new_array(&e, orders_t->elem, 1);
    fbe_init(ord, orders);
    fill_order(ord, orders, 2, "X", 0, 2, 1.5, 10.0);
    set_seq(acc, a, "orders", orders, 1);
    check_final(t, a, account_final, sizeof account_final);

    /* 11.3: the defaults, id = 1 */
    void *d = new_value(&e, acc);
    SET(acc, d, "id", int32_t, 1);
    check_final(t, d, account_default_final, sizeof account_default_final);
    env_free(&e);
}

static void test_balance_message(void **state)
{
    (void)state;
    env e;
    env_golden(&e, "proto");
    const fbe_type *t = type_of(&e, "proto.BalanceMessage");
    const fbe_ir_struct *bal = type_of(&e, "proto.Balance")->ir;
    assert_int_equal(t->ir->type_number, 2);
    void *m = new_value(&e, t->ir);
    fill_balance(bal, at(t->ir, m, "body"), "USD", 1.0);
    check_final(t, m, balance_message_final, sizeof balance_message_final);
    env_free(&e);
}

/* ---- wire-format 11.4, 11.5: package ex ----------------------------------------- */

static const uint8_t derived_final[22] = {
    0x16, 0x00, 0x00, 0x00, 0x34, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02,
    0x00, 0x00, 0x00, 0x68, 0x69, 0x01, 0x01, 0x02, 0x01, 0x00, 0x00,
};

static const uint8_t coll_final[172] = {
    0xac, 0x00, 0x00, 0x00, 0x35, 0x00, 0x00, 0x00, /* size 172, type 53 */
    0x01, 0x02, 0x03,                               /* arr */
    0x02, 0x00, 0x00, 0x00, 0xff, 0xff, 0x02, 0x00, /* vec */
    0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x61, 0x02, 0x00, 0x00, 0x00, 0x62, 0x63,
    0x03, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
    0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x6f, 0x6e, 0x65,
    0x02, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x74, 0x77, 0x6f,             /* mp */
    0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x6b, 0x09, 0x00, 0x00, 0x00, /* hs */
    0x03, 0x00, 0x00, 0x00, 0x01, 0x02, 0xff,                                     /* by */
    0x01, 0x01, 0x00, 0x00, 0x00, 0x6f,                                           /* os */
    0x01, 0x07, 0x00, 0x01, 0x00, 0x00, 0x00, 0x71,                               /* ob */
    0x01, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00,                   /* vb */
    0x06,                                                                         /* c */
    0x03, 0x00,                                                                   /* p */
    0x7d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x80,
    0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x55, 0x44, 0x00, 0x00,
    0x00, 0xca, 0x9a, 0x3b, 0x00, 0x00, 0x00, 0x00, /* t */
    0x41,                                           /* ch */
    0x44, 0x04, 0x00, 0x00,                         /* wc */
    0x00, 0x00, 0xc0, 0x3f,                         /* f */
};

static void test_derived(void **state)
{
    (void)state;
    env e;
    env_text(&e, ex_schema, 0);
    const fbe_type *t = type_of(&e, "ex.Derived");
    const fbe_ir_struct *st = t->ir;
    void *v = new_value(&e, st);
    SET(st, v, "a", int16_t, 1);
    set_str(st, v, "s", "hi");
    SET(st, v, "b", bool, true);
    int32_t oi = 258;
    set_opt(st, v, "oi", &oi, sizeof oi);
    check_final(t, v, derived_final, sizeof derived_final);

    /* any non-zero byte is true / present; the writer normalizes to 1 */
    uint8_t odd[sizeof derived_final];
    memcpy(odd, derived_final, sizeof odd);
    odd[16] = 0x05; /* b */
    odd[17] = 0x80; /* oi flag */
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena};
    void *out = new_value(&e, st);
    assert_int_equal(fbe_verify(t, FBE_FINAL, odd, sizeof odd, NULL), FBE_OK);
    assert_int_equal(fbe_deserialize(t, FBE_FINAL, odd, sizeof odd, out, &opts, NULL), FBE_OK);
    assert_true(eq_struct(st, v, out));
    assert_int_equal(*(uint8_t *)at(st, out, "b"), 1);

    /* an absent optional is absent (no default applies in the final model) */
    odd[17] = 0;
    odd[0] = 18;
    assert_int_equal(fbe_deserialize(t, FBE_FINAL, odd, 18, out, &opts, NULL), FBE_OK);
    assert_false(*(bool *)at(st, out, "oi"));
    fbe_arena_free(&arena);
    env_free(&e);
}

static void build_coll(env *e, const fbe_ir_struct *coll, const fbe_ir_struct *base, void *v)
{
    uint8_t arr[3] = {1, 2, 3};
    set_raw(coll, v, "arr", arr, 3);

    int16_t *vec = new_array(e, fld(coll, "vec")->type->elem, 2);
    vec[0] = -1;
    vec[1] = 2;
    set_seq(coll, v, "vec", vec, 2);

    fbe_string *lst = new_array(e, fld(coll, "lst")->type->elem, 2);
    lst[0] = (fbe_string){"a", 1};
    lst[1] = (fbe_string){"bc", 2};
    set_seq(coll, v, "lst", lst, 2);

    int32_t *st = new_array(e, fld(coll, "st")->type->elem, 3); /* sorted, as the reference */
    st[0] = 1;
    st[1] = 2;
    st[2] = 3;
    set_seq(coll, v, "st", st, 3);

    const fbe_ir_type *mp_t = fld(coll, "mp")->type;
    uint8_t *mp = fbe_arena_zalloc(&e->arena, mp_t->host_entry_size * 2);
    assert_non_null(mp);
    for (int i = 0; i < 2; i++) {
        uint8_t *entry = mp + i * mp_t->host_entry_size;
        int32_t key = i + 1;
        memcpy(entry, &key, 4);
        *(fbe_string *)(entry + mp_t->host_entry_value_offset) =
            i == 0 ? (fbe_string){"one", 3} : (fbe_string){"two", 3};
    }
    set_seq(coll, v, "mp", mp, 2);

    const fbe_ir_type *hs_t = fld(coll, "hs")->type;
    uint8_t *hs = fbe_arena_zalloc(&e->arena, hs_t->host_entry_size);
    assert_non_null(hs);
    *(fbe_string *)hs = (fbe_string){"k", 1};
    int32_t nine = 9;
    memcpy(hs + hs_t->host_entry_value_offset, &nine, 4);
    set_seq(coll, v, "hs", hs, 1);

    *(fbe_bytes *)at(coll, v, "by") = (fbe_bytes){(const uint8_t *)"\x01\x02\xff", 3};
    fbe_string o = {"o", 1};
    set_opt(coll, v, "os", &o, sizeof o);

    void *ob = new_value(e, base);
    SET(base, ob, "a", int16_t, 7);
    set_str(base, ob, "s", "q");
    *(void **)at(coll, v, "ob") = ob;

    void *vb = new_array(e, fld(coll, "vb")->type->elem, 1);
    fbe_init(base, vb);
    SET(base, vb, "a", int16_t, 3);
    set_seq(coll, v, "vb", vb, 1);

    SET(coll, v, "c", uint8_t, 6);
    SET(coll, v, "p", uint16_t, 3);
    /* -12.5: magnitude 125, scale 1, sign */
    SET(coll, v, "d", fbe_decimal, ((fbe_decimal){125, 0, 0x80010000u}));
    fbe_uuid u = {{0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x55,
                   0x44, 0x00, 0x00}};
    SET(coll, v, "u", fbe_uuid, u);
    SET(coll, v, "t", uint64_t, 1000000000u);
    SET(coll, v, "ch", uint8_t, 'A');
    SET(coll, v, "wc", uint32_t, 0x444);
    SET(coll, v, "f", float, 1.5f);
}

static void test_coll(void **state)
{
    (void)state;
    env e;
    env_text(&e, ex_schema, 0);
    const fbe_type *t = type_of(&e, "ex.Coll");
    const fbe_ir_struct *base = type_of(&e, "ex.Base")->ir;
    void *v = new_value(&e, t->ir);
    build_coll(&e, t->ir, base, v);
    check_final(t, v, coll_final, sizeof coll_final);

    static const uint8_t empty_final[8] = {0x08, 0x00, 0x00, 0x00, 0x36, 0x00, 0x00, 0x00};
    const fbe_type *et = type_of(&e, "ex.Empty");
    check_final(et, new_value(&e, et->ir), empty_final, sizeof empty_final);
    env_free(&e);
}

/* ---- fixed structs in every position ------------------------------------------ */

static const char shapes_schema[] =
    "package s\n"
    "struct P { int16 x; bool b; }\n"
    "struct Q { P p; P[2] ps; uint8 tail; }\n"
    "struct R { Q? oq; P[] vp; P<int32> mp; Q[2] qa; string?[2] os; P?[] vop; }\n";

static const uint8_t shapes_final[73] = {
    0x49, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,                   /* size 73, type 3 */
    0x01, 0x01, 0x00, 0x01, 0x02, 0x00, 0x00, 0x03, 0x00, 0x01, 0x09, /* oq */
    0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00,                         /* vp */
    0x01, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x05, 0x00, 0x01, /* mp */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,       /* qa[0] */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a,       /* qa[1] */
    0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x7a,                         /* os */
    0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x06, 0x00, 0x01,             /* vop */
};

static void set_p(const fbe_ir_struct *pst, void *p, int16_t x, bool b)
{
    SET(pst, p, "x", int16_t, x);
    SET(pst, p, "b", bool, b);
}

static void test_fixed_shapes(void **state)
{
    (void)state;
    env e;
    env_text(&e, shapes_schema, 3);
    const fbe_type *t = type_of(&e, "s.R");
    const fbe_ir_struct *pst = type_of(&e, "s.P")->ir, *qst = type_of(&e, "s.Q")->ir;
    const fbe_ir_struct *rst = t->ir;
    assert_true(pst->final_fixed && qst->final_fixed && !rst->final_fixed);
    assert_int_equal(qst->final_size, 10);
    void *r = new_value(&e, rst);

    uint8_t *q = new_value(&e, qst);
    set_p(pst, at(qst, q, "p"), 1, true);
    uint8_t *ps = at(qst, q, "ps");
    set_p(pst, ps, 2, false);
    set_p(pst, ps + pst->host_size, 3, true);
    SET(qst, q, "tail", uint8_t, 9);
    *(void **)at(rst, r, "oq") = q;

    void *vp = new_value(&e, pst);
    set_p(pst, vp, 4, false);
    set_seq(rst, r, "vp", vp, 1);

    const fbe_ir_type *mp_t = fld(rst, "mp")->type;
    uint8_t *mp = fbe_arena_zalloc(&e.arena, mp_t->host_entry_size);
    assert_non_null(mp);
    int32_t key = 7;
    memcpy(mp, &key, 4);
    set_p(pst, mp + mp_t->host_entry_value_offset, 5, true);
    set_seq(rst, r, "mp", mp, 1);

    uint8_t *qa = at(rst, r, "qa");
    SET(qst, qa + qst->host_size, "tail", uint8_t, 10);

    const fbe_ir_type *os_t = fld(rst, "os")->type; /* string?[2] */
    uint8_t *os1 = (uint8_t *)at(rst, r, "os") + os_t->elem->host_size;
    *(bool *)os1 = true;
    *(fbe_string *)(os1 + os_t->elem->host_value_offset) = (fbe_string){"z", 1};

    void **vop = new_array(&e, fld(rst, "vop")->type->elem, 2);
    vop[0] = NULL;
    vop[1] = new_value(&e, pst);
    set_p(pst, vop[1], 6, true);
    set_seq(rst, r, "vop", vop, 2);

    check_final(t, r, shapes_final, sizeof shapes_final);

    /* the second element of vop is cut: a fixed struct is checked whole */
    uint8_t buf[sizeof shapes_final];
    memcpy(buf, shapes_final, sizeof buf);
    buf[0] = 72;
    check_verify(t, buf, 72, FBE_TRUNCATED, 0x46, "vop");
    /* qa (20 fixed bytes at 0x25) runs past */
    buf[0] = 0x25 + 19;
    check_verify(t, buf, 0x25 + 19, FBE_TRUNCATED, 0x25, "qa");
    env_free(&e);

    /* depth 2: the P inside the optional Q is level 3 */
    env_text(&e, shapes_schema, 2);
    t = type_of(&e, "s.R");
    check_verify(t, shapes_final, sizeof shapes_final, FBE_TOO_DEEP, 9, "p");
    env_free(&e);
}

/* ---- golden cases --------------------------------------------------------------- */

static const char *const golden_schemas[] = {"proto", "protoex", "test", "enums"};
#define GOLDEN_SCHEMAS 4

typedef struct golden {
    env envs[GOLDEN_SCHEMAS];
    bool loaded[GOLDEN_SCHEMAS];
} golden;

static env *golden_env(golden *g, const char *schema)
{
    for (int i = 0; i < GOLDEN_SCHEMAS; i++) {
        if (strcmp(schema, golden_schemas[i]) != 0)
            continue;
        if (!g->loaded[i]) {
            env_golden(&g->envs[i], schema);
            g->loaded[i] = true;
        }
        return &g->envs[i];
    }
    fail_msg("unknown golden schema %s", schema);
    return NULL;
}

static void golden_free(golden *g)
{
    for (int i = 0; i < GOLDEN_SCHEMAS; i++)
        if (g->loaded[i])
            env_free(&g->envs[i]);
}

typedef void (*golden_fn)(const fbe_type *t, const uint8_t *data, size_t len, const char *name,
                          void *ctx);

typedef struct final_visit {
    golden *g;
    golden_fn fn;
    void *ctx;
} final_visit;

static void visit_final(const char *schema, const char *type_name, const char *path,
                        const uint8_t *data, size_t len, void *ctx)
{
    final_visit *v = ctx;
    v->fn(type_of(golden_env(v->g, schema), type_name), data, len, path, v->ctx);
}

/* Calls fn for every cases/<pkg>/<Type>/<case>.final.bin of the manifest; returns
 * how many. */
static int for_each_golden_final(golden *g, golden_fn fn, void *ctx)
{
    final_visit v = {g, fn, ctx};
    return for_each_final_case(visit_final, &v);
}

typedef struct golden_stats {
    int passed;
} golden_stats;

/* verify, deserialize (copy and borrow), equal values, re-serialize byte for byte. */
static bool golden_round_trip(const fbe_type *t, const uint8_t *data, size_t len, const char *name)
{
    bool ok = true;
    fbe_verify_info info;
    fbe_status st = fbe_verify(t, FBE_FINAL, data, len, &info);
    if (st != FBE_OK) {
        print_message("%s: verify %s at %zu\n", name, fbe_status_name(st), info.offset);
        return false;
    }
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    uint8_t *v[2];
    fbe_buffer buf;
    fbe_buffer_init(&buf, NULL, NULL);
    for (int borrow = 0; borrow < 2 && ok; borrow++) {
        fbe_decode_options opts = {.arena = &arena, .flags = borrow ? FBE_DECODE_BORROW : 0};
        v[borrow] = fbe_arena_alloc(&arena, t->ir->host_size);
        memset(v[borrow], 0x5A, t->ir->host_size);
        size_t consumed = 0;
        st = fbe_deserialize(t, FBE_FINAL, data, len, v[borrow], &opts, &consumed);
        if (st != FBE_OK || consumed != len) {
            print_message("%s: deserialize %s, consumed %zu\n", name, fbe_status_name(st), consumed);
            ok = false;
            break;
        }
        if (fbe_size(t, FBE_FINAL, v[borrow]) != len) {
            print_message("%s: size %zu != %zu\n", name, fbe_size(t, FBE_FINAL, v[borrow]), len);
            ok = false;
        }
        fbe_buffer_clear(&buf);
        st = fbe_serialize(t, FBE_FINAL, v[borrow], &buf);
        if (st != FBE_OK || buf.size != len || memcmp(buf.data, data, len) != 0) {
            print_message("%s: re-serialize differs (%s, %zu bytes)\n", name,
                          fbe_status_name(st), buf.size);
            ok = false;
        }
    }
    if (ok && !eq_struct(t->ir, v[0], v[1])) {
        print_message("%s: copy and borrow decode differ\n", name);
        ok = false;
    }
    fbe_buffer_free(&buf);
    fbe_arena_free(&arena);
    return ok;
}

static void golden_case(const fbe_type *t, const uint8_t *data, size_t len, const char *name,
                        void *ctx)
{
    golden_stats *s = ctx;
    if (golden_round_trip(t, data, len, name))
        s->passed++;
}

static void test_golden_cases(void **state)
{
    (void)state;
    golden g = {0};
    golden_stats s = {0};
    int total = for_each_golden_final(&g, golden_case, &s);
    print_message("golden final cases: %d/%d pass\n", s.passed, total);
    assert_true(total >= 100);
    assert_int_equal(s.passed, total);
    golden_free(&g);
}

/* The reference's FinalSender streams: frames back to back, one type per line of
 * the .txt companion. */
static void test_golden_protocol(void **state)
{
    (void)state;
    static const struct {
        const char *schema, *name;
    } streams[] = {{"proto", "proto_final"}, {"proto", "proto_final_reftest"},
                   {"protoex", "protoex_final"}};
    golden g = {0};
    for (size_t i = 0; i < sizeof streams / sizeof streams[0]; i++) {
        env *e = golden_env(&g, streams[i].schema);
        char rel[256];
        snprintf(rel, sizeof rel, "golden/protocol/%s.bin", streams[i].name);
        size_t len, tlen;
        uint8_t *data = read_file(shared_path(rel), &len);
        snprintf(rel, sizeof rel, "golden/protocol/%s.txt", streams[i].name);
        char *text = (char *)read_file(shared_path(rel), &tlen);
        size_t pos = 0;
        int frames = 0;
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
            char *tab = strchr(line, '\t');
            assert_non_null(tab);
            *tab = 0;
            const fbe_type *t = type_of(e, line);
            assert_true(pos + 8 <= len);
            uint32_t size;
            memcpy(&size, data + pos, 4);
            assert_true(pos + size <= len);
            char name[300];
            snprintf(name, sizeof name, "%s frame %d (%s)", streams[i].name, frames, line);
            /* the next frames follow: only this one is looked at */
            assert_int_equal(fbe_verify(t, FBE_FINAL, data + pos, len - pos, NULL), FBE_OK);
            fbe_arena arena;
            fbe_arena_init(&arena, NULL, NULL);
            fbe_decode_options opts = {.arena = &arena};
            void *out = fbe_arena_alloc(&arena, t->ir->host_size);
            size_t consumed = 0;
            assert_int_equal(
                fbe_deserialize(t, FBE_FINAL, data + pos, len - pos, out, &opts, &consumed),
                FBE_OK);
            assert_int_equal(consumed, size);
            fbe_arena_free(&arena);
            assert_true(golden_round_trip(t, data + pos, size, name));
            pos += size;
            frames++;
        }
        assert_int_equal(pos, len);
        print_message("%s: %d final frames\n", streams[i].name, frames);
        free(data);
        free(text);
    }
    golden_free(&g);
}

/* ---- hostile input -------------------------------------------------------------- */

/* Every truncation of a golden case fails, verify and deserialize agree, and the
 * failed value is safe to walk. */
typedef struct trunc_ctx {
    long checked;
} trunc_ctx;

static fbe_status decode_status(const fbe_type *t, const uint8_t *data, size_t len, void *out,
                                fbe_arena *arena)
{
    fbe_arena_reset(arena);
    fbe_decode_options opts = {.arena = arena};
    memset(out, 0xA5, t->ir->host_size);
    fbe_status st = fbe_deserialize(t, FBE_FINAL, data, len, out, &opts, NULL);
    fbe_buffer buf;
    fbe_buffer_init(&buf, NULL, NULL);
    assert_int_equal(fbe_serialize(t, FBE_FINAL, out, &buf), FBE_OK); /* walks every pointer */
    fbe_buffer_free(&buf);
    return st;
}

static void truncation_case(const fbe_type *t, const uint8_t *data, size_t len, const char *name,
                            void *ctx)
{
    trunc_ctx *c = ctx;
    uint8_t *copy = malloc(len);
    void *out = malloc(t->ir->host_size);
    assert_non_null(copy);
    assert_non_null(out);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    /* deserializing every length is quadratic: sample the large ones */
    size_t step = len > 2048 ? 7 : 1;
    for (size_t n = 0; n < len; n++) {
        /* cut as is: struct_size claims more than there is */
        assert_int_equal(fbe_verify(t, FBE_FINAL, data, n, NULL), FBE_TRUNCATED);
        if (n % step == 0)
            assert_int_equal(decode_status(t, data, n, out, &arena), FBE_TRUNCATED);
        if (n < 8)
            continue;
        /* cut and struct_size patched to match: a value runs past the end */
        memcpy(copy, data, n);
        uint32_t n32 = (uint32_t)n;
        memcpy(copy, &n32, 4);
        fbe_verify_info info;
        fbe_status st = fbe_verify(t, FBE_FINAL, copy, n, &info);
        if (st != FBE_TRUNCATED && st != FBE_BAD_COUNT)
            fail_msg("%s cut at %zu: %s", name, n, fbe_status_name(st));
        assert_true(info.offset >= 8 && info.offset <= n);
        assert_int_equal(info.status, st);
        assert_non_null(info.type);
        if (!t->ir->final_fixed)
            assert_non_null(info.field);
        if (n % step == 0 || step == 1)
            assert_int_equal(decode_status(t, copy, n, out, &arena), st);
        c->checked++;
    }
    fbe_arena_free(&arena);
    free(out);
    free(copy);
}

static void test_golden_truncations(void **state)
{
    (void)state;
    golden g = {0};
    trunc_ctx c = {0};
    int total = for_each_golden_final(&g, truncation_case, &c);
    print_message("truncations: %ld patched frames over %d cases\n", c.checked, total);
    golden_free(&g);
}

/* Random byte changes: verify and deserialize agree; whatever deserializes
 * serializes back to a frame of the same size that verifies. */
typedef struct mutate_ctx {
    uint64_t rng;
    long ok, failed;
} mutate_ctx;

static uint32_t next_rand(mutate_ctx *c)
{
    c->rng = c->rng * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(c->rng >> 33);
}

static void mutation_case(const fbe_type *t, const uint8_t *data, size_t len, const char *name,
                          void *ctx)
{
    mutate_ctx *c = ctx;
    uint8_t *copy = malloc(len);
    void *out = malloc(t->ir->host_size);
    assert_non_null(copy);
    assert_non_null(out);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    for (int round = 0; round < 200; round++) {
        memcpy(copy, data, len);
        int changes = 1 + (int)(next_rand(c) % 3);
        for (int i = 0; i < changes; i++) {
            size_t at_ = 8 + next_rand(c) % (len > 8 ? len - 8 : 1);
            if (at_ >= len)
                continue;
            switch (next_rand(c) % 4) {
            case 0: copy[at_] ^= (uint8_t)(1u << (next_rand(c) % 8)); break;
            case 1: copy[at_] = 0xff; break;
            case 2: copy[at_] = 0; break;
            default: copy[at_] = (uint8_t)next_rand(c); break;
            }
        }
        fbe_status vs = fbe_verify(t, FBE_FINAL, copy, len, NULL);
        fbe_status ds = decode_status(t, copy, len, out, &arena);
        if (vs != ds)
            fail_msg("%s round %d: verify %s, deserialize %s", name, round, fbe_status_name(vs),
                     fbe_status_name(ds));
        if (vs == FBE_OK) {
            c->ok++;
            fbe_buffer buf;
            fbe_buffer_init(&buf, NULL, NULL);
            assert_int_equal(fbe_serialize(t, FBE_FINAL, out, &buf), FBE_OK);
            assert_int_equal(buf.size, len);
            assert_int_equal(fbe_verify(t, FBE_FINAL, buf.data, buf.size, NULL), FBE_OK);
            fbe_buffer_free(&buf);
        } else {
            c->failed++;
        }
    }
    fbe_arena_free(&arena);
    free(out);
    free(copy);
}

static void test_golden_mutations(void **state)
{
    (void)state;
    golden g = {0};
    mutate_ctx c = {.rng = 7};
    for_each_golden_final(&g, mutation_case, &c);
    print_message("mutations: %ld decode, %ld rejected\n", c.ok, c.failed);
    golden_free(&g);
}

static void test_frame_errors(void **state)
{
    (void)state;
    env e;
    env_golden(&e, "proto");
    const fbe_type *t = type_of(&e, "proto.Order");
    uint8_t buf[64];
    memcpy(buf, order_final, sizeof order_final);

    for (size_t n = 0; n < 8; n++)
        check_verify(t, buf, n, FBE_TRUNCATED, 0, NULL);
    assert_int_equal(fbe_verify(t, FBE_FINAL, NULL, 0, NULL), FBE_TRUNCATED);
    check_verify(t, buf, 39, FBE_TRUNCATED, 0, NULL);

    static const uint32_t bad_sizes[] = {0, 1, 7};
    for (size_t i = 0; i < 3; i++) {
        memcpy(buf, &bad_sizes[i], 4);
        check_verify(t, buf, sizeof order_final, FBE_BAD_FRAME_SIZE, 0, NULL);
    }
    uint32_t big = 41;
    memcpy(buf, &big, 4);
    check_verify(t, buf, sizeof order_final, FBE_TRUNCATED, 0, NULL);

    memcpy(buf, order_final, sizeof order_final);
    buf[4] = 2; /* a Balance */
    check_verify(t, buf, sizeof order_final, FBE_BAD_TYPE, 4, NULL);

    /* struct_size larger than the fields: one spare byte */
    memcpy(buf, order_final, sizeof order_final);
    buf[0] = 41;
    buf[40] = 0;
    check_verify(t, buf, 41, FBE_FINAL_SIZE, 40, NULL);
    /* bytes after the frame are not part of it */
    buf[0] = 40;
    check_verify(t, buf, 41, FBE_OK, 0, NULL);
    size_t consumed = 0;
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena};
    void *out = new_value(&e, t->ir);
    assert_int_equal(fbe_deserialize(t, FBE_FINAL, buf, 41, out, &opts, &consumed), FBE_OK);
    assert_int_equal(consumed, 40);

    /* struct_size cut inside the fields (hand computed) */
    buf[0] = 11; /* id needs 8..12 */
    check_verify(t, buf, 11, FBE_TRUNCATED, 8, "id");
    buf[0] = 20; /* symbol length 6 at 0x0C, only 4 bytes after it */
    check_verify(t, buf, 20, FBE_TRUNCATED, 0x0C, "symbol");
    buf[0] = 39; /* volume at 0x20 */
    check_verify(t, buf, 39, FBE_TRUNCATED, 0x20, "volume");

    /* arguments */
    opts.arena = NULL;
    assert_int_equal(fbe_deserialize(t, FBE_FINAL, order_final, 40, out, &opts, NULL),
                     FBE_INVALID_ARGUMENT);
    assert_int_equal(fbe_deserialize(t, FBE_FINAL, order_final, 40, out, NULL, NULL),
                     FBE_INVALID_ARGUMENT);
    fbe_arena_free(&arena);
    env_free(&e);
}

static void test_counts(void **state)
{
    (void)state;
    env e;
    env_golden(&e, "proto");
    const fbe_type *t = type_of(&e, "proto.Account");
    uint8_t buf[sizeof account_final];

    /* orders: count at 0x32; an Order takes at least 4+4+1+1+8+8 = 26 bytes */
    memcpy(buf, account_final, sizeof buf);
    buf[0] = 0x34;
    check_verify(t, buf, 0x34, FBE_TRUNCATED, 0x32, "orders");
    buf[0] = 0x36 + 25;
    check_verify(t, buf, 0x36 + 25, FBE_BAD_COUNT, 0x32, "orders");
    /* the count fits, the element does not: order 0's volume at 0x49 */
    buf[0] = 0x36 + 26;
    check_verify(t, buf, 0x36 + 26, FBE_TRUNCATED, 0x49, "volume");
    /* asset absent: the bytes after the flag read as a count of 3 orders (78 > 42) */
    memcpy(buf, account_final, sizeof buf);
    buf[0x22] = 0;
    check_verify(t, buf, sizeof buf, FBE_BAD_COUNT, 0x23, "orders");
    /* wallet.currency length beyond the frame */
    memcpy(buf, account_final, sizeof buf);
    buf[0x16] = 0x01;
    check_verify(t, buf, sizeof buf, FBE_TRUNCATED, 0x13, "currency");
    env_free(&e);

    /* a count of 0xffffffff fails before anything is allocated */
    env_text(&e, ex_schema, 0);
    const fbe_type *ct = type_of(&e, "ex.Coll");
    uint8_t cb[sizeof coll_final];
    static const size_t count_at[] = {0x0B, 0x13, 0x22, 0x32, 0x4C, 0x6E};
    static const char *const count_field[] = {"vec", "lst", "st", "mp", "hs", "vb"};
    for (size_t i = 0; i < 6; i++) {
        memcpy(cb, coll_final, sizeof cb);
        memset(cb + count_at[i], 0xff, 4);
        check_verify(ct, cb, sizeof cb, FBE_BAD_COUNT, count_at[i], count_field[i]);
    }
    memcpy(cb, coll_final, sizeof cb);
    memset(cb + 0x0B, 0xff, 4);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena};
    void *out = new_value(&e, ct->ir);
    assert_int_equal(fbe_deserialize(ct, FBE_FINAL, cb, sizeof cb, out, &opts, NULL),
                     FBE_BAD_COUNT);
    assert_int_equal(arena.total, 0);
    const fbe_seq *vec = at(ct->ir, out, "vec");
    assert_null(vec->data);
    assert_int_equal(vec->size, 0);
    /* later fields are zeroed, earlier ones decoded */
    assert_memory_equal(at(ct->ir, out, "arr"), "\x01\x02\x03", 3);
    assert_int_equal(((const fbe_seq *)at(ct->ir, out, "lst"))->size, 0);
    assert_null(*(void **)at(ct->ir, out, "ob"));
    /* the largest count the remaining bytes allow for 2-byte elements, plus one */
    memcpy(cb, coll_final, sizeof cb);
    uint32_t most = (uint32_t)((sizeof cb - 0x0F) / 2 + 1);
    memcpy(cb + 0x0B, &most, 4);
    check_verify(ct, cb, sizeof cb, FBE_BAD_COUNT, 0x0B, "vec");
    fbe_arena_free(&arena);
    env_free(&e);

    /* a vector of an empty struct: elements take no bytes, each counts as 1 */
    env_text(&e, "package v\nstruct E {}\nstruct V { E[] v; }\n", 0);
    const fbe_type *vt = type_of(&e, "v.V");
    static const uint8_t huge[12] = {12, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
    check_verify(vt, huge, sizeof huge, FBE_BAD_COUNT, 8, "v");
    fbe_arena_init(&arena, NULL, NULL);
    opts.arena = &arena;
    out = new_value(&e, vt->ir);
    assert_int_equal(fbe_deserialize(vt, FBE_FINAL, huge, sizeof huge, out, &opts, NULL),
                     FBE_BAD_COUNT);
    assert_int_equal(arena.total, 0);
    static const uint8_t three[15] = {15, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0};
    /* 3 elements fit in 3 bytes by the count rule but take none: the 3 bytes are spare */
    check_verify(vt, three, sizeof three, FBE_FINAL_SIZE, 12, NULL);
    /* docs/codec.md: empty elements count one per byte of the frame, so the
     * writer's own 12-byte frame for three empty structs is accepted, 13 are not */
    static const uint8_t three_written[12] = {12, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0};
    check_verify(vt, three_written, sizeof three_written, FBE_OK, 0, NULL);
    static const uint8_t thirteen[12] = {12, 0, 0, 0, 2, 0, 0, 0, 13, 0, 0, 0};
    check_verify(vt, thirteen, sizeof thirteen, FBE_BAD_COUNT, 8, "v");
    fbe_arena_free(&arena);
    env_free(&e);
}

/* A chain of `levels` N structs (the root is level 1), N { N[] kids; }. */
static size_t build_chain(uint8_t *buf, unsigned levels)
{
    size_t size = 8 + 4 * (size_t)levels;
    uint32_t v = (uint32_t)size;
    memcpy(buf, &v, 4);
    v = 1;
    memcpy(buf + 4, &v, 4);
    for (unsigned i = 0; i < levels; i++) {
        v = i + 1 < levels ? 1 : 0;
        memcpy(buf + 8 + 4 * i, &v, 4);
    }
    return size;
}

static fbe_status decode_depth(const fbe_type *t, const uint8_t *buf, size_t len,
                               unsigned max_depth)
{
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena, .max_depth = max_depth};
    _Alignas(16) uint8_t value[64];
    assert_true(t->ir->host_size <= sizeof value);
    fbe_status st = fbe_deserialize(t, FBE_FINAL, buf, len, value, &opts, NULL);
    fbe_arena_free(&arena);
    return st;
}

static void test_depth(void **state)
{
    (void)state;
    static const char schema[] = "package n\nstruct N { N[] kids; }\n";
    env e;
    env_text(&e, schema, 0);
    const fbe_type *t = type_of(&e, "n.N");
    assert_int_equal(fbe_codec_max_depth(e.codec), FBE_DEFAULT_MAX_DEPTH);
    uint8_t *buf = malloc(8 + 4 * 100000);
    assert_non_null(buf);

    size_t len = build_chain(buf, 64);
    check_verify(t, buf, len, FBE_OK, 0, NULL);
    assert_int_equal(decode_depth(t, buf, len, 0), FBE_OK);
    len = build_chain(buf, 65);
    check_verify(t, buf, len, FBE_TOO_DEEP, 8 + 4 * 64, "kids");
    assert_int_equal(decode_depth(t, buf, len, 0), FBE_TOO_DEEP);
    assert_int_equal(decode_depth(t, buf, len, 65), FBE_OK); /* options override */
    assert_int_equal(decode_depth(t, buf, len, 3), FBE_TOO_DEEP);
    /* verify takes the same options */
    fbe_decode_options vo = {.max_depth = 65};
    assert_int_equal(fbe_verify_with(t, FBE_FINAL, buf, len, NULL, &vo), FBE_OK);
    vo.max_depth = UINT_MAX;
    assert_int_equal(fbe_verify_with(t, FBE_FINAL, buf, len, NULL, &vo), FBE_OK);
    vo.max_depth = 3;
    fbe_verify_info vinfo;
    assert_int_equal(fbe_verify_with(t, FBE_FINAL, buf, len, &vinfo, &vo), FBE_TOO_DEEP);
    assert_int_equal(vinfo.offset, 8 + 4 * 3);
    vo.max_depth = 0;
    assert_int_equal(fbe_verify_with(t, FBE_FINAL, buf, len, NULL, &vo), FBE_TOO_DEEP);
    len = build_chain(buf, 3);
    assert_int_equal(decode_depth(t, buf, len, 3), FBE_OK);
    assert_int_equal(decode_depth(t, buf, len, 2), FBE_TOO_DEEP);
    len = build_chain(buf, 100000); /* would exhaust the stack without the limit */
    assert_int_equal(fbe_verify(t, FBE_FINAL, buf, len, NULL), FBE_TOO_DEEP);
    assert_int_equal(decode_depth(t, buf, len, 0), FBE_TOO_DEEP);
    env_free(&e);

    /* the codec's own limit */
    env_text(&e, schema, 3);
    t = type_of(&e, "n.N");
    len = build_chain(buf, 3);
    assert_int_equal(fbe_verify(t, FBE_FINAL, buf, len, NULL), FBE_OK);
    len = build_chain(buf, 4);
    check_verify(t, buf, len, FBE_TOO_DEEP, 8 + 4 * 3, "kids");
    assert_int_equal(fbe_verify_with(t, FBE_FINAL, buf, len, NULL, &(fbe_decode_options){.max_depth = 4}),
                     FBE_OK);
    env_free(&e);

    /* struct levels inside fixed-size structs count too */
    env_text(&e, "package f\nstruct E {}\nstruct F { E e; }\nstruct G { F f; int8 x; }\n", 2);
    t = type_of(&e, "f.G");
    assert_true(t->ir->final_fixed);
    static const uint8_t g[9] = {9, 0, 0, 0, 3, 0, 0, 0, 5};
    check_verify(t, g, sizeof g, FBE_TOO_DEEP, 8, "e");
    assert_int_equal(decode_depth(t, g, sizeof g, 0), FBE_TOO_DEEP);
    assert_int_equal(decode_depth(t, g, sizeof g, 3), FBE_OK);
    assert_int_equal(fbe_verify_with(t, FBE_FINAL, g, sizeof g, NULL, &(fbe_decode_options){.max_depth = 3}),
                     FBE_OK);
    /* a fixed run is bounds-checked before its levels are */
    static const uint8_t g_cut[8] = {8, 0, 0, 0, 3, 0, 0, 0};
    check_verify(t, g_cut, sizeof g_cut, FBE_TRUNCATED, 8, NULL);
    env_free(&e);
    free(buf);
}

static void test_output_errors(void **state)
{
    (void)state;
    env e;
    env_golden(&e, "proto");
    const fbe_type *t = type_of(&e, "proto.Order");
    void *o = new_value(&e, t->ir);
    fill_order(t->ir, o, 1, "EURUSD", 0, 0, 1.23456, 1000.0);

    uint8_t mem[64];
    memset(mem, 0xAA, sizeof mem);
    fbe_buffer fixed;
    fbe_buffer_init_fixed(&fixed, mem, 39);
    assert_int_equal(fbe_serialize(t, FBE_FINAL, o, &fixed), FBE_TOO_SMALL);
    assert_int_equal(fixed.size, 0);
    for (size_t i = 0; i < sizeof mem; i++)
        assert_int_equal(mem[i], 0xAA);
    /* partly used: 10 + 40 > 49 */
    fbe_buffer_init_fixed(&fixed, mem, 49);
    fixed.size = 10;
    assert_int_equal(fbe_serialize(t, FBE_FINAL, o, &fixed), FBE_TOO_SMALL);
    assert_int_equal(fixed.size, 10);
    for (size_t i = 0; i < sizeof mem; i++)
        assert_int_equal(mem[i], 0xAA);
    fbe_buffer_init_fixed(&fixed, mem, 50);
    fixed.size = 10;
    assert_int_equal(fbe_serialize(t, FBE_FINAL, o, &fixed), FBE_OK);
    assert_int_equal(fixed.size, 50);
    assert_memory_equal(mem + 10, order_final, sizeof order_final);
    assert_int_equal(mem[50], 0xAA);

    /* frames over 4 GiB - 1: the string is never read */
    fbe_string *sym = at(t->ir, o, "symbol");
    *sym = (fbe_string){"x", UINT32_MAX - 33}; /* 34 + len bytes */
    assert_int_equal(fbe_size(t, FBE_FINAL, o), (size_t)UINT32_MAX + 1);
    fbe_buffer grow;
    fbe_buffer_init(&grow, NULL, NULL);
    assert_int_equal(fbe_serialize(t, FBE_FINAL, o, &grow), FBE_TOO_LARGE);
    assert_int_equal(grow.size, 0);
    sym->size = UINT32_MAX - 34; /* exactly 4 GiB - 1: only the reserve can refuse it */
    assert_int_equal(fbe_size(t, FBE_FINAL, o), (size_t)UINT32_MAX);
    fbe_buffer_init_fixed(&fixed, mem, sizeof mem);
    assert_int_equal(fbe_serialize(t, FBE_FINAL, o, &fixed), FBE_TOO_SMALL);
    sym->size = (size_t)UINT32_MAX + 1;
    assert_int_equal(fbe_serialize(t, FBE_FINAL, o, &grow), FBE_TOO_LARGE);
    fbe_buffer_free(&grow);

    /* a count over 32 bits, even of elements that take no bytes */
    env_free(&e);
    env_text(&e, "package v\nstruct E {}\nstruct V { E[] v; }\n", 0);
    const fbe_type *vt = type_of(&e, "v.V");
    void *v = new_value(&e, vt->ir);
    set_seq(vt->ir, v, "v", mem, (size_t)UINT32_MAX + 1);
    fbe_buffer_init(&grow, NULL, NULL);
    assert_int_equal(fbe_serialize(vt, FBE_FINAL, v, &grow), FBE_TOO_LARGE);
    fbe_buffer_free(&grow);
    env_free(&e);
}

/* An arena that refuses memory: NOMEM, and the value is still safe. */
static void test_nomem(void **state)
{
    (void)state;
    env e;
    env_golden(&e, "proto");
    const fbe_type *t = type_of(&e, "proto.Account");
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    arena.limit = 1;
    fbe_decode_options opts = {.arena = &arena};
    void *out = malloc(t->ir->host_size);
    assert_non_null(out);
    memset(out, 0xA5, t->ir->host_size);
    assert_int_equal(fbe_deserialize(t, FBE_FINAL, account_final, sizeof account_final, out,
                                     &opts, NULL),
                     FBE_NOMEM);
    fbe_buffer buf;
    fbe_buffer_init(&buf, NULL, NULL);
    assert_int_equal(fbe_serialize(t, FBE_FINAL, out, &buf), FBE_OK);
    /* borrowing needs no string memory, but the optional struct and the orders do */
    opts.flags = FBE_DECODE_BORROW;
    assert_int_equal(fbe_deserialize(t, FBE_FINAL, account_final, sizeof account_final, out,
                                     &opts, NULL),
                     FBE_NOMEM);
    assert_int_equal(*(int32_t *)at(t->ir, out, "id"), 7);
    assert_null(*(void **)at(t->ir, out, "asset"));
    fbe_buffer_clear(&buf);
    assert_int_equal(fbe_serialize(t, FBE_FINAL, out, &buf), FBE_OK);
    fbe_buffer_free(&buf);
    free(out);
    fbe_arena_free(&arena);
    env_free(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_account),
        cmocka_unit_test(test_balance_message),
        cmocka_unit_test(test_derived),
        cmocka_unit_test(test_coll),
        cmocka_unit_test(test_fixed_shapes),
        cmocka_unit_test(test_golden_cases),
        cmocka_unit_test(test_golden_protocol),
        cmocka_unit_test(test_golden_truncations),
        cmocka_unit_test(test_golden_mutations),
        cmocka_unit_test(test_frame_errors),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_output_errors),
        cmocka_unit_test(test_nomem),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
