// RapidJSON (header-only). The text is the reference FBE JSON of the account,
// byte for byte the golden readme.json (checked below).
//   serialize    Account -> Writer<StringBuffer> into one reused StringBuffer
//   deserialize  Document::Parse into the DOM (RapidJSON's natural form), strings
//                copied into a MemoryPoolAllocator whose first 64 KiB is one
//                reused buffer (Clear() each time): the README account never
//                leaves it; the large one also takes chunks from malloc
//   verify       none (parsing is its check)
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <string>
#include <vector>

#include "account.h"

namespace peer {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void write_balance(Writer &w, const Balance &b)
{
    w.StartObject();
    w.Key("currency");
    w.String(b.currency.data(), rapidjson::SizeType(b.currency.size()));
    w.Key("amount");
    w.Double(b.amount);
    w.EndObject();
}

void write(Writer &w, const Account &a)
{
    w.StartObject();
    w.Key("id");
    w.Int(a.id);
    w.Key("name");
    w.String(a.name.data(), rapidjson::SizeType(a.name.size()));
    w.Key("state");
    w.Uint(a.state);
    w.Key("wallet");
    write_balance(w, a.wallet);
    w.Key("asset");
    if (a.has_asset)
        write_balance(w, a.asset);
    else
        w.Null();
    w.Key("orders");
    w.StartArray();
    for (const Order &o : a.orders) {
        w.StartObject();
        w.Key("id");
        w.Int(o.id);
        w.Key("symbol");
        w.String(o.symbol.data(), rapidjson::SizeType(o.symbol.size()));
        w.Key("side");
        w.Uint(o.side);
        w.Key("type");
        w.Uint(o.type);
        w.Key("price");
        w.Double(o.price);
        w.Key("volume");
        w.Double(o.volume);
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
}

// DOM -> Account, for the round-trip check only.
Balance balance(const rapidjson::Value &v)
{
    return {v["currency"].GetString(), v["amount"].GetDouble()};
}

Account from_dom(const rapidjson::Value &v)
{
    Account a;
    a.id = v["id"].GetInt();
    a.name = v["name"].GetString();
    a.state = uint8_t(v["state"].GetUint());
    a.wallet = balance(v["wallet"]);
    a.has_asset = !v["asset"].IsNull();
    if (a.has_asset)
        a.asset = balance(v["asset"]);
    for (const rapidjson::Value &q : v["orders"].GetArray())
        a.orders.push_back({q["id"].GetInt(), q["symbol"].GetString(),
                            uint8_t(q["side"].GetUint()), uint8_t(q["type"].GetUint()),
                            q["price"].GetDouble(), q["volume"].GetDouble()});
    return a;
}

std::string read_text(const std::string &path)
{
    std::string s;
    if (std::FILE *f = std::fopen(path.c_str(), "rb")) {
        char chunk[4096];
        size_t n;
        while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0)
            s.append(chunk, n);
        std::fclose(f);
    }
    return s;
}

constexpr size_t kPoolBuffer = 64 * 1024;

struct Fixture {
    std::string text;
};

} // namespace

void register_rapidjson()
{
    for (Msg m : {Msg::readme, Msg::large}) {
        auto *f = new Fixture; // lives as long as the rows
        const Account &src = account(m);
        rapidjson::StringBuffer sb;
        Writer w(sb);
        write(w, src);
        f->text.assign(sb.GetString(), sb.GetSize());
        if (m == Msg::readme &&
            f->text != read_text(FBE_SHARED_DIR "/golden/cases/proto/Account/readme.json"))
            die("rapidjson", "the JSON differs from the golden readme.json");
        rapidjson::Document back;
        back.Parse(f->text.data(), f->text.size());
        if (back.HasParseError())
            die("rapidjson", "parse error");
        check_round_trip("rapidjson", m, from_dom(back));
        const size_t size = f->text.size();

        add_row(m, "rapidjson", "serialize", size, [&src](benchmark::State &state) {
            rapidjson::StringBuffer out;
            Writer writer(out);
            for (auto _ : state) {
                out.Clear();
                writer.Reset(out);
                write(writer, src);
                benchmark::DoNotOptimize(out.GetString());
                benchmark::ClobberMemory();
            }
        });
        add_row(m, "rapidjson", "deserialize", size, [f](benchmark::State &state) {
            std::vector<char> first(kPoolBuffer);
            rapidjson::MemoryPoolAllocator<> pool(first.data(), first.size());
            for (auto _ : state) {
                pool.Clear();
                rapidjson::Document doc(&pool);
                doc.Parse(f->text.data(), f->text.size());
                if (doc.HasParseError())
                    state.SkipWithError("parse error");
                benchmark::DoNotOptimize(&doc);
                benchmark::ClobberMemory();
            }
        });
    }
}

} // namespace peer
