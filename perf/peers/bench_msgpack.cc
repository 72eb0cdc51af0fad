// msgpack-c (libmsgpackc, its C API). MessagePack has no schema: the layout is
// the one msgpack-c's C++ MSGPACK_DEFINE gives a struct, which the reference's
// benchmark used: every struct an array of its fields in declaration order,
// enums and flags as integers, doubles as float64, the absent asset as nil.
//   serialize    Account -> msgpack_packer into one reused msgpack_sbuffer
//                (cleared each time, its memory stays)
//   deserialize  msgpack_unpack_next into one msgpack_unpacked: the tree of
//                msgpack_object, msgpack's natural form (strings point into the
//                input). Each call frees the previous zone and allocates a new
//                one, two mallocs (counted with a --wrap=malloc probe of 4.0.0);
//                the zone-reusing msgpack_unpack() is marked obsolete in unpack.h
//   verify       none: unpacking is its only check
#include <msgpack.h>

#include <cstring>
#include <string>

#include "account.h"

namespace peer {

namespace {

void pack_str(msgpack_packer *pk, const std::string &s)
{
    msgpack_pack_str(pk, s.size());
    msgpack_pack_str_body(pk, s.data(), s.size());
}

void pack_balance(msgpack_packer *pk, const Balance &b)
{
    msgpack_pack_array(pk, 2);
    pack_str(pk, b.currency);
    msgpack_pack_double(pk, b.amount);
}

void pack(msgpack_packer *pk, const Account &a)
{
    msgpack_pack_array(pk, 6);
    msgpack_pack_int32(pk, a.id);
    pack_str(pk, a.name);
    msgpack_pack_uint8(pk, a.state);
    pack_balance(pk, a.wallet);
    if (a.has_asset)
        pack_balance(pk, a.asset);
    else
        msgpack_pack_nil(pk);
    msgpack_pack_array(pk, a.orders.size());
    for (const Order &o : a.orders) {
        msgpack_pack_array(pk, 6);
        msgpack_pack_int32(pk, o.id);
        pack_str(pk, o.symbol);
        msgpack_pack_uint8(pk, o.side);
        msgpack_pack_uint8(pk, o.type);
        msgpack_pack_double(pk, o.price);
        msgpack_pack_double(pk, o.volume);
    }
}

// msgpack_object -> Account, for the round-trip check only.
std::string str(const msgpack_object &o)
{
    if (o.type != MSGPACK_OBJECT_STR)
        die("msgpack", "expected a string");
    return std::string(o.via.str.ptr, o.via.str.size);
}

const msgpack_object *fields(const msgpack_object &o, uint32_t n)
{
    if (o.type != MSGPACK_OBJECT_ARRAY || o.via.array.size != n)
        die("msgpack", "unexpected array");
    return o.via.array.ptr;
}

Balance balance(const msgpack_object &o)
{
    const msgpack_object *f = fields(o, 2);
    return {str(f[0]), f[1].via.f64};
}

Account from_msgpack(const msgpack_object &root)
{
    const msgpack_object *f = fields(root, 6);
    Account a;
    a.id = int32_t(f[0].via.u64);
    a.name = str(f[1]);
    a.state = uint8_t(f[2].via.u64);
    a.wallet = balance(f[3]);
    a.has_asset = f[4].type != MSGPACK_OBJECT_NIL;
    if (a.has_asset)
        a.asset = balance(f[4]);
    const msgpack_object &orders = f[5];
    for (uint32_t i = 0; i < orders.via.array.size; i++) {
        const msgpack_object *q = fields(orders.via.array.ptr[i], 6);
        a.orders.push_back({int32_t(q[0].via.u64), str(q[1]), uint8_t(q[2].via.u64),
                            uint8_t(q[3].via.u64), q[4].via.f64, q[5].via.f64});
    }
    return a;
}

struct Fixture {
    std::string bytes;
};

} // namespace

void register_msgpack()
{
    for (Msg m : {Msg::readme, Msg::large}) {
        auto *f = new Fixture; // lives as long as the rows
        const Account &src = account(m);
        msgpack_sbuffer sbuf;
        msgpack_sbuffer_init(&sbuf);
        msgpack_packer pk;
        msgpack_packer_init(&pk, &sbuf, msgpack_sbuffer_write);
        pack(&pk, src);
        f->bytes.assign(sbuf.data, sbuf.size);
        msgpack_sbuffer_destroy(&sbuf);
        msgpack_unpacked back;
        msgpack_unpacked_init(&back);
        size_t off = 0;
        if (msgpack_unpack_next(&back, f->bytes.data(), f->bytes.size(), &off) !=
                MSGPACK_UNPACK_SUCCESS ||
            off != f->bytes.size())
            die("msgpack", "msgpack_unpack_next failed");
        check_round_trip("msgpack", m, from_msgpack(back.data));
        msgpack_unpacked_destroy(&back);
        const size_t size = f->bytes.size();

        add_row(m, "msgpack", "serialize", size, [&src](benchmark::State &state) {
            msgpack_sbuffer out;
            msgpack_sbuffer_init(&out);
            msgpack_packer p;
            msgpack_packer_init(&p, &out, msgpack_sbuffer_write);
            for (auto _ : state) {
                msgpack_sbuffer_clear(&out);
                pack(&p, src);
                benchmark::DoNotOptimize(out.data);
                benchmark::ClobberMemory();
            }
            msgpack_sbuffer_destroy(&out);
        });
        add_row(m, "msgpack", "deserialize", size, [f](benchmark::State &state) {
            msgpack_unpacked out;
            msgpack_unpacked_init(&out);
            for (auto _ : state) {
                size_t pos = 0;
                if (msgpack_unpack_next(&out, f->bytes.data(), f->bytes.size(), &pos) !=
                    MSGPACK_UNPACK_SUCCESS)
                    state.SkipWithError("msgpack_unpack_next failed");
                benchmark::DoNotOptimize(&out);
                benchmark::ClobberMemory();
            }
            msgpack_unpacked_destroy(&out);
        });
    }
}

} // namespace peer
