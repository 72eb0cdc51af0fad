/* Random schema text for differential tests: enums, flags and structs whose
 * fields take every shape the schema language has (optional, arrays, vectors,
 * lists, sets, maps and hashes with optional values), structs held by value,
 * optionally, in arrays and collections, bases, and self-references through
 * vectors and lists. Deterministic: a seed always gives the same text. */
#include "schema_gen.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "value_gen.h"

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void out(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        if (!t->s)
            abort();
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

static unsigned pick(uint64_t *rng, unsigned n)
{
    return (unsigned)(gen_rand(rng) % n);
}

static const char *const scalars[] = {"bool",  "byte",   "char",  "wchar",   "int8",
                                      "uint8", "int16",  "uint16", "int32",  "uint32",
                                      "int64", "uint64", "float", "double",  "decimal",
                                      "timestamp", "uuid", "string", "bytes"};
/* what a key or a set's element may be (not bytes, not a struct here) */
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
static void base_type(schema_gen *g, text *t, unsigned self, bool key)
{
    unsigned r = pick(&g->rng, 10);
    if (key) {
        if (r == 0 && g->enums)
            out(t, "%sE%u", g->p, pick(&g->rng, g->enums));
        else if (r == 1 && g->flags)
            out(t, "%sF%u", g->p, pick(&g->rng, g->flags));
        else
            out(t, "%s", keys[pick(&g->rng, sizeof keys / sizeof *keys)]);
        return;
    }
    if (r < 3 && self > 0)
        out(t, "%sS%u", g->p, pick(&g->rng, self));
    else if (r == 3 && g->enums)
        out(t, "%sE%u", g->p, pick(&g->rng, g->enums));
    else if (r == 4 && g->flags)
        out(t, "%sF%u", g->p, pick(&g->rng, g->flags));
    else
        out(t, "%s", scalars[pick(&g->rng, sizeof scalars / sizeof *scalars)]);
}

static void field(schema_gen *g, text *t, unsigned self, unsigned index)
{
    out(t, "    ");
    unsigned shape = pick(&g->rng, 14);
    if (shape == 0) { /* itself, through a vector or a list: the only self-reference */
        out(t, "%sS%u%s", g->p, self, pick(&g->rng, 2) ? "[]" : "()");
    } else if (shape == 1) { /* a set */
        base_type(g, t, self, true);
        out(t, "!");
    } else if (shape >= 10) { /* a map or a hash, the value maybe optional */
        bool hash = pick(&g->rng, 2);
        base_type(g, t, self, false);
        out(t, "%s%s", pick(&g->rng, 3) ? "" : "?", hash ? "{" : "<");
        base_type(g, t, self, true);
        out(t, "%s", hash ? "}" : ">");
    } else {
        base_type(g, t, self, false);
        out(t, "%s", pick(&g->rng, 3) ? "" : "?");
        switch (shape % 4) {
        case 0: break;
        case 1: out(t, "[%u]", 1 + pick(&g->rng, 4)); break;
        case 2: out(t, "[]"); break;
        default: out(t, "()"); break;
        }
    }
    out(t, " f%u_%u;\n", self, index);
}

/* A field a newer writer adds at the end of a struct: any field, or a scalar
 * with a default (applied when an older writer's frame lacks it). */
static void added_field(schema_gen *g, text *t, unsigned self, unsigned index)
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
    out(t, "    ");
    if (r == 0 && g->enums)
        out(t, "%sE0 %s = %sE0.e0_0", g->p, name, g->p);
    else
        out(t, with_default[r], name);
    out(t, ";\n");
}

/* One seed's declarations: a few enums and flags, up to MAX_STRUCTS structs
 * (some derived from an earlier one). `newer`: the same, and structs that are
 * no base (whose fields end their body: wire-format versioning) get up to 3
 * fields more, drawn from a stream of their own. */
static void declarations(text *t, uint64_t seed, const char *prefix, bool newer)
{
    schema_gen g = {.rng = seed * UINT64_C(0x9E3779B97F4A7C15) + 1, .p = prefix};
    uint64_t added = seed * UINT64_C(0xD1B54A32D192ED03) + 7;
    g.enums = pick(&g.rng, 3);
    for (unsigned i = 0; i < g.enums; i++) {
        out(t, "enum %sE%u : %s { ", prefix, i,
            enum_bases[pick(&g.rng, sizeof enum_bases / sizeof *enum_bases)]);
        unsigned n = 1 + pick(&g.rng, 4);
        for (unsigned v = 0; v < n; v++)
            out(t, "e%u_%u; ", i, v);
        out(t, "}\n");
    }
    g.flags = pick(&g.rng, 2);
    for (unsigned i = 0; i < g.flags; i++)
        out(t, "flags %sF%u : %s { a%u = 0x1; b%u = 0x2; c%u = 0x4; }\n", prefix, i,
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
        out(t, "\nstruct %sS%u", prefix, s);
        if (base[s])
            out(t, " : %sS%u", prefix, base[s] - 1);
        out(t, " {\n");
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
        out(t, "}\n");
    }
}

char *gen_schema(const char *package, uint64_t first_seed, unsigned count)
{
    text t = {0};
    out(&t, "package %s\n", package);
    for (unsigned i = 0; i < count; i++) {
        char prefix[32] = "";
        if (count > 1)
            snprintf(prefix, sizeof prefix, "A%llu_", (unsigned long long)(first_seed + i));
        out(&t, "\n");
        declarations(&t, first_seed + i, prefix, false);
    }
    return t.s;
}

char *gen_schema_newer(const char *package, uint64_t seed)
{
    text t = {0};
    out(&t, "package %s\n\n", package);
    declarations(&t, seed, "", true);
    return t.s;
}
