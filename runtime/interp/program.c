/* Lowering the IR into interpreter programs (the codec object itself is in
 * runtime/codec.c). */
#include "program.h"

#include <stdlib.h>

#include "fbe/aot.h"
#include "fbe/schema.h"

/* The lists a chain of heirs shares (program.h "Shared lists"), kept by the
 * chain's first struct (its root): one array per list, grown as heirs append;
 * each struct's interp_steps.at points into them once all are derived. */
enum { LIST_STD, LIST_STD_CHECK, LIST_FINAL, LIST_FINAL_SIZE, LIST_FINAL_CHECK,
       LIST_STD_SIZE, LIST_FINAL_SIZES, LIST_COUNT };

typedef struct chain_lists {
    interp_field *fields; /* room for the longest struct of the chain */
    interp_step *steps[LIST_COUNT];
    size_t cap[LIST_COUNT];      /* steps, SO_END included */
    uint32_t *strings[2];        /* the size lists' string offsets, per model */
    size_t string_cap[2];
} chain_lists;

typedef struct lowering {
    fbe_codec *codec;
    interp_prog *progs;
    const fbe_ir_struct **irs;
    uint8_t *min_state;    /* final_min memo: 0 new, 1 busy, 2 done */
    uint8_t *derive_state; /* derive_prog memo, the same */
    size_t count;
    uint32_t *heir;        /* 1 + the index of a struct's heir, 0: none */
    uint32_t *root;        /* the first struct of each struct's chain of heirs */
    size_t *chain_fields;  /* per root: the field count of its chain's longest */
    chain_lists *chains;   /* per root */
    bool failed;
    bool missing; /* a struct of a package that was not given */
} lowering;

/* The codec's type index (a scan per struct-typed field was quadratic in the
 * number of structs); a struct listed twice keeps its first program. */
static interp_prog *prog_for(lowering *L, const fbe_ir_struct *st)
{
    size_t i = fbe_codec_index_of(L->codec, st);
    return i < L->count ? &L->progs[i] : NULL;
}

/* The base of p when p is its heir: the IR shares their field array (and it
 * is not empty: structs without fields could share a NULL one). A base has one
 * heir at most, whatever an IR that was not made by the compiler says. */
static interp_prog *heir_base(lowering *L, const interp_prog *p)
{
    const fbe_ir_struct *st = p->ir ? p->ir : L->irs[p - L->progs];
    if (!st->base || !st->base->field_count || st->fields != st->base->fields)
        return NULL;
    interp_prog *b = prog_for(L, st->base);
    return b && L->heir[b - L->progs] == (uint32_t)(p - L->progs) + 1 ? b : NULL;
}

/* Heirs, roots and the longest field count of each chain, before lowering. */
static bool find_chains(lowering *L)
{
    L->heir = fbe_arena_zalloc(&L->codec->arena, sizeof *L->heir * (L->count + 1));
    L->root = fbe_arena_zalloc(&L->codec->arena, sizeof *L->root * (L->count + 1));
    L->chain_fields = fbe_arena_zalloc(&L->codec->arena, sizeof *L->chain_fields * (L->count + 1));
    L->chains = fbe_arena_zalloc(&L->codec->arena, sizeof *L->chains * (L->count + 1));
    if (!L->heir || !L->root || !L->chain_fields || !L->chains)
        return false;
    for (size_t i = 0; i < L->count; i++) {
        const fbe_ir_struct *st = L->irs[i];
        if (!st->base || !st->base->field_count || st->fields != st->base->fields)
            continue;
        interp_prog *b = prog_for(L, st->base);
        if (b && !L->heir[b - L->progs] && &L->progs[i] != b)
            L->heir[b - L->progs] = (uint32_t)i + 1;
    }
    for (size_t i = 0; i < L->count; i++) {
        const interp_prog *p = &L->progs[i], *b;
        /* at most FBE_IR_MAX_NESTING levels (and a base never its own heir) */
        for (size_t n = 0; n <= FBE_IR_MAX_NESTING && (b = heir_base(L, p)); n++)
            p = b;
        size_t r = (size_t)(p - L->progs);
        L->root[i] = (uint32_t)r;
        if (L->irs[i]->field_count > L->chain_fields[r])
            L->chain_fields[r] = L->irs[i]->field_count;
    }
    return true;
}

static interp_op scalar_op(uint32_t size)
{
    switch (size) {
    case 1: return OP_COPY1;
    case 2: return OP_COPY2;
    case 4: return OP_COPY4;
    case 8: return OP_COPY8;
    default: return OP_COPY16;
    }
}

static uint32_t prog_final_min(lowering *L, interp_prog *p);

/* The smallest final encoding of a value of type t, clamped at FBE_MIN_CLAMP:
 * what a count check multiplies a count by. The one place this rule is
 * written: a struct's is the sum of its fields' (struct_min gives it), a fixed
 * value's its size, an array's N times its element's, an optional's its flag,
 * the rest (strings, bytes, collections) their 4-byte length or count. */
static uint64_t type_final_min(const fbe_ir_type *t,
                               uint64_t (*struct_min)(void *ctx, const fbe_ir_struct *st),
                               void *ctx)
{
    if (t->final_fixed)
        return t->final_size;
    switch (t->kind) {
    case FBE_IR_STRUCT:
        return struct_min(ctx, t->struct_type);
    case FBE_IR_ARRAY: {
        uint64_t m = (uint64_t)t->array_len * type_final_min(t->elem, struct_min, ctx);
        return m > FBE_MIN_CLAMP ? FBE_MIN_CLAMP : m;
    }
    case FBE_IR_OPTIONAL:
        return 1;
    default:
        return 4;
    }
}

/* While lowering: a struct's minimum from its program (memoized). */
static uint64_t lowering_struct_min(void *ctx, const fbe_ir_struct *st)
{
    lowering *L = ctx;
    interp_prog *p = prog_for(L, st);
    return p ? prog_final_min(L, p) : 0;
}

static void lower_type(lowering *L, const fbe_ir_type *t, interp_node *n)
{
    memset(n, 0, sizeof *n);
    n->ir = t;
    n->std_size = t->std_inline_size;
    n->final_fixed = t->final_fixed;
    n->final_size = t->final_size;
    n->host_size = t->host_size;
    fbe_ir_shape shape = fbe_ir_shape_of(t);
    switch (shape) {
    case FBE_IR_SHAPE_BOOL:
        n->op = OP_BOOL;
        return;
    case FBE_IR_SHAPE_COPY: /* integers, floats, enums, flags, decimal, uuid, timestamp */
        n->op = (uint8_t)scalar_op(t->std_inline_size);
        return;
    case FBE_IR_SHAPE_STRING:
        n->op = OP_STRING;
        return;
    case FBE_IR_SHAPE_STRUCT:
        n->op = OP_STRUCT;
        n->prog = prog_for(L, t->struct_type);
        if (!n->prog)
            L->missing = true;
        return;
    default:
        break;
    }
    /* optionals, arrays and collections: the element (and a map's key) first */
    interp_node *elem = fbe_arena_alloc(&L->codec->arena, sizeof *elem);
    interp_node *key = shape == FBE_IR_SHAPE_MAP ? fbe_arena_alloc(&L->codec->arena, sizeof *key)
                                                 : NULL;
    if (!elem || (shape == FBE_IR_SHAPE_MAP && !key)) {
        L->failed = true;
        return;
    }
    lower_type(L, t->elem, elem);
    n->elem = elem;
    switch (shape) {
    case FBE_IR_SHAPE_OPT_STRUCT:
        n->op = OP_OPT_STRUCT;
        n->prog = elem->prog;
        break;
    case FBE_IR_SHAPE_OPTIONAL:
        n->op = OP_OPTIONAL;
        n->host_value_offset = t->host_value_offset;
        break;
    case FBE_IR_SHAPE_ARRAY:
        n->op = OP_ARRAY;
        n->count = t->array_len;
        break;
    case FBE_IR_SHAPE_MAP:
        lower_type(L, t->key, key);
        n->key = key;
        n->op = OP_MAP;
        n->entry_value_offset = t->host_entry_value_offset;
        n->entry_size = t->host_entry_size;
        break;
    default:
        n->op = OP_SEQ;
        break;
    }
}

/* By-value containment is acyclic (the resolver refuses cycles), so this
 * recursion ends; the busy mark only guards against a broken IR. */
static uint32_t prog_final_min(lowering *L, interp_prog *p)
{
    size_t i = (size_t)(p - L->progs);
    if (L->min_state[i] == 2)
        return p->final_min;
    if (L->min_state[i] == 1)
        return 0;
    L->min_state[i] = 1;
    uint64_t sum = 0;
    size_t from = 0;
    interp_prog *base = heir_base(L, p);
    if (base) { /* its fields come first (a clamped sum only clamps this one too) */
        sum = prog_final_min(L, base);
        from = base->field_count;
    }
    for (size_t f = from; f < p->field_count; f++)
        sum += type_final_min(p->fields[f].node.ir, lowering_struct_min, L);
    p->final_min = sum > UINT32_MAX ? UINT32_MAX : (uint32_t)sum;
    L->min_state[i] = 2;
    return p->final_min;
}

static bool lower_struct(lowering *L, interp_prog *p, const fbe_ir_struct *st)
{
    p->ir = st;
    p->type_number = st->type_number;
    p->std_body_size = st->std_body_size;
    p->final_fixed = st->final_fixed;
    p->final_size = st->final_size;
    p->host_size = st->host_size;
    /* an heir lowers only its own fields: its base's are in the same array */
    size_t r = L->root[p - L->progs];
    chain_lists *c = &L->chains[r];
    if (!c->fields) {
        c->fields = fbe_arena_zalloc(&L->codec->arena, sizeof *c->fields * (L->chain_fields[r] + 1));
        if (!c->fields)
            return false;
    }
    interp_field *fields = c->fields;
    size_t from = heir_base(L, p) ? st->base->field_count : 0;
    for (size_t i = from; i < st->field_count; i++) {
        const fbe_ir_field *f = &st->fields[i];
        lower_type(L, f->type, &fields[i].node);
        fields[i].std_offset = f->std_offset;
        fields[i].host_offset = f->host_offset;
        fields[i].ir = f;
    }
    p->fields = fields;
    p->field_count = st->field_count;
    return !L->failed;
}

/* ---- derived numbers and step lists ---------------------------------------------
 * Everything below is a function of the fields' IR numbers copied above: it lets
 * the codec loops skip what cannot matter (scalars in the size pass and verify,
 * constant parts of sizes, the depth walk of fixed structs) and copy runs of
 * adjacent scalars at once. None of it changes a result. */

/* Constant sizes are clamped here: a sum that reaches the cap is recomputed the
 * exact, slow way (standard: std_write.c's SIZE_CAP; final: above final.c's SAT). */
#define FINAL_CONST_CAP (2 * FBE_FINAL_SAT)

static uint64_t cap_add_to(uint64_t a, uint64_t b, uint64_t cap)
{
    return a + b >= cap ? cap : a + b;
}

static uint64_t cap_add(uint64_t a, uint64_t b)
{
    return cap_add_to(a, b, FBE_SIZE_CAP);
}

static void derive_prog(lowering *L, interp_prog *p);

/* min_size, final_depth, plain, std_const/std_extra of a node and its children. */
static void derive_node(lowering *L, interp_node *n)
{
    interp_node *elem = (interp_node *)n->elem, *key = (interp_node *)n->key;
    if (elem)
        derive_node(L, elem);
    if (key)
        derive_node(L, key);
    switch ((interp_op)n->op) {
    CASE_SCALAR_OPS:
        n->plain = fbe_ir_type_is_plain(n->ir);
        n->std_const = true;
        n->std_extra = 0;
        n->final_depth = 0;
        n->min_size = type_final_min(n->ir, lowering_struct_min, L);
        return;
    case OP_STRUCT: {
        interp_prog *p = (interp_prog *)n->prog;
        derive_prog(L, p);
        /* a prog still being derived, or left for later (derive_prog), is
         * reached through an optional or a collection (by-value cycles are
         * refused), so it is not constant */
        bool done = L->derive_state[p - L->progs] == 2;
        n->std_const = done && p->std_size_steps.count == 0 && p->std_size_string_count == 0;
        n->std_extra = n->std_const ? p->std_const : 0;
        n->final_depth = n->final_fixed ? p->fixed_depth : 0;
        n->min_size = type_final_min(n->ir, lowering_struct_min, L);
        return;
    }
    case OP_ARRAY: {
        n->plain = fbe_ir_type_is_plain(n->ir);
        n->std_const = elem->std_const;
        n->std_extra = elem->std_const && n->count
                           ? (elem->std_extra >= FBE_SIZE_CAP / n->count
                                  ? FBE_SIZE_CAP
                                  : elem->std_extra * n->count)
                           : 0;
        n->final_depth = n->final_fixed && n->count ? elem->final_depth : 0;
        n->min_size = type_final_min(n->ir, lowering_struct_min, L);
        return;
    }
    default: /* strings, optionals, collections: what they add depends on the value */
        n->std_const = false;
        n->std_extra = 0;
        n->final_depth = 0;
        n->min_size = type_final_min(n->ir, lowering_struct_min, L);
        return;
    }
}

bool fbe_interp_std_inline_only(const fbe_ir_type *t)
{
    if (t->kind == FBE_IR_ARRAY)
        return t->array_len == 0 || fbe_interp_std_inline_only(t->elem);
    return fbe_ir_kind_is_scalar(t->kind);
}

/* final lists: a fixed node whose only possible failure is its bounds */
static bool final_skip(const interp_node *n)
{
    return n->final_fixed && n->final_depth == 0;
}

static uint8_t copy_op(uint32_t len)
{
    switch (len) {
    case 1: return SO_COPY1;
    case 2: return SO_COPY2;
    case 3: return SO_COPY3;
    case 4: return SO_COPY4;
    case 8: return SO_COPY8;
    case 16: return SO_COPY16;
    default:
        return len < 8 ? SO_COPY5_7 : len < 16 ? SO_COPY9_15 : len <= 32 ? SO_COPY17_32 : SO_COPYN;
    }
}

static uint8_t field_op(const interp_node *n)
{
    switch ((interp_op)n->op) {
    case OP_BOOL: return SO_BOOL;
    case OP_STRING: return SO_STRING;
    case OP_STRUCT: return SO_STRUCT;
    case OP_OPT_STRUCT: return SO_OPT_STRUCT;
    case OP_SEQ: return SO_SEQ;
    case OP_OPTIONAL: return SO_OPTIONAL;
    case OP_ARRAY: return SO_ARRAY;
    case OP_MAP: return SO_MAP;
    default: return copy_op(n->std_size); /* a scalar that is not plain: its width */
    }
}

static interp_step step_of(const interp_field *f, uint8_t op, uint64_t pre)
{
    const interp_node *n = &f->node;
    const interp_prog *prog = n->prog;
    if (n->op == OP_SEQ) /* the element's, if a struct */
        prog = n->elem->op == OP_STRUCT ? n->elem->prog : NULL;
    return (interp_step){.op = op,
                         .len = op < SO_BOOL ? n->std_size : n->final_size,
                         .std_offset = f->std_offset,
                         .host_offset = f->host_offset,
                         .pre = pre,
                         .node = n,
                         .prog = prog,
                         .field = f};
}

/* The steps of fields [from, field_count) of `p` for one list into `out` (room
 * for their number + 1); returns the count, SO_END not included. `pre` starts
 * with the fixed bytes the list has before `from` (an heir's, after its base's
 * fields). In the final size and check lists the SO_END step's `pre` holds the
 * fixed bytes after the last step. */
static size_t build_steps(const interp_prog *p, int list, size_t from, uint64_t pre,
                          interp_step *out)
{
    size_t n = 0;
    const interp_field *f = p->fields + from, *end = p->fields + p->field_count;
    while (f < end) {
        const interp_node *nd = &f->node;
        switch (list) {
        case LIST_STD:
        case LIST_FINAL:
            if (nd->plain) {
                size_t at = (size_t)(f - p->fields);
                size_t stop = fbe_ir_plain_run(p->fields[0].ir, at, p->field_count);
                uint64_t len = fbe_ir_plain_run_bytes(p->fields[0].ir, at, stop);
                if (len) {
                    out[n] = step_of(f, copy_op((uint32_t)len), 0);
                    out[n++].len = (uint32_t)len;
                }
                f = p->fields + stop;
                continue;
            }
            if (list == LIST_FINAL && nd->final_fixed && nd->op != OP_BOOL)
                out[n++] = step_of(f, SO_FIXED, 0);
            else
                out[n++] = step_of(f, field_op(nd), 0);
            break;
        case LIST_STD_CHECK:
            if (!fbe_interp_std_inline_only(nd->ir))
                out[n++] = step_of(f, field_op(nd), 0);
            break;
        case LIST_FINAL_SIZE:
        case LIST_FINAL_CHECK:
            if (nd->final_fixed && (list == LIST_FINAL_SIZE || final_skip(nd))) {
                pre += nd->final_size;
            } else {
                out[n++] = step_of(f, nd->final_fixed ? SO_FIXED : field_op(nd), pre);
                pre = 0;
            }
            break;
        }
        f++;
    }
    out[n] = (interp_step){.op = SO_END, .pre = pre};
    for (size_t k = 0; k <= n; k++)
        out[k].need = out[k].pre + (out[k].op == SO_STRING ? 4 : 0);
    return n;
}

/* Room for `need` steps (SO_END included) in list k of chain c: the array
 * doubles, the steps already written move with it (the lists' `at` are set
 * when every struct is derived, see point_lists). */
static interp_step *chain_room(lowering *L, chain_lists *c, int k, size_t need)
{
    if (need > c->cap[k]) {
        size_t cap = c->cap[k] * 2 > need ? c->cap[k] * 2 : need;
        interp_step *at = fbe_arena_zalloc(&L->codec->arena, sizeof *at * cap);
        if (!at)
            return NULL;
        if (c->cap[k])
            memcpy(at, c->steps[k], sizeof *at * c->cap[k]);
        c->steps[k] = at;
        c->cap[k] = cap;
    }
    return c->steps[k];
}

/* A base's list stops being the end of its chain's array: its SO_END becomes
 * SO_LEVEL (program.h), or, when the base has no step, the base gets an SO_END
 * of its own and the heir starts at the array's start. Returns where the heir's
 * steps go, and the fixed bytes the base's SO_END had (`pre`). */
static size_t hand_on(lowering *L, chain_lists *c, int k, interp_steps *base_list,
                      const interp_prog *base, uint64_t *pre)
{
    interp_step *at = c->steps[k];
    size_t n = base_list->count;
    *pre = at[n].pre;
    if (n == 0) {
        interp_step *own = fbe_arena_alloc(&L->codec->arena, sizeof *own);
        if (!own) {
            L->failed = true;
            return 0;
        }
        *own = at[0];
        base_list->at = own;
        return 0;
    }
    at[n].op = SO_LEVEL;
    at[n].prog = base;
    return n + 1;
}

/* Appends the steps of p's own fields to list k of its chain (all of its fields
 * when it is not an heir). */
static void make_steps(lowering *L, interp_prog *p, interp_prog *base, int k, interp_steps *out,
                       interp_steps *base_list)
{
    chain_lists *c = &L->chains[L->root[p - L->progs]];
    size_t from = 0, at = 0;
    uint64_t pre = 0;
    if (base) {
        from = base->field_count;
        at = hand_on(L, c, k, base_list, base, &pre);
    }
    if (L->failed || !chain_room(L, c, k, at + (p->field_count - from) + 1)) {
        L->failed = true;
        return;
    }
    if (k == LIST_STD || k == LIST_FINAL || k == LIST_STD_CHECK)
        pre = 0;
    out->count = at + build_steps(p, k, from, pre, c->steps[k] + at);
}

/* The size lists of `p` in one model (see interp_prog.std_const, final_const):
 * the fields whose size varies, small structs held by value flattened (their
 * lists are complete: by-value nesting is acyclic, so they were derived first).
 * A struct held by value whose own lists have more than FLATTEN_MAX entries is
 * one SO_STRUCT step instead: flattening everything would copy a struct's
 * fields into every holder, which is quadratic in a schema's size (a 45 KB
 * schema took 1.1 GB, fuzz/corpus/findings/schema_size-by-value-flattening)
 * and exponential along a chain of structs that each hold two of the previous.
 * With the bound, a list has at most FLATTEN_MAX entries per field. With NULL
 * outputs, only counts. */
#define FLATTEN_MAX 16

typedef struct size_lists {
    bool final;
    uint64_t cnst;
    uint32_t *strings;
    size_t string_count;
    interp_step *steps;
    size_t step_count;
} size_lists;

static size_t size_entries(const interp_prog *p, bool final)
{
    return final ? p->final_size_string_count + p->final_size_steps.count
                 : p->std_size_string_count + p->std_size_steps.count;
}

static void collect_size(const interp_field *f, const interp_field *end, uint32_t host_base,
                         size_lists *out)
{
    for (; f < end; f++) {
        const interp_node *nd = &f->node;
        uint32_t at = host_base + f->host_offset;
        uint64_t cap = out->final ? FINAL_CONST_CAP : FBE_SIZE_CAP;
        if (out->final ? nd->final_fixed : nd->std_const) {
            out->cnst = cap_add_to(out->cnst, out->final ? nd->final_size : nd->std_extra, cap);
        } else if (nd->op == OP_STRING) {
            out->cnst = cap_add_to(out->cnst, 4, cap);
            if (out->strings)
                out->strings[out->string_count] = at;
            out->string_count++;
        } else if (nd->op == OP_STRUCT && size_entries(nd->prog, out->final) <= FLATTEN_MAX) {
            /* by value: its own lists, shifted (and, standard, its body) */
            const interp_prog *sub = nd->prog;
            if (!out->final)
                out->cnst = cap_add(out->cnst, sub->std_body_size);
            collect_size(sub->fields, sub->fields + sub->field_count, at, out);
        } else {
            if (out->steps) {
                out->steps[out->step_count] = step_of(f, field_op(nd), 0);
                out->steps[out->step_count].host_offset = at;
            }
            out->step_count++;
        }
    }
}

/* Appends p's own fields to its chain's size lists of one model; an heir's
 * constant starts from its base's (both clamp at the same cap, and an heir's
 * body holds its base's). */
static void make_size_lists(lowering *L, interp_prog *p, interp_prog *base, bool final)
{
    chain_lists *c = &L->chains[L->root[p - L->progs]];
    int k = final ? LIST_FINAL_SIZES : LIST_STD_SIZE;
    interp_steps *steps = final ? &p->final_size_steps : &p->std_size_steps;
    const interp_field *from = p->fields, *end = p->fields + p->field_count;
    size_lists fill = {.final = final, .cnst = final ? 0 : p->std_body_size};
    size_t at = 0;
    uint64_t pre;
    if (base) {
        from += base->field_count;
        fill.string_count = final ? base->final_size_string_count : base->std_size_string_count;
        fill.cnst = final ? base->final_const
                          : cap_add(p->std_body_size, base->std_const - base->std_body_size);
        at = hand_on(L, c, k, final ? &base->final_size_steps : &base->std_size_steps, base, &pre);
    }
    size_lists count = {.final = final};
    collect_size(from, end, 0, &count);
    size_t strings = fill.string_count + count.string_count;
    if (strings + 1 > c->string_cap[final]) {
        size_t cap = c->string_cap[final] * 2 > strings + 1 ? c->string_cap[final] * 2 : strings + 1;
        uint32_t *s = fbe_arena_zalloc(&L->codec->arena, sizeof *s * cap);
        if (!s) {
            L->failed = true;
            return;
        }
        if (c->string_cap[final])
            memcpy(s, c->strings[final], sizeof *s * c->string_cap[final]);
        c->strings[final] = s;
        c->string_cap[final] = cap;
    }
    if (L->failed || !chain_room(L, c, k, at + count.step_count + 1)) {
        L->failed = true;
        return;
    }
    fill.strings = c->strings[final];
    fill.steps = c->steps[k] + at;
    collect_size(from, end, 0, &fill);
    fill.steps[fill.step_count] = (interp_step){.op = SO_END};
    steps->count = at + fill.step_count;
    if (final) {
        p->final_const = fill.cnst;
        p->final_size_string_count = fill.string_count;
    } else {
        p->std_const = fill.cnst;
        p->std_size_string_count = fill.string_count;
    }
}

/* Whether the checked steps of p's own fields are all strings (an heir whose
 * base has any step has an SO_LEVEL step: not a leaf). */
static bool own_leaf(const lowering *L, const interp_prog *p, const interp_prog *base, int k,
                     const interp_steps *list, const interp_steps *base_list)
{
    if (base && base_list->count) /* an SO_LEVEL step */
        return false;
    const interp_step *at = L->chains[L->root[p - L->progs]].steps[k];
    for (size_t i = 0; i < list->count; i++)
        if (at[i].op != SO_STRING)
            return false;
    return true;
}

/* By-value containment is acyclic: the recursion through derive_node ends.
 * The size lists copy the fields of the structs held by value (collect_size),
 * so those must be derived first; one can still be in progress when `p` was
 * reached through an optional or a collection of it. With
 *     struct S0 { S2 v; }  struct S2 { S3() l; uuid u; }  struct S3 : S0 {}
 * deriving S2 reaches S3 through the list, and S3 holds S2 by value, whose
 * uuid was not derived yet: S3's size list got it as a step the size walk
 * does not expect (found by fuzz_schema_size). Such a `p` is left for later
 * (state 0): what reached it treats it as not constant, and it is derived
 * again from fbe_interp_create_ir's loop, where nothing it holds by value can be
 * in progress (that would be a by-value cycle), so it completes there. A
 * struct left for later holds a struct that is not fixed, so it is not fixed
 * either: no final_depth was taken from it. An heir appends to its base's
 * lists, so its base is derived first, and an heir whose base is left for
 * later is left for later too (it holds the same fields). */
static void derive_prog(lowering *L, interp_prog *p)
{
    size_t i = (size_t)(p - L->progs);
    if (L->derive_state[i])
        return;
    L->derive_state[i] = 1;
    uint32_t depth = 0;
    bool later = false;
    size_t from = 0;
    interp_prog *base = heir_base(L, p);
    if (base) {
        derive_prog(L, base);
        if (L->derive_state[base - L->progs] != 2)
            later = true;
        from = base->field_count;
        /* the deepest of its fields, when it is fixed (then every field is) */
        if (base->final_fixed && base->fixed_depth)
            depth = base->fixed_depth - 1;
    }
    for (size_t f = from; f < p->field_count; f++) {
        interp_node *n = (interp_node *)&p->fields[f].node;
        derive_node(L, n);
        if (n->final_fixed && n->final_depth > depth)
            depth = n->final_depth;
        if (n->op == OP_STRUCT && L->derive_state[n->prog - L->progs] != 2)
            later = true;
    }
    if (later) {
        L->derive_state[i] = 0;
        return;
    }
    p->std_header = (uint64_t)p->std_body_size | (uint64_t)p->type_number << 32;
    p->fixed_depth = p->final_fixed ? depth + 1 : 0;
    make_size_lists(L, p, base, false);
    make_size_lists(L, p, base, true);
    make_steps(L, p, base, LIST_STD, &p->std_steps, base ? &base->std_steps : NULL);
    make_steps(L, p, base, LIST_STD_CHECK, &p->std_check_steps,
               base ? &base->std_check_steps : NULL);
    make_steps(L, p, base, LIST_FINAL, &p->final_steps, base ? &base->final_steps : NULL);
    make_steps(L, p, base, LIST_FINAL_SIZE, &p->final_size_exact,
               base ? &base->final_size_exact : NULL);
    make_steps(L, p, base, LIST_FINAL_CHECK, &p->final_check_steps,
               base ? &base->final_check_steps : NULL);
    if (!L->failed) {
        p->std_check_leaf = own_leaf(L, p, base, LIST_STD_CHECK, &p->std_check_steps,
                                     base ? &base->std_check_steps : NULL);
        p->final_check_leaf = own_leaf(L, p, base, LIST_FINAL_CHECK, &p->final_check_steps,
                                       base ? &base->final_check_steps : NULL);
    }
    L->derive_state[i] = 2;
}

/* Once every struct is derived the chains' arrays no longer move: each list
 * that has no array of its own (hand_on) points into its chain's. */
static void point_lists(lowering *L)
{
    for (size_t i = 0; i < L->count; i++) {
        interp_prog *p = &L->progs[i];
        chain_lists *c = &L->chains[L->root[i]];
        interp_steps *lists[LIST_COUNT] = {
            [LIST_STD] = &p->std_steps,           [LIST_STD_CHECK] = &p->std_check_steps,
            [LIST_FINAL] = &p->final_steps,       [LIST_FINAL_SIZE] = &p->final_size_exact,
            [LIST_FINAL_CHECK] = &p->final_check_steps,
            [LIST_STD_SIZE] = &p->std_size_steps, [LIST_FINAL_SIZES] = &p->final_size_steps};
        for (int k = 0; k < LIST_COUNT; k++)
            if (!lists[k]->at)
                lists[k]->at = c->steps[k];
        p->std_size_strings = c->strings[0];
        p->final_size_strings = c->strings[1];
    }
}

static fbe_codec *fail(fbe_codec *codec, fbe_status *status, fbe_status why)
{
    if (status)
        *status = why;
    fbe_codec_free(codec);
    return NULL;
}

static bool listed_before(const fbe_ir_package *const *packages, size_t i,
                          const fbe_ir_package *p)
{
    for (size_t j = 0; j < i; j++)
        if (packages[j] == p)
            return true;
    return false;
}

/* The packages a codec may be made of, as a schema and an image list them: each
 * once (its types would be found twice), each after its direct imports, so the
 * list holds every struct a field can name and the type table is in dependency
 * order (fbe_codec_type_at, the protocol's message tables); every field of a
 * shape the schema language writes (fbe_ir_type_has_schema_shape). */
static bool valid_packages(const fbe_ir_package *const *packages, size_t count)
{
    if (count && !packages)
        return false;
    for (size_t i = 0; i < count; i++) {
        const fbe_ir_package *p = packages[i];
        if (!p || listed_before(packages, i, p))
            return false;
        for (size_t k = 0; k < p->import_count; k++)
            if (!listed_before(packages, i, p->imports[k]))
                return false;
        /* Inheritance as the compiler makes it: at most FBE_IR_MAX_NESTING
         * bases above any struct (so no cycle either), which bounds the walks
         * along chains of heirs (find_chains). Counted here, not read from
         * base_depth: AOT objects written before jit/image.c kept it (and
         * value_height) have 0 in both. */
        for (size_t k = 0; k < p->struct_count; k++) {
            const fbe_ir_struct *st = p->structs[k];
            if (!st || (st->field_count && !st->fields))
                return false;
            for (size_t f = 0; f < st->field_count; f++)
                if (!fbe_ir_type_has_schema_shape(st->fields[f].type))
                    return false;
            for (unsigned n = 0; st->base; n++, st = st->base)
                if (n == FBE_IR_MAX_NESTING)
                    return false;
        }
    }
    return true;
}

fbe_codec *fbe_interp_create_ir(const fbe_ir_package *const *packages, size_t package_count,
                                const fbe_codec_options *options, fbe_status *status)
{
    if (!valid_packages(packages, package_count))
        return fail(NULL, status, FBE_INVALID_ARGUMENT);
    fbe_codec *codec = calloc(1, sizeof *codec);
    if (!codec)
        return fail(NULL, status, FBE_NOMEM);
    fbe_arena_init(&codec->arena, NULL, NULL);
    codec->backend = FBE_BACKEND_INTERP;
    codec->max_depth = options && options->max_depth ? options->max_depth : FBE_DEFAULT_MAX_DEPTH;

    size_t count = 0;
    for (size_t i = 0; i < package_count; i++)
        count += packages[i]->struct_count;
    lowering L = {.codec = codec, .count = count};
    L.progs = fbe_arena_zalloc(&codec->arena, sizeof *L.progs * (count + 1));
    L.irs = fbe_arena_zalloc(&codec->arena, sizeof *L.irs * (count + 1));
    L.min_state = fbe_arena_zalloc(&codec->arena, count + 1);
    L.derive_state = fbe_arena_zalloc(&codec->arena, count + 1);
    codec->types = fbe_arena_zalloc(&codec->arena, sizeof *codec->types * (count + 1));
    if (!L.progs || !L.irs || !L.min_state || !L.derive_state || !codec->types)
        return fail(codec, status, FBE_NOMEM);
    size_t k = 0;
    for (size_t i = 0; i < package_count; i++) {
        const fbe_ir_package *p = packages[i];
        for (size_t j = 0; j < p->struct_count; j++, k++)
            codec->types[k].ir = L.irs[k] = p->structs[j];
    }
    if (!fbe_codec_index_types(codec, count) || !find_chains(&L))
        return fail(codec, status, FBE_NOMEM);
    for (size_t i = 0; i < count; i++)
        if (!lower_struct(&L, &L.progs[i], L.irs[i]))
            return fail(codec, status, FBE_NOMEM);
    /* A field of a struct that no given package declares (an IR not made by the
     * compiler): refused rather than left without a program. */
    if (L.missing)
        return fail(codec, status, FBE_INVALID_ARGUMENT);
    for (size_t i = 0; i < count; i++)
        prog_final_min(&L, &L.progs[i]);
    for (size_t i = 0; i < count; i++) {
        derive_prog(&L, &L.progs[i]);
        /* from here nothing is in progress: every prog completes (derive_prog) */
        if (L.derive_state[i] != 2)
            L.failed = true;
    }
    if (L.failed)
        return fail(codec, status, FBE_NOMEM);
    point_lists(&L);
    for (size_t i = 0; i < count; i++) {
        fbe_type *t = &codec->types[i];
        t->ir = L.irs[i];
        t->codec = codec;
        t->impl = &L.progs[i];
        t->ops[FBE_STANDARD] = (fbe_model_ops){fbe_interp_std_size, fbe_interp_std_serialize,
                                               fbe_interp_std_verify, fbe_interp_std_deserialize};
        t->ops[FBE_FINAL] = (fbe_model_ops){fbe_interp_final_size, fbe_interp_final_serialize,
                                            fbe_interp_final_verify, fbe_interp_final_deserialize};
    }
    codec->type_count = count;
    if (!fbe_codec_guard_depth(codec))
        return fail(codec, status, FBE_NOMEM);
    if (status)
        *status = FBE_OK;
    return codec;
}

fbe_codec *fbe_interp_create(const fbe_schema *schema, const fbe_codec_options *options,
                             fbe_status *status)
{
    if (!schema)
        return fail(NULL, status, FBE_INVALID_ARGUMENT);
    size_t n = fbe_schema_package_count(schema);
    const fbe_ir_package **packages = malloc(sizeof *packages * (n + 1));
    if (!packages)
        return fail(NULL, status, FBE_NOMEM);
    for (size_t i = 0; i < n; i++)
        packages[i] = fbe_schema_package(schema, i);
    fbe_codec *codec = fbe_interp_create_ir(packages, n, options, status);
    free(packages);
    return codec;
}

fbe_codec *fbe_interp_create_image(const fbe_aot_image *image, const fbe_codec_options *options,
                                   fbe_status *status)
{
    if (!image)
        return fail(NULL, status, FBE_INVALID_ARGUMENT);
    /* The same refusal as fbe_aot_codec_create: the IR of an image of another
     * ABI cannot be read. */
    if (image->abi_version != FBE_AOT_ABI_VERSION || image->layout_check != FBE_AOT_LAYOUT_CHECK)
        return fail(NULL, status, FBE_UNSUPPORTED);
    fbe_codec_options o = {.max_depth = image->max_depth};
    if (options && options->max_depth)
        o.max_depth = options->max_depth;
    return fbe_interp_create_ir(image->packages, image->package_count, &o, status);
}

/* After lowering: a struct's minimum from the codec's program. */
static uint64_t codec_struct_min(void *ctx, const fbe_ir_struct *st)
{
    const interp_prog *p = interp_prog_for(ctx, st);
    return p ? p->final_min : 0;
}

uint64_t fbe_interp_final_min(const fbe_codec *codec, const fbe_ir_type *t)
{
    return type_final_min(t, codec_struct_min, (void *)codec);
}

uint32_t fbe_interp_fixed_height(const fbe_codec *codec, const fbe_ir_type *t)
{
    switch (t->kind) {
    case FBE_IR_STRUCT: {
        const interp_prog *p = interp_prog_for(codec, t->struct_type);
        return p ? p->fixed_depth : 0;
    }
    case FBE_IR_ARRAY:
        return t->array_len ? fbe_interp_fixed_height(codec, t->elem) : 0;
    default:
        return 0;
    }
}

uint64_t fbe_interp_final_trailing(const fbe_ir_struct *st)
{
    uint64_t sum = 0;
    for (size_t i = st->field_count; i-- > 0 && st->fields[i].type->final_fixed;)
        sum += st->fields[i].type->final_size;
    return sum;
}

bool fbe_interp_final_plain(const fbe_codec *codec, const fbe_ir_type *t)
{
    return t->final_fixed && fbe_interp_fixed_height(codec, t) == 0;
}

uint64_t fbe_interp_count_min(const fbe_codec *codec, const fbe_ir_type *t)
{
    uint64_t m = fbe_interp_final_min(codec, t->elem);
    if (fbe_ir_kind_is_keyed(t->kind))
        m += fbe_interp_final_min(codec, t->key);
    return m > FBE_MIN_CLAMP ? FBE_MIN_CLAMP : m;
}
