/* Host helpers of the runtime: decimal <-> double (wire-format.md 2.9), uuid text
 * and generation (2.8), current timestamp (2.7). Expected decimal bytes are typed
 * from the spec's tables, never produced by the code under test. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime() under -std=c11 */

#include "test_util.h"

#include "fbe/types.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* pthreads are in libc proper since glibc 2.34: no -pthread (and no CMake Threads
 * dependency) needed. POSIX threads rather than C11 <threads.h>: glibc's thrd_create
 * bypasses the sanitizers' pthread_create interceptor and crashes ThreadSanitizer. */
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
#include <pthread.h>
#define HAVE_THREADS 1
#endif

/* ---- helpers ------------------------------------------------------------------ */

static double from_bits(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static uint64_t to_bits(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

/* The 16 wire bytes of a decimal (2.9.1), independent of the struct layout. */
static void decimal_bytes(const fbe_decimal *d, uint8_t out[16])
{
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(d->lo >> (8 * i));
    for (int i = 0; i < 4; i++)
        out[8 + i] = (uint8_t)(d->hi >> (8 * i));
    for (int i = 0; i < 4; i++)
        out[12 + i] = (uint8_t)(d->flags >> (8 * i));
}

static fbe_decimal decimal_from_bytes(const uint8_t b[16])
{
    fbe_decimal d = {0, 0, 0};
    for (int i = 0; i < 8; i++)
        d.lo |= (uint64_t)b[i] << (8 * i);
    for (int i = 0; i < 4; i++)
        d.hi |= (uint32_t)b[8 + i] << (8 * i);
    for (int i = 0; i < 4; i++)
        d.flags |= (uint32_t)b[12 + i] << (8 * i);
    return d;
}

static void assert_encodes(double x, const uint8_t expected[16])
{
    fbe_decimal d = fbe_decimal_from_double(x);
    uint8_t got[16];
    decimal_bytes(&d, got);
    if (memcmp(got, expected, 16) != 0) {
        char g[64], e[64];
        for (int i = 0; i < 16; i++) {
            snprintf(g + 3 * i, 4, "%02x ", got[i]);
            snprintf(e + 3 * i, 4, "%02x ", expected[i]);
        }
        fail_msg("decimal(%.17g): got %s expected %s", x, g, e);
    }
}

static const uint8_t ZERO16[16] = {0};

/* ---- decimal: the examples of wire-format.md 2.9.5 ------------------------------ */

typedef struct decimal_example {
    double x;
    uint8_t bytes[16];
    double back; /* fbe_decimal_to_double of the bytes */
} decimal_example;

/* Every row of the 2.9.5 table, bytes hand-typed from the spec. `back` is the value
 * read back with the 2.9.2 formula: x itself unless the 15-digit rounding or the
 * division by P10(scale) changes it. */
static const decimal_example EXAMPLES[] = {
    {0.0, {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
           0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, 0.0},
    {1.0, {0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
           0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, 1.0},
    {-1.0, {0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80}, -1.0},
    {0.1, {0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
           0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00}, 0.1},
    {100.0, {0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
             0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, 100.0},
    {0.5, {0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
           0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00}, 0.5},
    {-12.5, {0x7d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
             0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x80}, -12.5},
    /* 123456123456, scale 6 */
    {123456.123456, {0x40, 0xf2, 0x8e, 0xbe, 0x1c, 0x00, 0x00, 0x00,
                     0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06, 0x00}, 123456.123456},
    {1234567.891, {0xd3, 0x02, 0x96, 0x49, 0x00, 0x00, 0x00, 0x00,
                   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00}, 1234567.891},
    /* pi: 314159265358979, scale 14 (15 digits kept, so the read-back differs) */
    {3.141592653589793, {0x83, 0x24, 0x6a, 0xe7, 0xb9, 0x1d, 0x01, 0x00,
                         0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0e, 0x00}, 3.14159265358979},
    {2.5e-7, {0x19, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
              0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00}, 2.5e-7},
    {1e15, {0x00, 0x80, 0xc6, 0xa4, 0x7e, 0x8d, 0x03, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, 1e15},
    /* = 123456789012346000 (15 digits kept) */
    {1.2345678901234568e17, {0x90, 0xf4, 0x30, 0xa6, 0x4b, 0x9b, 0xb6, 0x01,
                             0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
     1.23456789012346e17},
    {1e20, {0x00, 0x00, 0x10, 0x63, 0x2d, 0x5e, 0xc7, 0x6b,
            0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, 1e20},
    {7.9e28, {0x00, 0x00, 0x00, 0x98, 0xcb, 0x92, 0x57, 0x51,
              0xb5, 0x44, 0x43, 0xff, 0x00, 0x00, 0x00, 0x00}, 7.9e28},
    /* scale 28; read back as 1 / P10(28) = 0x3A1FB0F6BE50601A = 1.0000000000000001e-28,
     * one ulp above the literal 1e-28 (0x3A1FB0F6BE506019). */
    {1e-28, {0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
             0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1c, 0x00}, 1.0000000000000001e-28},
};

static void test_decimal_examples(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof EXAMPLES / sizeof EXAMPLES[0]; i++)
        assert_encodes(EXAMPLES[i].x, EXAMPLES[i].bytes);
}

/* Row "1e29, NaN, +-Inf, 1e-29: all zero", and the other out-of-range inputs. */
static void test_decimal_out_of_range(void **state)
{
    (void)state;
    assert_encodes(1e29, ZERO16);
    assert_encodes(NAN, ZERO16);
    assert_encodes(-NAN, ZERO16);
    assert_encodes(INFINITY, ZERO16);
    assert_encodes(-INFINITY, ZERO16);
    assert_encodes(1e-29, ZERO16);
    assert_encodes(-123.456e+123, ZERO16);
    assert_encodes(123.456e+123, ZERO16);
    assert_encodes(-0.0, ZERO16);
    assert_encodes(DBL_MIN, ZERO16);             /* smallest normal: iExp = -1021 */
    assert_encodes(DBL_MIN / 4, ZERO16);         /* subnormal */
    assert_encodes(from_bits(1), ZERO16);        /* smallest subnormal */
    assert_encodes(DBL_MAX, ZERO16);
    assert_encodes(ldexp(1.0, 96), ZERO16);      /* iExp = 97 */
    assert_encodes(-ldexp(1.0, 96), ZERO16);
    /* 2^-95 passes the exponent test (iExp = -94) but 2^-95 * P10(28) = 0.2524... rounds
     * to m = 0, which is also written as zero (and the sign is lost). */
    assert_encodes(ldexp(1.0, -95), ZERO16);
    assert_encodes(-ldexp(1.0, -95), ZERO16);
}

/* Boundary values, each derived by hand from the 2.9.3 algorithm. */
static void test_decimal_boundaries(void **state)
{
    (void)state;
    /* 2^-94: iExp = -93, iPower = 14 - floor(-93*19728/65536 = -27.99) = 42 -> 28;
     * x = 2^-94 * 1e28 = 0.5048... -> m = 1, scale 28 (no zeros to drop). */
    static const uint8_t two_m94[16] = {0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x1c, 0};
    assert_encodes(ldexp(1.0, -94), two_m94);

    /* Largest double below 2^96 = 2^96 - 2^43 = 79228162514264328797450928128:
     * iExp = 96, iPower = 14 - 28 = -14, x / 1e14 = 792281625142643.28797... ->
     * m = 792281625142643; M = m * 10^14 = 79228162514264300000000000000 =
     * 0xFFFFFFFF_FFFFDDCF_122AC000 (< 2^96: the M >= 2^96 QUIRK is unreachable here). */
    static const uint8_t below96[16] = {0x00, 0xc0, 0x2a, 0x12, 0xcf, 0xdd, 0xff, 0xff,
                                        0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0};
    assert_encodes(nextafter(ldexp(1.0, 96), 0.0), below96);
    static const uint8_t below96_neg[16] = {0x00, 0xc0, 0x2a, 0x12, 0xcf, 0xdd, 0xff, 0xff,
                                            0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0x80};
    assert_encodes(-nextafter(ldexp(1.0, 96), 0.0), below96_neg);

    /* iPower = -1 with x < 1e15: left unscaled, scale 0, and lmax = min(0, 14) = 0 keeps
     * the trailing zeros: 6e14 = 600000000000000 = 0x000221B262DD8000. */
    static const uint8_t six_e14[16] = {0x00, 0x80, 0xdd, 0x62, 0xb2, 0x21, 0x02, 0x00,
                                        0, 0, 0, 0, 0, 0, 0, 0};
    assert_encodes(6e14, six_e14);
    /* 999999999999999 = 0x00038D7EA4C67FFF */
    static const uint8_t nines[16] = {0xff, 0x7f, 0xc6, 0xa4, 0x7e, 0x8d, 0x03, 0x00,
                                      0, 0, 0, 0, 0, 0, 0, 0};
    assert_encodes(999999999999999.0, nines);

    /* Plain decimal-looking values: m and scale obvious, trailing zeros dropped. */
    static const uint8_t p03[16] = {0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0};
    assert_encodes(0.3, p03);
    static const uint8_t p125[16] = {0x7d, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x03, 0};
    assert_encodes(0.125, p125);
    /* 123.456 -> 123456 = 0x1E240, scale 3 */
    static const uint8_t p123456[16] = {0x40, 0xe2, 0x01, 0, 0, 0, 0, 0,
                                        0, 0, 0, 0, 0, 0, 0x03, 0};
    assert_encodes(123.456, p123456);
    static const uint8_t p1em5[16] = {0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x05, 0};
    assert_encodes(1e-5, p1em5);
    /* 1.5e-15: iPower = 28 caps the scale; 15 at scale 16. */
    static const uint8_t p15em16[16] = {0x0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0};
    assert_encodes(1.5e-15, p15em16);
}

/* The P10(23) subtlety (2.9.4): glibc's pow(10, 23) is 0x44B52D02C7E14AF7 =
 * 100000000000000008388608, one ulp (2^24) above the literal 1e23 =
 * 99999999999999991611392 (the exact 10^23 is halfway between).
 *
 * x = 0x3E35798EE2308C40 = 5.00000000000000506769647946880841260508532286621630...e-9.
 * Its biased exponent gives iExp = -27, so iPower = 14 - floor(-27*19728/65536 =
 * -8.13) = 23 and the encoder computes x * P10(23):
 *   exact x * 100000000000000008388608 = 500000000000000.5487126879468808837714...
 *   which lies in [2^48, 2^49) where the double spacing is 2^-4, so it rounds to
 *   500000000000000.5625; x >= 1e14 so no extra *10; m = 500000000000000 and
 *   frac = 0.5625 > 0.5, so m = 500000000000001 = 0x0001C6BF52634001 with no trailing
 *   zero: scale 23.
 * With the correctly rounded literal instead:
 *   exact x * 99999999999999991611392 = 500000000000000.4648266079468807987...
 *   rounds to 500000000000000.4375, m = 500000000000000, and dropping 8+4+2 zeros
 *   would give 5 at scale 9, i.e. exactly 5e-9: a different decimal. */
static void test_decimal_p10_23(void **state)
{
    (void)state;
    double x = from_bits(0x3E35798EE2308C40u);
    assert_true(x == 5.000000000000005e-09);
    static const uint8_t glibc[16] = {0x01, 0x40, 0x63, 0x52, 0xbf, 0xc6, 0x01, 0x00,
                                      0, 0, 0, 0, 0, 0, 0x17, 0};
    assert_encodes(x, glibc);
    static const uint8_t glibc_neg[16] = {0x01, 0x40, 0x63, 0x52, 0xbf, 0xc6, 0x01, 0x00,
                                          0, 0, 0, 0, 0, 0, 0x17, 0x80};
    assert_encodes(-x, glibc_neg);

    /* Decoding divides by the same P10(23): 1 / 100000000000000008388608 rounds to
     * 0x3B282DB34012B251, which is the literal 1e-23; dividing by the literal 1e23
     * would give 0x3B282DB34012B252 (1.0000000000000001e-23). */
    fbe_decimal one_e23 = {1, 0, 23u << 16};
    assert_int_equal(to_bits(fbe_decimal_to_double(&one_e23)), 0x3B282DB34012B251u);
    assert_true(fbe_decimal_to_double(&one_e23) == 1e-23);
}

static void test_decimal_round_trip(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof EXAMPLES / sizeof EXAMPLES[0]; i++) {
        const decimal_example *e = &EXAMPLES[i];
        fbe_decimal d = decimal_from_bytes(e->bytes);
        double v = fbe_decimal_to_double(&d);
        if (to_bits(v) != to_bits(e->back))
            fail_msg("to_double(decimal(%.17g)) = %.17g, expected %.17g", e->x, v, e->back);
        fbe_decimal again = fbe_decimal_from_double(fbe_decimal_to_double(&d));
        uint8_t got[16];
        decimal_bytes(&again, got);
        /* Re-encoding the read-back value reproduces the same bytes. */
        assert_memory_equal(got, e->bytes, 16);
    }
}

static void test_decimal_to_double(void **state)
{
    (void)state;
    /* hi carries bits 64..95 */
    fbe_decimal d = {0, 1, 0};
    assert_true(fbe_decimal_to_double(&d) == 18446744073709551616.0);
    d = (fbe_decimal){5, 0, 0x80000000u | (1u << 16)};
    assert_true(fbe_decimal_to_double(&d) == -0.5);
    /* Scales beyond 28 (never written, accepted on read) use plain pow. */
    d = (fbe_decimal){1, 0, 30u << 16};
    assert_true(fbe_decimal_to_double(&d) == 1.0 / pow(10.0, 30.0));
    d = (fbe_decimal){7, 0, 255u << 16};
    assert_true(fbe_decimal_to_double(&d) == 7.0 / pow(10.0, 255.0));
    /* Bits other than the scale and the sign are ignored. */
    d = (fbe_decimal){125, 0, 0x80000000u | 0x7F000000u | (1u << 16) | 0xFFFFu};
    assert_true(fbe_decimal_to_double(&d) == -12.5);
    /* Zero, and negative zero. */
    d = (fbe_decimal){0, 0, 0};
    assert_true(fbe_decimal_to_double(&d) == 0.0);
    d = (fbe_decimal){0, 0, 0x80000000u};
    assert_true(signbit(fbe_decimal_to_double(&d)));
    /* The maximal magnitude 2^96 - 1 */
    d = (fbe_decimal){UINT64_MAX, UINT32_MAX, 0};
    assert_true(fbe_decimal_to_double(&d) == ldexp(1.0, 96));
}

/* ---- uuid --------------------------------------------------------------------- */

static const uint8_t SAMPLE_UUID[16] = {0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3,
                                        0xa4, 0x56, 0x42, 0x66, 0x55, 0x44, 0x00, 0x00};

static bool parse(const char *s, fbe_uuid *u)
{
    return fbe_uuid_parse(s, strlen(s), u);
}

static void test_uuid_parse_format(void **state)
{
    (void)state;
    fbe_uuid u;
    assert_true(parse("123e4567-e89b-12d3-a456-426655440000", &u));
    assert_memory_equal(u.bytes, SAMPLE_UUID, 16);

    char text[37];
    memset(text, 'x', sizeof text);
    fbe_uuid_format(&u, text);
    assert_string_equal(text, "123e4567-e89b-12d3-a456-426655440000");
    assert_int_equal(text[36], '\0');

    fbe_uuid z;
    memset(&z, 0, sizeof z);
    fbe_uuid_format(&z, text);
    assert_string_equal(text, "00000000-0000-0000-0000-000000000000");
    memset(&z, 0xff, sizeof z);
    fbe_uuid_format(&z, text);
    assert_string_equal(text, "ffffffff-ffff-ffff-ffff-ffffffffffff");
    static const uint8_t seq[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                    0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
    memcpy(z.bytes, seq, 16);
    fbe_uuid_format(&z, text);
    assert_string_equal(text, "01234567-89ab-cdef-fedc-ba9876543210");
    fbe_uuid back;
    assert_true(parse(text, &back));
    assert_memory_equal(back.bytes, seq, 16);
}

static void test_uuid_parse_lenient(void **state)
{
    (void)state;
    static const char *const ok[] = {
        "{123e4567-e89b-12d3-a456-426655440000}",
        "123E4567-E89B-12D3-A456-426655440000",
        "{123E4567-e89b-12D3-A456-426655440000}",
        "123e4567e89b12d3a456426655440000",
        "1-2-3-e-4567e89b12d3a456426655440000---",
        "}}123e4567e89b12d3{a456426655440000{",
        "--{{123e4567-e89b-12d3-a456-426655440000}}--",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        fbe_uuid u;
        memset(&u, 0xAA, sizeof u);
        if (!parse(ok[i], &u))
            fail_msg("rejected %s", ok[i]);
        assert_memory_equal(u.bytes, SAMPLE_UUID, 16);
    }
    /* len bounds the input: a longer buffer is fine when len stops at 32 digits. */
    fbe_uuid u;
    assert_true(fbe_uuid_parse("123e4567e89b12d3a456426655440000ZZZ", 32, &u));
    assert_memory_equal(u.bytes, SAMPLE_UUID, 16);
}

static void test_uuid_parse_rejects(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "-{}",
        "123e4567-e89b-12d3-a456-42665544000",    /* 31 digits */
        "123e4567-e89b-12d3-a456-4266554400",     /* 30 digits */
        "123e4567-e89b-12d3-a456-4266554400000",  /* 33 digits */
        "123e4567-e89b-12d3-a456-42665544000000", /* 34 digits */
        "123e4567-e89b-12d3-a456-42665544000g",   /* non-hex */
        "g23e4567-e89b-12d3-a456-426655440000",
        "123e4567 e89b-12d3-a456-426655440000",   /* space */
        " 123e4567-e89b-12d3-a456-426655440000",
        "123e4567-e89b-12d3-a456-426655440000 ",
        "(123e4567-e89b-12d3-a456-426655440000)",
        "0x123e4567e89b12d3a456426655440000",
        "123e4567_e89b_12d3_a456_426655440000",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fbe_uuid u;
        memset(&u, 0xAA, sizeof u);
        if (parse(bad[i], &u))
            fail_msg("accepted \"%s\"", bad[i]);
        /* out is left untouched on failure */
        for (int k = 0; k < 16; k++)
            assert_int_equal(u.bytes[k], 0xAA);
    }
    fbe_uuid u;
    /* len cuts the text short: 31 digits */
    assert_false(fbe_uuid_parse("123e4567e89b12d3a456426655440000", 31, &u));
    /* an embedded NUL is not a hex digit */
    static const char nul[] = "123e4567e89b12d3\0a456426655440000";
    assert_false(fbe_uuid_parse(nul, sizeof nul - 1, &u));
    /* non-ASCII bytes */
    assert_false(parse("123e4567e89b12d3a45642665544000\xc3\xa9", &u));
    assert_false(fbe_uuid_parse(NULL, 0, &u));
}

static int cmp_uuid(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(fbe_uuid));
}

enum { N_UUIDS = 10000 };

static void assert_all_distinct(fbe_uuid *u, size_t n)
{
    qsort(u, n, sizeof *u, cmp_uuid);
    for (size_t i = 1; i < n; i++)
        if (memcmp(&u[i - 1], &u[i], sizeof *u) == 0)
            fail_msg("duplicate uuid at %zu", i);
}

static void test_uuid_v4(void **state)
{
    (void)state;
    fbe_uuid *u = malloc(N_UUIDS * sizeof *u);
    assert_non_null(u);
    unsigned bit_ones[128] = {0};
    for (size_t i = 0; i < N_UUIDS; i++) {
        u[i] = fbe_uuid_v4();
        assert_int_equal(u[i].bytes[6] >> 4, 4);        /* version */
        assert_int_equal(u[i].bytes[8] & 0xC0, 0x80);   /* RFC 4122 variant */
        for (int b = 0; b < 128; b++)
            bit_ones[b] += (u[i].bytes[b / 8] >> (b % 8)) & 1;
    }
    /* Every random bit is set in roughly half of the values (binomial, sd = 50). */
    for (int b = 0; b < 128; b++) {
        bool fixed = (b / 8 == 6 && b % 8 >= 4) || (b / 8 == 8 && b % 8 >= 6);
        if (!fixed && (bit_ones[b] < 4500 || bit_ones[b] > 5500))
            fail_msg("bit %d set %u times out of %d", b, bit_ones[b], N_UUIDS);
    }
    assert_all_distinct(u, N_UUIDS);
    free(u);
}

/* 100 ns intervals since 1582-10-15 of a version 1 uuid. */
static uint64_t uuid1_time(const fbe_uuid *u)
{
    uint64_t low = ((uint64_t)u->bytes[0] << 24) | ((uint64_t)u->bytes[1] << 16) |
                   ((uint64_t)u->bytes[2] << 8) | u->bytes[3];
    uint64_t mid = ((uint64_t)u->bytes[4] << 8) | u->bytes[5];
    uint64_t hi = ((uint64_t)(u->bytes[6] & 0x0F) << 8) | u->bytes[7];
    return (hi << 48) | (mid << 32) | low;
}

static void test_uuid_v1(void **state)
{
    (void)state;
    fbe_uuid *u = malloc(N_UUIDS * sizeof *u);
    assert_non_null(u);
    uint64_t before = fbe_timestamp_now() / 100 + UINT64_C(0x01B21DD213814000);
    for (size_t i = 0; i < N_UUIDS; i++) {
        u[i] = fbe_uuid_v1();
        assert_int_equal(u[i].bytes[6] >> 4, 1);       /* version */
        assert_int_equal(u[i].bytes[8] & 0xC0, 0x80);  /* RFC 4122 variant */
        assert_int_equal(u[i].bytes[10] & 0x01, 0x01); /* multicast bit of the node */
        if (i > 0) {
            /* strictly increasing time, same clock sequence and node */
            assert_true(uuid1_time(&u[i]) > uuid1_time(&u[i - 1]));
            assert_memory_equal(u[i].bytes + 8, u[0].bytes + 8, 8);
        }
    }
    uint64_t after = fbe_timestamp_now() / 100 + UINT64_C(0x01B21DD213814000);
    /* The time field is the wall clock (the counter may run ahead by at most one
     * tick per call). */
    assert_true(uuid1_time(&u[0]) + 10 >= before);
    assert_true(uuid1_time(&u[N_UUIDS - 1]) <= after + N_UUIDS);
    assert_all_distinct(u, N_UUIDS);
    free(u);
}

#ifdef HAVE_THREADS
enum { N_THREADS = 4, N_PER_THREAD = 5000 };

static void *uuid1_worker(void *arg)
{
    fbe_uuid *out = arg;
    for (int i = 0; i < N_PER_THREAD; i++)
        out[i] = fbe_uuid_v1();
    return NULL;
}

static void test_uuid_v1_threads(void **state)
{
    (void)state;
    fbe_uuid *u = malloc(N_THREADS * N_PER_THREAD * sizeof *u);
    assert_non_null(u);
    pthread_t t[N_THREADS];
    for (int i = 0; i < N_THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, uuid1_worker, u + i * N_PER_THREAD), 0);
    for (int i = 0; i < N_THREADS; i++)
        assert_int_equal(pthread_join(t[i], NULL), 0);
    assert_all_distinct(u, N_THREADS * N_PER_THREAD);
    free(u);
}
#endif

/* ---- timestamp ------------------------------------------------------------------ */

static void test_timestamp_now(void **state)
{
    (void)state;
    uint64_t t = fbe_timestamp_now();
    /* 2020-01-01T00:00:00Z .. 2100-01-01T00:00:00Z */
    assert_true(t >= UINT64_C(1577836800) * 1000000000u);
    assert_true(t < UINT64_C(4102444800) * 1000000000u);
    /* agrees with time() */
    uint64_t s = (uint64_t)time(NULL);
    assert_true(t / 1000000000u + 2 >= s && t / 1000000000u <= s + 2);

    uint64_t prev = fbe_timestamp_now();
    bool advanced = false;
    for (int i = 0; i < 100000; i++) {
        uint64_t now = fbe_timestamp_now();
        assert_true(now >= prev);
        advanced |= now > prev;
        prev = now;
    }
    assert_true(advanced);
    /* nanosecond unit: a 20 ms sleep moves the clock by 20e6 ns or more */
    struct timespec nap = {0, 20000000};
    uint64_t a = fbe_timestamp_now();
    nanosleep(&nap, NULL);
    uint64_t b = fbe_timestamp_now();
    assert_true(b - a >= 19000000u && b - a < 5000000000u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decimal_examples),
        cmocka_unit_test(test_decimal_out_of_range),
        cmocka_unit_test(test_decimal_boundaries),
        cmocka_unit_test(test_decimal_p10_23),
        cmocka_unit_test(test_decimal_round_trip),
        cmocka_unit_test(test_decimal_to_double),
        cmocka_unit_test(test_uuid_parse_format),
        cmocka_unit_test(test_uuid_parse_lenient),
        cmocka_unit_test(test_uuid_parse_rejects),
        cmocka_unit_test(test_uuid_v4),
        cmocka_unit_test(test_uuid_v1),
#ifdef HAVE_THREADS
        cmocka_unit_test(test_uuid_v1_threads),
#endif
        cmocka_unit_test(test_timestamp_now),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
