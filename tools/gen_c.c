/* fbe_gen_c: the driver of the static C backend (see gen_c.h): the struct
 * table, the classification of IR types, the type-node registry, and the order
 * of the generated file's parts. The parts are written by gen_c_prologue.c
 * (a banner and the helpers' header), gen_c_image.c (the IR as C data), gen_c_std.c and
 * gen_c_final.c (the two models) and gen_c_entry.c (entry points). */
#define _POSIX_C_SOURCE 200809L
#include "gen_c.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "gen_c_internal.h"
#include "interp/program.h"

void gc_printf(gc *g, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(g->out, fmt, ap) < 0)
        g->failed = true;
    va_end(ap);
}

void gc_error(gc *g, const char *fmt, ...)
{
    if (!g->failed) {
        va_list ap;
        va_start(ap, fmt);
        fputs("fbec c: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    g->failed = true;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9u;
    return x ^ (x >> 29);
}

static uint64_t pointer_hash(const void *p)
{
    return mix((uint64_t)(uintptr_t)p);
}

/* A table of at least twice `n` slots. */
static size_t *new_slots(size_t n, size_t *mask)
{
    size_t slots = 16;
    while (slots < 2 * n)
        slots *= 2;
    *mask = slots - 1;
    return calloc(slots, sizeof(size_t));
}

/* The struct table is the codec's type table (checked when it is built). */
size_t gc_struct_index(const gc *g, const fbe_ir_struct *st)
{
    size_t i = fbe_codec_index_of(g->interp, st);
    return i < g->struct_count ? i : (size_t)-1;
}

const fbe_ir_struct *gc_shared_base(const fbe_ir_struct *st)
{
    return st->base && st->own_field_start ? st->base : NULL;
}

/* Same code for both: the same shape, the same structs, enums and sizes. */
static bool same_type(const fbe_ir_type *a, const fbe_ir_type *b)
{
    if (a == b)
        return true;
    if (!a || !b)
        return false;
    return a->kind == b->kind && a->array_len == b->array_len && a->enum_type == b->enum_type &&
           a->flags_type == b->flags_type && a->struct_type == b->struct_type &&
           same_type(a->elem, b->elem) && same_type(a->key, b->key);
}

/* Agrees with same_type: equal types hash equal. */
static uint64_t type_hash(const fbe_ir_type *t)
{
    if (!t)
        return 0x9e3779b97f4a7c15u;
    uint64_t h = mix((uint64_t)t->kind << 32 ^ t->array_len);
    h = mix(h ^ pointer_hash(t->enum_type)) ^ pointer_hash(t->flags_type);
    h = mix(h ^ pointer_hash(t->struct_type)) ^ type_hash(t->elem);
    return mix(h ^ mix(type_hash(t->key)));
}

/* Node index + 1 slot for hash h: the node's, or the empty one to take. */
static size_t *node_slot(gc *g, const fbe_ir_type *t, uint64_t h)
{
    size_t i = h & g->node_mask;
    while (g->node_slots[i] && !(g->node_hash[g->node_slots[i] - 1] == h &&
                                 same_type(g->nodes[g->node_slots[i] - 1], t)))
        i = (i + 1) & g->node_mask;
    return &g->node_slots[i];
}

/* Room for one more node: the arrays grown, the index rebuilt when half full. */
static bool node_room(gc *g)
{
    if (g->node_count == g->node_cap) {
        size_t cap = g->node_cap ? g->node_cap * 2 : 64;
        const fbe_ir_type **n = realloc(g->nodes, cap * sizeof *n);
        if (n)
            g->nodes = n;
        uint64_t *hs = n ? realloc(g->node_hash, cap * sizeof *hs) : NULL;
        if (!hs)
            return false;
        g->node_hash = hs;
        g->node_cap = cap;
    }
    if (g->node_slots && 2 * (g->node_count + 1) <= g->node_mask + 1)
        return true;
    size_t mask;
    size_t *slots = new_slots(g->node_count + 1, &mask);
    if (!slots)
        return false;
    free(g->node_slots);
    g->node_slots = slots;
    g->node_mask = mask;
    for (size_t i = 0; i < g->node_count; i++)
        *node_slot(g, g->nodes[i], g->node_hash[i]) = i + 1;
    return true;
}

size_t gc_node(gc *g, const fbe_ir_type *t)
{
    uint64_t h = type_hash(t);
    if (g->node_slots) {
        size_t *slot = node_slot(g, t, h);
        if (*slot)
            return *slot - 1;
    }
    if (g->frozen) { /* a function would be called that is never emitted */
        gc_error(g, "internal error: a type node was not registered");
        return 0;
    }
    if (!node_room(g)) {
        gc_error(g, "out of memory");
        return 0;
    }
    g->nodes[g->node_count] = t;
    g->node_hash[g->node_count] = h;
    *node_slot(g, t, h) = g->node_count + 1;
    return g->node_count++;
}

void gc_fn(gc *g, const fbe_ir_type *t, char *buf, size_t size)
{
    if (fbe_ir_shape_of(t) == FBE_IR_SHAPE_STRUCT)
        snprintf(buf, size, "s%zu", gc_struct_index(g, t->struct_type));
    else
        snprintf(buf, size, "t%zu", gc_node(g, t));
}

/* Registers every node reachable from t (children first, so their numbers are
 * smaller; the order only affects names). */
static void register_type(gc *g, const fbe_ir_type *t)
{
    if (t->elem)
        register_type(g, t->elem);
    if (t->key)
        register_type(g, t->key);
    fbe_ir_shape c = fbe_ir_shape_of(t);
    if (c >= FBE_IR_SHAPE_OPTIONAL) /* optionals, arrays, collections */
        gc_node(g, t);
}

bool fbe_gen_c(const fbe_schema *schema, unsigned max_depth, FILE *out)
{
    gc g;
    memset(&g, 0, sizeof g);
    g.schema = schema;
    g.root = fbe_schema_root(schema);
    g.max_depth = max_depth ? max_depth : FBE_DEFAULT_MAX_DEPTH;
    fbe_codec_options copts = {.max_depth = g.max_depth};
    fbe_status st = FBE_OK;
    fbe_codec *interp = fbe_interp_create(schema, &copts, &st);
    if (!interp) {
        fprintf(stderr, "fbec c: cannot build the codec: %s\n", fbe_strerror(st));
        return false;
    }
    g.interp = interp;

    size_t np = fbe_schema_package_count(schema), total = 0;
    for (size_t i = 0; i < np; i++)
        total += fbe_schema_package(schema, i)->struct_count;
    g.structs = calloc(total + 1, sizeof *g.structs);
    g.is_base = calloc(total + 1, sizeof *g.is_base);
    char *text = NULL;
    size_t len = 0;
    g.out = g.structs && g.is_base ? open_memstream(&text, &len) : NULL;
    if (!g.out) {
        fprintf(stderr, "fbec c: out of memory\n");
        free(g.is_base);
        free(g.structs);
        fbe_codec_free(interp);
        return false;
    }
    /* The codec's type table order: packages imports first, structs in order. */
    for (size_t i = 0; i < np; i++) {
        const fbe_ir_package *p = fbe_schema_package(schema, i);
        for (size_t k = 0; k < p->struct_count; k++)
            g.structs[g.struct_count++] = p->structs[k];
    }
    for (size_t i = 0; i < g.struct_count && !g.failed; i++)
        if (i >= interp->type_count || interp->types[i].ir != g.structs[i])
            gc_error(&g, "the struct table differs from the codec's (struct %s)",
                     g.structs[i]->full_name);
    for (size_t i = 0; i < g.struct_count; i++) {
        const fbe_ir_struct *b = gc_shared_base(g.structs[i]);
        size_t kb = b ? gc_struct_index(&g, b) : (size_t)-1;
        if (b && kb == (size_t)-1)
            gc_error(&g, "the base of struct %s is not in the struct table", g.structs[i]->full_name);
        else if (b)
            g.is_base[kb] = true;
    }
    /* inherited fields' types are their base's, registered with it */
    for (size_t i = 0; i < g.struct_count; i++)
        for (size_t f = g.structs[i]->own_field_start; f < g.structs[i]->field_count; f++)
            register_type(&g, g.structs[i]->fields[f].type);

    g.frozen = true;
    if (!g.failed) {
        gc_emit_prologue(&g);
        gc_emit_image_decls(&g);
        gc_emit_std_decls(&g);
        gc_emit_final_decls(&g);
        gc_emit_image(&g);
        gc_emit_std(&g);
        gc_emit_final(&g);
        gc_emit_entries(&g);
        gc_emit_image_tail(&g);
    }
    if (fclose(g.out) != 0)
        g.failed = true;
    bool ok = !g.failed;
    if (ok && fwrite(text, 1, len, out) != len) {
        fprintf(stderr, "fbec c: write error\n");
        ok = false;
    }
    free(text);
    free(g.nodes);
    free(g.node_hash);
    free(g.node_slots);
    free(g.is_base);
    free(g.structs);
    fbe_codec_free(interp);
    return ok;
}
