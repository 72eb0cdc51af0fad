/* The protocol client (wire-format.md 7.4) in memory, both models: request ->
 * response, rejects (local, shared between requests, global through an import,
 * package-qualified), notifications, watchdog timeouts with unique timestamps,
 * reset, send failures, duplicate ids, fire-and-forget requests, free with
 * requests pending, and concurrent requests from several threads.
 *
 * The chat schema (examples/chat.fbe) comes with its generated header, so the
 * typed helpers (chat_request_Join, chat_handlers) are exercised too. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chat.h" /* generated from examples/chat.fbe */
#include "fbe/protocol.h"
#include "test_cmd.h"

/* ---- a client and a server connected in memory ---------------------------------------- */

typedef struct result {
    fbe_request_outcome outcome;
    fbe_uuid id;
    char type[64];  /* full name of the response / reject */
    char error[256];
    int64_t number; /* Welcome.members or Ack.seq */
    size_t history;
    char first_line[64];
} result;

typedef struct harness {
    fbe_schema *schema;
    fbe_codec *codec;
    fbe_protocol *protocol;
    fbe_model model;
    /* client side */
    fbe_client *client;
    fbe_buffer to_server;
    size_t accept_max;  /* bytes the client's transport takes per call; SIZE_MAX: all */
    bool fail_send;
    uint64_t now;       /* the injected clock */
    result results[64];
    size_t result_count;
    size_t notify[16];  /* per chat message, client side notifications */
    /* server side */
    fbe_receiver *server_rx;
    fbe_sender *server_tx;
    chat_handlers server_handlers;
    chat_handlers client_handlers;
    uint64_t seq;
    size_t joins, says, leaves;
    bool reply;         /* the server answers requests */
} harness;

static size_t client_send(void *ctx, const uint8_t *data, size_t size)
{
    harness *h = ctx;
    if (h->fail_send)
        return FBE_SEND_ERROR;
    size_t n = size < h->accept_max ? size : h->accept_max;
    fbe_buffer_append(&h->to_server, data, n);
    return n;
}

static uint64_t fake_clock(void *ctx)
{
    return ((harness *)ctx)->now;
}

static void done(void *ctx, const fbe_request_result *r)
{
    harness *h = ctx;
    assert_true(h->result_count < 64);
    result *out = &h->results[h->result_count++];
    memset(out, 0, sizeof *out);
    out->outcome = r->outcome;
    out->id = r->id;
    assert_non_null(r->request);
    if (r->type)
        snprintf(out->type, sizeof out->type, "%s", r->type->ir->full_name);
    if (r->error) {
        assert_int_equal(strlen(r->error), r->error_len);
        snprintf(out->error, sizeof out->error, "%s", r->error);
    } else {
        assert_true(r->outcome == FBE_REQUEST_RESPONSE || r->outcome == FBE_REQUEST_SENT);
    }
    if (r->outcome == FBE_REQUEST_RESPONSE && strcmp(out->type, "chat.Welcome") == 0) {
        const chat_Welcome *w = r->value;
        out->number = w->members;
        out->history = w->history.size;
        if (w->history.size)
            snprintf(out->first_line, sizeof out->first_line, "%.*s: %.*s",
                     (int)w->history.data[0].from.size, w->history.data[0].from.data,
                     (int)w->history.data[0].text.size, w->history.data[0].text.data);
    }
    if (r->outcome == FBE_REQUEST_RESPONSE && strcmp(out->type, "chat.Ack") == 0)
        out->number = (int64_t)((const chat_Ack *)r->value)->seq;
}

static fbe_string str(const char *s)
{
    return (fbe_string){s, strlen(s)};
}

static bool str_is(fbe_string s, const char *text)
{
    return s.size == strlen(text) && memcmp(s.data, text, s.size) == 0;
}

/* Server handlers. */
static void srv_join(void *ctx, const chat_Join *m)
{
    harness *h = ctx;
    h->joins++;
    if (!h->reply)
        return;
    if (str_is(m->name, "bad")) {
        chat_Refused r = {.id = m->id, .reason = str("name taken")};
        assert_int_equal(chat_send_Refused(h->server_tx, &r), FBE_OK);
        return;
    }
    chat_Line lines[2] = {{str("bob"), str("hi"), 1}, {str("eve"), str("yo"), 2}};
    chat_Welcome w = {.id = m->id, .members = 3, .history = {lines, 2}};
    assert_int_equal(chat_send_Welcome(h->server_tx, &w), FBE_OK);
}

static void srv_say(void *ctx, const chat_Say *m)
{
    harness *h = ctx;
    h->says++;
    if (!h->reply || str_is(m->text, "ignore"))
        return;
    if (str_is(m->text, "reject")) {
        chat_Refused r = {.id = m->id, .reason = str("not allowed")};
        assert_int_equal(chat_send_Refused(h->server_tx, &r), FBE_OK);
        return;
    }
    chat_Ack a = {.id = m->id, .seq = ++h->seq};
    assert_int_equal(chat_send_Ack(h->server_tx, &a), FBE_OK);
    chat_Said s = {.seq = h->seq, .line = {str("me"), m->text, 5}};
    assert_int_equal(chat_send_Said(h->server_tx, &s), FBE_OK);
}

static void srv_leave(void *ctx, const chat_Leave *m)
{
    harness *h = ctx;
    (void)m;
    h->leaves++;
}

/* Client notifications (what no pending request consumed). */
static void cli_welcome(void *ctx, const chat_Welcome *m) { (void)m; ((harness *)ctx)->notify[3]++; }
static void cli_refused(void *ctx, const chat_Refused *m) { (void)m; ((harness *)ctx)->notify[4]++; }
static void cli_ack(void *ctx, const chat_Ack *m) { (void)m; ((harness *)ctx)->notify[6]++; }
static void cli_said(void *ctx, const chat_Said *m) { (void)m; ((harness *)ctx)->notify[7]++; }

static void harness_open(harness *h, fbe_model model)
{
    memset(h, 0, sizeof *h);
    h->model = model;
    h->accept_max = SIZE_MAX;
    h->reply = true;
    h->now = UINT64_C(1700000000000000000);
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/chat.fbe", FBE_SOURCE_DIR);
    h->schema = fbe_schema_load(path, NULL, NULL);
    assert_non_null(h->schema);
    h->codec = fbe_interp_create(h->schema, NULL, NULL);
    h->protocol = fbe_protocol_create(h->codec, NULL, NULL);
    assert_non_null(h->protocol);
    fbe_buffer_init(&h->to_server, NULL, NULL);

    fbe_client_options co = {
        .model = model,
        .sender = {.send = client_send, .send_ctx = h},
        .clock = fake_clock,
        .clock_ctx = h,
    };
    fbe_status st;
    h->client = fbe_client_create(h->protocol, &co, &st);
    assert_int_equal(st, FBE_OK);
    h->client_handlers = (chat_handlers){.ctx = h, .on_Welcome = cli_welcome,
                                         .on_Refused = cli_refused, .on_Ack = cli_ack,
                                         .on_Said = cli_said};
    assert_int_equal(chat_receiver_bind(fbe_client_receiver(h->client), &h->client_handlers),
                     FBE_OK);

    fbe_sender_options so = {.model = model};
    h->server_tx = fbe_sender_create(h->protocol, &so, NULL);
    fbe_receiver_options ro = {.model = model};
    h->server_rx = fbe_receiver_create(h->protocol, &ro, NULL);
    h->server_handlers = (chat_handlers){.ctx = h, .on_Join = srv_join, .on_Say = srv_say,
                                         .on_Leave = srv_leave};
    assert_int_equal(chat_receiver_bind(h->server_rx, &h->server_handlers), FBE_OK);
}

static void harness_close(harness *h)
{
    fbe_client_free(h->client);
    fbe_receiver_free(h->server_rx);
    fbe_sender_free(h->server_tx);
    fbe_buffer_free(&h->to_server);
    fbe_protocol_free(h->protocol);
    fbe_codec_free(h->codec);
    fbe_schema_free(h->schema);
}

/* Moves bytes both ways until nothing is left (byte by byte towards the client on
 * odd rounds, to mix the chunking). */
static void pump(harness *h)
{
    for (int round = 0; round < 8; round++) {
        if (h->to_server.size) {
            assert_int_equal(fbe_receiver_receive(h->server_rx, h->to_server.data, h->to_server.size),
                             FBE_OK);
            fbe_buffer_clear(&h->to_server);
        }
        size_t n = fbe_sender_pending(h->server_tx);
        if (n) {
            const uint8_t *d = fbe_sender_data(h->server_tx);
            if (round % 2)
                for (size_t i = 0; i < n; i++)
                    assert_int_equal(fbe_client_receive(h->client, d + i, 1), FBE_OK);
            else
                assert_int_equal(fbe_client_receive(h->client, d, n), FBE_OK);
            fbe_sender_consume(h->server_tx, n);
        }
        if (!h->to_server.size && !fbe_sender_pending(h->server_tx))
            return;
    }
}

static fbe_uuid uuid_n(unsigned n)
{
    fbe_uuid u = {{0}};
    u.bytes[0] = 0xAB;
    u.bytes[15] = (uint8_t)n;
    u.bytes[14] = (uint8_t)(n >> 8);
    return u;
}

static void uuid_text(const fbe_uuid *u, char out[37])
{
    fbe_uuid_format(u, out);
}

/* ---- tests ------------------------------------------------------------------------------------ */

static void test_response_and_rejects(void **state)
{
    (void)state;
    for (int m = 0; m < 2; m++) {
        harness h;
        harness_open(&h, m ? FBE_FINAL : FBE_STANDARD);
        /* Join -> Welcome (not a notification). */
        chat_Join j = {.id = uuid_n(1), .name = str("alice")};
        assert_int_equal(chat_request_Join(h.client, &j, 1000, done, &h), FBE_OK);
        assert_int_equal(h.result_count, 0);
        assert_int_equal(fbe_client_pending(h.client), 1);
        pump(&h);
        assert_int_equal(h.result_count, 1);
        assert_int_equal(h.results[0].outcome, FBE_REQUEST_RESPONSE);
        assert_string_equal(h.results[0].type, "chat.Welcome");
        assert_memory_equal(h.results[0].id.bytes, j.id.bytes, 16);
        assert_int_equal(h.results[0].number, 3);
        assert_int_equal(h.results[0].history, 2);
        assert_string_equal(h.results[0].first_line, "bob: hi");
        assert_int_equal(h.notify[3], 0);
        assert_int_equal(fbe_client_pending(h.client), 0);

        /* Join rejected: the reject's text form, not a notification. */
        chat_Join bad = {.id = uuid_n(2), .name = str("bad")};
        assert_int_equal(chat_request_Join(h.client, &bad, 0, done, &h), FBE_OK);
        pump(&h);
        assert_int_equal(h.result_count, 2);
        assert_int_equal(h.results[1].outcome, FBE_REQUEST_REJECTED);
        assert_string_equal(h.results[1].type, "chat.Refused");
        char id[37], want[128];
        uuid_text(&bad.id, id);
        snprintf(want, sizeof want, "Refused(id=\"%s\",reason=\"name taken\")", id);
        assert_string_equal(h.results[1].error, want);
        assert_int_equal(h.notify[4], 0);

        /* Say -> Ack, plus the Said broadcast as a notification. */
        chat_Say s = {.id = uuid_n(3), .text = str("hello")};
        assert_int_equal(chat_request_Say(h.client, &s, 0, done, &h), FBE_OK);
        pump(&h);
        assert_int_equal(h.results[2].outcome, FBE_REQUEST_RESPONSE);
        assert_string_equal(h.results[2].type, "chat.Ack");
        assert_int_equal(h.results[2].number, 1);
        assert_int_equal(h.notify[7], 1);
        assert_int_equal(h.notify[6], 0);

        /* Refused is the reject of Join and of Say: both tables are searched. */
        chat_Say r = {.id = uuid_n(4), .text = str("reject")};
        assert_int_equal(chat_request_Say(h.client, &r, 0, done, &h), FBE_OK);
        pump(&h);
        assert_int_equal(h.results[3].outcome, FBE_REQUEST_REJECTED);
        assert_non_null(strstr(h.results[3].error, "reason=\"not allowed\""));

        /* A response nobody waits for is a notification. */
        chat_Ack stray = {.id = uuid_n(99), .seq = 7};
        assert_int_equal(chat_send_Ack(h.server_tx, &stray), FBE_OK);
        chat_Refused stray2 = {.id = uuid_n(98), .reason = str("?")};
        assert_int_equal(chat_send_Refused(h.server_tx, &stray2), FBE_OK);
        pump(&h);
        assert_int_equal(h.notify[6], 1);
        assert_int_equal(h.notify[4], 1);
        assert_int_equal(h.result_count, 4);

        /* Fire and forget: completed at once. */
        chat_Leave l = {.reason = str("bye")};
        assert_int_equal(chat_request_Leave(h.client, &l, 0, done, &h), FBE_OK);
        assert_int_equal(h.result_count, 5);
        assert_int_equal(h.results[4].outcome, FBE_REQUEST_SENT);
        pump(&h);
        assert_int_equal(h.leaves, 1);

        /* Not requests: refused, done never called. */
        const fbe_type *welcome = fbe_protocol_message(h.protocol, "chat.Welcome");
        chat_Welcome w = {0};
        assert_int_equal(fbe_client_request(h.client, welcome, &w, 0, done, &h), FBE_INVALID_ARGUMENT);
        assert_int_equal(fbe_client_request_named(h.client, "chat.Nope", &w, 0, done, &h),
                         FBE_INVALID_ARGUMENT);
        assert_int_equal(fbe_client_request(h.client, NULL, &w, 0, done, &h), FBE_INVALID_ARGUMENT);
        assert_int_equal(h.result_count, 5);

        /* Plain sends through the client. */
        assert_int_equal(chat_client_send_Say(h.client, &s), FBE_OK);
        pump(&h);
        assert_int_equal(h.says, 3);
        assert_int_equal(h.notify[6], 2); /* its Ack: nobody waits */
        harness_close(&h);
    }
}

static void test_timeouts(void **state)
{
    (void)state;
    harness h;
    harness_open(&h, FBE_STANDARD);
    h.reply = false;
    uint64_t t0 = h.now;
    chat_Say a = {.id = uuid_n(1), .text = str("a")};
    chat_Say b = {.id = uuid_n(2), .text = str("b")};
    chat_Say c = {.id = uuid_n(3), .text = str("c")};
    assert_int_equal(chat_request_Say(h.client, &a, 100, done, &h), FBE_OK);
    assert_int_equal(chat_request_Say(h.client, &b, 0, done, &h), FBE_OK); /* never expires */
    assert_int_equal(chat_request_Say(h.client, &c, 50, done, &h), FBE_OK);
    /* Unique timestamps: a = t0, b = t0 + 1, c = t0 + 2. */
    const uint64_t ms = 1000000;
    assert_int_equal(fbe_client_watchdog(h.client, t0 + 50 * ms + 1), 0);
    /* c expires although a, registered earlier, has not (every expired request
     * fails, not only a prefix in registration order). */
    assert_int_equal(fbe_client_watchdog(h.client, t0 + 50 * ms + 2), 1);
    assert_int_equal(h.results[0].outcome, FBE_REQUEST_TIMEOUT);
    assert_string_equal(h.results[0].error, "Timeout!");
    assert_memory_equal(h.results[0].id.bytes, c.id.bytes, 16);
    assert_int_equal(fbe_client_watchdog(h.client, t0 + 100 * ms - 1), 0);
    assert_int_equal(fbe_client_watchdog(h.client, t0 + 100 * ms), 1);
    assert_memory_equal(h.results[1].id.bytes, a.id.bytes, 16);
    assert_int_equal(fbe_client_watchdog(h.client, UINT64_MAX), 0);
    assert_int_equal(fbe_client_pending(h.client), 1);
    /* A late response of a timed-out request is a notification. */
    pump(&h);
    chat_Ack late = {.id = a.id, .seq = 1};
    assert_int_equal(chat_send_Ack(h.server_tx, &late), FBE_OK);
    pump(&h);
    assert_int_equal(h.notify[6], 1);

    /* Same clock value, 1 ms each: timestamps t0 + 3, 4, 5 (after the last one). */
    h.now = t0; /* the clock goes back: timestamps still increase */
    for (unsigned i = 10; i < 13; i++) {
        chat_Say s = {.id = uuid_n(i), .text = str("x")};
        assert_int_equal(chat_request_Say(h.client, &s, 1, done, &h), FBE_OK);
    }
    size_t before = h.result_count;
    assert_int_equal(fbe_client_watchdog(h.client, t0 + 2 + ms), 0);
    assert_int_equal(fbe_client_watchdog(h.client, t0 + 3 + ms), 1);
    assert_int_equal(fbe_client_watchdog(h.client, t0 + 5 + ms), 2);
    assert_int_equal(h.result_count, before + 3);

    /* Huge timeouts do not overflow. */
    chat_Say big = {.id = uuid_n(20), .text = str("x")};
    assert_int_equal(chat_request_Say(h.client, &big, UINT64_MAX, done, &h), FBE_OK);
    assert_int_equal(fbe_client_watchdog(h.client, UINT64_MAX - 1), 0);

    /* Reset fails what is left. */
    before = h.result_count;
    fbe_client_reset(h.client);
    assert_int_equal(fbe_client_pending(h.client), 0);
    assert_int_equal(h.result_count, before + 2);
    assert_int_equal(h.results[before].outcome, FBE_REQUEST_RESET);
    assert_string_equal(h.results[before].error, "Reset client!");
    harness_close(&h);
}

static void test_reset_and_failures(void **state)
{
    (void)state;
    harness h;
    harness_open(&h, FBE_STANDARD);
    /* A transport that takes nothing: the bytes stay pending, the request waits. */
    h.accept_max = 0;
    chat_Say s = {.id = uuid_n(1), .text = str("queued")};
    assert_int_equal(chat_request_Say(h.client, &s, 0, done, &h), FBE_OK);
    assert_int_equal(h.result_count, 0);
    assert_int_equal(fbe_client_pending(h.client), 1);
    assert_true(fbe_sender_pending(fbe_client_sender(h.client)) > 0);
    h.accept_max = SIZE_MAX;
    size_t sent = 0;
    assert_int_equal(fbe_client_flush(h.client, &sent), FBE_OK);
    assert_true(sent > 0);
    pump(&h);
    assert_int_equal(h.results[0].outcome, FBE_REQUEST_RESPONSE);

    /* A broken transport: "Send request failed!", nothing pending. */
    h.fail_send = true;
    chat_Say f = {.id = uuid_n(2), .text = str("x")};
    assert_int_equal(chat_request_Say(h.client, &f, 0, done, &h), FBE_IO);
    assert_int_equal(h.results[1].outcome, FBE_REQUEST_SEND_FAILED);
    assert_string_equal(h.results[1].error, "Send request failed!");
    assert_int_equal(fbe_client_pending(h.client), 0);
    chat_Leave l = {.reason = str("x")};
    assert_int_equal(chat_request_Leave(h.client, &l, 0, done, &h), FBE_IO);
    assert_int_equal(h.results[2].outcome, FBE_REQUEST_SEND_FAILED);
    h.fail_send = false;

    /* Reset drops pending bytes both ways and fails pending requests. */
    fbe_client_reset(h.client);
    assert_int_equal(fbe_sender_pending(fbe_client_sender(h.client)), 0);
    h.accept_max = 0;
    chat_Say p = {.id = uuid_n(3), .text = str("p")};
    assert_int_equal(chat_request_Say(h.client, &p, 0, done, &h), FBE_OK);
    /* Half a frame arrives, then the client is reset. */
    chat_Ack ack = {.id = p.id, .seq = 1};
    assert_int_equal(chat_send_Ack(h.server_tx, &ack), FBE_OK);
    size_t half = fbe_sender_pending(h.server_tx) / 2;
    assert_int_equal(fbe_client_receive(h.client, fbe_sender_data(h.server_tx), half), FBE_OK);
    assert_int_equal(fbe_receiver_buffered(fbe_client_receiver(h.client)), half);
    fbe_sender_reset(h.server_tx);
    size_t before = h.result_count;
    fbe_client_reset(h.client);
    assert_int_equal(h.result_count, before + 1);
    assert_int_equal(h.results[before].outcome, FBE_REQUEST_RESET);
    assert_int_equal(fbe_receiver_buffered(fbe_client_receiver(h.client)), 0);
    assert_int_equal(fbe_sender_pending(fbe_client_sender(h.client)), 0);
    h.accept_max = SIZE_MAX;

    /* Duplicate id: sent, fails at once, the first keeps waiting. */
    chat_Say d1 = {.id = uuid_n(4), .text = str("one")};
    chat_Say d2 = {.id = uuid_n(4), .text = str("two")};
    assert_int_equal(chat_request_Say(h.client, &d1, 0, done, &h), FBE_OK);
    before = h.result_count;
    assert_int_equal(chat_request_Say(h.client, &d2, 0, done, &h), FBE_OK);
    assert_int_equal(h.result_count, before + 1);
    assert_int_equal(h.results[before].outcome, FBE_REQUEST_DUPLICATE);
    assert_int_equal(fbe_client_pending(h.client), 1);
    size_t says = h.says;
    pump(&h);
    assert_int_equal(h.says, says + 2);
    assert_int_equal(h.results[before + 1].outcome, FBE_REQUEST_RESPONSE);
    assert_int_equal(h.notify[6], 1); /* the second Ack */

    /* NULL done is allowed. */
    chat_Say n = {.id = uuid_n(5), .text = str("n")};
    assert_int_equal(chat_request_Say(h.client, &n, 0, NULL, NULL), FBE_OK);
    pump(&h);
    assert_int_equal(fbe_client_pending(h.client), 0);

    /* Free with requests pending fails them. */
    h.reply = false;
    chat_Say q = {.id = uuid_n(6), .text = str("q")};
    assert_int_equal(chat_request_Say(h.client, &q, 0, done, &h), FBE_OK);
    before = h.result_count;
    fbe_client_free(h.client);
    h.client = NULL;
    assert_int_equal(h.result_count, before + 1);
    assert_int_equal(h.results[before].outcome, FBE_REQUEST_RESET);
    harness_close(&h);
}

/* A reset from inside a completion callback (the receive thread). */
typedef struct reset_ctx {
    fbe_client *client;
    size_t calls;
} reset_ctx;

static void reset_in_done(void *ctx, const fbe_request_result *r)
{
    reset_ctx *x = ctx;
    x->calls++;
    if (r->outcome == FBE_REQUEST_RESPONSE)
        fbe_client_reset(x->client);
}

static void test_reset_from_callback(void **state)
{
    (void)state;
    harness h;
    harness_open(&h, FBE_FINAL);
    reset_ctx x = {.client = h.client};
    chat_Say a = {.id = uuid_n(1), .text = str("a")};
    chat_Say b = {.id = uuid_n(2), .text = str("ignore")};
    assert_int_equal(chat_request_Say(h.client, &a, 0, reset_in_done, &x), FBE_OK);
    assert_int_equal(chat_request_Say(h.client, &b, 0, reset_in_done, &x), FBE_OK);
    pump(&h);
    assert_int_equal(x.calls, 2); /* a's response, then b's reset */
    assert_int_equal(fbe_client_pending(h.client), 0);
    assert_int_equal(h.notify[7], 0); /* the Said after the Ack was dropped by the reset */
    harness_close(&h);
}

/* ---- imports: global and package-qualified rejects -------------------------------------------- */

static const char core_fbe[] =
    "package core\n"
    "message Err { uuid [id]; string why; }\n"
    "message Pong { uuid [id]; }\n"
    "[request] [response(Pong)] [reject(Err)]\n"
    "message Ping { uuid [id]; }\n";

static const char app_fbe[] =
    "package app offset 100\n"
    "import core\n"
    "message Ok { uuid [id]; }\n"
    "message Nope { uuid [id]; }\n"
    "[request] [response(Ok)] [reject(*core.Err, Nope)]\n"
    "message Do { uuid [id]; int32 x; }\n"
    "[request] [response(core.Pong)] [reject(Nope)]\n"
    "message Ping2 { uuid [id]; }\n"
    "[request] [response(Ok)]\n"
    "message NoId { int32 x; }\n";

typedef struct generic_server {
    const fbe_protocol *p;
    fbe_sender *tx;
    fbe_arena arena;
} generic_server;

/* Sends message `name` with id `id` from the server. */
static void server_send(generic_server *g, const char *name, const fbe_uuid *id)
{
    const fbe_type *t = fbe_protocol_message(g->p, name);
    assert_non_null(t);
    void *v = fbe_arena_zalloc(&g->arena, t->ir->host_size);
    fbe_init(t->ir, v);
    const fbe_ir_field *f = fbe_field_by_name(t->ir, "id");
    memcpy(fbe_field_ptr(v, f), id, sizeof *id);
    assert_int_equal(fbe_sender_send(g->tx, t, v, NULL), FBE_OK);
}

static void *message(generic_server *g, const char *name, const fbe_uuid *id)
{
    const fbe_type *t = fbe_protocol_message(g->p, name);
    void *v = fbe_arena_zalloc(&g->arena, t->ir->host_size);
    fbe_init(t->ir, v);
    const fbe_ir_field *f = fbe_field_by_name(t->ir, "id");
    if (f)
        memcpy(fbe_field_ptr(v, f), id, sizeof *id);
    return v;
}

static void deliver(fbe_client *c, generic_server *g)
{
    assert_int_equal(fbe_client_receive(c, fbe_sender_data(g->tx), fbe_sender_pending(g->tx)),
                     FBE_OK);
    fbe_sender_reset(g->tx);
}

static void test_imports(void **state)
{
    (void)state;
    char dir[1024], path[1200];
    snprintf(dir, sizeof dir, "%s/protocol_client_test", FBE_BINARY_DIR);
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    assert_int_equal(run_command(cmd, NULL), 0);
    snprintf(path, sizeof path, "%s/core.fbe", dir);
    write_text(path, core_fbe);
    snprintf(path, sizeof path, "%s/app.fbe", dir);
    write_text(path, app_fbe);
    fbe_schema *schema = fbe_schema_load(path, NULL, NULL);
    assert_non_null(schema);
    fbe_codec *codec = fbe_interp_create(schema, NULL, NULL);
    fbe_protocol *p = fbe_protocol_create(codec, NULL, NULL);
    assert_string_equal(fbe_protocol_package(p)->name, "app");

    harness h; /* only its result list and done() */
    memset(&h, 0, sizeof h);
    fbe_client *c = fbe_client_create(p, NULL, NULL);
    assert_non_null(c);
    generic_server g = {.p = p};
    fbe_arena_init(&g.arena, NULL, NULL);
    g.tx = fbe_sender_create(p, NULL, NULL);
    fbe_uuid id1 = uuid_n(1), id2 = uuid_n(2), id3 = uuid_n(3), id4 = uuid_n(4), id5 = uuid_n(5);

    /* app.Do rejected by core.Err (global reject through the import). */
    assert_int_equal(fbe_client_request_named(c, "app.Do", message(&g, "app.Do", &id1), 0, done, &h),
                     FBE_OK);
    /* core.Ping (a request of the imported package) rejected by core.Err. */
    assert_int_equal(fbe_client_request_named(c, "core.Ping", message(&g, "core.Ping", &id2), 0,
                                              done, &h),
                     FBE_OK);
    /* app.Ping2 answered by core.Pong (a response type of another package). */
    assert_int_equal(fbe_client_request_named(c, "Ping2", message(&g, "app.Ping2", &id3), 0, done, &h),
                     FBE_OK);
    /* app.Do rejected by app.Nope; core.Ping answered by core.Pong. */
    assert_int_equal(fbe_client_request_named(c, "app.Do", message(&g, "app.Do", &id4), 0, done, &h),
                     FBE_OK);
    assert_int_equal(fbe_client_request_named(c, "core.Ping", message(&g, "core.Ping", &id5), 0,
                                              done, &h),
                     FBE_OK);
    assert_int_equal(fbe_client_pending(c), 5);
    /* A request whose messages lack `uuid id` cannot be correlated. */
    assert_int_equal(fbe_client_request_named(c, "app.NoId", message(&g, "app.NoId", &id1), 0, done, &h),
                     FBE_INVALID_ARGUMENT);
    fbe_sender_reset(fbe_client_sender(c));

    server_send(&g, "core.Err", &id1);
    server_send(&g, "core.Err", &id2);
    server_send(&g, "core.Pong", &id3);
    server_send(&g, "app.Nope", &id4);
    server_send(&g, "core.Pong", &id5);
    server_send(&g, "app.Ok", &id5); /* nobody waits: a notification */
    deliver(c, &g);
    assert_int_equal(h.result_count, 5);
    assert_int_equal(h.results[0].outcome, FBE_REQUEST_REJECTED);
    assert_string_equal(h.results[0].type, "core.Err");
    assert_non_null(strstr(h.results[0].error, "Err(id=\"ab000000-0000-0000-0000-000000000001\",why=\"\")"));
    assert_int_equal(h.results[1].outcome, FBE_REQUEST_REJECTED);
    assert_string_equal(h.results[1].type, "core.Err");
    assert_int_equal(h.results[2].outcome, FBE_REQUEST_RESPONSE);
    assert_string_equal(h.results[2].type, "core.Pong");
    assert_int_equal(h.results[3].outcome, FBE_REQUEST_REJECTED);
    assert_string_equal(h.results[3].type, "app.Nope");
    assert_int_equal(h.results[4].outcome, FBE_REQUEST_RESPONSE);
    assert_int_equal(fbe_client_pending(c), 0);

    fbe_sender_free(g.tx);
    fbe_arena_free(&g.arena);
    fbe_client_free(c);
    fbe_protocol_free(p);
    fbe_codec_free(codec);
    fbe_schema_free(schema);
}

/* ---- threads ----------------------------------------------------------------------------------- */

enum { THREADS = 4, PER_THREAD = 400 };

typedef struct mt {
    fbe_client *client;
    const fbe_protocol *protocol;
    pthread_mutex_t wire_lock;
    fbe_buffer wire; /* client -> server */
    atomic_size_t responses, rejects, others;
    atomic_bool stop;
    unsigned thread_index;
} mt;

static size_t mt_send(void *ctx, const uint8_t *data, size_t size)
{
    mt *m = ctx;
    pthread_mutex_lock(&m->wire_lock);
    fbe_buffer_append(&m->wire, data, size);
    pthread_mutex_unlock(&m->wire_lock);
    return size;
}

static void mt_done(void *ctx, const fbe_request_result *r)
{
    mt *m = ctx;
    if (r->outcome == FBE_REQUEST_RESPONSE)
        atomic_fetch_add(&m->responses, 1);
    else if (r->outcome == FBE_REQUEST_REJECTED)
        atomic_fetch_add(&m->rejects, 1);
    else
        atomic_fetch_add(&m->others, 1);
}

typedef struct mt_thread {
    mt *m;
    unsigned index;
} mt_thread;

static void *mt_requester(void *arg)
{
    mt_thread *t = arg;
    for (unsigned i = 0; i < PER_THREAD; i++) {
        chat_Say s = {.id = uuid_n(t->index * PER_THREAD + i), .text = str(i % 5 ? "x" : "reject")};
        s.id.bytes[1] = (uint8_t)t->index;
        if (chat_request_Say(t->m->client, &s, 60000, mt_done, t->m) != FBE_OK)
            atomic_fetch_add(&t->m->others, 1);
        if (i % 50 == 0)
            fbe_client_watchdog(t->m->client, monotonic_ns(NULL));
    }
    return NULL;
}

/* The server: reads the wire, answers into the client's receiver (this thread is
 * the client's receive thread). */
typedef struct mt_server {
    mt *m;
    fbe_receiver *rx;
    fbe_sender *tx;
} mt_server;

static void mt_srv_say(void *ctx, const chat_Say *s)
{
    mt_server *srv = ctx;
    if (str_is(s->text, "reject")) {
        chat_Refused r = {.id = s->id, .reason = str("no")};
        chat_send_Refused(srv->tx, &r);
    } else {
        chat_Ack a = {.id = s->id, .seq = 1};
        chat_send_Ack(srv->tx, &a);
    }
}

static void *mt_server_main(void *arg)
{
    mt_server *srv = arg;
    mt *m = srv->m;
    fbe_buffer local;
    fbe_buffer_init(&local, NULL, NULL);
    while (!atomic_load(&m->stop)) {
        pthread_mutex_lock(&m->wire_lock);
        fbe_buffer_clear(&local);
        fbe_buffer_append(&local, m->wire.data, m->wire.size);
        fbe_buffer_clear(&m->wire);
        pthread_mutex_unlock(&m->wire_lock);
        if (local.size)
            fbe_receiver_receive(srv->rx, local.data, local.size);
        size_t n = fbe_sender_pending(srv->tx);
        if (n) {
            /* Odd chunk sizes towards the client. */
            const uint8_t *d = fbe_sender_data(srv->tx);
            for (size_t off = 0; off < n; off += 333)
                fbe_client_receive(m->client, d + off, n - off < 333 ? n - off : 333);
            fbe_sender_consume(srv->tx, n);
        } else if (!local.size) {
            struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
        }
    }
    fbe_buffer_free(&local);
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/chat.fbe", FBE_SOURCE_DIR);
    fbe_schema *schema = fbe_schema_load(path, NULL, NULL);
    fbe_codec *codec = fbe_interp_create(schema, NULL, NULL);
    fbe_protocol *p = fbe_protocol_create(codec, NULL, NULL);
    mt m;
    memset(&m, 0, sizeof m);
    pthread_mutex_init(&m.wire_lock, NULL);
    fbe_buffer_init(&m.wire, NULL, NULL);
    atomic_init(&m.responses, 0);
    atomic_init(&m.rejects, 0);
    atomic_init(&m.others, 0);
    atomic_init(&m.stop, false);
    fbe_client_options co = {.sender = {.send = mt_send, .send_ctx = &m}, .clock = monotonic_ns};
    m.client = fbe_client_create(p, &co, NULL);
    mt_server srv = {.m = &m};
    srv.rx = fbe_receiver_create(p, NULL, NULL);
    srv.tx = fbe_sender_create(p, NULL, NULL);
    chat_handlers sh = {.ctx = &srv, .on_Say = mt_srv_say};
    assert_int_equal(chat_receiver_bind(srv.rx, &sh), FBE_OK);

    pthread_t server;
    pthread_create(&server, NULL, mt_server_main, &srv);
    pthread_t th[THREADS];
    mt_thread args[THREADS];
    for (unsigned i = 0; i < THREADS; i++) {
        args[i] = (mt_thread){&m, i};
        pthread_create(&th[i], NULL, mt_requester, &args[i]);
    }
    for (unsigned i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    size_t total = THREADS * PER_THREAD;
    /* until everything is answered, or 60 s without progress (a hang, not a
     * slow machine) */
    size_t seen = 0;
    double idle_end = now_seconds() + 60;
    while (now_seconds() < idle_end) {
        size_t done = atomic_load(&m.responses) + atomic_load(&m.rejects) + atomic_load(&m.others);
        if (done == total)
            break;
        if (done != seen) {
            seen = done;
            idle_end = now_seconds() + 60;
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    atomic_store(&m.stop, true);
    pthread_join(server, NULL);
    assert_int_equal(atomic_load(&m.others), 0);
    assert_int_equal(atomic_load(&m.rejects), total / 5);
    assert_int_equal(atomic_load(&m.responses), total - total / 5);
    assert_int_equal(fbe_client_pending(m.client), 0);

    fbe_receiver_free(srv.rx);
    fbe_sender_free(srv.tx);
    fbe_client_free(m.client);
    fbe_buffer_free(&m.wire);
    pthread_mutex_destroy(&m.wire_lock);
    fbe_protocol_free(p);
    fbe_codec_free(codec);
    fbe_schema_free(schema);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_response_and_rejects),
        cmocka_unit_test(test_timeouts),
        cmocka_unit_test(test_reset_and_failures),
        cmocka_unit_test(test_reset_from_callback),
        cmocka_unit_test(test_imports),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
