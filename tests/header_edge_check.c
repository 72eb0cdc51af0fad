/* Compiled and run by test_header against the header generated for
 * tests/header_edge.fbe. Expected values are written by hand from that schema
 * and schema-language.md 4.3-4.8 (C++ literal rules: leading 0 = octal, casts
 * wrap; escapes keep their C++ meaning). Exits non-zero if a check fails. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "edge.h"

static int checks;
static int failures;

#define CHECK(cond)                                                                       \
    do {                                                                                  \
        checks++;                                                                         \
        if (!(cond)) {                                                                    \
            failures++;                                                                   \
            fprintf(stderr, "header_edge_check: FAILED line %d: %s\n", __LINE__, #cond);  \
        }                                                                                 \
    } while (0)

static bool all_zero(const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return false;
    return true;
}

static void check_defaults(const edge_Defaults *d)
{
    /* "q\"b\\c??=d\n\t\x01~": q " b \ c ? ? = d LF TAB 0x01 ~ */
    static const char s[] = {'q', '"', 'b', '\\', 'c', '?', '?', '=', 'd', '\n', '\t', 1, '~'};
    CHECK(d->s.size == sizeof s && memcmp(d->s.data, s, sizeof s) == 0);
    CHECK(d->empty.size == 0 && d->empty.data != NULL);
    CHECK(d->c == 10);
    CHECK(d->w == 65);
    CHECK(d->neg == -1);
    CHECK(d->lo8 == -128);
    CHECK(d->lo16 == -32768);
    CHECK(d->oct == 8);
    CHECK(d->hex == 0xDEADBEEFu);
    CHECK(d->big == -INT64_C(9223372036854775807));
    CHECK(d->d == 0.0 && signbit(d->d));
    CHECK(d->dint == 1.0);
    CHECK(d->f == 0.1f);
    /* -12.5 (wire-format.md 2.9.5): 7d 00 .. 00 | 00 00 01 80 */
    CHECK(d->dec.lo == 0x7d && d->dec.hi == 0 && d->dec.flags == 0x80010000u);
    CHECK(all_zero(&d->u0, sizeof d->u0));
    CHECK((d->u4.bytes[6] >> 4) == 4 && (d->u4.bytes[8] & 0xc0) == 0x80);
    CHECK(d->t == UINT64_C(1234567890123));
    CHECK(d->col == 8);
    CHECK(d->bits == 0xFF);
    CHECK(d->top == UINT64_MAX);
    CHECK(d->bottom == INT64_MIN);
    CHECK(d->ocol.has_value && d->ocol.value == -2);
    CHECK(d->os.has_value && d->os.value.size == 0);
    CHECK(d->obig.has_value && d->obig.value == -INT64_C(9223372036854775807));
    CHECK(d->ou4.has_value && (d->ou4.value.bytes[6] >> 4) == 4);
    CHECK(d->st == 6);
    CHECK(!d->reset.has_value);
    CHECK(d->resetReset == false);
}

int main(void)
{
    CHECK(edge_Color_red == -2);
    CHECK(edge_Color_green == -1);
    CHECK(edge_Color_blue == 8);
    CHECK(edge_Color_grey == 32767);
    CHECK(sizeof(edge_Color) == 2);
    CHECK(edge_Bits_all == 255);
    CHECK(edge_Big_top == UINT64_MAX);
    CHECK(edge_Small_bottom == INT64_MIN);
    CHECK(edge_VERSION_MAJOR == 2 && edge_VERSION_MINOR == 3);
    CHECK(edge_Keywords_TYPE == 6u);
    CHECK(edge_Defaults_TYPE == 7u);
    CHECK(edge_Node_TYPE == 8u);
    CHECK(edge_Derived_TYPE == 9u);
    CHECK(edge_Empty_TYPE == 10u);
    CHECK(edge_DerivedEmpty_TYPE == 11u);
    CHECK(edge_Early_TYPE == 12u);
    CHECK(edge_Late_TYPE == 13u);
    CHECK(edge_Later_TYPE == 14u);
    CHECK(edge_Tree_TYPE == 15u);

    edge_Keywords k;
    memset(&k, 0xa5, sizeof k);
    edge_Keywords_init(&k);
    CHECK(k.int_ == 5);
    CHECK(k.auto_ == true);
    CHECK(k.register_.size == 1 && k.register_.data[0] == 'x');
    CHECK(k.type == 3);
    CHECK(k.default_ == 1.5);
    CHECK(k.new_ == 7);
    CHECK(k.class_ == true);
    CHECK(k.template_.size == 1 && k.template_.data[0] == 't');

    edge_Macros m;
    memset(&m, 0xa5, sizeof m);
    edge_Macros_init(&m);
    CHECK(m.INT32_MAX_ == 7 && m.UINT_LEAST16_MAX_ == 0 && m.SIZE_MAX_ == 8);
    CHECK(m.NAN_ == 2.5 && m.M_PI_ == 0.0 && m.linux_ == true);
    CHECK(m.INT32_MAXIMUM == 9); /* not a macro: kept */
    CHECK(m.INT32_WIDTH_ == 0 && m.M_PIl_ == 0.0 && m.FP_INT_UPWARD_ == 0 && m.SNAN_ == 0.0f);
    /* `nullptr` (C23) becomes nullptr_, so the field really named nullptr_ gets one more */
    CHECK(m.nullptr_ == 10 && m.nullptr__ == 11);
    CHECK(edge_Macros_TYPE == 16u);

    edge_Defaults d;
    memset(&d, 0xa5, sizeof d);
    edge_Defaults_init(&d);
    check_defaults(&d);
    edge_Defaults d2;
    edge_Defaults_init(&d2);
    CHECK(memcmp(d.u4.bytes, d2.u4.bytes, 16) != 0); /* uuid4: fresh on every init */

    edge_Derived n;
    memset(&n, 0xa5, sizeof n);
    edge_Derived_init(&n);
    CHECK(n.base.kids.data == NULL && n.base.kids.size == 0);
    CHECK(n.base.more.data == NULL && n.base.more.size == 0);
    CHECK(n.base.v == 7);
    CHECK(n.base.orders[0] == NULL && n.base.orders[2] == NULL);
    check_defaults(&n.base.defaults[0]);
    check_defaults(&n.base.defaults[1]);
    CHECK(n.extra == 200);

    /* A vector of the struct itself works like any other. */
    edge_Node kids[2];
    edge_Node_init(&kids[0]);
    edge_Node_init(&kids[1]);
    kids[1].v = 8;
    n.base.kids.data = kids;
    n.base.kids.size = 2;
    CHECK(n.base.kids.data[1].v == 8 && n.base.kids.data[0].v == 7);

    edge_DerivedEmpty de;
    edge_DerivedEmpty_init(&de);
    CHECK(sizeof de == 1);

    edge_Early early;
    memset(&early, 0xa5, sizeof early);
    edge_Early_init(&early);
    CHECK(early.late.y == 4);
    CHECK(early.late.base.z == 5);
    CHECK(early.lm.data == NULL && early.lm.size == 0);
    CHECK(early.lv.data == NULL && early.lv.size == 0);

    edge_Tree t[2];
    edge_Tree_init(&t[0]);
    edge_Tree_init(&t[1]);
    CHECK(t[0].name.size == 4 && memcmp(t[0].name.data, "root", 4) == 0);
    edge_Tree_byid_entry e = {.key = 42, .value = t[1]};
    t[0].byid.data = &e;
    t[0].byid.size = 1;
    CHECK(t[0].byid.data[0].key == 42 && t[0].byid.data[0].value.name.size == 4);
    CHECK(sizeof *t[0].bykey.data == sizeof(edge_Tree_bykey_entry));

    printf("header_edge_check: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
