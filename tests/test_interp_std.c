/* The interpreter's standard model: size, serialize, verify, deserialize.
 *
 * Expected bytes are typed from wire-format.md 11 (annotated hex of the reference)
 * or read from the golden vectors written by the reference C++; hostile inputs
 * are built byte by byte from the layouts of wire-format.md 3. Nothing expected
 * is produced by the code under test. */
#define _POSIX_C_SOURCE 200809L /* strdup */

#include "test_util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbe/codec.h"
#include "interp/program.h"

/* ---- helpers ------------------------------------------------------------------ */

/* Hex text (whitespace ignored) -> bytes; returns the count. */
static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = 0;
    int hi = -1;
    for (; *s; s++) {
        int v;
        if (*s >= '0' && *s <= '9')
            v = *s - '0';
        else if (*s >= 'a' && *s <= 'f')
            v = *s - 'a' + 10;
        else if (*s >= 'A' && *s <= 'F')
            v = *s - 'A' + 10;
        else
            continue;
        if (hi < 0) {
            hi = v;
        } else {
            assert_true(n < cap);
            out[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    assert_int_equal(hi, -1);
    return n;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static fbe_string str(const char *s)
{
    return (fbe_string){s, strlen(s)};
}

static void assert_str(fbe_string s, const char *want)
{
    assert_int_equal(s.size, strlen(want));
    if (s.size)
        assert_memory_equal(s.data, want, s.size);
}

static void dump_diff(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len)
{
    size_t n = got_len < want_len ? got_len : want_len;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            print_error("first difference at 0x%zx: got %02x want %02x (lengths %zu / %zu)\n", i,
                        got[i], want[i], got_len, want_len);
            return;
        }
    print_error("lengths differ: got %zu want %zu\n", got_len, want_len);
}

static bool bytes_equal(const uint8_t *got, size_t got_len, const uint8_t *want, size_t want_len)
{
    if (got_len == want_len && memcmp(got, want, got_len) == 0)
        return true;
    dump_diff(got, got_len, want, want_len);
    return false;
}

/* Host-layout check of a hand-written C struct against the IR. */
typedef struct layout_item {
    const char *name;
    size_t offset;
    size_t size;
} layout_item;

#define LF(T, field, member) {field, offsetof(T, member), sizeof(((T *)0)->member)}

static void check_layout(const fbe_ir_struct *ir, size_t size, const layout_item *items,
                         size_t n)
{
    assert_int_equal(ir->host_size, size);
    assert_int_equal(ir->field_count, n);
    for (size_t i = 0; i < n; i++) {
        const fbe_ir_field *f = fbe_field_by_name(ir, items[i].name);
        assert_non_null(f);
        assert_int_equal(f->host_offset, items[i].offset);
        assert_int_equal(f->type->host_size, items[i].size);
    }
}

/* Deep equality and a full read of every view, walking the lowered programs. */
static bool node_equal(const interp_node *n, const uint8_t *a, const uint8_t *b);

static bool prog_equal(const interp_prog *p, const uint8_t *a, const uint8_t *b)
{
    for (size_t i = 0; i < p->field_count; i++) {
        const interp_field *f = &p->fields[i];
        if (!node_equal(&f->node, a + f->host_offset, b + f->host_offset)) {
            print_error("  field %s.%s differs\n", p->ir->full_name, f->ir->name);
            return false;
        }
    }
    return true;
}

static bool node_equal(const interp_node *n, const uint8_t *a, const uint8_t *b)
{
    switch ((interp_op)n->op) {
    case OP_BOOL:
        return (*a != 0) == (*b != 0);
    case OP_COPY1:
    case OP_COPY2:
    case OP_COPY4:
    case OP_COPY8:
    case OP_COPY16:
        return memcmp(a, b, n->host_size) == 0;
    case OP_STRING: {
        fbe_bytes x, y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        return x.size == y.size && (!x.size || memcmp(x.data, y.data, x.size) == 0);
    }
    case OP_STRUCT:
        return prog_equal(n->prog, a, b);
    case OP_OPTIONAL:
        if ((*a != 0) != (*b != 0))
            return false;
        return !*a || node_equal(n->elem, a + n->host_value_offset, b + n->host_value_offset);
    case OP_OPT_STRUCT: {
        const uint8_t *x, *y;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        if (!x || !y)
            return !x && !y;
        return prog_equal(n->prog, x, y);
    }
    case OP_ARRAY:
        for (uint32_t i = 0; i < n->count; i++)
            if (!node_equal(n->elem, a + (size_t)i * n->elem->host_size,
                            b + (size_t)i * n->elem->host_size))
                return false;
        return true;
    case OP_SEQ:
    case OP_MAP: {
        const fbe_seq *x = (const fbe_seq *)a, *y = (const fbe_seq *)b;
        if (x->size != y->size)
            return false;
        for (size_t i = 0; i < x->size; i++) {
            if (n->op == OP_SEQ) {
                size_t hs = n->elem->host_size;
                if (!node_equal(n->elem, (const uint8_t *)x->data + i * hs,
                                (const uint8_t *)y->data + i * hs))
                    return false;
            } else {
                const uint8_t *ea = (const uint8_t *)x->data + i * n->entry_size;
                const uint8_t *eb = (const uint8_t *)y->data + i * n->entry_size;
                if (!node_equal(n->key, ea, eb) ||
                    !node_equal(n->elem, ea + n->entry_value_offset, eb + n->entry_value_offset))
                    return false;
            }
        }
        return true;
    }
    }
    return false;
}

/* Reads every byte reachable from a value (ASan reports any invalid view). */
static unsigned touch_node(const interp_node *n, const uint8_t *a);

static unsigned touch_prog(const interp_prog *p, const uint8_t *a)
{
    unsigned sum = 0;
    for (size_t i = 0; i < p->field_count; i++)
        sum += touch_node(&p->fields[i].node, a + p->fields[i].host_offset);
    return sum;
}

static unsigned touch_node(const interp_node *n, const uint8_t *a)
{
    unsigned sum = 0;
    switch ((interp_op)n->op) {
    case OP_STRING: {
        fbe_bytes x;
        memcpy(&x, a, sizeof x);
        for (size_t i = 0; i < x.size; i++)
            sum += x.data[i];
        return sum;
    }
    case OP_STRUCT:
        return touch_prog(n->prog, a);
    case OP_OPTIONAL:
        return *a ? touch_node(n->elem, a + n->host_value_offset) : 0;
    case OP_OPT_STRUCT: {
        const uint8_t *x;
        memcpy(&x, a, sizeof x);
        return x ? touch_prog(n->prog, x) : 0;
    }
    case OP_ARRAY:
        for (uint32_t i = 0; i < n->count; i++)
            sum += touch_node(n->elem, a + (size_t)i * n->elem->host_size);
        return sum;
    case OP_SEQ:
    case OP_MAP: {
        const fbe_seq *x = (const fbe_seq *)a;
        size_t hs = n->op == OP_SEQ ? n->elem->host_size : n->entry_size;
        for (size_t i = 0; i < x->size; i++) {
            const uint8_t *e = (const uint8_t *)x->data + i * hs;
            if (n->op == OP_SEQ) {
                sum += touch_node(n->elem, e);
            } else {
                sum += touch_node(n->key, e);
                sum += touch_node(n->elem, e + n->entry_value_offset);
            }
        }
        return sum;
    }
    default:
        return a[0];
    }
}

static const fbe_type *codec_type(const fbe_codec *codec, const char *name)
{
    const fbe_type *t = fbe_codec_type(codec, name);
    if (!t)
        fail_msg("type %s not found", name);
    return t;
}

/* The full round trip of a hand-built value against the reference bytes:
 * size, serialize (exact bytes), verify, deserialize (arena copy and borrowed
 * views), deep equality with the original, re-serialize. */
static void roundtrip(const fbe_type *t, const void *value, const uint8_t *want, size_t want_len)
{
    assert_int_equal(fbe_size(t, FBE_STANDARD, value), want_len);

    fbe_buffer buf;
    fbe_buffer_init(&buf, NULL, NULL);
    assert_int_equal(fbe_serialize(t, FBE_STANDARD, value, &buf), FBE_OK);
    assert_true(bytes_equal(buf.data, buf.size, want, want_len));

    /* exact-size caller memory works too */
    uint8_t *fixed_mem = malloc(want_len);
    memset(fixed_mem, 0xA5, want_len); /* every byte must be written */
    fbe_buffer fixed;
    fbe_buffer_init_fixed(&fixed, fixed_mem, want_len);
    assert_int_equal(fbe_serialize(t, FBE_STANDARD, value, &fixed), FBE_OK);
    assert_int_equal(fixed.size, want_len);
    assert_memory_equal(fixed_mem, want, want_len);
    free(fixed_mem);

    /* decode from an exact-size heap copy of the reference bytes */
    uint8_t *in = malloc(want_len);
    memcpy(in, want, want_len);
    fbe_verify_info info;
    assert_int_equal(fbe_verify(t, FBE_STANDARD, in, want_len, &info), FBE_OK);
    assert_int_equal(info.status, FBE_OK);

    const interp_prog *prog = interp_prog_of(t);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    for (unsigned flags = 0; flags <= FBE_DECODE_BORROW; flags += FBE_DECODE_BORROW) {
        void *out = malloc(prog->host_size);
        memset(out, 0xA5, prog->host_size);
        fbe_decode_options opts = {.arena = &arena, .flags = flags};
        size_t consumed = 0;
        assert_int_equal(fbe_deserialize(t, FBE_STANDARD, in, want_len, out, &opts, &consumed),
                         FBE_OK);
        assert_int_equal(consumed, want_len);
        assert_true(prog_equal(prog, value, out));
        fbe_buffer again;
        fbe_buffer_init(&again, NULL, NULL);
        assert_int_equal(fbe_serialize(t, FBE_STANDARD, out, &again), FBE_OK);
        assert_true(bytes_equal(again.data, again.size, want, want_len));
        fbe_buffer_free(&again);
        free(out);
    }
    fbe_arena_free(&arena);
    free(in);
    fbe_buffer_free(&buf);
}

/* ---- host layouts of the example schemas (checked against the IR) ------------- */

typedef struct P_Order {
    int32_t id;
    fbe_string symbol;
    uint8_t side;
    uint8_t type;
    double price;
    double volume;
} P_Order;

typedef struct P_Balance {
    fbe_string currency;
    double amount;
} P_Balance;

typedef struct P_Account {
    int32_t id;
    fbe_string name;
    uint8_t state;
    P_Balance wallet;
    P_Balance *asset;
    struct {
        P_Order *data;
        size_t size;
    } orders;
} P_Account;

typedef struct P_BalanceMessage {
    P_Balance body;
} P_BalanceMessage;

typedef struct X_Base {
    int16_t a;
    fbe_string s;
} X_Base;

typedef struct X_Derived {
    X_Base base;
    bool b;
    struct {
        bool has_value;
        int32_t value;
    } oi;
} X_Derived;

typedef struct X_MpEntry {
    int32_t key;
    fbe_string value;
} X_MpEntry;

typedef struct X_HsEntry {
    fbe_string key;
    int32_t value;
} X_HsEntry;

typedef struct X_Coll {
    uint8_t arr[3];
    struct { int16_t *data; size_t size; } vec;
    struct { fbe_string *data; size_t size; } lst;
    struct { int32_t *data; size_t size; } st;
    struct { X_MpEntry *data; size_t size; } mp;
    struct { X_HsEntry *data; size_t size; } hs;
    fbe_bytes by;
    struct { bool has_value; fbe_string value; } os;
    X_Base *ob;
    struct { X_Base *data; size_t size; } vb;
    uint8_t c;
    uint16_t p;
    fbe_decimal d;
    fbe_uuid u;
    uint64_t t;
    uint8_t ch;
    uint32_t wc;
    float f;
} X_Coll;

static const char EX_SCHEMA[] =
    "package ex offset 50\n"
    "enum Color : byte { red; green = 5; blue; }\n"
    "flags Perm : uint16 { none = 0; r = 1; w = 2; rw = r | w; }\n"
    "struct Base { int16 a = 7; string s; }\n"
    "struct Derived : Base { bool b; int32? oi; }\n"
    "struct Coll { byte[3] arr; int16[] vec; string() lst; int32! st; string<int32> mp;\n"
    "  int32{string} hs; bytes by; string? os; Base? ob; Base[] vb; Color c = Color.blue;\n"
    "  Perm p = Perm.rw; decimal d; uuid u; timestamp t; char ch = 'A'; wchar wc = 0x0444;\n"
    "  float f = 1.5; }\n"
    "struct Empty {}\n";

typedef struct fixture {
    fbe_schema *schema;
    fbe_codec *codec;
} fixture;

static void fixture_golden(fixture *fx, const char *name)
{
    fx->schema = load_golden(name);
    fbe_status st;
    fx->codec = fbe_interp_create(fx->schema, NULL, &st);
    assert_non_null(fx->codec);
}

static void fixture_text(fixture *fx, const char *text, const fbe_codec_options *opts)
{
    diag_capture cap;
    fx->schema = load_text(text, &cap);
    if (!fx->schema)
        fail_msg("schema failed:\n%s", cap.text);
    fbe_status st;
    fx->codec = fbe_interp_create(fx->schema, opts, &st);
    assert_non_null(fx->codec);
}

static void fixture_free(fixture *fx)
{
    fbe_codec_free(fx->codec);
    fbe_schema_free(fx->schema);
}

static void check_proto_layouts(const fbe_codec *codec)
{
    const layout_item order[] = {
        LF(P_Order, "id", id),       LF(P_Order, "symbol", symbol), LF(P_Order, "side", side),
        LF(P_Order, "type", type),   LF(P_Order, "price", price),   LF(P_Order, "volume", volume)};
    check_layout(codec_type(codec, "proto.Order")->ir, sizeof(P_Order), order, 6);
    const layout_item balance[] = {LF(P_Balance, "currency", currency),
                                   LF(P_Balance, "amount", amount)};
    check_layout(codec_type(codec, "proto.Balance")->ir, sizeof(P_Balance), balance, 2);
    const layout_item account[] = {
        LF(P_Account, "id", id),         LF(P_Account, "name", name),
        LF(P_Account, "state", state),   LF(P_Account, "wallet", wallet),
        LF(P_Account, "asset", asset),   LF(P_Account, "orders", orders)};
    check_layout(codec_type(codec, "proto.Account")->ir, sizeof(P_Account), account, 6);
    const layout_item bm[] = {LF(P_BalanceMessage, "body", body)};
    check_layout(codec_type(codec, "proto.BalanceMessage")->ir, sizeof(P_BalanceMessage), bm, 1);
}

static void check_ex_layouts(const fbe_codec *codec)
{
    const layout_item base[] = {LF(X_Base, "a", a), LF(X_Base, "s", s)};
    check_layout(codec_type(codec, "ex.Base")->ir, sizeof(X_Base), base, 2);
    const layout_item derived[] = {LF(X_Derived, "a", base.a), LF(X_Derived, "s", base.s),
                                   LF(X_Derived, "b", b), LF(X_Derived, "oi", oi)};
    check_layout(codec_type(codec, "ex.Derived")->ir, sizeof(X_Derived), derived, 4);
    const layout_item coll[] = {
        LF(X_Coll, "arr", arr), LF(X_Coll, "vec", vec), LF(X_Coll, "lst", lst),
        LF(X_Coll, "st", st),   LF(X_Coll, "mp", mp),   LF(X_Coll, "hs", hs),
        LF(X_Coll, "by", by),   LF(X_Coll, "os", os),   LF(X_Coll, "ob", ob),
        LF(X_Coll, "vb", vb),   LF(X_Coll, "c", c),     LF(X_Coll, "p", p),
        LF(X_Coll, "d", d),     LF(X_Coll, "u", u),     LF(X_Coll, "t", t),
        LF(X_Coll, "ch", ch),   LF(X_Coll, "wc", wc),   LF(X_Coll, "f", f)};
    const fbe_ir_struct *ir = codec_type(codec, "ex.Coll")->ir;
    check_layout(ir, sizeof(X_Coll), coll, 18);
    const fbe_ir_type *mp = fbe_field_by_name(ir, "mp")->type;
    assert_int_equal(mp->host_entry_size, sizeof(X_MpEntry));
    assert_int_equal(mp->host_entry_value_offset, offsetof(X_MpEntry, value));
    const fbe_ir_type *hs = fbe_field_by_name(ir, "hs")->type;
    assert_int_equal(hs->host_entry_size, sizeof(X_HsEntry));
    assert_int_equal(hs->host_entry_value_offset, offsetof(X_HsEntry, value));
    assert_int_equal(fbe_field_by_name(ir, "os")->type->host_value_offset,
                     offsetof(X_Coll, os.value) - offsetof(X_Coll, os));
}

/* ---- wire-format.md 11: the reference examples ------------------------------- */

static const char ORDER_HEX[] = /* 11.1 */
    "34 00 00 00 08 00 00 00"
    "22 00 00 00 01 00 00 00"
    "01 00 00 00"
    "22 00 00 00"
    "00 00"
    "38 32 8f fc c1 c0 f3 3f"
    "00 00 00 00 00 40 8f 40"
    "06 00 00 00 45 55 52 55 53 44";

static const char ACCOUNT_HEX[] = /* 11.2 */
    "95 00 00 00 08 00 00 00"
    "1e 00 00 00 03 00 00 00"
    "07 00 00 00"
    "1e 00 00 00"
    "06"
    "24 00 00 00"
    "01 3f 00 00 00"
    "5e 00 00 00"
    "02 00 00 00 4a 6f"
    "14 00 00 00 02 00 00 00"
    "14 00 00 00"
    "00 00 00 00 00 20 59 40"
    "03 00 00 00 55 53 44"
    "04 00 00 00"
    "14 00 00 00 02 00 00 00"
    "14 00 00 00"
    "00 00 00 00 00 00 00 40"
    "03 00 00 00 45 55 52"
    "01 00 00 00"
    "66 00 00 00"
    "22 00 00 00 01 00 00 00"
    "02 00 00 00"
    "22 00 00 00"
    "00 02"
    "00 00 00 00 00 00 f8 3f"
    "00 00 00 00 00 00 24 40"
    "01 00 00 00 58";

static const char ACCOUNT_DEFAULT_HEX[] = /* 11.3, stale bytes written as zeros */
    "46 00 00 00 08 00 00 00"
    "1e 00 00 00 03 00 00 00"
    "01 00 00 00"
    "1e 00 00 00"
    "0b"
    "22 00 00 00"
    "00"
    "00 00 00 00"
    "3a 00 00 00"
    "00 00 00 00"
    "14 00 00 00 02 00 00 00 14 00 00 00 00 00 00 00 00 00 00 00"
    "00 00 00 00"
    "00 00 00 00";

static void test_order(void **state)
{
    (void)state;
    fixture fx;
    fixture_golden(&fx, "proto");
    check_proto_layouts(fx.codec);
    const fbe_type *t = codec_type(fx.codec, "proto.Order");
    uint8_t want[64];
    size_t n = unhex(ORDER_HEX, want, sizeof want);
    assert_int_equal(n, 52);
    P_Order o = {1, str("EURUSD"), 0, 0, 1.23456, 1000.0};
    roundtrip(t, &o, want, n);

    /* field values as decoded */
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena};
    P_Order d;
    assert_int_equal(fbe_deserialize(t, FBE_STANDARD, want, n, &d, &opts, NULL), FBE_OK);
    assert_int_equal(d.id, 1);
    assert_str(d.symbol, "EURUSD");
    assert_true(d.price == 1.23456 && d.volume == 1000.0);
    fbe_arena_free(&arena);
    fixture_free(&fx);
}

/* The type table in the order the header promises: test.fbe imports proto, so
 * proto's structs (declaration order in proto.fbe) come first, then test's. */
static void test_type_table(void **state)
{
    (void)state;
    static const char *const proto_types[] = {"proto.Order",        "proto.Balance",
                                              "proto.Account",      "proto.OrderMessage",
                                              "proto.BalanceMessage", "proto.AccountMessage"};
    fixture fx;
    fixture_golden(&fx, "test");
    size_t n = fbe_codec_type_count(fx.codec);
    assert_int_equal(n, 6 + 12); /* 12: the struct and message lines of test.fbe */
    for (size_t i = 0; i < n; i++) {
        const fbe_type *t = fbe_codec_type_at(fx.codec, i);
        assert_non_null(t);
        assert_ptr_equal(t->codec, fx.codec);
        if (i < 6)
            assert_string_equal(t->ir->full_name, proto_types[i]);
        else
            assert_string_equal(t->ir->package->name, "test");
        assert_ptr_equal(fbe_codec_type_of(fx.codec, t->ir), t);
        assert_ptr_equal(fbe_codec_type(fx.codec, t->ir->full_name), t);
    }
    assert_string_equal(fbe_codec_type_at(fx.codec, 6)->ir->full_name, "test.StructSimple");
    assert_null(fbe_codec_type_at(fx.codec, n));
    assert_null(fbe_codec_type_at(fx.codec, SIZE_MAX));
    fixture_free(&fx);
}

/* fbe_interp_create_ir: the packages of a schema give the codec fbe_interp_create
 * gives (same table, same bytes); lists that break "each once, after its imports"
 * are refused, since a struct of a missing import would have no program. */
static void test_create_ir(void **state)
{
    (void)state;
    fbe_schema *schema = load_golden("test"); /* imports proto */
    assert_int_equal(fbe_schema_package_count(schema), 2);
    const fbe_ir_package *proto = fbe_schema_package(schema, 0), *test = fbe_schema_package(schema, 1);
    assert_string_equal(proto->name, "proto");
    assert_string_equal(test->name, "test");

    const fbe_ir_package *both[2] = {proto, test};
    fbe_codec_options opts = {.max_depth = 7};
    fbe_status st = FBE_NOMEM;
    fbe_codec *codec = fbe_interp_create_ir(both, 2, &opts, &st);
    assert_non_null(codec);
    assert_int_equal(st, FBE_OK);
    assert_int_equal(fbe_codec_backend(codec), FBE_BACKEND_INTERP);
    assert_int_equal(fbe_codec_max_depth(codec), 7);
    fbe_codec *ref = fbe_interp_create(schema, NULL, NULL);
    assert_int_equal(fbe_codec_max_depth(ref), FBE_DEFAULT_MAX_DEPTH);
    assert_int_equal(fbe_codec_type_count(codec), fbe_codec_type_count(ref));
    for (size_t i = 0; i < fbe_codec_type_count(ref); i++)
        assert_ptr_equal(fbe_codec_type_at(codec, i)->ir, fbe_codec_type_at(ref, i)->ir);
    /* A default account: the same standard bytes from both codecs. */
    const fbe_type *a = fbe_codec_type(codec, "proto.Account");
    P_Account v;
    fbe_init(a->ir, &v);
    fbe_buffer b1, b2;
    fbe_buffer_init(&b1, NULL, NULL);
    fbe_buffer_init(&b2, NULL, NULL);
    assert_int_equal(fbe_serialize(a, FBE_STANDARD, &v, &b1), FBE_OK);
    assert_int_equal(fbe_serialize(fbe_codec_type(ref, "proto.Account"), FBE_STANDARD, &v, &b2),
                     FBE_OK);
    assert_int_equal(b1.size, b2.size);
    assert_memory_equal(b1.data, b2.data, b1.size);
    fbe_buffer_free(&b1);
    fbe_buffer_free(&b2);
    fbe_codec_free(ref);
    fbe_codec_free(codec);

    /* proto alone is complete; the array need not outlive the call. */
    const fbe_ir_package *one[1] = {proto};
    codec = fbe_interp_create_ir(one, 1, NULL, &st);
    assert_non_null(codec);
    one[0] = NULL;
    assert_int_equal(fbe_codec_type_count(codec), 6);
    assert_non_null(fbe_codec_type(codec, "proto.Account"));
    assert_null(fbe_codec_type(codec, "test.StructSimple"));
    fbe_codec_free(codec);
    codec = fbe_interp_create_ir(NULL, 0, NULL, &st); /* no package, no type */
    assert_non_null(codec);
    assert_int_equal(fbe_codec_type_count(codec), 0);
    fbe_codec_free(codec);

    const fbe_ir_package *missing[1] = {test};      /* without its import */
    const fbe_ir_package *reversed[2] = {test, proto};
    const fbe_ir_package *twice[3] = {proto, proto, test};
    const fbe_ir_package *null_entry[2] = {proto, NULL};
    const fbe_ir_package *const *bad[] = {missing, reversed, twice, null_entry, NULL};
    const size_t bad_count[] = {1, 2, 3, 2, 1};
    for (size_t i = 0; i < sizeof bad_count / sizeof *bad_count; i++) {
        st = FBE_OK;
        assert_null(fbe_interp_create_ir(bad[i], bad_count[i], NULL, &st));
        assert_int_equal(st, FBE_INVALID_ARGUMENT);
    }
    assert_null(fbe_interp_create_ir(missing, 1, NULL, NULL)); /* status may be NULL */
    st = FBE_OK;
    assert_null(fbe_interp_create(NULL, NULL, &st));
    assert_int_equal(st, FBE_INVALID_ARGUMENT);
    fbe_schema_free(schema);
}

static P_Order account_order = {2, {"X", 1}, 0, 2, 1.5, 10.0};
static P_Balance account_asset = {{"EUR", 3}, 2.0};

static void test_account(void **state)
{
    (void)state;
    fixture fx;
    fixture_golden(&fx, "proto");
    const fbe_type *t = codec_type(fx.codec, "proto.Account");
    uint8_t want[160];
    size_t n = unhex(ACCOUNT_HEX, want, sizeof want);
    assert_int_equal(n, 149);
    P_Account a;
    fbe_init(t->ir, &a);
    a.id = 7;
    a.name = str("Jo");
    a.state = 6;
    a.wallet = (P_Balance){str("USD"), 100.5};
    a.asset = &account_asset;
    a.orders.data = &account_order;
    a.orders.size = 1;
    roundtrip(t, &a, want, n);

    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena};
    P_Account d;
    assert_int_equal(fbe_deserialize(t, FBE_STANDARD, want, n, &d, &opts, NULL), FBE_OK);
    assert_int_equal(d.id, 7);
    assert_str(d.name, "Jo");
    assert_int_equal(d.state, 6);
    assert_str(d.wallet.currency, "USD");
    assert_true(d.wallet.amount == 100.5);
    assert_non_null(d.asset);
    assert_str(d.asset->currency, "EUR");
    assert_true(d.asset->amount == 2.0);
    assert_int_equal(d.orders.size, 1);
    assert_int_equal(d.orders.data[0].id, 2);
    assert_str(d.orders.data[0].symbol, "X");
    assert_int_equal(d.orders.data[0].type, 2);
    assert_true(d.orders.data[0].price == 1.5 && d.orders.data[0].volume == 10.0);
    fbe_arena_free(&arena);
    fixture_free(&fx);
}

static void test_account_default(void **state)
{
    (void)state;
    fixture fx;
    fixture_golden(&fx, "proto");
    const fbe_type *t = codec_type(fx.codec, "proto.Account");
    uint8_t want[80];
    size_t n = unhex(ACCOUNT_DEFAULT_HEX, want, sizeof want);
    assert_int_equal(n, 70);
    P_Account a;
    fbe_init(t->ir, &a);
    assert_int_equal(a.state, 0x0b);
    a.id = 1;
    roundtrip(t, &a, want, n);

    /* the reference leaves stale bytes in the absent optional's offset: any
     * value there is accepted and the optional stays absent */
    want[0x1E] = 0xf3;
    want[0x1F] = 0x3f;
    assert_int_equal(fbe_verify(t, FBE_STANDARD, want, n, NULL), FBE_OK);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena};
    P_Account d;
    memset(&d, 0xA5, sizeof d);
    assert_int_equal(fbe_deserialize(t, FBE_STANDARD, want, n, &d, &opts, NULL), FBE_OK);
    assert_null(d.asset);
    assert_int_equal(d.orders.size, 0);
    assert_int_equal(d.name.size, 0);
    assert_int_equal(d.state, 0x0b);
    fbe_arena_free(&arena);
    fixture_free(&fx);
}

static void test_derived(void **state)
{
    (void)state;
    fixture fx;
    fixture_text(&fx, EX_SCHEMA, NULL);
    check_ex_layouts(fx.codec);
    const fbe_type *t = codec_type(fx.codec, "ex.Derived");
    assert_int_equal(t->ir->type_number, 52);
    uint8_t want[64];
    size_t n = unhex("26 00 00 00 08 00 00 00"
                     "14 00 00 00 34 00 00 00"
                     "01 00"
                     "14 00 00 00"
                     "01"
                     "01 1a 00 00 00"
                     "02 00 00 00 68 69"
                     "02 01 00 00",
                     want, sizeof want);
    assert_int_equal(n, 38);
    X_Derived v;
    fbe_init(t->ir, &v);
    assert_int_equal(v.base.a, 7);
    v.base.a = 1;
    v.base.s = str("hi");
    v.b = true;
    v.oi.has_value = true;
    v.oi.value = 258;
    roundtrip(t, &v, want, n);
    fixture_free(&fx);
}

static const char COLL_HEX[] = /* 11.5 */
    "10 01 00 00 08 00 00 00"
    "65 00 00 00 35 00 00 00"
    "01 02 03"
    "65 00 00 00"
    "6d 00 00 00"
    "84 00 00 00"
    "94 00 00 00"
    "b6 00 00 00"
    "c7 00 00 00"
    "01 ce 00 00 00"
    "01 d7 00 00 00"
    "ee 00 00 00"
    "06"
    "03 00"
    "7d 00 00 00 00 00 00 00 00 00 00 00 00 00 01 80"
    "12 3e 45 67 e8 9b 12 d3 a4 56 42 66 55 44 00 00"
    "00 ca 9a 3b 00 00 00 00"
    "41"
    "44 04 00 00"
    "00 00 c0 3f"
    "02 00 00 00 ff ff 02 00"
    "02 00 00 00 79 00 00 00 7e 00 00 00"
    "01 00 00 00 61"
    "02 00 00 00 62 63"
    "03 00 00 00 01 00 00 00 02 00 00 00 03 00 00 00"
    "02 00 00 00 01 00 00 00 a8 00 00 00 02 00 00 00 af 00 00 00"
    "03 00 00 00 6f 6e 65"
    "03 00 00 00 74 77 6f"
    "01 00 00 00 c2 00 00 00 09 00 00 00"
    "01 00 00 00 6b"
    "03 00 00 00 01 02 ff"
    "04 00 00 00"
    "01 00 00 00 6f"
    "04 00 00 00"
    "0e 00 00 00 33 00 00 00 07 00 0e 00 00 00"
    "01 00 00 00 71"
    "01 00 00 00 f6 00 00 00"
    "0e 00 00 00 33 00 00 00 03 00 0e 00 00 00"
    "00 00 00 00";

static void test_coll(void **state)
{
    (void)state;
    fixture fx;
    fixture_text(&fx, EX_SCHEMA, NULL);
    const fbe_type *t = codec_type(fx.codec, "ex.Coll");
    assert_int_equal(t->ir->type_number, 53);
    uint8_t want[300];
    size_t n = unhex(COLL_HEX, want, sizeof want);
    assert_int_equal(n, 272);

    int16_t vec[] = {-1, 2};
    fbe_string lst[] = {str("a"), str("bc")};
    int32_t st[] = {1, 2, 3};
    X_MpEntry mp[] = {{1, str("one")}, {2, str("two")}};
    X_HsEntry hs[] = {{str("k"), 9}};
    static const uint8_t by[] = {0x01, 0x02, 0xff};
    X_Base ob = {7, str("q")};
    X_Base vb[] = {{3, {NULL, 0}}};
    X_Coll c;
    fbe_init(t->ir, &c);
    assert_int_equal(c.c, 6);
    assert_int_equal(c.p, 3);
    assert_int_equal(c.ch, 'A');
    assert_int_equal(c.wc, 0x444);
    assert_true(c.f == 1.5f);
    c.arr[0] = 1;
    c.arr[1] = 2;
    c.arr[2] = 3;
    c.vec.data = vec;
    c.vec.size = 2;
    c.lst.data = lst;
    c.lst.size = 2;
    c.st.data = st;
    c.st.size = 3;
    c.mp.data = mp;
    c.mp.size = 2;
    c.hs.data = hs;
    c.hs.size = 1;
    c.by = (fbe_bytes){by, 3};
    c.os.has_value = true;
    c.os.value = str("o");
    c.ob = &ob;
    c.vb.data = vb;
    c.vb.size = 1;
    c.d = (fbe_decimal){125, 0, 0x80010000u};
    static const uint8_t u[16] = {0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3,
                                  0xa4, 0x56, 0x42, 0x66, 0x55, 0x44, 0x00, 0x00};
    memcpy(c.u.bytes, u, 16);
    c.t = 1000000000;
    roundtrip(t, &c, want, n);

    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena, .flags = FBE_DECODE_BORROW};
    X_Coll d;
    assert_int_equal(fbe_deserialize(t, FBE_STANDARD, want, n, &d, &opts, NULL), FBE_OK);
    assert_int_equal(d.vec.size, 2);
    assert_int_equal(d.vec.data[0], -1);
    assert_str(d.lst.data[1], "bc");
    /* borrowed views point into the input */
    assert_ptr_equal(d.lst.data[1].data, (const char *)want + 0x8A);
    assert_int_equal(d.mp.data[1].key, 2);
    assert_str(d.mp.data[1].value, "two");
    assert_str(d.hs.data[0].key, "k");
    assert_int_equal(d.hs.data[0].value, 9);
    assert_int_equal(d.by.size, 3);
    assert_true(d.os.has_value);
    assert_str(d.os.value, "o");
    assert_non_null(d.ob);
    assert_int_equal(d.ob->a, 7);
    assert_int_equal(d.vb.size, 1);
    assert_int_equal(d.vb.data[0].a, 3);
    assert_int_equal(d.d.flags, 0x80010000u);
    assert_int_equal(d.wc, 0x444);
    fbe_arena_free(&arena);
    fixture_free(&fx);
}

static void test_empty(void **state)
{
    (void)state;
    fixture fx;
    fixture_text(&fx, EX_SCHEMA, NULL);
    const fbe_type *t = codec_type(fx.codec, "ex.Empty");
    assert_int_equal(t->ir->type_number, 54);
    assert_int_equal(t->ir->host_size, 1);
    uint8_t want[16];
    size_t n = unhex("10 00 00 00 08 00 00 00 08 00 00 00 36 00 00 00", want, sizeof want);
    uint8_t e = 0;
    roundtrip(t, &e, want, n);
    fixture_free(&fx);
}

static void test_balance_messages(void **state)
{
    (void)state;
    fixture fx;
    fixture_golden(&fx, "proto");
    check_proto_layouts(fx.codec);
    const fbe_type *t = codec_type(fx.codec, "proto.BalanceMessage");
    uint8_t want[100];
    size_t n = unhex("2f 00 00 00 08 00 00 00"
                     "0c 00 00 00 02 00 00 00"
                     "0c 00 00 00"
                     "14 00 00 00 02 00 00 00 14 00 00 00 00 00 00 00 00 00 f0 3f"
                     "03 00 00 00 55 53 44"
                     "2e 00 00 00 08 00 00 00"
                     "0c 00 00 00 02 00 00 00 0c 00 00 00"
                     "14 00 00 00 02 00 00 00 14 00 00 00 00 00 00 00 00 00 00 40"
                     "02 00 00 00 45 55",
                     want, sizeof want);
    assert_int_equal(n, 93);
    P_BalanceMessage m1 = {{str("USD"), 1.0}}, m2 = {{str("EU"), 2.0}};
    roundtrip(t, &m1, want, 47);
    roundtrip(t, &m2, want + 47, 46);

    /* appended back to back into one buffer: each frame is self-relative */
    fbe_buffer buf;
    fbe_buffer_init(&buf, NULL, NULL);
    assert_int_equal(fbe_serialize(t, FBE_STANDARD, &m1, &buf), FBE_OK);
    assert_int_equal(fbe_serialize(t, FBE_STANDARD, &m2, &buf), FBE_OK);
    assert_true(bytes_equal(buf.data, buf.size, want, n));

    /* reading the stream: each frame consumes its own full_size */
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena};
    P_BalanceMessage d;
    size_t consumed = 0;
    assert_int_equal(fbe_verify(t, FBE_STANDARD, want, n, NULL), FBE_OK);
    assert_int_equal(fbe_deserialize(t, FBE_STANDARD, want, n, &d, &opts, &consumed), FBE_OK);
    assert_int_equal(consumed, 47);
    assert_str(d.body.currency, "USD");
    assert_int_equal(fbe_deserialize(t, FBE_STANDARD, want + consumed, n - consumed, &d, &opts,
                                     &consumed),
                     FBE_OK);
    assert_int_equal(consumed, 46);
    assert_str(d.body.currency, "EU");
    assert_true(d.body.amount == 2.0);
    fbe_arena_free(&arena);
    fbe_buffer_free(&buf);
    fixture_free(&fx);
}

/* ---- golden vectors ------------------------------------------------------------ */

typedef struct golden_schemas {
    const char *name[4];
    fixture fx[4];
    size_t count;
} golden_schemas;

static const fbe_codec *golden_codec(golden_schemas *g, const char *name)
{
    for (size_t i = 0; i < g->count; i++)
        if (strcmp(g->name[i], name) == 0)
            return g->fx[i].codec;
    assert_true(g->count < 4);
    g->name[g->count] = strdup(name);
    fixture_golden(&g->fx[g->count], name);
    return g->fx[g->count++].codec;
}

static void golden_free(golden_schemas *g)
{
    for (size_t i = 0; i < g->count; i++) {
        fixture_free(&g->fx[i]);
        free((char *)g->name[i]);
    }
}

/* One MANIFEST row, split at tabs (in place). */
typedef struct manifest_row {
    char *col[6];
} manifest_row;

static size_t split_row(char *line, manifest_row *row)
{
    size_t n = 0;
    char *p = line;
    while (n < 6) {
        row->col[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = 0;
        p = tab + 1;
    }
    return n;
}

static char *read_manifest(void)
{
    size_t len;
    return (char *)read_file(shared_path("golden/MANIFEST.tsv"), &len);
}

/* Decodes `data` as `t`, checks size(), re-serializes and compares with `data`
 * (both with copies and with borrowed views). Returns false on any mismatch. */
static bool golden_roundtrip(const fbe_type *t, const uint8_t *data, size_t len, const char *what)
{
    fbe_verify_info info;
    fbe_status st = fbe_verify(t, FBE_STANDARD, data, len, &info);
    if (st != FBE_OK) {
        print_error("%s: verify %s at %zu\n", what, fbe_status_name(st), info.offset);
        return false;
    }
    const interp_prog *prog = interp_prog_of(t);
    bool ok = true;
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    void *copy = malloc(prog->host_size), *borrowed = malloc(prog->host_size);
    memset(copy, 0xA5, prog->host_size);
    memset(borrowed, 0x5A, prog->host_size);
    fbe_decode_options opts = {.arena = &arena};
    fbe_decode_options bopts = {.arena = &arena, .flags = FBE_DECODE_BORROW};
    size_t consumed = 0, bconsumed = 0;
    if ((st = fbe_deserialize(t, FBE_STANDARD, data, len, copy, &opts, &consumed)) != FBE_OK ||
        fbe_deserialize(t, FBE_STANDARD, data, len, borrowed, &bopts, &bconsumed) != FBE_OK) {
        print_error("%s: deserialize %s\n", what, fbe_status_name(st));
        ok = false;
    } else if (consumed != len || bconsumed != len) {
        print_error("%s: consumed %zu of %zu\n", what, consumed, len);
        ok = false;
    } else if (!prog_equal(prog, copy, borrowed)) {
        print_error("%s: borrowed and copied values differ\n", what);
        ok = false;
    } else {
        size_t sz = fbe_size(t, FBE_STANDARD, copy);
        fbe_buffer buf;
        fbe_buffer_init(&buf, NULL, NULL);
        if (sz != len) {
            print_error("%s: size() %zu, file %zu\n", what, sz, len);
            ok = false;
        } else if ((st = fbe_serialize(t, FBE_STANDARD, copy, &buf)) != FBE_OK) {
            print_error("%s: serialize %s\n", what, fbe_status_name(st));
            ok = false;
        } else if (!bytes_equal(buf.data, buf.size, data, len)) {
            print_error("%s: re-serialized bytes differ\n", what);
            ok = false;
        }
        fbe_buffer_clear(&buf);
        if (ok && (fbe_serialize(t, FBE_STANDARD, borrowed, &buf) != FBE_OK ||
                   !bytes_equal(buf.data, buf.size, data, len))) {
            print_error("%s: re-serialized (borrowed) bytes differ\n", what);
            ok = false;
        }
        fbe_buffer_free(&buf);
    }
    free(copy);
    free(borrowed);
    fbe_arena_free(&arena);
    return ok;
}

static void test_golden_cases(void **state)
{
    (void)state;
    char *manifest = read_manifest();
    golden_schemas g = {.count = 0};
    unsigned total = 0, passed = 0;
    for (char *line = strtok(manifest, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        manifest_row row;
        if (split_row(line, &row) < 5)
            continue;
        const char *schema = row.col[0], *pkg = row.col[1], *type = row.col[2],
                   *name = row.col[3];
        if (strcmp(type, "protocol") == 0 || strchr(pkg, '>'))
            continue;
        char schema_name[64], rel[512], full_type[128];
        snprintf(schema_name, sizeof schema_name, "%.*s", (int)strcspn(schema, "."), schema);
        snprintf(rel, sizeof rel, "golden/cases/%s/%s/%s.bin", pkg, type, name);
        snprintf(full_type, sizeof full_type, "%s.%s", pkg, type);
        const fbe_type *t = codec_type(golden_codec(&g, schema_name), full_type);
        size_t len;
        uint8_t *data = read_file(shared_path(rel), &len);
        total++;
        if (golden_roundtrip(t, data, len, rel))
            passed++;
        free(data);
    }
    print_message("golden standard cases: %u/%u passed\n", passed, total);
    golden_free(&g);
    free(manifest);
    assert_int_equal(total, 112);
    assert_int_equal(passed, total);
}

/* ---- versioning: bytes of one schema read with the other ----------------------- */

static double field_double(const fbe_ir_struct *ir, const void *value, const char *name)
{
    const fbe_ir_field *f = fbe_field_by_name(ir, name);
    assert_non_null(f);
    double d;
    memcpy(&d, (const char *)value + f->host_offset, sizeof d);
    return d;
}

static const void *field_at(const fbe_ir_struct *ir, const void *value, const char *name)
{
    const fbe_ir_field *f = fbe_field_by_name(ir, name);
    assert_non_null(f);
    return (const char *)value + f->host_offset;
}

/* protoex fields that proto bytes lack take the reader's defaults. */
static void check_protoex_defaults(const fbe_codec *codec, const char *type, const void *v)
{
    const fbe_ir_struct *order = codec_type(codec, "protoex.Order")->ir;
    const fbe_ir_struct *balance = codec_type(codec, "protoex.Balance")->ir;
    const fbe_ir_struct *account = codec_type(codec, "protoex.Account")->ir;
    if (strcmp(type, "Order") == 0) {
        assert_true(field_double(order, v, "tp") == 10.0);
        assert_true(field_double(order, v, "sl") == -10.0);
    } else if (strcmp(type, "Balance") == 0) {
        assert_true(field_double(balance, v, "locked") == 0.0);
    } else {
        assert_true(field_double(balance, field_at(account, v, "wallet"), "locked") == 0.0);
        const void *const *asset = field_at(account, v, "asset");
        if (*asset)
            assert_true(field_double(balance, *asset, "locked") == 0.0);
        const fbe_seq *orders = field_at(account, v, "orders");
        for (size_t i = 0; i < orders->size; i++) {
            const char *o = (const char *)orders->data + i * order->host_size;
            assert_true(field_double(order, o, "tp") == 10.0);
            assert_true(field_double(order, o, "sl") == -10.0);
        }
    }
}

static void test_versioning(void **state)
{
    (void)state;
    char *manifest = read_manifest();
    golden_schemas g = {.count = 0};
    unsigned total = 0;
    for (char *line = strtok(manifest, "\n"); line; line = strtok(NULL, "\n")) {
        manifest_row row;
        if (line[0] == '#' || split_row(line, &row) < 5 || !strchr(row.col[1], '>'))
            continue;
        const char *type = row.col[2], *stem = row.col[3];
        const char *writer_pkg = row.col[1];
        const char *reader_pkg = strchr(row.col[1], '>') + 1;
        char rel[512], reader_type[128], writer_type[128], writer_name[32];
        snprintf(rel, sizeof rel, "golden/versioning/%s.bin", stem);
        snprintf(reader_type, sizeof reader_type, "%s.%s", reader_pkg, type);
        snprintf(writer_name, sizeof writer_name, "%.*s", (int)strcspn(writer_pkg, ">"),
                 writer_pkg);
        snprintf(writer_type, sizeof writer_type, "%s.%s", writer_name, type);
        size_t len;
        uint8_t *data = read_file(shared_path(rel), &len);
        const fbe_codec *rcodec = golden_codec(&g, reader_pkg);
        const fbe_type *rt = codec_type(rcodec, reader_type);
        const fbe_type *wt = codec_type(golden_codec(&g, writer_name), writer_type);

        /* the writer's own schema reads it back exactly */
        assert_true(golden_roundtrip(wt, data, len, rel));

        fbe_verify_info info;
        fbe_status st = fbe_verify(rt, FBE_STANDARD, data, len, &info);
        if (st != FBE_OK)
            fail_msg("%s: verify as %s: %s at %zu", rel, reader_type, fbe_status_name(st),
                     info.offset);
        const interp_prog *prog = interp_prog_of(rt);
        void *v = malloc(prog->host_size);
        memset(v, 0xA5, prog->host_size);
        fbe_arena arena;
        fbe_arena_init(&arena, NULL, NULL);
        fbe_decode_options opts = {.arena = &arena};
        size_t consumed = 0;
        assert_int_equal(fbe_deserialize(rt, FBE_STANDARD, data, len, v, &opts, &consumed),
                         FBE_OK);
        assert_int_equal(consumed, len);
        touch_prog(prog, v);
        if (strcmp(reader_pkg, "protoex") == 0)
            check_protoex_defaults(rcodec, type, v);

        /* the reader's key fields equal the writer's */
        const interp_prog *wprog = interp_prog_of(wt);
        void *w = malloc(wprog->host_size);
        assert_int_equal(fbe_deserialize(wt, FBE_STANDARD, data, len, w, &opts, NULL), FBE_OK);
        const char *common = strcmp(type, "Balance") == 0 ? "currency" : "id";
        const fbe_ir_field *rf = fbe_field_by_name(rt->ir, common);
        const fbe_ir_field *wf = fbe_field_by_name(wt->ir, common);
        assert_true(node_equal(&prog->fields[rf->index].node, (uint8_t *)v + rf->host_offset,
                               (uint8_t *)w + wf->host_offset));
        if (strcmp(type, "Order") == 0) {
            assert_true(field_double(rt->ir, v, "price") == field_double(wt->ir, w, "price"));
            assert_true(field_double(rt->ir, v, "volume") == field_double(wt->ir, w, "volume"));
        }
        free(w);
        free(v);
        fbe_arena_free(&arena);
        free(data);
        total++;
    }
    print_message("versioning cases: %u passed\n", total);
    assert_int_equal(total, 26);
    golden_free(&g);
    free(manifest);
}

/* ---- hostile input ------------------------------------------------------------- */

/* Counts allocator calls of an arena. */
typedef struct counting_alloc {
    unsigned calls;
} counting_alloc;

static void *count_alloc(void *ctx, void *ptr, size_t size)
{
    counting_alloc *c = ctx;
    if (size == 0) {
        free(ptr);
        return NULL;
    }
    c->calls++;
    return realloc(ptr, size);
}

/* verify and deserialize (from an exact-size heap copy, into a garbage-filled
 * value) both fail with `want`; verify at `offset` (SIZE_MAX: not checked) on
 * field `field` (NULL: none; "-": not checked). The value left behind is safe. */
static void expect_fail(const fbe_type *t, const uint8_t *bytes, size_t len, fbe_status want,
                        size_t offset, const char *field)
{
    uint8_t *in = malloc(len ? len : 1);
    if (len)
        memcpy(in, bytes, len);
    fbe_verify_info info;
    fbe_status st = fbe_verify(t, FBE_STANDARD, in, len, &info);
    if (st != want)
        fail_msg("verify: %s, want %s", fbe_status_name(st), fbe_status_name(want));
    assert_int_equal(info.status, want);
    if (offset != SIZE_MAX)
        assert_int_equal(info.offset, offset);
    if (!field)
        assert_null(info.field);
    else if (strcmp(field, "-") != 0) {
        assert_non_null(info.field);
        assert_string_equal(info.field->name, field);
    }
    const interp_prog *prog = interp_prog_of(t);
    void *v = malloc(prog->host_size);
    memset(v, 0xA5, prog->host_size);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena};
    size_t consumed = 1;
    st = fbe_deserialize(t, FBE_STANDARD, in, len, v, &opts, &consumed);
    if (st != want)
        fail_msg("deserialize: %s, want %s", fbe_status_name(st), fbe_status_name(want));
    assert_int_equal(consumed, 0);
    touch_prog(prog, v);
    fbe_arena_free(&arena);
    free(v);
    free(in);
}

static void test_hostile_frame(void **state)
{
    (void)state;
    fixture fx;
    fixture_golden(&fx, "proto");
    const fbe_type *order = codec_type(fx.codec, "proto.Order");
    const fbe_type *balance = codec_type(fx.codec, "proto.Balance");
    uint8_t b[64];
    size_t n = unhex(ORDER_HEX, b, sizeof b);

    /* the reference accepts a 4-byte buffer; we do not */
    expect_fail(order, (const uint8_t *)"\x04\x00\x00\x00", 4, FBE_TRUNCATED, 0, NULL);
    expect_fail(order, b, 0, FBE_TRUNCATED, 0, NULL);
    expect_fail(order, b, 7, FBE_TRUNCATED, 0, NULL);
    /* full_size > size */
    expect_fail(order, b, n - 1, FBE_TRUNCATED, 0, NULL);
    /* full_size < 8 */
    uint8_t m[64];
    memcpy(m, b, n);
    put32(m, 7);
    expect_fail(order, m, n, FBE_BAD_FRAME_SIZE, 0, NULL);
    /* root offset 0 / past the end */
    memcpy(m, b, n);
    put32(m + 4, 0);
    expect_fail(order, m, n, FBE_NULL_OFFSET, 4, NULL);
    put32(m + 4, 45); /* 45 + 8 > 52 */
    expect_fail(order, m, n, FBE_BAD_OFFSET, 4, NULL);
    put32(m + 4, 0xFFFFFFFF);
    expect_fail(order, m, n, FBE_BAD_OFFSET, 4, NULL);
    /* struct_size < 8, past the end */
    memcpy(m, b, n);
    put32(m + 8, 7);
    expect_fail(order, m, n, FBE_BAD_STRUCT_SIZE, 8, NULL);
    put32(m + 8, 45); /* 8 + 45 > 52 */
    expect_fail(order, m, n, FBE_BAD_STRUCT_SIZE, 8, NULL);
    /* wrong type */
    memcpy(m, b, n);
    put32(m + 12, 2);
    expect_fail(order, m, n, FBE_BAD_TYPE, 12, NULL);
    expect_fail(balance, b, n, FBE_BAD_TYPE, 12, NULL);
    /* the frame ends where full_size says: bytes after it are never examined */
    memcpy(m, b, n);
    put32(m, 51);
    expect_fail(order, m, n, FBE_BAD_LENGTH, 0x2A, "symbol");
    fixture_free(&fx);
}

static void test_hostile_fields(void **state)
{
    (void)state;
    fixture fx;
    fixture_golden(&fx, "proto");
    const fbe_type *order = codec_type(fx.codec, "proto.Order");
    const fbe_type *account = codec_type(fx.codec, "proto.Account");
    uint8_t b[160], m[160];
    size_t n = unhex(ORDER_HEX, b, sizeof b);

    /* string length past the end, string offset past the end */
    memcpy(m, b, n);
    put32(m + 0x2A, 7);
    expect_fail(order, m, n, FBE_BAD_LENGTH, 0x2A, "symbol");
    put32(m + 0x2A, 0xFFFFFFFF);
    expect_fail(order, m, n, FBE_BAD_LENGTH, 0x2A, "symbol");
    memcpy(m, b, n);
    put32(m + 0x14, 0x29); /* 8 + 0x29 + 4 > 52 */
    expect_fail(order, m, n, FBE_BAD_OFFSET, 0x14, "symbol");
    /* a string offset of 0 is an empty string */
    memcpy(m, b, n);
    put32(m + 0x14, 0);
    assert_int_equal(fbe_verify(order, FBE_STANDARD, m, n, NULL), FBE_OK);

    /* a vector count of 0x7fffffff in a small buffer: BAD_COUNT, no allocation */
    n = unhex(ACCOUNT_DEFAULT_HEX, b, sizeof b);
    memcpy(m, b, n);
    put32(m + 0x42, 0x7fffffff);
    expect_fail(account, m, n, FBE_BAD_COUNT, 0x42, "orders");
    counting_alloc counter = {0};
    fbe_arena arena;
    fbe_arena_init(&arena, count_alloc, &counter);
    fbe_decode_options opts = {.arena = &arena};
    P_Account a;
    assert_int_equal(fbe_deserialize(account, FBE_STANDARD, m, n, &a, &opts, NULL),
                     FBE_BAD_COUNT);
    assert_int_equal(counter.calls, 0);
    assert_null(a.orders.data);
    assert_int_equal(a.orders.size, 0);
    /* the block ends the buffer: even one element is too many */
    put32(m + 0x42, 1);
    expect_fail(account, m, n, FBE_BAD_COUNT, 0x42, "orders");
    fbe_arena_free(&arena);

    /* an optional with flag 1 and offset 0 */
    memcpy(m, b, n);
    m[0x1D] = 1;
    expect_fail(account, m, n, FBE_NULL_OFFSET, 0x1E, "asset");
    /* flag 1 and a slot past the end */
    put32(m + 0x1E, 0x3D); /* 8 + 0x3D + 4 > 70 */
    expect_fail(account, m, n, FBE_BAD_OFFSET, 0x1E, "asset");
    /* flag 1 and a slot whose struct offset is 0 */
    put32(m + 0x1E, 0x3A); /* slot at 0x42, holds 0 */
    put32(m + 0x42, 0);
    expect_fail(account, m, n, FBE_NULL_OFFSET, 0x42, "asset");
    /* any non-zero flag byte means present */
    m[0x1D] = 0x80;
    expect_fail(account, m, n, FBE_NULL_OFFSET, 0x42, "asset");

    /* nested struct errors are reported on the nested field */
    n = unhex(ACCOUNT_HEX, b, sizeof b);
    memcpy(m, b, n);
    put32(m + 0x6E + 4, 9); /* the order's type */
    expect_fail(account, m, n, FBE_BAD_TYPE, 0x72, "orders");
    memcpy(m, b, n);
    put32(m + 0x90, 2); /* the order's symbol length */
    expect_fail(account, m, n, FBE_BAD_LENGTH, 0x90, "symbol");
    memcpy(m, b, n);
    put32(m + 0x2C, 7); /* wallet struct_size */
    expect_fail(account, m, n, FBE_BAD_STRUCT_SIZE, 0x2C, "wallet");
    memcpy(m, b, n);
    put32(m + 0x53, 0x41); /* asset.currency -> 0x4B + 0x41 = 0x8C: the order's
                            * volume bytes, read as length 0x40240000 */
    expect_fail(account, m, n, FBE_BAD_LENGTH, 0x8C, "currency");

    /* deserialize stops safely: what was read is kept, the rest is zero */
    memcpy(m, b, n);
    put32(m + 0x90, 2);
    fbe_arena_init(&arena, NULL, NULL);
    memset(&a, 0xA5, sizeof a);
    assert_int_equal(fbe_deserialize(account, FBE_STANDARD, m, n, &a, &opts, NULL),
                     FBE_BAD_LENGTH);
    assert_int_equal(a.id, 7);
    assert_str(a.name, "Jo");
    assert_non_null(a.asset);
    assert_int_equal(a.orders.size, 1);
    assert_int_equal(a.orders.data[0].id, 2);
    assert_null(a.orders.data[0].symbol.data);
    assert_int_equal(a.orders.data[0].symbol.size, 0);
    assert_int_equal(a.orders.data[0].type, 0);
    assert_true(a.orders.data[0].volume == 0.0);
    fbe_arena_free(&arena);

    /* a NULL arena */
    opts.arena = NULL;
    assert_int_equal(fbe_deserialize(account, FBE_STANDARD, b, n, &a, &opts, NULL),
                     FBE_INVALID_ARGUMENT);
    assert_int_equal(fbe_deserialize(account, FBE_STANDARD, b, n, &a, NULL, NULL),
                     FBE_INVALID_ARGUMENT);
    fixture_free(&fx);
}

/* A shorter struct_size: the missing fields take their schema defaults. */
static void test_short_struct(void **state)
{
    (void)state;
    fixture fx;
    fixture_text(&fx, EX_SCHEMA, NULL);
    const fbe_type *t = codec_type(fx.codec, "ex.Derived");
    /* Derived written by a schema that only had `a`: struct_size 10 */
    uint8_t b[32];
    size_t n = unhex("14 00 00 00 08 00 00 00"
                     "0a 00 00 00 34 00 00 00"
                     "05 00 ee ee",
                     b, sizeof b);
    assert_int_equal(fbe_verify(t, FBE_STANDARD, b, n, NULL), FBE_OK);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena};
    X_Derived d;
    memset(&d, 0xA5, sizeof d);
    assert_int_equal(fbe_deserialize(t, FBE_STANDARD, b, n, &d, &opts, NULL), FBE_OK);
    assert_int_equal(d.base.a, 5);
    assert_int_equal(d.base.s.size, 0);
    assert_false(d.b);
    assert_false(d.oi.has_value);
    /* struct_size 8: every field defaulted, a = 7 */
    put32(b + 8, 8);
    assert_int_equal(fbe_verify(t, FBE_STANDARD, b, n, NULL), FBE_OK);
    assert_int_equal(fbe_deserialize(t, FBE_STANDARD, b, n, &d, &opts, NULL), FBE_OK);
    assert_int_equal(d.base.a, 7);
    fbe_arena_free(&arena);
    fixture_free(&fx);
}

static const char CHAIN_SCHEMA[] = "package chain\nstruct N { N? next; }\n";

/* A conforming chain of `levels` N bodies (wire-format.md 3.4): body k at
 * 8 + 17k (13 bytes), its slot at 8 + 17k + 13 holding 4. */
static uint8_t *build_chain(uint32_t type_number, unsigned levels, size_t *len)
{
    size_t total = 8 + 17 * (size_t)(levels - 1) + 13;
    uint8_t *b = calloc(1, total);
    put32(b, (uint32_t)total);
    put32(b + 4, 8);
    for (unsigned k = 0; k < levels; k++) {
        uint8_t *body = b + 8 + 17 * k;
        put32(body, 13);
        put32(body + 4, type_number);
        if (k + 1 < levels) {
            body[8] = 1;
            put32(body + 9, 13);
            put32(body + 13, 4);
        }
    }
    *len = total;
    return b;
}

typedef struct chain_node {
    struct chain_node *next;
} chain_node;

static void test_too_deep(void **state)
{
    (void)state;
    fixture fx;
    fixture_text(&fx, CHAIN_SCHEMA, NULL);
    const fbe_type *t = codec_type(fx.codec, "chain.N");
    assert_int_equal(fbe_codec_max_depth(fx.codec), FBE_DEFAULT_MAX_DEPTH);
    uint32_t tn = t->ir->type_number;

    /* 64 levels: fine, and exactly what the writer produces */
    size_t len;
    uint8_t *b = build_chain(tn, 64, &len);
    chain_node nodes[64];
    for (int i = 0; i < 64; i++)
        nodes[i].next = i + 1 < 64 ? &nodes[i + 1] : NULL;
    roundtrip(t, &nodes[0], b, len);
    free(b);

    /* 65 levels: TOO_DEEP at the slot that refers to the 65th body */
    b = build_chain(tn, 65, &len);
    expect_fail(t, b, len, FBE_TOO_DEEP, 8 + 17 * 63 + 13, "next");
    /* a larger limit in the options lets deserialize through */
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena, .max_depth = 65};
    chain_node root;
    assert_int_equal(fbe_deserialize(t, FBE_STANDARD, b, len, &root, &opts, NULL), FBE_OK);
    opts.max_depth = 3;
    assert_int_equal(fbe_deserialize(t, FBE_STANDARD, b, len, &root, &opts, NULL),
                     FBE_TOO_DEEP);
    /* and verify, with the same options (NULL or 0: the codec's limit) */
    fbe_verify_info info;
    assert_int_equal(fbe_verify_with(t, FBE_STANDARD, b, len, &info, &opts), FBE_TOO_DEEP);
    assert_int_equal(info.offset, 8 + 17 * 2 + 13);
    assert_string_equal(info.field->name, "next");
    fbe_decode_options vopts = {.max_depth = 65}; /* verify needs no arena */
    assert_int_equal(fbe_verify_with(t, FBE_STANDARD, b, len, &info, &vopts), FBE_OK);
    vopts.max_depth = UINT_MAX;
    assert_int_equal(fbe_verify_with(t, FBE_STANDARD, b, len, NULL, &vopts), FBE_OK);
    vopts.max_depth = 0;
    assert_int_equal(fbe_verify_with(t, FBE_STANDARD, b, len, NULL, &vopts), FBE_TOO_DEEP);
    assert_int_equal(fbe_verify_with(t, FBE_STANDARD, b, len, NULL, NULL), FBE_TOO_DEEP);
    fbe_arena_free(&arena);
    free(b);
    fixture_free(&fx);

    /* the codec's limit */
    fbe_codec_options copts = {.max_depth = 3};
    fixture_text(&fx, CHAIN_SCHEMA, &copts);
    t = codec_type(fx.codec, "chain.N");
    b = build_chain(tn, 3, &len);
    assert_int_equal(fbe_verify(t, FBE_STANDARD, b, len, NULL), FBE_OK);
    free(b);
    b = build_chain(tn, 4, &len);
    expect_fail(t, b, len, FBE_TOO_DEEP, 8 + 17 * 2 + 13, "next");
    /* a per-call limit above the codec's replaces it, for verify as for deserialize */
    fbe_decode_options above = {.max_depth = 4};
    assert_int_equal(fbe_verify_with(t, FBE_STANDARD, b, len, NULL, &above), FBE_OK);
    free(b);
    fixture_free(&fx);
}

static void test_traversal_limit(void **state)
{
    (void)state;
    fixture fx;
    fixture_text(&fx, "package dag\nstruct D { D? l; D? r; }\n", NULL);
    const fbe_type *t = codec_type(fx.codec, "dag.D");
    /* levels 0..L: body k at 8 + 22k (18 bytes); l and r both point to the one
     * slot right after it, which holds 4: 2^L paths to the last body */
    enum { L = 30 };
    size_t len = 8 + 22 * L + 18;
    uint8_t *b = calloc(1, len);
    put32(b, (uint32_t)len);
    put32(b + 4, 8);
    for (unsigned k = 0; k <= L; k++) {
        uint8_t *body = b + 8 + 22 * k;
        put32(body, 18);
        put32(body + 4, t->ir->type_number);
        if (k < L) {
            body[8] = 1;
            put32(body + 9, 18);
            body[13] = 1;
            put32(body + 14, 18);
            put32(body + 18, 4);
        }
    }
    /* the l chain uses all but 8 bytes of the budget; the last r reaches the last
     * body a second time */
    expect_fail(t, b, len, FBE_TRAVERSAL_LIMIT, 8 + 22 * L, "r");
    free(b);
    fixture_free(&fx);

    /* a vector whose strings all alias one block */
    fixture_text(&fx, "package alias\nstruct S { string[] v; }\n", NULL);
    t = codec_type(fx.codec, "alias.S");
    /* body at 8 (12 bytes), block at 20: count 16, 16 offsets -> 0x58 (from body 8) */
    len = 8 + 12 + 4 + 16 * 4 + 4 + 32;
    b = calloc(1, len);
    put32(b, (uint32_t)len);
    put32(b + 4, 8);
    put32(b + 8, 12);
    put32(b + 12, t->ir->type_number);
    put32(b + 16, 12);
    put32(b + 20, 16);
    for (int i = 0; i < 16; i++)
        put32(b + 24 + 4 * i, 80);
    put32(b + 88, 32);
    /* budget 124: body 12, block 68, then 36 per string: the second one fails */
    expect_fail(t, b, len, FBE_TRAVERSAL_LIMIT, 88, "v");
    free(b);
    fixture_free(&fx);
}

/* Elements whose host form is much larger than their inline part: a count that
 * fits the bytes left must still not allocate out of proportion before the
 * elements are checked. */
static void test_amplification(void **state)
{
    (void)state;
    fixture fx;
    fixture_text(&fx, "package amp\nstruct Big { byte[60000] pad; }\nstruct H { Big[] v; }\n",
                 NULL);
    const fbe_type *t = codec_type(fx.codec, "amp.H");
    /* body at 8 (12 bytes), block at 20: count 1000, 1000 zero offsets */
    size_t len = 8 + 12 + 4 + 4000;
    uint8_t *b = calloc(1, len);
    put32(b, (uint32_t)len);
    put32(b + 4, 8);
    put32(b + 8, 12);
    put32(b + 12, t->ir->type_number);
    put32(b + 16, 12);
    put32(b + 20, 1000);
    expect_fail(t, b, len, FBE_NULL_OFFSET, 24, "v");
    counting_alloc counter = {0};
    fbe_arena arena;
    fbe_arena_init(&arena, count_alloc, &counter);
    arena.limit = 1 << 20;
    fbe_decode_options opts = {.arena = &arena};
    fbe_seq h;
    assert_int_equal(fbe_deserialize(t, FBE_STANDARD, b, len, &h, &opts, NULL), FBE_NULL_OFFSET);
    assert_int_equal(counter.calls, 0);
    assert_int_equal(h.size, 0);
    fbe_arena_free(&arena);
    free(b);
    fixture_free(&fx);
}

static void test_output_limits(void **state)
{
    (void)state;
    fixture fx;
    fixture_golden(&fx, "proto");
    const fbe_type *t = codec_type(fx.codec, "proto.Order");
    P_Order o = {1, str("EURUSD"), 0, 0, 1.23456, 1000.0};
    uint8_t mem[64];
    memset(mem, 0xAA, sizeof mem);
    fbe_buffer fixed;
    fbe_buffer_init_fixed(&fixed, mem, 51);
    assert_int_equal(fbe_serialize(t, FBE_STANDARD, &o, &fixed), FBE_TOO_SMALL);
    assert_int_equal(fixed.size, 0);
    for (size_t i = 0; i < sizeof mem; i++)
        assert_int_equal(mem[i], 0xAA);
    /* room for one frame after existing content, not for two */
    fbe_buffer_init_fixed(&fixed, mem, 64);
    fixed.size = 13;
    assert_int_equal(fbe_serialize(t, FBE_STANDARD, &o, &fixed), FBE_TOO_SMALL);
    assert_int_equal(fixed.size, 13);
    for (size_t i = 0; i < sizeof mem; i++)
        assert_int_equal(mem[i], 0xAA);
    fixed.size = 12;
    assert_int_equal(fbe_serialize(t, FBE_STANDARD, &o, &fixed), FBE_OK);
    assert_int_equal(fixed.size, 64);
    uint8_t want[64];
    unhex(ORDER_HEX, want, sizeof want);
    assert_memory_equal(mem + 12, want, 52);
    assert_int_equal(mem[11], 0xAA);

    /* a frame over 4 GiB - 1: TOO_LARGE before anything is written (the string's
     * bytes are never read) */
    o.symbol = (fbe_string){"", (size_t)UINT32_MAX - 40};
    assert_true(fbe_size(t, FBE_STANDARD, &o) > UINT32_MAX);
    fbe_buffer buf;
    fbe_buffer_init(&buf, NULL, NULL);
    assert_int_equal(fbe_serialize(t, FBE_STANDARD, &o, &buf), FBE_TOO_LARGE);
    assert_int_equal(buf.size, 0);
    o.symbol = (fbe_string){"", (size_t)UINT32_MAX - 52};
    assert_int_equal(fbe_size(t, FBE_STANDARD, &o), (size_t)UINT32_MAX - 6);
    /* absurd sizes and counts do not wrap the sum (nothing behind them is read) */
    o.symbol = (fbe_string){"", SIZE_MAX};
    assert_int_equal(fbe_serialize(t, FBE_STANDARD, &o, &buf), FBE_TOO_LARGE);
    const fbe_type *at = codec_type(fx.codec, "proto.Account");
    P_Account a;
    fbe_init(at->ir, &a);
    a.orders.data = &o;
    a.orders.size = SIZE_MAX / 2;
    assert_true(fbe_size(at, FBE_STANDARD, &a) > UINT32_MAX);
    assert_int_equal(fbe_serialize(at, FBE_STANDARD, &a, &buf), FBE_TOO_LARGE);
    a.orders.size = 1;
    a.name = (fbe_string){"", SIZE_MAX - 3};
    assert_int_equal(fbe_serialize(at, FBE_STANDARD, &a, &buf), FBE_TOO_LARGE);
    assert_int_equal(buf.size, 0);
    fbe_buffer_free(&buf);
    fixture_free(&fx);
}

/* Every single-byte change and every truncation of some golden frames: verify and
 * deserialize agree on the status, and the decoded value is always safe. */
static void mutate_file(const fbe_type *t, const char *rel, unsigned *runs)
{
    size_t len;
    uint8_t *orig = read_file(shared_path(rel), &len);
    const interp_prog *prog = interp_prog_of(t);
    void *v = malloc(prog->host_size);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena};
    for (size_t i = 0; i <= len; i++) {
        for (int k = 0; k < 4; k++) {
            if (i == len && k)
                break; /* the unchanged frame, once */
            size_t n = len;
            uint8_t *m = malloc(len);
            memcpy(m, orig, len);
            if (i == len) {
            } else if (k == 0) {
                m[i] = 0;
            } else if (k == 1) {
                m[i] = 0xFF;
            } else if (k == 2) {
                m[i] ^= 0x01;
            } else {
                n = i; /* truncated copy */
                uint8_t *tcopy = malloc(n ? n : 1);
                memcpy(tcopy, orig, n);
                free(m);
                m = tcopy;
            }
            fbe_verify_info info;
            fbe_status vs = fbe_verify(t, FBE_STANDARD, m, n, &info);
            memset(v, 0xA5, prog->host_size);
            fbe_status ds = fbe_deserialize(t, FBE_STANDARD, m, n, v, &opts, NULL);
            if (vs != ds)
                fail_msg("%s byte %zu change %d: verify %s, deserialize %s", rel, i, k,
                         fbe_status_name(vs), fbe_status_name(ds));
            touch_prog(prog, v);
            if (ds == FBE_OK) {
                /* whatever decodes re-encodes without trouble */
                fbe_buffer buf;
                fbe_buffer_init(&buf, NULL, NULL);
                assert_int_equal(fbe_serialize(t, FBE_STANDARD, v, &buf), FBE_OK);
                assert_int_equal(buf.size, fbe_size(t, FBE_STANDARD, v));
                assert_int_equal(fbe_verify(t, FBE_STANDARD, buf.data, buf.size, NULL), FBE_OK);
                fbe_buffer_free(&buf);
            }
            fbe_arena_reset(&arena);
            free(m);
            (*runs)++;
        }
    }
    fbe_arena_free(&arena);
    free(v);
    free(orig);
}

static void test_mutations(void **state)
{
    (void)state;
    golden_schemas g = {.count = 0};
    unsigned runs = 0;
    const fbe_codec *proto = golden_codec(&g, "proto");
    const fbe_codec *test = golden_codec(&g, "test");
    mutate_file(codec_type(proto, "proto.Account"), "golden/cases/proto/Account/random_2.bin",
                &runs);
    mutate_file(codec_type(test, "test.StructOptional"),
                "golden/cases/test/StructOptional/random_1.bin", &runs);
    mutate_file(codec_type(test, "test.StructNested"),
                "golden/cases/test/StructNested/default.bin", &runs);
    mutate_file(codec_type(test, "test.StructHashEx"),
                "golden/cases/test/StructHashEx/random_3.bin", &runs);
    mutate_file(codec_type(test, "test.StructMap"), "golden/cases/test/StructMap/reftest.bin",
                &runs);
    print_message("mutations: %u runs, verify and deserialize agreed on each\n", runs);
    golden_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_table),
        cmocka_unit_test(test_create_ir),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_account),
        cmocka_unit_test(test_account_default),
        cmocka_unit_test(test_derived),
        cmocka_unit_test(test_coll),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_balance_messages),
        cmocka_unit_test(test_golden_cases),
        cmocka_unit_test(test_versioning),
        cmocka_unit_test(test_hostile_frame),
        cmocka_unit_test(test_hostile_fields),
        cmocka_unit_test(test_short_struct),
        cmocka_unit_test(test_too_deep),
        cmocka_unit_test(test_traversal_limit),
        cmocka_unit_test(test_amplification),
        cmocka_unit_test(test_output_limits),
        cmocka_unit_test(test_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
