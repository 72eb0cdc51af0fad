/* The standard model of a static C codec (wire-format.md 3, docs/codec.md):
 * per struct k and per type node n (an optional, array or collection), the
 * four operations of runtime/interp/std_write.c and std_read.c with every
 * offset, size and type number a constant from the IR:
 *
 *   s<k>_ssize(h, acc)              acc + the body and extras (the exact walk
 *                                   that defines the size, SC_CAP included)
 *   s<k>_swrite(end, h, pos, base)  the body at end, its offset at pos
 *   s<k>_sv(r, pos, base, depth)    verify the struct referenced at pos
 *   s<k>_svbody(r, body, depth)     the fields of a checked body
 *   s<k>_sd(r, pos, base, h, depth) deserialize it
 *   s<k>_sdfields(r, body, h, depth)
 *   t<n>_ssize, t<n>_swrite, t<n>_sv, t<n>_sd, and t<n>_svel (the elements of
 *   a checked collection block).
 *
 * A derived struct emits only its own fields and calls its base's code for the
 * inherited ones (gc_shared_base): s<b>_svbody and s<b>_sdfields as they are,
 * and for a struct that is a base, s<k>_ssizef (the walk without the body, and
 * whether it stopped) and s<k>_swritef (the fields without the header).
 *
 * Verify and deserialize take valid frames of this schema's writers: the same
 * checks, budget and arena allocations in the same order as the interpreter.
 * Anything else (a failing check, a body an older writer made shorter, a large
 * array that needs a precheck) returns a failure through every level, and the
 * entry point hands the frame to the interpreter (gen_c_entry.c), whose result
 * is the answer: statuses, positions, reports and the host value after a
 * failure are the interpreter's alone. */
#include <inttypes.h>
#include <string.h>

#include "gen_c_internal.h"
#include "interp/program.h" /* fbe_interp_std_inline_only */

/* ---- value expressions ------------------------------------------------------------- */

/* acc + the extra bytes of the value at h (an expression). */
static void extra(gc *g, const fbe_ir_type *t, const char *h, const char *acc)
{
    char f[32];
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_BOOL:
    case FBE_IR_SHAPE_COPY:
        gc_printf(g, "%s", acc);
        return;
    case FBE_IR_SHAPE_STRING:
        gc_printf(g, "%s + sc_str_extra(%s)", acc, h);
        return;
    default:
        gc_fn(g, t, f, sizeof f);
        gc_printf(g, "%s_ssize(%s, %s)", f, h, acc);
        return;
    }
}

/* Writes the inline part of the value at h to pos (offsets relative to base). */
static void write_value(gc *g, const char *ind, const fbe_ir_type *t, const char *h,
                        const char *pos, const char *base)
{
    char f[32];
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_BOOL:
        gc_printf(g, "%s(%s)[0] = (%s)[0] != 0;\n", ind, pos, h);
        return;
    case FBE_IR_SHAPE_COPY:
        gc_printf(g, "%smemcpy(%s, %s, %" PRIu32 ");\n", ind, pos, h, t->std_inline_size);
        return;
    case FBE_IR_SHAPE_STRING:
        gc_printf(g, "%send = sc_swrite_str(end, %s, %s, %s);\n", ind, h, pos, base);
        return;
    default:
        gc_fn(g, t, f, sizeof f);
        gc_printf(g, "%send = %s_swrite(end, %s, %s, %s);\n", ind, f, h, pos, base);
        return;
    }
}

/* A verify call for the value at pos (false: nothing to check). */
static bool verify_expr(gc *g, const fbe_ir_type *t, const char *pos, const char *base,
                        const char *depth, char *buf, size_t size)
{
    char f[32];
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_BOOL:
    case FBE_IR_SHAPE_COPY:
        return false;
    case FBE_IR_SHAPE_STRING:
        snprintf(buf, size, "sc_sv_str(r, %s, %s)", pos, base);
        return true;
    case FBE_IR_SHAPE_STRUCT:
        gc_fn(g, t, f, sizeof f);
        snprintf(buf, size, "%s_sv(r, %s, %s, %s + 1)", f, pos, base, depth);
        return true;
    case FBE_IR_SHAPE_ARRAY:
        if (fbe_interp_std_inline_only(t))
            return false;
        /* fall through */
    default:
        snprintf(buf, size, "t%zu_sv(r, %s, %s, %s)", gc_node(g, t), pos, base, depth);
        return true;
    }
}

/* Scalars into the host (bool normalised). */
static void read_scalar(gc *g, const char *ind, const fbe_ir_type *t, const char *src,
                        const char *h)
{
    if (fbe_ir_shape_of(t) == FBE_IR_SHAPE_BOOL)
        gc_printf(g, "%s(%s)[0] = (%s)[0] != 0;\n", ind, h, src);
    else
        gc_printf(g, "%smemcpy(%s, %s, %" PRIu32 ");\n", ind, h, src, t->std_inline_size);
}

/* A deserialize call for a value that is not a scalar (an expression). */
static void read_expr(gc *g, const fbe_ir_type *t, const char *pos, const char *base,
                      const char *h, const char *depth, char *buf, size_t size)
{
    char f[32];
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_STRING:
        snprintf(buf, size, "sc_sd_str(r, %s, %s, %s)", pos, base, h);
        return;
    case FBE_IR_SHAPE_STRUCT:
        gc_fn(g, t, f, sizeof f);
        snprintf(buf, size, "%s_sd(r, %s, %s, %s, %s + 1)", f, pos, base, h, depth);
        return;
    default:
        gc_fn(g, t, f, sizeof f);
        snprintf(buf, size, "%s_sd(r, %s, %s, %s, %s)", f, pos, base, h, depth);
        return;
    }
}

/* ---- declarations ------------------------------------------------------------------ */

void gc_emit_std_decls(gc *g)
{
    gc_printf(g, "\n/* ---- standard model: declarations ---- */\n\n");
    for (size_t k = 0; k < g->struct_count; k++) {
        gc_printf(g, "static SC_UNUSED uint64_t s%zu_ssize(const uint8_t *h, uint64_t acc);\n", k);
        gc_printf(g, "static SC_UNUSED uint8_t *s%zu_swrite(uint8_t *end, const uint8_t *h, uint8_t *pos, "
                     "const uint8_t *base);\n", k);
        gc_printf(g, "static SC_UNUSED fbe_status s%zu_sv(sc_rd *r, uint64_t pos, uint64_t base, "
                     "unsigned depth);\n", k);
        gc_printf(g, "static SC_UNUSED fbe_status s%zu_svbody(sc_rd *r, uint64_t body, unsigned depth);\n",
                  k);
        gc_printf(g, "static SC_UNUSED fbe_status s%zu_sd(sc_rd *r, uint64_t pos, uint64_t base, uint8_t *h, "
                     "unsigned depth);\n", k);
        gc_printf(g, "static SC_UNUSED fbe_status s%zu_sdfields(sc_rd *r, uint64_t body, uint8_t *h, "
                     "unsigned depth);\n", k);
        if (g->is_base[k]) {
            gc_printf(g, "static SC_UNUSED bool s%zu_ssizef(const uint8_t *h, uint64_t *accp);\n", k);
            gc_printf(g, "static SC_UNUSED uint8_t *s%zu_swritef(uint8_t *end, const uint8_t *h, "
                         "uint8_t *body);\n", k);
        }
    }
    for (size_t n = 0; n < g->node_count; n++) {
        gc_printf(g, "static SC_UNUSED uint64_t t%zu_ssize(const uint8_t *h, uint64_t acc);\n", n);
        gc_printf(g, "static SC_UNUSED uint8_t *t%zu_swrite(uint8_t *end, const uint8_t *h, uint8_t *pos, "
                     "const uint8_t *base);\n", n);
        gc_printf(g, "static SC_UNUSED fbe_status t%zu_sv(sc_rd *r, uint64_t pos, uint64_t base, "
                     "unsigned depth);\n", n);
        gc_printf(g, "static SC_UNUSED fbe_status t%zu_sd(sc_rd *r, uint64_t pos, uint64_t base, uint8_t *h, "
                     "unsigned depth);\n", n);
        fbe_ir_shape c = fbe_ir_shape_of(g->nodes[n]);
        if (c == FBE_IR_SHAPE_SEQ || c == FBE_IR_SHAPE_MAP)
            gc_printf(g, "static SC_UNUSED fbe_status t%zu_svel(sc_rd *r, uint64_t elems, uint32_t count, "
                         "uint64_t base, unsigned depth);\n", n);
    }
}

/* ---- structs ----------------------------------------------------------------------- */

/* The plain run starting at field i, if any, as one memcpy between the body
 * (at `body`) and the host value (at h), wire to host when reading. Returns
 * the end of the run: i when there is none. */
static size_t emit_plain_run(gc *g, const fbe_ir_struct *st, size_t i, bool read)
{
    size_t j = fbe_ir_plain_run(st->fields, i, st->field_count);
    if (j == i)
        return i;
    const fbe_ir_field *f = &st->fields[i], *l = &st->fields[j - 1];
    uint32_t len = fbe_ir_plain_run_bytes(st->fields, i, j);
    if (read)
        gc_printf(g, "    memcpy(h + %" PRIu32 ", r->data + body + %" PRIu32 ", %" PRIu32 "); /* %s",
                  f->host_offset, f->std_offset, len, f->name);
    else
        gc_printf(g, "    memcpy(body + %" PRIu32 ", h + %" PRIu32 ", %" PRIu32 "); /* %s",
                  f->std_offset, f->host_offset, len, f->name);
    if (j > i + 1)
        gc_printf(g, " .. %s", l->name);
    gc_printf(g, " */\n");
    return j;
}

static bool has_extras(const fbe_ir_type *t)
{
    return !fbe_interp_std_inline_only(t);
}

/* Does any field of st have extra bytes (size) / anything to verify? The
 * same fields: verify_expr checks exactly those that have extras. */
static bool any_extras(const fbe_ir_struct *st)
{
    for (size_t i = 0; i < st->field_count; i++)
        if (has_extras(st->fields[i].type))
            return true;
    return false;
}

/* acc += the extras of st's own fields; `stop` is the statement that ends the
 * walk once a checked field reached SC_CAP. */
static void size_fields(gc *g, const fbe_ir_struct *st, const char *stop)
{
    for (size_t i = st->own_field_start; i < st->field_count; i++) {
        const fbe_ir_field *f = &st->fields[i];
        if (!has_extras(f->type))
            continue;
        char h[64];
        snprintf(h, sizeof h, "h + %" PRIu32, f->host_offset);
        if (fbe_ir_shape_of(f->type) == FBE_IR_SHAPE_STRING) { /* adds at most 2^32 + 4: no check needed */
            gc_printf(g, "    acc += sc_str_extra(%s); /* %s */\n", h, f->name);
            continue;
        }
        gc_printf(g, "    acc = ");
        extra(g, f->type, h, "acc");
        gc_printf(g, "; /* %s */\n    if (acc >= SC_CAP)\n        %s\n", f->name, stop);
    }
}

static void struct_size(gc *g, size_t k)
{
    const fbe_ir_struct *st = g->structs[k], *b = gc_shared_base(st);
    size_t kb = b ? gc_struct_index(g, b) : 0;
    bool call = b && any_extras(b);
    if (g->is_base[k]) {
        /* The walk stops where the interpreter's does: a derived struct must
         * know whether it stopped in its base, not only the sum. */
        gc_printf(g,
                  "/* %s: *accp + the extras of its fields; true when the walk stopped at\n"
                  " * SC_CAP */\nstatic bool s%zu_ssizef(const uint8_t *h, uint64_t *accp)\n{\n"
                  "    uint64_t acc = *accp;\n    (void)h;\n",
                  st->full_name, k);
        if (call)
            gc_printf(g, "    if (s%zu_ssizef(h, &acc)) {\n        *accp = acc;\n        return true;\n    }\n",
                      kb);
        size_fields(g, st, "{\n        *accp = acc;\n        return true;\n    }");
        gc_printf(g, "    *accp = acc;\n    return false;\n}\n\n");
        gc_printf(g, "/* %s: body and extras */\nstatic uint64_t s%zu_ssize(const uint8_t *h, uint64_t acc)\n{\n"
                     "    acc += %" PRIu32 ";\n    s%zu_ssizef(h, &acc);\n    return acc;\n}\n\n",
                  st->full_name, k, st->std_body_size, k);
        return;
    }
    gc_printf(g, "/* %s: body and extras */\nstatic uint64_t s%zu_ssize(const uint8_t *h, uint64_t acc)\n{\n"
                 "    (void)h;\n    acc += %" PRIu32 ";\n",
              st->full_name, k, st->std_body_size);
    if (call)
        gc_printf(g, "    if (s%zu_ssizef(h, &acc)) /* the inherited fields */\n        return acc;\n", kb);
    size_fields(g, st, "return acc;");
    gc_printf(g, "    return acc;\n}\n\n");
}

/* st's own fields into the body at `body` (the value at h). */
static void write_fields(gc *g, const fbe_ir_struct *st)
{
    for (size_t i = st->own_field_start; i < st->field_count;) {
        const fbe_ir_field *f = &st->fields[i];
        size_t j = emit_plain_run(g, st, i, false);
        if (j > i) {
            i = j;
            continue;
        }
        char h[64], pos[64];
        snprintf(h, sizeof h, "h + %" PRIu32, f->host_offset);
        snprintf(pos, sizeof pos, "body + %" PRIu32, f->std_offset);
        gc_printf(g, "    /* %s */\n", f->name);
        write_value(g, "    ", f->type, h, pos, "body");
        i++;
    }
}

static void struct_write(gc *g, size_t k)
{
    const fbe_ir_struct *st = g->structs[k], *b = gc_shared_base(st);
    if (g->is_base[k]) {
        gc_printf(g,
                  "/* %s: its fields into the body at body, extras at end */\n"
                  "static uint8_t *s%zu_swritef(uint8_t *end, const uint8_t *h, uint8_t *body)\n{\n"
                  "    (void)h;\n    (void)body;\n",
                  st->full_name, k);
        if (b)
            gc_printf(g, "    end = s%zu_swritef(end, h, body);\n", gc_struct_index(g, b));
        write_fields(g, st);
        gc_printf(g, "    return end;\n}\n\n");
    }
    gc_printf(g,
              "/* %s: the body at end, its offset (from base) at pos */\n"
              "static uint8_t *s%zu_swrite(uint8_t *end, const uint8_t *h, uint8_t *pos, "
              "const uint8_t *base)\n{\n"
              "    uint8_t *body = end;\n    (void)h;\n"
              "    end += %" PRIu32 ";\n"
              "    sc_wr32(pos, (uint32_t)(body - base));\n"
              "    sc_wr32(body, %" PRIu32 "u);\n    sc_wr32(body + 4, %" PRIu32 "u);\n",
              st->full_name, k, st->std_body_size, st->std_body_size, st->type_number);
    if (g->is_base[k]) {
        gc_printf(g, "    return s%zu_swritef(end, h, body);\n}\n\n", k);
        return;
    }
    if (b)
        gc_printf(g, "    end = s%zu_swritef(end, h, body); /* the inherited fields */\n",
                  gc_struct_index(g, b));
    write_fields(g, st);
    gc_printf(g, "    return end;\n}\n\n");
}

/* The checks of st's own fields; errors are reported against struct `rt` and
 * its field array `rf` (C expressions). */
static void verify_fields(gc *g, const fbe_ir_struct *st)
{
    for (size_t i = st->own_field_start; i < st->field_count; i++) {
        const fbe_ir_field *f = &st->fields[i];
        char pos[64], call[256];
        snprintf(pos, sizeof pos, "body + %" PRIu32, f->std_offset);
        if (verify_expr(g, f->type, pos, "body", "depth", call, sizeof call))
            gc_printf(g, "    SC_TRY(%s); /* %s */\n", call, f->name);
    }
}

/* A checked reference to a body of struct k: any failure, or a body an older
 * writer made shorter, returns (the entry hands the frame to the interpreter). */
static void check_ref(gc *g, size_t k, const char *pos, const char *base, const char *depth)
{
    const fbe_ir_struct *st = g->structs[k];
    gc_printf(g,
              "    uint64_t body = 0;\n    uint32_t ssize = 0;\n"
              "    if (SC_UNLIKELY(sc_chk_struct(r, %" PRIu32 "u, %s, %s, %s, &body, &ssize) != FBE_OK ||\n"
              "                    ssize < %" PRIu32 "u))\n        return SC_BAIL;\n",
              st->type_number, pos, base, depth, st->std_body_size);
}

static void struct_verify(gc *g, size_t k)
{
    const fbe_ir_struct *st = g->structs[k], *b = gc_shared_base(st);
    gc_printf(g,
              "/* %s referenced at pos, its body at level depth */\n"
              "static fbe_status s%zu_sv(sc_rd *r, uint64_t pos, uint64_t base, unsigned depth)\n{\n",
              st->full_name, k);
    check_ref(g, k, "pos", "base", "depth");
    gc_printf(g, "    return s%zu_svbody(r, body, depth);\n}\n\n", k);
    gc_printf(g,
              "/* The fields of a checked body */\n"
              "static fbe_status s%zu_svbody(sc_rd *r, uint64_t body, unsigned depth)\n{\n"
              "    (void)r;\n    (void)body;\n    (void)depth;\n",
              k);
    if (b && any_extras(b))
        gc_printf(g, "    SC_TRY(s%zu_svbody(r, body, depth));\n", gc_struct_index(g, b));
    verify_fields(g, st);
    gc_printf(g, "    return FBE_OK;\n}\n\n");
}

/* The read of field i of struct k into h + host_offset. */
static void read_field(gc *g, size_t k, size_t i)
{
    const fbe_ir_field *f = &g->structs[k]->fields[i];
    char pos[64], h[64], call[256];
    snprintf(pos, sizeof pos, "body + %" PRIu32, f->std_offset);
    snprintf(h, sizeof h, "h + %" PRIu32, f->host_offset);
    read_expr(g, f->type, pos, "body", h, "depth", call, sizeof call);
    gc_printf(g, "    SC_TRY(%s);\n", call);
}

static void struct_read(gc *g, size_t k)
{
    const fbe_ir_struct *st = g->structs[k], *b = gc_shared_base(st);
    gc_printf(g,
              "/* %s referenced at pos into h, its body at level depth */\n"
              "static fbe_status s%zu_sd(sc_rd *r, uint64_t pos, uint64_t base, uint8_t *h, "
              "unsigned depth)\n{\n",
              st->full_name, k);
    check_ref(g, k, "pos", "base", "depth");
    gc_printf(g, "    return s%zu_sdfields(r, body, h, depth);\n}\n\n", k);
    gc_printf(g,
              "/* The fields of a checked body into h */\n"
              "static fbe_status s%zu_sdfields(sc_rd *r, uint64_t body, uint8_t *h, unsigned depth)\n{\n"
              "    (void)r;\n    (void)body;\n    (void)h;\n    (void)depth;\n",
              k);
    if (b)
        gc_printf(g, "    SC_TRY(s%zu_sdfields(r, body, h, depth));\n", gc_struct_index(g, b));
    for (size_t i = st->own_field_start; i < st->field_count;) {
        const fbe_ir_field *f = &st->fields[i];
        size_t j = emit_plain_run(g, st, i, true);
        if (j > i) {
            i = j;
            continue;
        }
        gc_printf(g, "    /* %s */\n", f->name);
        if (fbe_ir_shape_of(f->type) == FBE_IR_SHAPE_BOOL) {
            gc_printf(g, "    h[%" PRIu32 "] = r->data[body + %" PRIu32 "] != 0;\n", f->host_offset,
                      f->std_offset);
        } else if (fbe_ir_shape_of(f->type) == FBE_IR_SHAPE_ARRAY && fbe_ir_shape_of(f->type->elem) == FBE_IR_SHAPE_BOOL) {
            gc_printf(g, "    sc_bools(h + %" PRIu32 ", r->data + body + %" PRIu32 ", %" PRIu32 ");\n",
                      f->host_offset, f->std_offset, f->type->array_len);
        } else {
            read_field(g, k, i);
        }
        i++;
    }
    gc_printf(g, "    return FBE_OK;\n}\n\n");
}

/* ---- type nodes -------------------------------------------------------------------- */


static void node_size(gc *g, size_t n)
{
    const fbe_ir_type *t = g->nodes[n], *e = t->elem, *k = t->key;
    char h[128], acc[64];
    gc_printf(g, "static uint64_t t%zu_ssize(const uint8_t *h, uint64_t acc)\n{\n", n);
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_OPTIONAL:
        snprintf(h, sizeof h, "h + %" PRIu32, t->host_value_offset);
        snprintf(acc, sizeof acc, "acc + %" PRIu32, e->std_inline_size);
        gc_printf(g, "    if (!h[0])\n        return acc;\n    return ");
        extra(g, e, h, acc);
        gc_printf(g, ";\n");
        break;
    case FBE_IR_SHAPE_OPT_STRUCT:
        gc_printf(g, "    const uint8_t *p = sc_ptr_at(h);\n"
                     "    return p ? s%zu_ssize(p, acc + 4) : acc;\n",
                  gc_struct_index(g, e->struct_type));
        break;
    case FBE_IR_SHAPE_ARRAY:
        if (fbe_ir_kind_is_scalar(e->kind)) {
            gc_printf(g, "    (void)h;\n    return acc;\n");
            break;
        }
        snprintf(h, sizeof h, "h + (size_t)i * %" PRIu32, e->host_size);
        gc_printf(g, "    for (uint32_t i = 0; i < %" PRIu32 "u && acc < SC_CAP; i++)\n        acc = ",
                  t->array_len);
        extra(g, e, h, "acc");
        gc_printf(g, ";\n    return acc;\n");
        break;
    case FBE_IR_SHAPE_SEQ:
        gc_printf(g, "    sc_view v = sc_view_at(h);\n    acc += sc_block(v.size, %" PRIu32 ");\n",
                  e->std_inline_size);
        if (fbe_ir_kind_is_scalar(e->kind)) {
            gc_printf(g, "    return acc;\n");
            break;
        }
        snprintf(h, sizeof h, "v.data + i * %" PRIu32, e->host_size);
        gc_printf(g, "    for (size_t i = 0; i < v.size && acc < SC_CAP; i++)\n        acc = ");
        extra(g, e, h, "acc");
        gc_printf(g, ";\n    return acc;\n");
        break;
    case FBE_IR_SHAPE_MAP:
        gc_printf(g, "    sc_view v = sc_view_at(h);\n    acc += sc_block(v.size, %" PRIu32 ");\n",
                  fbe_ir_std_entry_size(t));
        if (fbe_ir_kind_is_scalar(k->kind) && fbe_ir_kind_is_scalar(e->kind)) {
            gc_printf(g, "    return acc;\n");
            break;
        }
        gc_printf(g, "    for (size_t i = 0; i < v.size && acc < SC_CAP; i++) {\n"
                     "        const uint8_t *entry = v.data + i * %" PRIu32 ";\n",
                  t->host_entry_size);
        if (!fbe_ir_kind_is_scalar(k->kind)) {
            gc_printf(g, "        acc = ");
            extra(g, k, "entry", "acc");
            gc_printf(g, ";\n");
        }
        snprintf(h, sizeof h, "entry + %" PRIu32, t->host_entry_value_offset);
        if (!fbe_ir_kind_is_scalar(e->kind)) {
            gc_printf(g, "        acc = ");
            extra(g, e, h, "acc");
            gc_printf(g, ";\n");
        }
        gc_printf(g, "    }\n    return acc;\n");
        break;
    default:
        break;
    }
    gc_printf(g, "}\n\n");
}

static void node_write(gc *g, size_t n)
{
    const fbe_ir_type *t = g->nodes[n], *e = t->elem, *k = t->key;
    char h[128], pos[128];
    gc_printf(g, "static uint8_t *t%zu_swrite(uint8_t *end, const uint8_t *h, uint8_t *pos, "
                 "const uint8_t *base)\n{\n",
              n);
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_OPTIONAL:
        snprintf(h, sizeof h, "h + %" PRIu32, t->host_value_offset);
        gc_printf(g, "    if (h[0]) {\n        uint8_t *slot = end;\n        pos[0] = 1;\n"
                     "        sc_wr32(pos + 1, (uint32_t)(slot - base));\n"
                     "        end += %" PRIu32 ";\n",
                  e->std_inline_size);
        write_value(g, "        ", e, h, "slot", "slot");
        gc_printf(g, "        return end;\n    }\n    pos[0] = 0;\n    sc_wr32(pos + 1, 0);\n"
                     "    return end;\n");
        break;
    case FBE_IR_SHAPE_OPT_STRUCT:
        gc_printf(g, "    const uint8_t *p = sc_ptr_at(h);\n"
                     "    if (p) {\n        uint8_t *slot = end;\n        pos[0] = 1;\n"
                     "        sc_wr32(pos + 1, (uint32_t)(slot - base));\n"
                     "        return s%zu_swrite(end + 4, p, slot, slot);\n    }\n"
                     "    pos[0] = 0;\n    sc_wr32(pos + 1, 0);\n    return end;\n",
                  gc_struct_index(g, e->struct_type));
        break;
    case FBE_IR_SHAPE_ARRAY:
        if (fbe_ir_shape_of(e) == FBE_IR_SHAPE_COPY) {
            gc_printf(g, "    (void)base;\n    memcpy(pos, h, %" PRIu32 ");\n    return end;\n",
                      t->std_inline_size);
            break;
        }
        gc_printf(g, "    (void)base;\n    for (uint32_t i = 0; i < %" PRIu32 "u; i++) {\n", t->array_len);
        snprintf(h, sizeof h, "h + (size_t)i * %" PRIu32, e->host_size);
        snprintf(pos, sizeof pos, "pos + (size_t)i * %" PRIu32, e->std_inline_size);
        write_value(g, "        ", e, h, pos, "base");
        gc_printf(g, "    }\n    return end;\n");
        break;
    case FBE_IR_SHAPE_SEQ:
        gc_printf(g, "    sc_view v = sc_view_at(h);\n    uint8_t *blk = end;\n"
                     "    end += 4 + v.size * %" PRIu32 ";\n"
                     "    sc_wr32(pos, (uint32_t)(blk - base));\n    sc_wr32(blk, (uint32_t)v.size);\n"
                     "    if (!v.size)\n        return end;\n",
                  e->std_inline_size);
        if (fbe_ir_shape_of(e) == FBE_IR_SHAPE_COPY) {
            gc_printf(g, "    memcpy(blk + 4, v.data, v.size * %" PRIu32 ");\n    return end;\n",
                      e->std_inline_size);
            break;
        }
        gc_printf(g, "    for (size_t i = 0; i < v.size; i++) {\n");
        snprintf(h, sizeof h, "v.data + i * %" PRIu32, e->host_size);
        snprintf(pos, sizeof pos, "blk + 4 + i * %" PRIu32, e->std_inline_size);
        write_value(g, "        ", e, h, pos, "base");
        gc_printf(g, "    }\n    return end;\n");
        break;
    case FBE_IR_SHAPE_MAP: {
        uint32_t ks = k->std_inline_size, es = fbe_ir_std_entry_size(t);
        gc_printf(g, "    sc_view v = sc_view_at(h);\n    uint8_t *blk = end;\n"
                     "    end += 4 + v.size * %" PRIu32 ";\n"
                     "    sc_wr32(pos, (uint32_t)(blk - base));\n    sc_wr32(blk, (uint32_t)v.size);\n"
                     "    for (size_t i = 0; i < v.size; i++) {\n"
                     "        const uint8_t *entry = v.data + i * %" PRIu32 ";\n"
                     "        uint8_t *out = blk + 4 + i * %" PRIu32 ";\n",
                  es, t->host_entry_size, es);
        write_value(g, "        ", k, "entry", "out", "base");
        snprintf(h, sizeof h, "entry + %" PRIu32, t->host_entry_value_offset);
        snprintf(pos, sizeof pos, "out + %" PRIu32, ks);
        write_value(g, "        ", e, h, pos, "base");
        gc_printf(g, "    }\n    return end;\n");
        break;
    }
    default:
        break;
    }
    gc_printf(g, "}\n\n");
}

/* The elements of a checked block: verify, and deserialize's precheck. */
static void node_verify_elems(gc *g, size_t n)
{
    const fbe_ir_type *t = g->nodes[n], *e = t->elem, *k = t->key;
    char pos[128], call[256];
    gc_printf(g, "static fbe_status t%zu_svel(sc_rd *r, uint64_t elems, uint32_t count, "
                 "uint64_t base, unsigned depth)\n{\n"
                 "    (void)r;\n    (void)elems;\n    (void)count;\n    (void)base;\n    (void)depth;\n",
              n);
    if (fbe_ir_shape_of(t) == FBE_IR_SHAPE_MAP) {
        uint32_t ks = k->std_inline_size, es = fbe_ir_std_entry_size(t);
        char kc[256] = "", vc[256] = "";
        bool kv = verify_expr(g, k, "p", "base", "depth", kc, sizeof kc);
        snprintf(pos, sizeof pos, "p + %" PRIu32, ks);
        bool vv = verify_expr(g, e, pos, "base", "depth", vc, sizeof vc);
        if (kv || vv) {
            gc_printf(g, "    fbe_status st;\n    for (uint32_t i = 0; i < count; i++) {\n"
                         "        uint64_t p = elems + (uint64_t)i * %" PRIu32 ";\n",
                      es);
            if (kv)
                gc_printf(g, "        if ((st = %s) != FBE_OK)\n            return st;\n", kc);
            if (vv)
                gc_printf(g, "        if ((st = %s) != FBE_OK)\n            return st;\n", vc);
            gc_printf(g, "    }\n");
        }
    } else {
        snprintf(pos, sizeof pos, "elems + (uint64_t)i * %" PRIu32, e->std_inline_size);
        if (verify_expr(g, e, pos, "base", "depth", call, sizeof call))
            gc_printf(g, "    fbe_status st;\n    for (uint32_t i = 0; i < count; i++)\n"
                         "        if ((st = %s) != FBE_OK)\n            return st;\n",
                      call);
    }
    gc_printf(g, "    return FBE_OK;\n}\n\n");
}

static void node_verify(gc *g, size_t n)
{
    const fbe_ir_type *t = g->nodes[n], *e = t->elem;
    char pos[128], call[256];
    gc_printf(g, "static fbe_status t%zu_sv(sc_rd *r, uint64_t pos, uint64_t base, unsigned depth)\n{\n"
                 "    (void)r;\n    (void)pos;\n    (void)base;\n    (void)depth;\n",
              n);
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_OPTIONAL:
        gc_printf(g, "    uint64_t slot = 0;\n"
                     "    fbe_status st = sc_chk_optional(r, pos, base, %" PRIu32 ", &slot);\n"
                     "    if (st != FBE_OK || !slot)\n        return st;\n",
                  e->std_inline_size);
        if (verify_expr(g, e, "slot", "slot", "depth", call, sizeof call))
            gc_printf(g, "    return %s;\n", call);
        else
            gc_printf(g, "    return FBE_OK;\n");
        break;
    case FBE_IR_SHAPE_OPT_STRUCT:
        gc_printf(g, "    uint64_t slot = 0;\n"
                     "    fbe_status st = sc_chk_optional(r, pos, base, 4, &slot);\n"
                     "    if (st != FBE_OK || !slot)\n        return st;\n"
                     "    return s%zu_sv(r, slot, slot, depth + 1);\n",
                  gc_struct_index(g, e->struct_type));
        break;
    case FBE_IR_SHAPE_ARRAY:
        snprintf(pos, sizeof pos, "pos + (uint64_t)i * %" PRIu32, e->std_inline_size);
        if (verify_expr(g, e, pos, "base", "depth", call, sizeof call))
            gc_printf(g, "    fbe_status st;\n    for (uint32_t i = 0; i < %" PRIu32 "u; i++)\n"
                         "        if ((st = %s) != FBE_OK)\n            return st;\n",
                      t->array_len, call);
        gc_printf(g, "    return FBE_OK;\n");
        break;
    case FBE_IR_SHAPE_SEQ:
    case FBE_IR_SHAPE_MAP: {
        uint32_t es = fbe_ir_std_entry_size(t);
        gc_printf(g, "    uint64_t elems = 0;\n    uint32_t count = 0;\n"
                     "    fbe_status st = sc_chk_block(r, pos, base, %" PRIu32 ", &elems, &count);\n"
                     "    if (st != FBE_OK || !count)\n        return st;\n"
                     "    return t%zu_svel(r, elems, count, base, depth);\n",
                  es, n);
        break;
    }
    default:
        gc_printf(g, "    return FBE_OK;\n");
        break;
    }
    gc_printf(g, "}\n\n");
}

/* A scalar element or array of them, read at src into h. */
static void read_scalars(gc *g, const char *ind, const fbe_ir_type *e, const char *src,
                         const char *h, const char *count)
{
    if (fbe_ir_shape_of(e) == FBE_IR_SHAPE_BOOL)
        gc_printf(g, "%ssc_bools(%s, %s, %s);\n", ind, h, src, count);
    else
        gc_printf(g, "%smemcpy(%s, %s, (size_t)%s * %" PRIu32 ");\n", ind, h, src, count,
                  e->std_inline_size);
}

static void node_read(gc *g, size_t n)
{
    const fbe_ir_type *t = g->nodes[n], *e = t->elem, *k = t->key;
    char pos[128], h[128], call[256];
    gc_printf(g, "static fbe_status t%zu_sd(sc_rd *r, uint64_t pos, uint64_t base, uint8_t *h, "
                 "unsigned depth)\n{\n"
                 "    (void)r;\n    (void)pos;\n    (void)base;\n    (void)depth;\n",
              n);
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_OPTIONAL:
        gc_printf(g, "    uint64_t slot = 0;\n"
                     "    fbe_status st = sc_chk_optional(r, pos, base, %" PRIu32 ", &slot);\n"
                     "    if (st != FBE_OK || !slot) {\n        memset(h, 0, %" PRIu32 "); /* absent */\n"
                     "        return st;\n    }\n    h[0] = 1;\n",
                  e->std_inline_size, t->host_size);
        snprintf(h, sizeof h, "h + %" PRIu32, t->host_value_offset);
        if (fbe_ir_kind_is_scalar(e->kind)) {
            read_scalar(g, "    ", e, "r->data + slot", h);
            gc_printf(g, "    return FBE_OK;\n");
        } else {
            read_expr(g, e, "slot", "slot", h, "depth", call, sizeof call);
            gc_printf(g, "    return %s;\n", call);
        }
        break;
    case FBE_IR_SHAPE_OPT_STRUCT: {
        const fbe_ir_struct *st = e->struct_type;
        gc_printf(g, "    uint64_t slot = 0;\n"
                     "    sc_set_ptr(h, NULL);\n"
                     "    fbe_status st = sc_chk_optional(r, pos, base, 4, &slot);\n"
                     "    if (st != FBE_OK || !slot)\n        return st;\n");
        check_ref(g, gc_struct_index(g, st), "slot", "slot", "depth + 1");
        gc_printf(g, "    uint8_t *m = sc_alloc(r->arena, r->memory, %" PRIu32 ");\n"
                     "    if (SC_UNLIKELY(!m))\n        return FBE_NOMEM;\n"
                     "    sc_set_ptr(h, m);\n"
                     "    return s%zu_sdfields(r, body, m, depth + 1);\n",
                  st->host_size, gc_struct_index(g, st));
        break;
    }
    case FBE_IR_SHAPE_ARRAY:
        if (fbe_ir_kind_is_scalar(e->kind)) {
            char cnt[32];
            snprintf(cnt, sizeof cnt, "%" PRIu32 "u", t->array_len);
            read_scalars(g, "    ", e, "r->data + pos", "h", cnt);
            gc_printf(g, "    return FBE_OK;\n");
            break;
        }
        snprintf(pos, sizeof pos, "pos + (uint64_t)i * %" PRIu32, e->std_inline_size);
        snprintf(h, sizeof h, "h + (size_t)i * %" PRIu32, e->host_size);
        read_expr(g, e, pos, "base", h, "depth", call, sizeof call);
        gc_printf(g, "    for (uint32_t i = 0; i < %" PRIu32 "u; i++)\n        SC_TRY(%s);\n"
                     "    return FBE_OK;\n",
                  t->array_len, call);
        break;
    case FBE_IR_SHAPE_SEQ:
    case FBE_IR_SHAPE_MAP: {
        bool map = fbe_ir_shape_of(t) == FBE_IR_SHAPE_MAP;
        uint32_t ks = map ? k->std_inline_size : 0, es = fbe_ir_std_entry_size(t);
        uint32_t hs = map ? t->host_entry_size : e->host_size;
        bool scalar = fbe_ir_kind_is_scalar(e->kind) && (!map || fbe_ir_kind_is_scalar(k->kind));
        gc_printf(g, "    uint64_t elems = 0;\n    uint32_t count = 0;\n"
                     "    sc_set_view(h, NULL, 0);\n"
                     "    fbe_status st = sc_chk_block(r, pos, base, %" PRIu32 ", &elems, &count);\n"
                     "    if (st != FBE_OK || !count)\n        return st;\n",
                  es);
        if (!scalar) /* the interpreter verifies the elements before allocating */
            gc_printf(g, "    if (SC_UNLIKELY(sc_precheck(r, (uint64_t)count * %" PRIu32 ")))\n"
                         "        return SC_BAIL;\n",
                      hs);
        gc_printf(g, "    uint8_t *arr = sc_alloc(r->arena, r->memory, (size_t)count * %" PRIu32 ");\n"
                     "    if (SC_UNLIKELY(!arr))\n        return FBE_NOMEM;\n"
                     "    sc_set_view(h, arr, 0);\n",
                  hs);
        if (!map && scalar) {
            read_scalars(g, "    ", e, "r->data + elems", "arr", "count");
            gc_printf(g, "    sc_set_view(h, arr, count);\n    return FBE_OK;\n");
            break;
        }
        gc_printf(g, "    for (uint32_t i = 0; i < count; i++) {\n"
                     "        uint64_t p = elems + (uint64_t)i * %" PRIu32 ";\n"
                     "        uint8_t *entry = arr + (size_t)i * %" PRIu32 ";\n",
                  es, hs);
        if (!map) {
            read_expr(g, e, "p", "base", "entry", "depth", call, sizeof call);
            gc_printf(g, "        SC_TRY(%s);\n", call);
        } else {
            char vh[64], vp[64];
            snprintf(vh, sizeof vh, "entry + %" PRIu32, t->host_entry_value_offset);
            snprintf(vp, sizeof vp, "p + %" PRIu32, ks);
            if (fbe_ir_kind_is_scalar(k->kind)) {
                read_scalar(g, "        ", k, "r->data + p", "entry");
            } else {
                read_expr(g, k, "p", "base", "entry", "depth", call, sizeof call);
                gc_printf(g, "        SC_TRY(%s);\n", call);
            }
            if (fbe_ir_kind_is_scalar(e->kind)) {
                char src[128];
                snprintf(src, sizeof src, "r->data + %s", vp);
                read_scalar(g, "        ", e, src, vh);
            } else {
                read_expr(g, e, vp, "base", vh, "depth", call, sizeof call);
                gc_printf(g, "        SC_TRY(%s);\n", call);
            }
        }
        gc_printf(g, "    }\n    sc_set_view(h, arr, count);\n    return FBE_OK;\n");
        break;
    }
    default:
        gc_printf(g, "    (void)h;\n    return FBE_OK;\n");
        break;
    }
    gc_printf(g, "}\n\n");
}

void gc_emit_std(gc *g)
{
    gc_printf(g, "\n/* ---- standard model ---- */\n\n");
    for (size_t k = 0; k < g->struct_count; k++) {
        struct_size(g, k);
        struct_write(g, k);
        struct_verify(g, k);
        struct_read(g, k);
    }
    for (size_t n = 0; n < g->node_count; n++) {
        node_size(g, n);
        node_write(g, n);
        node_verify(g, n);
        fbe_ir_shape c = fbe_ir_shape_of(g->nodes[n]);
        if (c == FBE_IR_SHAPE_SEQ || c == FBE_IR_SHAPE_MAP)
            node_verify_elems(g, n);
        node_read(g, n);
    }
}
