/* fuzz_blob.c - the weight blob reader (runtime/rt_blob.c, o2h_blob_check)
 * that a generated host program runs on weights.bin before using a byte of
 * it (model_init, model_init_file: the program verify builds and runs).
 *
 * Why: the blob is a file beside the program that anyone may swap; the
 * check must refuse every blob not made for this program without reading
 * past the buffer. Each input is checked twice: against the layout hash
 * and payload size its own header states (so mutated payloads reach the
 * CRC), and against a fixed pair (the refusal paths). Invariants: O2H_OK
 * only with the payload inside the buffer, the header's fields as the
 * format says, and the CRC equal to a bitwise CRC-32 computed here (a
 * reference for the runtime's table-driven one). */
#include "fuzz.h"

#include <string.h>

#include "runtime/o2h_rt.h"

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static uint32_t crc32_bitwise(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c >> 1 ^ (0xedb88320u & (0u - (c & 1)));
    }
    return ~c;
}

static void check(const uint8_t *data, size_t size, uint64_t hash, uint64_t payload_size)
{
    const void *payload = NULL;
    O2hStatus st = o2h_blob_check(data, size, hash, payload_size, &payload);
    FZ_ASSERT(o2h_status_str(st) != NULL, "status %d has no text", (int)st);
    if (st != O2H_OK) {
        FZ_ASSERT(st == O2H_ERR_FORMAT || st == O2H_ERR_VERSION || st == O2H_ERR_LAYOUT || st == O2H_ERR_CRC,
                  "unexpected status %d", (int)st);
        return;
    }
    FZ_ASSERT(size >= O2H_BLOB_HEADER && !memcmp(data, O2H_BLOB_MAGIC, 8), "accepted without the magic");
    FZ_ASSERT(payload == data + O2H_BLOB_HEADER, "payload not after the header");
    FZ_ASSERT(payload_size <= size - O2H_BLOB_HEADER, "payload past the end");
    FZ_ASSERT(le(data + 8, 4) == O2H_BLOB_VERSION && le(data + 12, 4) == 0 && le(data + 36, 4) == 0,
              "accepted with a bad version, flags or reserved field");
    FZ_ASSERT(le(data + 16, 8) == hash && le(data + 24, 8) == payload_size, "accepted with another hash or size");
    FZ_ASSERT(crc32_bitwise(data + O2H_BLOB_HEADER, (size_t)payload_size) == le(data + 32, 4),
              "accepted with a CRC the bitwise CRC-32 disagrees with");
}

static int one(const uint8_t *data, size_t size)
{
    /* a copy of exactly size bytes: ASan sees any read past the end */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    if (size >= 32)
        check(buf, size, le(buf + 16, 8), le(buf + 24, 8));
    check(buf, size, 0x0123456789abcdefull, size >= O2H_BLOB_HEADER ? size - O2H_BLOB_HEADER : 0);
    uint32_t a = o2h_crc32(0, buf, size), b = crc32_bitwise(buf, size);
    FZ_ASSERT(a == b, "o2h_crc32 %08x, bitwise %08x over %zu bytes", a, b, size);
    free(buf);
    return 0;
}

FUZZ_TARGET(blob, NULL, one)
