/* test_host_blob.c - the weight blob writer (codegen/blob.c) against the
 * runtime's reader (o2h_blob_check): layout, alignment, the layout hash,
 * and every way a wrong or damaged blob must be refused. */
#include "check.h"
#include "codegen/blob.h"
#include "runtime/o2h_rt.h"

#include <stdlib.h>
#include <string.h>

static void build(CgBlob *b, const float *w, const int64_t *idx, const char *wname)
{
    int64_t wd[2] = {2, 3}, id[1] = {5};
    cg_blob_init(b);
    CHECK_EQ_INT(cg_blob_add(b, wname, IR_DT_FLOAT, 2, wd, w, 6 * sizeof(float)), 0);
    CHECK_EQ_INT(cg_blob_add(b, "idx", IR_DT_INT64, 1, id, idx, 5 * sizeof(int64_t)), 1);
    CHECK_EQ_INT(cg_blob_add(b, "empty", IR_DT_FLOAT, 1, (int64_t[]){0}, NULL, 0), 2);
}

static void test_layout(void)
{
    float w[6] = {1, 2, 3, 4, 5, 6};
    int64_t idx[5] = {0, -1, 2, 1 << 20, 4};
    CgBlob b;
    build(&b, w, idx, "conv.weight");
    CHECK_EQ_INT(b.v[0].offset, 0);
    CHECK_EQ_INT(b.v[1].offset, 64);
    CHECK_EQ_INT(b.v[2].offset, 128);
    CHECK_EQ_INT(b.payload_size, 128);
    unsigned char *buf;
    size_t len;
    CHECK_EQ_INT(cg_blob_to_mem(&b, &buf, &len), 0);
    CHECK_EQ_INT(len, O2H_BLOB_HEADER + 128);
    CHECK(!memcmp(buf, "O2HBLOB", 8));
    const void *payload = NULL;
    uint64_t hash = cg_blob_layout_hash(&b);
    CHECK_EQ_INT(o2h_blob_check(buf, len, hash, b.payload_size, &payload), O2H_OK);
    CHECK(payload == buf + O2H_BLOB_HEADER);
    CHECK(!memcmp((const unsigned char *)payload, w, sizeof w));
    CHECK(!memcmp((const unsigned char *)payload + 64, idx, sizeof idx));
    CHECK_EQ_INT(((const unsigned char *)payload)[24], 0);   /* padding is zero */
    CHECK_EQ_INT(cg_blob_crc(&b), o2h_crc32(0, buf + O2H_BLOB_HEADER, 128));

    /* the file holds the same bytes */
    const char *path = BINARY_DIR "/test_host_blob.bin";
    CHECK_EQ_INT(cg_blob_write_file(&b, path), 0);
    FILE *f = fopen(path, "rb");
    unsigned char *fb = malloc(len + 16);
    size_t n = f ? fread(fb, 1, len + 16, f) : 0;
    if (f)
        fclose(f);
    CHECK_EQ_INT(n, len);
    CHECK(n == len && !memcmp(fb, buf, len));
    remove(path);
    free(fb);
    free(buf);
    cg_blob_free(&b);
}

/* The layout hash changes with names, shapes, dtypes and offsets, not data. */
static void test_hash(void)
{
    float w[6] = {1, 2, 3, 4, 5, 6}, w2[6] = {9, 9, 9, 9, 9, 9};
    int64_t idx[5] = {0};
    CgBlob a, b;
    build(&a, w, idx, "w");
    build(&b, w2, idx, "w");
    CHECK(cg_blob_layout_hash(&a) == cg_blob_layout_hash(&b));
    CHECK(cg_blob_crc(&a) != cg_blob_crc(&b));
    cg_blob_free(&b);
    build(&b, w, idx, "w_other");
    CHECK(cg_blob_layout_hash(&a) != cg_blob_layout_hash(&b));
    cg_blob_free(&b);
    build(&b, w, idx, "w");
    b.v[0].dims[1] = 4;
    CHECK(cg_blob_layout_hash(&a) != cg_blob_layout_hash(&b));
    b.v[0].dims[1] = 3;
    b.v[1].dtype = IR_DT_INT32;
    CHECK(cg_blob_layout_hash(&a) != cg_blob_layout_hash(&b));
    cg_blob_free(&a);
    cg_blob_free(&b);
}

/* Every damage is caught and named by its status. */
static void test_refusals(void)
{
    float w[6] = {1, 2, 3, 4, 5, 6};
    int64_t idx[5] = {7, 7, 7, 7, 7};
    CgBlob b;
    build(&b, w, idx, "w");
    unsigned char *buf;
    size_t len;
    CHECK_EQ_INT(cg_blob_to_mem(&b, &buf, &len), 0);
    uint64_t hash = cg_blob_layout_hash(&b), size = b.payload_size;
    const void *p = NULL;

    buf[O2H_BLOB_HEADER + 5] ^= 0x10;                      /* a flipped weight bit */
    CHECK_EQ_INT(o2h_blob_check(buf, len, hash, size, &p), O2H_ERR_CRC);
    buf[O2H_BLOB_HEADER + 5] ^= 0x10;
    buf[O2H_BLOB_HEADER + 100] = 1;                        /* damaged padding counts too */
    CHECK_EQ_INT(o2h_blob_check(buf, len, hash, size, &p), O2H_ERR_CRC);
    buf[O2H_BLOB_HEADER + 100] = 0;
    CHECK_EQ_INT(o2h_blob_check(buf, len, hash, size, &p), O2H_OK);

    CHECK_EQ_INT(o2h_blob_check(buf, len, hash ^ 1, size, &p), O2H_ERR_LAYOUT);   /* other model */
    CHECK_EQ_INT(o2h_blob_check(buf, len - 1, hash, size, &p), O2H_ERR_FORMAT);   /* truncated */
    CHECK_EQ_INT(o2h_blob_check(buf, 20, hash, size, &p), O2H_ERR_FORMAT);
    CHECK_EQ_INT(o2h_blob_check(buf, len, hash, size + 64, &p), O2H_ERR_FORMAT);
    buf[8] = 9;                                            /* future version */
    CHECK_EQ_INT(o2h_blob_check(buf, len, hash, size, &p), O2H_ERR_VERSION);
    buf[8] = 1;
    buf[0] = 'X';                                          /* not a blob */
    CHECK_EQ_INT(o2h_blob_check(buf, len, hash, size, &p), O2H_ERR_FORMAT);
    free(buf);
    cg_blob_free(&b);
}

static void test_tensor_entries(void)
{
    IrGraph *g = ir_graph_new("t");
    float *data;
    int64_t d[1] = {4};
    int t = ir_const_add(g, "bias", IR_DT_FLOAT, 1, d, (void **)&data);
    for (int i = 0; i < 4; i++)
        data[i] = (float)i;
    int a = ir_tensor_add(g, "act", IR_DT_FLOAT, 1, d);
    CgBlob b;
    cg_blob_init(&b);
    CHECK_EQ_INT(cg_blob_add(&b, "derived", IR_DT_INT64, 1, d, data, 16), 0);
    int e = cg_blob_add_tensor(&b, g, t);
    CHECK_EQ_INT(e, 1);
    CHECK_EQ_INT(cg_blob_add_tensor(&b, g, t), e);     /* once */
    CHECK_EQ_INT(cg_blob_add_tensor(&b, g, a), -1);    /* not a constant */
    CHECK_EQ_INT(cg_blob_find_tensor(&b, t), e);
    CHECK_EQ_INT(b.v[e].size, 16);
    CHECK_EQ_INT(b.v[e].offset, 64);
    cg_blob_free(&b);
    ir_graph_free(g);
}

static void test_c_array(void)
{
    float w[6] = {1, 2, 3, 4, 5, 6};
    int64_t idx[5] = {1, 2, 3, 4, 5};
    CgBlob b;
    build(&b, w, idx, "conv*/weight");
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    CHECK_EQ_INT(cg_blob_write_c(&b, f, "model_weights"), 0);
    fclose(f);
    CHECK(strstr(text, "const uint32_t model_weights[32] = {") != NULL);
    CHECK(strstr(text, "0x3f800000, 0x40000000,") != NULL);   /* 1.0f, 2.0f */
    CHECK(strstr(text, "conv*/weight") == NULL);                 /* comment stays closed */
    CHECK(strstr(text, "conv* /weight: 0, 24") != NULL);       /* escape.h: ESC_C_COMMENT */
    free(text);
    cg_blob_free(&b);
}

int main(void)
{
    test_layout();
    test_hash();
    test_refusals();
    test_tensor_entries();
    test_c_array();
    return check_done();
}
