/* The FBE side of bench_all that needs the host structs: C, because headers
 * written by `fbec header` are C11 (compound literals, _Static_assert) and not
 * C++ (docs/host-abi.md 2). bench_all.cc sees only the functions below.
 *
 * The values are those of perf/peers/account.h: the README account and the same
 * account with `orders` orders (order i: id i+1, other fields of order i % 3). */
#include <stdlib.h>

#include "bench_all_host.h"
#include "proto.h" /* fbec header of the golden proto.fbe, generated at build time */

/* The codec constructors of proto.fbe compiled ahead of time (`fbec aot`,
 * docs/aot.md) and as static C (`fbec c`): both export fbe_proto_codec_create,
 * so perf/CMakeLists.txt renames the AOT one when both are linked and says
 * which name each has. */
#ifdef FBE_BENCH_AOT
fbe_codec *FBE_BENCH_AOT_CREATE(fbe_status *status);
#endif
#ifdef FBE_BENCH_STATIC
fbe_codec *FBE_BENCH_STATIC_CREATE(fbe_status *status);
#endif

static const proto_Order readme_orders[3] = {
    {1, {"EURUSD", 6}, proto_OrderSide_buy, proto_OrderType_market, 1.23456, 1000.0},
    {2, {"EURUSD", 6}, proto_OrderSide_sell, proto_OrderType_limit, 1.0, 100.0},
    {3, {"EURUSD", 6}, proto_OrderSide_buy, proto_OrderType_stop, 1.5, 10.0},
};

static proto_Balance readme_asset = {{"EUR", 3}, 100.0};

static void fill(proto_Account *a, proto_Order *orders, size_t count)
{
    proto_Account_init(a);
    a->id = 1;
    a->name = (fbe_string){"Test", 4};
    a->state = proto_State_good;
    a->wallet.currency = (fbe_string){"USD", 3};
    a->wallet.amount = 1000.0;
    a->asset = &readme_asset;
    a->orders.data = orders;
    a->orders.size = count;
}

const void *fbe_bench_host_account(size_t orders)
{
    proto_Account *a = malloc(sizeof *a);
    if (!a)
        return NULL;
    if (orders == 3) {
        fill(a, (proto_Order *)readme_orders, 3);
        return a;
    }
    proto_Order *o = malloc(orders * sizeof *o);
    if (!o) {
        free(a);
        return NULL;
    }
    for (size_t i = 0; i < orders; i++) {
        o[i] = readme_orders[i % 3];
        o[i].id = (int32_t)(i + 1);
    }
    fill(a, o, orders);
    return a;
}

size_t fbe_bench_host_account_size(void)
{
    return sizeof(proto_Account);
}

fbe_codec *fbe_bench_aot_codec(fbe_status *status)
{
#ifdef FBE_BENCH_AOT
    return FBE_BENCH_AOT_CREATE(status);
#else
    if (status)
        *status = FBE_UNSUPPORTED;
    return NULL;
#endif
}

fbe_codec *fbe_bench_static_codec(fbe_status *status)
{
    /* The static C backend (FBE_BACKEND_STATIC): CMake defines FBE_BENCH_STATIC
     * when it links `fbec c` output for proto.fbe; without it the rows are
     * skipped. */
#ifdef FBE_BENCH_STATIC
    return FBE_BENCH_STATIC_CREATE(status);
#else
    if (status)
        *status = FBE_UNSUPPORTED;
    return NULL;
#endif
}
