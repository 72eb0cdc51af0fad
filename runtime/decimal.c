/* double <-> decimal conversions of the reference C++ runtime, bit-exact
 * (wire-format.md 2.9.2 and 2.9.3). */
#include "fbe/types.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* P10(n) = what glibc's pow(10.0, n) returns for n = 0..28 (wire-format.md 2.9.4), as
 * IEEE bit patterns so that no compiler or libm can round them differently. Every entry
 * is the correctly rounded 10^n except n = 23: the exact 10^23 lies halfway between two
 * doubles and glibc's pow returns the upper one (0x44B52D02C7E14AF7, 1.0000000000000001e23)
 * while the literal 1e23 is the lower one (0x44B52D02C7E14AF6). Reading a union member
 * other than the one last stored reinterprets the bytes in C11 (6.5.2.3, footnote 95). */
static const union {
    uint64_t bits;
    double value;
} P10[29] = {
    {0x3FF0000000000000u}, {0x4024000000000000u}, {0x4059000000000000u},
    {0x408F400000000000u}, {0x40C3880000000000u}, {0x40F86A0000000000u},
    {0x412E848000000000u}, {0x416312D000000000u}, {0x4197D78400000000u},
    {0x41CDCD6500000000u}, {0x4202A05F20000000u}, {0x42374876E8000000u},
    {0x426D1A94A2000000u}, {0x42A2309CE5400000u}, {0x42D6BCC41E900000u},
    {0x430C6BF526340000u}, {0x4341C37937E08000u}, {0x4376345785D8A000u},
    {0x43ABC16D674EC800u}, {0x43E158E460913D00u}, {0x4415AF1D78B58C40u},
    {0x444B1AE4D6E2EF50u}, {0x4480F0CF064DD592u}, {0x44B52D02C7E14AF7u},
    {0x44EA784379D99DB4u}, {0x45208B2A2C280291u}, {0x4554ADF4B7320335u},
    {0x4589D971E4FE8402u}, {0x45C027E72F1F1281u},
};

/* Exact integer powers of ten 10^0 .. 10^14 (the integer counterparts of P10). */
static const uint64_t U10[15] = {
    1u,
    10u,
    100u,
    1000u,
    10000u,
    100000u,
    1000000u,
    10000000u,
    100000000u,
    1000000000u,
    10000000000u,
    100000000000u,
    1000000000000u,
    10000000000000u,
    100000000000000u,
};

static fbe_decimal decimal_zero(void)
{
    fbe_decimal d = {0, 0, 0};
    return d;
}

/* 64 x 64 -> 128-bit product with 32-bit limbs (portable, no __int128). */
static void mul_64x64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    uint64_t a_lo = a & 0xFFFFFFFFu, a_hi = a >> 32;
    uint64_t b_lo = b & 0xFFFFFFFFu, b_hi = b >> 32;
    uint64_t ll = a_lo * b_lo;
    uint64_t lh = a_lo * b_hi;
    uint64_t hl = a_hi * b_lo;
    uint64_t hh = a_hi * b_hi;
    /* Middle column: each term < 2^32, so the sum < 3 * 2^32 cannot overflow. */
    uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
    *lo = (mid << 32) | (ll & 0xFFFFFFFFu);
    *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* floor(a / 65536) for any int32 a: the reference's arithmetic `>> 16`, written
 * without relying on the implementation-defined shift of a negative value. */
static int32_t floor_div_65536(int32_t a)
{
    int32_t q = a / 65536;
    if (a % 65536 != 0 && a < 0)
        q -= 1;
    return q;
}

fbe_decimal fbe_decimal_from_double(double x)
{
    uint64_t xbits;
    memcpy(&xbits, &x, sizeof xbits);
    int32_t iExp = (int32_t)((xbits >> 52) & 0x7FF) - 1022;
    /* 0, -0, subnormals, |x| < ~2^-95, |x| >= 2^96, Inf and NaN all encode as 0. */
    if (iExp < -94 || iExp > 96)
        return decimal_zero();

    uint32_t sign = 0;
    if (x < 0) {
        x = -x;
        sign = 0x80000000u;
    }

    /* 19728 / 65536 ~ log10(2): iPower scales x to about 15 significant digits. */
    int32_t iPower = 14 - floor_div_65536(iExp * 19728);
    if (iPower >= 0) {
        if (iPower > 28)
            iPower = 28;
        x = x * P10[iPower].value;
    } else {
        /* iExp <= 96 bounds -iPower to 14. */
        if (iPower != -1 || x >= 1e15)
            x = x / P10[-iPower].value;
        else
            iPower = 0; /* left unscaled */
    }
    if (x < 1e14 && iPower < 28) {
        x = x * 10;
        iPower += 1;
    }

    /* Here 0 <= x < 2^63 always, so the conversions are defined. */
    uint64_t m = (uint64_t)(int64_t)x;
    double frac = x - (double)(int64_t)m;
    if (frac > 0.5 || (frac == 0.5 && (m & 1) == 1))
        m += 1; /* round half to even */
    if (m == 0)
        return decimal_zero();

    fbe_decimal d;
    if (iPower < 0) {
        /* M = m * 10^k exactly (m < 2^54, 10^k <= 10^14 < 2^47: M < 2^101). The
         * reference keeps bits 0..95 only (QUIRK: the rest is silently dropped). */
        uint64_t hi, lo;
        mul_64x64(m, U10[-iPower], &hi, &lo);
        d.lo = lo;
        d.hi = (uint32_t)(hi & 0xFFFFFFFFu);
        d.flags = sign; /* scale 0 */
        return d;
    }

    /* Drop trailing decimal zeros, at most min(iPower, 14) of them, trying
     * 8, 4, 2, 1 once each in this order. */
    int32_t lmax = iPower < 14 ? iPower : 14;
    static const int32_t steps[4] = {8, 4, 2, 1};
    for (int i = 0; i < 4; i++) {
        int32_t s = steps[i];
        if (lmax >= s && m % U10[s] == 0) {
            m /= U10[s];
            iPower -= s;
            lmax -= s;
        }
    }
    d.lo = m;
    d.hi = 0;
    d.flags = sign | ((uint32_t)iPower << 16);
    return d;
}

double fbe_decimal_to_double(const fbe_decimal *d)
{
    unsigned scale = (d->flags >> 16) & 0xFFu;
    double v = ((double)d->lo + (double)d->hi * 18446744073709551616.0) /
               (scale < 29 ? P10[scale].value : pow(10.0, (double)scale));
    if (d->flags & 0x80000000u)
        v = -v;
    return v;
}
