// protobuf-c (libprotobuf-c, protoc-c --c_out of perf/peers/account.proto): the
// C implementation of protobuf, the closest peer of fbe-c in language.
//   serialize    a populated Peerpb__Account -> get_packed_size + pack into one
//                reused buffer (pack needs the size first)
//   deserialize  peerpb__account__unpack with the default (malloc) allocator,
//                then free_unpacked: protobuf-c has no reusable message, every
//                unpack allocates a fresh tree
//   verify       none: unpacking is its only check
#include <protobuf-c/protobuf-c.h>

#include <cstdlib>
#include <vector>

#include "account.h"
#include "account.pb-c.h"

namespace peer {

namespace {

// Owns the C message tree built from an Account (strings point into `src`).
struct PbcAccount {
    Peerpb__Account msg = PEERPB__ACCOUNT__INIT;
    Peerpb__Balance wallet = PEERPB__BALANCE__INIT;
    Peerpb__Balance asset = PEERPB__BALANCE__INIT;
    std::vector<Peerpb__Order> orders;
    std::vector<Peerpb__Order *> order_ptrs;

    explicit PbcAccount(const Account &src)
    {
        msg.id = src.id;
        msg.name = const_cast<char *>(src.name.c_str());
        msg.state = Peerpb__State(src.state);
        wallet.currency = const_cast<char *>(src.wallet.currency.c_str());
        wallet.amount = src.wallet.amount;
        msg.wallet = &wallet;
        if (src.has_asset) {
            asset.currency = const_cast<char *>(src.asset.currency.c_str());
            asset.amount = src.asset.amount;
            msg.asset = &asset;
        }
        orders.resize(src.orders.size());
        order_ptrs.resize(src.orders.size());
        for (size_t i = 0; i < src.orders.size(); i++) {
            const Order &o = src.orders[i];
            Peerpb__Order &q = orders[i];
            peerpb__order__init(&q);
            q.id = o.id;
            q.symbol = const_cast<char *>(o.symbol.c_str());
            q.side = Peerpb__OrderSide(o.side);
            q.type = Peerpb__OrderType(o.type);
            q.price = o.price;
            q.volume = o.volume;
            order_ptrs[i] = &q;
        }
        msg.n_orders = orders.size();
        msg.orders = order_ptrs.data();
    }
};

Account from_pbc(const Peerpb__Account &p)
{
    Account a;
    a.id = p.id;
    a.name = p.name;
    a.state = uint8_t(p.state);
    if (p.wallet)
        a.wallet = {p.wallet->currency, p.wallet->amount};
    a.has_asset = p.asset != nullptr;
    if (p.asset)
        a.asset = {p.asset->currency, p.asset->amount};
    for (size_t i = 0; i < p.n_orders; i++) {
        const Peerpb__Order &q = *p.orders[i];
        a.orders.push_back({q.id, q.symbol, uint8_t(q.side), uint8_t(q.type), q.price, q.volume});
    }
    return a;
}

struct Fixture {
    explicit Fixture(const Account &a) : value(a) {}
    PbcAccount value;
    std::vector<uint8_t> bytes;
};

} // namespace

void register_protobuf_c()
{
    for (Msg m : {Msg::readme, Msg::large}) {
        auto *f = new Fixture(account(m)); // lives as long as the rows
        f->bytes.resize(peerpb__account__get_packed_size(&f->value.msg));
        if (peerpb__account__pack(&f->value.msg, f->bytes.data()) != f->bytes.size())
            die("protobuf-c", "pack wrote an unexpected size");
        Peerpb__Account *back =
            peerpb__account__unpack(nullptr, f->bytes.size(), f->bytes.data());
        if (!back)
            die("protobuf-c", "unpack failed");
        check_round_trip("protobuf-c", m, from_pbc(*back));
        peerpb__account__free_unpacked(back, nullptr);

        add_row(m, "protobuf-c", "serialize", f->bytes.size(), [f](benchmark::State &state) {
            std::vector<uint8_t> out(f->bytes.size());
            for (auto _ : state) {
                size_t n = peerpb__account__get_packed_size(&f->value.msg);
                if (n > out.size())
                    out.resize(n);
                benchmark::DoNotOptimize(peerpb__account__pack(&f->value.msg, out.data()));
                benchmark::ClobberMemory();
            }
        });
        add_row(m, "protobuf-c", "deserialize", f->bytes.size(), [f](benchmark::State &state) {
            for (auto _ : state) {
                Peerpb__Account *out =
                    peerpb__account__unpack(nullptr, f->bytes.size(), f->bytes.data());
                if (!out)
                    state.SkipWithError("unpack failed");
                benchmark::DoNotOptimize(out);
                benchmark::ClobberMemory();
                peerpb__account__free_unpacked(out, nullptr);
            }
        });
    }
}

} // namespace peer
