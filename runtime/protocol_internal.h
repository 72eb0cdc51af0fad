/* Internals shared by runtime/protocol.c (tables, sender, receiver, proxy) and
 * runtime/protocol_client.c (client). Not installed. */
#ifndef FBE_PROTOCOL_INTERNAL_H
#define FBE_PROTOCOL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fbe/protocol.h"

/* What a request message expects (fbe_protocol_info.request_kind). */
enum {
    PROTO_NOT_REQUEST = 0,
    PROTO_REQUEST_ONLY,     /* [request] without [response]: fire and forget */
    PROTO_REQUEST_RESPONSE, /* [request] [response(R)]: correlated by `uuid id` */
    PROTO_REQUEST_INVALID   /* [response(R)] but the request or R lacks a `uuid id` */
};

/* Per codec type (indexed like the codec's type table). */
typedef struct proto_info {
    bool is_message;
    uint8_t request_kind;
    const fbe_ir_field *id;     /* the `uuid id` field, NULL if none */
    int32_t request_slot;       /* PROTO_REQUEST_RESPONSE: the response table */
    int32_t response_slot;      /* this type as a response: its table, else -1 */
    const int32_t *reject_slots; /* this type as a reject: tables to search, in order */
    size_t reject_slot_count;
} proto_info;

struct fbe_protocol {
    const fbe_codec *codec;
    const fbe_ir_package *package; /* NULL when the root package declares no structs */
    const fbe_type *types;         /* the codec's type table */
    size_t type_count;
    proto_info *info;              /* [type_count] */

    const fbe_type **order;        /* dispatchable messages, dispatch order */
    size_t order_count;
    struct proto_number {
        uint32_t number;
        const fbe_type *type;
    } *numbers;                    /* sorted by number */
    const fbe_type **direct;       /* numbers < direct_count, when small */
    uint32_t direct_count;

    const fbe_type **names;        /* open addressing on full_name, all messages */
    size_t name_cap;               /* power of two */
    const fbe_type **search;       /* all messages, package's own first (short names) */
    size_t search_count;

    size_t slot_count;             /* response tables */
    int32_t *slot_pool;
};

/* Index of a type of the protocol's codec, or SIZE_MAX. */
static inline size_t proto_type_index(const fbe_protocol *p, const fbe_type *t)
{
    if (!t || t->codec != p->codec || t < p->types || t >= p->types + p->type_count)
        return SIZE_MAX;
    return (size_t)(t - p->types);
}

/* The receiver's hook for the client: called with every decoded message whose
 * type has wants[index] set, before the handler; true = consumed. */
typedef bool (*proto_intercept_fn)(void *ctx, const fbe_type *type, const void *value);
void proto_receiver_set_intercept(fbe_receiver *r, proto_intercept_fn fn, void *ctx,
                                  const bool *wants);

#endif
