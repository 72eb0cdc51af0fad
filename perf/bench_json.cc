// JSON speed on the golden proto.Account `readme` value (the target:
// the reference's rapidjson code takes 727 ns to JSON and 1,219 ns from JSON,
// parse included, on this machine):
//   to_json        host value -> compact JSON, into one reused buffer
//   to_json_pretty the same, indented
//   from_json      JSON text -> host value with one reused reader; strings,
//                  collections and optional structs in one reused arena
//                  (fbe_arena_reset each time); parse included
//   parse_simdjson what from_json spends parsing (simdjson's DOM, whose tape the
//                  reader walks in place)
//   parse_nodes    the same parse copied into the flat node array (the tests'
//                  JSON comparison uses it; the reader did until the tape walk)
//   parse_jansson  jansson's json_loadb of the same text, for the choice of
//                  parser (built only when libjansson-dev is installed)
// The value comes from deserializing the golden standard frame once.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fbe/codec.h"
#include "fbe/json.h"
#include "fbe/schema.h"
#include "json_internal.h"

#ifdef FBE_BENCH_JANSSON
#include <jansson.h>
#endif

namespace {

[[noreturn]] void die(const char *what, const char *detail)
{
    std::fprintf(stderr, "bench_json: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    std::exit(1);
}

std::vector<uint8_t> read_all(const std::string &path)
{
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        die("cannot open", path.c_str());
    std::vector<uint8_t> data;
    uint8_t chunk[4096];
    size_t n;
    while ((n = std::fread(chunk, 1, sizeof chunk, f)) > 0)
        data.insert(data.end(), chunk, chunk + n);
    std::fclose(f);
    return data;
}

struct Fixture {
    fbe_schema *schema = nullptr;
    fbe_codec *codec = nullptr;
    const fbe_type *type = nullptr;
    fbe_arena arena;
    void *value = nullptr;
    std::string json; // the golden readme.json

    Fixture()
    {
        std::string dir = FBE_SHARED_DIR "/golden";
        schema = fbe_schema_load((dir + "/schemas/proto.fbe").c_str(), nullptr, nullptr);
        if (!schema)
            die("cannot load proto.fbe", nullptr);
        fbe_status st;
        codec = fbe_interp_create(schema, nullptr, &st);
        if (!codec)
            die("cannot create the codec", fbe_strerror(st));
        type = fbe_codec_type(codec, "proto.Account");
        std::vector<uint8_t> frame = read_all(dir + "/cases/proto/Account/readme.bin");
        std::vector<uint8_t> text = read_all(dir + "/cases/proto/Account/readme.json");
        json.assign(text.begin(), text.end());
        fbe_arena_init(&arena, nullptr, nullptr);
        value = fbe_arena_zalloc(&arena, type->ir->host_size);
        fbe_decode_options o = {&arena, 0, 0, 0};
        if (fbe_deserialize(type, FBE_STANDARD, frame.data(), frame.size(), value, &o, nullptr) != FBE_OK)
            die("cannot decode readme.bin", nullptr);
        // the benchmark's own output must be the golden text
        fbe_buffer out;
        fbe_buffer_init(&out, nullptr, nullptr);
        if (fbe_json_write(type->ir, value, 0, &out, nullptr) != FBE_OK ||
            std::string(reinterpret_cast<char *>(out.data), out.size) != json)
            die("to_json does not reproduce readme.json", nullptr);
        fbe_buffer_free(&out);
    }
};

Fixture &fx()
{
    static Fixture f;
    return f;
}

void to_json(benchmark::State &state, unsigned flags)
{
    Fixture &f = fx();
    fbe_buffer out;
    fbe_buffer_init(&out, nullptr, nullptr);
    for (auto _ : state) {
        fbe_buffer_clear(&out);
        if (fbe_json_write(f.type->ir, f.value, flags, &out, nullptr) != FBE_OK)
            state.SkipWithError("write failed");
        benchmark::DoNotOptimize(out.data);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * out.size));
    fbe_buffer_free(&out);
}

void BM_to_json(benchmark::State &state) { to_json(state, 0); }
void BM_to_json_pretty(benchmark::State &state) { to_json(state, FBE_JSON_PRETTY); }

void BM_from_json(benchmark::State &state)
{
    Fixture &f = fx();
    fbe_json_reader *rd = fbe_json_reader_new();
    fbe_arena arena;
    fbe_arena_init(&arena, nullptr, nullptr);
    std::vector<uint8_t> value(f.type->ir->host_size);
    fbe_json_read_options o = {&arena, 0, 0};
    for (auto _ : state) {
        fbe_arena_reset(&arena);
        if (fbe_json_read(rd, f.type->ir, f.json.data(), f.json.size(), value.data(), &o, nullptr) != FBE_OK)
            state.SkipWithError("read failed");
        benchmark::DoNotOptimize(value.data());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * f.json.size()));
    fbe_arena_free(&arena);
    fbe_json_reader_free(rd);
}

void BM_parse_simdjson(benchmark::State &state)
{
    Fixture &f = fx();
    fbe_jparser *p = fbe_jparser_new();
    for (auto _ : state) {
        fbe_jtape tape;
        const char *msg;
        if (fbe_jparser_parse_tape(p, f.json.data(), f.json.size(), &tape, &msg) != 0)
            state.SkipWithError(msg);
        benchmark::DoNotOptimize(tape.tape);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * f.json.size()));
    fbe_jparser_free(p);
}

void BM_parse_nodes(benchmark::State &state)
{
    Fixture &f = fx();
    fbe_jparser *p = fbe_jparser_new();
    for (auto _ : state) {
        const fbe_jnode *nodes;
        size_t count;
        const char *msg;
        if (fbe_jparser_parse(p, f.json.data(), f.json.size(), &nodes, &count, &msg) != 0)
            state.SkipWithError(msg);
        benchmark::DoNotOptimize(nodes);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * f.json.size()));
    fbe_jparser_free(p);
}

#ifdef FBE_BENCH_JANSSON
void BM_parse_jansson(benchmark::State &state)
{
    Fixture &f = fx();
    for (auto _ : state) {
        json_error_t err;
        json_t *root = json_loadb(f.json.data(), f.json.size(), 0, &err);
        if (!root)
            state.SkipWithError(err.text);
        benchmark::DoNotOptimize(root);
        json_decref(root);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * f.json.size()));
}
BENCHMARK(BM_parse_jansson);
#endif

BENCHMARK(BM_to_json);
BENCHMARK(BM_to_json_pretty);
BENCHMARK(BM_from_json);
BENCHMARK(BM_parse_simdjson);
BENCHMARK(BM_parse_nodes);

} // namespace

BENCHMARK_MAIN();
