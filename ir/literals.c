#include "literals.h"

#include <string.h>

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return 99;
}

static bool accumulate(const char *p, unsigned base, lit_int *out, const char **error)
{
    uint64_t v = 0;
    if (!*p) {
        *error = "invalid integer literal";
        return false;
    }
    for (; *p; p++) {
        int d = digit_value(*p);
        if (d >= (int)base) {
            *error = base == 8 ? "invalid digit in octal constant" : "invalid integer literal";
            return false;
        }
        if (v > (UINT64_MAX - (uint64_t)d) / base) {
            *error = "integer literal is too large";
            return false;
        }
        v = v * base + (uint64_t)d;
    }
    out->magnitude = v;
    return true;
}

bool lit_parse_cpp_int(const char *text, lit_int *out, const char **error)
{
    const char *p = text;
    out->negative = false;
    if (*p == '-') {
        out->negative = true;
        p++;
    }
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        return accumulate(p + 2, 16, out, error);
    if (p[0] == '0' && p[1])
        return accumulate(p + 1, 8, out, error);
    return accumulate(p, 10, out, error);
}

bool lit_parse_decimal_int(const char *text, lit_int *out, const char **error)
{
    const char *p = text;
    out->negative = false;
    if (*p == '-') {
        out->negative = true;
        p++;
    }
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        *error = "hexadecimal literal not allowed here (the reference reads it as 0)";
        return false;
    }
    return accumulate(p, 10, out, error);
}

bool lit_int_fits(lit_int v, bool is_signed, unsigned bits)
{
    if (is_signed) {
        uint64_t max_pos = (bits == 64) ? (uint64_t)INT64_MAX : ((uint64_t)1 << (bits - 1)) - 1;
        return v.negative ? v.magnitude <= max_pos + 1 : v.magnitude <= max_pos;
    }
    if (v.negative)
        return v.magnitude == 0;
    return bits == 64 || v.magnitude <= ((uint64_t)1 << bits) - 1;
}

uint64_t lit_int_cast(lit_int v, bool is_signed, unsigned bits)
{
    uint64_t u = v.negative ? (uint64_t)0 - v.magnitude : v.magnitude;
    if (bits < 64) {
        uint64_t mask = ((uint64_t)1 << bits) - 1;
        u &= mask;
        if (is_signed && (u >> (bits - 1)) & 1)
            u |= ~mask;
    }
    return u;
}

/* Decodes one UTF-8 sequence; returns its length or 0 if malformed. */
static size_t utf8_decode(const unsigned char *p, const unsigned char *end, uint32_t *cp)
{
    if (p >= end)
        return 0;
    unsigned char c = p[0];
    size_t n;
    uint32_t v;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        n = 2;
        v = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3;
        v = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4;
        v = c & 0x07;
    } else {
        return 0;
    }
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (p[i] & 0x3F);
    }
    static const uint32_t min_for_len[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < min_for_len[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

/* One escape sequence after the backslash at *pp. Sets *value and *is_unicode
 * (\u, \U produce code points, the others produce bytes). */
static bool parse_escape(const char **pp, const char *end, uint32_t *value, bool *is_unicode,
                         const char **error)
{
    const char *p = *pp;
    *is_unicode = false;
    if (p >= end) {
        *error = "incomplete escape sequence";
        return false;
    }
    char c = *p++;
    switch (c) {
    case 'n': *value = '\n'; break;
    case 't': *value = '\t'; break;
    case 'r': *value = '\r'; break;
    case 'a': *value = '\a'; break;
    case 'b': *value = '\b'; break;
    case 'f': *value = '\f'; break;
    case 'v': *value = '\v'; break;
    case '\\': case '\'': case '"': case '?': *value = (unsigned char)c; break;
    case 'x': {
        uint32_t v = 0;
        int digits = 0;
        while (p < end && digit_value(*p) < 16) {
            v = v * 16 + (uint32_t)digit_value(*p++);
            if (++digits > 2) {
                *error = "hex escape sequence out of range";
                return false;
            }
        }
        if (!digits) {
            *error = "\\x used with no following hex digits";
            return false;
        }
        *value = v;
        break;
    }
    case 'u': case 'U': {
        int need = c == 'u' ? 4 : 8;
        uint32_t v = 0;
        for (int i = 0; i < need; i++) {
            if (p >= end || digit_value(*p) >= 16) {
                *error = "incomplete universal character name";
                return false;
            }
            v = v * 16 + (uint32_t)digit_value(*p++);
        }
        if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
            *error = "invalid universal character";
            return false;
        }
        *value = v;
        *is_unicode = true;
        break;
    }
    default:
        if (c >= '0' && c <= '7') {
            uint32_t v = (uint32_t)(c - '0');
            for (int i = 0; i < 2 && p < end && *p >= '0' && *p <= '7'; i++)
                v = v * 8 + (uint32_t)(*p++ - '0');
            if (v > 0xFF) {
                *error = "octal escape sequence out of range";
                return false;
            }
            *value = v;
            break;
        }
        *error = "unknown escape sequence";
        return false;
    }
    *pp = p;
    return true;
}

bool lit_parse_char(const char *text, uint32_t *out, const char **error)
{
    size_t len = strlen(text);
    if (len < 3 || text[0] != '\'' || text[len - 1] != '\'') {
        *error = "empty character constant";
        return false;
    }
    const char *p = text + 1, *end = text + len - 1;
    uint32_t value;
    if (*p == '\\') {
        bool unicode;
        p++;
        if (!parse_escape(&p, end, &value, &unicode, error))
            return false;
    } else {
        size_t n = utf8_decode((const unsigned char *)p, (const unsigned char *)end, &value);
        if (!n) {
            *error = "invalid UTF-8 in character literal";
            return false;
        }
        p += n;
    }
    if (p != end) {
        *error = "multi-character character constant";
        return false;
    }
    *out = value;
    return true;
}

static size_t utf8_encode(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    } else if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    } else if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

bool lit_parse_string(fbe_arena *arena, const char *text, char **out, size_t *len,
                      const char **error)
{
    size_t n = strlen(text);
    if (n < 2 || text[0] != '"' || text[n - 1] != '"') {
        *error = "invalid string literal";
        return false;
    }
    /* The decoded form is never longer than the source (an escape of k >= 2
     * characters yields at most 4 bytes only for \U, which is 10 characters). */
    char *buf = fbe_arena_alloc(arena, n);
    if (!buf) {
        *error = "out of memory";
        return false;
    }
    size_t o = 0;
    const char *p = text + 1, *end = text + n - 1;
    while (p < end) {
        if (*p != '\\') {
            buf[o++] = *p++;
            continue;
        }
        p++;
        uint32_t v;
        bool unicode;
        if (!parse_escape(&p, end, &v, &unicode, error))
            return false;
        if (unicode)
            o += utf8_encode(v, buf + o);
        else
            buf[o++] = (char)v;
    }
    buf[o] = '\0';
    /* Raw bytes and \x / octal escapes can spell anything; a default that is
     * not UTF-8 would make every frame holding it fail to convert to JSON. */
    for (size_t i = 0; i < o;) {
        uint32_t cp;
        size_t k = utf8_decode((const unsigned char *)buf + i, (const unsigned char *)buf + o, &cp);
        if (!k) {
            *error = "invalid UTF-8 in string literal";
            return false;
        }
        i += k;
    }
    *out = buf;
    *len = o;
    return true;
}
