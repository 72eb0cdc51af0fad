/* Serialize refuses what verify would reject as too deep (docs/codec.md,
 * "Limits"): a frame we write must be one we can read back.
 *
 * Verify counts one level per struct body entered (the root is level 1), the
 * same for struct fields, optional structs and collection elements. Most types
 * cannot nest deeper than the codec's max_depth whatever the value: for them
 * nothing changes and serialize costs nothing more. For the others (a struct
 * reachable from itself through an optional or a collection, or a chain of
 * types deeper than the limit), serialize first walks the host value by the IR,
 * at most max_depth + 1 levels deep and only into structs whose type can reach
 * past the limit from where they are (a vector of leaves is not walked, however
 * long), and returns FBE_TOO_DEEP past the limit.
 * One rule for every backend: the codec's entry points are wrapped here after
 * the backend installed them. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec_impl.h"

/* The struct an element of type t holds (itself or through an optional), or
 * NULL. */
static const fbe_ir_struct *elem_struct(const fbe_ir_type *t)
{
    if (t->kind == FBE_IR_STRUCT)
        return t->struct_type;
    if (t->kind == FBE_IR_OPTIONAL && t->elem->kind == FBE_IR_STRUCT)
        return t->elem->struct_type;
    return NULL;
}

/* The structs a field's type holds one level down: the struct itself, or the
 * element of an optional, array or collection, and a map's key. */
static size_t child_structs(const fbe_ir_type *t, const fbe_ir_struct *out[2])
{
    size_t n = 0;
    const fbe_ir_type *v = t->kind == FBE_IR_STRUCT ? t : t->elem;
    if (v && (out[n] = elem_struct(v)))
        n++;
    if (t->key && (out[n] = elem_struct(t->key)))
        n++;
    return n;
}

/* reach[i]: the deepest level a value of type i can reach, saturated at
 * cap (reach_cap, also for cycles), by a depth-first walk in post-order:
 * a back edge marks its source as unbounded and every node on the stack above
 * it inherits that when popped. An explicit stack: chains of optional structs
 * may be as long as the schema. */
/* max_depth + 1: the first level past the limit, where every reach that passes
 * it may stop; UINT_MAX for a codec without a practical limit (max_depth + 1
 * would wrap to 0 and make every type look shallow). */
static unsigned reach_cap(const fbe_codec *codec)
{
    return codec->max_depth < UINT_MAX ? codec->max_depth + 1 : UINT_MAX;
}

/* One level more than r, saturated at cap (r + 1 must not wrap at UINT_MAX). */
static unsigned level_up(unsigned r, unsigned cap)
{
    return r < cap ? r + 1 : cap;
}

static bool compute_reach(const fbe_codec *codec, unsigned cap, unsigned *reach)
{
    size_t n = codec->type_count;
    typedef struct frame {
        size_t type, field, child;
    } frame;
    uint8_t *state = calloc(n ? n : 1, 1); /* 0 new, 1 on the stack, 2 done */
    frame *stack = malloc(sizeof *stack * (n ? n : 1));
    if (!state || !stack) {
        free(state);
        free(stack);
        return false;
    }
    for (size_t root = 0; root < n; root++) {
        if (state[root])
            continue;
        size_t top = 0;
        stack[top++] = (frame){root, 0, 0};
        state[root] = 1;
        reach[root] = 1;
        while (top) {
            frame *f = &stack[top - 1];
            const fbe_ir_struct *st = codec->types[f->type].ir;
            if (f->field == st->field_count) {
                state[f->type] = 2;
                unsigned up = level_up(reach[f->type], cap);
                top--;
                if (top && up > reach[stack[top - 1].type])
                    reach[stack[top - 1].type] = up;
                continue;
            }
            const fbe_ir_struct *kids[2];
            size_t k = child_structs(st->fields[f->field].type, kids);
            if (f->child >= k) {
                f->field++;
                f->child = 0;
                continue;
            }
            size_t c = fbe_codec_index_of(codec, kids[f->child++]);
            if (c == SIZE_MAX)
                continue;
            if (state[c] == 1) {
                reach[f->type] = cap; /* a cycle: unbounded */
            } else if (state[c] == 2) {
                unsigned up = level_up(reach[c], cap);
                if (up > reach[f->type])
                    reach[f->type] = up;
            } else {
                state[c] = 1;
                reach[c] = 1;
                stack[top++] = (frame){c, 0, 0};
            }
        }
    }
    free(state);
    free(stack);
    return true;
}

/* What the guard keeps per codec: the reach of every type (to walk only into
 * structs that can go past the limit, found through the codec's type index)
 * and the backend's serialize entry points it wraps (2 per type, by model). */
struct fbe_depth_guard {
    const fbe_codec *codec;
    unsigned *reach;
    fbe_serialize_fn *inner;
};

typedef struct walk {
    const struct fbe_depth_guard *guard;
    unsigned max;
    uint64_t visits; /* struct bodies entered */
} walk;

/* Past this many bodies the frame is over 4 GiB in either model (every body
 * that can lead deeper holds at least an optional's flag byte or a
 * collection's count): serialize fails with TOO_LARGE whatever the depth, so
 * the walk stops there. */
#define WALK_VISIT_CAP ((uint64_t)UINT32_MAX)

static bool struct_too_deep(walk *w, const fbe_ir_struct *st, const uint8_t *host,
                            unsigned level);

/* Whether a body of st entered at level + 1 can reach past the limit. */
static bool may_exceed(const walk *w, const fbe_ir_struct *st, unsigned level)
{
    size_t i = fbe_codec_index_of(w->guard->codec, st);
    return i == SIZE_MAX || level + w->guard->reach[i] > w->max;
}

/* One host element of type t holding struct st (by value or by pointer). */
static bool elem_too_deep(walk *w, const fbe_ir_type *t, const fbe_ir_struct *st,
                          const uint8_t *p, unsigned level)
{
    if (t->kind == FBE_IR_STRUCT)
        return struct_too_deep(w, st, p, level + 1);
    const uint8_t *inner;
    memcpy(&inner, p, sizeof inner);
    return inner && struct_too_deep(w, st, inner, level + 1);
}

static bool field_too_deep(walk *w, const fbe_ir_type *t, const uint8_t *p, unsigned level)
{
    bool keyed = fbe_ir_kind_is_keyed(t->kind);
    const fbe_ir_type *et = t->kind == FBE_IR_STRUCT ? t : t->elem;
    const fbe_ir_struct *es = et ? elem_struct(et) : NULL;
    const fbe_ir_struct *ks = keyed ? elem_struct(t->key) : NULL;
    if (es && !may_exceed(w, es, level))
        es = NULL;
    if (ks && !may_exceed(w, ks, level))
        ks = NULL;
    if (!es && !ks)
        return false; /* nothing below can go past the limit: not walked */
    switch (t->kind) {
    case FBE_IR_STRUCT:
    case FBE_IR_OPTIONAL:
        return elem_too_deep(w, t, es, p, level);
    case FBE_IR_ARRAY:
        for (uint32_t i = 0; i < t->array_len; i++)
            if (elem_too_deep(w, et, es, p + (size_t)i * et->host_size, level))
                return true;
        return false;
    default: { /* VECTOR, LIST, SET, MAP, HASH */
        const uint8_t *data;
        size_t count;
        memcpy(&data, p, sizeof data);
        memcpy(&count, p + sizeof data, sizeof count);
        if (count > UINT32_MAX) /* no count field holds it: TOO_LARGE */
            return false;
        size_t stride = keyed ? t->host_entry_size : et->host_size;
        for (size_t i = 0; data && i < count; i++) {
            const uint8_t *e = data + i * stride;
            if (ks && elem_too_deep(w, t->key, ks, e, level))
                return true;
            if (es && elem_too_deep(w, et, es, keyed ? e + t->host_entry_value_offset : e, level))
                return true;
        }
        return false;
    }
    }
}

/* Recursion is bounded: it stops one level past max. */
static bool struct_too_deep(walk *w, const fbe_ir_struct *st, const uint8_t *host,
                            unsigned level)
{
    if (level > w->max)
        return true;
    if (++w->visits > WALK_VISIT_CAP)
        return false;
    for (size_t i = 0; i < st->field_count; i++) {
        const fbe_ir_field *f = &st->fields[i];
        if (field_too_deep(w, f->type, host + f->host_offset, level))
            return true;
    }
    return false;
}

static fbe_status guarded_serialize(const fbe_type *type, fbe_model model, const void *value,
                                    fbe_buffer *out)
{
    const fbe_codec *codec = type->codec;
    walk w = {codec->depth_guard, codec->max_depth, 0};
    if (value && struct_too_deep(&w, type->ir, value, 1))
        return FBE_TOO_DEEP;
    fbe_serialize_fn inner =
        __atomic_load_n(&w.guard->inner[(size_t)(type - codec->types) * 2 + model], __ATOMIC_ACQUIRE);
    return inner(type, value, out);
}

static fbe_status guarded_std(const fbe_type *type, const void *value, fbe_buffer *out)
{
    return guarded_serialize(type, FBE_STANDARD, value, out);
}

static fbe_status guarded_final(const fbe_type *type, const void *value, fbe_buffer *out)
{
    return guarded_serialize(type, FBE_FINAL, value, out);
}

bool fbe_codec_guard_depth(fbe_codec *codec)
{
    size_t n = codec->type_count;
    struct fbe_depth_guard *g = codec->depth_guard;
    if (!g) {
        /* The tables live as long as the codec: the walk reads them. */
        g = fbe_arena_zalloc(&codec->arena, sizeof *g);
        if (!g)
            return false;
        g->codec = codec;
        g->reach = fbe_arena_zalloc(&codec->arena, sizeof *g->reach * (n + 1));
        g->inner = fbe_arena_zalloc(&codec->arena, sizeof *g->inner * (2 * n + 1));
        if (!g->reach || !g->inner || !compute_reach(codec, reach_cap(codec), g->reach))
            return false;
        codec->depth_guard = g;
    }
    for (size_t i = 0; i < n; i++) {
        if (g->reach[i] <= codec->max_depth)
            continue;
        fbe_model_ops *ops = codec->types[i].ops;
        for (int m = 0; m < 2; m++) {
            /* Installed again (a JIT replacing entry points): keep the inner one. */
            if (ops[m].serialize == guarded_std || ops[m].serialize == guarded_final)
                continue;
            g->inner[i * 2 + (size_t)m] = ops[m].serialize;
            ops[m].serialize = m == FBE_STANDARD ? guarded_std : guarded_final;
        }
    }
    return true;
}

unsigned fbe_codec_type_reach(const fbe_codec *codec, size_t i)
{
    return codec->depth_guard ? codec->depth_guard->reach[i] : reach_cap(codec);
}

/* A guarded serialize keeps the guard in the type's slot: what changes is the
 * call inside it. */
static bool is_guarded(const fbe_codec *codec, size_t i, fbe_op op)
{
    return op == FBE_OP_SERIALIZE && codec->depth_guard &&
           codec->depth_guard->reach[i] > codec->max_depth;
}

fbe_entry_fn fbe_codec_get_op(const fbe_codec *codec, size_t i, fbe_model m, fbe_op op)
{
    const fbe_model_ops *ops = &codec->types[i].ops[m];
    if (is_guarded(codec, i, op))
        return (fbe_entry_fn)__atomic_load_n(&codec->depth_guard->inner[i * 2 + (size_t)m],
                                             __ATOMIC_ACQUIRE);
    switch (op) {
    case FBE_OP_SIZE:
        return (fbe_entry_fn)__atomic_load_n(&ops->size, __ATOMIC_ACQUIRE);
    case FBE_OP_SERIALIZE:
        return (fbe_entry_fn)__atomic_load_n(&ops->serialize, __ATOMIC_ACQUIRE);
    case FBE_OP_VERIFY:
        return (fbe_entry_fn)__atomic_load_n(&ops->verify, __ATOMIC_ACQUIRE);
    default:
        return (fbe_entry_fn)__atomic_load_n(&ops->deserialize, __ATOMIC_ACQUIRE);
    }
}

void fbe_codec_set_op(fbe_codec *codec, size_t i, fbe_model m, fbe_op op, fbe_entry_fn fn)
{
    fbe_model_ops *ops = &codec->types[i].ops[m];
    if (is_guarded(codec, i, op)) {
        __atomic_store_n(&codec->depth_guard->inner[i * 2 + (size_t)m], (fbe_serialize_fn)fn,
                         __ATOMIC_RELEASE);
        return;
    }
    switch (op) {
    case FBE_OP_SIZE:
        __atomic_store_n(&ops->size, (fbe_size_fn)fn, __ATOMIC_RELEASE);
        break;
    case FBE_OP_SERIALIZE:
        __atomic_store_n(&ops->serialize, (fbe_serialize_fn)fn, __ATOMIC_RELEASE);
        break;
    case FBE_OP_VERIFY:
        __atomic_store_n(&ops->verify, (fbe_verify_fn)fn, __ATOMIC_RELEASE);
        break;
    default:
        __atomic_store_n(&ops->deserialize, (fbe_deserialize_fn)fn, __ATOMIC_RELEASE);
        break;
    }
}
