#include "fbe/error.h"

const char *fbe_strerror(fbe_status status)
{
    static const char *const messages[] = {
#define FBE_STATUS_MSG_(name, msg) msg,
        FBE_STATUSES(FBE_STATUS_MSG_)
#undef FBE_STATUS_MSG_
    };
    return (unsigned)status < FBE_STATUS_COUNT ? messages[status] : "unknown status";
}

const char *fbe_status_name(fbe_status status)
{
    static const char *const names[] = {
#define FBE_STATUS_NAME_(name, msg) #name,
        FBE_STATUSES(FBE_STATUS_NAME_)
#undef FBE_STATUS_NAME_
    };
    return (unsigned)status < FBE_STATUS_COUNT ? names[status] : "UNKNOWN";
}
