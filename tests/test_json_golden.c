/* JSON against the golden vectors of ../shared/golden (the reference's
 * rapidjson output, golden/README.md "JSON form").
 *
 * For every case with a .json:
 *   write   decode .bin (and .final.bin), write JSON: the document must equal
 *           .json (same structure, numbers equal, decimal strings equal as
 *           numbers); byte-identity is counted and every other byte difference
 *           is printed with its reason;
 *   read    read .json, serialize: exactly .bin and .final.bin;
 *   ours    our own JSON (compact and pretty) reads back to the same bytes, and
 *           writing it again gives the same text.
 * StructHashEx has no .json (quirk 4): only our own round trip is checked. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fbe/json.h"
#include "golden_common.h"
#include "json_internal.h"
#include "test_util.h"

typedef struct counts {
    unsigned cases, json_equal, byte_identical, decimal_only, other_diff;
    unsigned enc_std, enc_final, enc_flagged, own_roundtrip, own_cases;
    unsigned hashex;
} counts;

static bool is_num(const fbe_jnode *n)
{
    return n->type == FBE_JN_INT64 || n->type == FBE_JN_UINT64 || n->type == FBE_JN_DOUBLE;
}

static double num(const fbe_jnode *n)
{
    return n->type == FBE_JN_INT64 ? (double)n->v.i
           : n->type == FBE_JN_UINT64 ? (double)n->v.u
                                      : n->v.d;
}

/* A string that is a whole number (decimal text). */
static bool str_number(const fbe_jnode *n, double *d)
{
    char buf[512];
    if (n->v.s.n == 0 || n->v.s.n >= sizeof buf)
        return false;
    memcpy(buf, n->v.s.p, n->v.s.n);
    buf[n->v.s.n] = 0;
    char *end;
    *d = strtod(buf, &end);
    return end == buf + n->v.s.n;
}

/* Structural equality; *decimal_text counts strings equal only as numbers. */
static bool jeq(const fbe_jnode *a, size_t ai, const fbe_jnode *b, size_t bi,
                unsigned *decimal_text, char *why, size_t why_size)
{
    const fbe_jnode *x = &a[ai], *y = &b[bi];
    if (is_num(x) && is_num(y)) {
        bool ints = x->type != FBE_JN_DOUBLE && y->type != FBE_JN_DOUBLE;
        bool same = ints ? (x->type == y->type && x->v.u == y->v.u) : num(x) == num(y);
        if (!same)
            snprintf(why, why_size, "numbers differ: %.17g vs %.17g", num(x), num(y));
        return same;
    }
    if (x->type != y->type) {
        snprintf(why, why_size, "JSON types differ (%d vs %d)", x->type, y->type);
        return false;
    }
    switch (x->type) {
    case FBE_JN_STRING: {
        if (x->v.s.n == y->v.s.n && memcmp(x->v.s.p, y->v.s.p, x->v.s.n) == 0)
            return true;
        double dx, dy;
        if (str_number(x, &dx) && str_number(y, &dy) && dx == dy) {
            (*decimal_text)++;
            return true;
        }
        snprintf(why, why_size, "strings differ: \"%.*s\" vs \"%.*s\"", (int)(x->v.s.n > 60 ? 60 : x->v.s.n),
                 x->v.s.p, (int)(y->v.s.n > 60 ? 60 : y->v.s.n), y->v.s.p);
        return false;
    }
    case FBE_JN_ARRAY:
    case FBE_JN_OBJECT: {
        if (x->count != y->count) {
            snprintf(why, why_size, "container sizes differ: %u vs %u", x->count, y->count);
            return false;
        }
        size_t i = ai + 1, j = bi + 1;
        for (uint32_t k = 0; k < x->count; k++) {
            if (x->type == FBE_JN_OBJECT) {
                if (!jeq(a, i, b, j, decimal_text, why, why_size))
                    return false;
                i++;
                j++;
            }
            if (!jeq(a, i, b, j, decimal_text, why, why_size))
                return false;
            i = a[i].next;
            j = b[j].next;
        }
        return true;
    }
    default:
        return true;
    }
}

/* Where two texts first differ, with some context. */
static void first_diff(const char *a, size_t na, const char *b, size_t nb, char *out, size_t size)
{
    size_t i = 0;
    while (i < na && i < nb && a[i] == b[i])
        i++;
    size_t from = i > 30 ? i - 30 : 0;
    size_t la = na - from > 60 ? 60 : na - from, lb = nb - from > 60 ? 60 : nb - from;
    snprintf(out, size, "at byte %zu: want ...%.*s... got ...%.*s...", i, (int)la, a + from,
             (int)lb, b + from);
}

typedef struct value {
    fbe_arena arena;
    void *v;
} value;

static void value_new(value *v, const fbe_ir_struct *ir)
{
    fbe_arena_init(&v->arena, NULL, NULL);
    v->v = fbe_arena_zalloc(&v->arena, ir->host_size ? ir->host_size : 1);
    assert_non_null(v->v);
}

static void value_free(value *v)
{
    fbe_arena_free(&v->arena);
}

static bool decode_bin(const fbe_type *t, fbe_model m, const uint8_t *bin, size_t n, value *v)
{
    value_new(v, t->ir);
    fbe_decode_options o = {.arena = &v->arena};
    return fbe_deserialize(t, m, bin, n, v->v, &o, NULL) == FBE_OK;
}

/* Reads JSON and serializes it in model m; compares with want. */
static bool encode_matches(fbe_json_reader *rd, const fbe_type *t, const char *json, size_t len,
                           fbe_model m, const uint8_t *want, size_t want_len, char *msg,
                           size_t msg_size)
{
    value v;
    value_new(&v, t->ir);
    fbe_json_read_options o = {.arena = &v.arena};
    fbe_json_error err;
    bool ok = false;
    if (fbe_json_read(rd, t->ir, json, len, v.v, &o, &err) != FBE_OK) {
        snprintf(msg, msg_size, "read failed: %s", err.message);
    } else {
        fbe_buffer out;
        fbe_buffer_init(&out, NULL, NULL);
        fbe_status st = fbe_serialize(t, m, v.v, &out);
        if (st != FBE_OK)
            snprintf(msg, msg_size, "serialize failed: %s", fbe_status_name(st));
        else
            ok = golden_same_bytes(want, want_len, out.data, out.size, false, msg, msg_size);
        fbe_buffer_free(&out);
    }
    value_free(&v);
    return ok;
}

static bool write_json(const fbe_type *t, const void *v, unsigned flags, fbe_buffer *out,
                       char *msg, size_t msg_size)
{
    fbe_buffer_init(out, NULL, NULL);
    fbe_json_error err;
    if (fbe_json_write(t->ir, v, flags, out, &err) != FBE_OK) {
        snprintf(msg, msg_size, "write failed: %s", err.message);
        return false;
    }
    return true;
}

/* Our JSON (compact and pretty) reads back to bin/fin, and re-writes to the same text. */
static bool own_roundtrip(fbe_json_reader *rd, const fbe_type *t, const void *v,
                          const uint8_t *bin, size_t nb, const uint8_t *fin, size_t nf,
                          char *msg, size_t msg_size)
{
    for (unsigned flags = 0; flags <= FBE_JSON_PRETTY; flags += FBE_JSON_PRETTY) {
        fbe_buffer js;
        if (!write_json(t, v, flags, &js, msg, msg_size)) {
            fbe_buffer_free(&js);
            return false;
        }
        bool ok = encode_matches(rd, t, (const char *)js.data, js.size, FBE_STANDARD, bin, nb,
                                 msg, msg_size) &&
                  encode_matches(rd, t, (const char *)js.data, js.size, FBE_FINAL, fin, nf, msg,
                                 msg_size);
        if (ok) {
            /* text -> value -> text is the identity */
            value w;
            value_new(&w, t->ir);
            fbe_json_read_options o = {.arena = &w.arena};
            fbe_json_error err;
            fbe_buffer again;
            fbe_buffer_init(&again, NULL, NULL);
            ok = fbe_json_read(rd, t->ir, (const char *)js.data, js.size, w.v, &o, &err) == FBE_OK &&
                 fbe_json_write(t->ir, w.v, flags, &again, &err) == FBE_OK &&
                 again.size == js.size && memcmp(again.data, js.data, js.size) == 0;
            if (!ok)
                snprintf(msg, msg_size, "%s JSON does not re-write identically",
                         flags ? "pretty" : "compact");
            fbe_buffer_free(&again);
            value_free(&w);
        }
        fbe_buffer_free(&js);
        if (!ok)
            return false;
    }
    return true;
}

static void golden_json(void **state)
{
    (void)state;
    golden_env env;
    golden_env_load(&env);
    golden_row *rows;
    size_t n = golden_manifest(&rows);
    golden_report rep = {0};
    counts c = {0};
    fbe_json_reader *rd = fbe_json_reader_new();
    fbe_jparser *pa = fbe_jparser_new(), *pb = fbe_jparser_new();
    assert_non_null(rd);
    char msg[4096], name[320], tname[160];

    for (size_t i = 0; i < n; i++) {
        const golden_row *row = &rows[i];
        if (row->kind != GOLDEN_CASE)
            continue;
        snprintf(name, sizeof name, "%s.%s/%s", row->package, row->type, row->name);
        snprintf(tname, sizeof tname, "%s.%s", row->package, row->type);
        const fbe_type *t = fbe_codec_type(golden_codec(&env, row->schema), tname);
        assert_non_null(t);
        size_t nb, nf, nj = 0;
        uint8_t *bin = golden_read(golden_row_file(row, ".bin"), &nb);
        uint8_t *fin = golden_read(golden_row_file(row, ".final.bin"), &nf);
        const char *fjson = golden_row_file(row, ".json");
        char *json = fjson ? (char *)golden_read(fjson, &nj) : NULL;

        value vs, vf;
        bool dec = decode_bin(t, FBE_STANDARD, bin, nb, &vs) && decode_bin(t, FBE_FINAL, fin, nf, &vf);
        if (!dec)
            golden_failf(&rep, "%s: binary decode failed", name);

        if (dec && json) {
            c.cases++;
            fbe_buffer ws, wf;
            bool wok = write_json(t, vs.v, 0, &ws, msg, sizeof msg);
            if (!wok)
                golden_failf(&rep, "%s: %s", name, msg);
            if (wok && write_json(t, vf.v, 0, &wf, msg, sizeof msg)) {
                if (wf.size != ws.size || memcmp(wf.data, ws.data, ws.size) != 0)
                    golden_failf(&rep, "%s: JSON of .bin and .final.bin differ", name);
            }
            fbe_buffer_free(&wf);
            if (wok) {
                const fbe_jnode *na, *nbn;
                size_t ca, cb;
                const char *m;
                assert_int_equal(fbe_jparser_parse(pa, json, nj, &na, &ca, &m), 0);
                int rc = fbe_jparser_parse(pb, (const char *)ws.data, ws.size, &nbn, &cb, &m);
                unsigned dtext = 0;
                char why[512] = "";
                if (rc != 0) {
                    golden_failf(&rep, "%s: our JSON does not parse: %s", name, m);
                } else if (!jeq(na, 0, nbn, 0, &dtext, why, sizeof why)) {
                    golden_failf(&rep, "%s: JSON not equal to .json: %s", name, why);
                } else {
                    c.json_equal++;
                    if (ws.size == nj && memcmp(ws.data, json, nj) == 0) {
                        c.byte_identical++;
                    } else {
                        first_diff(json, nj, (const char *)ws.data, ws.size, msg, sizeof msg);
                        if (dtext)
                            c.decimal_only++;
                        else
                            c.other_diff++;
                        printf("  byte difference %s (%s): %s\n", name,
                               dtext ? "decimal text: reference %f of a double" : "OTHER", msg);
                    }
                }
            }
            fbe_buffer_free(&ws);

            /* .json -> .bin / .final.bin */
            bool flagged = strstr(row->note, "json:") != NULL;
            if (flagged)
                c.enc_flagged++;
            if (encode_matches(rd, t, json, nj, FBE_STANDARD, bin, nb, msg, sizeof msg))
                c.enc_std++;
            else
                golden_failf(&rep, "%s: .json -> standard%s: %s", name, flagged ? " (flagged)" : "", msg);
            if (encode_matches(rd, t, json, nj, FBE_FINAL, fin, nf, msg, sizeof msg))
                c.enc_final++;
            else
                golden_failf(&rep, "%s: .json -> final%s: %s", name, flagged ? " (flagged)" : "", msg);
        }
        if (dec) {
            c.own_cases++;
            if (!json)
                c.hashex++;
            if (own_roundtrip(rd, t, vs.v, bin, nb, fin, nf, msg, sizeof msg))
                c.own_roundtrip++;
            else
                golden_failf(&rep, "%s: own JSON round trip: %s", name, msg);
        }
        if (dec) {
            value_free(&vs);
            value_free(&vf);
        }
        free(bin);
        free(fin);
        free(json);
    }
    printf("golden JSON: %u cases with .json\n", c.cases);
    printf("  write: equal to .json %u/%u, byte-identical %u/%u "
           "(%u differ only in decimal text, %u otherwise)\n",
           c.json_equal, c.cases, c.byte_identical, c.cases, c.decimal_only, c.other_diff);
    printf("  read:  .json -> .bin %u/%u, .json -> .final.bin %u/%u (%u of them flagged in "
           "MANIFEST for the reference's FLT_MAX rejection)\n",
           c.enc_std, c.cases, c.enc_final, c.cases, c.enc_flagged);
    printf("  own JSON (compact + pretty) -> .bin + .final.bin, rewrite identical: %u/%u "
           "(%u without .json: StructHashEx)\n",
           c.own_roundtrip, c.own_cases, c.hashex);
    fbe_jparser_free(pa);
    fbe_jparser_free(pb);
    fbe_json_reader_free(rd);
    free(rows);
    golden_env_free(&env);
    size_t failures = golden_report_flush(&rep, "golden_json");
    assert_int_equal(failures, 0);
    assert_true(c.cases >= 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
