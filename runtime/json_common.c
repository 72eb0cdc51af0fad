/* Shared pieces of the JSON writer and reader: error messages with the JSON path,
 * the exact decimal text (both directions) and Base64. */
#include "json_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- errors --------------------------------------------------------------------- */

/* Appends text to buf[*n..size), always NUL-terminated. */
static void append(char *buf, size_t size, size_t *n, const char *text, size_t len)
{
    if (*n + 1 >= size)
        return;
    size_t room = size - 1 - *n;
    if (len > room)
        len = room;
    memcpy(buf + *n, text, len);
    *n += len;
    buf[*n] = 0;
}

fbe_status fbe_json__fail(fbe_json_error *err, fbe_status status, const char *fmt, ...)
{
    if (!err)
        return status;
    err->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return status;
}

void fbe_json__with_path(fbe_json_error *err, const fbe_json_path *path)
{
    if (!err)
        return;
    char buf[sizeof err->message];
    size_t size = sizeof buf, n = 0;
    buf[0] = 0;
    append(buf, size, &n, "$", 1);
    size_t kept = path->depth < FBE_JSON_PATH_MAX ? path->depth : FBE_JSON_PATH_MAX;
    if (path->depth > FBE_JSON_PATH_MAX)
        append(buf, size, &n, "...", 3);
    /* segments were added while unwinding: innermost first */
    for (size_t i = kept; i-- > 0;) {
        const fbe_json_seg *s = &path->seg[i];
        char tmp[48];
        switch (s->kind) {
        case FBE_JSEG_FIELD:
            append(buf, size, &n, ".", 1);
            append(buf, size, &n, s->name, strlen(s->name));
            break;
        case FBE_JSEG_INDEX:
            snprintf(tmp, sizeof tmp, "[%zu]", s->index);
            append(buf, size, &n, tmp, strlen(tmp));
            break;
        default: {
            /* ["key"], the key shortened and its control characters shown as '?' */
            append(buf, size, &n, "[\"", 2);
            size_t len = s->len > 40 ? 40 : s->len;
            for (size_t k = 0; k < len; k++) {
                char c = s->name[k];
                if ((unsigned char)c < 0x20 || c == '"' || c == '\\')
                    c = '?';
                append(buf, size, &n, &c, 1);
            }
            if (s->len > 40)
                append(buf, size, &n, "...", 3);
            append(buf, size, &n, "\"]", 2);
            break;
        }
        }
    }
    append(buf, size, &n, ": ", 2);
    append(buf, size, &n, err->message, strlen(err->message));
    memcpy(err->message, buf, n + 1);
}

/* ---- decimal text ------------------------------------------------------------------ */

/* Decimal digits of the 96-bit magnitude hi:lo (no leading zeros; "0" for zero). */
static size_t magnitude_digits(uint32_t hi, uint64_t lo, char *out)
{
    uint32_t w[3] = {hi, (uint32_t)(lo >> 32), (uint32_t)lo};
    char rev[32];
    size_t n = 0;
    for (;;) {
        /* w /= 10^9, remainder r */
        uint64_t r = 0;
        for (int i = 0; i < 3; i++) {
            uint64_t cur = (r << 32) | w[i];
            w[i] = (uint32_t)(cur / 1000000000u);
            r = cur % 1000000000u;
        }
        bool rest = w[0] || w[1] || w[2];
        for (int k = 0; k < 9 && (rest || r); k++) {
            rev[n++] = (char)('0' + r % 10);
            r /= 10;
        }
        if (!rest)
            break;
    }
    if (n == 0)
        rev[n++] = '0';
    for (size_t i = 0; i < n; i++)
        out[i] = rev[n - 1 - i];
    return n;
}

/* True when text (n bytes, more than 15 significant digits in dig[0..nd)) is
 * exactly printf("%f") of its own double: the form the reader takes for the
 * reference's lossy output and rounds to 15 digits (docs/json.md). */
static bool is_printf_of_double(const char *text, size_t n)
{
    char copy[FBE_JSON_DECIMAL_MAX + 1], again[400];
    memcpy(copy, text, n);
    copy[n] = 0;
    int m = snprintf(again, sizeof again, "%f", strtod(copy, NULL));
    return m > 0 && (size_t)m == n && memcmp(again, copy, n) == 0;
}

static bool looks_like_reference_text(const char *dig, size_t nd, const char *text, size_t n)
{
    while (nd > 0 && dig[nd - 1] == '0')
        nd--;
    return nd > 15 && is_printf_of_double(text, n);
}

size_t fbe_json__decimal_format(const fbe_decimal *d, char *out)
{
    char dig[32];
    size_t nd = magnitude_digits(d->hi, d->lo, dig);
    bool zero = nd == 1 && dig[0] == '0';
    unsigned scale = (d->flags >> 16) & 0xFF;
    size_t n = 0;
    if (d->flags & 0x80000000u)
        out[n++] = '-';
    size_t frac_len;
    if (zero) {
        out[n++] = '0';
        out[n++] = '.';
        frac_len = 0;
    } else if (scale >= nd) {
        out[n++] = '0';
        out[n++] = '.';
        for (size_t i = nd; i < scale; i++)
            out[n++] = '0';
        memcpy(out + n, dig, nd);
        n += nd;
        frac_len = scale;
    } else {
        memcpy(out + n, dig, nd - scale);
        n += nd - scale;
        out[n++] = '.';
        memcpy(out + n, dig + (nd - scale), scale);
        n += scale;
        frac_len = scale;
    }
    for (; frac_len < 6; frac_len++)
        out[n++] = '0';
    if (looks_like_reference_text(dig, nd, out, n))
        out[n++] = '0';
    return n;
}

/* m (3 little 32-bit limbs, most significant first) = m * 10 + digit; false on
 * overflow of 96 bits. */
static bool mul10_add(uint32_t w[3], unsigned digit)
{
    uint64_t carry = digit;
    for (int i = 2; i >= 0; i--) {
        uint64_t cur = (uint64_t)w[i] * 10u + carry;
        w[i] = (uint32_t)cur;
        carry = cur >> 32;
    }
    return carry == 0;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

bool fbe_json__decimal_parse(const char *text, size_t len, fbe_decimal *out)
{
    memset(out, 0, sizeof *out);
    /* Syntax: [+-]? (digits [. digits?]? | . digits) ([eE] [+-]? digits)? */
    size_t i = 0;
    bool neg = false;
    if (i < len && (text[i] == '-' || text[i] == '+'))
        neg = text[i++] == '-';
    size_t int_start = i;
    while (i < len && is_digit(text[i]))
        i++;
    size_t int_end = i, frac_start = i, frac_end = i;
    if (i < len && text[i] == '.') {
        frac_start = ++i;
        while (i < len && is_digit(text[i]))
            i++;
        frac_end = i;
    }
    if (int_end == int_start && frac_end == frac_start)
        return false; /* no digit at all */
    long exp = 0;
    if (i < len && (text[i] == 'e' || text[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (text[i] == '-' || text[i] == '+'))
            eneg = text[i++] == '-';
        if (i == len || !is_digit(text[i]))
            return false;
        while (i < len && is_digit(text[i])) {
            if (exp < 100000)
                exp = exp * 10 + (text[i] - '0');
            i++;
        }
        if (eneg)
            exp = -exp;
    }
    if (i != len)
        return false;

    /* The significant digits (leading zeros dropped) and the power of ten e:
     * value = digits * 10^e. */
    char sig[64];
    size_t nsig = 0, total_sig = 0;
    long e = exp - (long)(frac_end - frac_start);
    bool started = false;
    for (size_t k = int_start; k < frac_end; k++) {
        if (k == int_end) {
            k = frac_start - 1; /* skip the '.' */
            continue;
        }
        char c = text[k];
        if (!started && c == '0')
            continue;
        started = true;
        total_sig++;
        if (nsig < sizeof sig)
            sig[nsig++] = c;
        else
            e++; /* digits beyond what can matter: only their count shifts the value */
    }
    /* trailing zeros add nothing but a power of ten */
    while (nsig > 0 && sig[nsig - 1] == '0') {
        nsig--;
        total_sig--;
        e++;
    }
    if (nsig == 0)
        return true; /* zero (of any sign or scale) is 16 zero bytes, as the reference writes it */

    bool reference_text = false;
    if (total_sig > 15) {
        /* More digits than the reference keeps. If the text is exactly what the
         * reference's printf("%f") makes of some double, it came from a reference
         * writer: read it the reference's way (rounded to 15 digits). */
        reference_text = len <= FBE_JSON_DECIMAL_MAX && is_printf_of_double(text, len);
    }
    if (!reference_text && nsig == total_sig && e >= -28 && e <= 28) {
        uint32_t w[3] = {0, 0, 0};
        bool fits = true;
        for (size_t k = 0; k < nsig && fits; k++)
            fits = mul10_add(w, (unsigned)(sig[k] - '0'));
        for (long k = 0; k < e && fits; k++)
            fits = mul10_add(w, 0);
        if (fits) {
            out->lo = (uint64_t)w[1] << 32 | w[2];
            out->hi = w[0];
            out->flags = (neg ? 0x80000000u : 0) | (uint32_t)(e < 0 ? -e : 0) << 16;
            return true;
        }
    }
    /* Outside the exact range (more than 96 bits, more than 28 decimals), or the
     * reference's own lossy text: what the reference does, std::stod and its
     * double -> decimal conversion. */
    if (len >= 400)
        return false;
    char copy[400];
    memcpy(copy, text, len);
    copy[len] = 0;
    *out = fbe_decimal_from_double(strtod(copy, NULL));
    return true;
}

/* ---- Base64 ------------------------------------------------------------------------------ */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void fbe_json__base64_encode(const uint8_t *data, size_t n, char *out)
{
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8 | data[i + 2];
        *out++ = b64[v >> 18];
        *out++ = b64[(v >> 12) & 63];
        *out++ = b64[(v >> 6) & 63];
        *out++ = b64[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)data[i] << 16;
        *out++ = b64[v >> 18];
        *out++ = b64[(v >> 12) & 63];
        *out++ = '=';
        *out++ = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8;
        *out++ = b64[v >> 18];
        *out++ = b64[(v >> 12) & 63];
        *out++ = b64[(v >> 6) & 63];
        *out++ = '=';
    }
}

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

bool fbe_json__base64_decode(const char *text, size_t len, uint8_t *out, size_t *out_len,
                             size_t *bad_at)
{
    /* '=' padding is optional but, when present, completes the last quantum. */
    size_t data_len = len;
    size_t pad = 0;
    while (data_len > 0 && text[data_len - 1] == '=' && pad < 2) {
        data_len--;
        pad++;
    }
    size_t n = 0;
    uint32_t acc = 0;
    unsigned bits = 0;
    for (size_t i = 0; i < data_len; i++) {
        int v = b64_value(text[i]);
        if (v < 0) {
            *bad_at = i;
            return false;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (uint8_t)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    /* A lone character in the last quantum is never valid; with padding, the
     * whole text must be made of 4-character quanta. */
    if (data_len % 4 == 1 || (pad && len % 4 != 0)) {
        *bad_at = len ? len - 1 : 0;
        return false;
    }
    *out_len = n;
    return true;
}
