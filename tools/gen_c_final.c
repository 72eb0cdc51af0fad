/* The final model of a static C codec (wire-format.md 4, docs/codec.md): per
 * struct k and type node n, the operations of runtime/interp/final.c with every
 * size and offset a constant from the IR:
 *
 *   s<k>_fsize(h)             bytes of the fields (the exact walk, SC_SAT)
 *   s<k>_fwrite(h, w)         the fields at w, returns w past them
 *   s<k>_fv(r, p, depth)      verify the struct at p (its entry checks too)
 *   s<k>_fd(r, p, dst, depth) deserialize it
 *   s<k>_fdfields             the fields of a non-fixed struct
 *   s<k>_fcopy                fixed structs: the copy once bounds and depth are
 *                             known good
 *   t<n>_fsize, t<n>_fwrite, t<n>_fv, t<n>_fd, t<n>_fcopy likewise per node.
 *
 * A derived struct emits only its own fields and calls its base's code for the
 * inherited ones, which come first (no header in this model): s<b>_fwrite,
 * s<b>_fcopy and s<b>_fdfields as they are (a fixed base gets an fdfields
 * too), and for a struct that is a base s<k>_fsizef (the sum up to its last
 * non-fixed field, the trailing fixed bytes being a constant) and s<k>_fvf
 * (its fields' walk without the depth check of its own level).
 *
 * The checks are the interpreter's field-by-field walk on a valid frame: a run
 * of fixed fields that can only fail their bounds is checked once, a fixed
 * value's struct levels with one comparison against its static height, and
 * the same arena allocations happen in the same order. Any failure returns
 * NULL through every level and the entry point hands the frame to the
 * interpreter (gen_c_entry.c), which answers. */
#include <inttypes.h>
#include <string.h>

#include "gen_c_internal.h"
#include "interp/program.h" /* FBE_MIN_CLAMP */


/* Fixed and only its bounds can fail (scalars, arrays of them). */
static bool skip(const gc *g, const fbe_ir_type *t)
{
    return fbe_interp_final_plain(g->interp, t);
}

/* Bytes of one entry of a map whose key and value are both final_fixed. */
static uint64_t final_entry_size(const fbe_ir_type *t)
{
    return (uint64_t)t->key->final_size + t->elem->final_size;
}

/* ---- value expressions ------------------------------------------------------------- */

static void size_expr(gc *g, const fbe_ir_type *t, const char *h)
{
    char f[32];
    if (t->final_fixed) {
        gc_printf(g, "(uint64_t)%" PRIu32, t->final_size);
        return;
    }
    if (fbe_ir_shape_of(t) == FBE_IR_SHAPE_STRING) {
        gc_printf(g, "sc_fstr_size(%s)", h);
        return;
    }
    gc_fn(g, t, f, sizeof f);
    gc_printf(g, "%s_fsize(%s)", f, h);
}

static void write_value(gc *g, const char *ind, const fbe_ir_type *t, const char *h)
{
    char f[32];
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_BOOL:
        gc_printf(g, "%s*w++ = (%s)[0] != 0;\n", ind, h);
        return;
    case FBE_IR_SHAPE_COPY:
        gc_printf(g, "%smemcpy(w, %s, %" PRIu32 ");\n%sw += %" PRIu32 ";\n", ind, h, t->final_size,
                  ind, t->final_size);
        return;
    case FBE_IR_SHAPE_STRING:
        gc_printf(g, "%sw = sc_fwrite_str(%s, w);\n", ind, h);
        return;
    default:
        gc_fn(g, t, f, sizeof f);
        gc_printf(g, "%sw = %s_fwrite(%s, w);\n", ind, f, h);
        return;
    }
}

static void verify_expr(gc *g, const fbe_ir_type *t, const char *p, const char *depth, char *buf,
                        size_t size)
{
    char f[32];
    if (skip(g, t)) {
        snprintf(buf, size, "sc_fv_fixed(r, %s, %" PRIu32 ")", p, t->final_size);
        return;
    }
    if (fbe_ir_shape_of(t) == FBE_IR_SHAPE_STRING) {
        snprintf(buf, size, "sc_fv_str(r, %s)", p);
        return;
    }
    gc_fn(g, t, f, sizeof f);
    if (fbe_ir_shape_of(t) == FBE_IR_SHAPE_STRUCT)
        snprintf(buf, size, "%s_fv(r, %s, %s + 1)", f, p, depth);
    else
        snprintf(buf, size, "%s_fv(r, %s, %s)", f, p, depth);
}

static void read_expr(gc *g, const fbe_ir_type *t, const char *p, const char *dst,
                      const char *depth, char *buf, size_t size)
{
    char f[32] = "";
    fbe_ir_shape c = fbe_ir_shape_of(t);
    if (c != FBE_IR_SHAPE_BOOL && c != FBE_IR_SHAPE_COPY && c != FBE_IR_SHAPE_STRING)
        gc_fn(g, t, f, sizeof f);
    switch (c) {
    case FBE_IR_SHAPE_BOOL:
        snprintf(buf, size, "sc_fd_bool(r, %s, %s)", p, dst);
        return;
    case FBE_IR_SHAPE_COPY:
        snprintf(buf, size, "sc_fd_copy(r, %s, %s, %" PRIu32 ")", p, dst, t->final_size);
        return;
    case FBE_IR_SHAPE_STRING:
        snprintf(buf, size, "sc_fd_str(r, %s, %s)", p, dst);
        return;
    case FBE_IR_SHAPE_STRUCT:
        snprintf(buf, size, "%s_fd(r, %s, %s, %s + 1)", f, p, dst, depth);
        return;
    default:
        snprintf(buf, size, "%s_fd(r, %s, %s, %s)", f, p, dst, depth);
        return;
    }
}

/* A fixed value whose bytes are there and whose depth fits. */
static void copy_value(gc *g, const char *ind, const fbe_ir_type *t, const char *p,
                       const char *dst)
{
    char f[32];
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_BOOL:
        gc_printf(g, "%s(%s)[0] = (%s)[0] != 0;\n", ind, dst, p);
        return;
    case FBE_IR_SHAPE_COPY:
        gc_printf(g, "%smemcpy(%s, %s, %" PRIu32 ");\n", ind, dst, p, t->final_size);
        return;
    default:
        gc_fn(g, t, f, sizeof f);
        gc_printf(g, "%s%s_fcopy(%s, %s);\n", ind, f, p, dst);
        return;
    }
}

/* The condition under which the levels of fixed value t (in a struct at
 * `depth`) pass the limit; false: height 0, nothing to check. */
static bool depth_check(gc *g, const fbe_ir_type *t, const char *depth, char *buf, size_t size)
{
    uint32_t ht = fbe_interp_fixed_height(g->interp, t);
    if (ht)
        snprintf(buf, size, "SC_UNLIKELY((uint64_t)%s + %" PRIu32 " > r->max_depth)", depth, ht);
    return ht != 0;
}

/* Reading a fixed value of type t that spans struct levels fails when they
 * pass the limit. */
static void depth_fail(gc *g, const char *ind, const fbe_ir_type *t)
{
    char cond[128];
    if (depth_check(g, t, "depth", cond, sizeof cond))
        gc_printf(g, "%sif (%s)\n%s    return NULL;\n", ind, cond, ind);
}

/* The count check of a collection (static_c.h sc_count_fits) with its element
 * minimum (fbe_interp_count_min) as a constant. */
static void fits_expr(uint64_t min, char *buf, size_t size)
{
    snprintf(buf, size, "sc_count_fits(count, %" PRIu64 "u, room - 4, (size_t)(r->end - r->data))",
             min);
}

/* ---- declarations ------------------------------------------------------------------ */

void gc_emit_final_decls(gc *g)
{
    gc_printf(g, "\n/* ---- final model: declarations ---- */\n\n");
    for (size_t k = 0; k < g->struct_count; k++) {
        gc_printf(g, "static SC_UNUSED uint64_t s%zu_fsize(const uint8_t *h);\n", k);
        gc_printf(g, "static SC_UNUSED uint8_t *s%zu_fwrite(const uint8_t *h, uint8_t *w);\n", k);
        gc_printf(g, "static SC_UNUSED const uint8_t *s%zu_fv(sc_frd *r, const uint8_t *p, "
                     "unsigned depth);\n", k);
        gc_printf(g, "static SC_UNUSED const uint8_t *s%zu_fd(sc_frd *r, const uint8_t *p, "
                     "uint8_t *dst, unsigned depth);\n", k);
        bool fixed = g->structs[k]->final_fixed, base = g->is_base[k];
        if (fixed)
            gc_printf(g, "static SC_UNUSED void s%zu_fcopy(const uint8_t *p, uint8_t *dst);\n", k);
        if (!fixed || base)
            gc_printf(g, "static SC_UNUSED const uint8_t *s%zu_fdfields(sc_frd *r, const uint8_t *p, "
                         "uint8_t *dst, unsigned depth);\n", k);
        if (base) {
            gc_printf(g, "static SC_UNUSED const uint8_t *s%zu_fvf(sc_frd *r, const uint8_t *p, "
                         "unsigned depth);\n", k);
            if (!fixed)
                gc_printf(g, "static SC_UNUSED uint64_t s%zu_fsizef(const uint8_t *h);\n", k);
        }
    }
    for (size_t n = 0; n < g->node_count; n++) {
        gc_printf(g, "static SC_UNUSED uint64_t t%zu_fsize(const uint8_t *h);\n", n);
        gc_printf(g, "static SC_UNUSED uint8_t *t%zu_fwrite(const uint8_t *h, uint8_t *w);\n", n);
        gc_printf(g, "static SC_UNUSED const uint8_t *t%zu_fv(sc_frd *r, const uint8_t *p, "
                     "unsigned depth);\n", n);
        gc_printf(g, "static SC_UNUSED const uint8_t *t%zu_fd(sc_frd *r, const uint8_t *p, "
                     "uint8_t *dst, unsigned depth);\n", n);
        if (g->nodes[n]->final_fixed)
            gc_printf(g, "static SC_UNUSED void t%zu_fcopy(const uint8_t *p, uint8_t *dst);\n", n);
    }
}

/* ---- structs ----------------------------------------------------------------------- */

/* Fixed fields [a, b) of a struct, from wire offset `at` (an expression) into
 * dst, bytes known to be there. */
static void copy_fields(gc *g, const fbe_ir_struct *st, size_t a, size_t b, const char *at)
{
    uint64_t off = 0;
    for (size_t i = a; i < b;) {
        const fbe_ir_field *f = &st->fields[i];
        size_t j = fbe_ir_plain_run(st->fields, i, b);
        if (j > i) {
            uint64_t len = fbe_ir_plain_run_bytes(st->fields, i, j);
            if (len)
                gc_printf(g, "    memcpy(dst + %" PRIu32 ", %s + %" PRIu64 ", %" PRIu64 "); /* %s%s%s */\n",
                          f->host_offset, at, off, len, f->name, j > i + 1 ? " .. " : "",
                          j > i + 1 ? st->fields[j - 1].name : "");
            off += len;
            i = j;
            continue;
        }
        char p[96], dst[64];
        snprintf(p, sizeof p, "%s + %" PRIu64, at, off);
        snprintf(dst, sizeof dst, "dst + %" PRIu32, f->host_offset);
        gc_printf(g, "    /* %s */\n", f->name);
        copy_value(g, "    ", f->type, p, dst);
        off += f->type->final_size;
        i++;
    }
}

/* sum += the sizes of st's own fields; `sat` ends the walk past SC_SAT.
 * `pre` is the fixed bytes not yet added; returns those left at the end. */
static uint64_t size_fields(gc *g, const fbe_ir_struct *st, uint64_t pre, const char *sat)
{
    for (size_t i = st->own_field_start; i < st->field_count; i++) {
        const fbe_ir_field *f = &st->fields[i];
        if (f->type->final_fixed) {
            pre += f->type->final_size;
            continue;
        }
        char h[64];
        snprintf(h, sizeof h, "h + %" PRIu32, f->host_offset);
        gc_printf(g, "    sum += %" PRIu64 " + ", pre);
        size_expr(g, f->type, h);
        gc_printf(g, "; /* %s */\n    if (sum > SC_SAT)\n        return %s;\n", f->name, sat);
        pre = 0;
    }
    return pre;
}

/* The inherited fields' part of the size walk: a fixed base is a constant,
 * else its s<k>_fsizef (the sum up to its last non-fixed field, UINT64_MAX
 * past SC_SAT) plus its trailing fixed bytes. Returns the bytes not yet added. */
static uint64_t size_base(gc *g, const fbe_ir_struct *st, const char *sat)
{
    const fbe_ir_struct *b = gc_shared_base(st);
    if (!b)
        return 0;
    if (b->final_fixed)
        return b->final_size;
    gc_printf(g, "    sum = s%zu_fsizef(h); /* the inherited fields */\n"
                 "    if (sum > SC_SAT)\n        return %s;\n",
              gc_struct_index(g, b), sat);
    return fbe_interp_final_trailing(b);
}

static void struct_size(gc *g, size_t k)
{
    const fbe_ir_struct *st = g->structs[k];
    if (g->is_base[k] && !st->final_fixed) {
        gc_printf(g, "/* %s: bytes of the fields up to the last one that is not fixed;\n"
                     " * UINT64_MAX past SC_SAT */\nstatic uint64_t s%zu_fsizef(const uint8_t *h)\n{\n"
                     "    uint64_t sum = 0;\n",
                  st->full_name, k);
        uint64_t pre = size_base(g, st, "UINT64_MAX");
        size_fields(g, st, pre, "UINT64_MAX");
        gc_printf(g, "    return sum;\n}\n\n");
    }
    gc_printf(g, "/* %s: bytes of the fields */\nstatic uint64_t s%zu_fsize(const uint8_t *h)\n{\n",
              st->full_name, k);
    if (st->final_fixed) {
        gc_printf(g, "    (void)h;\n    return %" PRIu32 ";\n}\n\n", st->final_size);
        return;
    }
    if (g->is_base[k]) {
        gc_printf(g, "    uint64_t sum = s%zu_fsizef(h);\n"
                     "    return sum > SC_SAT ? SC_SAT : sum + %" PRIu64 ";\n}\n\n",
                  k, fbe_interp_final_trailing(st));
        return;
    }
    gc_printf(g, "    uint64_t sum = 0;\n");
    uint64_t pre = size_base(g, st, "SC_SAT");
    pre = size_fields(g, st, pre, "SC_SAT");
    gc_printf(g, "    return sum + %" PRIu64 ";\n}\n\n", pre);
}

static void struct_write(gc *g, size_t k)
{
    const fbe_ir_struct *st = g->structs[k], *b = gc_shared_base(st);
    gc_printf(g, "static uint8_t *s%zu_fwrite(const uint8_t *h, uint8_t *w)\n{\n    (void)h;\n", k);
    if (b) /* no header in the final model: the base's fields come first */
        gc_printf(g, "    w = s%zu_fwrite(h, w); /* the inherited fields */\n", gc_struct_index(g, b));
    for (size_t i = st->own_field_start; i < st->field_count;) {
        const fbe_ir_field *f = &st->fields[i];
        size_t j = fbe_ir_plain_run(st->fields, i, st->field_count);
        if (j > i) {
            uint64_t len = fbe_ir_plain_run_bytes(st->fields, i, j);
            gc_printf(g, "    memcpy(w, h + %" PRIu32 ", %" PRIu64 "); /* %s%s%s */\n    w += %" PRIu64 ";\n",
                      f->host_offset, len, f->name, j > i + 1 ? " .. " : "",
                      j > i + 1 ? st->fields[j - 1].name : "", len);
            i = j;
            continue;
        }
        char h[64];
        snprintf(h, sizeof h, "h + %" PRIu32, f->host_offset);
        gc_printf(g, "    /* %s */\n", f->name);
        write_value(g, "    ", f->type, h);
        i++;
    }
    gc_printf(g, "    return w;\n}\n\n");
}

static void struct_fixed(gc *g, size_t k)
{
    const fbe_ir_struct *st = g->structs[k], *b = gc_shared_base(st);
    uint32_t fixed_depth = interp_prog_for(g->interp, st)->fixed_depth;
    gc_printf(g,
              "/* %s (fixed, %" PRIu32 " bytes, %" PRIu32 " struct levels) */\n"
              "static const uint8_t *s%zu_fv(sc_frd *r, const uint8_t *p, unsigned depth)\n{\n"
              "    if (SC_UNLIKELY(sc_short(r, p, %" PRIu32 ")))\n"
              "        return NULL;\n"
              "    if (SC_UNLIKELY((uint64_t)depth + %" PRIu32 " > r->max_depth))\n"
              "        return NULL;\n"
              "    return p + %" PRIu32 ";\n}\n\n",
              st->full_name, st->final_size, fixed_depth, k, st->final_size, fixed_depth - 1,
              st->final_size);
    gc_printf(g, "static void s%zu_fcopy(const uint8_t *p, uint8_t *dst)\n{\n    (void)p;\n", k);
    if (!st->field_count)
        gc_printf(g, "    memset(dst, 0, %" PRIu32 "); /* the host's placeholder byte */\n",
                  st->host_size);
    if (b) {
        char at[48];
        gc_printf(g, "    s%zu_fcopy(p, dst); /* the inherited fields */\n", gc_struct_index(g, b));
        snprintf(at, sizeof at, "(p + %" PRIu32 ")", b->final_size);
        copy_fields(g, st, st->own_field_start, st->field_count, at);
    } else {
        copy_fields(g, st, 0, st->field_count, "p");
    }
    gc_printf(g, "}\n\n");
    gc_printf(g,
              "static const uint8_t *s%zu_fd(sc_frd *r, const uint8_t *p, uint8_t *dst, unsigned depth)\n{\n"
              "    if (SC_UNLIKELY(sc_short(r, p, %" PRIu32 ")))\n"
              "        return NULL;\n"
              "    if (SC_UNLIKELY((uint64_t)depth + %" PRIu32 " > r->max_depth))\n"
              "        return NULL;\n"
              "    s%zu_fcopy(p, dst);\n    return p + %" PRIu32 ";\n}\n\n",
              k, st->final_size, fixed_depth - 1, k, st->final_size);
}

/* A run of fields that can only fail their bounds from field i: its end, and
 * its bytes in *run. */
static size_t plain_run(gc *g, const fbe_ir_struct *st, size_t i, uint64_t *run)
{
    size_t j = i;
    *run = 0;
    while (j < st->field_count && skip(g, st->fields[j].type))
        *run += st->fields[j++].type->final_size;
    return j;
}

/* The walk of st's own fields at p, after the inherited ones (s<base>_fvf). */
static void verify_fields(gc *g, size_t k)
{
    const fbe_ir_struct *st = g->structs[k], *b = gc_shared_base(st);
    if (b)
        gc_printf(g, "    SC_FTRY(s%zu_fvf(r, p, depth)); /* the inherited fields */\n",
                  gc_struct_index(g, b));
    for (size_t i = st->own_field_start; i < st->field_count;) {
        const fbe_ir_field *f = &st->fields[i];
        const fbe_ir_type *t = f->type;
        uint64_t run;
        size_t j = plain_run(g, st, i, &run);
        if (j > i) {
            if (run)
                gc_printf(g,
                          "    if (SC_UNLIKELY(sc_short(r, p, %" PRIu64 "))) /* %s%s%s */\n"
                          "        return NULL;\n    p += %" PRIu64 ";\n",
                          run, f->name, j > i + 1 ? " .. " : "", j > i + 1 ? st->fields[j - 1].name : "",
                          run);
            i = j;
            continue;
        }
        char call[256];
        gc_printf(g, "    /* %s */\n", f->name);
        if (t->final_fixed) {
            gc_printf(g, "    if (SC_UNLIKELY(sc_short(r, p, %" PRIu32 ")))\n        return NULL;\n",
                      t->final_size);
            if (depth_check(g, t, "depth", call, sizeof call))
                gc_printf(g, "    if (%s)\n        return NULL;\n", call);
            gc_printf(g, "    p += %" PRIu32 ";\n", t->final_size);
        } else {
            verify_expr(g, t, "p", "depth", call, sizeof call);
            gc_printf(g, "    SC_FTRY(%s);\n", call);
        }
        i++;
    }
}

static void struct_verify(gc *g, size_t k)
{
    const fbe_ir_struct *st = g->structs[k];
    if (g->is_base[k]) { /* a fixed base's too: the walk of a derived struct that is not */
        gc_printf(g,
                  "/* the fields of %s at p (level depth) */\n"
                  "static const uint8_t *s%zu_fvf(sc_frd *r, const uint8_t *p, unsigned depth)\n{\n"
                  "    (void)r;\n    (void)depth;\n",
                  st->full_name, k);
        verify_fields(g, k);
        gc_printf(g, "    return p;\n}\n\n");
    }
    if (st->final_fixed)
        return;
    gc_printf(g,
              "/* %s at p, at level depth */\n"
              "static const uint8_t *s%zu_fv(sc_frd *r, const uint8_t *p, unsigned depth)\n{\n"
              "    if (SC_UNLIKELY(depth > r->max_depth))\n"
              "        return NULL;\n",
              st->full_name, k);
    if (g->is_base[k]) {
        gc_printf(g, "    return s%zu_fvf(r, p, depth);\n}\n\n", k);
        return;
    }
    verify_fields(g, k);
    gc_printf(g, "    return p;\n}\n\n");
}

/* fdfields: the fields at p into dst. A fixed base gets one too: a derived
 * struct that is not fixed reads its fields one by one. */
static void struct_read(gc *g, size_t k)
{
    const fbe_ir_struct *st = g->structs[k], *b = gc_shared_base(st);
    size_t n = st->field_count;
    if (!st->final_fixed)
        gc_printf(g,
                  "static const uint8_t *s%zu_fd(sc_frd *r, const uint8_t *p, uint8_t *dst, unsigned depth)\n{\n"
                  "    if (SC_UNLIKELY(depth > r->max_depth))\n"
                  "        return NULL;\n"
                  "    return s%zu_fdfields(r, p, dst, depth);\n}\n\n",
                  k, k);
    gc_printf(g,
              "/* %s: the fields at p into dst */\n"
              "static const uint8_t *s%zu_fdfields(sc_frd *r, const uint8_t *p, uint8_t *dst, "
              "unsigned depth)\n{\n    (void)r;\n    (void)dst;\n    (void)depth;\n",
              st->full_name, k);
    if (b)
        gc_printf(g, "    SC_FTRY(s%zu_fdfields(r, p, dst, depth)); /* the inherited fields */\n",
                  gc_struct_index(g, b));
    for (size_t i = st->own_field_start; i < n;) {
        const fbe_ir_field *f = &st->fields[i];
        const fbe_ir_type *t = f->type;
        uint64_t run;
        size_t j = plain_run(g, st, i, &run);
        if (j > i) {
            if (run) {
                gc_printf(g, "    if (SC_UNLIKELY(sc_short(r, p, %" PRIu64 ")))\n        return NULL;\n",
                          run);
                copy_fields(g, st, i, j, "p");
                gc_printf(g, "    p += %" PRIu64 ";\n", run);
            }
            i = j;
            continue;
        }
        char dst[64], call[256];
        snprintf(dst, sizeof dst, "dst + %" PRIu32, f->host_offset);
        gc_printf(g, "    /* %s */\n", f->name);
        if (t->final_fixed) {
            gc_printf(g,
                      "    if (SC_UNLIKELY(sc_short(r, p, %" PRIu32 ") ||\n"
                      "                    (uint64_t)depth + %" PRIu32 " > r->max_depth))\n"
                      "        return NULL;\n",
                      t->final_size, fbe_interp_fixed_height(g->interp, t));
            copy_value(g, "    ", t, "p", dst);
            gc_printf(g, "    p += %" PRIu32 ";\n", t->final_size);
        } else {
            read_expr(g, t, "p", dst, "depth", call, sizeof call);
            gc_printf(g, "    SC_FTRY(%s);\n", call);
        }
        i++;
    }
    gc_printf(g, "    return p;\n}\n\n");
}

/* ---- type nodes -------------------------------------------------------------------- */

static void node_size(gc *g, size_t n)
{
    const fbe_ir_type *t = g->nodes[n], *e = t->elem, *k = t->key;
    char h[128];
    gc_printf(g, "static uint64_t t%zu_fsize(const uint8_t *h)\n{\n", n);
    if (t->final_fixed) {
        gc_printf(g, "    (void)h;\n    return %" PRIu32 ";\n}\n\n", t->final_size);
        return;
    }
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_OPTIONAL:
        snprintf(h, sizeof h, "h + %" PRIu32, t->host_value_offset);
        gc_printf(g, "    if (!h[0])\n        return 1;\n    return 1 + ");
        size_expr(g, e, h);
        gc_printf(g, ";\n");
        break;
    case FBE_IR_SHAPE_OPT_STRUCT:
        gc_printf(g, "    const uint8_t *p = sc_ptr_at(h);\n    return p ? 1 + ");
        size_expr(g, e, "p");
        gc_printf(g, " : 1;\n");
        break;
    case FBE_IR_SHAPE_ARRAY:
        snprintf(h, sizeof h, "h + (size_t)i * %" PRIu32, e->host_size);
        gc_printf(g, "    uint64_t sum = 0;\n    for (uint32_t i = 0; i < %" PRIu32 "u; i++) {\n"
                     "        sum += ", t->array_len);
        size_expr(g, e, h);
        gc_printf(g, ";\n        if (sum > SC_SAT)\n            return SC_SAT;\n    }\n    return sum;\n");
        break;
    case FBE_IR_SHAPE_SEQ:
        gc_printf(g, "    sc_view v = sc_view_at(h);\n    if (v.size > UINT32_MAX)\n        return SC_SAT;\n");
        if (e->final_fixed) {
            gc_printf(g, "    uint64_t sum = 4 + (uint64_t)v.size * %" PRIu32 ";\n"
                         "    return sum > SC_SAT ? SC_SAT : sum;\n", e->final_size);
            break;
        }
        snprintf(h, sizeof h, "v.data + i * %" PRIu32, e->host_size);
        gc_printf(g, "    uint64_t sum = 4;\n    for (size_t i = 0; i < v.size; i++) {\n        sum += ");
        size_expr(g, e, h);
        gc_printf(g, ";\n        if (sum > SC_SAT)\n            return SC_SAT;\n    }\n    return sum;\n");
        break;
    case FBE_IR_SHAPE_MAP:
        gc_printf(g, "    sc_view v = sc_view_at(h);\n    if (v.size > UINT32_MAX)\n        return SC_SAT;\n");
        if (k->final_fixed && e->final_fixed) {
            uint64_t per = final_entry_size(t);
            if (per)
                gc_printf(g, "    if (v.size > SC_SAT / %" PRIu64 ")\n        return SC_SAT;\n", per);
            gc_printf(g, "    return 4 + (uint64_t)v.size * %" PRIu64 ";\n", per);
            break;
        }
        gc_printf(g, "    uint64_t sum = 4;\n    for (size_t i = 0; i < v.size; i++) {\n"
                     "        const uint8_t *entry = v.data + i * %" PRIu32 ";\n        sum += ",
                  t->host_entry_size);
        size_expr(g, k, "entry");
        gc_printf(g, ";\n        sum += ");
        snprintf(h, sizeof h, "entry + %" PRIu32, t->host_entry_value_offset);
        size_expr(g, e, h);
        gc_printf(g, ";\n        if (sum > SC_SAT)\n            return SC_SAT;\n    }\n    return sum;\n");
        break;
    default:
        gc_printf(g, "    (void)h;\n    return 0;\n");
        break;
    }
    gc_printf(g, "}\n\n");
}

static void node_write(gc *g, size_t n)
{
    const fbe_ir_type *t = g->nodes[n], *e = t->elem, *k = t->key;
    char h[128];
    gc_printf(g, "static uint8_t *t%zu_fwrite(const uint8_t *h, uint8_t *w)\n{\n", n);
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_OPTIONAL:
        snprintf(h, sizeof h, "h + %" PRIu32, t->host_value_offset);
        gc_printf(g, "    if (!h[0]) {\n        *w = 0;\n        return w + 1;\n    }\n    *w++ = 1;\n");
        write_value(g, "    ", e, h);
        gc_printf(g, "    return w;\n");
        break;
    case FBE_IR_SHAPE_OPT_STRUCT:
        gc_printf(g, "    const uint8_t *p = sc_ptr_at(h);\n"
                     "    if (!p) {\n        *w = 0;\n        return w + 1;\n    }\n    *w++ = 1;\n"
                     "    return s%zu_fwrite(p, w);\n",
                  gc_struct_index(g, e->struct_type));
        break;
    case FBE_IR_SHAPE_ARRAY:
        if (fbe_ir_shape_of(e) == FBE_IR_SHAPE_COPY) {
            gc_printf(g, "    memcpy(w, h, %" PRIu32 ");\n    return w + %" PRIu32 ";\n", t->final_size,
                      t->final_size);
            break;
        }
        snprintf(h, sizeof h, "h + (size_t)i * %" PRIu32, e->host_size);
        gc_printf(g, "    for (uint32_t i = 0; i < %" PRIu32 "u; i++) {\n", t->array_len);
        write_value(g, "        ", e, h);
        gc_printf(g, "    }\n    return w;\n");
        break;
    case FBE_IR_SHAPE_SEQ:
        gc_printf(g, "    sc_view v = sc_view_at(h);\n    sc_wr32(w, (uint32_t)v.size);\n    w += 4;\n");
        if (fbe_ir_shape_of(e) == FBE_IR_SHAPE_COPY) {
            gc_printf(g, "    if (v.size)\n        memcpy(w, v.data, v.size * %" PRIu32 ");\n"
                         "    return w + v.size * %" PRIu32 ";\n",
                      e->final_size, e->final_size);
            break;
        }
        snprintf(h, sizeof h, "v.data + i * %" PRIu32, e->host_size);
        gc_printf(g, "    for (size_t i = 0; i < v.size; i++) {\n");
        write_value(g, "        ", e, h);
        gc_printf(g, "    }\n    return w;\n");
        break;
    case FBE_IR_SHAPE_MAP:
        gc_printf(g, "    sc_view v = sc_view_at(h);\n    sc_wr32(w, (uint32_t)v.size);\n    w += 4;\n"
                     "    for (size_t i = 0; i < v.size; i++) {\n"
                     "        const uint8_t *entry = v.data + i * %" PRIu32 ";\n",
                  t->host_entry_size);
        write_value(g, "        ", k, "entry");
        snprintf(h, sizeof h, "entry + %" PRIu32, t->host_entry_value_offset);
        write_value(g, "        ", e, h);
        gc_printf(g, "    }\n    return w;\n");
        break;
    default:
        gc_printf(g, "    (void)h;\n    return w;\n");
        break;
    }
    gc_printf(g, "}\n\n");
}

static void node_verify(gc *g, size_t n)
{
    const fbe_ir_type *t = g->nodes[n], *e = t->elem, *k = t->key;
    char call[256], call2[256], fits[128];
    gc_printf(g, "static const uint8_t *t%zu_fv(sc_frd *r, const uint8_t *p, unsigned depth)\n{\n"
                 "    (void)depth;\n", n);
    if (t->final_fixed) { /* an array made only of fixed parts */
        gc_printf(g, "    if (SC_UNLIKELY(sc_short(r, p, %" PRIu32 ")))\n"
                     "        return NULL;\n", t->final_size);
        if (depth_check(g, t, "depth", call, sizeof call))
            gc_printf(g, "    if (%s)\n        return NULL;\n", call);
        gc_printf(g, "    return p + %" PRIu32 ";\n}\n\n", t->final_size);
        return;
    }
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_OPTIONAL:
        verify_expr(g, e, "p + 1", "depth", call, sizeof call);
        gc_printf(g, "    if (SC_UNLIKELY(sc_room(r, p) < 1))\n        return NULL;\n"
                     "    if (!*p)\n        return p + 1;\n    return %s;\n", call);
        break;
    case FBE_IR_SHAPE_OPT_STRUCT:
        gc_printf(g, "    if (SC_UNLIKELY(sc_room(r, p) < 1))\n        return NULL;\n"
                     "    if (!*p)\n        return p + 1;\n    return s%zu_fv(r, p + 1, depth + 1);\n",
                  gc_struct_index(g, e->struct_type));
        break;
    case FBE_IR_SHAPE_ARRAY:
        verify_expr(g, e, "p", "depth", call, sizeof call);
        gc_printf(g, "    for (uint32_t i = 0; i < %" PRIu32 "u && p; i++)\n        p = %s;\n    return p;\n",
                  t->array_len, call);
        break;
    case FBE_IR_SHAPE_SEQ:
        fits_expr(fbe_interp_count_min(g->interp, t), fits, sizeof fits);
        gc_printf(g, "    size_t room = sc_room(r, p);\n"
                     "    if (SC_UNLIKELY(room < 4))\n        return NULL;\n"
                     "    uint32_t count = sc_rd32(p);\n"
                     "    if (SC_UNLIKELY(!(%s)))\n        return NULL;\n"
                     "    p += 4;\n", fits);
        if (e->final_fixed) { /* the count check covered the bytes */
            if (depth_check(g, e, "depth", call, sizeof call))
                gc_printf(g, "    if (count && %s)\n        return NULL;\n", call);
            gc_printf(g, "    return p + (size_t)count * %" PRIu32 ";\n", e->final_size);
            break;
        }
        verify_expr(g, e, "p", "depth", call, sizeof call);
        gc_printf(g, "    for (uint32_t i = 0; i < count && p; i++)\n        p = %s;\n    return p;\n", call);
        break;
    case FBE_IR_SHAPE_MAP:
        fits_expr(fbe_interp_count_min(g->interp, t), fits, sizeof fits);
        gc_printf(g, "    size_t room = sc_room(r, p);\n"
                     "    if (SC_UNLIKELY(room < 4))\n        return NULL;\n"
                     "    uint32_t count = sc_rd32(p);\n"
                     "    if (SC_UNLIKELY(!(%s)))\n        return NULL;\n"
                     "    p += 4;\n", fits);
        if (k->final_fixed && e->final_fixed) {
            if (depth_check(g, k, "depth", call, sizeof call))
                gc_printf(g, "    if (count && %s)\n        return NULL;\n", call);
            if (depth_check(g, e, "depth", call, sizeof call))
                gc_printf(g, "    if (count && %s)\n        return NULL;\n", call);
            gc_printf(g, "    return p + (size_t)count * %" PRIu64 ";\n", final_entry_size(t));
            break;
        }
        verify_expr(g, k, "p", "depth", call, sizeof call);
        verify_expr(g, e, "p", "depth", call2, sizeof call2);
        gc_printf(g, "    for (uint32_t i = 0; i < count && p; i++) {\n        p = %s;\n"
                     "        if (p)\n            p = %s;\n    }\n    return p;\n", call, call2);
        break;
    default:
        gc_printf(g, "    return p;\n");
        break;
    }
    gc_printf(g, "}\n\n");
}

/* The elements of a collection whose bytes are known to be there (fixed
 * elements): the depth check (elements have one shape: the first fails or
 * none), then copies. */
static void fixed_elems(gc *g, const fbe_ir_type *e, const char *ind)
{
    char dst[64];
    snprintf(dst, sizeof dst, "m + (size_t)i * %" PRIu32, e->host_size);
    if (fbe_ir_shape_of(e) == FBE_IR_SHAPE_COPY) {
        gc_printf(g, "%smemcpy(m, p, (size_t)count * %" PRIu32 ");\n%sp += (size_t)count * %" PRIu32 ";\n",
                  ind, e->final_size, ind, e->final_size);
        return;
    }
    depth_fail(g, ind, e);
    gc_printf(g, "%sfor (uint32_t i = 0; i < count; i++, p += %" PRIu32 ")\n", ind, e->final_size);
    char ind2[32];
    snprintf(ind2, sizeof ind2, "%s    ", ind);
    copy_value(g, ind2, e, "p", dst);
}

static void node_read(gc *g, size_t n)
{
    const fbe_ir_type *t = g->nodes[n], *e = t->elem, *k = t->key;
    char call[256], call2[256], fits[128], dst[96];
    gc_printf(g, "static const uint8_t *t%zu_fd(sc_frd *r, const uint8_t *p, uint8_t *dst, unsigned depth)\n{\n"
                 "    (void)depth;\n", n);
    if (t->final_fixed) { /* an array made only of fixed parts */
        gc_printf(g, "    if (SC_UNLIKELY(sc_short(r, p, %" PRIu32 ")))\n"
                     "        return NULL;\n", t->final_size);
        depth_fail(g, "    ", t);
        gc_printf(g, "    t%zu_fcopy(p, dst);\n    return p + %" PRIu32 ";\n}\n\n", n, t->final_size);
        return;
    }
    switch (fbe_ir_shape_of(t)) {
    case FBE_IR_SHAPE_OPTIONAL:
        snprintf(dst, sizeof dst, "dst + %" PRIu32, t->host_value_offset);
        read_expr(g, e, "p + 1", dst, "depth", call, sizeof call);
        gc_printf(g, "    memset(dst, 0, %" PRIu32 "); /* absent, value zero */\n"
                     "    if (SC_UNLIKELY(sc_room(r, p) < 1))\n        return NULL;\n"
                     "    if (!*p)\n        return p + 1;\n"
                     "    const uint8_t *q = %s;\n    if (q)\n        dst[0] = 1;\n    return q;\n",
                  t->host_size, call);
        break;
    case FBE_IR_SHAPE_OPT_STRUCT: {
        const fbe_ir_struct *st = e->struct_type;
        size_t sk = gc_struct_index(g, st);
        gc_printf(g, "    sc_set_ptr(dst, NULL);\n"
                     "    if (SC_UNLIKELY(r->end == p))\n        return NULL;\n"
                     "    if (!*p)\n        return p + 1;\n    p++;\n");
        if (st->final_fixed)
            gc_printf(g, "    if (SC_UNLIKELY(sc_short(r, p, %" PRIu32 ")))\n"
                         "        return NULL;\n", st->final_size);
        gc_printf(g, "    if (SC_UNLIKELY(depth + 1 > r->max_depth))\n        return NULL;\n"
                     "    uint8_t *m = sc_alloc(r->arena, r->memory, %" PRIu32 ");\n"
                     "    if (SC_UNLIKELY(!m))\n        return NULL;\n",
                  st->host_size);
        if (st->final_fixed)
            gc_printf(g, "    if (SC_UNLIKELY((uint64_t)depth + %" PRIu32 " > r->max_depth))\n"
                         "        return NULL;\n"
                         "    s%zu_fcopy(p, m);\n    sc_set_ptr(dst, m);\n    return p + %" PRIu32 ";\n",
                      interp_prog_for(g->interp, st)->fixed_depth, sk, st->final_size);
        else
            gc_printf(g, "    const uint8_t *q = s%zu_fdfields(r, p, m, depth + 1);\n"
                         "    if (q)\n        sc_set_ptr(dst, m);\n    return q;\n", sk);
        break;
    }
    case FBE_IR_SHAPE_ARRAY:
        snprintf(dst, sizeof dst, "dst + (size_t)i * %" PRIu32, e->host_size);
        read_expr(g, e, "p", dst, "depth", call, sizeof call);
        gc_printf(g, "    for (uint32_t i = 0; i < %" PRIu32 "u && p; i++)\n        p = %s;\n    return p;\n",
                  t->array_len, call);
        break;
    case FBE_IR_SHAPE_SEQ:
    case FBE_IR_SHAPE_MAP: {
        bool map = fbe_ir_shape_of(t) == FBE_IR_SHAPE_MAP;
        uint32_t hs = map ? t->host_entry_size : e->host_size;
        fits_expr(fbe_interp_count_min(g->interp, t), fits, sizeof fits);
        gc_printf(g, "    size_t room = sc_room(r, p);\n    sc_set_view(dst, NULL, 0);\n"
                     "    if (SC_UNLIKELY(room < 4))\n        return NULL;\n"
                     "    uint32_t count = sc_rd32(p);\n"
                     "    if (SC_UNLIKELY(!(%s)))\n        return NULL;\n"
                     "    if (!count)\n        return p + 4;\n"
                     "    uint8_t *m = sc_alloc(r->arena, r->memory, (size_t)count * %" PRIu32 ");\n"
                     "    if (SC_UNLIKELY(!m))\n        return NULL;\n"
                     "    p += 4;\n",
                  fits, hs);
        if (!map && e->final_fixed) {
            fixed_elems(g, e, "    ");
        } else if (map && k->final_fixed && e->final_fixed) {
            /* the first entry's key, then its value, fail the depth check or none does */
            depth_fail(g, "    ", k);
            depth_fail(g, "    ", e);
            gc_printf(g, "    for (uint32_t i = 0; i < count; i++) {\n"
                         "        uint8_t *entry = m + (size_t)i * %" PRIu32 ";\n", hs);
            copy_value(g, "        ", k, "p", "entry");
            snprintf(dst, sizeof dst, "entry + %" PRIu32, t->host_entry_value_offset);
            char vp[64];
            snprintf(vp, sizeof vp, "p + %" PRIu32, k->final_size);
            copy_value(g, "        ", e, vp, dst);
            gc_printf(g, "        p += %" PRIu64 ";\n    }\n", final_entry_size(t));
        } else if (!map) {
            snprintf(dst, sizeof dst, "m + (size_t)i * %" PRIu32, hs);
            read_expr(g, e, "p", dst, "depth", call, sizeof call);
            gc_printf(g, "    for (uint32_t i = 0; i < count && p; i++)\n        p = %s;\n", call);
        } else {
            read_expr(g, k, "p", "entry", "depth", call, sizeof call);
            snprintf(dst, sizeof dst, "entry + %" PRIu32, t->host_entry_value_offset);
            read_expr(g, e, "p", dst, "depth", call2, sizeof call2);
            gc_printf(g, "    for (uint32_t i = 0; i < count && p; i++) {\n"
                         "        uint8_t *entry = m + (size_t)i * %" PRIu32 ";\n"
                         "        p = %s;\n        if (p)\n            p = %s;\n    }\n",
                      hs, call, call2);
        }
        gc_printf(g, "    if (p)\n        sc_set_view(dst, m, count);\n    return p;\n");
        break;
    }
    default:
        gc_printf(g, "    (void)r;\n    (void)dst;\n    return p;\n");
        break;
    }
    gc_printf(g, "}\n\n");
}

static void node_copy(gc *g, size_t n)
{
    const fbe_ir_type *t = g->nodes[n], *e = t->elem;
    gc_printf(g, "static void t%zu_fcopy(const uint8_t *p, uint8_t *dst)\n{\n", n);
    if (fbe_ir_shape_of(e) == FBE_IR_SHAPE_COPY) {
        gc_printf(g, "    memcpy(dst, p, %" PRIu32 ");\n}\n\n", t->final_size);
        return;
    }
    char dst[64];
    snprintf(dst, sizeof dst, "dst + (size_t)i * %" PRIu32, e->host_size);
    gc_printf(g, "    for (uint32_t i = 0; i < %" PRIu32 "u; i++, p += %" PRIu32 ")\n", t->array_len,
              e->final_size);
    copy_value(g, "        ", e, "p", dst);
    gc_printf(g, "}\n\n");
}

void gc_emit_final(gc *g)
{
    gc_printf(g, "\n/* ---- final model ---- */\n\n");
    for (size_t k = 0; k < g->struct_count; k++) {
        struct_size(g, k);
        struct_write(g, k);
        if (g->structs[k]->final_fixed)
            struct_fixed(g, k);
        if (!g->structs[k]->final_fixed || g->is_base[k]) {
            struct_verify(g, k);
            struct_read(g, k);
        }
    }
    for (size_t n = 0; n < g->node_count; n++) {
        node_size(g, n);
        node_write(g, n);
        node_verify(g, n);
        node_read(g, n);
        if (g->nodes[n]->final_fixed)
            node_copy(g, n);
    }
}
