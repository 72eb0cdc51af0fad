#define _POSIX_C_SOURCE 200809L
#include "golden_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static const char *const golden_names[4] = {"enums", "proto", "protoex", "test"};

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

const char *golden_row_file(const golden_row *row, const char *suffix)
{
    for (size_t i = 0; i < row->file_count; i++) {
        const char *f = row->files[i];
        if (!ends_with(f, suffix))
            continue;
        if (strcmp(suffix, ".bin") == 0 && ends_with(f, ".final.bin"))
            continue;
        if (strcmp(suffix, ".txt") == 0 &&
            (ends_with(f, ".src.txt") || ends_with(f, ".std_readback.txt")))
            continue;
        return f;
    }
    return NULL;
}

uint8_t *golden_read(const char *rel, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "golden/%s", rel);
    return read_file(shared_path(path), len);
}

/* Copies the next tab-separated field of *p into out. */
static void next_field(char **p, char *out, size_t size)
{
    char *s = *p;
    char *tab = strchr(s, '\t');
    size_t n = tab ? (size_t)(tab - s) : strlen(s);
    if (n >= size)
        n = size - 1;
    memcpy(out, s, n);
    out[n] = 0;
    *p = tab ? tab + 1 : s + strlen(s);
}

size_t golden_manifest(golden_row **rows)
{
    size_t len = 0;
    char *text = (char *)golden_read("MANIFEST.tsv", &len);
    size_t cap = 256, count = 0;
    golden_row *out = calloc(cap, sizeof *out);
    assert_non_null(out);
    unsigned line_no = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        line_no++;
        size_t l = strlen(line);
        if (l && line[l - 1] == '\r')
            line[l - 1] = 0;
        if (line[0] == '#' || line[0] == 0)
            continue;
        if (count == cap) {
            cap *= 2;
            out = realloc(out, cap * sizeof *out);
            assert_non_null(out);
        }
        golden_row *r = &out[count];
        memset(r, 0, sizeof *r);
        r->line = line_no;
        char *p = line;
        char files[GOLDEN_MAX_FILES * 160];
        next_field(&p, r->schema, sizeof r->schema);
        next_field(&p, r->package, sizeof r->package);
        next_field(&p, r->type, sizeof r->type);
        next_field(&p, r->name, sizeof r->name);
        next_field(&p, files, sizeof files);
        next_field(&p, r->note, sizeof r->note);
        if (!r->schema[0] || !r->package[0] || !r->type[0] || !r->name[0] || !files[0])
            fail_msg("MANIFEST.tsv:%u: malformed row", line_no);
        char *fsave = NULL;
        for (char *f = strtok_r(files, ",", &fsave); f; f = strtok_r(NULL, ",", &fsave)) {
            if (r->file_count == GOLDEN_MAX_FILES)
                fail_msg("MANIFEST.tsv:%u: too many files", line_no);
            snprintf(r->files[r->file_count++], sizeof r->files[0], "%s", f);
        }
        if (strcmp(r->type, "protocol") == 0)
            r->kind = GOLDEN_PROTOCOL;
        else if (strchr(r->package, '>'))
            r->kind = GOLDEN_VERSIONING;
        else
            r->kind = GOLDEN_CASE;
        count++;
    }
    free(text);
    *rows = out;
    return count;
}

void golden_env_load(golden_env *env)
{
    memset(env, 0, sizeof *env);
    for (int i = 0; i < 4; i++) {
        env->schema[i] = load_golden(golden_names[i]);
        assert_non_null(env->schema[i]);
        fbe_status st = FBE_OK;
        env->codec[i] = fbe_interp_create(env->schema[i], NULL, &st);
        if (!env->codec[i])
            fail_msg("fbe_interp_create(%s.fbe) failed: %s", golden_names[i],
                     fbe_status_name(st));
    }
}

void golden_env_free(golden_env *env)
{
    for (int i = 0; i < 4; i++) {
        fbe_codec_free(env->codec[i]);
        fbe_schema_free(env->schema[i]);
    }
    memset(env, 0, sizeof *env);
}

static int golden_index(const char *schema)
{
    size_t n = strcspn(schema, ".,>");
    for (int i = 0; i < 4; i++)
        if (strlen(golden_names[i]) == n && strncmp(schema, golden_names[i], n) == 0)
            return i;
    return -1;
}

fbe_codec *golden_codec(const golden_env *env, const char *schema)
{
    int i = golden_index(schema);
    return i < 0 ? NULL : env->codec[i];
}

const fbe_schema *golden_schema(const golden_env *env, const char *schema)
{
    int i = golden_index(schema);
    return i < 0 ? NULL : env->schema[i];
}

void golden_failf(golden_report *r, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (r->count == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->lines = realloc(r->lines, r->cap * sizeof *r->lines);
        assert_non_null(r->lines);
    }
    r->lines[r->count] = strdup(buf);
    assert_non_null(r->lines[r->count]);
    r->count++;
}

size_t golden_report_flush(golden_report *r, const char *group)
{
    size_t n = r->count;
    for (size_t i = 0; i < n; i++) {
        fprintf(stderr, "FAIL [%s] %s\n", group, r->lines[i]);
        free(r->lines[i]);
    }
    free(r->lines);
    memset(r, 0, sizeof *r);
    return n;
}

const char *golden_status_text(fbe_status st, const fbe_verify_info *info, char *buf,
                               size_t size)
{
    if (st == FBE_OK || !info) {
        snprintf(buf, size, "%s", fbe_status_name(st));
    } else {
        snprintf(buf, size, "%s at byte %zu%s%s%s%s", fbe_status_name(st), info->offset,
                 info->type ? " in " : "", info->type ? info->type->full_name : "",
                 info->field ? "." : "", info->field ? info->field->name : "");
    }
    return buf;
}

static size_t excerpt(const uint8_t *p, size_t len, size_t at, bool text, char *out,
                      size_t size)
{
    size_t from = at > 24 ? at - 24 : 0;
    size_t to = at + 40 < len ? at + 40 : len;
    size_t o = 0;
    if (size == 0)
        return 0;
    out[0] = 0;
    for (size_t i = from; i < to && o + 8 < size; i++) {
        int n;
        if (!text)
            n = snprintf(out + o, size - o, "%s%02x", i == at ? "[" : (i == from ? "" : " "),
                         p[i]);
        else if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
            n = snprintf(out + o, size - o, "%s%c", i == at ? "[" : "", p[i]);
        else
            n = snprintf(out + o, size - o, "%s\\x%02x", i == at ? "[" : "", p[i]);
        if (n < 0)
            break;
        o += (size_t)n;
        if (i == at && o + 2 < size) {
            out[o++] = ']';
            out[o] = 0;
        }
    }
    return o;
}

bool golden_same_bytes(const uint8_t *want, size_t want_len, const uint8_t *got,
                       size_t got_len, bool text, char *msg, size_t msg_size)
{
    size_t n = want_len < got_len ? want_len : got_len;
    size_t i = 0;
    while (i < n && want[i] == got[i])
        i++;
    if (i == n && want_len == got_len)
        return true;
    char w[512], g[512];
    excerpt(want, want_len, i, text, w, sizeof w);
    excerpt(got, got_len, i, text, g, sizeof g);
    snprintf(msg, msg_size, "expected %zu bytes, got %zu; first difference at byte %zu\n"
             "        expected: %s\n        got:      %s",
             want_len, got_len, i, w, g);
    return false;
}

/* ---- tracked arenas ------------------------------------------------------------------ */

void *golden_track_alloc(void *ctx, void *ptr, size_t size)
{
    golden_tracker *t = ctx;
    size_t idx = SIZE_MAX;
    if (ptr)
        for (size_t i = 0; i < t->count; i++)
            if (t->r[i].p == (uintptr_t)ptr)
                idx = i;
    if (size == 0) {
        if (idx != SIZE_MAX)
            t->r[idx] = t->r[--t->count];
        free(ptr);
        return NULL;
    }
    void *q = realloc(ptr, size);
    if (!q)
        return NULL;
    if (idx != SIZE_MAX) {
        t->r[idx] = (golden_range){(uintptr_t)q, size};
        return q;
    }
    if (t->count == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        golden_range *r = realloc(t->r, cap * sizeof *r);
        if (!r) {
            free(q);
            return NULL;
        }
        t->r = r;
        t->cap = cap;
    }
    t->r[t->count++] = (golden_range){(uintptr_t)q, size};
    return q;
}

void golden_tracker_free(golden_tracker *t)
{
    free(t->r);
    memset(t, 0, sizeof *t);
}

bool golden_in_range(golden_range r, const void *ptr, size_t n)
{
    uintptr_t p = (uintptr_t)ptr;
    return r.n && p >= r.p && n <= r.n && p - r.p <= r.n - n;
}

bool golden_tracked(const golden_tracker *t, const void *ptr, size_t n)
{
    if (!t || n == 0)
        return true;
    if (golden_in_range(t->extra, ptr, n))
        return true;
    for (size_t i = 0; i < t->count; i++)
        if (golden_in_range(t->r[i], ptr, n))
            return true;
    return false;
}

/* ---- value safety ------------------------------------------------------------------- */

/* The path is kept as a stack of names / indices and only spelled out when a
 * problem is reported (this walk runs after every decode of the mutation test). */
#define SAFE_PATH_MAX 256

typedef struct safe_ctx {
    const golden_tracker *t;
    const char *names[SAFE_PATH_MAX]; /* NULL: an index */
    size_t index[SAFE_PATH_MAX];
    size_t sp;
    char *msg;
    size_t msg_size;
    unsigned depth;
} safe_ctx;

static size_t safe_push(safe_ctx *c, const char *name, size_t index)
{
    if (c->sp < SAFE_PATH_MAX) {
        c->names[c->sp] = name;
        c->index[c->sp] = index;
    }
    return c->sp++;
}

static void safe_pop(safe_ctx *c, size_t old)
{
    c->sp = old;
}

static bool unsafe(safe_ctx *c, const char *what)
{
    char path[1024];
    size_t o = 0;
    path[0] = 0;
    for (size_t i = 0; i < c->sp && i < SAFE_PATH_MAX && o + 1 < sizeof path; i++) {
        int n = c->names[i] ? snprintf(path + o, sizeof path - o, ".%s", c->names[i])
                            : snprintf(path + o, sizeof path - o, "[%zu]", c->index[i]);
        if (n < 0)
            break;
        o = o + (size_t)n < sizeof path ? o + (size_t)n : sizeof path - 1;
    }
    snprintf(c->msg, c->msg_size, "%s: %s", o ? path : "(root)", what);
    return false;
}

static bool safe_struct(safe_ctx *c, const fbe_ir_struct *st, const uint8_t *v);

/* A string or bytes view that is the field's schema default (deserialize applies
 * defaults to fields an older writer did not have; they point to the schema). */
bool golden_is_default_view(const fbe_ir_value *dflt, const void *data, size_t size)
{
    return dflt && dflt->kind == FBE_IR_VALUE_STRING && data == (const void *)dflt->str.data &&
           size == dflt->str.size;
}

static bool safe_type(safe_ctx *c, const fbe_ir_type *t, const uint8_t *p,
                      const fbe_ir_value *dflt)
{
    char what[160];
    switch (t->kind) {
    case FBE_IR_BOOL:
        if (p[0] > 1) {
            snprintf(what, sizeof what, "bool byte is 0x%02x (not written?)", p[0]);
            return unsafe(c, what);
        }
        return true;
    case FBE_IR_STRING:
    case FBE_IR_BYTES: {
        fbe_string s;
        memcpy(&s, p, sizeof s);
        if (s.size && !golden_tracked(c->t, s.data, s.size) &&
            !golden_is_default_view(dflt, s.data, s.size)) {
            snprintf(what, sizeof what, "%zu bytes at %p: not inside the arena or the input",
                     s.size, (const void *)s.data);
            return unsafe(c, what);
        }
        return true;
    }
    case FBE_IR_STRUCT:
        return safe_struct(c, t->struct_type, p);
    case FBE_IR_OPTIONAL:
        if (t->elem->kind == FBE_IR_STRUCT) {
            const uint8_t *q;
            memcpy(&q, p, sizeof q);
            if (!q)
                return true;
            if (!golden_tracked(c->t, q, t->elem->struct_type->host_size)) {
                snprintf(what, sizeof what, "struct pointer %p not inside the arena",
                         (const void *)q);
                return unsafe(c, what);
            }
            return safe_struct(c, t->elem->struct_type, q);
        }
        if (p[0] > 1) {
            snprintf(what, sizeof what, "has_value byte is 0x%02x (not written?)", p[0]);
            return unsafe(c, what);
        }
        return p[0] ? safe_type(c, t->elem, p + t->host_value_offset, dflt) : true;
    case FBE_IR_ARRAY:
        for (uint32_t i = 0; i < t->array_len; i++) {
            size_t old = safe_push(c, NULL, i);
            bool ok = safe_type(c, t->elem, p + (size_t)i * t->elem->host_size, NULL);
            safe_pop(c, old);
            if (!ok)
                return false;
        }
        return true;
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        fbe_seq s;
        memcpy(&s, p, sizeof s);
        if (!s.size)
            return true;
        bool is_map = t->kind == FBE_IR_MAP || t->kind == FBE_IR_HASH;
        size_t stride = is_map ? t->host_entry_size : t->elem->host_size;
        if ((stride && s.size > SIZE_MAX / stride) ||
            !golden_tracked(c->t, s.data, s.size * stride)) {
            snprintf(what, sizeof what, "%zu elements at %p: not inside the arena", s.size,
                     s.data);
            return unsafe(c, what);
        }
        const uint8_t *e = s.data;
        for (size_t i = 0; i < s.size; i++) {
            size_t old = safe_push(c, NULL, i);
            bool ok = is_map ? safe_type(c, t->key, e + i * stride, NULL) &&
                                   safe_type(c, t->elem, e + i * stride + t->host_entry_value_offset,
                                             NULL)
                             : safe_type(c, t->elem, e + i * stride, NULL);
            safe_pop(c, old);
            if (!ok)
                return false;
        }
        return true;
    }
    default:
        return true;
    }
}

static bool safe_struct(safe_ctx *c, const fbe_ir_struct *st, const uint8_t *v)
{
    if (++c->depth > 1000) {
        c->depth--;
        return unsafe(c, "more than 1000 nested structs (pointer cycle?)");
    }
    bool ok = true;
    for (size_t i = 0; i < st->field_count && ok; i++) {
        const fbe_ir_field *f = &st->fields[i];
        size_t old = safe_push(c, f->name, 0);
        ok = safe_type(c, f->type, v + f->host_offset, &f->default_value);
        safe_pop(c, old);
    }
    c->depth--;
    return ok;
}

bool golden_value_safe(const fbe_ir_struct *type, const void *value, const golden_tracker *t,
                       char *msg, size_t msg_size)
{
    safe_ctx c;
    memset(&c, 0, sizeof c);
    c.t = t;
    c.msg = msg;
    c.msg_size = msg_size;
    return safe_struct(&c, type, value);
}
