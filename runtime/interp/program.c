/* Lowering the IR into interpreter programs, and the codec object. */
#include "program.h"

#include <stdlib.h>

#include "fbe/schema.h"

typedef struct lowering {
    fbe_codec *codec;
    interp_prog *progs;
    const fbe_ir_struct **irs;
    uint8_t *min_state; /* final_min memo: 0 new, 1 busy, 2 done */
    size_t count;
    bool failed;
} lowering;

static interp_prog *prog_for(lowering *L, const fbe_ir_struct *st)
{
    for (size_t i = 0; i < L->count; i++)
        if (L->irs[i] == st)
            return &L->progs[i];
    return NULL;
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

static void lower_type(lowering *L, const fbe_ir_type *t, interp_node *n)
{
    memset(n, 0, sizeof *n);
    n->ir = t;
    n->std_size = t->std_inline_size;
    n->final_fixed = t->final_fixed;
    n->final_size = t->final_size;
    n->host_size = t->host_size;
    n->final_min = t->final_fixed ? t->final_size : 0;
    switch (t->kind) {
    case FBE_IR_BOOL:
        n->op = OP_BOOL;
        break;
    case FBE_IR_STRING:
    case FBE_IR_BYTES:
        n->op = OP_STRING;
        n->final_min = 4;
        break;
    case FBE_IR_STRUCT:
        n->op = OP_STRUCT;
        n->prog = prog_for(L, t->struct_type);
        break;
    case FBE_IR_OPTIONAL: {
        interp_node *inner = fbe_arena_alloc(&L->codec->arena, sizeof *inner);
        if (!inner) {
            L->failed = true;
            return;
        }
        lower_type(L, t->elem, inner);
        n->elem = inner;
        n->final_min = 1;
        if (t->elem->kind == FBE_IR_STRUCT) {
            n->op = OP_OPT_STRUCT;
            n->prog = inner->prog;
        } else {
            n->op = OP_OPTIONAL;
            n->host_value_offset = t->host_value_offset;
        }
        break;
    }
    case FBE_IR_ARRAY:
    case FBE_IR_VECTOR:
    case FBE_IR_LIST:
    case FBE_IR_SET:
    case FBE_IR_MAP:
    case FBE_IR_HASH: {
        interp_node *elem = fbe_arena_alloc(&L->codec->arena, sizeof *elem);
        if (!elem) {
            L->failed = true;
            return;
        }
        lower_type(L, t->elem, elem);
        n->elem = elem;
        if (t->kind == FBE_IR_ARRAY) {
            n->op = OP_ARRAY;
            n->count = t->array_len;
        } else if (t->kind == FBE_IR_MAP || t->kind == FBE_IR_HASH) {
            interp_node *key = fbe_arena_alloc(&L->codec->arena, sizeof *key);
            if (!key) {
                L->failed = true;
                return;
            }
            lower_type(L, t->key, key);
            n->key = key;
            n->op = OP_MAP;
            n->entry_value_offset = t->host_entry_value_offset;
            n->entry_size = t->host_entry_size;
            n->final_min = 4;
        } else {
            n->op = OP_SEQ;
            n->final_min = 4;
        }
        break;
    }
    default: /* integers, floats, enums, flags, decimal, uuid, timestamp */
        n->op = (uint8_t)scalar_op(t->std_inline_size);
        break;
    }
}

/* The smallest final encoding: bounds how many elements a count can claim. */
static uint32_t node_final_min(lowering *L, const interp_node *n)
{
    switch (n->op) {
    case OP_STRUCT:
        return prog_final_min(L, (interp_prog *)n->prog);
    case OP_ARRAY: {
        uint64_t m = (uint64_t)n->count * node_final_min(L, n->elem);
        return m > UINT32_MAX ? UINT32_MAX : (uint32_t)m;
    }
    default:
        return n->final_min;
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
    for (size_t f = 0; f < p->field_count; f++)
        sum += node_final_min(L, &p->fields[f].node);
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
    interp_field *fields = fbe_arena_zalloc(&L->codec->arena, sizeof *fields * (st->field_count + 1));
    if (!fields)
        return false;
    for (size_t i = 0; i < st->field_count; i++) {
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

static fbe_codec *fail(fbe_codec *codec, fbe_status *status, fbe_status why)
{
    if (status)
        *status = why;
    fbe_codec_free(codec);
    return NULL;
}

fbe_codec *fbe_interp_create(const fbe_schema *schema, const fbe_codec_options *options,
                             fbe_status *status)
{
    if (!schema)
        return fail(NULL, status, FBE_INVALID_ARGUMENT);
    fbe_codec *codec = calloc(1, sizeof *codec);
    if (!codec)
        return fail(NULL, status, FBE_NOMEM);
    fbe_arena_init(&codec->arena, NULL, NULL);
    codec->backend = FBE_BACKEND_INTERP;
    codec->max_depth = options && options->max_depth ? options->max_depth : FBE_DEFAULT_MAX_DEPTH;

    size_t count = 0;
    for (size_t i = 0; i < fbe_schema_package_count(schema); i++)
        count += fbe_schema_package(schema, i)->struct_count;
    lowering L = {.codec = codec, .count = count};
    L.progs = fbe_arena_zalloc(&codec->arena, sizeof *L.progs * (count + 1));
    L.irs = fbe_arena_zalloc(&codec->arena, sizeof *L.irs * (count + 1));
    L.min_state = fbe_arena_zalloc(&codec->arena, count + 1);
    codec->types = fbe_arena_zalloc(&codec->arena, sizeof *codec->types * (count + 1));
    if (!L.progs || !L.irs || !L.min_state || !codec->types)
        return fail(codec, status, FBE_NOMEM);
    size_t k = 0;
    for (size_t i = 0; i < fbe_schema_package_count(schema); i++) {
        const fbe_ir_package *p = fbe_schema_package(schema, i);
        for (size_t j = 0; j < p->struct_count; j++)
            L.irs[k++] = p->structs[j];
    }
    for (size_t i = 0; i < count; i++)
        if (!lower_struct(&L, &L.progs[i], L.irs[i]))
            return fail(codec, status, FBE_NOMEM);
    for (size_t i = 0; i < count; i++) {
        prog_final_min(&L, &L.progs[i]);
        fbe_type *t = &codec->types[i];
        t->ir = L.irs[i];
        t->codec = codec;
        t->impl = &L.progs[i];
        t->ops[FBE_STANDARD] = (fbe_model_ops){interp_std_size, interp_std_serialize,
                                               interp_std_verify, interp_std_deserialize};
        t->ops[FBE_FINAL] = (fbe_model_ops){interp_final_size, interp_final_serialize,
                                            interp_final_verify, interp_final_deserialize};
    }
    codec->type_count = count;
    if (status)
        *status = FBE_OK;
    return codec;
}

void fbe_codec_free(fbe_codec *codec)
{
    if (!codec)
        return;
    if (codec->destroy_backend)
        codec->destroy_backend(codec);
    fbe_arena_free(&codec->arena);
    free(codec);
}

fbe_backend fbe_codec_backend(const fbe_codec *codec)
{
    return codec->backend;
}

const char *fbe_backend_name(fbe_backend backend)
{
    switch (backend) {
    case FBE_BACKEND_INTERP: return "interp";
    case FBE_BACKEND_JIT: return "jit";
    case FBE_BACKEND_AOT: return "aot";
    case FBE_BACKEND_STATIC: return "static";
    }
    return "?";
}

unsigned fbe_codec_max_depth(const fbe_codec *codec)
{
    return codec->max_depth;
}

const fbe_type *fbe_codec_type(const fbe_codec *codec, const char *name)
{
    /* Types are in package order, imports first: searching backwards prefers the
     * root package for unqualified names. */
    bool qualified = strchr(name, '.') != NULL;
    for (size_t i = codec->type_count; i-- > 0;) {
        const fbe_ir_struct *st = codec->types[i].ir;
        if (strcmp(qualified ? st->full_name : st->name, name) == 0)
            return &codec->types[i];
    }
    return NULL;
}

const fbe_type *fbe_codec_type_of(const fbe_codec *codec, const fbe_ir_struct *ir)
{
    for (size_t i = 0; i < codec->type_count; i++)
        if (codec->types[i].ir == ir)
            return &codec->types[i];
    return NULL;
}
