/* Current time for the schema default `utc` (wire-format.md 2.7). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime() under -std=c11 */

#include "fbe/types.h"

#include <time.h>

uint64_t fbe_timestamp_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}
