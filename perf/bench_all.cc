// One run, one binary, same compiler flags: fbe-c's backends and the peers the
// reference FBE README compares against, on the same message (the README account,
// golden case `readme`) and on a large one (the same account with 100,000 orders).
//
// Rows are named "<message>/<system>/<operation>" (message: readme | large) and
// carry a counter "size" (encoded bytes) and bytes_per_second; perf/report.py
// turns the JSON output into docs/performance.md. Operations:
//   serialize    in-memory value -> bytes, into one reused buffer
//   deserialize  bytes -> the library's in-memory value (FBE: host struct, strings
//                copied into one reused arena, reset each time)
//   verify       bytes -> "safe to read" (only libraries that have it)
// perf/peers/bench_*.cc say what each of those is for their library.
//
// JSON rows (system fbe_json): the README account to and from the reference's
// JSON text, the counterpart of the RapidJSON row. JSON is written and read by
// reflection over the IR, the same code whichever backend made the value, so
// there is one row, not one per backend. serialize writes compact JSON into one
// reused buffer; deserialize reads it with one reused reader into a host value
// (strings and the orders in one reused arena, reset each time).
//
// FBE rows: each backend (interp; jit with the host CPU; aot and static when
// perf/CMakeLists.txt links their code for proto.fbe) x model (standard, final). Every backend must write the golden bytes of the README
// account, and the same bytes as the interpreter for the large one, before
// anything is timed.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_all_host.h"
#include "fbe/arena.h"
#include "fbe/buffer.h"
#include "fbe/codec.h"
#include "fbe/jit.h"
#include "fbe/json.h"
#include "fbe/schema.h"
#include "peers/account.h"

namespace {

using peer::Msg;

std::vector<uint8_t> read_all(const std::string &path)
{
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        peer::die("cannot open", path.c_str());
    std::vector<uint8_t> data;
    uint8_t chunk[4096];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0)
        data.insert(data.end(), chunk, chunk + n);
    std::fclose(f);
    return data;
}

std::vector<uint8_t> serialize(const fbe_type *t, fbe_model m, const void *value)
{
    fbe_buffer buf;
    fbe_buffer_init(&buf, nullptr, nullptr);
    fbe_status st = fbe_serialize(t, m, value, &buf);
    if (st != FBE_OK)
        peer::die("fbe_serialize", fbe_strerror(st));
    std::vector<uint8_t> out(buf.data, buf.data + buf.size);
    fbe_buffer_free(&buf);
    return out;
}

const char *model_name(fbe_model m)
{
    return m == FBE_STANDARD ? "standard" : "final";
}

struct Backend {
    const char *name; // row name part: fbe_<name>_<model>
    fbe_codec *codec;
    const fbe_type *account;
};

// Everything the FBE rows read; built once, never freed (the process ends).
struct Fbe {
    fbe_schema *schema = nullptr;
    const void *value[2] = {nullptr, nullptr};  // host proto.Account, by Msg
    std::vector<uint8_t> frame[2][2];           // [Msg][fbe_model]
    std::vector<Backend> backends;

    void add_backend(const char *name, fbe_codec *codec)
    {
        const fbe_type *t = fbe_codec_type(codec, "proto.Account");
        if (!t)
            peer::die(name, "no proto.Account");
        if (t->ir->host_size != fbe_bench_host_account_size())
            peer::die(name, "proto.Account host size differs from the generated header");
        for (int m = 0; m < 2; m++) {
            fbe_model model = fbe_model(m);
            for (int g = 0; g < 2; g++) {
                if (serialize(t, model, value[g]) != frame[g][m])
                    peer::die(name, g ? "serialize of the large account differs from the interpreter"
                                      : "serialize does not reproduce the golden readme bytes");
                const std::vector<uint8_t> &f = frame[g][m];
                fbe_status st = fbe_verify(t, model, f.data(), f.size(), nullptr);
                if (st != FBE_OK)
                    peer::die(name, fbe_strerror(st));
                // Decoding and writing again must give the same bytes.
                fbe_arena arena;
                fbe_arena_init(&arena, nullptr, nullptr);
                void *v = fbe_arena_zalloc(&arena, t->ir->host_size);
                fbe_decode_options opts = {&arena, 0, 0, 0};
                st = fbe_deserialize(t, model, f.data(), f.size(), v, &opts, nullptr);
                if (st != FBE_OK || serialize(t, model, v) != f)
                    peer::die(name, "deserialize does not round-trip");
                fbe_arena_free(&arena);
            }
        }
        backends.push_back({name, codec, t});
    }

    Fbe()
    {
        const std::string dir = FBE_SHARED_DIR "/golden";
        const std::string schema_path = dir + "/schemas/proto.fbe";
        schema = fbe_schema_load(schema_path.c_str(), nullptr, nullptr);
        if (!schema)
            peer::die("cannot load", schema_path.c_str());
        value[int(Msg::readme)] = fbe_bench_host_account(3);
        value[int(Msg::large)] = fbe_bench_host_account(peer::kLargeOrders);
        if (!value[0] || !value[1])
            peer::die("fbe", "out of memory");
        const std::string base = dir + "/cases/proto/Account/readme";
        frame[int(Msg::readme)][FBE_STANDARD] = read_all(base + ".bin");
        frame[int(Msg::readme)][FBE_FINAL] = read_all(base + ".final.bin");

        fbe_status st;
        fbe_codec *interp = fbe_interp_create(schema, nullptr, &st);
        if (!interp)
            peer::die("fbe_interp_create", fbe_strerror(st));
        // The large frames have no golden file: the interpreter's are the reference.
        const fbe_type *t = fbe_codec_type(interp, "proto.Account");
        for (int m = 0; m < 2; m++)
            frame[int(Msg::large)][m] = serialize(t, fbe_model(m), value[int(Msg::large)]);
        add_backend("interp", interp);

        // Default options: the host CPU and its features, optimization level 2.
        fbe_codec *jit = fbe_jit_compile(schema, nullptr, &st);
        if (!jit)
            peer::die("fbe_jit_compile", fbe_strerror(st));
        if (fbe_codec_backend(jit) == FBE_BACKEND_JIT)
            add_backend("jit", jit);
        else
            std::fprintf(stderr, "bench_all: the JIT fell back to %s: no jit rows\n",
                         fbe_backend_name(fbe_codec_backend(jit)));

        // Rows of backends linked in at build time; skipped when absent.
        if (fbe_codec *aot = fbe_bench_aot_codec(&st))
            add_backend("aot", aot);
        else
            std::fprintf(stderr, "bench_all: no aot rows (%s)\n", fbe_strerror(st));
        if (fbe_codec *stat = fbe_bench_static_codec(&st))
            add_backend("static", stat);
    }
};

void fbe_serialize_loop(benchmark::State &state, const fbe_type *t, fbe_model m, const void *v)
{
    fbe_buffer buf;
    fbe_buffer_init(&buf, nullptr, nullptr);
    for (auto _ : state) {
        fbe_buffer_clear(&buf);
        fbe_status st = fbe_serialize(t, m, v, &buf);
        if (st != FBE_OK)
            state.SkipWithError(fbe_strerror(st));
        benchmark::DoNotOptimize(buf.data);
        benchmark::ClobberMemory();
    }
    fbe_buffer_free(&buf);
}

void fbe_deserialize_loop(benchmark::State &state, const fbe_type *t, fbe_model m,
                          const std::vector<uint8_t> &frame)
{
    fbe_arena arena;
    fbe_arena_init(&arena, nullptr, nullptr);
    fbe_arena value_mem; // the host struct itself, outside the arena being reset
    fbe_arena_init(&value_mem, nullptr, nullptr);
    void *v = fbe_arena_zalloc(&value_mem, t->ir->host_size);
    fbe_decode_options opts = {&arena, 0, 0, 0};
    for (auto _ : state) {
        fbe_arena_reset(&arena);
        fbe_status st = fbe_deserialize(t, m, frame.data(), frame.size(), v, &opts, nullptr);
        if (st != FBE_OK)
            state.SkipWithError(fbe_strerror(st));
        benchmark::DoNotOptimize(v);
        benchmark::ClobberMemory();
    }
    fbe_arena_free(&arena);
    fbe_arena_free(&value_mem);
}

void fbe_verify_loop(benchmark::State &state, const fbe_type *t, fbe_model m,
                     const std::vector<uint8_t> &frame)
{
    for (auto _ : state) {
        fbe_status st = fbe_verify(t, m, frame.data(), frame.size(), nullptr);
        if (st != FBE_OK)
            state.SkipWithError(fbe_strerror(st));
        benchmark::DoNotOptimize(st);
    }
}

std::string json_text(const fbe_type *t, const void *value)
{
    fbe_buffer buf;
    fbe_buffer_init(&buf, nullptr, nullptr);
    fbe_json_error err;
    if (fbe_json_write(t->ir, value, 0, &buf, &err) != FBE_OK)
        peer::die("fbe_json_write", err.message);
    std::string text(reinterpret_cast<const char *>(buf.data), buf.size);
    fbe_buffer_free(&buf);
    return text;
}

void fbe_to_json_loop(benchmark::State &state, const fbe_type *t, const void *v)
{
    fbe_buffer buf;
    fbe_buffer_init(&buf, nullptr, nullptr);
    for (auto _ : state) {
        fbe_buffer_clear(&buf);
        fbe_status st = fbe_json_write(t->ir, v, 0, &buf, nullptr);
        if (st != FBE_OK)
            state.SkipWithError(fbe_strerror(st));
        benchmark::DoNotOptimize(buf.data);
        benchmark::ClobberMemory();
    }
    fbe_buffer_free(&buf);
}

void fbe_from_json_loop(benchmark::State &state, const fbe_type *t, const std::string &text)
{
    fbe_json_reader *reader = fbe_json_reader_new();
    if (!reader)
        peer::die("fbe_json_reader_new", "out of memory");
    fbe_arena arena;
    fbe_arena_init(&arena, nullptr, nullptr);
    std::vector<uint8_t> value(t->ir->host_size);
    fbe_json_read_options opts = {};
    opts.arena = &arena;
    for (auto _ : state) {
        fbe_arena_reset(&arena);
        fbe_status st = fbe_json_read(reader, t->ir, text.data(), text.size(), value.data(), &opts,
                                      nullptr);
        if (st != FBE_OK)
            state.SkipWithError(fbe_strerror(st));
        benchmark::DoNotOptimize(value.data());
        benchmark::ClobberMemory();
    }
    fbe_arena_free(&arena);
    fbe_json_reader_free(reader);
}

// Before anything is timed: the README account's JSON is the golden text, and
// reading each text back gives a value that serializes to the same frame.
void register_json(const Fbe &fbe)
{
    const fbe_type *t = fbe.backends.front().account;
    const std::string golden = FBE_SHARED_DIR "/golden/cases/proto/Account/readme.json";
    for (Msg g : {Msg::readme, Msg::large}) {
        auto *text = new std::string(json_text(t, fbe.value[int(g)])); // lives as long as the rows
        if (g == Msg::readme) {
            std::vector<uint8_t> expected = read_all(golden);
            if (*text != std::string(expected.begin(), expected.end()))
                peer::die("fbe_json", "the JSON differs from the golden readme.json");
        }
        fbe_json_reader *reader = fbe_json_reader_new();
        fbe_arena arena;
        fbe_arena_init(&arena, nullptr, nullptr);
        void *back = fbe_arena_zalloc(&arena, t->ir->host_size);
        fbe_json_read_options opts = {};
        opts.arena = &arena;
        fbe_json_error err;
        if (!reader || !back ||
            fbe_json_read(reader, t->ir, text->data(), text->size(), back, &opts, &err) != FBE_OK)
            peer::die("fbe_json_read", reader && back ? err.message : "out of memory");
        if (serialize(t, FBE_STANDARD, back) != fbe.frame[int(g)][FBE_STANDARD])
            peer::die("fbe_json", "the JSON does not read back to the same value");
        fbe_arena_free(&arena);
        fbe_json_reader_free(reader);
        peer::add_row(g, "fbe_json", "serialize", text->size(),
                      [t, &fbe, g](benchmark::State &s) { fbe_to_json_loop(s, t, fbe.value[int(g)]); });
        peer::add_row(g, "fbe_json", "deserialize", text->size(),
                      [t, text](benchmark::State &s) { fbe_from_json_loop(s, t, *text); });
    }
}

void register_fbe()
{
    static Fbe fbe; // outlives every row
    for (Msg g : {Msg::readme, Msg::large}) {
        for (const Backend &b : fbe.backends) {
            for (fbe_model m : {FBE_STANDARD, FBE_FINAL}) {
                const std::string system = std::string("fbe_") + b.name + "_" + model_name(m);
                const std::vector<uint8_t> &frame = fbe.frame[int(g)][m];
                const void *v = fbe.value[int(g)];
                const fbe_type *t = b.account;
                peer::add_row(g, system, "serialize", frame.size(),
                              [t, m, v](benchmark::State &s) { fbe_serialize_loop(s, t, m, v); });
                peer::add_row(g, system, "deserialize", frame.size(),
                              [t, m, &frame](benchmark::State &s) {
                                  fbe_deserialize_loop(s, t, m, frame);
                              });
                peer::add_row(g, system, "verify", frame.size(),
                              [t, m, &frame](benchmark::State &s) {
                                  fbe_verify_loop(s, t, m, frame);
                              });
            }
        }
    }
    register_json(fbe);
}

} // namespace

int main(int argc, char **argv)
{
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    // Read back by perf/report.py for the doc's "how it was built".
    benchmark::AddCustomContext("fbe_cxx_compiler", FBE_BENCH_CXX_COMPILER);
    benchmark::AddCustomContext("fbe_c_compiler", FBE_BENCH_C_COMPILER);
    benchmark::AddCustomContext("fbe_build_flags", FBE_BENCH_FLAGS);
    benchmark::AddCustomContext("fbe_peers", FBE_BENCH_PEERS);
    benchmark::AddCustomContext("fbe_large_orders", std::to_string(peer::kLargeOrders));

    register_fbe();
#ifdef FBE_BENCH_PEER_PROTOBUF
    peer::register_protobuf();
#endif
#ifdef FBE_BENCH_PEER_PROTOBUF_C
    peer::register_protobuf_c();
#endif
#ifdef FBE_BENCH_PEER_FLATBUFFERS
    peer::register_flatbuffers();
#endif
#ifdef FBE_BENCH_PEER_CAPNP
    peer::register_capnp();
#endif
#ifdef FBE_BENCH_PEER_MSGPACK
    peer::register_msgpack();
#endif
#ifdef FBE_BENCH_PEER_RAPIDJSON
    peer::register_rapidjson();
#endif
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
