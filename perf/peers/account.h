// The README account as plain C++ data, shared by every row of bench_all, and
// the helpers that name and register rows so perf/report.py can read them back.
//
// Values: the golden `readme` case (shared/golden/cases/proto/Account/readme.txt):
//   Account(id=1, name="Test", state=initialized|calculated (6),
//           wallet=Balance("USD", 1000), asset=Balance("EUR", 100),
//           orders=[Order(1,"EURUSD",buy,market,1.23456,1000),
//                   Order(2,"EURUSD",sell,limit,1,100),
//                   Order(3,"EURUSD",buy,stop,1.5,10)])
// The large message is the same account with kLargeOrders orders: order i
// (0-based) has id i+1 and the other fields of readme order i % 3.
#ifndef FBE_PERF_PEERS_ACCOUNT_H
#define FBE_PERF_PEERS_ACCOUNT_H

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace peer {

struct Order {
    int32_t id = 0;
    std::string symbol;
    uint8_t side = 0; // 0 buy, 1 sell
    uint8_t type = 0; // 0 market, 1 limit, 2 stop
    double price = 0;
    double volume = 0;
};

struct Balance {
    std::string currency;
    double amount = 0;
};

struct Account {
    int32_t id = 0;
    std::string name;
    uint8_t state = 0; // FBE flags State: 6 = initialized|calculated
    Balance wallet;
    bool has_asset = false;
    Balance asset;
    std::vector<Order> orders;
};

bool operator==(const Order &a, const Order &b);
bool operator==(const Balance &a, const Balance &b);
bool operator==(const Account &a, const Account &b);

enum class Msg { readme = 0, large = 1 };
constexpr size_t kLargeOrders = 100000;

const Account &account(Msg m);
const char *msg_name(Msg m);

[[noreturn]] void die(const char *who, const char *what);

// Stops the program unless `decoded` equals account(m): every peer round-trips
// its message once before it is timed, so no row measures a wrong encoding.
void check_round_trip(const char *who, Msg m, const Account &decoded);

// Registers the row "<msg>/<system>/<op>" (perf/report.py splits on '/').
// `size` is the encoded message in bytes: reported as counter "size" and as the
// bytes processed per iteration (bytes_per_second). The body runs the timed loop.
void add_row(Msg m, const std::string &system, const char *op, size_t size,
             std::function<void(benchmark::State &)> body);

// One registration function per peer translation unit (perf/peers/bench_*.cc);
// bench_all.cc calls those CMake compiled in (FBE_BENCH_PEER_*).
void register_protobuf();
void register_protobuf_c();
void register_flatbuffers();
void register_capnp();
void register_msgpack();
void register_rapidjson();

} // namespace peer

#endif
