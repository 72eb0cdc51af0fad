/* Schema-size fuzzer: the input bytes drive a small generator of schema text
 * aimed at what broke before (issue 12): huge fixed arrays of big structs,
 * uuids and decimals nested several levels (sizes near and past the 1 GiB limit
 * and past 2^32), names of hundreds of characters that differ only at the end,
 * inheritance chains and by-value nesting around the 256 limit in either
 * declaration order, recursion through optionals and collections, maps with
 * struct keys, string defaults of arbitrary bytes. Raw text (fuzz_schema) almost
 * never gets past the parser into those corners.
 *
 * Oracles: no schema means at least one error was reported; a schema keeps
 * every size within FBE_IR_MAX_SIZE and every depth within FBE_IR_MAX_NESTING,
 * its derived depths and offsets agree with its own fields, and its C type names
 * are short and unique; it gets an interpreter codec, and every struct of at
 * most 64 KiB (1 MiB in one input in 16, see costly(); 1 MiB of host values
 * per input) has a default value that serializes in both models with FBE_OK,
 * or FBE_TOO_DEEP exactly when it nests deeper than the codec's max_depth, to
 * a frame that verifies and decodes to a value serializing to the same bytes.
 * The JIT is left out: compiling a schema costs far more than the rest of an
 * execution. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#endif
#endif
#ifndef ASAN_POISON_MEMORY_REGION /* no ASan: nothing to poison */
#define ASAN_POISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#define ASAN_UNPOISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#endif

#include "fbe/arena.h"
#include "fbe/buffer.h"
#include "fbe/codec.h"
#include "fbe/ir.h"
#include "fuzz_common.h"

/* Generated text per input: enough for a 300-link chain or a few thousand big
 * fields, little enough that one execution stays in milliseconds. */
#define TEXT_CAP ((size_t)64 << 10)
/* Room for the longest single item (a field with three long names). */
#define ITEM_MAX 4096
#define NAME_MAX 800

/* Default values of larger structs are not serialized: their frames say more
 * about the fuzzer's speed than about the layout, which the IR checks cover. */
#define VALUE_HOST_LIMIT ((uint32_t)1 << 20)

typedef struct gen {
    const uint8_t *p, *end;
    char *text;
    size_t len;
    bool overflow;
    uint32_t hash; /* of the whole input: see costly() */
    size_t cap;    /* TEXT_CAP, or SMALL_TEXT_CAP: see generate() */
} gen;

/* The costly corners (hundreds of copies of a field, chains past 65 links,
 * names past 122 characters, text past SMALL_TEXT_CAP, values past
 * LARGE_VALUE) take 3-800 ms each under ASan where most inputs
 * take 0.1 ms; drawn as often as the rest, they made the fuzzer run ~110
 * inputs/s. Each is kept in one input in `every`, decided by bits of a hash of
 * the input rather than by an input byte: a failing input still fails again,
 * but the fuzzer cannot learn to keep them on, so they stay that rare whatever
 * the corpus holds (mutants of an input that drew one mostly do not). The
 * schema is otherwise generated from the same bytes (a corner left out becomes
 * a smaller one, below), and every check still runs on whatever it makes. */
static bool costly(const gen *g, unsigned shift, unsigned every)
{
    return (g->hash >> shift) % every == 0;
}

static uint32_t input_hash(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u; /* FNV-1a, then a finalizer to mix the low bits */
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    return h;
}

/* A choice in [0, n): one byte, two when n needs them; 0 once the input ends,
 * so a short input is a small schema. */
static unsigned take(gen *g, unsigned n)
{
    if (n <= 1 || g->p >= g->end)
        return 0;
    unsigned v = *g->p++;
    if (n > 256 && g->p < g->end)
        v = v << 8 | *g->p++;
    return v % n;
}

#define PICK(g, table) ((table)[take((g), (unsigned)(sizeof(table) / sizeof(table)[0]))])

static void put(gen *g, const char *fmt, ...)
{
    if (g->overflow)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(g->text + g->len, TEXT_CAP + ITEM_MAX - g->len, fmt, ap);
    va_end(ap);
    if (n < 0 || g->len + (size_t)n >= TEXT_CAP + ITEM_MAX)
        g->overflow = true;
    else
        g->len += (size_t)n;
}

static bool room(const gen *g)
{
    return !g->overflow && g->len + ITEM_MAX < g->cap;
}

/* Name lengths around the 120-character C name limit (with "pkg_" in front),
 * the 103 characters a hashed name keeps, and the old 512-byte buffers. */
static const unsigned long_lengths[] = {100, 103, 104, 110, 115, 116, 117, 118, 119,
                                        120, 121, 122, 200, 489, 490, 491, 512, 600};

typedef struct naming {
    unsigned len; /* 0: short names */
    char fill;
} naming;

static naming pick_naming(gen *g)
{
    static const char fills[] = {'a', 'Z', '_', '9'};
    naming n = {0, 'a'};
    if (take(g, 3) == 0) {
        n.len = PICK(g, long_lengths);
        n.fill = PICK(g, fills);
        /* Names of 200-600 characters make every line that repeats them that
         * long (parsing is most of an execution): kept in one input in 8,
         * else 100-122 characters, around the C name limit still. */
        if (n.len > 122 && !costly(g, 13, 8))
            n.len = 100 + n.len % 23;
    }
    return n;
}

/* A name equal to its siblings except at the end: a common prefix, then the
 * letter and index that tell them apart. */
static void make_name(const naming *n, char letter, unsigned index, char out[NAME_MAX])
{
    size_t len = 0;
    if (n->len) {
        out[len++] = letter;
        while (len < n->len - 6 && len < NAME_MAX - 16)
            out[len++] = n->fill;
    }
    snprintf(out + len, NAME_MAX - len, "%c%u", letter, index);
}

static const char *const scalars[] = {"bool", "byte", "char", "wchar", "int8", "int16",
                                      "int32", "uint64", "float", "double", "decimal",
                                      "timestamp", "uuid", "string", "bytes"};

/* Mostly the big fixed-size scalars that make arrays large. */
static const char *pick_scalar(gen *g)
{
    static const char *const big[] = {"uuid", "decimal", "uuid", "decimal", "int64"};
    return take(g, 2) ? PICK(g, big) : PICK(g, scalars);
}

/* Array lengths: small, at powers of two and one past them (where products of
 * nested arrays cross 1 GiB and 2^32), and anything up to 65536. */
static unsigned pick_array_len(gen *g)
{
    static const unsigned lens[] = {1,    2,    3,     8,     255,   256,   1024,
                                    1025, 4096, 4097,  16384, 16385, 32768, 65535,
                                    65536, 65536, 65536, 4097, 1024,  16384};
    return take(g, 4) ? PICK(g, lens) : 1 + take(g, 65536);
}

typedef struct schema_plan {
    unsigned structs;  /* S0 .. S(n-1) */
    naming struct_names, field_names;
    const char *pkg;
    bool has_enum;
    char names[16][NAME_MAX]; /* struct names by index */
} schema_plan;

/* An element type: a scalar, one of the structs (by index, forward or
 * backward, itself included) or the enum. */
static void elem_type(gen *g, const schema_plan *sp, char *out, size_t size)
{
    unsigned k = take(g, 8);
    if (k < 4 && sp->structs)
        snprintf(out, size, "%s", sp->names[take(g, sp->structs)]);
    else if (k == 4 && sp->has_enum)
        snprintf(out, size, "E");
    else
        snprintf(out, size, "%s", pick_scalar(g));
}

/* Escapes that keep the lexer happy but may decode to bytes that are not UTF-8
 * (\x80, \xff, a lone surrogate through \u) as well as valid sequences. */
static void string_default(gen *g)
{
    unsigned n = take(g, 24);
    put(g, " = \"");
    for (unsigned i = 0; i < n; i++) {
        unsigned mode = take(g, 4);
        unsigned c = take(g, 256);
        if (mode == 0)
            put(g, "\\x%02x", c);
        else if (mode == 1)
            put(g, "\\u%04x", c << 8 | take(g, 256));
        else if (c == '"' || c == '\\' || c == '\n' || c == 0)
            put(g, "\\x%02x", c);
        else
            put(g, "%c", (char)c);
    }
    put(g, "\"");
}

static void field(gen *g, const schema_plan *sp, unsigned index)
{
    char elem[NAME_MAX + 16], key[NAME_MAX + 16], name[NAME_MAX];
    elem_type(g, sp, elem, sizeof elem);
    make_name(&sp->field_names, 'f', index, name);
    switch (take(g, 12)) {
    case 0:
    case 1:
    case 2: put(g, "    %s[%u] %s;\n", elem, pick_array_len(g), name); break;
    case 3: put(g, "    %s?[%u] %s;\n", elem, pick_array_len(g), name); break;
    case 4: put(g, "    %s? %s;\n", elem, name); break;
    case 5: put(g, "    %s[] %s;\n", elem, name); break;
    case 6: put(g, "    %s() %s;\n", elem, name); break;
    case 7: put(g, "    %s! %s;\n", elem, name); break;
    case 8:
    case 9:
        elem_type(g, sp, key, sizeof key);
        put(g, take(g, 2) ? "    %s<%s> %s;\n" : "    %s{%s} %s;\n", elem, key, name);
        break;
    case 10: /* past 32 bits and garbage: the parser's number handling */
        put(g, "    %s[%s] %s;\n", elem,
            take(g, 2) ? "4294967297" : take(g, 2) ? "0" : "2147483648", name);
        break;
    default:
        put(g, "    %s %s", elem, name);
        if (!strcmp(elem, "string") || take(g, 8) == 0)
            string_default(g);
        put(g, ";\n");
        break;
    }
}

/* Struct bodies; many copies of one field type (a flat struct of thousands of
 * huge fields wrapped the standard offsets once). */
static void struct_decl(gen *g, const schema_plan *sp, unsigned i)
{
    put(g, "struct %s", sp->names[i]);
    if (take(g, 4) == 0)
        put(g, "(%u)", 1 + take(g, 1000));
    if (take(g, 3) == 0) /* any index: cycles and self-inheritance are errors to report */
        put(g, " : %s", sp->names[take(g, 4) ? take(g, i + 1) : take(g, sp->structs)]);
    put(g, "\n{\n");
    unsigned fields = take(g, 6);
    for (unsigned f = 0; f < fields && room(g); f++)
        field(g, sp, f);
    if (take(g, 4) == 0) {
        static const unsigned repeats[] = {2, 16, 255, 1024, 1025, 2048, 4097};
        unsigned n = PICK(g, repeats);
        /* Hundreds of fields or more are 4-60 KB of text and cost the
         * library 3-150 ms under ASan (parse, resolve, codec; an error
         * message per copy): kept in one input in 16, else 16 copies. */
        if (n > 16 && !costly(g, 0, 16))
            n = 16;
        const uint8_t *again = g->p;
        for (unsigned f = 0; f < n && room(g); f++) {
            g->p = again; /* the same type each time, from the same bytes */
            field(g, sp, 100 + f);
        }
    }
    put(g, "}\n");
}

/* A chain C0 <- C1 <- ... by inheritance, by value or both, around the 256
 * limit, declared base-first or derived-first; by-value links may be arrays,
 * whose sizes multiply at every level. */
static void chain(gen *g, const schema_plan *sp)
{
    static const unsigned links[] = {2, 64, 65, 200, 255, 256, 257, 258, 300};
    unsigned n = take(g, 2) ? PICK(g, links) : 1 + take(g, 320);
    /* Chains past 65 links cost quadratically (each heir gets a copy of all
     * its bases' fields, and the codec a program for each), 50-350 ms for
     * 200-300 links, 5 ms for 64 or 65 (always kept: the default max_depth):
     * longer ones are kept in one input in 32, else 1-33 links. */
    if (n > 65 && !costly(g, 4, 32))
        n = 1 + n % 33;
    unsigned how = take(g, 3); /* 0: inheritance, 1: by value, 2: per link */
    bool derived_first = take(g, 2);
    unsigned array_every = take(g, 3) ? 0 : 1 + take(g, 64);
    unsigned array_len = pick_array_len(g);
    const char *bottom = sp->structs && take(g, 2) ? sp->names[take(g, sp->structs)] : "int32";
    for (unsigned k = 0; k < n && room(g); k++) {
        unsigned i = derived_first ? n - 1 - k : k;
        bool inherit = how == 0 || (how == 2 && (i * 2654435761u >> 7) % 2);
        if (i == 0)
            put(g, "struct C0 { %s c; }\n", bottom);
        else if (inherit)
            put(g, "struct C%u : C%u { int8 c%u; }\n", i, i - 1, i);
        else if (array_every && i % array_every == 0)
            put(g, "struct C%u { C%u[%u] v; }\n", i, i - 1, array_len);
        else
            put(g, "struct C%u { C%u v; }\n", i, i - 1);
    }
}

/* Generated text past SMALL_TEXT_CAP: only where a costly corner asks for it
 * (4,097 copies of a field take 57 KB, 300 chain links 10 KB), and in one
 * input in 16 besides; other inputs stop adding fields and structs there. */
#define SMALL_TEXT_CAP ((size_t)16 << 10)

/* The schema as text in g->text; false if it did not fit. */
static bool generate(gen *g, schema_plan *sp)
{
    bool big = costly(g, 0, 16) || costly(g, 4, 32) || costly(g, 16, 16);
    g->cap = big ? TEXT_CAP : SMALL_TEXT_CAP;
    naming pkg_naming = pick_naming(g);
    static char pkg[NAME_MAX];
    make_name(&pkg_naming, 'p', 0, pkg);
    sp->pkg = pkg;
    sp->struct_names = pick_naming(g);
    sp->field_names = pick_naming(g);
    sp->structs = take(g, 9);
    sp->has_enum = take(g, 2);
    for (unsigned i = 0; i < sp->structs; i++)
        make_name(&sp->struct_names, 'S', i, sp->names[i]);
    /* A name spelled like another's hashed C name: "pkg_" + it is exactly the
     * 120 characters fbe_ir_symbol_name makes of the longer one. Both types
     * would get the same C name: the front end must report it. */
    if (sp->structs >= 2 && take(g, 4) == 0) {
        char full[2 * NAME_MAX + 2], sym[FBE_IR_MAX_SYMBOL + 1];
        snprintf(full, sizeof full, "%s_%s", pkg, sp->names[0]);
        fbe_ir_symbol_name(full, sym);
        size_t plen = strlen(pkg) + 1;
        if (strlen(full) > FBE_IR_MAX_SYMBOL && plen < strlen(sym) &&
            strncmp(sym, full, plen) == 0)
            snprintf(sp->names[1], NAME_MAX, "%s", sym + plen);
    }
    put(g, "package %s\n", pkg);
    if (sp->has_enum)
        put(g, "enum E { A; B = 5; }\n");
    bool reverse = take(g, 2);
    for (unsigned k = 0; k < sp->structs && room(g); k++)
        struct_decl(g, sp, reverse ? sp->structs - 1 - k : k);
    if (take(g, 2))
        chain(g, sp);
    return !g->overflow;
}

/* ---- oracles ---------------------------------------------------------------- */

static void count_errors(void *ctx, const fbe_diag *d)
{
    if (d->severity == FBE_DIAG_ERROR)
        ++*(unsigned *)ctx;
}

static void check_type_sizes(const fbe_ir_type *t, const char *where)
{
    for (; t; t = t->elem) {
        FUZZ_CHECK(t->std_inline_size <= FBE_IR_MAX_SIZE && t->final_size <= FBE_IR_MAX_SIZE &&
                       t->host_size <= FBE_IR_MAX_SIZE && t->host_entry_size <= FBE_IR_MAX_SIZE,
                   "%s: a type of kind %s past the size limit (std %u final %u host %u)", where,
                   fbe_ir_kind_name(t->kind), t->std_inline_size, t->final_size, t->host_size);
        if (t->key)
            check_type_sizes(t->key, where);
    }
}

static void check_struct_ir(const fbe_ir_struct *st)
{
    const char *name = st->full_name;
    FUZZ_CHECK(st->std_body_size <= FBE_IR_MAX_SIZE && st->final_size <= FBE_IR_MAX_SIZE &&
                   st->host_size <= FBE_IR_MAX_SIZE,
               "%s: past the size limit (std %u final %u host %u)", name, st->std_body_size,
               st->final_size, st->host_size);
    FUZZ_CHECK(st->base_depth <= FBE_IR_MAX_NESTING && st->value_height >= 1 &&
                   st->value_height <= FBE_IR_MAX_NESTING,
               "%s: base_depth %u value_height %u", name, st->base_depth, st->value_height);
    FUZZ_CHECK(st->base_depth == (st->base ? st->base->base_depth + 1 : 0),
               "%s: base_depth %u, its base's %u", name, st->base_depth,
               st->base ? st->base->base_depth : 0);
    uint32_t height = 1;
    for (size_t i = 0; i < st->field_count; i++) {
        const fbe_ir_field *f = &st->fields[i];
        const fbe_ir_type *t = f->type;
        check_type_sizes(t, name);
        /* 64-bit sums: a wrapped offset must not pass as in range. */
        FUZZ_CHECK((uint64_t)f->std_offset + t->std_inline_size <= st->std_body_size,
                   "%s.%s: standard offset %u + %u past the body (%u)", name, f->name,
                   f->std_offset, t->std_inline_size, st->std_body_size);
        FUZZ_CHECK((uint64_t)f->host_offset + t->host_size <= st->host_size,
                   "%s.%s: host offset %u + %u past the struct (%u)", name, f->name,
                   f->host_offset, t->host_size, st->host_size);
        if (t->kind == FBE_IR_ARRAY)
            t = t->elem;
        if (t->kind == FBE_IR_STRUCT && t->struct_type->value_height + 1 > height)
            height = t->struct_type->value_height + 1;
    }
    FUZZ_CHECK(st->value_height == height, "%s: value_height %u, its fields say %u", name,
               st->value_height, height);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* C type names: bounded, and one per type (two types spelled alike would
 * collide in generated C, AOT headers and symbols). */
static void check_c_names(const fbe_schema *s)
{
    size_t n = 0, cap = 0;
    for (size_t p = 0; p < fbe_schema_package_count(s); p++) {
        const fbe_ir_package *pkg = fbe_schema_package(s, p);
        cap += pkg->struct_count + pkg->enum_count + pkg->flags_count;
    }
    const char **names = malloc((cap ? cap : 1) * sizeof *names);
    FUZZ_CHECK(names, "out of memory");
    for (size_t p = 0; p < fbe_schema_package_count(s); p++) {
        const fbe_ir_package *pkg = fbe_schema_package(s, p);
        for (size_t i = 0; i < pkg->struct_count; i++)
            names[n++] = pkg->structs[i]->c_name;
        for (size_t i = 0; i < pkg->enum_count; i++)
            names[n++] = pkg->enums[i]->c_name;
        for (size_t i = 0; i < pkg->flags_count; i++)
            names[n++] = pkg->flags[i]->c_name;
    }
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(strlen(names[i]) <= FBE_IR_MAX_SYMBOL, "C name of %zu characters: %s",
                   strlen(names[i]), names[i]);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 1; i < n; i++)
        FUZZ_CHECK(strcmp(names[i - 1], names[i]) != 0, "two types with the C name %s",
                   names[i]);
    free(names);
}

/* Struct bodies in a default value, saturated past BODY_LIMIT. The host size
 * alone does not bound the work: a chain of by-value arrays of tiny structs
 * holds millions of bodies in a few hundred kilobytes (27 s per input). */
#define BODY_LIMIT 4096u
#define MEMO_SLOTS 1024u /* a power of two above the most structs a schema can have */

static struct memo {
    const fbe_ir_struct *st;
    uint32_t bodies;
} memo[MEMO_SLOTS];

static uint32_t bodies(const fbe_ir_struct *st)
{
    size_t h = (size_t)(((uintptr_t)st >> 4) * UINT64_C(0x9E3779B97F4A7C15)) & (MEMO_SLOTS - 1);
    while (memo[h].st && memo[h].st != st)
        h = (h + 1) & (MEMO_SLOTS - 1);
    if (memo[h].st)
        return memo[h].bodies;
    uint64_t n = 1;
    for (size_t i = 0; i < st->field_count && n <= BODY_LIMIT; i++) {
        const fbe_ir_type *t = st->fields[i].type;
        uint64_t times = 1;
        if (t->kind == FBE_IR_ARRAY) {
            times = t->array_len;
            t = t->elem;
        }
        if (t->kind == FBE_IR_STRUCT)
            n += times * bodies(t->struct_type);
    }
    memo[h].st = st;
    memo[h].bodies = n > BODY_LIMIT ? BODY_LIMIT + 1 : (uint32_t)n;
    return memo[h].bodies;
}

/* Bodies left for this input's values: a 256-level by-value chain holds 32k. */
static uint32_t body_budget;

/* Host bytes left for this input's values. Every struct of a chain holds the
 * one at its bottom, so a megabyte there made 200 MB of round trips (0.8 s);
 * this still lets one value of VALUE_HOST_LIMIT through. */
#define VALUE_BYTES_PER_INPUT VALUE_HOST_LIMIT
static uint32_t value_budget;

/* A value past LARGE_VALUE (up to VALUE_HOST_LIMIT) costs 2-40 ms to round
 * trip: such values are round-tripped in one input in 16 (costly()), in the
 * others skipped like values past the limit. Their IR is checked in every
 * input. */
#define LARGE_VALUE ((uint32_t)64 << 10)
static bool large_values;

/* The values' arena chunks come from a small pool that outlives the run. Fresh
 * memory was most of a round trip's cost: a megabyte value took ~2,000 page
 * faults in its arena and its frames' growth by realloc (the hypervisor makes
 * each fault expensive), more than the codec's own work. A pooled block is
 * poisoned while idle and, while lent, past the bytes asked for, so ASan still
 * reports any access to a freed or foreign chunk (as use-after-poison). */
#define POOL_BLOCKS 16

typedef struct pool_block {
    size_t cap; /* usable bytes after this header */
    _Alignas(16) char data[];
} pool_block;

static pool_block *pool[POOL_BLOCKS];

static void *pool_alloc(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    FUZZ_CHECK(!ptr || !size, "the arena resized a chunk"); /* arenas never do */
    if (ptr) {
        pool_block *b = (pool_block *)((char *)ptr - offsetof(pool_block, data));
        for (int i = 0; i < POOL_BLOCKS; i++)
            if (!pool[i]) {
                ASAN_POISON_MEMORY_REGION(b->data, b->cap);
                pool[i] = b;
                return NULL;
            }
        free(b);
        return NULL;
    }
    int best = -1;
    for (int i = 0; i < POOL_BLOCKS; i++)
        if (pool[i] && pool[i]->cap >= size && (best < 0 || pool[i]->cap < pool[best]->cap))
            best = i;
    pool_block *b;
    if (best >= 0) {
        b = pool[best];
        pool[best] = NULL;
    } else {
        b = malloc(sizeof *b + size);
        if (!b)
            return NULL;
        b->cap = size;
        ASAN_POISON_MEMORY_REGION(b->data, size);
    }
    ASAN_UNPOISON_MEMORY_REGION(b->data, size);
    return b->data;
}

static void check_value(const fbe_type *t, unsigned max_depth)
{
    const fbe_ir_struct *ir = t->ir;
    if (ir->host_size > VALUE_HOST_LIMIT || ir->host_size > value_budget ||
        (ir->host_size > LARGE_VALUE && !large_values) ||
        bodies(ir) > BODY_LIMIT || bodies(ir) > body_budget)
        return;
    body_budget -= bodies(ir);
    value_budget -= ir->host_size;
    fbe_arena arena;
    fbe_arena_init(&arena, pool_alloc, NULL);
    arena.limit = FUZZ_ARENA_LIMIT;
    size_t host = ir->host_size ? ir->host_size : 1;
    void *v = fbe_arena_zalloc(&arena, host);
    void *dec = fbe_arena_zalloc(&arena, host);
    FUZZ_CHECK(v && dec, "%s: %zu host bytes under the arena limit", ir->full_name, host);
    fbe_init(ir, v);
    /* A default value has no optional struct and no element: it nests exactly
     * value_height bodies deep. */
    bool too_deep = ir->value_height > max_depth;
    /* Frames go to two buffers kept across structs and runs (cleared, never
     * freed): after the first large value they no longer grow by copying. */
    static fbe_buffer b, again;
    static bool buffers;
    if (!buffers) {
        fbe_buffer_init(&b, NULL, NULL);
        fbe_buffer_init(&again, NULL, NULL);
        buffers = true;
    }
    for (int m = 0; m < 2; m++) {
        fbe_model model = (fbe_model)m;
        fbe_buffer_clear(&b);
        fbe_status st = fbe_serialize(t, model, v, &b);
        FUZZ_CHECK(st == (too_deep ? FBE_TOO_DEEP : FBE_OK),
                   "%s model %d: serialize of the default value (height %u, max_depth %u): %s",
                   ir->full_name, m, ir->value_height, max_depth, fbe_strerror(st));
        if (too_deep)
            continue;
        st = fbe_verify(t, model, b.data, b.size, NULL);
        FUZZ_CHECK(st == FBE_OK, "%s model %d: default frame fails verify: %s", ir->full_name, m,
                   fbe_strerror(st));
        memset(dec, 0, host);
        fbe_decode_options o = {.arena = &arena};
        size_t consumed = 0;
        st = fbe_deserialize(t, model, b.data, b.size, dec, &o, &consumed);
        FUZZ_CHECK(st == FBE_OK && consumed == b.size,
                   "%s model %d: default frame of %zu bytes: %s (consumed %zu)", ir->full_name, m,
                   b.size, fbe_strerror(st), consumed);
        fbe_buffer_clear(&again);
        st = fbe_serialize(t, model, dec, &again);
        FUZZ_CHECK(st == FBE_OK && again.size == b.size && !memcmp(again.data, b.data, b.size),
                   "%s model %d: the decoded default serializes differently (%s, %zu vs %zu bytes)",
                   ir->full_name, m, fbe_strerror(st), again.size, b.size);
    }
    fbe_arena_free(&arena);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char text[TEXT_CAP + ITEM_MAX];
    static schema_plan sp;
    gen g = {.p = data, .end = data + size, .text = text, .hash = input_hash(data, size)};
    memset(&sp, 0, sizeof sp);
    /* Depth limits below, at and above the default and the nesting limit. */
    static const unsigned depths[] = {0, 0, 0, 1, 2, 3, 8, 63, 64, 65, 255, 256, 257, 300};
    unsigned max_depth = PICK(&g, depths);
    if (!generate(&g, &sp))
        return 0;
    if (getenv("FUZZ_SCHEMA_SIZE_PRINT"))
        fwrite(text, 1, g.len, stderr);

    unsigned reported = 0, errors = 0;
    fbe_schema_options so = {.sink = count_errors, .sink_ctx = &reported};
    fbe_schema *s = fbe_schema_load_string("size.fbe", text, g.len, &so, &errors);
    if (!s) {
        FUZZ_CHECK(errors > 0 && reported > 0, "no schema but no error reported");
        return 0;
    }
    FUZZ_CHECK(errors == 0, "a schema despite %u errors", errors);
    for (size_t p = 0; p < fbe_schema_package_count(s); p++) {
        const fbe_ir_package *pkg = fbe_schema_package(s, p);
        for (size_t i = 0; i < pkg->struct_count; i++)
            check_struct_ir(pkg->structs[i]);
    }
    check_c_names(s);

    fbe_status st;
    fbe_codec_options co = {.max_depth = max_depth};
    fbe_codec *codec = fbe_interp_create(s, &co, &st);
    FUZZ_CHECK(codec, "a loaded schema without a codec: %s", fbe_strerror(st));
    unsigned depth = fbe_codec_max_depth(codec);
    FUZZ_CHECK(depth == (max_depth ? max_depth : FBE_DEFAULT_MAX_DEPTH),
               "codec max_depth %u, asked for %u", depth, max_depth);
    memset(memo, 0, sizeof memo);
    body_budget = 64u << 10;
    value_budget = VALUE_BYTES_PER_INPUT;
    large_values = costly(&g, 9, 16);
    for (size_t i = 0; i < fbe_codec_type_count(codec); i++)
        check_value(fbe_codec_type_at(codec, i), depth);
    fbe_codec_free(codec);
    fbe_schema_free(s);
    return 0;
}
