#define _POSIX_C_SOURCE 200809L
/* fbec compat against real decoding (issue 16's proof):
 *  - the shared versioning cases (bytes the reference wrote with proto.fbe and
 *    read with protoex.fbe, and the reverse): the tool calls each type compatible
 *    in the direction of the bytes, and the interpreter reads them as the
 *    reference's reader did;
 *  - random single edits of the shared schemas: whenever the tool calls a type
 *    compatible in a direction, random values written by one side decode on the
 *    other and keep every field both know (by name, nested structs included);
 *    whenever it reports an error, some value shows the break. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "fbe/buffer.h"
#include "fbe/codec.h"
#include "test_util.h"
#include "value_gen.h"

/* ---- comparing host values of two versions by field name ------------------------- */

static bool same_struct(const fbe_ir_struct *ws, const uint8_t *w, const fbe_ir_struct *rs,
                        const uint8_t *r);

static uint64_t read_int(const uint8_t *p, uint32_t size, bool is_signed)
{
    uint64_t v = 0;
    memcpy(&v, p, size); /* little-endian hosts only, as the whole library */
    if (is_signed && size < 8 && (v >> (size * 8 - 1)) & 1)
        v |= ~UINT64_C(0) << (size * 8);
    return v;
}

static const char *enum_name(const fbe_ir_enum *e, uint64_t v)
{
    for (size_t i = 0; i < e->value_count; i++)
        if (e->values[i].value == v)
            return e->values[i].name;
    return NULL;
}

static bool integer_like(fbe_ir_kind k)
{
    return fbe_ir_kind_is_integer(k) || k == FBE_IR_BOOL || k == FBE_IR_ENUM ||
           k == FBE_IR_FLAGS || k == FBE_IR_TIMESTAMP;
}

static bool is_seq(fbe_ir_kind k)
{
    return k == FBE_IR_VECTOR || k == FBE_IR_LIST || k == FBE_IR_SET;
}

static bool same_value(const fbe_ir_type *wt, const uint8_t *w, const fbe_ir_type *rt,
                       const uint8_t *r)
{
    fbe_ir_kind wk = wt->kind, rk = rt->kind;
    if (wk != rk) {
        if (integer_like(wk) && integer_like(rk) && wt->host_size == rt->host_size)
            return memcmp(w, r, wt->host_size) == 0;
        bool text = (wk == FBE_IR_STRING || wk == FBE_IR_BYTES) &&
                    (rk == FBE_IR_STRING || rk == FBE_IR_BYTES);
        bool seq = is_seq(wk) && is_seq(rk);
        bool map = (wk == FBE_IR_MAP || wk == FBE_IR_HASH) && (rk == FBE_IR_MAP || rk == FBE_IR_HASH);
        if (!text && !seq && !map)
            return false;
        if (text)
            wk = FBE_IR_BYTES;
        else
            wk = seq ? FBE_IR_VECTOR : FBE_IR_MAP;
    }
    switch (wk) {
    case FBE_IR_ENUM: {
        bool sgn = fbe_ir_kind_is_signed(wt->enum_type->base);
        uint64_t a = read_int(w, wt->host_size, sgn);
        uint64_t b = read_int(r, rt->host_size, fbe_ir_kind_is_signed(rt->enum_type->base));
        if (a != b)
            return false;
        /* the writer's name must mean the same number to the reader. A name the
         * reader lacks is kept as a number, unless the reader knows that number
         * as another value the writer also has (a rename is kept) */
        const fbe_ir_enum *we = wt->enum_type, *re = rt->enum_type;
        const char *na = enum_name(we, a);
        if (!na)
            return true;
        for (size_t i = 0; i < re->value_count; i++)
            if (strcmp(re->values[i].name, na) == 0)
                return re->values[i].value == b;
        const char *nb = enum_name(re, b);
        for (size_t i = 0; nb && i < we->value_count; i++)
            if (strcmp(we->values[i].name, nb) == 0)
                return false;
        return true;
    }
    case FBE_IR_BOOL: return (*w != 0) == (*r != 0);
    case FBE_IR_STRING:
    case FBE_IR_BYTES: {
        const fbe_bytes *a = (const fbe_bytes *)w, *b = (const fbe_bytes *)r;
        return a->size == b->size && (a->size == 0 || memcmp(a->data, b->data, a->size) == 0);
    }
    case FBE_IR_STRUCT: return same_struct(wt->struct_type, w, rt->struct_type, r);
    case FBE_IR_OPTIONAL:
        if (wt->elem->kind == FBE_IR_STRUCT || rt->elem->kind == FBE_IR_STRUCT) {
            if (wt->elem->kind != rt->elem->kind)
                return false;
            const uint8_t *pa, *pb;
            memcpy(&pa, w, sizeof pa);
            memcpy(&pb, r, sizeof pb);
            if (!pa || !pb)
                return !pa == !pb;
            return same_struct(wt->elem->struct_type, pa, rt->elem->struct_type, pb);
        }
        if (w[0] != r[0])
            return false;
        return !w[0] ||
               same_value(wt->elem, w + wt->host_value_offset, rt->elem, r + rt->host_value_offset);
    case FBE_IR_ARRAY:
        if (wt->array_len != rt->array_len)
            return false;
        for (uint32_t i = 0; i < wt->array_len; i++)
            if (!same_value(wt->elem, w + i * wt->elem->host_size, rt->elem,
                            r + i * rt->elem->host_size))
                return false;
        return true;
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET: {
        const fbe_seq *a = (const fbe_seq *)w, *b = (const fbe_seq *)r;
        if (a->size != b->size)
            return false;
        for (size_t i = 0; i < a->size; i++)
            if (!same_value(wt->elem, (const uint8_t *)a->data + i * wt->elem->host_size, rt->elem,
                            (const uint8_t *)b->data + i * rt->elem->host_size))
                return false;
        return true;
    }
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        const fbe_seq *a = (const fbe_seq *)w, *b = (const fbe_seq *)r;
        if (a->size != b->size)
            return false;
        for (size_t i = 0; i < a->size; i++) {
            const uint8_t *ea = (const uint8_t *)a->data + i * wt->host_entry_size;
            const uint8_t *eb = (const uint8_t *)b->data + i * rt->host_entry_size;
            if (!same_value(wt->key, ea, rt->key, eb) ||
                !same_value(wt->elem, ea + wt->host_entry_value_offset, rt->elem,
                            eb + rt->host_entry_value_offset))
                return false;
        }
        return true;
    }
    default:
        return wt->host_size == rt->host_size && memcmp(w, r, wt->host_size) == 0;
    }
}

static bool same_struct(const fbe_ir_struct *ws, const uint8_t *w, const fbe_ir_struct *rs,
                        const uint8_t *r)
{
    for (size_t i = 0; i < ws->field_count; i++) {
        const fbe_ir_field *wf = &ws->fields[i];
        const fbe_ir_field *rf = fbe_field_by_name(rs, wf->name);
        if (rf && !same_value(wf->type, w + wf->host_offset, rf->type, r + rf->host_offset))
            return false;
    }
    return true;
}

/* Declared values in enums (gen_value picks any number of the base), so that a
 * value whose number changed shows under its name. Set elements and map keys
 * too: deserialize keeps the wire order and duplicates (docs/codec.md). */
static void declared_in_struct(const fbe_ir_struct *st, uint8_t *v, uint64_t *rng,
                               unsigned depth);

static void declared_in(const fbe_ir_type *t, uint8_t *p, uint64_t *rng, unsigned depth)
{
    switch (t->kind) {
    case FBE_IR_ENUM:
        if (t->enum_type->value_count) {
            const fbe_ir_enum *e = t->enum_type;
            uint64_t x = e->values[gen_rand(rng) % e->value_count].value;
            memcpy(p, &x, t->host_size);
        }
        break;
    case FBE_IR_STRUCT: declared_in_struct(t->struct_type, p, rng, depth + 1); break;
    case FBE_IR_OPTIONAL:
        if (t->elem->kind == FBE_IR_STRUCT) {
            uint8_t *q;
            memcpy(&q, p, sizeof q);
            if (q)
                declared_in_struct(t->elem->struct_type, q, rng, depth + 1);
        } else if (p[0]) {
            declared_in(t->elem, p + t->host_value_offset, rng, depth);
        }
        break;
    case FBE_IR_ARRAY:
        for (uint32_t k = 0; k < t->array_len; k++)
            declared_in(t->elem, p + k * t->elem->host_size, rng, depth);
        break;
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET: {
        fbe_seq *seq = (fbe_seq *)p;
        for (size_t k = 0; k < seq->size; k++)
            declared_in(t->elem, (uint8_t *)seq->data + k * t->elem->host_size, rng, depth);
        break;
    }
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        fbe_seq *seq = (fbe_seq *)p;
        for (size_t k = 0; k < seq->size; k++) {
            uint8_t *entry = (uint8_t *)seq->data + k * t->host_entry_size;
            declared_in(t->key, entry, rng, depth);
            declared_in(t->elem, entry + t->host_entry_value_offset, rng, depth);
        }
        break;
    }
    default: break;
    }
}

static void declared_in_struct(const fbe_ir_struct *st, uint8_t *v, uint64_t *rng,
                               unsigned depth)
{
    if (depth > GEN_MAX_DEPTH + 1)
        return;
    for (size_t i = 0; i < st->field_count; i++)
        declared_in(st->fields[i].type, v + st->fields[i].host_offset, rng, depth);
}

/* ---- writing with one version, reading with the other --------------------------- */

typedef struct side {
    fbe_schema *schema;
    fbe_codec *codec;
} side;

static void side_free(side *s)
{
    fbe_codec_free(s->codec);
    fbe_schema_free(s->schema);
}

static void *host_alloc(const fbe_ir_struct *st)
{
    void *p = aligned_alloc(16, (st->host_size + 15) / 16 * 16);
    assert_non_null(p);
    return p;
}

/* Writes `value` (a ws) and reads it as rs: true when it decodes and keeps every
 * field both know. */
static bool round_trip(const side *w, const fbe_ir_struct *ws, const void *value, const side *r,
                       const fbe_ir_struct *rs, fbe_status *status)
{
    fbe_buffer out;
    fbe_buffer_init(&out, NULL, NULL);
    assert_int_equal(fbe_serialize(fbe_codec_type_of(w->codec, ws), FBE_STANDARD, value, &out),
                     FBE_OK);
    void *got = host_alloc(rs);
    fbe_arena arena;
    fbe_arena_init(&arena, NULL, NULL);
    fbe_decode_options opts = {.arena = &arena};
    *status = fbe_deserialize(fbe_codec_type_of(r->codec, rs), FBE_STANDARD, out.data, out.size,
                              got, &opts, NULL);
    bool ok = *status == FBE_OK && same_struct(ws, value, rs, got);
    fbe_arena_free(&arena);
    free(got);
    fbe_buffer_free(&out);
    return ok;
}

static fbe_schema *load_path(const char *path);

/* ---- random single edits of the shared schemas ------------------------------------ */

/* A schema's text as lines, edited one line at a time: the shared schemas
 * declare one field and one enum value per line. */
typedef struct lines {
    char *line[1024];
    size_t count;
} lines;

static void lines_split(lines *ls, const char *text)
{
    ls->count = 0;
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        assert_true(ls->count < 1024);
        ls->line[ls->count] = malloc(len + 1);
        memcpy(ls->line[ls->count], p, len);
        ls->line[ls->count][len] = '\0';
        ls->count++;
        p += len + (nl ? 1 : 0);
    }
}

static void lines_free(lines *ls)
{
    for (size_t i = 0; i < ls->count; i++)
        free(ls->line[i]);
    ls->count = 0;
}

static char *lines_join(const lines *ls)
{
    size_t n = 1;
    for (size_t i = 0; i < ls->count; i++)
        n += strlen(ls->line[i]) + 1;
    char *s = malloc(n), *q = s;
    for (size_t i = 0; i < ls->count; i++)
        q += sprintf(q, "%s\n", ls->line[i]);
    *q = '\0';
    return s;
}

static void lines_insert(lines *ls, size_t at, const char *text)
{
    assert_true(ls->count < 1024);
    memmove(&ls->line[at + 1], &ls->line[at], (ls->count - at) * sizeof(char *));
    ls->line[at] = strdup(text);
    ls->count++;
}

static void lines_delete(lines *ls, size_t at)
{
    free(ls->line[at]);
    memmove(&ls->line[at], &ls->line[at + 1], (ls->count - at - 1) * sizeof(char *));
    ls->count--;
}

static void lines_set(lines *ls, size_t at, const char *text)
{
    free(ls->line[at]);
    ls->line[at] = strdup(text);
}

/* The line of the '}' closing the declaration whose name is on line `from`. */
static size_t closing_line(const lines *ls, size_t from)
{
    for (size_t i = from; i < ls->count; i++)
        if (strcmp(ls->line[i], "}") == 0)
            return i;
    return SIZE_MAX;
}

typedef enum edit_kind {
    APPEND_FIELD, REMOVE_FIELD, SWAP_FIELDS, RETYPE_FIELD, RENAME_FIELD, OPTIONAL_FIELD,
    RENUMBER_STRUCT, APPEND_ENUM_VALUE, INSERT_ENUM_VALUE, REMOVE_ENUM_VALUE, EDIT_KINDS
} edit_kind;

static const char *const edit_names[EDIT_KINDS] = {
    "append field", "remove field", "swap fields", "retype field", "rename field",
    "make field optional", "renumber struct", "append enum value", "insert enum value first",
    "remove enum value"};

/* Applies one edit of `kind` to a random declaration of the root package; false
 * when the package has nothing it applies to. *what describes it. */
static bool apply_edit(lines *ls, const fbe_ir_package *pkg, edit_kind kind, uint64_t *rng,
                       char *what, size_t what_size)
{
    static const char *const types[] = {"int32", "int64", "uint32", "double", "string",
                                        "bool",  "int32?", "int32[]", "bytes", "byte"};
    if (kind >= APPEND_ENUM_VALUE) {
        if (!pkg->enum_count)
            return false;
        const fbe_ir_enum *e = pkg->enums[gen_rand(rng) % pkg->enum_count];
        size_t open = e->loc.line; /* the line after the name holds '{' */
        size_t close = closing_line(ls, e->loc.line - 1);
        if (close == SIZE_MAX || strcmp(ls->line[open], "{") != 0)
            return false;
        snprintf(what, what_size, "%s of enum %s", edit_names[kind], e->name);
        if (kind == APPEND_ENUM_VALUE)
            lines_insert(ls, close, "    ZZ_ADDED;");
        else if (kind == INSERT_ENUM_VALUE)
            lines_insert(ls, open + 1, "    ZZ_FIRST;");
        else if (close > open + 1)
            lines_delete(ls, open + 1 + gen_rand(rng) % (close - open - 1));
        else
            return false;
        return true;
    }
    if (!pkg->struct_count)
        return false;
    const fbe_ir_struct *st = pkg->structs[gen_rand(rng) % pkg->struct_count];
    size_t own = st->field_count - st->own_field_start;
    const fbe_ir_field *f = own ? &st->fields[st->own_field_start + gen_rand(rng) % own] : NULL;
    size_t fl = f ? f->loc.line - 1 : 0;
    char buf[256];
    snprintf(what, what_size, "%s of %s%s%s", edit_names[kind], st->name, f ? "." : "",
             f && kind != APPEND_FIELD && kind != RENUMBER_STRUCT ? f->name : "");
    switch (kind) {
    case APPEND_FIELD: {
        size_t close = closing_line(ls, st->loc.line - 1);
        if (close == SIZE_MAX)
            return false;
        lines_insert(ls, close, "    int32 zz_added = 7;");
        return true;
    }
    case REMOVE_FIELD:
        if (!f)
            return false;
        lines_delete(ls, fl);
        return true;
    case SWAP_FIELDS: {
        if (own < 2)
            return false;
        size_t i = st->own_field_start + gen_rand(rng) % (own - 1);
        size_t a = st->fields[i].loc.line - 1, b = st->fields[i + 1].loc.line - 1;
        char *t = ls->line[a];
        ls->line[a] = ls->line[b];
        ls->line[b] = t;
        snprintf(what, what_size, "swap fields %s.%s and %s", st->name, st->fields[i].name,
                 st->fields[i + 1].name);
        return true;
    }
    case RETYPE_FIELD: {
        if (!f)
            return false;
        const char *t = types[gen_rand(rng) % (sizeof types / sizeof *types)];
        snprintf(buf, sizeof buf, "    %s %s;", t, f->name);
        lines_set(ls, fl, buf);
        snprintf(what, what_size, "retype %s.%s to %s", st->name, f->name, t);
        return true;
    }
    case RENAME_FIELD:
    case OPTIONAL_FIELD: {
        if (!f)
            return false;
        const char *line = ls->line[fl];
        size_t at = f->loc.col - 1, n = strlen(f->name);
        if (kind == RENAME_FIELD)
            snprintf(buf, sizeof buf, "%.*s_renamed%s", (int)(at + n), line, line + at + n);
        else /* T name -> T? name */
            snprintf(buf, sizeof buf, "%.*s?%s", (int)(at - 1), line, line + at - 1);
        lines_set(ls, fl, buf);
        return true;
    }
    case RENUMBER_STRUCT: {
        const char *line = ls->line[st->loc.line - 1];
        const char *open = strchr(line, '(');
        if (!open || open[1] < '0' || open[1] > '9')
            return false;
        snprintf(buf, sizeof buf, "%.*s(%ld%s", (int)(open - line), line,
                 strtol(open + 1, NULL, 10) + 1000, strchr(open, ')'));
        lines_set(ls, st->loc.line - 1, buf);
        return true;
    }
    default:
        return false;
    }
}

typedef struct tally {
    unsigned edits, skipped, pairs;
    unsigned compatible, compatible_ok;   /* directions called compatible, confirmed */
    unsigned errors, errors_shown;        /* directions called broken, demonstrated */
    unsigned wrong;                       /* called compatible, but a value broke */
} tally;

/* Every type of the root packages that both versions have, both directions. */
static void check_edit(const side *o, const side *n, const char *what, unsigned values,
                       uint64_t *rng, tally *t)
{
    const fbe_ir_package *op = fbe_schema_root(o->schema), *np = fbe_schema_root(n->schema);
    for (size_t i = 0; i < np->struct_count; i++) {
        const fbe_ir_struct *ns = np->structs[i], *os = NULL;
        for (size_t j = 0; j < op->struct_count; j++)
            if (strcmp(op->structs[j]->name, ns->name) == 0)
                os = op->structs[j];
        if (!os)
            continue;
        const char *types[] = {ns->name};
        fbe_compat_options opt = {.model = FBE_COMPAT_STANDARD, .types = types, .type_count = 1};
        fbe_compat_result res;
        assert_true(fbe_compat_compare(o->schema, n->schema, &opt, &res, NULL));
        t->pairs++;
        for (int d = 0; d < 2; d++) {
            /* d 0: old writer, new reader; d 1: new writer, old reader */
            const side *w = d ? n : o, *r = d ? o : n;
            const fbe_ir_struct *ws = d ? ns : os, *rs = d ? os : ns;
            bool broken = res.breaks & (d ? FBE_COMPAT_OLD_READER : FBE_COMPAT_NEW_READER);
            unsigned shown = 0;
            fbe_status st = FBE_OK;
            /* a break may need a particular value: try harder before giving up */
            unsigned tries = broken ? 48 : values;
            for (unsigned k = 0; k < tries; k++) {
                fbe_arena gen;
                fbe_arena_init(&gen, NULL, NULL);
                void *v = host_alloc(ws);
                gen_value(ws, v, &gen, rng, 0);
                declared_in_struct(ws, v, rng, 0);
                if (!round_trip(w, ws, v, r, rs, &st))
                    shown++;
                free(v);
                fbe_arena_free(&gen);
                if (shown && broken)
                    break;
            }
            if (broken) {
                t->errors++;
                if (shown)
                    t->errors_shown++;
                else
                    print_message("not shown: %s, %s %s: %s\n", what, ns->name,
                                  d ? "new writer/old reader" : "old writer/new reader",
                                  res.count ? res.findings[0].message : "");
            } else {
                t->compatible++;
                if (shown) {
                    t->wrong++;
                    print_error("WRONG: %s: %s called compatible (%s), but %u of %u values "
                                "broke (status %s)\n",
                                what, ns->name,
                                d ? "new writer/old reader" : "old writer/new reader", shown,
                                tries, fbe_status_name(st));
                } else {
                    t->compatible_ok++;
                }
            }
        }
        fbe_compat_result_free(&res);
    }
}

static void test_random_edits(void **state)
{
    (void)state;
    static const char *const schemas[] = {"proto", "protoex", "enums", "test"};
    const unsigned edits_per_schema = FBE_TEST_SANITIZED ? 25 : 100;
    const unsigned values = FBE_TEST_SANITIZED ? 4 : 12;
    uint64_t rng = 16;
    tally t = {0};
    for (size_t s = 0; s < sizeof schemas / sizeof *schemas; s++) {
        char rel[128];
        snprintf(rel, sizeof rel, "golden/schemas/%s.fbe", schemas[s]);
        char path[1024];
        snprintf(path, sizeof path, "%s", shared_path(rel));
        size_t len;
        char *text = (char *)read_file(path, &len);
        side o = {load_path(path), NULL};
        o.codec = fbe_interp_create(o.schema, NULL, NULL);
        assert_non_null(o.codec);
        for (unsigned e = 0; e < edits_per_schema; e++) {
            lines ls;
            lines_split(&ls, text);
            char what[256];
            edit_kind kind = (edit_kind)(gen_rand(&rng) % EDIT_KINDS);
            if (!apply_edit(&ls, fbe_schema_root(o.schema), kind, &rng, what, sizeof what)) {
                lines_free(&ls);
                t.skipped++;
                continue;
            }
            char *edited = lines_join(&ls);
            lines_free(&ls);
            /* beside the original, so its imports resolve the same way */
            diag_capture cap = {0};
            fbe_schema_options opts = {.sink = diag_capture_sink, .sink_ctx = &cap};
            side n = {fbe_schema_load_string(path, edited, strlen(edited), &opts, NULL), NULL};
            free(edited);
            if (!n.schema) { /* e.g. a removed value another value refers to */
                t.skipped++;
                continue;
            }
            n.codec = fbe_interp_create(n.schema, NULL, NULL);
            assert_non_null(n.codec);
            t.edits++;
            char full[300];
            snprintf(full, sizeof full, "%s: %s", schemas[s], what);
            check_edit(&o, &n, full, values, &rng, &t);
            side_free(&n);
        }
        side_free(&o);
        free(text);
    }
    print_message("random edits: %u applied (%u skipped), %u type pairs; directions called "
                  "compatible %u (confirmed %u, broken %u), called broken %u (demonstrated "
                  "%u)\n",
                  t.edits, t.skipped, t.pairs, t.compatible, t.compatible_ok, t.wrong, t.errors,
                  t.errors_shown);
    assert_int_equal(t.wrong, 0);
    assert_true(t.edits >= (FBE_TEST_SANITIZED ? 50u : 250u));
    assert_int_equal(t.errors_shown, t.errors);
}

/* ---- the shared versioning cases ------------------------------------------------- */

static fbe_schema *load_path(const char *path)
{
    unsigned errors = 0;
    fbe_schema *s = fbe_schema_load(path, NULL, &errors);
    assert_non_null(s);
    return s;
}

static void test_golden_versioning(void **state)
{
    (void)state;
    side proto = {load_path(shared_path("golden/schemas/proto.fbe")), NULL};
    side protoex = {load_path(shared_path("golden/schemas/protoex.fbe")), NULL};
    proto.codec = fbe_interp_create(proto.schema, NULL, NULL);
    protoex.codec = fbe_interp_create(protoex.schema, NULL, NULL);
    assert_non_null(proto.codec);
    assert_non_null(protoex.codec);

    FILE *m = fopen(shared_path("golden/MANIFEST.tsv"), "r");
    assert_non_null(m);
    char line[4096];
    int cases = 0;
    while (fgets(line, sizeof line, m)) {
        if (line[0] == '#' || !strstr(line, "versioning/"))
            continue;
        char schema[64], pkg[64], type[64], name[128];
        assert_int_equal(sscanf(line, "%63s %63s %63s %127s", schema, pkg, type, name), 4);
        bool forward = strncmp(name, "proto_to_protoex_", 17) == 0;
        /* OLD is proto, NEW is protoex, whatever the direction of the bytes */
        const char *types[] = {type};
        fbe_compat_options opt = {.model = FBE_COMPAT_STANDARD, .types = types, .type_count = 1};
        fbe_compat_result res;
        assert_true(fbe_compat_compare(proto.schema, protoex.schema, &opt, &res, NULL));
        unsigned direction = forward ? FBE_COMPAT_NEW_READER : FBE_COMPAT_OLD_READER;
        if (res.breaks & direction)
            fail_msg("%s: compat says the direction breaks", name);
        assert_int_equal(res.errors, 0);
        fbe_compat_result_free(&res);

        /* the bytes read as the reference's reader read them */
        const side *reader = forward ? &protoex : &proto;
        char full[160], path[256];
        snprintf(full, sizeof full, "%s.%s", forward ? "protoex" : "proto", type);
        const fbe_ir_struct *rs = fbe_schema_find_struct(reader->schema, full);
        assert_non_null(rs);
        snprintf(path, sizeof path, "golden/versioning/%s.bin", name);
        size_t len, tlen;
        uint8_t *bin = read_file(shared_path(path), &len);
        snprintf(path, sizeof path, "golden/versioning/%s.txt", name);
        uint8_t *txt = read_file(shared_path(path), &tlen);
        const fbe_type *t = fbe_codec_type_of(reader->codec, rs);
        assert_int_equal(fbe_verify(t, FBE_STANDARD, bin, len, NULL), FBE_OK);
        void *value = host_alloc(rs);
        fbe_arena arena;
        fbe_arena_init(&arena, NULL, NULL);
        fbe_decode_options dopt = {.arena = &arena};
        size_t consumed = 0;
        assert_int_equal(fbe_deserialize(t, FBE_STANDARD, bin, len, value, &dopt, &consumed),
                         FBE_OK);
        assert_int_equal(consumed, len);
        fbe_buffer text;
        fbe_buffer_init(&text, NULL, NULL);
        assert_int_equal(fbe_print(rs, value, &text), FBE_OK);
        if (text.size != tlen || memcmp(text.data, txt, tlen) != 0)
            fail_msg("%s: read as\n%.*s\nthe reference read\n%.*s", name, (int)text.size,
                     (const char *)text.data, (int)tlen, (const char *)txt);
        fbe_buffer_free(&text);
        fbe_arena_free(&arena);
        free(value);
        free(bin);
        free(txt);
        cases++;
    }
    fclose(m);
    print_message("versioning cases: %d, each compatible in its direction and read as the "
                  "reference read it\n", cases);
    assert_int_equal(cases, 26);
    side_free(&proto);
    side_free(&protoex);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_versioning),
        cmocka_unit_test(test_random_edits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
