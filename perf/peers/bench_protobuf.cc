// protobuf C++ (libprotobuf, protoc --cpp_out of perf/peers/account.proto).
//   serialize    a populated peerpb::Account -> SerializeToString into one
//                reused std::string (its capacity stays)
//   deserialize  ParseFromString into one reused peerpb::Account: protobuf's own
//                pattern for repeated parsing (sub-messages and strings are
//                recycled), which is also how the reference measured it
//   verify       none: parsing is protobuf's only check
#include <google/protobuf/stubs/common.h>

#include "account.h"
#include "account.pb.h"

namespace peer {

namespace {

void to_pb(const Account &a, peerpb::Account *p)
{
    p->set_id(a.id);
    p->set_name(a.name);
    p->set_state(peerpb::State(a.state));
    p->mutable_wallet()->set_currency(a.wallet.currency);
    p->mutable_wallet()->set_amount(a.wallet.amount);
    if (a.has_asset) {
        p->mutable_asset()->set_currency(a.asset.currency);
        p->mutable_asset()->set_amount(a.asset.amount);
    }
    p->mutable_orders()->Reserve(int(a.orders.size()));
    for (const Order &o : a.orders) {
        peerpb::Order *q = p->add_orders();
        q->set_id(o.id);
        q->set_symbol(o.symbol);
        q->set_side(peerpb::OrderSide(o.side));
        q->set_type(peerpb::OrderType(o.type));
        q->set_price(o.price);
        q->set_volume(o.volume);
    }
}

Account from_pb(const peerpb::Account &p)
{
    Account a;
    a.id = p.id();
    a.name = p.name();
    a.state = uint8_t(p.state());
    a.wallet = {p.wallet().currency(), p.wallet().amount()};
    a.has_asset = p.has_asset();
    if (a.has_asset)
        a.asset = {p.asset().currency(), p.asset().amount()};
    for (const peerpb::Order &q : p.orders())
        a.orders.push_back({q.id(), q.symbol(), uint8_t(q.side()), uint8_t(q.type()), q.price(),
                            q.volume()});
    return a;
}

struct Fixture {
    peerpb::Account value;
    std::string bytes;
};

} // namespace

void register_protobuf()
{
    GOOGLE_PROTOBUF_VERIFY_VERSION;
    for (Msg m : {Msg::readme, Msg::large}) {
        auto *f = new Fixture; // lives as long as the rows
        to_pb(account(m), &f->value);
        if (!f->value.SerializeToString(&f->bytes))
            die("protobuf", "SerializeToString failed");
        peerpb::Account back;
        if (!back.ParseFromString(f->bytes))
            die("protobuf", "ParseFromString failed");
        check_round_trip("protobuf", m, from_pb(back));

        add_row(m, "protobuf", "serialize", f->bytes.size(), [f](benchmark::State &state) {
            std::string out;
            for (auto _ : state) {
                if (!f->value.SerializeToString(&out))
                    state.SkipWithError("SerializeToString failed");
                benchmark::DoNotOptimize(out.data());
                benchmark::ClobberMemory();
            }
        });
        add_row(m, "protobuf", "deserialize", f->bytes.size(), [f](benchmark::State &state) {
            peerpb::Account out;
            for (auto _ : state) {
                if (!out.ParseFromString(f->bytes))
                    state.SkipWithError("ParseFromString failed");
                benchmark::DoNotOptimize(&out);
                benchmark::ClobberMemory();
            }
        });
    }
}

} // namespace peer
