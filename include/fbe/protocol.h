/* The FBE protocol (wire-format.md 7) over any codec: Sender, Receiver, Proxy and
 * Client, byte-compatible with the reference's generated Sender/Receiver/Proxy/
 * Client and FinalSender/FinalReceiver/FinalClient.
 *
 * A stream is a plain concatenation of frames (standard 3.1 or final 4.1), each
 * starting with its own u32 length. Only `message` types are sent and dispatched.
 *
 *   fbe_protocol  immutable message tables of one package (and its imports) over a
 *                 codec: which type a number dispatches to, names, request/response/
 *                 reject metadata. Build once, share between threads and connections.
 *   fbe_sender    value -> frame -> pending bytes -> your send callback.
 *   fbe_receiver  bytes in chunks of any size -> frames -> verify -> decode ->
 *                 per-type callback. Unknown types, malformed and oversized frames
 *                 go to their own callbacks; memory stays bounded.
 *   fbe_proxy     the receiver's framing and dispatch, handing over raw frames.
 *   fbe_client    sender + receiver + pending requests: [request] [response(T)]
 *                 [reject(...)] correlation by `uuid id`, timeouts by watchdog.
 *
 * docs/protocol.md describes the semantics, the differences from the reference,
 * and thread safety. Generated headers (`fbec header`) add typed helpers on top:
 * pkg_send_Msg(sender, &msg), pkg_request_Msg(client, &msg, ...), and a typed
 * handler table bound with pkg_receiver_bind(). */
#ifndef FBE_PROTOCOL_H
#define FBE_PROTOCOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fbe/codec.h"
#include "fbe/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest frame a receiver or proxy accepts unless configured (16 MiB). */
#define FBE_DEFAULT_MAX_FRAME_SIZE ((size_t)16 * 1024 * 1024)

/* Smallest frames the reference's receivers accept (wire-format.md 7.2). */
#define FBE_MIN_STANDARD_FRAME 16u
#define FBE_MIN_FINAL_FRAME 8u

/* ---- message tables ------------------------------------------------------------------ */

typedef struct fbe_protocol fbe_protocol;

/* Builds the message tables of `package` ("proto"; NULL = the schema's root
 * package) over `codec`: a frame of type number N dispatches to the package's own
 * message N, else to the first import (in import order, depth first) declaring a
 * message N, exactly like the reference's chained receivers. Every message of the
 * codec can be sent. The codec must outlive the protocol. NULL on failure (*status,
 * which may be NULL: NOMEM, UNKNOWN_TYPE for an unknown package). */
fbe_protocol *fbe_protocol_create(const fbe_codec *codec, const char *package,
                                  fbe_status *status);
void fbe_protocol_free(fbe_protocol *protocol);

const fbe_codec *fbe_protocol_codec(const fbe_protocol *protocol);
const fbe_ir_package *fbe_protocol_package(const fbe_protocol *protocol);

/* The message a receiver dispatches for `type_number`; NULL if unknown. */
const fbe_type *fbe_protocol_dispatch(const fbe_protocol *protocol, uint32_t type_number);

/* A message of the codec by "pkg.Msg" (or "Msg": the package's own first, then
 * imports); NULL if there is no such message. */
const fbe_type *fbe_protocol_message(const fbe_protocol *protocol, const char *name);

/* The dispatchable messages, in dispatch order (the package's own, then imports). */
size_t fbe_protocol_message_count(const fbe_protocol *protocol);
const fbe_type *fbe_protocol_message_at(const fbe_protocol *protocol, size_t index);

/* The type number a receiver reads from a whole frame (standard: at root_offset + 4,
 * final: at 4). FBE_BAD_FRAME_SIZE if the frame is shorter than the model's
 * minimum, FBE_BAD_OFFSET if the standard root offset points outside the frame. */
fbe_status fbe_frame_type_number(fbe_model model, const uint8_t *frame, size_t size,
                                 uint32_t *type_number);

/* ---- callbacks shared by every endpoint ---------------------------------------------- */

/* The transport: takes bytes from the front of `data` and returns how many it took
 * (0..size); the rest stays pending and is offered again, followed by newer frames,
 * at the next send or flush (the reference's onSend). FBE_SEND_ERROR reports a
 * broken transport: the bytes stay pending and the send returns FBE_IO. */
typedef size_t (*fbe_send_fn)(void *ctx, const uint8_t *data, size_t size);
#define FBE_SEND_ERROR ((size_t)-1)

/* A decoded message. `value` (a host struct of `type`) and everything it points to
 * live until the callback returns: copy what you keep. */
typedef void (*fbe_message_fn)(void *ctx, const fbe_type *type, const void *value);

/* A whole frame: `type` is the message it dispatches to (NULL for unknown numbers). */
typedef void (*fbe_frame_fn)(void *ctx, const fbe_type *type, uint32_t type_number,
                             const uint8_t *frame, size_t size);

/* What went wrong with one frame of a stream. */
typedef struct fbe_frame_error {
    fbe_status status;      /* BAD_FRAME_SIZE, TOO_LARGE, a verify status, NOMEM, ... */
    uint64_t stream_offset; /* byte position of the frame in the stream (since the last reset) */
    size_t frame_size;      /* the frame's length prefix */
    uint32_t type_number;   /* 0 if not read */
    const fbe_type *type;   /* the message it dispatches to, when known */
    fbe_verify_info verify; /* verify/decode errors: .offset inside the frame, struct, field */
} fbe_frame_error;

typedef void (*fbe_frame_error_fn)(void *ctx, const fbe_frame_error *error);

/* Logging hook (the reference's onSendLog/onReceiveLog): the message's text form
 * (wire-format.md 9), NUL-terminated, `len` bytes. Off unless set. */
typedef void (*fbe_log_fn)(void *ctx, const fbe_type *type, const char *text, size_t len);

/* ---- sender --------------------------------------------------------------------------- */

typedef struct fbe_sender fbe_sender;

typedef struct fbe_sender_options {
    fbe_model model;      /* FBE_STANDARD (Sender) or FBE_FINAL (FinalSender) */
    fbe_send_fn send;     /* NULL: bytes accumulate; take them with fbe_sender_data/consume */
    void *send_ctx;
    size_t max_pending;   /* 0: unlimited; else a send that would leave more pending
                             bytes fails with FBE_TOO_SMALL and appends nothing */
    fbe_log_fn log;       /* NULL: no logging */
    void *log_ctx;
} fbe_sender_options;

/* options may be NULL (standard model, no callback). */
fbe_sender *fbe_sender_create(const fbe_protocol *protocol, const fbe_sender_options *options,
                              fbe_status *status);
void fbe_sender_free(fbe_sender *sender);

/* Serializes `value` (a message of the protocol's codec) as one frame after the
 * pending bytes, logs it, and offers everything pending to the send callback.
 * *sent (may be NULL) receives what the callback took (the reference's return
 * value). Errors: INVALID_ARGUMENT (not a message of this codec), a serialize
 * status or TOO_SMALL (nothing appended), IO (the callback failed; the frame stays
 * pending). */
fbe_status fbe_sender_send(fbe_sender *sender, const fbe_type *type, const void *value,
                           size_t *sent);

/* The same with the message named "pkg.Msg". Each distinct name string is looked up
 * once per sender (cached by address), so pass string literals. */
fbe_status fbe_sender_send_named(fbe_sender *sender, const char *name, const void *value,
                                 size_t *sent);

/* Offers the pending bytes to the send callback again. */
fbe_status fbe_sender_flush(fbe_sender *sender, size_t *sent);

/* The pending bytes, and removing `n` of them from the front (for senders without
 * a callback). */
const uint8_t *fbe_sender_data(const fbe_sender *sender);
size_t fbe_sender_pending(const fbe_sender *sender);
void fbe_sender_consume(fbe_sender *sender, size_t n);

/* Drops the pending bytes (the reference's reset). */
void fbe_sender_reset(fbe_sender *sender);

fbe_model fbe_sender_model(const fbe_sender *sender);
const fbe_protocol *fbe_sender_protocol(const fbe_sender *sender);
void fbe_sender_set_log(fbe_sender *sender, fbe_log_fn log, void *ctx);

/* ---- receiver ------------------------------------------------------------------------- */

typedef struct fbe_receiver fbe_receiver;

enum {
    /* Decode without a separate verify pass: deserialize performs the same checks
     * and reports the same statuses (docs/codec.md), only the byte position of the
     * problem is then looked up afterwards. Faster; equally safe. */
    FBE_RECEIVE_NO_VERIFY = 1u << 0
};

typedef struct fbe_receiver_options {
    fbe_model model;          /* FBE_STANDARD (Receiver) or FBE_FINAL (FinalReceiver) */
    size_t max_frame_size;    /* 0: FBE_DEFAULT_MAX_FRAME_SIZE; larger frames are reported
                                 (TOO_LARGE) and skipped without being stored */
    size_t max_decoded_size;  /* arena limit for one decoded message (allocation
                                 included), also its decode budget (codec.h
                                 max_memory); 0: 16 x max_frame_size, at least
                                 1 MiB, and the default budget */
    unsigned max_depth;       /* 0: the codec's */
    unsigned decode_flags;    /* FBE_DECODE_BORROW: strings and bytes point into the frame */
    unsigned flags;           /* FBE_RECEIVE_* */
    void *ctx;                /* passed to the callbacks below */
    fbe_message_fn on_message; /* messages without their own handler (fbe_receiver_on) */
    fbe_frame_fn on_unknown;   /* frames whose type number the package does not dispatch */
    fbe_frame_error_fn on_error; /* malformed, oversized or undecodable frames */
    fbe_log_fn log;           /* NULL: no logging */
    void *log_ctx;
} fbe_receiver_options;

/* options may be NULL (standard model, defaults, no callbacks). */
fbe_receiver *fbe_receiver_create(const fbe_protocol *protocol,
                                  const fbe_receiver_options *options, fbe_status *status);
/* Not from inside one of the receiver's callbacks. */
void fbe_receiver_free(fbe_receiver *receiver);

/* The handler of one message type (the reference's onReceive(const Msg&)); NULL
 * removes it. A frame whose type has no handler and no on_message (and no logging)
 * is verified but not decoded. INVALID_ARGUMENT if `type` is not dispatchable. */
fbe_status fbe_receiver_on(fbe_receiver *receiver, const fbe_type *type, fbe_message_fn fn,
                           void *ctx);
fbe_status fbe_receiver_on_named(fbe_receiver *receiver, const char *name, fbe_message_fn fn,
                                 void *ctx);

/* Feeds bytes. Complete frames are dispatched in order before it returns; a partial
 * frame is kept (up to max_frame_size) until the rest arrives.
 * Returns FBE_OK, or the status of the first frame in this call that went to
 * on_error (the receiver then continues with the next frame), or:
 *   BAD_FRAME_SIZE  a length prefix below the minimum (16 standard, 8 final): the
 *                   stream has no next frame boundary, so the receiver stops; every
 *                   later call returns BAD_FRAME_SIZE until fbe_receiver_reset;
 *   NOMEM           a partial frame could not be stored (the receiver stops too);
 *   INVALID_ARGUMENT called from inside one of this receiver's callbacks. */
fbe_status fbe_receiver_receive(fbe_receiver *receiver, const void *data, size_t size);

/* Forgets any partial frame and a stop, and restarts stream offsets at 0. From a
 * callback: the rest of the current fbe_receiver_receive call is dropped. */
void fbe_receiver_reset(fbe_receiver *receiver);

/* Stream position (bytes since the last reset) of the frame being dispatched
 * (inside a callback), else of the end of the data received so far. */
uint64_t fbe_receiver_offset(const fbe_receiver *receiver);

/* Bytes of an incomplete frame currently held. */
size_t fbe_receiver_buffered(const fbe_receiver *receiver);

fbe_model fbe_receiver_model(const fbe_receiver *receiver);
const fbe_protocol *fbe_receiver_protocol(const fbe_receiver *receiver);
void fbe_receiver_set_log(fbe_receiver *receiver, fbe_log_fn log, void *ctx);

/* ---- proxy ---------------------------------------------------------------------------- */

/* The receiver's framing, verification and dispatch without decoding: every
 * complete frame of a dispatchable type goes to on_frame with its type (the
 * reference's Proxy::onProxy; here for both models). Unknown and malformed frames
 * go to on_unknown and on_error as for a receiver. */
typedef struct fbe_proxy fbe_proxy;

typedef struct fbe_proxy_options {
    fbe_model model;
    size_t max_frame_size;  /* 0: FBE_DEFAULT_MAX_FRAME_SIZE */
    unsigned flags;         /* FBE_RECEIVE_NO_VERIFY: hand frames over unverified */
    void *ctx;
    fbe_frame_fn on_frame;
    fbe_frame_fn on_unknown;
    fbe_frame_error_fn on_error;
} fbe_proxy_options;

fbe_proxy *fbe_proxy_create(const fbe_protocol *protocol, const fbe_proxy_options *options,
                            fbe_status *status);
void fbe_proxy_free(fbe_proxy *proxy);
/* Same contract as fbe_receiver_receive / _reset / _offset. */
fbe_status fbe_proxy_receive(fbe_proxy *proxy, const void *data, size_t size);
void fbe_proxy_reset(fbe_proxy *proxy);
uint64_t fbe_proxy_offset(const fbe_proxy *proxy);

/* ---- client --------------------------------------------------------------------------- */

typedef struct fbe_client fbe_client;

typedef enum fbe_request_outcome {
    FBE_REQUEST_RESPONSE,    /* value: the response message */
    FBE_REQUEST_SENT,        /* a [request] without [response]: sent, nothing to wait for */
    FBE_REQUEST_REJECTED,    /* value: the reject message; error: its text form */
    FBE_REQUEST_TIMEOUT,     /* error: "Timeout!" */
    FBE_REQUEST_RESET,       /* error: "Reset client!" (fbe_client_reset or _free) */
    FBE_REQUEST_SEND_FAILED, /* error: "Send request failed!" */
    FBE_REQUEST_DUPLICATE    /* sent, but a request with the same id was already
                                pending and keeps it (the reference leaves this one's
                                future with a broken promise); error: "Duplicate request!" */
} fbe_request_outcome;

typedef struct fbe_request_result {
    fbe_request_outcome outcome;
    const fbe_type *request;  /* the request message type */
    fbe_uuid id;              /* the request's id (zero without [response]) */
    const fbe_type *type;     /* RESPONSE, REJECTED: the received message's type */
    const void *value;        /* RESPONSE, REJECTED: the decoded message */
    const char *error;        /* every outcome but RESPONSE and SENT: NUL-terminated text */
    size_t error_len;
} fbe_request_result;

/* Completion of one request; `result` and what it points to live until it returns. */
typedef void (*fbe_request_fn)(void *ctx, const fbe_request_result *result);

typedef struct fbe_client_options {
    fbe_model model;                 /* both directions (Client or FinalClient) */
    fbe_sender_options sender;       /* .model is ignored */
    fbe_receiver_options receiver;   /* .model is ignored; .on_message etc. receive the
                                        messages not consumed as responses or rejects
                                        (the reference's onReceiveNotify) */
    uint64_t (*clock)(void *ctx);    /* UTC nanoseconds; NULL: fbe_timestamp_now */
    void *clock_ctx;
} fbe_client_options;

fbe_client *fbe_client_create(const fbe_protocol *protocol, const fbe_client_options *options,
                              fbe_status *status);
/* Fails every pending request with FBE_REQUEST_RESET first. */
void fbe_client_free(fbe_client *client);

/* Sends a message (requests too, without registering them). */
fbe_status fbe_client_send(fbe_client *client, const fbe_type *type, const void *value,
                           size_t *sent);
fbe_status fbe_client_send_named(fbe_client *client, const char *name, const void *value,
                                 size_t *sent);
fbe_status fbe_client_flush(fbe_client *client, size_t *sent);

/* Sends the [request] message `value` and, when it declares [response(R)], registers
 * it under its `id` until an R with that id arrives (FBE_REQUEST_RESPONSE), a reject
 * with that id arrives (FBE_REQUEST_REJECTED), fbe_client_watchdog sees it expire
 * (timeout_ms > 0; 0 = never) or the client is reset. `done` (may be NULL) is
 * called exactly once, possibly before this returns (SENT, SEND_FAILED, DUPLICATE),
 * unless this returns INVALID_ARGUMENT (not a request message of the codec, or a
 * request/response without a `uuid id` field). A send failure returns its status
 * after calling done with FBE_REQUEST_SEND_FAILED. */
fbe_status fbe_client_request(fbe_client *client, const fbe_type *type, const void *value,
                              uint64_t timeout_ms, fbe_request_fn done, void *ctx);
fbe_status fbe_client_request_named(fbe_client *client, const char *name, const void *value,
                                    uint64_t timeout_ms, fbe_request_fn done, void *ctx);

/* Feeds received bytes (fbe_receiver_receive's contract). Responses and rejects
 * matching a pending request complete it and are not passed to the handlers. */
fbe_status fbe_client_receive(fbe_client *client, const void *data, size_t size);

/* Fails with FBE_REQUEST_TIMEOUT every pending request with a timeout whose
 * registration time + timeout <= utc_ns. Returns how many. */
size_t fbe_client_watchdog(fbe_client *client, uint64_t utc_ns);

/* Drops pending bytes in both directions and fails every pending request with
 * FBE_REQUEST_RESET. */
void fbe_client_reset(fbe_client *client);

/* Requests waiting for a response. */
size_t fbe_client_pending(fbe_client *client);

/* The client's halves: set notification handlers with fbe_receiver_on on the
 * receiver. Sending through the sender directly bypasses the client's lock. */
fbe_sender *fbe_client_sender(fbe_client *client);
fbe_receiver *fbe_client_receiver(fbe_client *client);
const fbe_protocol *fbe_client_protocol(const fbe_client *client);

/* "Timeout!", "Reset client!", ... for the failure outcomes; "" otherwise. */
const char *fbe_request_outcome_text(fbe_request_outcome outcome);

#ifdef __cplusplus
}
#endif

#endif
