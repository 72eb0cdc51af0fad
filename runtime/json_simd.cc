// The only C++ of fbe-c's JSON support: a thin C API (runtime/json_internal.h)
// over two standard pieces that C lacks.
//
//  * Parsing: simdjson (Debian libsimdjson-dev), DOM API. The document is parsed
//    with SIMD validation (structure, UTF-8, numbers); the C reader walks
//    simdjson's tape in place (fbe_jparser_parse_tape), and fbe_jparser_parse
//    copies it into a flat node array for the tests' JSON comparison. Chosen by
//    measurement over jansson and over On-Demand: docs/json.md.
//  * Shortest round-trip digits of a double: std::to_chars (C++17; libstdc++
//    implements it with the Ryu algorithm), instead of hand-written digit
//    generation or a printf("%.17g") search.
//
// No exception escapes: simdjson is used through its error-code API and memory
// comes from malloc.
#include "json_internal.h"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>
#include <system_error>

#include <simdjson.h>

// simdjson 3's DOM tape has the layout json_internal.h describes (fbe_jtape).
// Building with -DFBE_JSON_NATIVE_TAPE=0 exercises the other versions' path.
#ifndef FBE_JSON_NATIVE_TAPE
#define FBE_JSON_NATIVE_TAPE (simdjson::SIMDJSON_VERSION_MAJOR == 3)
#endif

struct fbe_jparser {
    simdjson::dom::parser parser;
    // A tape of the same layout built from dom::element, for simdjson versions
    // whose DOM tape this code does not know (own_tape_of below).
    uint64_t *own_tape = nullptr;
    size_t own_tape_n = 0, own_tape_cap = 0;
    uint8_t *own_strings = nullptr;
    size_t own_strings_n = 0, own_strings_cap = 0;
    fbe_jnode *nodes = nullptr;
    size_t count = 0;
    size_t cap = 0;
    bool nomem = false;
};

namespace {

// Index of a fresh node, or SIZE_MAX when out of memory.
[[maybe_unused]] size_t push(fbe_jparser *p)
{
    if (p->count == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 256;
        if (cap > UINT32_MAX) {
            p->nomem = true;
            return SIZE_MAX;
        }
        void *grown = std::realloc(p->nodes, cap * sizeof(fbe_jnode));
        if (!grown) {
            p->nomem = true;
            return SIZE_MAX;
        }
        p->nodes = static_cast<fbe_jnode *>(grown);
        p->cap = cap;
    }
    fbe_jnode *n = &p->nodes[p->count];
    std::memset(n, 0, sizeof *n);
    return p->count++;
}

[[maybe_unused]] void set_string(fbe_jnode *n, std::string_view s)
{
    n->type = FBE_JN_STRING;
    n->v.s.p = s.data();
    n->v.s.n = s.size();
}

// Depth is bounded by the parser's max_depth (simdjson refuses deeper documents).
[[maybe_unused]] bool emit(fbe_jparser *p, simdjson::dom::element e)
{
    using simdjson::dom::element_type;
    size_t idx = push(p);
    if (idx == SIZE_MAX)
        return false;
    uint32_t count = 0;
    uint8_t type = FBE_JN_NULL;
    switch (e.type()) {
    case element_type::ARRAY: {
        type = FBE_JN_ARRAY;
        simdjson::dom::array arr;
        if (e.get(arr) != simdjson::SUCCESS)
            return false;
        for (simdjson::dom::element child : arr) {
            if (!emit(p, child))
                return false;
            count++;
        }
        break;
    }
    case element_type::OBJECT: {
        type = FBE_JN_OBJECT;
        simdjson::dom::object obj;
        if (e.get(obj) != simdjson::SUCCESS)
            return false;
        for (simdjson::dom::key_value_pair kv : obj) {
            size_t k = push(p);
            if (k == SIZE_MAX)
                return false;
            set_string(&p->nodes[k], kv.key);
            p->nodes[k].next = static_cast<uint32_t>(k + 1);
            if (!emit(p, kv.value))
                return false;
            count++;
        }
        break;
    }
    case element_type::INT64: {
        type = FBE_JN_INT64;
        int64_t v = 0;
        if (e.get(v) != simdjson::SUCCESS)
            return false;
        p->nodes[idx].v.i = v;
        break;
    }
    case element_type::UINT64: {
        type = FBE_JN_UINT64;
        uint64_t v = 0;
        if (e.get(v) != simdjson::SUCCESS)
            return false;
        p->nodes[idx].v.u = v;
        break;
    }
    case element_type::DOUBLE: {
        type = FBE_JN_DOUBLE;
        double v = 0;
        if (e.get(v) != simdjson::SUCCESS)
            return false;
        p->nodes[idx].v.d = v;
        break;
    }
    case element_type::STRING: {
        std::string_view s;
        if (e.get(s) != simdjson::SUCCESS)
            return false;
        set_string(&p->nodes[idx], s);
        type = FBE_JN_STRING;
        break;
    }
    case element_type::BOOL: {
        bool b = false;
        if (e.get(b) != simdjson::SUCCESS)
            return false;
        type = b ? FBE_JN_TRUE : FBE_JN_FALSE;
        break;
    }
    case element_type::NULL_VALUE:
        type = FBE_JN_NULL;
        break;
    }
    fbe_jnode *n = &p->nodes[idx];
    n->type = type;
    n->count = count;
    n->next = static_cast<uint32_t>(p->count);
    return true;
}


// simdjson 3's DOM tape (simdjson doc/tape.md): one 64-bit word per value, the
// type in the top byte; containers hold the index after their end (low 32 bits)
// and their element count (bits 32..55, saturated); strings an offset into the
// string buffer (u32 length, bytes, NUL); numbers their value in the next word.
// Reading it directly is about four times faster than through dom::element.
// Other major versions use the element walk above.

// Count of a container whose tape count saturated (more than 0xFFFFFF elements).
uint32_t slow_count(const fbe_jnode *nodes, size_t idx)
{
    uint32_t count = 0;
    size_t end = nodes[idx].next;
    bool object = nodes[idx].type == FBE_JN_OBJECT;
    for (size_t j = idx + 1; j < end; count++)
        j = object ? nodes[j + 1].next : nodes[j].next;
    return count;
}

bool from_tape(fbe_jparser *p, const simdjson::dom::document &doc)
{
    const uint64_t *tape = doc.tape.get();
    const uint8_t *strings = doc.string_buf.get();
    size_t end = (tape[0] & 0x00FFFFFFFFFFFFFFu) - 1; // the closing root word
    // every node takes at least one tape word: one reservation is enough
    if (end > p->cap) {
        if (end > UINT32_MAX)
            return false;
        void *grown = std::realloc(p->nodes, end * sizeof(fbe_jnode));
        if (!grown)
            return false;
        p->nodes = static_cast<fbe_jnode *>(grown);
        p->cap = end;
    }
    fbe_jnode *nodes = p->nodes;
    uint32_t open[simdjson::DEFAULT_MAX_DEPTH + 2];
    size_t depth = 0;
    size_t n = 0;
    for (size_t i = 1; i < end;) {
        uint64_t w = tape[i];
        fbe_jnode *node = &nodes[n];
        // Strings (keys included) are half the words of a typical document:
        // tested before the jump table, which costs more than one compare.
        if ((w >> 56) == '"') {
            const uint8_t *at = strings + (w & 0x00FFFFFFFFFFFFFFu);
            uint32_t len;
            std::memcpy(&len, at, sizeof len);
            node->type = FBE_JN_STRING;
            node->count = 0;
            node->next = static_cast<uint32_t>(++n);
            node->v.s.p = reinterpret_cast<const char *>(at + sizeof len);
            node->v.s.n = len;
            i++;
            continue;
        }
        switch (static_cast<char>(w >> 56)) {
        case '{':
        case '[':
            node->type = (w >> 56) == '{' ? FBE_JN_OBJECT : FBE_JN_ARRAY;
            node->count = static_cast<uint32_t>((w >> 32) & 0xFFFFFF);
            if (depth > simdjson::DEFAULT_MAX_DEPTH)
                return false;
            open[depth++] = static_cast<uint32_t>(n++);
            i++;
            continue;
        case '}':
        case ']': {
            uint32_t at = open[--depth];
            nodes[at].next = static_cast<uint32_t>(n);
            if (nodes[at].count == 0xFFFFFF)
                nodes[at].count = slow_count(nodes, at);
            i++;
            continue;
        }
        case 'l':
            node->type = FBE_JN_INT64;
            std::memcpy(&node->v.i, &tape[i + 1], 8);
            i += 2;
            break;
        case 'u':
            node->type = FBE_JN_UINT64;
            node->v.u = tape[i + 1];
            i += 2;
            break;
        case 'd':
            node->type = FBE_JN_DOUBLE;
            std::memcpy(&node->v.d, &tape[i + 1], 8);
            i += 2;
            break;
        case 't':
            node->type = FBE_JN_TRUE;
            i++;
            break;
        case 'f':
            node->type = FBE_JN_FALSE;
            i++;
            break;
        case 'n':
            node->type = FBE_JN_NULL;
            i++;
            break;
        default:
            return false; // not a tape this code knows
        }
        node->count = 0;
        node->next = static_cast<uint32_t>(++n);
    }
    if (depth != 0)
        return false;
    p->count = n;
    return true;
}


// ---- a tape for other simdjson versions -------------------------------------------------
//
// simdjson 3's tape is what fbe_jparser_parse_tape hands out. For another major
// version, whose tape layout may differ, the same layout is written here from the
// public dom::element API (slower, and only ever used there).

template <typename T> bool grow(T *&buf, size_t &cap, size_t need)
{
    if (need <= cap)
        return true;
    size_t n = cap ? cap : 256;
    while (n < need)
        n *= 2;
    void *g = std::realloc(buf, n * sizeof(T));
    if (!g)
        return false;
    buf = static_cast<T *>(g);
    cap = n;
    return true;
}

bool put_word(fbe_jparser *p, uint64_t w)
{
    if (!grow(p->own_tape, p->own_tape_cap, p->own_tape_n + 1))
        return false;
    p->own_tape[p->own_tape_n++] = w;
    return true;
}

bool put_string(fbe_jparser *p, std::string_view s)
{
    if (s.size() > UINT32_MAX || !grow(p->own_strings, p->own_strings_cap, p->own_strings_n + 5 + s.size()))
        return false;
    uint8_t *at = p->own_strings + p->own_strings_n;
    uint32_t len = static_cast<uint32_t>(s.size());
    std::memcpy(at, &len, sizeof len);
    if (len)
        std::memcpy(at + sizeof len, s.data(), len);
    at[sizeof len + len] = 0;
    bool ok = put_word(p, (uint64_t('"') << 56) | p->own_strings_n);
    p->own_strings_n += 5 + s.size();
    return ok;
}

// A number in simdjson's tape form: the tag word, then the value's 8 bytes.
template <typename T> bool put_number(fbe_jparser *p, simdjson::dom::element e, char tag)
{
    static_assert(sizeof(T) == 8, "tape numbers are 8 bytes");
    T v{};
    if (e.get(v) != simdjson::SUCCESS)
        return false;
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    return put_word(p, uint64_t(tag) << 56) && put_word(p, bits);
}

bool put_value(fbe_jparser *p, simdjson::dom::element e)
{
    using simdjson::dom::element_type;
    switch (e.type()) {
    case element_type::ARRAY:
    case element_type::OBJECT: {
        bool object = e.type() == element_type::OBJECT;
        size_t open = p->own_tape_n;
        if (!put_word(p, 0))
            return false;
        uint64_t count = 0;
        if (object) {
            simdjson::dom::object obj;
            if (e.get(obj) != simdjson::SUCCESS)
                return false;
            for (simdjson::dom::key_value_pair kv : obj) {
                if (!put_string(p, kv.key) || !put_value(p, kv.value))
                    return false;
                count++;
            }
        } else {
            simdjson::dom::array arr;
            if (e.get(arr) != simdjson::SUCCESS)
                return false;
            for (simdjson::dom::element child : arr) {
                if (!put_value(p, child))
                    return false;
                count++;
            }
        }
        uint64_t c = object ? '}' : ']';
        if (!put_word(p, (c << 56) | open) || p->own_tape_n > UINT32_MAX)
            return false;
        if (count > FBE_JTAPE_COUNT_MAX)
            count = FBE_JTAPE_COUNT_MAX;
        p->own_tape[open] = (uint64_t(object ? '{' : '[') << 56) | (count << 32) | p->own_tape_n;
        return true;
    }
    case element_type::INT64:
        return put_number<int64_t>(p, e, 'l');
    case element_type::UINT64:
        return put_number<uint64_t>(p, e, 'u');
    case element_type::DOUBLE:
        return put_number<double>(p, e, 'd');
    case element_type::STRING: {
        std::string_view s;
        return e.get(s) == simdjson::SUCCESS && put_string(p, s);
    }
    case element_type::BOOL: {
        bool b = false;
        return e.get(b) == simdjson::SUCCESS && put_word(p, uint64_t(b ? 't' : 'f') << 56);
    }
    case element_type::NULL_VALUE:
        return put_word(p, uint64_t('n') << 56);
    }
    return false;
}

// The root word first (as simdjson's: its payload is the index of the final
// root word), the value from FBE_JTAPE_ROOT on.
bool own_tape_of(fbe_jparser *p, simdjson::dom::element root)
{
    p->own_tape_n = 0;
    p->own_strings_n = 0;
    if (!put_word(p, 0) || !put_value(p, root) || !put_word(p, uint64_t('r') << 56))
        return false;
    p->own_tape[0] = (uint64_t('r') << 56) | (p->own_tape_n - 1);
    return true;
}

} // namespace

extern "C" {

fbe_jparser *fbe_jparser_new(void)
{
    void *mem = std::malloc(sizeof(fbe_jparser));
    if (!mem)
        return nullptr;
    return new (mem) fbe_jparser();
}

void fbe_jparser_free(fbe_jparser *p)
{
    if (!p)
        return;
    std::free(p->nodes);
    std::free(p->own_tape);
    std::free(p->own_strings);
    p->~fbe_jparser();
    std::free(p);
}

int fbe_jparser_parse(fbe_jparser *p, const char *text, size_t len, const fbe_jnode **nodes,
                      size_t *count, const char **message)
{
    p->count = 0;
    p->nomem = false;
    simdjson::dom::element root;
    // realloc_if_needed: simdjson copies the input into its own padded buffer
    // (reused between parses), so the caller's bytes need no padding.
    simdjson::error_code ec = p->parser.parse(text, len, true).get(root);
    if (ec != simdjson::SUCCESS) {
        *message = ec == simdjson::MEMALLOC ? "out of memory" : simdjson::error_message(ec);
        return ec == simdjson::MEMALLOC ? -2 : -1;
    }
    bool tape = FBE_JSON_NATIVE_TAPE;
    if (!(tape ? from_tape(p, p->parser.doc) : emit(p, root))) {
        *message = "out of memory";
        return -2;
    }
    *nodes = p->nodes;
    *count = p->count;
    return 0;
}

int fbe_jparser_parse_tape(fbe_jparser *p, const char *text, size_t len, fbe_jtape *tape,
                           const char **message)
{
    simdjson::dom::element root;
    simdjson::error_code ec = p->parser.parse(text, len, true).get(root);
    if (ec != simdjson::SUCCESS) {
        *message = ec == simdjson::MEMALLOC ? "out of memory" : simdjson::error_message(ec);
        return ec == simdjson::MEMALLOC ? -2 : -1;
    }
    if (FBE_JSON_NATIVE_TAPE) {
        tape->tape = p->parser.doc.tape.get();
        tape->strings = p->parser.doc.string_buf.get();
        return 0;
    }
    if (!own_tape_of(p, root)) {
        *message = "out of memory";
        return -2;
    }
    tape->tape = p->own_tape;
    tape->strings = p->own_strings;
    return 0;
}

int fbe_json_shortest(double v, char digits[24], int *exp10)
{
    char buf[40];
    std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    // d[.ddd]e(+|-)XX
    int n = 0;
    const char *s = buf;
    const char *end = r.ptr;
    while (s < end && *s != 'e') {
        if (*s != '.')
            digits[n++] = *s;
        s++;
    }
    int e = 0;
    if (s < end) {
        s++;
        bool neg = *s == '-';
        if (*s == '-' || *s == '+')
            s++;
        while (s < end)
            e = e * 10 + (*s++ - '0');
        if (neg)
            e = -e;
    }
    // Trailing zeros never come out of a shortest conversion except for "0".
    *exp10 = e - (n - 1);
    return n;
}

} // extern "C"
