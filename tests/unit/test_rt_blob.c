/* test_rt_blob.c - CRC32 and FNV-1a check values, every rejection of
 * o2h_blob_check (magic, version, layout hash, size, CRC, truncation), the
 * status strings, that the clock moves forward, and the huge-page span
 * o2h_advise_huge advises (whole 2 MB pages, never outside the buffer). */
#include "test_rt_util.h"

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static unsigned char *make_blob(size_t payload, uint64_t hash, size_t *len)
{
    *len = O2H_BLOB_HEADER + payload;
    unsigned char *b = calloc(*len, 1);
    memcpy(b, "O2HBLOB", 8);
    put32(b + 8, O2H_BLOB_VERSION);
    put64(b + 16, hash);
    put64(b + 24, payload);
    for (size_t i = 0; i < payload; i++)
        b[O2H_BLOB_HEADER + i] = (unsigned char)(i * 7 + 3);
    put32(b + 32, o2h_crc32(0, b + O2H_BLOB_HEADER, payload));
    return b;
}

static void test_hashes(void)
{
    CHECK_EQ_INT(o2h_crc32(0, "123456789", 9), 0xCBF43926u);
    CHECK_EQ_INT(o2h_crc32(0, "", 0), 0u);
    /* incremental = one shot, across the 8-byte fast path */
    const char *s = "The quick brown fox jumps over the lazy dog";
    uint32_t one = o2h_crc32(0, s, strlen(s));
    CHECK_EQ_INT(one, 0x414FA339u);
    uint32_t part = o2h_crc32(o2h_crc32(0, s, 13), s + 13, strlen(s) - 13);
    CHECK_EQ_INT(part, one);
    CHECK(o2h_fnv1a64(0xcbf29ce484222325ull, "", 0) == 0xcbf29ce484222325ull);
    CHECK(o2h_fnv1a64(0xcbf29ce484222325ull, "a", 1) == 0xaf63dc4c8601ec8cull);
    CHECK(o2h_fnv1a64(0xcbf29ce484222325ull, "foobar", 6) == 0x85944171f73967e8ull);
}

static void test_blob_check(void)
{
    size_t len;
    uint64_t h = 0x1234567890abcdefull;
    unsigned char *b = make_blob(1000, h, &len);
    const void *payload = NULL;
    CHECK_EQ_INT(o2h_blob_check(b, len, h, 1000, &payload), O2H_OK);
    CHECK(payload == b + O2H_BLOB_HEADER);
    CHECK_EQ_INT(o2h_blob_check(b, len + 0, h + 1, 1000, &payload), O2H_ERR_LAYOUT);
    CHECK_EQ_INT(o2h_blob_check(b, len, h, 999, &payload), O2H_ERR_FORMAT);
    CHECK_EQ_INT(o2h_blob_check(b, len - 1, h, 1000, &payload), O2H_ERR_FORMAT);
    CHECK_EQ_INT(o2h_blob_check(b, 20, h, 1000, &payload), O2H_ERR_FORMAT);
    CHECK_EQ_INT(o2h_blob_check(NULL, len, h, 1000, &payload), O2H_ERR_ARG);
    b[O2H_BLOB_HEADER + 500] ^= 1;
    CHECK_EQ_INT(o2h_blob_check(b, len, h, 1000, &payload), O2H_ERR_CRC);
    b[O2H_BLOB_HEADER + 500] ^= 1;
    put32(b + 8, O2H_BLOB_VERSION + 1);
    CHECK_EQ_INT(o2h_blob_check(b, len, h, 1000, &payload), O2H_ERR_VERSION);
    put32(b + 8, O2H_BLOB_VERSION);
    put32(b + 12, 1);   /* flags */
    CHECK_EQ_INT(o2h_blob_check(b, len, h, 1000, &payload), O2H_ERR_FORMAT);
    put32(b + 12, 0);
    put32(b + 36, 0x80000000u);   /* reserved */
    CHECK_EQ_INT(o2h_blob_check(b, len, h, 1000, &payload), O2H_ERR_FORMAT);
    put32(b + 36, 0);
    CHECK_EQ_INT(o2h_blob_check(b, len, h, 1000, &payload), O2H_OK);
    b[0] = 'X';
    CHECK_EQ_INT(o2h_blob_check(b, len, h, 1000, &payload), O2H_ERR_FORMAT);
    b[0] = 'O';
    b[7] = 'Z'; /* the terminating NUL is part of the magic */
    CHECK_EQ_INT(o2h_blob_check(b, len, h, 1000, &payload), O2H_ERR_FORMAT);
    b[7] = 0;
    CHECK_EQ_INT(o2h_blob_check(b, len, h, 1000, NULL), O2H_OK);
    free(b);
    /* empty payload */
    b = make_blob(0, 7, &len);
    CHECK_EQ_INT(o2h_blob_check(b, len, 7, 0, &payload), O2H_OK);
    free(b);
}

static void test_status_and_time(void)
{
    for (int s = O2H_OK; s <= O2H_ERR_ARG; s++) {
        const char *m = o2h_status_str((O2hStatus)s);
        CHECK(m && *m);
    }
    CHECK(strcmp(o2h_status_str(O2H_OK), "ok") == 0);
    CHECK(strstr(o2h_status_str(O2H_ERR_CRC), "CRC") != NULL);
    double t0 = o2h_now_ms(), c0 = o2h_cpu_ms();
    volatile double acc = 0;
    for (int i = 0; i < 1000000; i++)
        acc += i * 0.5;
    double t1 = o2h_now_ms(), c1 = o2h_cpu_ms();
    CHECK(t0 > 0 && t1 >= t0 && acc > 0);
    CHECK(c0 >= 0 && c1 > c0);   /* a million additions take CPU time */
    CHECK(t1 - t0 < 60000.0);
}

/* span(p, bytes): the whole 2 MB pages inside the buffer, checked against
 * the expected start and length and for staying inside it */
static void check_span(uintptr_t p, size_t bytes, uintptr_t want_lo, size_t want_n)
{
    const uintptr_t H = (uintptr_t)2 << 20;
    uintptr_t lo = 0;
    size_t n = o2h_huge_span((const void *)p, bytes, &lo);
    CHECK_MSG(n == want_n, "span(%#lx, %zu): %zu bytes, want %zu", (unsigned long)p, bytes, n, want_n);
    if (n > 0) {
        CHECK_MSG(lo == want_lo, "span(%#lx, %zu) from %#lx", (unsigned long)p, bytes, (unsigned long)lo);
        CHECK(lo % H == 0 && n % H == 0 && lo >= p && lo + n <= p + bytes);
    }
}

static void test_huge_span(void)
{
    const uintptr_t M = (uintptr_t)1 << 20;
    check_span(0x1000, 6 * M, 2 * M, 4 * M);        /* unaligned: the 2 pages inside */
    check_span(2 * M, 2 * M, 2 * M, 2 * M);          /* exactly one page */
    check_span(2 * M, 2 * M - 1, 0, 0);              /* one byte short */
    check_span(2 * M + 64, 2 * M, 0, 0);             /* straddles two pages */
    check_span(2 * M + 64, 4 * M, 4 * M, 2 * M);
    check_span(4 * M, 0, 0, 0);
    check_span(0, 8 * M, 0, 0);                      /* NULL */
    check_span(UINTPTR_MAX - M, 4 * M, 0, 0);        /* wraps around */
    /* a real buffer: the advice leaves its contents alone */
    size_t n = 5 * M;
    unsigned char *b = malloc(n);
    CHECK(b != NULL);
    if (!b)
        return;
    for (size_t i = 0; i < n; i += 4096)
        b[i] = (unsigned char)(i >> 12);
    o2h_advise_huge(b, n);
    size_t bad = 0;
    for (size_t i = 0; i < n; i += 4096)
        bad += b[i] != (unsigned char)(i >> 12);
    CHECK_EQ_INT((int)bad, 0);
    free(b);
}

int main(void)
{
    test_hashes();
    test_blob_check();
    test_status_and_time();
    test_huge_span();
    return check_done();
}
