/* The protocol (wire-format.md 7): message tables, Sender, Receiver and Proxy.
 * The client is in protocol_client.c. */
#include "protocol_internal.h"

#include <stdlib.h>
#include <string.h>

/* Headers only (struct fbe_codec: the type table; rd32): the protocol calls no
 * interpreter function and links fbe_runtime alone. */
#include "interp/program.h"

/* ---- message tables ---------------------------------------------------------------- */

/* Packages with the structs of the codec: every package is reachable from the root
 * through imports, and the codec's types are in package order, imports first. */
typedef struct pkg_list {
    const fbe_ir_package **items;
    size_t count, cap;
} pkg_list;

static bool pkg_contains(const pkg_list *l, const fbe_ir_package *p)
{
    for (size_t i = 0; i < l->count; i++)
        if (l->items[i] == p)
            return true;
    return false;
}

static bool pkg_push(pkg_list *l, const fbe_ir_package *p)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        const fbe_ir_package **items = realloc(l->items, cap * sizeof *items);
        if (!items)
            return false;
        l->items = items;
        l->cap = cap;
    }
    l->items[l->count++] = p;
    return true;
}

/* Every package reachable from the codec's types, imports included. */
static bool collect_packages(const fbe_codec *codec, pkg_list *all)
{
    for (size_t i = 0; i < codec->type_count; i++) {
        const fbe_ir_package *p = codec->types[i].ir->package;
        if (!pkg_contains(all, p) && !pkg_push(all, p))
            return false;
    }
    /* Imports of those (packages without structs appear only here). */
    for (size_t i = 0; i < all->count; i++) {
        const fbe_ir_package *p = all->items[i];
        for (size_t j = 0; j < p->import_count; j++)
            if (!pkg_contains(all, p->imports[j]) && !pkg_push(all, p->imports[j]))
                return false;
    }
    return true;
}

static bool imported_by_any(const pkg_list *all, const fbe_ir_package *p)
{
    for (size_t i = 0; i < all->count; i++)
        for (size_t j = 0; j < all->items[i]->import_count; j++)
            if (all->items[i]->imports[j] == p)
                return true;
    return false;
}

/* Pre-order depth-first walk: a package, then its imports in import order (the
 * reference's Receiver::onReceive tries its own switch, then each import's). */
static bool dfs(const fbe_ir_package *p, pkg_list *seen, pkg_list *order)
{
    if (pkg_contains(seen, p))
        return true;
    if (!pkg_push(seen, p) || !pkg_push(order, p))
        return false;
    for (size_t j = 0; j < p->import_count; j++)
        if (!dfs(p->imports[j], seen, order))
            return false;
    return true;
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (; *s; s++) {
        h ^= (uint8_t)*s;
        h *= 0x100000001b3u;
    }
    return h;
}

static int cmp_number(const void *a, const void *b)
{
    const struct proto_number *x = a, *y = b;
    return x->number < y->number ? -1 : x->number > y->number;
}

static const fbe_ir_field *uuid_id_field(const fbe_ir_struct *st)
{
    const fbe_ir_field *f = fbe_field_by_name(st, "id");
    return f && f->type->kind == FBE_IR_UUID ? f : NULL;
}

/* Response tables and reject search lists (wire-format.md 7.4). One table per
 * response type; a reject searches every table whose requests list it, requests of
 * imported packages first (the reference offers global and package-qualified
 * rejects to the imported clients before its own tables). */
static bool build_client_tables(fbe_protocol *p)
{
    size_t n = p->type_count;
    int32_t next_slot = 0;
    for (size_t i = 0; i < n; i++) {
        proto_info *in = &p->info[i];
        const fbe_ir_struct *st = p->types[i].ir;
        in->response_slot = -1;
        in->request_slot = -1;
        in->id = uuid_id_field(st);
        if (!st->is_message || !st->is_request)
            continue;
        if (!st->response) {
            in->request_kind = PROTO_REQUEST_ONLY;
            continue;
        }
        const fbe_type *rt = fbe_codec_type_of(p->codec, st->response);
        size_t ri = proto_type_index(p, rt);
        if (!in->id || ri == SIZE_MAX || !p->info[ri].is_message ||
            !uuid_id_field(st->response)) {
            in->request_kind = PROTO_REQUEST_INVALID;
            continue;
        }
        in->request_kind = PROTO_REQUEST_RESPONSE;
    }
    for (size_t i = 0; i < n; i++) {
        proto_info *in = &p->info[i];
        if (in->request_kind != PROTO_REQUEST_RESPONSE)
            continue;
        size_t ri = proto_type_index(p, fbe_codec_type_of(p->codec, p->types[i].ir->response));
        if (p->info[ri].response_slot < 0)
            p->info[ri].response_slot = next_slot++;
        in->request_slot = p->info[ri].response_slot;
    }
    p->slot_count = (size_t)next_slot;

    /* Reject lists: count, then fill from one pool. */
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (p->info[i].request_kind != PROTO_REQUEST_RESPONSE)
            continue;
        total += p->types[i].ir->reject_count;
    }
    p->slot_pool = calloc(total ? total : 1, sizeof *p->slot_pool);
    if (!p->slot_pool)
        return false;
    size_t used = 0;
    for (size_t x = 0; x < n; x++) {
        proto_info *rx = &p->info[x];
        if (!rx->is_message || !rx->id)
            continue;
        size_t start = used;
        for (size_t i = 0; i < n; i++) {
            const proto_info *in = &p->info[i];
            if (in->request_kind != PROTO_REQUEST_RESPONSE)
                continue;
            const fbe_ir_struct *st = p->types[i].ir;
            for (size_t k = 0; k < st->reject_count; k++) {
                if (st->rejects[k].type != p->types[x].ir)
                    continue;
                bool dup = false;
                for (size_t u = start; u < used; u++)
                    dup = dup || p->slot_pool[u] == in->request_slot;
                if (!dup && used < total)
                    p->slot_pool[used++] = in->request_slot;
            }
        }
        if (used > start) {
            rx->reject_slots = p->slot_pool + start;
            rx->reject_slot_count = used - start;
        }
    }
    return true;
}

fbe_protocol *fbe_protocol_create(const fbe_codec *codec, const char *package,
                                  fbe_status *status)
{
    fbe_status why = FBE_NOMEM;
    pkg_list all = {0}, seen = {0}, order = {0};
    fbe_protocol *p = NULL;
    if (!codec) {
        why = FBE_INVALID_ARGUMENT;
        goto fail;
    }
    p = calloc(1, sizeof *p);
    if (!p)
        goto fail;
    p->codec = codec;
    p->types = codec->types;
    p->type_count = codec->type_count;
    p->info = calloc(p->type_count ? p->type_count : 1, sizeof *p->info);
    if (!p->info || !collect_packages(codec, &all))
        goto fail;
    for (size_t i = 0; i < p->type_count; i++)
        p->info[i].is_message = p->types[i].ir->is_message;

    /* The perspective: the named package, or the root (the one nobody imports). */
    if (package) {
        for (size_t i = 0; i < all.count && !p->package; i++)
            if (strcmp(all.items[i]->name, package) == 0)
                p->package = all.items[i];
        if (!p->package) {
            why = FBE_UNKNOWN_TYPE;
            goto fail;
        }
        if (!dfs(p->package, &seen, &order))
            goto fail;
    } else {
        size_t roots = 0;
        for (size_t i = all.count; i-- > 0;) {
            if (imported_by_any(&all, all.items[i]))
                continue;
            roots++;
            p->package = all.items[i];
        }
        if (roots != 1)
            p->package = NULL; /* a root without structs: its imports, latest first */
        for (size_t i = all.count; i-- > 0;)
            if (!imported_by_any(&all, all.items[i]) && !dfs(all.items[i], &seen, &order))
                goto fail;
    }

    /* Dispatch order and the number table (first declaration of a number wins). */
    size_t messages = 0;
    for (size_t i = 0; i < p->type_count; i++)
        messages += p->info[i].is_message;
    p->order = calloc(messages ? messages : 1, sizeof *p->order);
    p->numbers = calloc(messages ? messages : 1, sizeof *p->numbers);
    p->search = calloc(messages ? messages : 1, sizeof *p->search);
    if (!p->order || !p->numbers || !p->search)
        goto fail;
    for (size_t k = 0; k < order.count; k++) {
        const fbe_ir_package *pkg = order.items[k];
        for (size_t j = 0; j < pkg->struct_count; j++) {
            const fbe_ir_struct *st = pkg->structs[j];
            if (!st->is_message)
                continue;
            const fbe_type *t = fbe_codec_type_of(codec, st);
            if (!t)
                continue;
            p->search[p->search_count++] = t;
            bool taken = false;
            for (size_t m = 0; m < p->order_count && !taken; m++)
                taken = p->order[m]->ir->type_number == st->type_number;
            if (taken)
                continue;
            p->numbers[p->order_count] = (struct proto_number){st->type_number, t};
            p->order[p->order_count++] = t;
        }
    }
    qsort(p->numbers, p->order_count, sizeof *p->numbers, cmp_number);
    uint32_t max_number = p->order_count ? p->numbers[p->order_count - 1].number : 0;
    if (p->order_count && max_number < 4096) {
        p->direct_count = max_number + 1;
        p->direct = calloc(p->direct_count, sizeof *p->direct);
        if (!p->direct)
            goto fail;
        for (size_t i = 0; i < p->order_count; i++)
            p->direct[p->numbers[i].number] = p->numbers[i].type;
    }

    /* Full names of every message of the codec. */
    p->name_cap = 16;
    while (p->name_cap < messages * 2)
        p->name_cap *= 2;
    p->names = calloc(p->name_cap, sizeof *p->names);
    if (!p->names)
        goto fail;
    for (size_t i = 0; i < p->type_count; i++) {
        if (!p->info[i].is_message)
            continue;
        const fbe_type *t = &p->types[i];
        size_t h = (size_t)fnv1a(t->ir->full_name) & (p->name_cap - 1);
        while (p->names[h])
            h = (h + 1) & (p->name_cap - 1);
        p->names[h] = t;
    }
    if (!build_client_tables(p))
        goto fail;

    free(all.items);
    free(seen.items);
    free(order.items);
    if (status)
        *status = FBE_OK;
    return p;

fail:
    free(all.items);
    free(seen.items);
    free(order.items);
    fbe_protocol_free(p);
    if (status)
        *status = why;
    return NULL;
}

void fbe_protocol_free(fbe_protocol *p)
{
    if (!p)
        return;
    free(p->info);
    free(p->order);
    free(p->numbers);
    free(p->direct);
    free(p->names);
    free(p->search);
    free(p->slot_pool);
    free(p);
}

const fbe_codec *fbe_protocol_codec(const fbe_protocol *p)
{
    return p->codec;
}

const fbe_ir_package *fbe_protocol_package(const fbe_protocol *p)
{
    return p->package;
}

const fbe_type *fbe_protocol_dispatch(const fbe_protocol *p, uint32_t number)
{
    if (p->direct)
        return number < p->direct_count ? p->direct[number] : NULL;
    size_t lo = 0, hi = p->order_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->numbers[mid].number < number)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->order_count && p->numbers[lo].number == number ? p->numbers[lo].type : NULL;
}

const fbe_type *fbe_protocol_message(const fbe_protocol *p, const char *name)
{
    if (!name)
        return NULL;
    if (strchr(name, '.')) {
        size_t h = (size_t)fnv1a(name) & (p->name_cap - 1);
        for (const fbe_type *t; (t = p->names[h]) != NULL; h = (h + 1) & (p->name_cap - 1))
            if (strcmp(t->ir->full_name, name) == 0)
                return t;
        return NULL;
    }
    for (size_t i = 0; i < p->search_count; i++)
        if (strcmp(p->search[i]->ir->name, name) == 0)
            return p->search[i];
    return NULL;
}

size_t fbe_protocol_message_count(const fbe_protocol *p)
{
    return p->order_count;
}

const fbe_type *fbe_protocol_message_at(const fbe_protocol *p, size_t index)
{
    return index < p->order_count ? p->order[index] : NULL;
}

fbe_status fbe_frame_type_number(fbe_model model, const uint8_t *frame, size_t size,
                                 uint32_t *type_number)
{
    if (model == FBE_FINAL) {
        if (size < FBE_MIN_FINAL_FRAME)
            return FBE_BAD_FRAME_SIZE;
        *type_number = rd32(frame + 4);
        return FBE_OK;
    }
    if (size < FBE_MIN_STANDARD_FRAME)
        return FBE_BAD_FRAME_SIZE;
    uint32_t root = rd32(frame + 4);
    if (root > size - 8)
        return FBE_BAD_OFFSET;
    *type_number = rd32(frame + root + 4);
    return FBE_OK;
}

/* ---- sender ------------------------------------------------------------------------ */

enum { NAME_CACHE = 16 };

struct fbe_sender {
    const fbe_protocol *protocol;
    fbe_model model;
    fbe_send_fn send;
    void *send_ctx;
    size_t max_pending;
    fbe_log_fn log;
    void *log_ctx;
    fbe_buffer buf; /* pending bytes: data[head..size) */
    size_t head;
    fbe_buffer text;
    struct {
        const char *name;
        const fbe_type *type;
    } cache[NAME_CACHE];
};

fbe_sender *fbe_sender_create(const fbe_protocol *protocol, const fbe_sender_options *options,
                              fbe_status *status)
{
    fbe_sender *s = protocol ? calloc(1, sizeof *s) : NULL;
    if (!s) {
        if (status)
            *status = protocol ? FBE_NOMEM : FBE_INVALID_ARGUMENT;
        return NULL;
    }
    s->protocol = protocol;
    if (options) {
        s->model = options->model == FBE_FINAL ? FBE_FINAL : FBE_STANDARD;
        s->send = options->send;
        s->send_ctx = options->send_ctx;
        s->max_pending = options->max_pending;
        s->log = options->log;
        s->log_ctx = options->log_ctx;
    }
    fbe_buffer_init(&s->buf, NULL, NULL);
    fbe_buffer_init(&s->text, NULL, NULL);
    if (status)
        *status = FBE_OK;
    return s;
}

void fbe_sender_free(fbe_sender *s)
{
    if (!s)
        return;
    fbe_buffer_free(&s->buf);
    fbe_buffer_free(&s->text);
    free(s);
}

static fbe_status offer(fbe_sender *s, size_t *sent)
{
    size_t pending = s->buf.size - s->head;
    size_t n = 0;
    fbe_status st = FBE_OK;
    if (s->send && pending) {
        n = s->send(s->send_ctx, s->buf.data + s->head, pending);
        if (n == FBE_SEND_ERROR) {
            n = 0;
            st = FBE_IO;
        } else if (n > pending) {
            n = pending;
        }
        s->head += n;
        if (s->head == s->buf.size)
            s->head = s->buf.size = 0;
    }
    if (sent)
        *sent = n;
    return st;
}

static void log_value(fbe_buffer *text, fbe_log_fn log, void *ctx, const fbe_type *t,
                      const void *value)
{
    fbe_buffer_clear(text);
    if (fbe_print(t->ir, value, text) == FBE_OK && fbe_buffer_append(text, "", 1) == FBE_OK)
        log(ctx, t, (const char *)text->data, text->size - 1);
}

fbe_status fbe_sender_send(fbe_sender *s, const fbe_type *type, const void *value,
                           size_t *sent)
{
    if (sent)
        *sent = 0;
    if (!s || !value || proto_type_index(s->protocol, type) == SIZE_MAX ||
        !type->ir->is_message)
        return FBE_INVALID_ARGUMENT;
    /* The reference removes what was sent from the front of its buffer; here the
     * remainder moves to the front before the next frame is appended. */
    if (s->head) {
        size_t pending = s->buf.size - s->head;
        memmove(s->buf.data, s->buf.data + s->head, pending);
        s->buf.size = pending;
        s->head = 0;
    }
    size_t old = s->buf.size;
    fbe_status st = fbe_serialize(type, s->model, value, &s->buf);
    if (st != FBE_OK) {
        s->buf.size = old;
        return st;
    }
    if (s->max_pending && s->buf.size > s->max_pending) {
        s->buf.size = old;
        return FBE_TOO_SMALL;
    }
    if (s->log)
        log_value(&s->text, s->log, s->log_ctx, type, value);
    return offer(s, sent);
}

fbe_status fbe_sender_send_named(fbe_sender *s, const char *name, const void *value,
                                 size_t *sent)
{
    if (sent)
        *sent = 0;
    if (!s || !name)
        return FBE_INVALID_ARGUMENT;
    size_t slot = ((uintptr_t)name >> 3) % NAME_CACHE;
    const fbe_type *t;
    if (s->cache[slot].name == name && strcmp(s->cache[slot].type->ir->full_name, name) == 0) {
        t = s->cache[slot].type;
    } else {
        t = fbe_protocol_message(s->protocol, name);
        if (!t)
            return FBE_UNKNOWN_TYPE;
        /* Cache only exact full names, so the check above is a plain comparison. */
        if (strcmp(t->ir->full_name, name) == 0) {
            s->cache[slot].name = name;
            s->cache[slot].type = t;
        }
    }
    return fbe_sender_send(s, t, value, sent);
}

fbe_status fbe_sender_flush(fbe_sender *s, size_t *sent)
{
    if (sent)
        *sent = 0;
    if (!s)
        return FBE_INVALID_ARGUMENT;
    return offer(s, sent);
}

const uint8_t *fbe_sender_data(const fbe_sender *s)
{
    return s->buf.data ? s->buf.data + s->head : (const uint8_t *)"";
}

size_t fbe_sender_pending(const fbe_sender *s)
{
    return s->buf.size - s->head;
}

void fbe_sender_consume(fbe_sender *s, size_t n)
{
    size_t pending = s->buf.size - s->head;
    s->head += n < pending ? n : pending;
    if (s->head == s->buf.size)
        s->head = s->buf.size = 0;
}

void fbe_sender_reset(fbe_sender *s)
{
    s->head = s->buf.size = 0;
}

fbe_model fbe_sender_model(const fbe_sender *s)
{
    return s->model;
}

const fbe_protocol *fbe_sender_protocol(const fbe_sender *s)
{
    return s->protocol;
}

void fbe_sender_set_log(fbe_sender *s, fbe_log_fn log, void *ctx)
{
    s->log = log;
    s->log_ctx = ctx;
}

/* ---- receiver and proxy ------------------------------------------------------------ */

/* A partial frame's storage above this size is released once the frame is done. */
enum { KEEP_STORAGE = 1 << 20, FIRST_STORAGE = 256, MIN_DECODED = 1 << 20 };

struct fbe_receiver {
    const fbe_protocol *protocol;
    fbe_model model;
    bool proxy;
    size_t max_frame;
    uint32_t min_frame;
    unsigned decode_flags;
    unsigned flags;
    unsigned max_depth;
    size_t max_memory; /* each decode's budget: max_decoded_size when given */
    void *ctx;
    fbe_message_fn on_message;
    fbe_frame_fn on_frame; /* proxy */
    fbe_frame_fn on_unknown;
    fbe_frame_error_fn on_error;
    fbe_log_fn log;
    void *log_ctx;
    fbe_message_fn *handlers; /* per codec type */
    void **handler_ctx;

    proto_intercept_fn intercept;
    void *intercept_ctx;
    const bool *intercept_wants;

    /* Framing. */
    uint8_t *buf;        /* the partial frame, length prefix included */
    size_t cap;
    size_t have;
    size_t need;         /* its length, once have >= 4 */
    uint64_t skip;       /* bytes of an oversized frame still to drop */
    uint64_t pos;        /* bytes consumed since the last reset */
    uint64_t frame_pos;  /* where the frame being dispatched starts */
    fbe_status stopped;  /* non-OK: no frame boundary any more */
    bool dispatching;
    unsigned generation; /* bumped by reset */

    fbe_arena arena;     /* the decoded message; reset after every frame */
    fbe_buffer text;     /* logging */
};

static fbe_receiver *receiver_new(const fbe_protocol *protocol, fbe_model model,
                                  size_t max_frame, fbe_status *status)
{
    fbe_receiver *r = protocol ? calloc(1, sizeof *r) : NULL;
    if (r) {
        size_t n = protocol->type_count ? protocol->type_count : 1;
        r->handlers = calloc(n, sizeof *r->handlers);
        r->handler_ctx = calloc(n, sizeof *r->handler_ctx);
        if (!r->handlers || !r->handler_ctx) {
            free(r->handlers);
            free(r->handler_ctx);
            free(r);
            r = NULL;
        }
    }
    if (!r) {
        if (status)
            *status = protocol ? FBE_NOMEM : FBE_INVALID_ARGUMENT;
        return NULL;
    }
    r->protocol = protocol;
    r->model = model == FBE_FINAL ? FBE_FINAL : FBE_STANDARD;
    r->min_frame = r->model == FBE_FINAL ? FBE_MIN_FINAL_FRAME : FBE_MIN_STANDARD_FRAME;
    r->max_frame = max_frame ? max_frame : FBE_DEFAULT_MAX_FRAME_SIZE;
    if (r->max_frame > UINT32_MAX)
        r->max_frame = UINT32_MAX;
    fbe_arena_init(&r->arena, NULL, NULL);
    fbe_buffer_init(&r->text, NULL, NULL);
    if (status)
        *status = FBE_OK;
    return r;
}

fbe_receiver *fbe_receiver_create(const fbe_protocol *protocol,
                                  const fbe_receiver_options *options, fbe_status *status)
{
    fbe_receiver_options none = {0};
    const fbe_receiver_options *o = options ? options : &none;
    fbe_receiver *r = receiver_new(protocol, o->model, o->max_frame_size, status);
    if (!r)
        return NULL;
    size_t decoded = o->max_decoded_size;
    if (!decoded) {
        decoded = r->max_frame > SIZE_MAX / 16 ? SIZE_MAX : r->max_frame * 16;
        if (decoded < MIN_DECODED)
            decoded = MIN_DECODED;
    }
    r->arena.limit = decoded;
    r->max_memory = o->max_decoded_size;
    r->max_depth = o->max_depth;
    r->decode_flags = o->decode_flags;
    r->flags = o->flags;
    r->ctx = o->ctx;
    r->on_message = o->on_message;
    r->on_unknown = o->on_unknown;
    r->on_error = o->on_error;
    r->log = o->log;
    r->log_ctx = o->log_ctx;
    return r;
}

void fbe_receiver_free(fbe_receiver *r)
{
    if (!r)
        return;
    free(r->buf);
    free(r->handlers);
    free(r->handler_ctx);
    fbe_arena_free(&r->arena);
    fbe_buffer_free(&r->text);
    free(r);
}

fbe_status fbe_receiver_on(fbe_receiver *r, const fbe_type *type, fbe_message_fn fn, void *ctx)
{
    if (!r || !type || fbe_protocol_dispatch(r->protocol, type->ir->type_number) != type)
        return FBE_INVALID_ARGUMENT;
    size_t i = proto_type_index(r->protocol, type);
    r->handlers[i] = fn;
    r->handler_ctx[i] = ctx;
    return FBE_OK;
}

fbe_status fbe_receiver_on_named(fbe_receiver *r, const char *name, fbe_message_fn fn,
                                 void *ctx)
{
    if (!r)
        return FBE_INVALID_ARGUMENT;
    const fbe_type *t = fbe_protocol_message(r->protocol, name);
    return t ? fbe_receiver_on(r, t, fn, ctx) : FBE_UNKNOWN_TYPE;
}

void proto_receiver_set_intercept(fbe_receiver *r, proto_intercept_fn fn, void *ctx,
                                  const bool *wants)
{
    r->intercept = fn;
    r->intercept_ctx = ctx;
    r->intercept_wants = wants;
}

static bool is_frame_status(fbe_status st)
{
    switch (st) {
    case FBE_TRUNCATED:
    case FBE_BAD_FRAME_SIZE:
    case FBE_NULL_OFFSET:
    case FBE_BAD_OFFSET:
    case FBE_BAD_STRUCT_SIZE:
    case FBE_BAD_TYPE:
    case FBE_BAD_COUNT:
    case FBE_BAD_LENGTH:
    case FBE_TOO_DEEP:
    case FBE_TRAVERSAL_LIMIT:
    case FBE_FINAL_SIZE:
        return true;
    default:
        return false;
    }
}

static fbe_status report(fbe_receiver *r, fbe_frame_error *err)
{
    if (r->on_error)
        r->on_error(r->ctx, err);
    return err->status;
}

/* One whole frame: find its type, verify, decode, hand it over. */
static fbe_status dispatch(fbe_receiver *r, const uint8_t *frame, size_t size)
{
    fbe_frame_error err = {.stream_offset = r->frame_pos, .frame_size = size};
    uint32_t number = 0;
    fbe_status st = fbe_frame_type_number(r->model, frame, size, &number);
    if (st != FBE_OK) {
        err.status = err.verify.status = st;
        err.verify.offset = 4;
        return report(r, &err);
    }
    err.type_number = number;
    const fbe_type *t = fbe_protocol_dispatch(r->protocol, number);
    if (!t) {
        /* The reference skips these silently. */
        if (r->on_unknown)
            r->on_unknown(r->ctx, NULL, number, frame, size);
        return FBE_OK;
    }
    err.type = t;
    size_t idx = (size_t)(t - r->protocol->types);
    fbe_message_fn fn = r->handlers[idx];
    void *fn_ctx = r->handler_ctx[idx];
    if (!fn) {
        fn = r->on_message;
        fn_ctx = r->ctx;
    }
    bool wanted = r->proxy ? r->on_frame != NULL
                           : fn || r->log || (r->intercept && r->intercept_wants[idx]);
    bool verify = !(r->flags & FBE_RECEIVE_NO_VERIFY);
    /* verify applies the receiver's depth limit as deserialize does */
    const fbe_decode_options depth = {.max_depth = r->max_depth};
    if (verify) {
        st = fbe_verify_with(t, r->model, frame, size, &err.verify, &depth);
        if (st != FBE_OK) {
            err.status = st;
            return report(r, &err);
        }
    }
    if (!wanted)
        return FBE_OK;
    if (r->proxy) {
        r->on_frame(r->ctx, t, number, frame, size);
        return FBE_OK;
    }

    void *value = fbe_arena_alloc(&r->arena, t->ir->host_size);
    if (!value) {
        st = FBE_NOMEM;
    } else {
        fbe_decode_options opts = {
            .arena = &r->arena, .flags = r->decode_flags, .max_depth = r->max_depth,
            .max_memory = r->max_memory};
        st = fbe_deserialize(t, r->model, frame, size, value, &opts, NULL);
    }
    if (st != FBE_OK) {
        err.status = err.verify.status = st;
        /* Without the verify pass, ask verify where the problem is. */
        if (!verify && is_frame_status(st))
            (void)fbe_verify_with(t, r->model, frame, size, &err.verify, &depth);
        fbe_arena_reset(&r->arena);
        return report(r, &err);
    }
    if (r->log)
        log_value(&r->text, r->log, r->log_ctx, t, value);
    bool consumed = r->intercept && r->intercept_wants[idx] &&
                    r->intercept(r->intercept_ctx, t, value);
    if (!consumed && fn)
        fn(fn_ctx, t, value);
    fbe_arena_reset(&r->arena);
    return FBE_OK;
}

static fbe_status run_dispatch(fbe_receiver *r, const uint8_t *frame, size_t size)
{
    r->dispatching = true;
    fbe_status st = dispatch(r, frame, size);
    r->dispatching = false;
    return st;
}

/* The length prefix of the frame starting at r->frame_pos. OK: go on (r->skip may
 * now be set); otherwise the receiver stopped. */
static fbe_status check_length(fbe_receiver *r, uint32_t len, fbe_status *first)
{
    fbe_frame_error err = {.stream_offset = r->frame_pos, .frame_size = len};
    if (len < r->min_frame) {
        /* No way to find the next frame: stop (the reference gets stuck here). */
        err.status = err.verify.status = FBE_BAD_FRAME_SIZE;
        r->stopped = FBE_BAD_FRAME_SIZE;
        r->dispatching = true;
        report(r, &err);
        r->dispatching = false;
        return FBE_BAD_FRAME_SIZE;
    }
    if (len > r->max_frame) {
        err.status = err.verify.status = FBE_TOO_LARGE;
        r->skip = len;
        r->dispatching = true;
        report(r, &err);
        r->dispatching = false;
        if (*first == FBE_OK)
            *first = FBE_TOO_LARGE;
    }
    return FBE_OK;
}

static fbe_status stop_nomem(fbe_receiver *r)
{
    fbe_frame_error err = {.status = FBE_NOMEM, .stream_offset = r->frame_pos,
                           .frame_size = r->need};
    err.verify.status = FBE_NOMEM;
    r->stopped = FBE_NOMEM;
    r->dispatching = true;
    report(r, &err);
    r->dispatching = false;
    return FBE_NOMEM;
}

static bool reserve_storage(fbe_receiver *r, size_t size)
{
    if (r->cap >= size)
        return true;
    size_t cap = r->cap ? r->cap : FIRST_STORAGE;
    while (cap < size)
        cap = cap > SIZE_MAX / 2 ? size : cap * 2;
    uint8_t *p = realloc(r->buf, cap);
    if (!p)
        return false;
    r->buf = p;
    r->cap = cap;
    return true;
}

static fbe_status feed(fbe_receiver *r, const void *data, size_t size)
{
    if (!r || (size && !data))
        return FBE_INVALID_ARGUMENT;
    if (r->dispatching)
        return FBE_INVALID_ARGUMENT;
    if (r->stopped != FBE_OK)
        return r->stopped;
    const uint8_t *p = data;
    size_t n = size;
    fbe_status first = FBE_OK;
    unsigned gen = r->generation;
    while (n > 0) {
        if (r->skip) {
            size_t k = r->skip < n ? (size_t)r->skip : n;
            r->skip -= k;
            r->pos += k;
            p += k;
            n -= k;
            continue;
        }
        if (r->have == 0 && n >= 4) {
            /* Fast path: the frame starts in this chunk. */
            uint32_t len = rd32(p);
            r->frame_pos = r->pos;
            fbe_status st = check_length(r, len, &first);
            if (gen != r->generation)
                return first;
            if (st != FBE_OK)
                return st;
            if (r->skip)
                continue;
            if (n >= len) {
                r->pos += len;
                st = run_dispatch(r, p, len);
                if (st != FBE_OK && first == FBE_OK)
                    first = st;
                if (gen != r->generation)
                    return first;
                p += len;
                n -= len;
                continue;
            }
        }
        /* Slow path: assemble the frame in storage. */
        if (r->have < 4) {
            if (!reserve_storage(r, FIRST_STORAGE))
                return stop_nomem(r);
            size_t k = 4 - r->have < n ? 4 - r->have : n;
            memcpy(r->buf + r->have, p, k);
            r->have += k;
            r->pos += k;
            p += k;
            n -= k;
            if (r->have < 4)
                break;
            uint32_t len = rd32(r->buf);
            r->frame_pos = r->pos - 4;
            fbe_status st = check_length(r, len, &first);
            if (gen != r->generation)
                return first;
            if (st != FBE_OK)
                return st;
            if (r->skip) {
                r->skip -= 4;
                r->have = 0;
                continue;
            }
            r->need = len;
        }
        size_t k = r->need - r->have < n ? r->need - r->have : n;
        /* Storage grows with the bytes that actually arrive, not with what the
         * length prefix promises. */
        if (!reserve_storage(r, r->have + k))
            return stop_nomem(r);
        memcpy(r->buf + r->have, p, k);
        r->have += k;
        r->pos += k;
        p += k;
        n -= k;
        if (r->have == r->need) {
            r->have = 0;
            fbe_status st = run_dispatch(r, r->buf, r->need);
            if (st != FBE_OK && first == FBE_OK)
                first = st;
            if (r->cap > KEEP_STORAGE) {
                free(r->buf);
                r->buf = NULL;
                r->cap = 0;
            }
            if (gen != r->generation)
                return first;
        }
    }
    return first;
}

static void reset_receiver(fbe_receiver *r)
{
    r->have = r->need = 0;
    r->skip = 0;
    r->pos = 0;
    r->stopped = FBE_OK;
    r->generation++;
    if (!r->dispatching && r->cap > KEEP_STORAGE) {
        free(r->buf);
        r->buf = NULL;
        r->cap = 0;
    }
}

fbe_status fbe_receiver_receive(fbe_receiver *r, const void *data, size_t size)
{
    return feed(r, data, size);
}

void fbe_receiver_reset(fbe_receiver *r)
{
    if (r)
        reset_receiver(r);
}

uint64_t fbe_receiver_offset(const fbe_receiver *r)
{
    return r->dispatching ? r->frame_pos : r->pos;
}

size_t fbe_receiver_buffered(const fbe_receiver *r)
{
    return r->have;
}

fbe_model fbe_receiver_model(const fbe_receiver *r)
{
    return r->model;
}

const fbe_protocol *fbe_receiver_protocol(const fbe_receiver *r)
{
    return r->protocol;
}

void fbe_receiver_set_log(fbe_receiver *r, fbe_log_fn log, void *ctx)
{
    r->log = log;
    r->log_ctx = ctx;
}

/* A proxy is a receiver in raw mode: fbe_proxy is never defined, only converted. */

fbe_proxy *fbe_proxy_create(const fbe_protocol *protocol, const fbe_proxy_options *options,
                            fbe_status *status)
{
    fbe_proxy_options none = {0};
    const fbe_proxy_options *o = options ? options : &none;
    fbe_receiver *r = receiver_new(protocol, o->model, o->max_frame_size, status);
    if (!r)
        return NULL;
    r->proxy = true;
    r->flags = o->flags;
    r->ctx = o->ctx;
    r->on_frame = o->on_frame;
    r->on_unknown = o->on_unknown;
    r->on_error = o->on_error;
    return (fbe_proxy *)r;
}

void fbe_proxy_free(fbe_proxy *proxy)
{
    fbe_receiver_free((fbe_receiver *)proxy);
}

fbe_status fbe_proxy_receive(fbe_proxy *proxy, const void *data, size_t size)
{
    return feed((fbe_receiver *)proxy, data, size);
}

void fbe_proxy_reset(fbe_proxy *proxy)
{
    if (proxy)
        reset_receiver((fbe_receiver *)proxy);
}

uint64_t fbe_proxy_offset(const fbe_proxy *proxy)
{
    return fbe_receiver_offset((const fbe_receiver *)proxy);
}
