/* UUID text form and generation (wire-format.md 2.8, RFC 4122). */
#define _DEFAULT_SOURCE 1 /* getrandom(), clock_gettime() under -std=c11 */

#include "fbe/types.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<sys/random.h>)
#include <sys/random.h>
#define FBE_HAVE_GETRANDOM 1
#endif
#endif

/* ---- text form -------------------------------------------------------------- */

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool fbe_uuid_parse(const char *text, size_t len, fbe_uuid *out)
{
    fbe_uuid u;
    size_t digits = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '-' || c == '{' || c == '}')
            continue;
        int v = hex_value(c);
        if (v < 0 || digits == 32)
            return false; /* not hex, or more than 32 hex digits */
        if (digits % 2 == 0)
            u.bytes[digits / 2] = (uint8_t)(v << 4);
        else
            u.bytes[digits / 2] |= (uint8_t)v;
        digits++;
    }
    if (digits != 32)
        return false;
    *out = u;
    return true;
}

void fbe_uuid_format(const fbe_uuid *u, char out[37])
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[u->bytes[i] >> 4];
        out[o++] = hex[u->bytes[i] & 0x0F];
    }
    out[o] = '\0';
}

/* ---- randomness --------------------------------------------------------------- */

/* Last resort when neither getrandom(2) nor /dev/urandom is usable (sandboxed or
 * chroot without /dev): splitmix64 over the clock, an address and a counter. Not
 * cryptographic, but UUIDs stay distinct and well spread. */
static void weak_random(void *buf, size_t len)
{
    static _Atomic uint64_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t state = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^
                     (uint64_t)(uintptr_t)&ts ^
                     (atomic_fetch_add(&counter, 1) * 0x9E3779B97F4A7C15u);
    uint8_t *p = buf;
    while (len > 0) {
        state += 0x9E3779B97F4A7C15u;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
        z ^= z >> 31;
        size_t n = len < 8 ? len : 8;
        memcpy(p, &z, n);
        p += n;
        len -= n;
    }
}

static void random_bytes(void *buf, size_t len)
{
    uint8_t *p = buf;
    size_t got = 0;
#ifdef FBE_HAVE_GETRANDOM
    while (got < len) {
        ssize_t n = getrandom(p + got, len - got, 0);
        if (n > 0)
            got += (size_t)n;
        else if (n < 0 && errno == EINTR)
            continue;
        else
            break; /* ENOSYS (old kernel), seccomp filter, ... */
    }
    if (got == len)
        return;
#endif
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        while (got < len) {
            ssize_t n = read(fd, p + got, len - got);
            if (n > 0)
                got += (size_t)n;
            else if (n < 0 && errno == EINTR)
                continue;
            else
                break;
        }
        close(fd);
    }
    if (got < len)
        weak_random(p + got, len - got);
}

/* ---- generation --------------------------------------------------------------- */

static void set_variant(fbe_uuid *u, unsigned version)
{
    u->bytes[6] = (uint8_t)((u->bytes[6] & 0x0F) | (version << 4));
    u->bytes[8] = (uint8_t)((u->bytes[8] & 0x3F) | 0x80); /* RFC 4122 variant 10xx */
}

fbe_uuid fbe_uuid_v4(void)
{
    fbe_uuid u;
    random_bytes(u.bytes, sizeof u.bytes);
    set_variant(&u, 4);
    return u;
}

/* Version 1 (RFC 4122 4.2). The node is NOT the MAC address: reading it needs
 * platform-specific interface enumeration, may be impossible (containers, no
 * network), and would leak the host's identity into every serialized message. RFC
 * 4122 4.5 allows a random 47-bit node with the multicast bit (the least significant
 * bit of the first node octet) set, which can never collide with a real IEEE 802
 * address. Node and clock sequence are drawn once per process.
 *
 * Uniqueness within the process: the 60-bit timestamp (100 ns intervals since
 * 1582-10-15) is taken strictly increasing through an atomic compare-and-swap: when
 * the clock has not advanced (several calls in one tick) or went backwards, the last
 * value plus one is used instead. The counter therefore runs at most briefly ahead of
 * the clock under bursts, which RFC 4122 4.2.1.2 permits. */

/* Offset between 1582-10-15T00:00:00Z and the Unix epoch, in 100 ns units. */
#define UUID_EPOCH_OFFSET 0x01B21DD213814000u

static _Atomic uint64_t uuid1_last_time;
/* 0 = not drawn yet; otherwise bit 63 set, bits 0..47 node, bits 48..61 clock seq. */
static _Atomic uint64_t uuid1_state;

static uint64_t uuid1_node_and_clock(void)
{
    uint64_t s = atomic_load(&uuid1_state);
    if (s != 0)
        return s;
    uint64_t r;
    random_bytes(&r, sizeof r);
    uint64_t fresh = (r & 0x3FFFFFFFFFFFFFFFu) | (UINT64_C(1) << 63);
    /* Multicast bit: least significant bit of node byte 0 = bit 40 of the node. */
    fresh |= UINT64_C(1) << 40;
    uint64_t expected = 0;
    if (atomic_compare_exchange_strong(&uuid1_state, &expected, fresh))
        return fresh;
    return expected; /* another thread won the race: everybody uses its value */
}

fbe_uuid fbe_uuid_v1(void)
{
    uint64_t state = uuid1_node_and_clock();
    uint64_t node = state & 0xFFFFFFFFFFFFu;
    uint16_t clock_seq = (uint16_t)((state >> 48) & 0x3FFFu);

    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t now = ((uint64_t)ts.tv_sec * 10000000u + (uint64_t)ts.tv_nsec / 100u +
                    UUID_EPOCH_OFFSET) & 0x0FFFFFFFFFFFFFFFu;
    uint64_t last = atomic_load(&uuid1_last_time);
    uint64_t t;
    do {
        t = now > last ? now : last + 1;
    } while (!atomic_compare_exchange_weak(&uuid1_last_time, &last, t));
    t &= 0x0FFFFFFFFFFFFFFFu;

    fbe_uuid u;
    uint32_t time_low = (uint32_t)t;
    uint16_t time_mid = (uint16_t)(t >> 32);
    uint16_t time_hi = (uint16_t)(t >> 48); /* 12 bits */
    u.bytes[0] = (uint8_t)(time_low >> 24);
    u.bytes[1] = (uint8_t)(time_low >> 16);
    u.bytes[2] = (uint8_t)(time_low >> 8);
    u.bytes[3] = (uint8_t)time_low;
    u.bytes[4] = (uint8_t)(time_mid >> 8);
    u.bytes[5] = (uint8_t)time_mid;
    u.bytes[6] = (uint8_t)(time_hi >> 8);
    u.bytes[7] = (uint8_t)time_hi;
    u.bytes[8] = (uint8_t)(clock_seq >> 8);
    u.bytes[9] = (uint8_t)clock_seq;
    for (int i = 0; i < 6; i++)
        u.bytes[10 + i] = (uint8_t)(node >> (40 - 8 * i));
    set_variant(&u, 1);
    return u;
}
