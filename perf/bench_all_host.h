/* C helpers of bench_all (perf/bench_all_host.c): host values built with the
 * generated proto.h, and the codecs of backends linked in at build time. */
#ifndef FBE_PERF_BENCH_ALL_HOST_H
#define FBE_PERF_BENCH_ALL_HOST_H

#include <stddef.h>

#include "fbe/codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A proto.Account (host ABI) with the README values and `orders` orders; 3 gives
 * exactly the README account. Never freed (the process ends). NULL: no memory. */
const void *fbe_bench_host_account(size_t orders);

/* sizeof(proto_Account): bench_all.cc checks it against the codec's IR. */
size_t fbe_bench_host_account_size(void);

/* The AOT codec of proto_aot.o, or NULL with FBE_UNSUPPORTED when CMake did not
 * build one (FBE_WITH_LLVM=OFF). */
fbe_codec *fbe_bench_aot_codec(fbe_status *status);

/* The static C backend's codec: NULL with FBE_UNSUPPORTED until it exists. */
fbe_codec *fbe_bench_static_codec(fbe_status *status);

#ifdef __cplusplus
}
#endif

#endif
