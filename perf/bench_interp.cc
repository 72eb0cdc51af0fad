// Interpreter throughput on the golden proto.Account `readme` value (the README
// example: 252 bytes standard, 152 bytes final), both models:
//   serialize    host value -> bytes, into one reused buffer (cleared each time)
//   deserialize  bytes -> host value, strings copied into one reused arena
//                (fbe_arena_reset each time)
//   verify       bytes -> FBE_OK
// The host value comes from deserializing the golden standard frame once, so no
// generated header is needed. Bytes processed are the frame's size.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fbe/arena.h"
#include "fbe/buffer.h"
#include "fbe/codec.h"
#include "fbe/schema.h"

namespace {

[[noreturn]] void die(const char *what, const char *detail)
{
    std::fprintf(stderr, "bench_interp: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    std::exit(1);
}

std::vector<uint8_t> read_all(const char *path)
{
    std::FILE *f = std::fopen(path, "rb");
    if (!f)
        die("cannot open", path);
    std::vector<uint8_t> data;
    uint8_t chunk[4096];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0)
        data.insert(data.end(), chunk, chunk + n);
    std::fclose(f);
    return data;
}

// Loaded once, shared by every benchmark, never freed (the process ends).
struct Fixture {
    fbe_schema *schema = nullptr;
    fbe_codec *codec = nullptr;
    const fbe_type *type = nullptr;
    std::vector<uint8_t> frame[2]; // indexed by fbe_model
    fbe_arena value_arena;
    void *value = nullptr;         // the decoded readme Account

    Fixture()
    {
        const char *dir = FBE_SHARED_DIR "/golden";
        std::string schema_path = std::string(dir) + "/schemas/proto.fbe";
        schema = fbe_schema_load(schema_path.c_str(), nullptr, nullptr);
        if (!schema)
            die("cannot load", schema_path.c_str());
        fbe_status st;
        codec = fbe_interp_create(schema, nullptr, &st);
        if (!codec)
            die("fbe_interp_create", fbe_strerror(st));
        type = fbe_codec_type(codec, "proto.Account");
        if (!type)
            die("no type", "proto.Account");
        std::string base = std::string(dir) + "/cases/proto/Account/readme";
        frame[FBE_STANDARD] = read_all((base + ".bin").c_str());
        frame[FBE_FINAL] = read_all((base + ".final.bin").c_str());
        fbe_arena_init(&value_arena, nullptr, nullptr);
        value = fbe_arena_alloc(&value_arena, type->ir->host_size);
        fbe_decode_options opts = {&value_arena, 0, 0, 0};
        const std::vector<uint8_t> &f = frame[FBE_STANDARD];
        st = fbe_deserialize(type, FBE_STANDARD, f.data(), f.size(), value, &opts, nullptr);
        if (st != FBE_OK)
            die("cannot decode the readme Account", fbe_strerror(st));
        // Both models must reproduce the golden bytes, or the numbers mean nothing.
        for (int m = 0; m < 2; m++) {
            fbe_buffer buf;
            fbe_buffer_init(&buf, nullptr, nullptr);
            st = fbe_serialize(type, fbe_model(m), value, &buf);
            if (st != FBE_OK || buf.size != frame[m].size() ||
                std::memcmp(buf.data, frame[m].data(), buf.size) != 0)
                die("serialize does not reproduce the golden bytes of model",
                    m ? "final" : "standard");
            fbe_buffer_free(&buf);
        }
    }
};

const Fixture &fixture()
{
    static Fixture f;
    return f;
}

void BM_serialize(benchmark::State &state, fbe_model model)
{
    const Fixture &f = fixture();
    fbe_buffer buf;
    fbe_buffer_init(&buf, nullptr, nullptr);
    for (auto _ : state) {
        fbe_buffer_clear(&buf);
        fbe_status st = fbe_serialize(f.type, model, f.value, &buf);
        if (st != FBE_OK)
            state.SkipWithError(fbe_strerror(st));
        benchmark::DoNotOptimize(buf.data);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(f.frame[model].size()));
    fbe_buffer_free(&buf);
}

void BM_deserialize(benchmark::State &state, fbe_model model)
{
    const Fixture &f = fixture();
    const std::vector<uint8_t> &frame = f.frame[model];
    fbe_arena arena;
    fbe_arena_init(&arena, nullptr, nullptr);
    fbe_arena value_mem; // one aligned host struct, outside the arena being reset
    fbe_arena_init(&value_mem, nullptr, nullptr);
    void *v = fbe_arena_alloc(&value_mem, f.type->ir->host_size);
    fbe_decode_options opts = {&arena, 0, 0, 0};
    for (auto _ : state) {
        fbe_arena_reset(&arena);
        fbe_status st = fbe_deserialize(f.type, model, frame.data(), frame.size(), v, &opts,
                                        nullptr);
        if (st != FBE_OK)
            state.SkipWithError(fbe_strerror(st));
        benchmark::DoNotOptimize(v);
        benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(frame.size()));
    fbe_arena_free(&arena);
    fbe_arena_free(&value_mem);
}

void BM_verify(benchmark::State &state, fbe_model model)
{
    const Fixture &f = fixture();
    const std::vector<uint8_t> &frame = f.frame[model];
    for (auto _ : state) {
        fbe_status st = fbe_verify(f.type, model, frame.data(), frame.size(), nullptr);
        if (st != FBE_OK)
            state.SkipWithError(fbe_strerror(st));
        benchmark::DoNotOptimize(st);
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(frame.size()));
}

} // namespace

BENCHMARK_CAPTURE(BM_serialize, standard, FBE_STANDARD);
BENCHMARK_CAPTURE(BM_serialize, final, FBE_FINAL);
BENCHMARK_CAPTURE(BM_deserialize, standard, FBE_STANDARD);
BENCHMARK_CAPTURE(BM_deserialize, final, FBE_FINAL);
BENCHMARK_CAPTURE(BM_verify, standard, FBE_STANDARD);
BENCHMARK_CAPTURE(BM_verify, final, FBE_FINAL);

BENCHMARK_MAIN();
