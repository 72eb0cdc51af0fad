/* Random schema text for differential tests: enums, flags and structs whose
 * fields take every shape the schema language has (optional, arrays, vectors,
 * lists, sets, maps and hashes with optional values), structs held by value,
 * optionally, in arrays and collections and as set elements and map keys,
 * `[key]` fields, bases, and self-references through vectors and lists.
 * Deterministic: a seed always gives the same text. */
#include "schema_gen.h"

#include <stdbool.h>
#include <stdio.h>

#include "test_util.h"

static unsigned pick(uint64_t *rng, unsigned n)
{
    return (unsigned)(rng_next(rng) % n);
}

static const char *const scalars[] = {"bool",  "byte",   "char",  "wchar",   "int8",
                                      "uint8", "int16",  "uint16", "int32",  "uint32",
                                      "int64", "uint64", "float", "double",  "decimal",
                                      "timestamp", "uuid", "string", "bytes"};
/* what a key or a set's element may be besides enums, flags and structs (not bytes) */
static const char *const keys[] = {"bool",   "byte",   "char",   "wchar",  "int8",   "uint8",
                                   "int16",  "uint16", "int32",  "uint32", "int64",  "uint64",
                                   "float",  "double", "decimal", "string", "uuid", "timestamp"};
static const char *const enum_bases[] = {"byte", "int8", "uint8", "int16", "uint16",
                                         "int32", "uint32", "int64", "uint64"};

enum { MAX_STRUCTS = 7 };

typedef struct schema_gen {
    uint64_t rng;
    unsigned enums, flags;
    const char *p; /* every declared name's prefix */
} schema_gen;

/* A base type for a field of struct `self` (structs before it only). */
static void base_type(schema_gen *g, text_buf *t, unsigned self, bool key)
{
    unsigned r = pick(&g->rng, 10);
    if (key) {
        if (r >= 2 && r < 4 && self > 0) /* ordered and hashed by its [key] fields */
            tprintf(t, "%sS%u", g->p, pick(&g->rng, self));
        else if (r == 0 && g->enums)
            tprintf(t, "%sE%u", g->p, pick(&g->rng, g->enums));
        else if (r == 1 && g->flags)
            tprintf(t, "%sF%u", g->p, pick(&g->rng, g->flags));
        else
            tprintf(t, "%s", keys[pick(&g->rng, sizeof keys / sizeof *keys)]);
        return;
    }
    if (r < 3 && self > 0)
        tprintf(t, "%sS%u", g->p, pick(&g->rng, self));
    else if (r == 3 && g->enums)
        tprintf(t, "%sE%u", g->p, pick(&g->rng, g->enums));
    else if (r == 4 && g->flags)
        tprintf(t, "%sF%u", g->p, pick(&g->rng, g->flags));
    else
        tprintf(t, "%s", scalars[pick(&g->rng, sizeof scalars / sizeof *scalars)]);
}

static void field(schema_gen *g, text_buf *t, unsigned self, unsigned index)
{
    tprintf(t, "    %s", pick(&g->rng, 4) ? "" : "[key] ");
    unsigned shape = pick(&g->rng, 14);
    if (shape == 0) { /* itself, through a vector or a list: the only self-reference */
        tprintf(t, "%sS%u%s", g->p, self, pick(&g->rng, 2) ? "[]" : "()");
    } else if (shape == 1) { /* a set */
        base_type(g, t, self, true);
        tprintf(t, "!");
    } else if (shape >= 10) { /* a map or a hash, the value maybe optional */
        bool hash = pick(&g->rng, 2);
        base_type(g, t, self, false);
        tprintf(t, "%s%s", pick(&g->rng, 3) ? "" : "?", hash ? "{" : "<");
        base_type(g, t, self, true);
        tprintf(t, "%s", hash ? "}" : ">");
    } else {
        base_type(g, t, self, false);
        tprintf(t, "%s", pick(&g->rng, 3) ? "" : "?");
        switch (shape % 4) {
        case 0: break;
        case 1: tprintf(t, "[%u]", 1 + pick(&g->rng, 4)); break;
        case 2: tprintf(t, "[]"); break;
        default: tprintf(t, "()"); break;
        }
    }
    tprintf(t, " f%u_%u;\n", self, index);
}

/* A field a newer writer adds at the end of a struct: any field, or a scalar
 * with a default (applied when an older writer's frame lacks it). */
static void added_field(schema_gen *g, text_buf *t, unsigned self, unsigned index)
{
    static const char *const with_default[] = {
        "int32 %s = 7",        "bool %s = true",       "string %s = \"abc\"",
        "double %s = 1.5",     "int64? %s = 42",       "uint8 %s = max",
        "char %s = '!'",       "timestamp %s = epoch", "decimal %s = 123.45",
        "float? %s = null",    "int16 %s = min",       "uuid %s = \"123e4567-e89b-12d3-a456-426655440000\""};
    unsigned r = pick(&g->rng, 16);
    if (r >= 12) {
        field(g, t, self, index);
        return;
    }
    char name[32];
    snprintf(name, sizeof name, "f%u_%u", self, index);
    tprintf(t, "    ");
    if (r == 0 && g->enums)
        tprintf(t, "%sE0 %s = %sE0.e0_0", g->p, name, g->p);
    else
        tprintf(t, with_default[r], name);
    tprintf(t, ";\n");
}

/* One seed's declarations: a few enums and flags, up to MAX_STRUCTS structs
 * (some derived from an earlier one). `newer`: the same, and structs that are
 * no base (whose fields end their body: wire-format versioning) get up to 3
 * fields more, drawn from a stream of their own. */
static void declarations(text_buf *t, uint64_t seed, const char *prefix, bool newer)
{
    schema_gen g = {.rng = seed * UINT64_C(0x9E3779B97F4A7C15) + 1, .p = prefix};
    uint64_t added = seed * UINT64_C(0xD1B54A32D192ED03) + 7;
    g.enums = pick(&g.rng, 3);
    for (unsigned i = 0; i < g.enums; i++) {
        tprintf(t, "enum %sE%u : %s { ", prefix, i,
            enum_bases[pick(&g.rng, sizeof enum_bases / sizeof *enum_bases)]);
        unsigned n = 1 + pick(&g.rng, 4);
        for (unsigned v = 0; v < n; v++)
            tprintf(t, "e%u_%u; ", i, v);
        tprintf(t, "}\n");
    }
    g.flags = pick(&g.rng, 2);
    for (unsigned i = 0; i < g.flags; i++)
        tprintf(t, "flags %sF%u : %s { a%u = 0x1; b%u = 0x2; c%u = 0x4; }\n", prefix, i,
            enum_bases[2 + pick(&g.rng, 7)], i, i, i);
    unsigned structs = 1 + pick(&g.rng, MAX_STRUCTS);
    unsigned base[MAX_STRUCTS] = {0}; /* 1 + the base's number, 0: none */
    bool is_base[MAX_STRUCTS] = {false};
    for (unsigned s = 1; s < structs; s++)
        if (pick(&g.rng, 4) == 0) {
            base[s] = 1 + pick(&g.rng, s);
            is_base[base[s] - 1] = true;
        }
    for (unsigned s = 0; s < structs; s++) {
        tprintf(t, "\nstruct %sS%u", prefix, s);
        if (base[s])
            tprintf(t, " : %sS%u", prefix, base[s] - 1);
        tprintf(t, " {\n");
        unsigned fields = pick(&g.rng, 9);
        for (unsigned f = 0; f < fields; f++)
            field(&g, t, s, f);
        if (newer && !is_base[s]) {
            uint64_t own = g.rng;
            g.rng = added;
            unsigned more = pick(&g.rng, 4);
            for (unsigned f = 0; f < more; f++)
                added_field(&g, t, s, fields + f);
            added = g.rng;
            g.rng = own;
        }
        tprintf(t, "}\n");
    }
}

char *gen_schema(const char *package, uint64_t first_seed, unsigned count)
{
    text_buf t = {0};
    tprintf(&t, "package %s\n", package);
    for (unsigned i = 0; i < count; i++) {
        char prefix[32] = "";
        if (count > 1)
            snprintf(prefix, sizeof prefix, "A%llu_", (unsigned long long)(first_seed + i));
        tprintf(&t, "\n");
        declarations(&t, first_seed + i, prefix, false);
    }
    return t.s;
}

char *gen_schema_newer(const char *package, uint64_t seed)
{
    text_buf t = {0};
    tprintf(&t, "package %s\n\n", package);
    declarations(&t, seed, "", true);
    return t.s;
}
