// FlatBuffers (header-only library, flatc --cpp --gen-object-api of
// perf/peers/account.fbs).
//   serialize    Account -> FlatBufferBuilder (one reused builder, Clear() keeps
//                its memory): strings, orders, balances, then the account
//   deserialize  read in place: GetAccount and every field through the
//                accessors (FlatBuffers' natural form is the buffer itself; what
//                FBE's deserialize copies, this only points at)
//   unpack       the object API: UnPackTo into one reused peerfb::AccountT
//                (owned std::string / std::vector / unique_ptr), the closest to
//                FBE's deserialize into a host struct
//   verify       flatbuffers::Verifier + VerifyAccountBuffer
#include <flatbuffers/flatbuffers.h>

#include <vector>

#include "account.h"
#include "account_generated.h"

namespace peer {

namespace {

flatbuffers::Offset<peerfb::Balance> balance(flatbuffers::FlatBufferBuilder &b, const Balance &v)
{
    auto currency = b.CreateString(v.currency);
    return peerfb::CreateBalance(b, currency, v.amount);
}

void build(flatbuffers::FlatBufferBuilder &b, const Account &a,
           std::vector<flatbuffers::Offset<peerfb::Order>> &orders)
{
    orders.clear();
    for (const Order &o : a.orders) {
        auto symbol = b.CreateString(o.symbol);
        orders.push_back(peerfb::CreateOrder(b, o.id, symbol, peerfb::OrderSide(o.side),
                                             peerfb::OrderType(o.type), o.price, o.volume));
    }
    auto vec = b.CreateVector(orders);
    auto name = b.CreateString(a.name);
    auto wallet = balance(b, a.wallet);
    flatbuffers::Offset<peerfb::Balance> asset;
    if (a.has_asset)
        asset = balance(b, a.asset);
    b.Finish(peerfb::CreateAccount(b, a.id, name, a.state, wallet, asset, vec));
}

Balance from_fb(const peerfb::Balance *v)
{
    return v ? Balance{v->currency() ? v->currency()->str() : "", v->amount()} : Balance{};
}

Account from_fb(const peerfb::Account *p)
{
    Account a;
    a.id = p->id();
    a.name = p->name() ? p->name()->str() : "";
    a.state = p->state();
    a.wallet = from_fb(p->wallet());
    a.has_asset = p->asset() != nullptr;
    if (a.has_asset)
        a.asset = from_fb(p->asset());
    if (p->orders())
        for (const peerfb::Order *q : *p->orders())
            a.orders.push_back({q->id(), q->symbol() ? q->symbol()->str() : "", uint8_t(q->side()),
                                uint8_t(q->type()), q->price(), q->volume()});
    return a;
}

Account from_fbt(const peerfb::AccountT &p)
{
    Account a;
    a.id = p.id;
    a.name = p.name;
    a.state = p.state;
    if (p.wallet)
        a.wallet = {p.wallet->currency, p.wallet->amount};
    a.has_asset = p.asset != nullptr;
    if (p.asset)
        a.asset = {p.asset->currency, p.asset->amount};
    for (const auto &q : p.orders)
        a.orders.push_back({q->id, q->symbol, uint8_t(q->side), uint8_t(q->type), q->price,
                            q->volume});
    return a;
}

// Every field once, as a reader of the account would: numbers summed, strings
// taken as (pointer, size) views. Returned so the compiler cannot drop the reads.
double read_in_place(const uint8_t *buf)
{
    const peerfb::Account *p = peerfb::GetAccount(buf);
    double sum = p->id() + p->state();
    const flatbuffers::String *s = p->name();
    benchmark::DoNotOptimize(s->data());
    sum += s->size();
    for (const peerfb::Balance *b : {p->wallet(), p->asset()}) {
        if (!b)
            continue;
        benchmark::DoNotOptimize(b->currency()->data());
        sum += b->currency()->size() + b->amount();
    }
    for (const peerfb::Order *q : *p->orders()) {
        benchmark::DoNotOptimize(q->symbol()->data());
        sum += q->id() + q->symbol()->size() + int(q->side()) + int(q->type()) + q->price() +
               q->volume();
    }
    return sum;
}

struct Fixture {
    std::vector<uint8_t> bytes;
};

} // namespace

void register_flatbuffers()
{
    for (Msg m : {Msg::readme, Msg::large}) {
        auto *f = new Fixture; // lives as long as the rows
        const Account &src = account(m);
        {
            flatbuffers::FlatBufferBuilder b;
            std::vector<flatbuffers::Offset<peerfb::Order>> scratch;
            build(b, src, scratch);
            f->bytes.assign(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
        }
        flatbuffers::Verifier v(f->bytes.data(), f->bytes.size());
        if (!peerfb::VerifyAccountBuffer(v))
            die("flatbuffers", "the verifier rejects the account");
        check_round_trip("flatbuffers", m, from_fb(peerfb::GetAccount(f->bytes.data())));
        peerfb::AccountT t;
        peerfb::GetAccount(f->bytes.data())->UnPackTo(&t);
        check_round_trip("flatbuffers unpack", m, from_fbt(t));
        const size_t size = f->bytes.size();

        add_row(m, "flatbuffers", "serialize", size, [&src](benchmark::State &state) {
            flatbuffers::FlatBufferBuilder b;
            std::vector<flatbuffers::Offset<peerfb::Order>> scratch;
            for (auto _ : state) {
                b.Clear();
                build(b, src, scratch);
                benchmark::DoNotOptimize(b.GetBufferPointer());
                benchmark::ClobberMemory();
            }
        });
        add_row(m, "flatbuffers", "deserialize", size, [f](benchmark::State &state) {
            for (auto _ : state)
                benchmark::DoNotOptimize(read_in_place(f->bytes.data()));
        });
        add_row(m, "flatbuffers", "unpack", size, [f](benchmark::State &state) {
            peerfb::AccountT out;
            for (auto _ : state) {
                peerfb::GetAccount(f->bytes.data())->UnPackTo(&out);
                benchmark::DoNotOptimize(&out);
                benchmark::ClobberMemory();
            }
        });
        add_row(m, "flatbuffers", "verify", size, [f](benchmark::State &state) {
            for (auto _ : state) {
                flatbuffers::Verifier verifier(f->bytes.data(), f->bytes.size());
                bool ok = peerfb::VerifyAccountBuffer(verifier);
                if (!ok)
                    state.SkipWithError("verify failed");
                benchmark::DoNotOptimize(ok);
            }
        });
    }
}

} // namespace peer
