/* The .fbe scanner and parser (frontend/lexer.l, frontend/parser.y): the AST they
 * build and the exact diagnostics they report. Calls fbe_parse() directly, no
 * resolver involved. */
#include "test_util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "diag.h"

/* ---- helpers ----------------------------------------------------------------- */

typedef struct parsed {
    fbe_arena arena;
    diag_capture cap;
    unsigned errors;
    ast_file *file;
} parsed;

/* Parses `len` bytes as "t.fbe" into p (free with done()). */
static ast_file *parse_bytes(parsed *p, const char *text, size_t len)
{
    memset(p, 0, sizeof *p);
    fbe_arena_init(&p->arena, NULL, NULL);
    fbe_diags diags;
    fbe_diags_init(&diags, diag_capture_sink, &p->cap);
    fbe_source *src = fbe_source_from_memory(&p->arena, "t.fbe", text, len);
    assert_non_null(src);
    p->file = fbe_parse(src, &p->arena, &diags);
    assert_non_null(p->file);
    assert_ptr_equal(p->file->source, src);
    p->errors = diags.errors;
    if (p->errors <= FBE_MAX_ERRORS)
        assert_int_equal(p->errors, p->cap.count);
    return p->file;
}

static ast_file *parse_text(parsed *p, const char *text)
{
    return parse_bytes(p, text, strlen(text));
}

/* Parses text that must be free of errors. */
static ast_file *parse_ok(parsed *p, const char *text)
{
    parse_text(p, text);
    if (p->cap.count)
        fail_msg("unexpected diagnostics:\n%s", p->cap.text);
    assert_int_equal(p->errors, 0);
    return p->file;
}

static ast_file *parse_golden(parsed *p, const char *name)
{
    char rel[128];
    snprintf(rel, sizeof rel, "golden/schemas/%s.fbe", name);
    size_t len;
    uint8_t *data = read_file(shared_path(rel), &len);
    parse_bytes(p, (const char *)data, len);
    free(data);
    if (p->cap.count)
        fail_msg("%s.fbe: unexpected diagnostics:\n%s", name, p->cap.text);
    assert_int_equal(p->errors, 0);
    return p->file;
}

static void done(parsed *p)
{
    fbe_arena_free(&p->arena);
}

/* Exact diagnostics for a (possibly binary) input. */
static void check_errors_n(const char *text, size_t len, const char *expected)
{
    parsed p;
    parse_bytes(&p, text, len);
    if (strcmp(p.cap.text, expected) != 0) {
        fprintf(stderr, "input:\n%.*s\nexpected:\n%sgot:\n%s", (int)len, text, expected,
                p.cap.text);
        fail();
    }
    done(&p);
}

#define CHECK_ERRORS(text, expected) check_errors_n(text, sizeof(text) - 1, expected)

static ast_struct *find_struct(const ast_file *f, const char *name)
{
    for (size_t i = 0; i < f->decls.count; i++) {
        const ast_decl *d = f->decls.items[i];
        if (d->kind == AST_DECL_STRUCT && strcmp(d->struct_decl->name.text, name) == 0)
            return d->struct_decl;
    }
    fail_msg("struct %s not found", name);
    return NULL;
}

static ast_enum *find_enum(const ast_file *f, const char *name)
{
    for (size_t i = 0; i < f->decls.count; i++) {
        const ast_decl *d = f->decls.items[i];
        if (d->kind == AST_DECL_ENUM && strcmp(d->enum_decl->name.text, name) == 0)
            return d->enum_decl;
    }
    fail_msg("enum/flags %s not found", name);
    return NULL;
}

static ast_field *find_field(const ast_struct *s, const char *name)
{
    for (size_t i = 0; i < s->fields.count; i++) {
        ast_field *fld = s->fields.items[i];
        if (strcmp(fld->name.text, name) == 0)
            return fld;
    }
    fail_msg("field %s.%s not found", s->name.text, name);
    return NULL;
}

static ast_enum_value *find_value(const ast_enum *e, const char *name)
{
    for (size_t i = 0; i < e->values.count; i++) {
        ast_enum_value *v = e->values.items[i];
        if (strcmp(v->name.text, name) == 0)
            return v;
    }
    fail_msg("value %s.%s not found", e->name.text, name);
    return NULL;
}

static const char *list_name(const ast_list *l, size_t i)
{
    assert_true(i < l->count);
    return ((const ast_name *)l->items[i])->text;
}

static void check_loc(fbe_loc loc, unsigned line, unsigned col)
{
    assert_non_null(loc.source);
    assert_int_equal(loc.line, line);
    assert_int_equal(loc.col, col);
}

/* ---- golden schemas ---------------------------------------------------------- */

static void test_golden_proto(void **state)
{
    (void)state;
    parsed p;
    ast_file *f = parse_golden(&p, "proto");
    assert_true(f->has_domain);
    assert_string_equal(f->domain.text, "com.chronoxor");
    assert_true(f->has_package);
    assert_string_equal(f->package.text, "proto");
    assert_null(f->offset_text);
    assert_string_equal(f->version_text, "1.0");
    assert_int_equal(f->imports.count, 0);
    assert_int_equal(f->decls.count, 9);

    ast_enum *side = find_enum(f, "OrderSide");
    assert_false(side->is_flags);
    assert_true(side->has_base);
    assert_int_equal(side->base.kind, FBE_IR_BYTE);
    assert_int_equal(side->values.count, 2);
    assert_int_equal(find_value(side, "sell")->kind, AST_ENUM_VALUE_AUTO);

    ast_enum *st = find_enum(f, "State");
    assert_true(st->is_flags);
    assert_int_equal(st->values.count, 7);
    ast_enum_value *inv = find_value(st, "invalid");
    assert_int_equal(inv->kind, AST_ENUM_VALUE_INT);
    assert_string_equal(inv->text, "0x01");
    ast_enum_value *bad = find_value(st, "bad");
    assert_int_equal(bad->kind, AST_ENUM_VALUE_NAMES);
    assert_int_equal(bad->names.count, 3);
    assert_string_equal(list_name(&bad->names, 0), "unknown");
    assert_string_equal(list_name(&bad->names, 1), "invalid");
    assert_string_equal(list_name(&bad->names, 2), "broken");

    ast_struct *order = find_struct(f, "Order");
    assert_false(order->is_message);
    assert_int_equal(order->type_spec, AST_TYPE_SPEC_FIXED);
    assert_string_equal(order->type_number_text, "1");
    assert_int_equal(order->fields.count, 6);
    ast_field *id = order->fields.items[0];
    assert_string_equal(id->name.text, "id");
    assert_true(id->is_key);
    assert_false(id->is_id);
    assert_int_equal(id->type.kind, FBE_IR_INT32);
    assert_string_equal(id->type.name.text, "int32");
    ast_field *type = find_field(order, "type");
    assert_int_equal(type->type.kind, FBE_IR_STRUCT);
    assert_string_equal(type->type.name.text, "OrderType");
    ast_field *price = find_field(order, "price");
    assert_non_null(price->default_value);
    assert_int_equal(price->default_value->kind, AST_VALUE_FLOAT);
    assert_string_equal(price->default_value->text, "0.0");

    ast_struct *account = find_struct(f, "Account");
    assert_int_equal(account->type_spec, AST_TYPE_SPEC_FIXED);
    assert_string_equal(account->type_number_text, "3");
    ast_field *asset = find_field(account, "asset");
    assert_true(asset->optional);
    assert_int_equal(asset->form, AST_FORM_PLAIN);
    assert_int_equal(asset->type.kind, FBE_IR_STRUCT);
    assert_string_equal(asset->type.name.text, "Balance");
    assert_null(asset->default_value);
    ast_field *orders = find_field(account, "orders");
    assert_false(orders->optional);
    assert_int_equal(orders->form, AST_FORM_VECTOR);
    assert_string_equal(orders->type.name.text, "Order");
    ast_field *state_f = find_field(account, "state");
    assert_int_equal(state_f->default_value->kind, AST_VALUE_NAME);
    assert_string_equal(state_f->default_value->name.text, "State.initialized");
    assert_int_equal(state_f->default_value->or_names.count, 1);
    assert_string_equal(list_name(&state_f->default_value->or_names, 0), "State.bad");

    ast_struct *msg = find_struct(f, "AccountMessage");
    assert_true(msg->is_message);
    assert_int_equal(msg->type_spec, AST_TYPE_SPEC_NONE);
    assert_null(msg->type_number_text);
    assert_false(msg->has_base);
    assert_false(msg->is_request);
    done(&p);
}

static void test_golden_protoex(void **state)
{
    (void)state;
    parsed p;
    ast_file *f = parse_golden(&p, "protoex");
    assert_string_equal(f->package.text, "protoex");
    assert_string_equal(f->offset_text, "10");
    assert_int_equal(f->imports.count, 1);
    assert_string_equal(list_name(&f->imports, 0), "proto");
    ast_struct *bal = find_struct(f, "Balance");
    assert_int_equal(bal->type_spec, AST_TYPE_SPEC_BASE);
    assert_true(bal->has_base);
    assert_string_equal(bal->base.text, "proto.Balance");
    done(&p);
}

static void test_golden_test(void **state)
{
    (void)state;
    parsed p;
    ast_file *f = parse_golden(&p, "test");
    assert_string_equal(f->package.text, "test");
    assert_string_equal(f->offset_text, "100");
    assert_string_equal(f->version_text, "123.456");
    assert_int_equal(f->imports.count, 1);
    assert_int_equal(f->decls.count, 18);

    ast_enum *simple = find_enum(f, "EnumSimple");
    assert_false(simple->has_base);
    assert_string_equal(find_value(simple, "ENUM_VALUE_4")->text, "0x4");
    ast_enum_value *v5 = find_value(simple, "ENUM_VALUE_5");
    assert_int_equal(v5->kind, AST_ENUM_VALUE_NAMES);
    assert_int_equal(v5->names.count, 1);
    assert_string_equal(list_name(&v5->names, 0), "ENUM_VALUE_3");
    assert_int_equal(find_enum(f, "EnumTyped")->base.kind, FBE_IR_CHAR);
    assert_int_equal(find_enum(f, "EnumEmpty")->values.count, 0);
    assert_int_equal(find_enum(f, "FlagsTyped")->base.kind, FBE_IR_UINT64);
    assert_int_equal(find_value(find_enum(f, "FlagsTyped"), "FLAG_VALUE_9")->names.count, 3);

    ast_struct *s = find_struct(f, "StructSimple");
    assert_int_equal(s->type_spec, AST_TYPE_SPEC_PLUS);
    assert_string_equal(s->type_number_text, "10");
    assert_int_equal(s->fields.count, 45);
    assert_true(find_field(s, "id")->is_key);
    assert_int_equal(find_field(s, "f2")->default_value->kind, AST_VALUE_TRUE);
    assert_int_equal(find_field(s, "f4")->default_value->kind, AST_VALUE_NAME);
    assert_string_equal(find_field(s, "f4")->default_value->name.text, "max");
    assert_string_equal(find_field(s, "f6")->default_value->text, "'!'");
    assert_string_equal(find_field(s, "f8")->default_value->text, "0x0444");
    assert_string_equal(find_field(s, "f28")->default_value->text, "-123.456e+123");
    assert_int_equal(find_field(s, "f32")->default_value->kind, AST_VALUE_STRING);
    assert_string_equal(find_field(s, "f32")->default_value->text, "\"Initial string!\"");
    assert_int_equal(find_field(s, "f34")->default_value->kind, AST_VALUE_EPOCH);
    assert_int_equal(find_field(s, "f35")->default_value->kind, AST_VALUE_UTC);
    assert_int_equal(find_field(s, "f37")->default_value->kind, AST_VALUE_UUID1);
    assert_int_equal(find_field(s, "f29")->type.kind, FBE_IR_DECIMAL);
    assert_int_equal(find_field(s, "f33")->type.kind, FBE_IR_TIMESTAMP);
    assert_int_equal(find_field(s, "f36")->type.kind, FBE_IR_UUID);
    assert_int_equal(find_field(s, "f39")->type.kind, FBE_IR_STRUCT);
    assert_string_equal(find_field(s, "f39")->type.name.text, "proto.OrderSide");

    ast_struct *opt = find_struct(f, "StructOptional");
    assert_true(opt->has_base);
    assert_string_equal(opt->base.text, "StructSimple");
    assert_int_equal(opt->type_spec, AST_TYPE_SPEC_NONE);
    assert_true(find_field(opt, "f102")->optional);
    assert_int_equal(find_field(opt, "f102")->default_value->kind, AST_VALUE_NULL);

    ast_field *nested = find_field(find_struct(f, "StructNested"), "f1006");
    assert_string_equal(nested->default_value->name.text, "FlagsTyped.FLAG_VALUE_2");
    assert_int_equal(nested->default_value->or_names.count, 2);
    assert_string_equal(list_name(&nested->default_value->or_names, 1), "FlagsTyped.FLAG_VALUE_6");

    ast_field *arr = find_field(find_struct(f, "StructArray"), "f2");
    assert_int_equal(arr->form, AST_FORM_ARRAY);
    assert_true(arr->optional);
    assert_string_equal(arr->array_size_text, "2");
    assert_int_equal(find_field(find_struct(f, "StructVector"), "f4")->type.kind, FBE_IR_BYTES);
    assert_int_equal(find_field(find_struct(f, "StructList"), "f6")->form, AST_FORM_LIST);
    assert_int_equal(find_field(find_struct(f, "StructSet"), "f4")->form, AST_FORM_SET);
    ast_field *map = find_field(find_struct(f, "StructMap"), "f2");
    assert_int_equal(map->form, AST_FORM_MAP);
    assert_true(map->optional);
    assert_int_equal(map->type.kind, FBE_IR_BYTE);
    assert_int_equal(map->key.kind, FBE_IR_INT32);
    ast_field *hash = find_field(find_struct(f, "StructHashEx"), "f2");
    assert_int_equal(hash->form, AST_FORM_HASH);
    assert_true(hash->optional);
    assert_string_equal(hash->type.name.text, "StructNested");
    assert_int_equal(hash->key.kind, FBE_IR_STRUCT);
    assert_string_equal(hash->key.name.text, "StructSimple");
    assert_int_equal(find_struct(f, "StructEmpty")->fields.count, 0);
    done(&p);
}

static void test_golden_enums(void **state)
{
    (void)state;
    parsed p;
    ast_file *f = parse_golden(&p, "enums");
    assert_string_equal(f->package.text, "enums");
    ast_enum *w = find_enum(f, "EnumWChar");
    assert_int_equal(w->base.kind, FBE_IR_WCHAR);
    ast_enum_value *v1 = find_value(w, "ENUM_VALUE_1");
    assert_int_equal(v1->kind, AST_ENUM_VALUE_INT);
    assert_string_equal(v1->text, "0x0444");
    ast_enum *c = find_enum(f, "EnumChar");
    assert_int_equal(find_value(c, "ENUM_VALUE_1")->kind, AST_ENUM_VALUE_CHAR);
    assert_string_equal(find_value(c, "ENUM_VALUE_1")->text, "'1'");
    ast_enum *b = find_enum(f, "EnumByte");
    assert_string_equal(find_value(b, "ENUM_VALUE_3")->text, "254");
    assert_string_equal(list_name(&find_value(b, "ENUM_VALUE_5")->names, 0), "ENUM_VALUE_3");
    done(&p);
}

/* ---- constructs -------------------------------------------------------------- */

static void test_field_forms(void **state)
{
    (void)state;
    parsed p;
    ast_file *f = parse_ok(&p,
        "package p\n"
        "struct S {\n"
        "    int32 a;\n"
        "    int32? b;\n"
        "    int32~ c;\n"
        "    int32[3] d;\n"
        "    int32?[4] e;\n"
        "    string[] f;\n"
        "    string?[] g;\n"
        "    bytes() h;\n"
        "    bytes?() i;\n"
        "    uuid! j;\n"
        "    q.V<q.K> k;\n"
        "    V?<char> l;\n"
        "    bool{wchar} m;\n"
        "    double?{timestamp} n;\n"
        "    uuid [id];\n"
        "    [hidden] [key] decimal o;\n"
        "}\n");
    ast_struct *s = find_struct(f, "S");
    assert_int_equal(s->fields.count, 16);
    static const struct {
        const char *name;
        fbe_ir_kind kind;
        bool optional;
        ast_field_form form;
    } want[] = {
        {"a", FBE_IR_INT32, false, AST_FORM_PLAIN},
        {"b", FBE_IR_INT32, true, AST_FORM_PLAIN},
        {"c", FBE_IR_INT32, false, AST_FORM_RESET},
        {"d", FBE_IR_INT32, false, AST_FORM_ARRAY},
        {"e", FBE_IR_INT32, true, AST_FORM_ARRAY},
        {"f", FBE_IR_STRING, false, AST_FORM_VECTOR},
        {"g", FBE_IR_STRING, true, AST_FORM_VECTOR},
        {"h", FBE_IR_BYTES, false, AST_FORM_LIST},
        {"i", FBE_IR_BYTES, true, AST_FORM_LIST},
        {"j", FBE_IR_UUID, false, AST_FORM_SET},
        {"k", FBE_IR_STRUCT, false, AST_FORM_MAP},
        {"l", FBE_IR_STRUCT, true, AST_FORM_MAP},
        {"m", FBE_IR_BOOL, false, AST_FORM_HASH},
        {"n", FBE_IR_DOUBLE, true, AST_FORM_HASH},
        {"id", FBE_IR_UUID, false, AST_FORM_PLAIN},
        {"o", FBE_IR_DECIMAL, false, AST_FORM_PLAIN},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ast_field *fld = s->fields.items[i];
        assert_string_equal(fld->name.text, want[i].name);
        assert_int_equal(fld->type.kind, want[i].kind);
        assert_int_equal(fld->optional, want[i].optional);
        assert_int_equal(fld->form, want[i].form);
        assert_int_equal(fld->attrs.hidden, i == 15);
        assert_int_equal(fld->is_key, i == 15);
        assert_int_equal(fld->is_id, i == 14);
        assert_null(fld->default_value);
    }
    ast_field *d = find_field(s, "d");
    assert_string_equal(d->array_size_text, "3");
    check_loc(d->array_size_loc, 6, 11);
    assert_string_equal(find_field(s, "e")->array_size_text, "4");
    ast_field *k = find_field(s, "k");
    assert_string_equal(k->type.name.text, "q.V");
    assert_int_equal(k->key.kind, FBE_IR_STRUCT);
    assert_string_equal(k->key.name.text, "q.K");
    assert_string_equal(find_field(s, "l")->type.name.text, "V");
    assert_int_equal(find_field(s, "l")->key.kind, FBE_IR_CHAR);
    assert_int_equal(find_field(s, "m")->key.kind, FBE_IR_WCHAR);
    assert_int_equal(find_field(s, "n")->key.kind, FBE_IR_TIMESTAMP);
    ast_field *id = find_field(s, "id");
    check_loc(id->loc, 17, 5);
    check_loc(id->name.loc, 17, 10);
    ast_field *o = find_field(s, "o");
    check_loc(o->loc, 18, 5);
    check_loc(o->type.name.loc, 18, 20);
    check_loc(o->name.loc, 18, 28);
    done(&p);
}

static void test_defaults(void **state)
{
    (void)state;
    parsed p;
    ast_file *f = parse_ok(&p,
        "package p\n"
        "struct S {\n"
        "    bool a = true;\n"
        "    bool b = false;\n"
        "    int32? c = null;\n"
        "    timestamp d = epoch;\n"
        "    timestamp e = utc;\n"
        "    uuid g = uuid0;\n"
        "    uuid h = uuid1;\n"
        "    uuid i = uuid4;\n"
        "    char j = '\\'';\n"
        "    int64 k = -0x10;\n"
        "    double l = -.5e-3;\n"
        "    string m = \"a\\\"b\\\\\";\n"
        "    E n = pkg.E.value;\n"
        "    F o = F.a | F.b | x.F.c;\n"
        "    int8 q = min;\n"
        "    float r = 1.;\n"
        "    int32 s = 010;\n"
        "}\n");
    ast_struct *s = find_struct(f, "S");
    static const struct {
        const char *field;
        ast_value_kind kind;
        const char *text; /* literal text or name */
        unsigned col;
    } want[] = {
        {"a", AST_VALUE_TRUE, NULL, 14},
        {"b", AST_VALUE_FALSE, NULL, 14},
        {"c", AST_VALUE_NULL, NULL, 16},
        {"d", AST_VALUE_EPOCH, NULL, 19},
        {"e", AST_VALUE_UTC, NULL, 19},
        {"g", AST_VALUE_UUID0, NULL, 14},
        {"h", AST_VALUE_UUID1, NULL, 14},
        {"i", AST_VALUE_UUID4, NULL, 14},
        {"j", AST_VALUE_CHAR, "'\\''", 14},
        {"k", AST_VALUE_INT, "-0x10", 15},
        {"l", AST_VALUE_FLOAT, "-.5e-3", 16},
        {"m", AST_VALUE_STRING, "\"a\\\"b\\\\\"", 16},
        {"n", AST_VALUE_NAME, "pkg.E.value", 11},
        {"o", AST_VALUE_NAME, "F.a", 11},
        {"q", AST_VALUE_NAME, "min", 14},
        {"r", AST_VALUE_FLOAT, "1.", 15},
        {"s", AST_VALUE_INT, "010", 15},
    };
    assert_int_equal(s->fields.count, sizeof want / sizeof want[0]);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ast_field *fld = s->fields.items[i];
        assert_string_equal(fld->name.text, want[i].field);
        ast_value *v = fld->default_value;
        assert_non_null(v);
        assert_int_equal(v->kind, want[i].kind);
        if (v->kind == AST_VALUE_NAME)
            assert_string_equal(v->name.text, want[i].text);
        else if (want[i].text)
            assert_string_equal(v->text, want[i].text);
        check_loc(v->loc, (unsigned)(3 + i), want[i].col);
        if (strcmp(want[i].field, "o") != 0)
            assert_int_equal(v->or_names.count, 0);
    }
    ast_value *o = find_field(s, "o")->default_value;
    assert_int_equal(o->or_names.count, 2);
    assert_string_equal(list_name(&o->or_names, 0), "F.b");
    assert_string_equal(list_name(&o->or_names, 1), "x.F.c");
    check_loc(((ast_name *)o->or_names.items[1])->loc, 16, 23);
    done(&p);
}

static void test_enums_flags(void **state)
{
    (void)state;
    parsed p;
    ast_file *f = parse_ok(&p,
        "package p\n"
        "[deprecated] enum E : uint16 { a; [hidden] b = -1; c = 'x'; [deprecated][hidden] d = a; }\n"
        "flags F : string { x = 0x1; y = x | x; z = x | y | x; }\n"
        "enum G {}\n"
        "flags H {}\n");
    ast_enum *e = find_enum(f, "E");
    assert_false(e->is_flags);
    assert_true(e->attrs.deprecated);
    assert_false(e->attrs.hidden);
    assert_true(e->has_base);
    assert_int_equal(e->base.kind, FBE_IR_UINT16);
    assert_string_equal(e->base.name.text, "uint16");
    check_loc(e->base.name.loc, 2, 23);
    check_loc(e->loc, 2, 14);
    check_loc(e->name.loc, 2, 19);
    assert_int_equal(e->values.count, 4);
    ast_enum_value *b = find_value(e, "b");
    assert_true(b->attrs.hidden);
    assert_int_equal(b->kind, AST_ENUM_VALUE_INT);
    assert_string_equal(b->text, "-1");
    check_loc(b->value_loc, 2, 48);
    assert_string_equal(find_value(e, "c")->text, "'x'");
    ast_enum_value *d = find_value(e, "d");
    assert_true(d->attrs.hidden && d->attrs.deprecated);
    assert_int_equal(d->kind, AST_ENUM_VALUE_NAMES);
    assert_int_equal(d->names.count, 1);
    assert_string_equal(list_name(&d->names, 0), "a");

    ast_enum *fl = find_enum(f, "F");
    assert_true(fl->is_flags);
    assert_int_equal(fl->base.kind, FBE_IR_STRING); /* the resolver rejects it */
    ast_enum_value *z = find_value(fl, "z");
    assert_int_equal(z->names.count, 3);
    assert_string_equal(list_name(&z->names, 1), "y");
    assert_false(find_enum(f, "G")->has_base);
    assert_true(find_enum(f, "H")->is_flags);
    assert_int_equal(find_enum(f, "H")->values.count, 0);
    done(&p);
}

static void test_struct_headers(void **state)
{
    (void)state;
    parsed p;
    ast_file *f = parse_ok(&p,
        "package p offset 5\n"
        "struct A(+10) {}\n"
        "struct B(-7) : A {}\n"
        "message C(base) : q.A {}\n"
        "[hidden] [deprecated] struct D : A { }\n"
        "struct E(0x10) {}\n"
        "message F(+0) {}\n");
    ast_struct *a = find_struct(f, "A");
    assert_int_equal(a->type_spec, AST_TYPE_SPEC_PLUS);
    assert_string_equal(a->type_number_text, "10");
    check_loc(a->type_number_loc, 2, 11);
    check_loc(a->loc, 2, 1);
    check_loc(a->end_loc, 2, 16);
    ast_struct *b = find_struct(f, "B");
    assert_int_equal(b->type_spec, AST_TYPE_SPEC_FIXED);
    assert_string_equal(b->type_number_text, "-7");
    assert_true(b->has_base);
    assert_string_equal(b->base.text, "A");
    check_loc(b->base.loc, 3, 16);
    ast_struct *c = find_struct(f, "C");
    assert_true(c->is_message);
    assert_int_equal(c->type_spec, AST_TYPE_SPEC_BASE);
    assert_string_equal(c->base.text, "q.A");
    ast_struct *d = find_struct(f, "D");
    assert_true(d->attrs.hidden && d->attrs.deprecated);
    check_loc(d->loc, 5, 23);
    assert_string_equal(find_struct(f, "E")->type_number_text, "0x10");
    assert_int_equal(find_struct(f, "F")->type_spec, AST_TYPE_SPEC_PLUS);
    assert_string_equal(f->offset_text, "5");
    check_loc(f->offset_loc, 1, 18);
    done(&p);
}

static void test_request_response_reject(void **state)
{
    (void)state;
    parsed p;
    ast_file *f = parse_ok(&p,
        "package p\n"
        "[request] [response(R)] [reject(*X, y.Z, W)] message M1 { uuid [id] = uuid4; }\n"
        "[ request ][ response ( q.R ) ]\n[deprecated] message M2 {}\n"
        "[request] [reject(A)] message M3 {}\n"
        "[request] message M4 {}\n"
        "[request] [reject(A, B)] struct S {}\n"
        "message M5 {}\n");
    ast_struct *m1 = find_struct(f, "M1");
    assert_true(m1->is_request);
    assert_true(m1->has_response);
    assert_string_equal(m1->response.text, "R");
    check_loc(m1->response.loc, 2, 21);
    assert_int_equal(m1->rejects.count, 3);
    ast_reject *r0 = m1->rejects.items[0], *r1 = m1->rejects.items[1], *r2 = m1->rejects.items[2];
    assert_true(r0->global);
    assert_string_equal(r0->name.text, "X");
    check_loc(r0->name.loc, 2, 34);
    assert_false(r1->global);
    assert_string_equal(r1->name.text, "y.Z");
    assert_false(r2->global);
    assert_string_equal(r2->name.text, "W");
    check_loc(m1->loc, 2, 46);
    ast_field *id = m1->fields.items[0];
    assert_true(id->is_id);
    assert_string_equal(id->name.text, "id");
    assert_int_equal(id->default_value->kind, AST_VALUE_UUID4);

    ast_struct *m2 = find_struct(f, "M2");
    assert_true(m2->is_request && m2->has_response);
    assert_string_equal(m2->response.text, "q.R");
    assert_int_equal(m2->rejects.count, 0);
    assert_true(m2->attrs.deprecated);
    ast_struct *m3 = find_struct(f, "M3");
    assert_true(m3->is_request);
    assert_false(m3->has_response);
    assert_int_equal(m3->rejects.count, 1);
    ast_struct *m4 = find_struct(f, "M4");
    assert_true(m4->is_request);
    assert_false(m4->has_response);
    assert_int_equal(m4->rejects.count, 0);
    ast_struct *s = find_struct(f, "S");
    assert_false(s->is_message);
    assert_true(s->is_request);
    assert_int_equal(s->rejects.count, 2);
    assert_false(find_struct(f, "M5")->is_request);
    done(&p);
}

static void test_keywords_as_names(void **state)
{
    (void)state;
    parsed p;
    ast_file *f = parse_ok(&p,
        "domain package.offset.import\n"
        "package version offset 1 version 2.0\n"
        "import request import reject\n"
        "enum domain { package; offset = import; }\n"
        "struct response : domain.reject {\n"
        "    version.request domain = import.offset | reject;\n"
        "    int32 min = max;\n"
        "    int32 type;\n"
        "    int32 id;\n"
        "    int32 key;\n"
        "    key.id max;\n"
        "}\n"
        "[request] [response(response)] [reject(*reject, request)] message request {}\n");
    assert_string_equal(f->domain.text, "package.offset.import");
    assert_string_equal(f->package.text, "version");
    assert_string_equal(f->version_text, "2.0");
    assert_int_equal(f->imports.count, 2);
    assert_string_equal(list_name(&f->imports, 0), "request");
    assert_string_equal(list_name(&f->imports, 1), "reject");
    ast_enum *e = find_enum(f, "domain");
    assert_string_equal(list_name(&find_value(e, "offset")->names, 0), "import");
    ast_struct *s = find_struct(f, "response");
    assert_string_equal(s->base.text, "domain.reject");
    ast_field *d = find_field(s, "domain");
    assert_string_equal(d->type.name.text, "version.request");
    assert_int_equal(d->type.kind, FBE_IR_STRUCT);
    assert_string_equal(d->default_value->name.text, "import.offset");
    assert_string_equal(list_name(&d->default_value->or_names, 0), "reject");
    assert_string_equal(find_field(s, "min")->default_value->name.text, "max");
    assert_string_equal(find_field(s, "max")->type.name.text, "key.id");
    assert_false(find_field(s, "id")->is_id);
    assert_false(find_field(s, "key")->is_key);
    ast_struct *r = find_struct(f, "request");
    assert_string_equal(r->response.text, "response");
    assert_string_equal(((ast_reject *)r->rejects.items[0])->name.text, "reject");
    done(&p);
}

static void test_comments(void **state)
{
    (void)state;
    parsed p;
    ast_file *f = parse_ok(&p,
        "/** doc */ package p // line comment\n"
        "/*\n"
        " * A struct.\n"
        " * ** stars ** and / slashes */\n"
        "struct A { /* *** */ int32 /**/ x; /*/ still a comment */ int32 y; } /***/\n"
        "// last line without newline");
    ast_struct *a = find_struct(f, "A");
    check_loc(a->loc, 5, 1);
    assert_int_equal(a->fields.count, 2);
    check_loc(((ast_field *)a->fields.items[0])->name.loc, 5, 33);
    check_loc(((ast_field *)a->fields.items[1])->name.loc, 5, 65);
    done(&p);
}

/* Columns are 1-based bytes (a tab is one column); lines count across
 * multi-line comments and character literals. */
static void test_locations(void **state)
{
    (void)state;
    parsed p;
    ast_file *f = parse_ok(&p,
        "\tpackage\tp\r\n"
        "/* one\n two\n three */ struct\tA\n"
        "{\n"
        "\t\tint32 x = '\n';\n"
        "\tint32 y;\n"
        "}\n");
    check_loc(f->package.loc, 1, 10);
    ast_struct *a = find_struct(f, "A");
    check_loc(a->loc, 4, 11);
    check_loc(a->name.loc, 4, 18);
    ast_field *x = find_field(a, "x");
    check_loc(x->loc, 6, 3);
    check_loc(x->type.name.loc, 6, 3);
    check_loc(x->name.loc, 6, 9);
    check_loc(x->default_value->loc, 6, 13);
    assert_string_equal(x->default_value->text, "'\n'");
    check_loc(find_field(a, "y")->loc, 8, 2);
    check_loc(a->end_loc, 9, 1);
    done(&p);
}

/* ---- diagnostics --------------------------------------------------------------- */

static void test_error_empty_and_missing_package(void **state)
{
    (void)state;
    CHECK_ERRORS("", "t.fbe:1:1: error: syntax error, unexpected end of file, "
                     "expecting 'domain' or 'package'\n");
    CHECK_ERRORS("// nothing\n\n",
                 "t.fbe:3:1: error: syntax error, unexpected end of file, "
                 "expecting 'domain' or 'package'\n");
    CHECK_ERRORS("\n  struct A {}\n",
                 "t.fbe:2:3: error: syntax error, unexpected 'struct', "
                 "expecting 'domain' or 'package'\n");
    CHECK_ERRORS("domain a.b\nstruct A {}\n",
                 "t.fbe:2:1: error: syntax error, unexpected 'struct', expecting 'package'\n");
    parsed p;
    parse_text(&p, "struct A {}\n");
    assert_false(p.file->has_package);
    done(&p);
}

static void test_error_header(void **state)
{
    (void)state;
    CHECK_ERRORS("package p version 1\n",
                 "t.fbe:1:19: error: syntax error, unexpected integer literal, "
                 "expecting floating-point literal\n");
    CHECK_ERRORS("package p offset 1.5\n",
                 "t.fbe:1:18: error: syntax error, unexpected floating-point literal, "
                 "expecting integer literal\n");
    CHECK_ERRORS("package a.b\n", "t.fbe:1:10: error: syntax error, unexpected '.'\n");
    CHECK_ERRORS("package p\nimport a.b\n", "t.fbe:2:9: error: syntax error, unexpected '.'\n");
    CHECK_ERRORS("domain a package p import x version 1.0\n",
                 "t.fbe:1:29: error: syntax error, unexpected 'version'\n");
    CHECK_ERRORS("package p;\nimport x;\nstruct A { int32 x; }\n",
                 "t.fbe:1:10: error: syntax error, unexpected ';'\n");
    parsed p;
    parse_text(&p, "package p;\nstruct A {}\n");
    assert_true(p.file->has_package);
    assert_string_equal(p.file->package.text, "p");
    assert_int_equal(p.file->decls.count, 1);
    done(&p);
}

static void test_error_fields(void **state)
{
    (void)state;
    CHECK_ERRORS("package p\nstruct A { int32 x }\n",
                 "t.fbe:2:19: error: expected ';' after field\n");
    CHECK_ERRORS("package p\nstruct A { [key] [hidden] int32 x; }\n",
                 "t.fbe:2:18: error: syntax error, unexpected '[hidden]'\n");
    CHECK_ERRORS("package p\nstruct A { int32?! x; }\n",
                 "t.fbe:2:18: error: syntax error, unexpected '!', expecting identifier or '[id]'\n");
    CHECK_ERRORS("package p\nstruct A { int32<int32?> x; }\n",
                 "t.fbe:2:23: error: expected '>'\n");
    CHECK_ERRORS("package p\nstruct A { int32[][] x; }\n",
                 "t.fbe:2:19: error: syntax error, unexpected '[', expecting identifier or '[id]'\n");
    CHECK_ERRORS("package p\nstruct A { int32<int32>[] x; }\n",
                 "t.fbe:2:24: error: syntax error, unexpected '[', expecting identifier or '[id]'\n");
    CHECK_ERRORS("package p\nstruct A { int32~? x; }\n",
                 "t.fbe:2:18: error: syntax error, unexpected '?', expecting identifier or '[id]'\n");
    CHECK_ERRORS("package p\nstruct A { [key] int32 [id]; }\n",
                 "t.fbe:2:24: error: syntax error, unexpected '[id]', expecting identifier\n");
    CHECK_ERRORS("package p\nstruct A { [ key ] int32 x; }\n",
                 "t.fbe:2:12: error: syntax error, unexpected '['\n");
    CHECK_ERRORS("package p\nstruct A { int32 x = 5 6; }\n",
                 "t.fbe:2:23: error: expected ';' after field\n");
    CHECK_ERRORS("package p\nstruct A { int32 x = ; }\n",
                 "t.fbe:2:22: error: syntax error, unexpected ';'\n");
    CHECK_ERRORS("package p\nstruct A { int32 base; }\n",
                 "t.fbe:2:18: error: syntax error, unexpected 'base', expecting identifier or '[id]'\n");
    CHECK_ERRORS("package p\nstruct A { int32 x;\n",
                 "t.fbe:3:1: error: syntax error, unexpected end of file\n");
}

static void test_error_declarations(void **state)
{
    (void)state;
    CHECK_ERRORS("package p\nstruct 5 {}\n",
                 "t.fbe:2:8: error: syntax error, unexpected integer literal, expecting identifier\n");
    CHECK_ERRORS("package p\nstruct string {}\n",
                 "t.fbe:2:8: error: syntax error, unexpected 'string', expecting identifier\n");
    CHECK_ERRORS("package p\nstruct A(+) {}\n",
                 "t.fbe:2:11: error: syntax error, unexpected ')', expecting integer literal\n");
    CHECK_ERRORS("package p\nstruct A(base) {}\n",
                 "t.fbe:2:15: error: expected ':'\n");
    CHECK_ERRORS("package p\nstruct A : B(1) {}\n",
                 "t.fbe:2:13: error: expected '{'\n");
    CHECK_ERRORS("package p\nenum E { a = 1 | b; }\n",
                 "t.fbe:2:15: error: expected ';' after enum value\n");
    CHECK_ERRORS("package p\nenum E : byte { a = b | c; }\n",
                 "t.fbe:2:22: error: expected ';' after enum value\n");
    CHECK_ERRORS("package p\nenum E { a = \"s\"; }\n",
                 "t.fbe:2:14: error: syntax error, unexpected string literal, "
                 "expecting identifier or integer literal or character literal\n");
    /* `flags F { a; }` parses; the resolver reports the missing value
     * (test_errors). */
    CHECK_ERRORS("package p\nflags F { a }\n",
                 "t.fbe:2:12: error: expected ';' after flags value\n");
    CHECK_ERRORS("package p\nflags F { a = 'c'; }\n",
                 "t.fbe:2:15: error: syntax error, unexpected character literal, "
                 "expecting identifier or integer literal\n");
    CHECK_ERRORS("package p\nflags F { a = 1; b = a | 0x4; c = 0x1 | a; }\n",
                 "t.fbe:2:26: error: syntax error, unexpected integer literal, expecting identifier\n"
                 "t.fbe:2:38: error: expected ';' after flags value\n");
    CHECK_ERRORS("package p\n[deprecated] [request] message M {}\n",
                 "t.fbe:2:14: error: syntax error, unexpected '['\n");
    CHECK_ERRORS("package p\n[request] [reject(X)] [response(Y)] message M {}\n",
                 "t.fbe:2:23: error: syntax error, unexpected '[', "
                 "expecting 'struct' or 'message' or '[hidden]' or '[deprecated]'\n");
    CHECK_ERRORS("package p\n[request] [reject(A, *B)] message M {}\n",
                 "t.fbe:2:22: error: syntax error, unexpected '*', expecting identifier\n");
    CHECK_ERRORS("package p\nstruct A {}\n}\n",
                 "t.fbe:3:1: error: syntax error, unexpected '}'\n");
}

static void test_error_lexical(void **state)
{
    (void)state;
    CHECK_ERRORS("package p\n/* unterminated\n * comment\n",
                 "t.fbe:2:1: error: unterminated comment\n");
    CHECK_ERRORS("package p /* a */ /* b\n",
                 "t.fbe:1:19: error: unterminated comment\n");
    CHECK_ERRORS("package p\nstruct A { string s = \"abc; }\n",
                 "t.fbe:2:23: error: missing terminating '\"' character\n"
                 "t.fbe:3:1: error: syntax error, unexpected end of file\n");
    CHECK_ERRORS("package p\nstruct A { string s = \"abc\\\n\"; }\n",
                 "t.fbe:2:23: error: missing terminating '\"' character\n"
                 "t.fbe:3:1: error: missing terminating '\"' character\n"
                 "t.fbe:4:1: error: syntax error, unexpected end of file\n");
    CHECK_ERRORS("package p\nstruct A { char c = 'a; }\n",
                 "t.fbe:2:21: error: missing terminating ' character\n"
                 "t.fbe:3:1: error: syntax error, unexpected end of file\n");
    CHECK_ERRORS("package p\nstruct A { char c = ''; }\n",
                 "t.fbe:2:21: error: empty character constant\n"
                 "t.fbe:2:23: error: syntax error, unexpected ';'\n");
    CHECK_ERRORS("package p @ $\n",
                 "t.fbe:1:11: error: invalid character '@'\n"
                 "t.fbe:1:13: error: invalid character '$'\n");
    CHECK_ERRORS("package p\x00\xff\x01\n",
                 "t.fbe:1:10: error: invalid character '\\x00'\n"
                 "t.fbe:1:11: error: invalid character '\\xff'\n"
                 "t.fbe:1:12: error: invalid character '\\x01'\n");
    CHECK_ERRORS("package p\n\tstruct\tA\t{\t@ }\n",
                 "t.fbe:2:13: error: invalid character '@'\n");
    CHECK_ERRORS("package p\nstruct A { string s = \"a\x00" "b\"; }\n",
                 "t.fbe:2:25: error: invalid character '\\x00'\n");
    CHECK_ERRORS("package p\nstruct A { int32 x = - 5; int32 y = 1-2; }\n",
                 "t.fbe:2:22: error: invalid character '-'\n"
                 "t.fbe:2:38: error: expected ';' after field\n");
    CHECK_ERRORS("package p\nstruct A { int32 x = 1; } /",
                 "t.fbe:2:27: error: invalid character '/'\n");
}

/* A missing punctuation token is reported right after the previous token, where
 * it must be typed (gcc and clang do the same), not at the next token. */
static void test_error_expected_after_previous(void **state)
{
    (void)state;
    /* the issue's case: the next field is on the next line */
    CHECK_ERRORS("package p\n\n\n\nstruct A\n{\n    int32 x\n    int32 y;\n}\n",
                 "t.fbe:7:12: error: expected ';' after field\n");
    /* at the end of the file */
    CHECK_ERRORS("package p\nstruct A { int32 x", "t.fbe:2:19: error: expected ';' after field\n");
    /* after a default value, across a comment */
    CHECK_ERRORS("package p\nstruct A { int32 x = 5 // five\n int32 y; }\n",
                 "t.fbe:2:23: error: expected ';' after field\n");
    CHECK_ERRORS("package p\nenum E\n{\n    a\n    b;\n}\n",
                 "t.fbe:4:6: error: expected ';' after enum value\n");
    CHECK_ERRORS("package p\nflags F\n{\n    a = 1\n    b = 2;\n}\n",
                 "t.fbe:4:10: error: expected ';' after flags value\n");
    CHECK_ERRORS("package p\nstruct A { string<int32 x; }\n", "t.fbe:2:24: error: expected '>'\n");
    CHECK_ERRORS("package p\nstruct A { int32[3 x; }\n", "t.fbe:2:19: error: expected ']'\n");
    CHECK_ERRORS("package p\nstruct A(1 { int32 x; }\n", "t.fbe:2:11: error: expected ')'\n");
    CHECK_ERRORS("package p\n[request][response(A]\nmessage B {}\n",
                 "t.fbe:2:21: error: expected ')'\n");
    CHECK_ERRORS("package p\nstruct A\n    int32 x; }\n", "t.fbe:2:9: error: expected '{'\n");
    /* a missing name or literal stays at the token found instead */
    CHECK_ERRORS("package p offset\nstruct A {}\n",
                 "t.fbe:2:1: error: syntax error, unexpected 'struct', expecting integer literal\n");
}

/* Independent mistakes in one file are all reported. */
static void test_error_recovery(void **state)
{
    (void)state;
    static const char text[] =
        "package p\n"
        "struct A { int32 x; int32 y z; }\n"
        "struct B : { int32 q; }\n"
        "enum E { a b; c; }\n"
        "flags F { c = 1 | 2; d = 4; }\n"
        "struct C { bool z; [key] [hidden] int8 k; T? ! w; }\n"
        "message D { uuid [id] = uuid4 }\n"
        "struct G { int32 ok; }\n";
    CHECK_ERRORS(text,
                 "t.fbe:2:28: error: expected ';' after field\n"
                 "t.fbe:3:12: error: syntax error, unexpected '{', expecting identifier\n"
                 "t.fbe:4:11: error: expected ';' after enum value\n"
                 "t.fbe:5:16: error: expected ';' after flags value\n"
                 "t.fbe:6:26: error: syntax error, unexpected '[hidden]'\n"
                 "t.fbe:6:46: error: syntax error, unexpected '!', expecting identifier or '[id]'\n"
                 "t.fbe:7:30: error: expected ';' after field\n");

    /* Consecutive bad fields / values are each reported. */
    CHECK_ERRORS("package p\nstruct A { a; b; c; }\nenum E { a b; c d; e = f g; }\nflags F { a 1; b 2; }\n",
                 "t.fbe:2:13: error: syntax error, unexpected ';', expecting identifier or '[id]'\n"
                 "t.fbe:2:16: error: syntax error, unexpected ';', expecting identifier or '[id]'\n"
                 "t.fbe:2:19: error: syntax error, unexpected ';', expecting identifier or '[id]'\n"
                 "t.fbe:3:11: error: expected ';' after enum value\n"
                 "t.fbe:3:16: error: expected ';' after enum value\n"
                 "t.fbe:3:25: error: expected ';' after enum value\n"
                 "t.fbe:4:12: error: expected ';' after flags value\n"
                 "t.fbe:4:17: error: expected ';' after flags value\n");

    /* A lexical error followed by the fallout, then parsing goes on. */
    CHECK_ERRORS("package p\nstruct A { string s = \"abc; }\nstruct B { int32 x; }\n"
                 "struct C { int32 q }\n",
                 "t.fbe:2:23: error: missing terminating '\"' character\n"
                 "t.fbe:3:1: error: syntax error, unexpected 'struct'\n"
                 "t.fbe:4:19: error: expected ';' after field\n");

    /* The declarations around the errors are still there. */
    parsed p;
    ast_file *f = parse_text(&p, text);
    assert_int_equal(f->decls.count, 7);
    ast_struct *a = find_struct(f, "A");
    assert_int_equal(a->fields.count, 1);
    ast_struct *b = find_struct(f, "");
    assert_int_equal(b->fields.count, 1);
    assert_int_equal(find_enum(f, "E")->values.count, 1);
    assert_int_equal(find_enum(f, "F")->values.count, 1);
    assert_int_equal(find_struct(f, "C")->fields.count, 1);
    assert_int_equal(find_struct(f, "D")->fields.count, 0);
    assert_int_equal(find_struct(f, "G")->fields.count, 1);
    done(&p);
}

/* Parsing stops at the error cap. */
static void test_error_cap(void **state)
{
    (void)state;
    char text[256] = "package p\n";
    for (int i = 0; i < 60; i++)
        strcat(text, "@");
    parsed p;
    parse_text(&p, text);
    assert_int_equal(p.errors, FBE_MAX_ERRORS);
    assert_int_equal(p.cap.count, FBE_MAX_ERRORS);
    assert_non_null(strstr(p.cap.text, "t.fbe:2:20: error: invalid character '@'\n"));
    assert_null(strstr(p.cap.text, "t.fbe:2:21:"));
    done(&p);

    /* Syntax errors too. */
    char many[4096] = "package p\n";
    for (int i = 0; i < 40; i++)
        strcat(many, "struct { int32 x; }\n");
    parse_text(&p, many);
    assert_int_equal(p.errors, FBE_MAX_ERRORS);
    assert_non_null(strstr(p.cap.text,
                           "t.fbe:21:8: error: syntax error, unexpected '{', expecting identifier\n"));
    assert_null(strstr(p.cap.text, "t.fbe:22:"));
    done(&p);
}

/* ---- robustness ---------------------------------------------------------------- */

static uint32_t rng_state;

static uint32_t rng(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

static void test_random_bytes(void **state)
{
    (void)state;
    rng_state = 12345;
    char buf[4096];
    for (int round = 0; round < 50; round++) {
        for (size_t i = 0; i < sizeof buf; i++)
            buf[i] = (char)(rng() & 0xff);
        parsed p;
        parse_bytes(&p, buf, sizeof buf);
        assert_true(p.errors > 0);
        assert_true(p.cap.count > 0 && p.cap.count <= FBE_MAX_ERRORS);
        done(&p);
    }
}

/* Streams of valid tokens in random order. */
static void test_random_tokens(void **state)
{
    (void)state;
    static const char *const tokens[] = {
        "package", "p", "struct", "message", "enum", "flags", "{", "}", "(", ")", "[", "]",
        "<", ">", "?", "!", "~", ";", "=", "|", ".", ",", ":", "*", "+", "[key]", "[id]",
        "[hidden]", "[deprecated]", "int32", "string", "x", "1", "-0x1", "1.5", "\"s\"",
        "'c'", "/* c */", "//\n", "\n", "request", "response", "reject", "base", "import",
        "version", "offset", "domain", "null", "uuid4",
    };
    rng_state = 777;
    char buf[8192];
    for (int round = 0; round < 200; round++) {
        size_t len = 0;
        if (round % 2)
            len = (size_t)snprintf(buf, sizeof buf, "package p ");
        int n = (int)(rng() % 300);
        for (int i = 0; i < n; i++) {
            const char *t = tokens[rng() % (sizeof tokens / sizeof tokens[0])];
            size_t tl = strlen(t);
            if (len + tl + 2 > sizeof buf)
                break;
            memcpy(buf + len, t, tl);
            len += tl;
            buf[len++] = ' ';
        }
        parsed p;
        parse_bytes(&p, buf, len);
        done(&p);
    }
}

static void test_large_input(void **state)
{
    (void)state;
    /* A long body and a long dotted name: linear time and memory. */
    size_t n = 200000;
    size_t cap = 64 + n * 12;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t len = (size_t)snprintf(text, cap, "package p struct A { a");
    for (size_t i = 0; i < n; i++) {
        memcpy(text + len, ".a", 2);
        len += 2;
    }
    len += (size_t)snprintf(text + len, cap - len, " x; ");
    for (size_t i = 0; i < n / 2; i++) {
        memcpy(text + len, "int8 y; ", 8);
        len += 8;
    }
    text[len++] = '}';
    parsed p;
    ast_file *f = parse_bytes(&p, text, len);
    assert_int_equal(p.errors, 0);
    ast_struct *a = find_struct(f, "A");
    assert_int_equal(a->fields.count, n / 2 + 1);
    assert_int_equal(strlen(((ast_field *)a->fields.items[0])->type.name.text), 2 * n + 1);
    done(&p);

    /* Deeply repeated tokens. */
    memset(text, '{', len);
    memcpy(text, "package p ", 10);
    parse_bytes(&p, text, len);
    assert_string_equal(p.cap.text, "t.fbe:1:11: error: syntax error, unexpected '{'\n");
    done(&p);
    free(text);
}

/* fbe_parse returns NULL when the arena runs out, whatever the point. */
static void test_out_of_memory(void **state)
{
    (void)state;
    size_t len;
    uint8_t *data = read_file(shared_path("golden/schemas/test.fbe"), &len);
    fbe_arena src_arena;
    fbe_arena_init(&src_arena, NULL, NULL);
    fbe_source *src = fbe_source_from_memory(&src_arena, "test.fbe", (const char *)data, len);
    free(data);
    assert_non_null(src);
    unsigned nulls = 0, parsed_ok = 0;
    for (size_t limit = 0; limit < 200000; limit += 331) {
        fbe_arena arena;
        fbe_arena_init(&arena, NULL, NULL);
        arena.limit = limit;
        diag_capture cap;
        memset(&cap, 0, sizeof cap);
        fbe_diags diags;
        fbe_diags_init(&diags, diag_capture_sink, &cap);
        ast_file *f = fbe_parse(src, &arena, &diags);
        if (f) {
            parsed_ok++;
            assert_int_equal(diags.errors, 0);
            assert_int_equal(f->decls.count, 18);
        } else {
            nulls++;
        }
        fbe_arena_free(&arena);
    }
    assert_true(nulls > 0);
    assert_true(parsed_ok > 0);
    fbe_arena_free(&src_arena);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_proto),
        cmocka_unit_test(test_golden_protoex),
        cmocka_unit_test(test_golden_test),
        cmocka_unit_test(test_golden_enums),
        cmocka_unit_test(test_field_forms),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_enums_flags),
        cmocka_unit_test(test_struct_headers),
        cmocka_unit_test(test_request_response_reject),
        cmocka_unit_test(test_keywords_as_names),
        cmocka_unit_test(test_comments),
        cmocka_unit_test(test_locations),
        cmocka_unit_test(test_error_empty_and_missing_package),
        cmocka_unit_test(test_error_header),
        cmocka_unit_test(test_error_fields),
        cmocka_unit_test(test_error_declarations),
        cmocka_unit_test(test_error_lexical),
        cmocka_unit_test(test_error_expected_after_previous),
        cmocka_unit_test(test_error_recovery),
        cmocka_unit_test(test_error_cap),
        cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_random_tokens),
        cmocka_unit_test(test_large_input),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
