// C++ users: every public header and a generated header (`fbec c --header`)
// included from one C++17 translation unit (-pedantic), then the README account
// serialized by the static C codec and by the interpreter and compared with the
// reference's bytes and text. Linking proves the C linkage of every
// declaration: without extern "C" the names would be mangled.
#include "fbe_public_headers.h" // every include/fbe/*.h (generated at configure time)
#include "proto.h"              // fbec c examples/proto.fbe --header: structs + codec symbols
#include "readme_account.h"

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

namespace {

int failures = 0;

std::string golden(const char *name)
{
    std::ifstream in(std::string(FBE_SHARED_DIR "/golden/cases/proto/Account/") + name,
                     std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof())
        text.clear();
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
        text.pop_back();
    return text;
}

void expect(bool ok, const char *what)
{
    if (!ok) {
        std::fprintf(stderr, "FAILED: %s\n", what);
        failures++;
    }
}

std::string bytes_of(const fbe_buffer &b)
{
    return std::string(reinterpret_cast<const char *>(b.data), b.size);
}

// Serialize in both models, compare with the reference; decode and print.
void check_codec(const fbe_codec *codec, const proto_Account &account, const char *name)
{
    const fbe_type *type = fbe_codec_type(codec, "proto.Account");
    expect(type != nullptr, name);
    if (!type)
        return;
    const char *files[2] = {"readme.bin", "readme.final.bin"};
    for (int m = 0; m < 2; m++) {
        fbe_model model = m == 0 ? FBE_STANDARD : FBE_FINAL;
        fbe_buffer out, text;
        fbe_buffer_init(&out, nullptr, nullptr);
        fbe_buffer_init(&text, nullptr, nullptr);
        fbe_arena arena;
        fbe_arena_init(&arena, nullptr, nullptr);
        fbe_decode_options options = {};
        options.arena = &arena;
        proto_Account back;
        expect(fbe_serialize(type, model, &account, &out) == FBE_OK, name);
        expect(bytes_of(out) == golden(files[m]), files[m]);
        expect(fbe_deserialize(type, model, out.data, out.size, &back, &options, nullptr) == FBE_OK,
               name);
        expect(fbe_print(type->ir, &back, &text) == FBE_OK, name);
        expect(bytes_of(text) == golden("readme.txt"), "readme.txt");
        std::printf("%s %s: %zu bytes\n", name, m == 0 ? "standard" : "final", out.size);
        fbe_buffer_free(&out);
        fbe_buffer_free(&text);
        fbe_arena_free(&arena);
    }
}

} // namespace

int main()
{
    proto_Account account;
    proto_Balance asset;
    proto_Order orders[3];
    readme_account_init(&account, &asset, orders);

    fbe_status st = FBE_OK;
    fbe_codec *static_codec = fbe_proto_codec_create(&st);
    expect(static_codec && fbe_codec_backend(static_codec) == FBE_BACKEND_STATIC, "static codec");
    if (static_codec)
        check_codec(static_codec, account, "static");

    fbe_schema *schema = fbe_schema_load(FBE_SOURCE_DIR "/examples/proto.fbe", nullptr, nullptr);
    expect(schema != nullptr, "fbe_schema_load");
    // The interpreter: what the JIT would compile takes long under the sanitizers,
    // and linking fbe_jit_available is what this test is about.
    std::printf("JIT available: %s\n", fbe_jit_available() ? "yes" : "no");
    fbe_codec *codec = schema ? fbe_interp_create(schema, nullptr, &st) : nullptr;
    expect(codec != nullptr, fbe_status_name(st));
    if (codec) {
        check_codec(codec, account, fbe_backend_name(fbe_codec_backend(codec)));
        fbe_buffer json;
        fbe_buffer_init(&json, nullptr, nullptr);
        fbe_json_error error;
        expect(fbe_json_write(fbe_codec_type(codec, "proto.Account")->ir, &account, 0, &json,
                              &error) == FBE_OK,
               "fbe_json_write");
        expect(bytes_of(json) == golden("readme.json"), "readme.json");
        fbe_buffer_free(&json);
        fbe_protocol *protocol = fbe_protocol_create(codec, "proto", &st);
        expect(protocol != nullptr, "fbe_protocol_create");
        fbe_protocol_free(protocol);
    }
    fbe_codec_free(codec);
    fbe_codec_free(static_codec);
    fbe_schema_free(schema);
    std::printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
