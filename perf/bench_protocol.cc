// Protocol throughput: messages per second through Sender -> Receiver in memory,
// for proto.AccountMessage holding the README account (the golden `readme`
// Account: 264-byte standard frame, 160-byte final frame), both models, with the
// interpreter and the JIT codec.
//
//   pipeline  every send hands its frame straight to the receiver (the send
//             callback is fbe_receiver_receive): serialize, frame, verify,
//             deserialize, dispatch to a handler, arena reset
//   stream    100 messages accumulate in the sender, then reach the receiver in
//             1460-byte chunks (a TCP segment), so frames straddle chunks
//   noverify  pipeline with FBE_RECEIVE_NO_VERIFY (deserialize's own checks only)
//
// Counter `msgs/s` is the number of messages delivered to the handler per second.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fbe/arena.h"
#include "fbe/buffer.h"
#include "fbe/codec.h"
#include "fbe/jit.h"
#include "fbe/protocol.h"
#include "fbe/schema.h"

namespace {

[[noreturn]] void die(const char *what, const char *detail)
{
    std::fprintf(stderr, "bench_protocol: %s%s%s\n", what, detail ? ": " : "",
                 detail ? detail : "");
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

enum Backend { INTERP = 0, JIT = 1 };

struct Fixture {
    fbe_schema *schema = nullptr;
    fbe_codec *codec[2] = {nullptr, nullptr};
    fbe_protocol *protocol[2] = {nullptr, nullptr};
    fbe_arena arena;
    void *message[2] = {nullptr, nullptr}; // proto.AccountMessage per codec (same layout)
    size_t frame_size[2] = {0, 0};         // per model

    Fixture()
    {
        const char *dir = FBE_SHARED_DIR "/golden";
        std::string schema_path = std::string(dir) + "/schemas/proto.fbe";
        schema = fbe_schema_load(schema_path.c_str(), nullptr, nullptr);
        if (!schema)
            die("cannot load", schema_path.c_str());
        fbe_status st;
        codec[INTERP] = fbe_interp_create(schema, nullptr, &st);
        if (!codec[INTERP])
            die("fbe_interp_create", fbe_strerror(st));
        codec[JIT] = fbe_jit_compile(schema, nullptr, &st);
        if (!codec[JIT])
            die("fbe_jit_compile", fbe_strerror(st));
        std::fprintf(stderr, "bench_protocol: JIT codec backend: %s\n",
                     fbe_backend_name(fbe_codec_backend(codec[JIT])));
        fbe_arena_init(&arena, nullptr, nullptr);
        for (int b = 0; b < 2; b++) {
            protocol[b] = fbe_protocol_create(codec[b], nullptr, &st);
            if (!protocol[b])
                die("fbe_protocol_create", fbe_strerror(st));
            // The README account, decoded from its golden frame, inside a message.
            const fbe_type *account = fbe_codec_type(codec[b], "proto.Account");
            const fbe_type *msg = fbe_protocol_message(protocol[b], "proto.AccountMessage");
            std::vector<uint8_t> frame =
                read_all((std::string(dir) + "/cases/proto/Account/readme.bin").c_str());
            message[b] = fbe_arena_zalloc(&arena, msg->ir->host_size);
            fbe_init(msg->ir, message[b]);
            const fbe_ir_field *body = fbe_field_by_name(msg->ir, "body");
            fbe_decode_options opts = {&arena, 0, 0, 0};
            st = fbe_deserialize(account, FBE_STANDARD, frame.data(), frame.size(),
                                 fbe_field_ptr(message[b], body), &opts, nullptr);
            if (st != FBE_OK)
                die("cannot decode the readme Account", fbe_strerror(st));
            for (int m = 0; m < 2; m++) {
                size_t n = fbe_size(msg, fbe_model(m), message[b]);
                if (frame_size[m] && frame_size[m] != n)
                    die("backends disagree on the frame size", nullptr);
                frame_size[m] = n;
            }
        }
    }
};

Fixture &fixture()
{
    static Fixture f;
    return f;
}

struct Sink {
    fbe_receiver *receiver = nullptr;
    size_t delivered = 0;
};

size_t to_receiver(void *ctx, const uint8_t *data, size_t size)
{
    Sink *s = static_cast<Sink *>(ctx);
    if (fbe_receiver_receive(s->receiver, data, size) != FBE_OK)
        return FBE_SEND_ERROR;
    return size;
}

void count(void *ctx, const fbe_type *, const void *value)
{
    Sink *s = static_cast<Sink *>(ctx);
    benchmark::DoNotOptimize(value);
    s->delivered++;
}

void BM_pipeline(benchmark::State &state, Backend b, fbe_model model, unsigned flags)
{
    Fixture &f = fixture();
    Sink sink;
    fbe_receiver_options ro = {};
    ro.model = model;
    ro.flags = flags;
    ro.ctx = &sink;
    ro.on_message = count;
    sink.receiver = fbe_receiver_create(f.protocol[b], &ro, nullptr);
    fbe_sender_options so = {};
    so.model = model;
    so.send = to_receiver;
    so.send_ctx = &sink;
    fbe_sender *sender = fbe_sender_create(f.protocol[b], &so, nullptr);
    const fbe_type *msg = fbe_protocol_message(f.protocol[b], "proto.AccountMessage");
    for (auto _ : state) {
        fbe_status st = fbe_sender_send(sender, msg, f.message[b], nullptr);
        if (st != FBE_OK)
            state.SkipWithError(fbe_strerror(st));
    }
    if (sink.delivered != size_t(state.iterations()))
        state.SkipWithError("messages lost");
    state.counters["msgs/s"] = benchmark::Counter(double(sink.delivered), benchmark::Counter::kIsRate);
    state.SetBytesProcessed(int64_t(sink.delivered) * int64_t(f.frame_size[model]));
    state.SetLabel(fbe_backend_name(fbe_codec_backend(f.codec[b])));
    fbe_sender_free(sender);
    fbe_receiver_free(sink.receiver);
}

void BM_stream(benchmark::State &state, Backend b, fbe_model model)
{
    Fixture &f = fixture();
    Sink sink;
    fbe_receiver_options ro = {};
    ro.model = model;
    ro.ctx = &sink;
    ro.on_message = count;
    sink.receiver = fbe_receiver_create(f.protocol[b], &ro, nullptr);
    fbe_sender_options so = {};
    so.model = model;
    fbe_sender *sender = fbe_sender_create(f.protocol[b], &so, nullptr);
    const fbe_type *msg = fbe_protocol_message(f.protocol[b], "proto.AccountMessage");
    const size_t BATCH = 100, SEGMENT = 1460;
    for (auto _ : state) {
        for (size_t i = 0; i < BATCH; i++)
            if (fbe_sender_send(sender, msg, f.message[b], nullptr) != FBE_OK)
                state.SkipWithError("send failed");
        size_t n = fbe_sender_pending(sender);
        const uint8_t *d = fbe_sender_data(sender);
        for (size_t off = 0; off < n; off += SEGMENT)
            if (fbe_receiver_receive(sink.receiver, d + off,
                                     n - off < SEGMENT ? n - off : SEGMENT) != FBE_OK)
                state.SkipWithError("receive failed");
        fbe_sender_consume(sender, n);
    }
    if (sink.delivered != size_t(state.iterations()) * BATCH)
        state.SkipWithError("messages lost");
    state.counters["msgs/s"] = benchmark::Counter(double(sink.delivered), benchmark::Counter::kIsRate);
    state.SetBytesProcessed(int64_t(sink.delivered) * int64_t(f.frame_size[model]));
    state.SetLabel(fbe_backend_name(fbe_codec_backend(f.codec[b])));
    fbe_sender_free(sender);
    fbe_receiver_free(sink.receiver);
}

} // namespace

BENCHMARK_CAPTURE(BM_pipeline, interp_standard, INTERP, FBE_STANDARD, 0u);
BENCHMARK_CAPTURE(BM_pipeline, jit_standard, JIT, FBE_STANDARD, 0u);
BENCHMARK_CAPTURE(BM_pipeline, interp_final, INTERP, FBE_FINAL, 0u);
BENCHMARK_CAPTURE(BM_pipeline, jit_final, JIT, FBE_FINAL, 0u);
BENCHMARK_CAPTURE(BM_pipeline, interp_standard_noverify, INTERP, FBE_STANDARD,
                  unsigned(FBE_RECEIVE_NO_VERIFY));
BENCHMARK_CAPTURE(BM_pipeline, jit_standard_noverify, JIT, FBE_STANDARD,
                  unsigned(FBE_RECEIVE_NO_VERIFY));
BENCHMARK_CAPTURE(BM_pipeline, interp_final_noverify, INTERP, FBE_FINAL,
                  unsigned(FBE_RECEIVE_NO_VERIFY));
BENCHMARK_CAPTURE(BM_pipeline, jit_final_noverify, JIT, FBE_FINAL,
                  unsigned(FBE_RECEIVE_NO_VERIFY));
BENCHMARK_CAPTURE(BM_stream, interp_standard, INTERP, FBE_STANDARD);
BENCHMARK_CAPTURE(BM_stream, jit_standard, JIT, FBE_STANDARD);
BENCHMARK_CAPTURE(BM_stream, interp_final, INTERP, FBE_FINAL);
BENCHMARK_CAPTURE(BM_stream, jit_final, JIT, FBE_FINAL);

BENCHMARK_MAIN();
