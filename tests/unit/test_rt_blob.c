/* test_rt_blob.c - CRC32 and FNV-1a check values, every rejection of
 * o2h_blob_check (magic, version, layout hash, size, CRC, truncation), the
 * status strings, and that the clock moves forward. */
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

int main(void)
{
    test_hashes();
    test_blob_check();
    test_status_and_time();
    return check_done();
}
