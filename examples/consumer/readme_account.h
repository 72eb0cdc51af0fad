/* The README account (the golden case proto.Account "readme"), built with the
 * generated proto.h. Shared by this consumer, examples/demo.c and the C++ header
 * test; valid C11 and C++17. */
#ifndef FBE_EXAMPLES_README_ACCOUNT_H
#define FBE_EXAMPLES_README_ACCOUNT_H

#include <string.h>

#include "proto.h"

static inline fbe_string readme_str(const char *s)
{
    fbe_string v = {s, strlen(s)};
    return v;
}

/* Account{1,"Test",State::good,{"USD",1000.0},Balance{"EUR",100.0}} with three
 * orders; *a points into asset and orders, which must outlive it. */
static inline void readme_account_init(proto_Account *a, proto_Balance *asset,
                                       proto_Order orders[3])
{
    static const struct {
        int32_t id;
        proto_OrderSide side;
        proto_OrderType type;
        double price, volume;
    } o[3] = {
        {1, proto_OrderSide_buy, proto_OrderType_market, 1.23456, 1000.0},
        {2, proto_OrderSide_sell, proto_OrderType_limit, 1.0, 100.0},
        {3, proto_OrderSide_buy, proto_OrderType_stop, 1.5, 10.0},
    };
    proto_Account_init(a);
    a->id = 1;
    a->name = readme_str("Test");
    a->state = proto_State_good;
    a->wallet.currency = readme_str("USD");
    a->wallet.amount = 1000.0;
    proto_Balance_init(asset);
    asset->currency = readme_str("EUR");
    asset->amount = 100.0;
    a->asset = asset;
    for (int i = 0; i < 3; i++) {
        proto_Order_init(&orders[i]);
        orders[i].id = o[i].id;
        orders[i].symbol = readme_str("EURUSD");
        orders[i].side = o[i].side;
        orders[i].type = o[i].type;
        orders[i].price = o[i].price;
        orders[i].volume = o[i].volume;
    }
    a->orders.data = orders;
    a->orders.size = 3;
}

#endif
