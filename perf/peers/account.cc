// The plain account values and row registration (see account.h).
#include "account.h"

#include <cstdio>
#include <cstdlib>

namespace peer {

bool operator==(const Order &a, const Order &b)
{
    return a.id == b.id && a.symbol == b.symbol && a.side == b.side && a.type == b.type &&
           a.price == b.price && a.volume == b.volume;
}

bool operator==(const Balance &a, const Balance &b)
{
    return a.currency == b.currency && a.amount == b.amount;
}

bool operator==(const Account &a, const Account &b)
{
    return a.id == b.id && a.name == b.name && a.state == b.state && a.wallet == b.wallet &&
           a.has_asset == b.has_asset && (!a.has_asset || a.asset == b.asset) &&
           a.orders == b.orders;
}

namespace {

Account make_readme()
{
    Account a;
    a.id = 1;
    a.name = "Test";
    a.state = 6; // initialized | calculated, the schema's `good`
    a.wallet = {"USD", 1000.0};
    a.has_asset = true;
    a.asset = {"EUR", 100.0};
    a.orders = {
        {1, "EURUSD", 0, 0, 1.23456, 1000.0},
        {2, "EURUSD", 1, 1, 1.0, 100.0},
        {3, "EURUSD", 0, 2, 1.5, 10.0},
    };
    return a;
}

Account make_large()
{
    Account a = make_readme();
    std::vector<Order> three = a.orders;
    a.orders.clear();
    a.orders.reserve(kLargeOrders);
    for (size_t i = 0; i < kLargeOrders; i++) {
        Order o = three[i % 3];
        o.id = int32_t(i + 1);
        a.orders.push_back(o);
    }
    return a;
}

} // namespace

const Account &account(Msg m)
{
    static const Account readme = make_readme();
    static const Account large = make_large();
    return m == Msg::readme ? readme : large;
}

const char *msg_name(Msg m)
{
    return m == Msg::readme ? "readme" : "large";
}

void die(const char *who, const char *what)
{
    std::fprintf(stderr, "bench_all: %s: %s\n", who, what);
    std::exit(1);
}

void check_round_trip(const char *who, Msg m, const Account &decoded)
{
    if (!(decoded == account(m)))
        die(who, m == Msg::readme ? "the README account does not round-trip"
                                  : "the large account does not round-trip");
}

void add_row(Msg m, const std::string &system, const char *op, size_t size,
             std::function<void(benchmark::State &)> body)
{
    std::string name = std::string(msg_name(m)) + "/" + system + "/" + op;
    benchmark::RegisterBenchmark(name.c_str(), [body, size](benchmark::State &state) {
        body(state);
        state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(size));
        state.counters["size"] = double(size);
    });
}

} // namespace peer
