/* Shared state and helpers of the static C generator (gen_c*.c). Internal to
 * fbec.
 *
 * Names in the generated file (all `static` unless exported):
 *   ir_*            the IR image (gen_c_image.c): ir_s<k> is struct k of the
 *                   codec's type table, ir_s<k>_f its fields;
 *   s<k>_*          code of struct k, t<n>_* code of type node n (an optional,
 *                   array or collection; identical types share one node);
 *   sc_*            the fixed helpers (fbe/internal/static_c.h, included by the
 *                   prologue of gen_c_prologue.c);
 *   fbe_<c_name>_<std|final>_<op>   entry points (exported for the root
 *                   package, as `fbec aot` exports them; sc_<c_name>_... else). */
#ifndef FBE_TOOLS_GEN_C_INTERNAL_H
#define FBE_TOOLS_GEN_C_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fbe/codec.h"
#include "fbe/schema.h"

typedef struct gc {
    FILE *out;
    const fbe_schema *schema;
    const fbe_codec *interp; /* the interpreter's program: smallest final encodings */
    unsigned max_depth;
    const fbe_ir_package *root;
    /* every struct, in the codec's type-table order */
    const fbe_ir_struct **structs;
    size_t struct_count;
    /* is_base[k]: a struct calls struct k's code for the fields it inherits
     * (gc_shared_base), so k gets the helpers that take the struct to report */
    bool *is_base;
    /* type nodes that get functions (optionals, arrays, collections), deduplicated
     * by structure */
    const fbe_ir_type **nodes;
    size_t node_count, node_cap;
    /* Nodes by structure (open addressing, index + 1, 0 empty; node_hash[i] is
     * node i's), so that a schema of many types generates in linear time;
     * structs are found through the codec's type index (the struct table is its
     * type table). */
    size_t *node_slots, node_mask;
    uint64_t *node_hash;
    bool frozen; /* every node is registered: emission has started */
    bool failed;
} gc;

void gc_printf(gc *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void gc_error(gc *g, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

size_t gc_struct_index(const gc *g, const fbe_ir_struct *st);
/* The base whose code handles st's inherited fields [0, own_field_start), or
 * NULL when st has none: a derived struct emits only its own fields, so a
 * chain of N levels is O(N) code, not O(N^2). The base's code is valid on the
 * derived value and body as is (the same host and wire offsets); it takes the
 * struct to report errors against, and the derived struct's field array. */
const fbe_ir_struct *gc_shared_base(const fbe_ir_struct *st);
/* The node number of an optional, array or collection type (registering it). */
size_t gc_node(gc *g, const fbe_ir_type *t);
/* The prefix of t's functions in either model: "s<k>" for a struct, "t<n>"
 * for a node. */
void gc_fn(gc *g, const fbe_ir_type *t, char *buf, size_t size);

/* Final model: the depths and smallest encodings are the programs'
 * (fbe_interp_fixed_height, interp_prog_for(...)->fixed_depth,
 * fbe_interp_final_min). */

/* The generated file, part by part. */
void gc_emit_prologue(gc *g);
void gc_emit_image_decls(gc *g);
void gc_emit_image(gc *g);
void gc_emit_std_decls(gc *g);
void gc_emit_std(gc *g);
void gc_emit_final_decls(gc *g);
void gc_emit_final(gc *g);
void gc_emit_entries(gc *g);
void gc_emit_image_tail(gc *g);

#endif
