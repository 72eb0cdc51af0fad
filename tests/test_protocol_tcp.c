/* A real exchange over TCP on 127.0.0.1: a server thread (fbe_receiver +
 * fbe_sender per connection, non-blocking sockets, poll) and clients in the test
 * thread, with small socket buffers so that writes are partial and frames arrive
 * in pieces.
 *
 *   - a client (fbe_client) joins, sends thousands of requests and notifications
 *     both ways: responses, rejects, one request the server ignores (timeout via
 *     the watchdog), a fire-and-forget request; nothing is lost;
 *   - a peer sending garbage is reported and disconnected by the server;
 *   - a peer disconnecting in the middle of a frame is noticed; the server goes on;
 *   - everything is bounded in time (poll timeouts, deadlines) and, under the
 *     sanitizer build, free of leaks. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "chat.h" /* generated from examples/chat.fbe */
#include "fbe/protocol.h"
#include "test_util.h"

enum { MAX_CONNECTIONS = 8, SMALL_BUFFER = 4096, REQUESTS = 3000 };

/* Bounds against hangs, not speed: the exchange takes 3-4 s (ASan included) on
 * an idle machine, but on 2026-12-04, under ASan beside two other test
 * programs, 1,573 of the 3,000 requests timed out (a 20 s reply timeout on the
 * UTC clock) and the rest of the run waited for answers that could no longer
 * count. Whether that machine stalled or its wall clock stepped, neither is a
 * protocol failure: replies may now take REPLY_TIMEOUT_MS on a monotonic clock,
 * and a wait fails only after IDLE_SECONDS without progress. */
enum { REPLY_TIMEOUT_MS = 600000, IDLE_SECONDS = 60 };

static void set_nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL, 0);
    assert_true(flags >= 0);
    assert_int_equal(fcntl(fd, F_SETFL, flags | O_NONBLOCK), 0);
}

static void small_buffers(int fd)
{
    int size = SMALL_BUFFER;
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* The transport of every sender here: a non-blocking send. */
static size_t socket_send(void *ctx, const uint8_t *data, size_t size)
{
    int fd = *(int *)ctx;
    for (;;) {
        ssize_t n = send(fd, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n >= 0)
            return (size_t)n;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return 0;
        return FBE_SEND_ERROR;
    }
}

static fbe_string str(const char *s)
{
    return (fbe_string){s, strlen(s)};
}

static bool str_is(fbe_string s, const char *text)
{
    return s.size == strlen(text) && memcmp(s.data, text, s.size) == 0;
}

/* ---- the server ------------------------------------------------------------------------ */

typedef struct server server;

typedef struct conn {
    server *srv;
    int fd;
    fbe_receiver *rx;
    fbe_sender *tx;
    chat_handlers handlers;
    bool closing;
    uint64_t seq;
} conn;

struct server {
    const fbe_protocol *protocol;
    int listen_fd;
    uint16_t port;
    pthread_t thread;
    atomic_bool stop;
    conn conns[MAX_CONNECTIONS];
    /* Statistics, read by the test after the thread ends (or atomically). */
    atomic_size_t accepted, closed, joins, says, leaves, frame_errors, mid_frame, send_errors;
};

static void srv_reply_status(conn *c, fbe_status st)
{
    if (st != FBE_OK && st != FBE_TOO_SMALL)
        atomic_fetch_add(&c->srv->send_errors, 1);
}

static void on_join(void *ctx, const chat_Join *m)
{
    conn *c = ctx;
    atomic_fetch_add(&c->srv->joins, 1);
    if (str_is(m->name, "bad")) {
        chat_Refused r = {.id = m->id, .reason = str("name taken")};
        srv_reply_status(c, chat_send_Refused(c->tx, &r));
        return;
    }
    chat_Line hist[1] = {{str("server"), str("welcome"), fbe_timestamp_now()}};
    chat_Welcome w = {.id = m->id, .members = 1, .history = {hist, 1}};
    srv_reply_status(c, chat_send_Welcome(c->tx, &w));
}

static void on_say(void *ctx, const chat_Say *m)
{
    conn *c = ctx;
    atomic_fetch_add(&c->srv->says, 1);
    if (str_is(m->text, "ignore"))
        return;
    if (str_is(m->text, "reject")) {
        chat_Refused r = {.id = m->id, .reason = str("not now")};
        srv_reply_status(c, chat_send_Refused(c->tx, &r));
        return;
    }
    chat_Ack a = {.id = m->id, .seq = ++c->seq};
    srv_reply_status(c, chat_send_Ack(c->tx, &a));
    chat_Said s = {.seq = c->seq, .line = {str("peer"), m->text, fbe_timestamp_now()}};
    srv_reply_status(c, chat_send_Said(c->tx, &s));
}

static void on_leave(void *ctx, const chat_Leave *m)
{
    conn *c = ctx;
    (void)m;
    atomic_fetch_add(&c->srv->leaves, 1);
}

static void on_frame_error(void *ctx, const fbe_frame_error *e)
{
    conn *c = ctx;
    (void)e;
    atomic_fetch_add(&c->srv->frame_errors, 1);
    c->closing = true; /* a peer that sends garbage is disconnected */
}

static void conn_close(conn *c)
{
    if (c->fd < 0)
        return;
    close(c->fd);
    c->fd = -1;
    fbe_receiver_free(c->rx);
    fbe_sender_free(c->tx);
    c->rx = NULL;
    c->tx = NULL;
    atomic_fetch_add(&c->srv->closed, 1);
}

static void conn_open(server *s, int fd)
{
    for (int i = 0; i < MAX_CONNECTIONS; i++) {
        conn *c = &s->conns[i];
        if (c->fd >= 0)
            continue;
        memset(c, 0, sizeof *c);
        c->srv = s;
        c->fd = fd;
        set_nonblocking(fd);
        small_buffers(fd);
        fbe_sender_options so = {.send = socket_send, .send_ctx = &c->fd,
                                 .max_pending = 16u << 20};
        c->tx = fbe_sender_create(s->protocol, &so, NULL);
        fbe_receiver_options ro = {.max_frame_size = 64 * 1024, .ctx = c,
                                   .on_error = on_frame_error};
        c->rx = fbe_receiver_create(s->protocol, &ro, NULL);
        c->handlers = (chat_handlers){.ctx = c, .on_Join = on_join, .on_Say = on_say,
                                      .on_Leave = on_leave};
        chat_receiver_bind(c->rx, &c->handlers);
        atomic_fetch_add(&s->accepted, 1);
        return;
    }
    close(fd); /* full */
}

static void *server_main(void *arg)
{
    server *s = arg;
    uint8_t buf[1500]; /* small reads: frames arrive in pieces */
    while (!atomic_load(&s->stop)) {
        struct pollfd pfd[MAX_CONNECTIONS + 1];
        int map[MAX_CONNECTIONS + 1];
        nfds_t n = 0;
        pfd[n] = (struct pollfd){.fd = s->listen_fd, .events = POLLIN};
        map[n++] = -1;
        for (int i = 0; i < MAX_CONNECTIONS; i++) {
            conn *c = &s->conns[i];
            if (c->fd < 0)
                continue;
            short ev = POLLIN;
            if (fbe_sender_pending(c->tx))
                ev |= POLLOUT;
            pfd[n] = (struct pollfd){.fd = c->fd, .events = ev};
            map[n++] = i;
        }
        if (poll(pfd, n, 20) < 0 && errno != EINTR)
            break;
        for (nfds_t k = 0; k < n; k++) {
            if (!pfd[k].revents)
                continue;
            if (map[k] < 0) {
                int fd = accept(s->listen_fd, NULL, NULL);
                if (fd >= 0)
                    conn_open(s, fd);
                continue;
            }
            conn *c = &s->conns[map[k]];
            if (pfd[k].revents & POLLOUT) {
                if (fbe_sender_flush(c->tx, NULL) == FBE_IO)
                    c->closing = true;
            }
            if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)) {
                ssize_t got = recv(c->fd, buf, sizeof buf, 0);
                if (got > 0) {
                    fbe_status st = fbe_receiver_receive(c->rx, buf, (size_t)got);
                    if (st != FBE_OK)
                        c->closing = true;
                    /* Replies go out now; what does not fit waits for POLLOUT. */
                    if (fbe_sender_pending(c->tx) && fbe_sender_flush(c->tx, NULL) == FBE_IO)
                        c->closing = true;
                } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
                    if (fbe_receiver_buffered(c->rx))
                        atomic_fetch_add(&s->mid_frame, 1);
                    c->closing = true;
                }
            }
            if (c->closing)
                conn_close(c);
        }
    }
    for (int i = 0; i < MAX_CONNECTIONS; i++)
        conn_close(&s->conns[i]);
    return NULL;
}

static void server_start(server *s, const fbe_protocol *p)
{
    memset(s, 0, sizeof *s);
    s->protocol = p;
    for (int i = 0; i < MAX_CONNECTIONS; i++)
        s->conns[i].fd = -1;
    s->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(s->listen_fd >= 0);
    int one = 1;
    setsockopt(s->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(s->listen_fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(s->listen_fd, 8), 0);
    socklen_t len = sizeof a;
    assert_int_equal(getsockname(s->listen_fd, (struct sockaddr *)&a, &len), 0);
    s->port = ntohs(a.sin_port);
    set_nonblocking(s->listen_fd);
    assert_int_equal(pthread_create(&s->thread, NULL, server_main, s), 0);
}

static void server_stop(server *s)
{
    atomic_store(&s->stop, true);
    pthread_join(s->thread, NULL);
    close(s->listen_fd);
}

static int connect_to(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    small_buffers(fd);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    return fd;
}

/* Waits until the server sees `n` closed connections (bounded). */
static void wait_closed(server *s, size_t n)
{
    double end = now_seconds() + IDLE_SECONDS;
    while (atomic_load(&s->closed) < n && now_seconds() < end) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    assert_int_equal(atomic_load(&s->closed), n);
}

/* The server of test_tcp, stopped by the teardown if the test fails half way
 * (its thread must not outlive the test's objects). */
static server srv;
static bool srv_running;

static int stop_server(void **state)
{
    (void)state;
    if (srv_running)
        server_stop(&srv);
    srv_running = false;
    return 0;
}

/* ---- the client ------------------------------------------------------------------------- */

typedef struct client_state {
    int fd;
    fbe_client *client;
    chat_handlers handlers;
    size_t responses, rejects, timeouts, sent_ok, failures;
    size_t welcome;
    size_t said, said_text_ok;
    uint64_t last_seq;
    bool seq_in_order;
} client_state;

static void on_done(void *ctx, const fbe_request_result *r)
{
    client_state *cs = ctx;
    switch (r->outcome) {
    case FBE_REQUEST_RESPONSE:
        cs->responses++;
        if (strcmp(r->type->ir->full_name, "chat.Welcome") == 0)
            cs->welcome++;
        break;
    case FBE_REQUEST_REJECTED:
        cs->rejects++;
        assert_non_null(strstr(r->error, "reason=\""));
        break;
    case FBE_REQUEST_TIMEOUT:
        cs->timeouts++;
        assert_string_equal(r->error, "Timeout!");
        break;
    case FBE_REQUEST_SENT:
        cs->sent_ok++;
        break;
    default:
        cs->failures++;
        break;
    }
}

static void on_said(void *ctx, const chat_Said *m)
{
    client_state *cs = ctx;
    cs->said++;
    if (m->seq != cs->last_seq + 1)
        cs->seq_in_order = false;
    cs->last_seq = m->seq;
    if (m->line.text.size > 4 && memcmp(m->line.text.data, "msg ", 4) == 0)
        cs->said_text_ok++;
}

/* One round of socket I/O for the client: flush what is pending, read what came. */
static bool client_io(client_state *cs, int timeout_ms)
{
    fbe_sender *tx = fbe_client_sender(cs->client);
    struct pollfd p = {.fd = cs->fd, .events = POLLIN};
    if (fbe_sender_pending(tx))
        p.events |= POLLOUT;
    if (poll(&p, 1, timeout_ms) < 0)
        return errno == EINTR;
    if (p.revents & POLLOUT)
        assert_int_equal(fbe_client_flush(cs->client, NULL), FBE_OK);
    if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
        for (int k = 0; k < 16; k++) {
            uint8_t buf[2000];
            ssize_t n = recv(cs->fd, buf, sizeof buf, MSG_DONTWAIT);
            if (n == 0)
                return false;
            if (n < 0)
                break;
            assert_int_equal(fbe_client_receive(cs->client, buf, (size_t)n), FBE_OK);
        }
    }
    fbe_client_watchdog(cs->client, monotonic_ns(NULL));
    return true;
}

static void client_open(client_state *cs, const fbe_protocol *p, uint16_t port)
{
    memset(cs, 0, sizeof *cs);
    cs->seq_in_order = true;
    cs->fd = connect_to(port);
    set_nonblocking(cs->fd);
    fbe_client_options co = {.sender = {.send = socket_send, .send_ctx = &cs->fd},
                             .clock = monotonic_ns};
    fbe_status st;
    cs->client = fbe_client_create(p, &co, &st);
    assert_int_equal(st, FBE_OK);
    cs->handlers = (chat_handlers){.ctx = cs, .on_Said = on_said};
    assert_int_equal(chat_receiver_bind(fbe_client_receiver(cs->client), &cs->handlers), FBE_OK);
}

static void client_close(client_state *cs)
{
    fbe_client_free(cs->client);
    close(cs->fd);
}

static fbe_uuid next_id(void)
{
    return fbe_uuid_v4();
}

/* What the client has received so far: a wait makes progress while it grows. */
static size_t progress(const client_state *cs)
{
    return cs->responses + cs->rejects + cs->timeouts + cs->sent_ok + cs->failures + cs->said;
}

/* Drives I/O until `cond` holds, or fails after IDLE_SECONDS without progress. */
#define RUN_UNTIL(cs, cond)                                                                \
    do {                                                                                   \
        size_t seen_ = progress(cs);                                                       \
        double idle_end_ = now_seconds() + IDLE_SECONDS;                                   \
        while (!(cond) && now_seconds() < idle_end_) {                                     \
            assert_true(client_io((cs), 10));                                              \
            if (progress(cs) != seen_) {                                                   \
                seen_ = progress(cs);                                                      \
                idle_end_ = now_seconds() + IDLE_SECONDS;                                  \
            }                                                                              \
        }                                                                                  \
    } while (0)

static void test_tcp(void **state)
{
    (void)state;
    char path[4096];
    snprintf(path, sizeof path, "%s/examples/chat.fbe", FBE_SOURCE_DIR);
    fbe_schema *schema = fbe_schema_load(path, NULL, NULL);
    assert_non_null(schema);
    fbe_codec *codec = fbe_interp_create(schema, NULL, NULL);
    fbe_protocol *p = fbe_protocol_create(codec, NULL, NULL); /* shared by both threads */
    server_start(&srv, p);
    srv_running = true;
    double t0 = now_seconds();

    /* 1. Many messages both ways. */
    client_state cs;
    client_open(&cs, p, srv.port);
    chat_Join join = {.id = next_id(), .name = str("alice")};
    assert_int_equal(chat_request_Join(cs.client, &join, REPLY_TIMEOUT_MS, on_done, &cs), FBE_OK);
    chat_Join bad = {.id = next_id(), .name = str("bad")};
    assert_int_equal(chat_request_Join(cs.client, &bad, REPLY_TIMEOUT_MS, on_done, &cs), FBE_OK);
    RUN_UNTIL(&cs, cs.responses + cs.rejects == 2);
    assert_int_equal(cs.responses + cs.rejects, 2);
    assert_int_equal(cs.welcome, 1);
    assert_int_equal(cs.rejects, 1);

    size_t expect_acks = 0, expect_rejects = 1;
    char text[64];
    for (unsigned i = 0; i < REQUESTS; i++) {
        chat_Say s = {.id = next_id()};
        if (i % 7 == 3) {
            s.text = str("reject");
            expect_rejects++;
        } else {
            snprintf(text, sizeof text, "msg %u with some padding to make frames longer", i);
            s.text = str(text);
            expect_acks++;
        }
        assert_int_equal(chat_request_Say(cs.client, &s, REPLY_TIMEOUT_MS, on_done, &cs), FBE_OK);
        /* Plain notifications to the server too. */
        if (i % 100 == 0) {
            chat_Say note = {.id = next_id(), .text = str("ignore")};
            assert_int_equal(chat_client_send_Say(cs.client, &note), FBE_OK);
        }
        /* Keep the pipes moving without waiting. */
        if (i % 16 == 0)
            assert_true(client_io(&cs, 0));
    }
    /* One request the server never answers: times out through the watchdog. */
    chat_Say lost = {.id = next_id(), .text = str("ignore")};
    assert_int_equal(chat_request_Say(cs.client, &lost, 100, on_done, &cs), FBE_OK);
    chat_Leave leave = {.reason = str("done")};
    assert_int_equal(chat_request_Leave(cs.client, &leave, 0, on_done, &cs), FBE_OK);
#define ALL_BACK_ (cs.responses == 1 + expect_acks && cs.rejects == expect_rejects && \
                   cs.timeouts == 1 && cs.said == expect_acks)
    RUN_UNTIL(&cs, ALL_BACK_);
    if (!ALL_BACK_)
        print_message("no progress for %d s: responses %zu of %zu, rejects %zu of %zu, "
                      "timeouts %zu of 1, "
                      "said %zu of %zu, failures %zu, pending %zu\n",
                      IDLE_SECONDS, cs.responses, 1 + expect_acks, cs.rejects, expect_rejects, cs.timeouts,
                      cs.said, expect_acks, cs.failures, fbe_client_pending(cs.client));
    assert_true(ALL_BACK_);
#undef ALL_BACK_
    assert_int_equal(cs.failures, 0);
    assert_int_equal(cs.sent_ok, 1);
    assert_true(cs.seq_in_order);
    assert_int_equal(cs.said_text_ok, expect_acks);
    assert_int_equal(fbe_client_pending(cs.client), 0);
    RUN_UNTIL(&cs, atomic_load(&srv.leaves) == 1);
    assert_int_equal(atomic_load(&srv.leaves), 1);
    assert_int_equal(atomic_load(&srv.says), REQUESTS + REQUESTS / 100 + 1);
    print_message("  %zu requests, %zu responses, %zu rejects, %zu notifications in %.2f s\n",
                  (size_t)REQUESTS + 3, cs.responses, cs.rejects, cs.said, now_seconds() - t0);

    /* 2. A peer that sends garbage: reported and disconnected; the server goes on. */
    size_t closed = atomic_load(&srv.closed);
    static const uint8_t junk[][24] = {
        {3, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8}, /* length below the minimum */
        {24, 0, 0, 0, 99, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, /* bad root */
        {24, 0, 0, 0, 8, 0, 0, 0, 99, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, /* bad body */
        {0xff, 0xff, 0xff, 0xff, 8, 0, 0, 0, 1, 2, 3, 4}, /* absurd size */
    };
    for (size_t k = 0; k < sizeof junk / sizeof junk[0]; k++) {
        size_t errors = atomic_load(&srv.frame_errors);
        int fd = connect_to(srv.port);
        assert_int_equal(send(fd, junk[k], sizeof junk[k], MSG_NOSIGNAL), (ssize_t)sizeof junk[k]);
        /* The server hangs up: read until EOF (bounded). */
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        double end = now_seconds() + IDLE_SECONDS;
        bool eof = false;
        while (!eof && now_seconds() < end) {
            if (poll(&pf, 1, 50) > 0) {
                uint8_t b[256];
                ssize_t n = recv(fd, b, sizeof b, 0);
                eof = n <= 0;
            }
        }
        assert_true(eof);
        close(fd);
        wait_closed(&srv, ++closed);
        assert_int_equal(atomic_load(&srv.frame_errors), errors + 1);
    }

    /* 3. A peer that disconnects in the middle of a frame. */
    {
        fbe_sender *tx = fbe_sender_create(p, NULL, NULL);
        chat_Say s = {.id = next_id(), .text = str("cut short")};
        assert_int_equal(chat_send_Say(tx, &s), FBE_OK);
        int fd = connect_to(srv.port);
        size_t half = fbe_sender_pending(tx) / 2;
        assert_int_equal(send(fd, fbe_sender_data(tx), half, MSG_NOSIGNAL), (ssize_t)half);
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
        close(fd);
        wait_closed(&srv, ++closed);
        assert_int_equal(atomic_load(&srv.mid_frame), 1);
        fbe_sender_free(tx);
    }

    /* 4. The first client is still served. */
    size_t before = cs.responses;
    chat_Say again = {.id = next_id(), .text = str("msg still there")};
    assert_int_equal(chat_request_Say(cs.client, &again, REPLY_TIMEOUT_MS, on_done, &cs), FBE_OK);
    RUN_UNTIL(&cs, cs.responses == before + 1);
    assert_int_equal(cs.responses, before + 1);

    /* 5. The client disconnects: the server notices, nothing is pending there. */
    client_close(&cs);
    wait_closed(&srv, ++closed);
    assert_int_equal(atomic_load(&srv.send_errors), 0);
    assert_int_equal(atomic_load(&srv.accepted), closed);
    server_stop(&srv);
    srv_running = false;
    print_message("  total %.2f s\n", now_seconds() - t0);
    fbe_protocol_free(p);
    fbe_codec_free(codec);
    fbe_schema_free(schema);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_tcp, stop_server),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
