/* Status codes of every fbe-c operation, from one X-macro table. */
#ifndef FBE_ERROR_H
#define FBE_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* name, message */
#define FBE_STATUSES(X)                                                                  \
    X(OK, "ok")                                                                          \
    X(NOMEM, "out of memory")                                                            \
    X(TOO_SMALL, "the output buffer is too small")                                       \
    X(TOO_LARGE, "the value is too large for the wire format (sizes are 32-bit)")        \
    X(TRUNCATED, "the buffer ends inside the frame")                                     \
    X(BAD_FRAME_SIZE, "the frame size field is invalid")                                 \
    X(NULL_OFFSET, "a required offset is zero")                                          \
    X(BAD_OFFSET, "an offset points outside the buffer")                                 \
    X(BAD_STRUCT_SIZE, "a struct size is smaller than its header or exceeds the buffer") \
    X(BAD_TYPE, "a struct type number does not match the schema")                        \
    X(BAD_COUNT, "an element count exceeds the remaining bytes")                         \
    X(BAD_LENGTH, "a string or bytes length exceeds the remaining bytes")                \
    X(TOO_DEEP, "structs are nested deeper than the limit")                              \
    X(TRAVERSAL_LIMIT, "the buffer refers to the same data too many times")              \
    X(FINAL_SIZE, "the final-model frame size does not match its fields")                \
    X(UNKNOWN_TYPE, "unknown type")                                                      \
    X(UNSUPPORTED, "not supported by this backend")                                      \
    X(INVALID_ARGUMENT, "invalid argument")                                              \
    X(IO, "input/output error")                                                          \
    X(MEMORY_LIMIT, "decoding needs more memory than the limit for this input allows")  \
    X(UNORDERED, "a set or map is not in strictly ascending key order")

typedef enum fbe_status {
#define FBE_STATUS_ENUM_(name, msg) FBE_##name,
    FBE_STATUSES(FBE_STATUS_ENUM_)
#undef FBE_STATUS_ENUM_
    FBE_STATUS_COUNT
} fbe_status;

/* A sentence describing the status (never NULL). */
const char *fbe_strerror(fbe_status status);

/* "OK", "BAD_OFFSET", ... */
const char *fbe_status_name(fbe_status status);

#ifdef __cplusplus
}
#endif

#endif
