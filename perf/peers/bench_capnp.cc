// Cap'n Proto (libcapnp + libkj, `capnp compile -oc++` of perf/peers/account.capnp).
//   serialize    Account -> MallocMessageBuilder on one reused, zeroed first
//                segment big enough for the message (the library zeroes it again
//                when the builder is destroyed: its documented way to reuse
//                memory), then writeMessage into one reused flat buffer; size is
//                the standard (unpacked) single-segment encoding
//   deserialize  read in place: FlatArrayMessageReader over the bytes and every
//                field through the readers (Cap'n Proto's natural form is the
//                buffer; each access is bounds-checked, there is no separate verify)
#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/io.h>

#include <cstring>

#include <vector>

#include "account.capnp.h"
#include "account.h"

namespace peer {

namespace {

void set_balance(peercapnp::Balance::Builder b, const Balance &v)
{
    b.setCurrency(v.currency);
    b.setAmount(v.amount);
}

void build(capnp::MessageBuilder &msg, const Account &a)
{
    auto p = msg.initRoot<peercapnp::Account>();
    p.setId(a.id);
    p.setName(a.name);
    p.setState(a.state);
    set_balance(p.initWallet(), a.wallet);
    if (a.has_asset)
        set_balance(p.initAsset(), a.asset);
    auto orders = p.initOrders(unsigned(a.orders.size()));
    for (unsigned i = 0; i < a.orders.size(); i++) {
        const Order &o = a.orders[i];
        auto q = orders[i];
        q.setId(o.id);
        q.setSymbol(o.symbol);
        q.setSide(peercapnp::OrderSide(o.side));
        q.setType(peercapnp::OrderType(o.type));
        q.setPrice(o.price);
        q.setVolume(o.volume);
    }
}

Account from_capnp(peercapnp::Account::Reader p)
{
    Account a;
    a.id = p.getId();
    a.name = p.getName();
    a.state = p.getState();
    a.wallet = {p.getWallet().getCurrency(), p.getWallet().getAmount()};
    a.has_asset = p.hasAsset();
    if (a.has_asset)
        a.asset = {p.getAsset().getCurrency(), p.getAsset().getAmount()};
    for (auto q : p.getOrders())
        a.orders.push_back({q.getId(), q.getSymbol(), uint8_t(q.getSide()), uint8_t(q.getType()),
                            q.getPrice(), q.getVolume()});
    return a;
}

// Every field once (see bench_flatbuffers.cc read_in_place).
double read_in_place(kj::ArrayPtr<const capnp::word> words)
{
    capnp::ReaderOptions opts;
    opts.traversalLimitInWords = ~uint64_t(0) >> 8; // the large account is read whole
    capnp::FlatArrayMessageReader reader(words, opts);
    auto p = reader.getRoot<peercapnp::Account>();
    double sum = p.getId() + p.getState();
    auto name = p.getName();
    benchmark::DoNotOptimize(name.begin());
    sum += name.size();
    auto wallet = p.getWallet();
    benchmark::DoNotOptimize(wallet.getCurrency().begin());
    sum += wallet.getCurrency().size() + wallet.getAmount();
    if (p.hasAsset()) {
        auto asset = p.getAsset();
        benchmark::DoNotOptimize(asset.getCurrency().begin());
        sum += asset.getCurrency().size() + asset.getAmount();
    }
    for (auto q : p.getOrders()) {
        auto symbol = q.getSymbol();
        benchmark::DoNotOptimize(symbol.begin());
        sum += q.getId() + symbol.size() + int(q.getSide()) + int(q.getType()) + q.getPrice() +
               q.getVolume();
    }
    return sum;
}

// kj arrays, not std::vector: capnp::word is not copyable (clang's libstdc++
// checks refuse std::vector<capnp::word>::assign).
struct Fixture {
    kj::Array<capnp::word> first_segment; // zeroed scratch for the builder
    kj::Array<capnp::word> bytes;         // the encoded message, word-aligned
};

} // namespace

void register_capnp()
{
    for (Msg m : {Msg::readme, Msg::large}) {
        auto *f = new Fixture; // lives as long as the rows
        const Account &src = account(m);
        size_t words;
        {
            capnp::MallocMessageBuilder msg;
            build(msg, src);
            // The size of the one segment the timed builder will use.
            words = size_t(msg.getSegmentsForOutput()[0].size());
            for (auto seg : msg.getSegmentsForOutput())
                words = std::max(words, size_t(seg.size()));
        }
        f->first_segment = kj::heapArray<capnp::word>(words * 2 + 64);
        memset(f->first_segment.begin(), 0, f->first_segment.size() * sizeof(capnp::word));
        {
            capnp::MallocMessageBuilder msg(f->first_segment.asPtr());
            build(msg, src);
            if (msg.getSegmentsForOutput().size() != 1)
                die("capnp", "the message does not fit one segment");
            f->bytes = capnp::messageToFlatArray(msg);
        }
        check_round_trip("capnp", m,
                         from_capnp(capnp::FlatArrayMessageReader(
                                        f->bytes.asPtr(),
                                        capnp::ReaderOptions{~uint64_t(0) >> 8, 64})
                                        .getRoot<peercapnp::Account>()));
        const size_t size = f->bytes.size() * sizeof(capnp::word);

        add_row(m, "capnp", "serialize", size, [f, &src](benchmark::State &state) {
            auto out = kj::heapArray<capnp::word>(f->bytes.size());
            for (auto _ : state) {
                capnp::MallocMessageBuilder msg(f->first_segment.asPtr());
                build(msg, src);
                kj::ArrayOutputStream stream(
                    kj::arrayPtr(reinterpret_cast<kj::byte *>(out.begin()), out.size() * 8));
                capnp::writeMessage(stream, msg);
                benchmark::DoNotOptimize(out.begin());
                benchmark::ClobberMemory();
            }
        });
        add_row(m, "capnp", "deserialize", size, [f](benchmark::State &state) {
            for (auto _ : state)
                benchmark::DoNotOptimize(
                    read_in_place(f->bytes.asPtr()));
        });
    }
}

} // namespace peer
