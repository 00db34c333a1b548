/* rt_blob.c - weight blob integrity: CRC32, FNV-1a 64 layout hash, header
 * check, and the status strings.
 *
 * Why it exists: a generated program must refuse weights made for another
 * model or damaged on the way to the board instead of computing garbage, and
 * must say which of those happened. The header is read byte by byte in
 * little-endian order so the check is the same on every host. CRC32 uses
 * slicing-by-8 with tables built on the stack per call (no global state,
 * about 2K operations, negligible next to the megabytes it checks). */
#include "o2h_rt.h"

#include <string.h>

const char *o2h_status_str(O2hStatus s)
{
    switch (s) {
    case O2H_OK: return "ok";
    case O2H_ERR_IO: return "file could not be read";
    case O2H_ERR_FORMAT: return "not a weight blob or truncated (bad magic or size)";
    case O2H_ERR_VERSION: return "weight blob version not supported";
    case O2H_ERR_LAYOUT: return "weight blob made for another model (layout hash mismatch)";
    case O2H_ERR_CRC: return "weight blob corrupted (CRC32 mismatch)";
    case O2H_ERR_ARG: return "bad argument";
    case O2H_ERR_NOMEM: return "out of memory";
    }
    return "unknown status";
}

static void o2h_crc_tables(uint32_t t[8][256])
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
        t[0][i] = c;
    }
    for (int s = 1; s < 8; s++)
        for (int i = 0; i < 256; i++)
            t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFFu];
}

uint32_t o2h_crc32(uint32_t crc, const void *data, size_t n)
{
    uint32_t t[8][256];
    const unsigned char *p = (const unsigned char *)data;
    uint32_t c = ~crc;
    o2h_crc_tables(t);
    for (; n >= 8; n -= 8, p += 8) {
        uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                           (uint32_t)p[3] << 24);
        c = t[7][lo & 0xFFu] ^ t[6][(lo >> 8) & 0xFFu] ^ t[5][(lo >> 16) & 0xFFu] ^
            t[4][lo >> 24] ^ t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
    }
    for (; n > 0; n--, p++)
        c = (c >> 8) ^ t[0][(c ^ *p) & 0xFFu];
    return ~c;
}

uint64_t o2h_fnv1a64(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static uint32_t o2h_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t o2h_le64(const unsigned char *p)
{
    return (uint64_t)o2h_le32(p) | (uint64_t)o2h_le32(p + 4) << 32;
}

O2hStatus o2h_blob_check(const void *buf, size_t len, uint64_t layout_hash,
                         uint64_t payload_size, const void **payload)
{
    const unsigned char *b = (const unsigned char *)buf;
    if (!buf)
        return O2H_ERR_ARG;
    if (len < O2H_BLOB_HEADER || memcmp(b, O2H_BLOB_MAGIC, sizeof O2H_BLOB_MAGIC) != 0)
        return O2H_ERR_FORMAT;
    if (o2h_le32(b + 8) != O2H_BLOB_VERSION)
        return O2H_ERR_VERSION;
    if (o2h_le32(b + 12) != 0 || o2h_le32(b + 36) != 0)
        return O2H_ERR_FORMAT;   /* flags and reserved: 0 in version 1, so a blob using them is not ours */
    if (o2h_le64(b + 16) != layout_hash)
        return O2H_ERR_LAYOUT;
    uint64_t size = o2h_le64(b + 24);
    if (size != payload_size || size > (uint64_t)(len - O2H_BLOB_HEADER))
        return O2H_ERR_FORMAT;
    if (o2h_crc32(0, b + O2H_BLOB_HEADER, (size_t)size) != o2h_le32(b + 32))
        return O2H_ERR_CRC;
    if (payload)
        *payload = b + O2H_BLOB_HEADER;
    return O2H_OK;
}
