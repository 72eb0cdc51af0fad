/* The protocol client (wire-format.md 7.4): a sender and a receiver plus the
 * requests waiting for their response, keyed by (response type, request id).
 *
 * Locking: `lock` guards the pending table, the timestamp and the sender; `rx_lock`
 * (recursive, so a callback may reset its own client) serializes receiving and
 * resetting. Order: rx_lock before lock. Completion callbacks run without `lock`. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* PTHREAD_MUTEX_RECURSIVE */
#include "protocol_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct pending {
    struct pending *hnext;      /* hash chain */
    struct pending *prev, *next; /* registration (timestamp) order */
    int32_t slot;               /* response table */
    fbe_uuid id;
    uint64_t timestamp;
    uint64_t timeout_ns;        /* 0: never expires */
    const fbe_type *request;
    fbe_request_fn done;
    void *ctx;
} pending;

struct fbe_client {
    const fbe_protocol *protocol;
    fbe_sender *sender;
    fbe_receiver *receiver;
    pthread_mutex_t lock;
    pthread_mutex_t rx_lock;
    pending **buckets;
    size_t bucket_count; /* power of two */
    size_t count;
    pending *head, *tail;
    uint64_t timestamp;
    uint64_t (*clock)(void *ctx);
    void *clock_ctx;
    bool *wants;         /* per codec type: a response or reject type */
    fbe_buffer text;     /* reject text (receive side) */
};

static const char *const outcome_text[] = {
    [FBE_REQUEST_RESPONSE] = "",
    [FBE_REQUEST_SENT] = "",
    [FBE_REQUEST_REJECTED] = "Rejected!",
    [FBE_REQUEST_TIMEOUT] = "Timeout!",
    [FBE_REQUEST_RESET] = "Reset client!",
    [FBE_REQUEST_SEND_FAILED] = "Send request failed!",
    [FBE_REQUEST_DUPLICATE] = "Duplicate request!",
};

const char *fbe_request_outcome_text(fbe_request_outcome outcome)
{
    return (unsigned)outcome < sizeof outcome_text / sizeof outcome_text[0]
               ? outcome_text[outcome]
               : "";
}

static uint64_t default_clock(void *ctx)
{
    (void)ctx;
    return fbe_timestamp_now();
}

/* ---- pending table --------------------------------------------------------------- */

static size_t hash_key(int32_t slot, const fbe_uuid *id)
{
    uint64_t h = 0xcbf29ce484222325u ^ (uint64_t)(uint32_t)slot;
    for (int i = 0; i < 16; i++) {
        h ^= id->bytes[i];
        h *= 0x100000001b3u;
    }
    return (size_t)(h ^ (h >> 29));
}

static pending **find_link(fbe_client *c, int32_t slot, const fbe_uuid *id)
{
    pending **link = &c->buckets[hash_key(slot, id) & (c->bucket_count - 1)];
    while (*link && !((*link)->slot == slot && memcmp((*link)->id.bytes, id->bytes, 16) == 0))
        link = &(*link)->hnext;
    return link;
}

static bool grow(fbe_client *c)
{
    size_t n = c->bucket_count * 2;
    pending **b = calloc(n, sizeof *b);
    if (!b)
        return false;
    for (pending *e = c->head; e; e = e->next) {
        size_t h = hash_key(e->slot, &e->id) & (n - 1);
        e->hnext = b[h];
        b[h] = e;
    }
    free(c->buckets);
    c->buckets = b;
    c->bucket_count = n;
    return true;
}

static void insert(fbe_client *c, pending *e)
{
    if (c->count >= c->bucket_count)
        (void)grow(c); /* chains just get longer if it fails */
    size_t h = hash_key(e->slot, &e->id) & (c->bucket_count - 1);
    e->hnext = c->buckets[h];
    c->buckets[h] = e;
    e->prev = c->tail;
    e->next = NULL;
    if (c->tail)
        c->tail->next = e;
    else
        c->head = e;
    c->tail = e;
    c->count++;
}

/* Unlinks the entry *link points to (a hash chain link). */
static pending *unlink_at(fbe_client *c, pending **link)
{
    pending *e = *link;
    *link = e->hnext;
    if (e->prev)
        e->prev->next = e->next;
    else
        c->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        c->tail = e->prev;
    c->count--;
    e->hnext = e->prev = e->next = NULL;
    return e;
}

static pending *take(fbe_client *c, int32_t slot, const fbe_uuid *id)
{
    pending **link = find_link(c, slot, id);
    return *link ? unlink_at(c, link) : NULL;
}

/* Detaches every entry (or only the expired ones) into a private list. */
static pending *take_all(fbe_client *c, bool expired_only, uint64_t utc)
{
    pending *out = NULL, **tail = &out;
    pending *e = c->head;
    while (e) {
        pending *next = e->next;
        bool expired = e->timeout_ns && (e->timestamp > UINT64_MAX - e->timeout_ns
                                             ? false
                                             : e->timestamp + e->timeout_ns <= utc);
        if (!expired_only || expired) {
            unlink_at(c, find_link(c, e->slot, &e->id));
            *tail = e;
            tail = &e->next;
        }
        e = next;
    }
    return out;
}

static void complete(const pending *e, fbe_request_outcome outcome, const fbe_type *type,
                     const void *value, const char *error, size_t error_len)
{
    if (!e->done)
        return;
    fbe_request_result r = {
        .outcome = outcome,
        .request = e->request,
        .id = e->id,
        .type = type,
        .value = value,
        .error = error,
        .error_len = error_len,
    };
    e->done(e->ctx, &r);
}

static size_t fail_list(pending *list, fbe_request_outcome outcome)
{
    const char *text = fbe_request_outcome_text(outcome);
    size_t n = 0;
    while (list) {
        pending *next = list->next;
        complete(list, outcome, NULL, NULL, text, strlen(text));
        free(list);
        list = next;
        n++;
    }
    return n;
}

/* ---- receive side ------------------------------------------------------------------ */

/* Every decoded response or reject type passes here before the notify handlers. */
static bool intercept(void *ctx, const fbe_type *type, const void *value)
{
    fbe_client *c = ctx;
    const fbe_protocol *p = c->protocol;
    const proto_info *in = &p->info[proto_type_index(p, type)];
    if (!in->id)
        return false;
    fbe_uuid id;
    memcpy(&id, (const char *)value + in->id->host_offset, sizeof id);

    pending *e = NULL;
    bool reject = false;
    pthread_mutex_lock(&c->lock);
    if (in->response_slot >= 0)
        e = take(c, in->response_slot, &id);
    for (size_t i = 0; !e && i < in->reject_slot_count; i++) {
        e = take(c, in->reject_slots[i], &id);
        reject = e != NULL;
    }
    pthread_mutex_unlock(&c->lock);
    if (!e)
        return false;
    if (!reject) {
        complete(e, FBE_REQUEST_RESPONSE, type, value, NULL, 0);
    } else {
        /* The reference fails the future with reject.string(). */
        fbe_buffer_clear(&c->text);
        fbe_status st = fbe_print(type->ir, value, &c->text);
        if (st == FBE_OK)
            st = fbe_buffer_append(&c->text, "", 1);
        if (st == FBE_OK)
            complete(e, FBE_REQUEST_REJECTED, type, value, (const char *)c->text.data,
                     c->text.size - 1);
        else
            complete(e, FBE_REQUEST_REJECTED, type, value, "Rejected!", 9);
    }
    free(e);
    return true;
}

/* ---- client ---------------------------------------------------------------------------- */

fbe_client *fbe_client_create(const fbe_protocol *protocol, const fbe_client_options *options,
                              fbe_status *status)
{
    fbe_client_options none = {0};
    const fbe_client_options *o = options ? options : &none;
    fbe_status st = FBE_NOMEM;
    if (!protocol) {
        if (status)
            *status = FBE_INVALID_ARGUMENT;
        return NULL;
    }
    fbe_client *c = calloc(1, sizeof *c);
    if (!c)
        goto fail;
    c->protocol = protocol;
    c->clock = o->clock ? o->clock : default_clock;
    c->clock_ctx = o->clock_ctx;
    fbe_buffer_init(&c->text, NULL, NULL);
    bool locks = false;
    pthread_mutexattr_t attr;
    if (pthread_mutexattr_init(&attr) == 0) {
        if (pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE) == 0 &&
            pthread_mutex_init(&c->rx_lock, &attr) == 0) {
            if (pthread_mutex_init(&c->lock, NULL) == 0)
                locks = true;
            else
                pthread_mutex_destroy(&c->rx_lock);
        }
        pthread_mutexattr_destroy(&attr);
    }
    if (!locks) {
        free(c);
        c = NULL;
        goto fail;
    }
    c->bucket_count = 16;
    c->buckets = calloc(c->bucket_count, sizeof *c->buckets);
    c->wants = calloc(protocol->type_count ? protocol->type_count : 1, sizeof *c->wants);
    if (!c->buckets || !c->wants)
        goto fail;
    for (size_t i = 0; i < protocol->type_count; i++) {
        const proto_info *in = &protocol->info[i];
        c->wants[i] = in->id && (in->response_slot >= 0 || in->reject_slot_count > 0);
    }
    fbe_sender_options so = o->sender;
    so.model = o->model;
    fbe_receiver_options ro = o->receiver;
    ro.model = o->model;
    c->sender = fbe_sender_create(protocol, &so, &st);
    if (!c->sender)
        goto fail;
    c->receiver = fbe_receiver_create(protocol, &ro, &st);
    if (!c->receiver)
        goto fail;
    proto_receiver_set_intercept(c->receiver, intercept, c, c->wants);
    if (status)
        *status = FBE_OK;
    return c;

fail:
    fbe_client_free(c);
    if (status)
        *status = st;
    return NULL;
}

void fbe_client_free(fbe_client *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    pending *all = c->buckets ? take_all(c, false, 0) : NULL;
    pthread_mutex_unlock(&c->lock);
    fail_list(all, FBE_REQUEST_RESET);
    fbe_sender_free(c->sender);
    fbe_receiver_free(c->receiver);
    fbe_buffer_free(&c->text);
    free(c->buckets);
    free(c->wants);
    pthread_mutex_destroy(&c->lock);
    pthread_mutex_destroy(&c->rx_lock);
    free(c);
}

fbe_status fbe_client_send(fbe_client *c, const fbe_type *type, const void *value, size_t *sent)
{
    if (!c)
        return FBE_INVALID_ARGUMENT;
    pthread_mutex_lock(&c->lock);
    fbe_status st = fbe_sender_send(c->sender, type, value, sent);
    pthread_mutex_unlock(&c->lock);
    return st;
}

fbe_status fbe_client_send_named(fbe_client *c, const char *name, const void *value,
                                 size_t *sent)
{
    if (!c)
        return FBE_INVALID_ARGUMENT;
    pthread_mutex_lock(&c->lock);
    fbe_status st = fbe_sender_send_named(c->sender, name, value, sent);
    pthread_mutex_unlock(&c->lock);
    return st;
}

fbe_status fbe_client_flush(fbe_client *c, size_t *sent)
{
    if (!c)
        return FBE_INVALID_ARGUMENT;
    pthread_mutex_lock(&c->lock);
    fbe_status st = fbe_sender_flush(c->sender, sent);
    pthread_mutex_unlock(&c->lock);
    return st;
}

static void complete_now(fbe_request_fn done, void *ctx, fbe_request_outcome outcome,
                         const fbe_type *type, const fbe_uuid *id)
{
    if (!done)
        return;
    const char *text = fbe_request_outcome_text(outcome);
    fbe_request_result r = {
        .outcome = outcome,
        .request = type,
        .error = outcome == FBE_REQUEST_SENT ? NULL : text,
        .error_len = outcome == FBE_REQUEST_SENT ? 0 : strlen(text),
    };
    if (id)
        r.id = *id;
    done(ctx, &r);
}

fbe_status fbe_client_request(fbe_client *c, const fbe_type *type, const void *value,
                              uint64_t timeout_ms, fbe_request_fn done, void *ctx)
{
    if (!c || !value)
        return FBE_INVALID_ARGUMENT;
    const fbe_protocol *p = c->protocol;
    size_t idx = proto_type_index(p, type);
    if (idx == SIZE_MAX)
        return FBE_INVALID_ARGUMENT;
    const proto_info *in = &p->info[idx];
    if (!in->is_message || in->request_kind == PROTO_NOT_REQUEST ||
        in->request_kind == PROTO_REQUEST_INVALID)
        return FBE_INVALID_ARGUMENT;

    if (in->request_kind == PROTO_REQUEST_ONLY) {
        pthread_mutex_lock(&c->lock);
        fbe_status st = fbe_sender_send(c->sender, type, value, NULL);
        pthread_mutex_unlock(&c->lock);
        complete_now(done, ctx, st == FBE_OK ? FBE_REQUEST_SENT : FBE_REQUEST_SEND_FAILED, type,
                     NULL);
        return st;
    }

    fbe_uuid id;
    memcpy(&id, (const char *)value + in->id->host_offset, sizeof id);
    pending *e = calloc(1, sizeof *e);
    if (!e) {
        complete_now(done, ctx, FBE_REQUEST_SEND_FAILED, type, &id);
        return FBE_NOMEM;
    }
    e->slot = in->request_slot;
    e->id = id;
    e->request = type;
    e->done = done;
    e->ctx = ctx;
    e->timeout_ns = timeout_ms > UINT64_MAX / 1000000u ? UINT64_MAX : timeout_ms * 1000000u;
    uint64_t now = c->clock(c->clock_ctx);

    pthread_mutex_lock(&c->lock);
    fbe_status st = fbe_sender_send(c->sender, type, value, NULL);
    if (st != FBE_OK) {
        pthread_mutex_unlock(&c->lock);
        complete_now(done, ctx, FBE_REQUEST_SEND_FAILED, type, &id);
        free(e);
        return st;
    }
    /* The reference's unique timestamp. */
    c->timestamp = now <= c->timestamp ? c->timestamp + 1 : now;
    e->timestamp = c->timestamp;
    bool duplicate = *find_link(c, e->slot, &id) != NULL;
    if (!duplicate)
        insert(c, e);
    pthread_mutex_unlock(&c->lock);
    if (duplicate) {
        complete_now(done, ctx, FBE_REQUEST_DUPLICATE, type, &id);
        free(e);
    }
    return FBE_OK;
}

fbe_status fbe_client_request_named(fbe_client *c, const char *name, const void *value,
                                    uint64_t timeout_ms, fbe_request_fn done, void *ctx)
{
    if (!c)
        return FBE_INVALID_ARGUMENT;
    const fbe_type *t = fbe_protocol_message(c->protocol, name);
    if (!t)
        return FBE_INVALID_ARGUMENT;
    return fbe_client_request(c, t, value, timeout_ms, done, ctx);
}

fbe_status fbe_client_receive(fbe_client *c, const void *data, size_t size)
{
    if (!c)
        return FBE_INVALID_ARGUMENT;
    pthread_mutex_lock(&c->rx_lock);
    fbe_status st = fbe_receiver_receive(c->receiver, data, size);
    pthread_mutex_unlock(&c->rx_lock);
    return st;
}

size_t fbe_client_watchdog(fbe_client *c, uint64_t utc_ns)
{
    if (!c)
        return 0;
    pthread_mutex_lock(&c->lock);
    pending *expired = take_all(c, true, utc_ns);
    pthread_mutex_unlock(&c->lock);
    return fail_list(expired, FBE_REQUEST_TIMEOUT);
}

void fbe_client_reset(fbe_client *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->rx_lock);
    pthread_mutex_lock(&c->lock);
    pending *all = take_all(c, false, 0);
    fbe_sender_reset(c->sender);
    pthread_mutex_unlock(&c->lock);
    fbe_receiver_reset(c->receiver);
    pthread_mutex_unlock(&c->rx_lock);
    fail_list(all, FBE_REQUEST_RESET);
}

size_t fbe_client_pending(fbe_client *c)
{
    if (!c)
        return 0;
    pthread_mutex_lock(&c->lock);
    size_t n = c->count;
    pthread_mutex_unlock(&c->lock);
    return n;
}

fbe_sender *fbe_client_sender(fbe_client *c)
{
    return c->sender;
}

fbe_receiver *fbe_client_receiver(fbe_client *c)
{
    return c->receiver;
}

const fbe_protocol *fbe_client_protocol(const fbe_client *c)
{
    return c->protocol;
}
