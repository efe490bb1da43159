// Unit tests of policy files (src/nn/safetensors.c): a written file reads
// back bit-identically with its metadata; the byte layout is safetensors;
// and corrupt, truncated, byte-flipped and mutated files (bad shapes,
// dtypes, missing tensors, hashes, MLIR versions) give the right error and a
// message, never a crash. The same for int8 files (weight_dtype int8): the
// weights come back within half a quantisation step, and a missing scale,
// a wrong shape, a dtype flag that lies, a negative scale or -128 is refused.
// Ensemble files (several networks, metadata "members") read back member by
// member; a one-network reader, a reader with too few slots, a bad
// "members" value and a truncated ensemble are refused with a message.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "nn/nn.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const nn_file_meta META = {
    .mlir_version = "19.1.7",
    .feature_hash = 0x0123456789abcdefull,
    .catalog_hash = 0xfedcba9876543210ull,
    .train_config = "data/train_config.yaml",
    .train_commit = "26c45d8",
    .train_date = "2025-01-31",
    .train_steps = 1234,
};

static const nn_load_check CHECK = {
    .feature_hash = 0x0123456789abcdefull,
    .catalog_hash = 0xfedcba9876543210ull,
    .mlir_version = "19.1.7",
};

static nn_model *small_model(nn_arch arch, uint64_t seed) {
  nn_config cfg;
  nn_config_default(&cfg);
  cfg.arch = arch;
  cfg.state_dim = 12;
  cfg.node_dim = 5;
  cfg.gnn_dim = 8;
  cfg.hidden_dim = 16;
  cfg.n_actions = 4;
  cfg.param_count[1] = 2;
  cfg.param_count[3] = 1;
  nn_model *m = nn_model_create(&cfg, seed);
  assert_non_null(m);
  return m;
}

static uint64_t u64le(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static nn_status parse(const uint8_t *buf, size_t len, const nn_load_check *c,
                       char *err) {
  nn_model *m = NULL;
  nn_status st = nn_policy_parse(buf, len, "t.safetensors", c, &m, NULL, err,
                                 512);
  if (st == NN_OK)
    assert_non_null(m);
  else
    assert_null(m);
  nn_model_destroy(m);
  return st;
}

// ----------------------------------------------------------------------------
// round trip

static void roundtrip(nn_arch arch) {
  nn_model *m = small_model(arch, 3);
  char path[] = "/tmp/mqss-test-policy-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  char err[512] = "";
  assert_int_equal(nn_policy_write(path, m, &META, err, sizeof err), NN_OK);
  nn_model *r = NULL;
  nn_file_meta meta;
  nn_status st = nn_policy_read(path, &CHECK, &r, &meta, err, sizeof err);
  if (st != NN_OK)
    fail_msg("read failed: %s", err);
  assert_int_equal(r->cfg.arch, arch);
  assert_int_equal(r->n_params, m->n_params);
  assert_memory_equal(r->params_memory, m->params_memory,
                      sizeof(float) * m->n_params);
  assert_memory_equal(r->param_off, m->param_off, sizeof m->param_off);
  assert_int_equal(r->cfg.hidden_dim, 16);
  assert_string_equal(meta.mlir_version, "19.1.7");
  assert_true(meta.feature_hash == META.feature_hash);
  assert_true(meta.catalog_hash == META.catalog_hash);
  assert_string_equal(meta.train_config, META.train_config);
  assert_string_equal(meta.train_commit, META.train_commit);
  assert_string_equal(meta.train_date, META.train_date);
  assert_int_equal(meta.train_steps, 1234);
  nn_model_destroy(r);
  remove(path);
  nn_model_destroy(m);
}

static void test_roundtrip_gnn(void **state) {
  (void)state;
  roundtrip(NN_ARCH_GNN);
}

static void test_roundtrip_mlp(void **state) {
  (void)state;
  roundtrip(NN_ARCH_MLP);
}

static void test_layout(void **state) {
  (void)state;
  nn_model *m = small_model(NN_ARCH_GNN, 4);
  uint8_t *buf, *buf2;
  size_t len, len2;
  assert_int_equal(nn_policy_serialize(m, &META, &buf, &len), NN_OK);
  assert_int_equal(nn_policy_serialize(m, &META, &buf2, &len2), NN_OK);
  assert_int_equal(len, len2); // deterministic bytes
  assert_memory_equal(buf, buf2, len);
  uint64_t hlen = u64le(buf);
  assert_int_equal((8 + hlen) % 8, 0); // data is 8-byte aligned
  assert_int_equal(len, 8 + hlen + 4 * m->n_params);
  assert_int_equal(buf[8], '{');
  cJSON *root = cJSON_ParseWithLength((const char *)buf + 8, hlen);
  assert_non_null(root);
  cJSON *fc1 = cJSON_GetObjectItem(root, "fc1.weight");
  assert_string_equal(cJSON_GetObjectItem(fc1, "dtype")->valuestring, "F32");
  cJSON *shape = cJSON_GetObjectItem(fc1, "shape");
  assert_int_equal(cJSON_GetArrayItem(shape, 0)->valueint, 16);
  assert_int_equal(cJSON_GetArrayItem(shape, 1)->valueint, 12 + 8);
  // the bytes at fc1.weight's offsets are its little-endian floats
  int begin = cJSON_GetArrayItem(cJSON_GetObjectItem(fc1, "data_offsets"), 0)->valueint;
  float first;
  memcpy(&first, buf + 8 + hlen + begin, 4); // x86-64 is little-endian
  assert_true(first == m->params.fc1_w[0]);
  cJSON *md = cJSON_GetObjectItem(root, "__metadata__");
  assert_string_equal(cJSON_GetObjectItem(md, "architecture")->valuestring, "gnn");
  assert_string_equal(cJSON_GetObjectItem(md, "param_counts")->valuestring, "0,2,0,1");
  assert_string_equal(cJSON_GetObjectItem(md, "feature_layout_hash")->valuestring,
                      "0123456789abcdef");
  cJSON_Delete(root);
  free(buf);
  free(buf2);
  nn_model_destroy(m);
}

// ----------------------------------------------------------------------------
// damaged files

static void test_not_safetensors(void **state) {
  (void)state;
  char err[512];
  const char *mlir = "func.func @f() {\n  return\n}\n";
  assert_int_equal(parse((const uint8_t *)mlir, strlen(mlir), NULL, err),
                   NN_ERR_FORMAT);
  assert_non_null(strstr(err, "not a safetensors file"));
  assert_int_equal(parse((const uint8_t *)"", 0, NULL, err), NN_ERR_FORMAT);
  // a plausible length followed by something that is not JSON
  uint8_t junk[24] = {16, 0, 0, 0, 0, 0, 0, 0, 'h', 'e', 'l', 'l', 'o'};
  assert_int_equal(parse(junk, sizeof junk, NULL, err), NN_ERR_FORMAT);
  // valid JSON, but a bare safetensors file without our metadata
  const char *bare = "{\"x\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
  uint8_t b2[128] = {0};
  size_t hl = strlen(bare);
  b2[0] = (uint8_t)hl;
  memcpy(b2 + 8, bare, hl);
  assert_int_equal(parse(b2, 8 + hl + 4, NULL, err), NN_ERR_FORMAT);
  assert_non_null(strstr(err, "__metadata__"));
  nn_model *m = NULL;
  assert_int_equal(nn_policy_read("/nonexistent/p.safetensors", NULL, &m, NULL,
                                  err, sizeof err),
                   NN_ERR_IO);
  assert_non_null(strstr(err, "/nonexistent/p.safetensors"));
}

static nn_file_meta meta_of(nn_dtype dt) {
  nn_file_meta meta = META;
  meta.weight_dtype = dt;
  return meta;
}

static void truncated_everywhere(nn_dtype dt) {
  nn_model *m = small_model(NN_ARCH_GNN, 5);
  uint8_t *buf;
  size_t len;
  nn_file_meta meta = meta_of(dt);
  assert_int_equal(nn_policy_serialize(m, &meta, &buf, &len), NN_OK);
  char err[512];
  assert_int_equal(parse(buf, len, &CHECK, err), NN_OK);
  // every proper prefix, each in its own exact-size allocation so that
  // ASan would catch a read past the end
  for (size_t cut = 1; cut < len; cut++) {
    uint8_t *p = malloc(cut);
    memcpy(p, buf, cut);
    nn_status st = parse(p, cut, &CHECK, err);
    free(p);
    if (st != NN_ERR_TRUNCATED)
      fail_msg("cut at %zu of %zu: status %d (%s)", cut, len, st, err);
  }
  printf("  %s: %zu truncation points rejected as truncated; e.g. %s\n",
         nn_dtype_name(dt), len - 1, err);
  free(buf);
  nn_model_destroy(m);
}

static void test_truncated_everywhere(void **state) {
  (void)state;
  truncated_everywhere(NN_DTYPE_F32);
  truncated_everywhere(NN_DTYPE_INT8);
}

static void byte_flips(nn_dtype dt) {
  nn_model *m = small_model(NN_ARCH_GNN, 6);
  uint8_t *buf;
  size_t len;
  nn_file_meta meta = meta_of(dt);
  assert_int_equal(nn_policy_serialize(m, &meta, &buf, &len), NN_OK);
  size_t data = 8 + u64le(buf);
  nn_rng r;
  nn_rng_seed(&r, 77);
  uint8_t *p = malloc(len);
  char err[512];
  int counts[16] = {0};
  for (int i = 0; i < 3000; i++) {
    memcpy(p, buf, len);
    size_t at = nn_rng_u64(&r) % len;
    uint8_t bit = (uint8_t)(1u << (nn_rng_u64(&r) % 8));
    p[at] ^= bit;
    err[0] = 0;
    nn_status st = parse(p, len, &CHECK, err);
    counts[st]++;
    if (at >= data && st != NN_ERR_CORRUPT) // data flips break the checksum
      fail_msg("flip at data byte %zu: status %d (%s)", at - data, st, err);
    if (st != NN_OK && strncmp(err, "policy 't.safetensors': ", 24) != 0)
      fail_msg("flip at %zu: status %d without a message: '%s'", at, st, err);
  }
  printf("  %s: 3000 flips: ok %d, format %d, truncated %d, corrupt %d, "
         "shape %d, hash %d, version %d\n",
         nn_dtype_name(dt), counts[NN_OK], counts[NN_ERR_FORMAT], counts[NN_ERR_TRUNCATED],
         counts[NN_ERR_CORRUPT], counts[NN_ERR_SHAPE], counts[NN_ERR_HASH],
         counts[NN_ERR_VERSION]);
  assert_true(counts[NN_ERR_CORRUPT] > 0 && counts[NN_ERR_FORMAT] > 0);
  free(p);
  free(buf);
  nn_model_destroy(m);
}

static void test_byte_flips(void **state) {
  (void)state;
  byte_flips(NN_DTYPE_F32);
  byte_flips(NN_DTYPE_INT8);
}

// ----------------------------------------------------------------------------
// mutated headers

typedef void (*mutate_fn)(cJSON *root);
// Edits the data section (dlen bytes) of a file whose header is root.
typedef void (*edit_fn)(cJSON *root, uint8_t *data, size_t dlen);

static void set_md(cJSON *root, const char *key, const char *val);

// The file buf (len bytes) with its header replaced by root, re-padded;
// *out_len receives the new length.
static uint8_t *rebuilt(const cJSON *root, const uint8_t *buf, size_t len,
                        size_t *out_len) {
  uint64_t hlen = u64le(buf);
  char *json = cJSON_PrintUnformatted(root);
  size_t jl = strlen(json), pad = (jl + 7) / 8 * 8, dlen = len - 8 - hlen;
  uint8_t *out = malloc(8 + pad + dlen);
  for (int i = 0; i < 8; i++)
    out[i] = (uint8_t)((uint64_t)pad >> (8 * i));
  memcpy(out + 8, json, jl);
  memset(out + 8 + jl, ' ', pad - jl);
  memcpy(out + 8 + pad, buf + 8 + hlen, dlen);
  free(json);
  *out_len = 8 + pad + dlen;
  return out;
}

// Serialises a model in weight dtype dt, lets `edit` (may be NULL) change
// its data and re-stamps the checksum, lets `mutate` edit the parsed header,
// and rebuilds the file around the data (re-padding the header).
static nn_status mutated_file(nn_dtype dt, mutate_fn mutate, edit_fn edit,
                              const nn_load_check *c, char *err) {
  nn_model *m = small_model(NN_ARCH_GNN, 8);
  uint8_t *buf;
  size_t len;
  nn_file_meta meta = meta_of(dt);
  assert_int_equal(nn_policy_serialize(m, &meta, &buf, &len), NN_OK);
  uint64_t hlen = u64le(buf);
  cJSON *root = cJSON_ParseWithLength((const char *)buf + 8, hlen);
  assert_non_null(root);
  if (edit) {
    edit(root, buf + 8 + hlen, len - 8 - hlen);
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx",
             (unsigned long long)nn_fnv1a64(buf + 8 + hlen, len - 8 - hlen));
    set_md(root, "data_checksum", hex);
  }
  mutate(root);
  size_t olen;
  uint8_t *out = rebuilt(root, buf, len, &olen);
  nn_status st = parse(out, olen, c, err);
  printf("  -> %s\n", err[0] ? err : "ok");
  free(out);
  cJSON_Delete(root);
  free(buf);
  nn_model_destroy(m);
  return st;
}

static nn_status mutated(mutate_fn mutate, const nn_load_check *c, char *err) {
  return mutated_file(NN_DTYPE_F32, mutate, NULL, c, err);
}

static void set_md(cJSON *root, const char *key, const char *val) {
  cJSON *md = cJSON_GetObjectItem(root, "__metadata__");
  cJSON_ReplaceItemInObject(md, key, cJSON_CreateString(val));
}

static void mut_none(cJSON *r) { (void)r; }
static void mut_shape(cJSON *r) { // [16, 20] -> [20, 16]: same size
  cJSON *sh = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "fc1.weight"), "shape");
  cJSON_ReplaceItemInArray(sh, 0, cJSON_CreateNumber(20));
  cJSON_ReplaceItemInArray(sh, 1, cJSON_CreateNumber(16));
}
static void mut_arch(cJSON *r) { set_md(r, "hidden_dim", "17"); }
// 65536 x 65536 hidden weights: far more parameters than the file has bytes
static void mut_huge(cJSON *r) { set_md(r, "hidden_dim", "65536"); }
static void mut_dtype(cJSON *r) {
  cJSON_ReplaceItemInObject(cJSON_GetObjectItem(r, "pi.bias"), "dtype",
                            cJSON_CreateString("F16"));
}
static void mut_missing(cJSON *r) { cJSON_DeleteItemFromObject(r, "value.bias"); }
static void mut_extra(cJSON *r) {
  cJSON *t = cJSON_Duplicate(cJSON_GetObjectItem(r, "value.bias"), 1);
  cJSON_AddItemToObject(r, "value.bias2", t);
}
static void mut_overlap(cJSON *r) { // value.bias reads the bytes before it
  cJSON *of = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "value.bias"),
                                  "data_offsets");
  double b = cJSON_GetArrayItem(of, 0)->valuedouble;
  cJSON_ReplaceItemInArray(of, 0, cJSON_CreateNumber(b - 4));
  cJSON_ReplaceItemInArray(of, 1, cJSON_CreateNumber(b));
}
static void mut_version_fmt(cJSON *r) { set_md(r, "format_version", "2"); }
static void mut_no_md(cJSON *r) { cJSON_DeleteItemFromObject(r, "__metadata__"); }
static void mut_feature(cJSON *r) { set_md(r, "feature_layout_hash", "0000000000000001"); }
static void mut_catalog(cJSON *r) { set_md(r, "catalog_hash", "0000000000000002"); }
static void mut_badhash(cJSON *r) { set_md(r, "catalog_hash", "xyz"); }
static void mut_mlir(cJSON *r) { set_md(r, "mlir_version", "18.1.8"); }
static void mut_counts(cJSON *r) { set_md(r, "param_counts", "0,2,0"); }

static void test_mutations(void **state) {
  (void)state;
  char err[512];
  assert_int_equal(mutated(mut_none, &CHECK, err), NN_OK);
  assert_int_equal(mutated(mut_shape, &CHECK, err), NN_ERR_SHAPE);
  assert_non_null(strstr(err, "fc1.weight' has shape [20, 16]"));
  assert_non_null(strstr(err, "needs [16, 20]"));
  assert_int_equal(mutated(mut_arch, &CHECK, err), NN_ERR_SHAPE);
  // refused before the model is allocated (a fuzzer found 16 GiB calloc'ed)
  assert_int_equal(mutated(mut_huge, &CHECK, err), NN_ERR_TRUNCATED);
  assert_non_null(strstr(err, "truncated or corrupt"));
  assert_int_equal(mutated(mut_dtype, &CHECK, err), NN_ERR_FORMAT);
  assert_non_null(strstr(err, "F16"));
  assert_int_equal(mutated(mut_missing, &CHECK, err), NN_ERR_FORMAT);
  assert_non_null(strstr(err, "'value.bias' is missing"));
  assert_int_equal(mutated(mut_extra, &CHECK, err), NN_ERR_FORMAT);
  assert_int_equal(mutated(mut_overlap, &CHECK, err), NN_ERR_FORMAT);
  assert_int_equal(mutated(mut_version_fmt, &CHECK, err), NN_ERR_FORMAT);
  assert_int_equal(mutated(mut_no_md, &CHECK, err), NN_ERR_FORMAT);
  assert_int_equal(mutated(mut_badhash, &CHECK, err), NN_ERR_FORMAT);
  assert_int_equal(mutated(mut_counts, &CHECK, err), NN_ERR_FORMAT);
  assert_int_equal(mutated(mut_feature, &CHECK, err), NN_ERR_HASH);
  assert_non_null(strstr(err, "feature-layout hash 0000000000000001"));
  assert_int_equal(mutated(mut_catalog, &CHECK, err), NN_ERR_HASH);
  assert_non_null(strstr(err, "catalog hash"));
  // hashes are not checked without a check struct
  assert_int_equal(mutated(mut_feature, NULL, err), NN_OK);
  // MLIR version: refused, unless explicitly allowed
  assert_int_equal(mutated(mut_mlir, &CHECK, err), NN_ERR_VERSION);
  assert_non_null(strstr(err, "MLIR 18.1.8"));
  assert_non_null(strstr(err, "--allow-version-mismatch"));
  nn_load_check allow = CHECK;
  allow.allow_version_mismatch = true;
  assert_int_equal(mutated(mut_mlir, &allow, err), NN_OK);
}

static void test_nonfinite_weight(void **state) {
  (void)state;
  nn_model *m = small_model(NN_ARCH_MLP, 9);
  m->params.v_b[0] = NAN; // a diverged policy: checksum matches, value not
  uint8_t *buf;
  size_t len;
  assert_int_equal(nn_policy_serialize(m, &META, &buf, &len), NN_OK);
  char err[512];
  assert_int_equal(parse(buf, len, &CHECK, err), NN_ERR_CORRUPT);
  assert_non_null(strstr(err, "value.bias"));
  free(buf);
  nn_model_destroy(m);
}

// ----------------------------------------------------------------------------
// int8 files

static void int8_roundtrip(nn_arch arch) {
  nn_model *m = small_model(arch, 10);
  uint8_t *buf;
  size_t len;
  nn_file_meta meta = meta_of(NN_DTYPE_INT8);
  assert_int_equal(nn_policy_serialize(m, &meta, &buf, &len), NN_OK);
  char err[512] = "";
  nn_model *q = NULL;
  nn_file_meta back;
  nn_status st = nn_policy_parse(buf, len, "q.safetensors", &CHECK, &q, &back,
                                 err, sizeof err);
  if (st != NN_OK)
    fail_msg("int8 read failed: %s", err);
  assert_int_equal(back.weight_dtype, NN_DTYPE_INT8);
  // data: one byte per 2-D weight, four per 1-D value and per block scale
  size_t want = 0;
  int changed = 0;
  double worst = 0; // largest change, in steps of its block
  for (int t = 0; t < m->n_tensors; t++) {
    const nn_tensor *ten = &m->tensors[t];
    const float *a = m->params_memory + ten->offset;
    const float *b = q->params_memory + ten->offset;
    if (ten->ndim == 1) {
      want += 4 * ten->size;
      assert_memory_equal(a, b, sizeof(float) * ten->size); // stays f32
      continue;
    }
    int C = ten->shape[1], blocks = (C + 31) / 32;
    want += ten->size + 4 * (size_t)ten->shape[0] * blocks;
    for (int r = 0; r < ten->shape[0]; r++)
      for (int c0 = 0; c0 < C; c0 += 32) {
        int c1 = c0 + 32 < C ? c0 + 32 : C;
        float amax = 0;
        for (int c = c0; c < c1; c++)
          amax = fmaxf(amax, fabsf(a[r * C + c]));
        for (int c = c0; c < c1; c++) {
          double d = fabs((double)a[r * C + c] - b[r * C + c]);
          worst = fmax(worst, d / (amax / 127.0));
          changed += d > 0;
          // a multiple of the step: q = w / step is an integer in [-127, 127]
          double k = b[r * C + c] / (amax / 127.0);
          assert_true(fabs(k - round(k)) < 1e-3 && fabs(k) <= 127.0 + 1e-3);
        }
      }
  }
  printf("  %s int8: %d weights changed, at most %.3f of a step\n",
         nn_arch_name(arch), changed, worst);
  assert_true(worst <= 0.5 + 1e-4);
  assert_true(changed > 0); // the weights really went through int8
  assert_int_equal(len - 8 - u64le(buf), want);
  // the header: I8 weights with F32 scales of one per block of 32 columns
  // (fc2 is 16 x 16: one block a row; fc1 is 16 x state_dim)
  cJSON *root = cJSON_ParseWithLength((const char *)buf + 8, u64le(buf));
  cJSON *w = cJSON_GetObjectItem(root, "fc2.weight");
  cJSON *sc = cJSON_GetObjectItem(root, "fc2.weight.scale");
  assert_string_equal(cJSON_GetObjectItem(w, "dtype")->valuestring, "I8");
  assert_string_equal(cJSON_GetObjectItem(sc, "dtype")->valuestring, "F32");
  assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(sc, "shape")), 2);
  assert_int_equal(
      cJSON_GetArrayItem(cJSON_GetObjectItem(sc, "shape"), 0)->valueint, 16);
  assert_int_equal(
      cJSON_GetArrayItem(cJSON_GetObjectItem(sc, "shape"), 1)->valueint, 1);
  cJSON *sc1 = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "fc1.weight.scale"),
                                   "shape");
  assert_int_equal(cJSON_GetArrayItem(sc1, 1)->valueint,
                   (m->cfg.state_dim + 31) / 32);
  assert_null(cJSON_GetObjectItem(root, "fc2.bias.scale"));
  assert_string_equal(
      cJSON_GetObjectItem(cJSON_GetObjectItem(root, "__metadata__"),
                          "weight_dtype")->valuestring, "int8");
  cJSON_Delete(root);
  nn_model_destroy(q);
  free(buf);
  nn_model_destroy(m);
}

static void test_int8_roundtrip(void **state) {
  (void)state;
  int8_roundtrip(NN_ARCH_GNN);
  int8_roundtrip(NN_ARCH_MLP);
}

static void test_quantize_blocks(void **state) {
  (void)state;
  // row 0: block 0 (columns 0-31) has max |w| 1.27, so its step is 0.01;
  // block 1 (columns 32-39) has max |w| 0.127, step 0.001; row 1: all zero
  enum { C = 40 };
  float w[2][C] = {{0}};
  w[0][0] = 0.5f, w[0][1] = -1.27f, w[0][2] = 0.014f, w[0][31] = 0.016f;
  w[0][32] = 0.0504f, w[0][39] = -0.127f;
  int8_t q[2 * C];
  float scale[2 * 2], back[2 * C];
  assert_int_equal(nn_quant_blocks(C), 2);
  assert_int_equal(nn_quant_blocks(32), 1);
  quantize_blocks(q, scale, &w[0][0], 2, C);
  assert_true(fabsf(scale[0] - 0.01f) < 1e-7f);
  assert_true(fabsf(scale[1] - 0.001f) < 1e-8f);
  assert_true(scale[2] == 0.0f && scale[3] == 0.0f);
  assert_int_equal(q[0], 50);
  assert_int_equal(q[1], -127);
  assert_int_equal(q[2], 1);
  assert_int_equal(q[31], 2);
  assert_int_equal(q[32], 50); // 0.0504 on the finer step of block 1
  assert_int_equal(q[39], -127);
  for (int k = C; k < 2 * C; k++)
    assert_int_equal(q[k], 0);
  dequantize_blocks(back, q, scale, 2, C);
  assert_true(fabsf(back[0] - 0.5f) < 1e-6f && fabsf(back[1] + 1.27f) < 1e-6f);
  assert_true(fabsf(back[32] - 0.05f) < 1e-6f);
  assert_true(back[C] == 0.0f && back[2 * C - 1] == 0.0f);
}

static void mut_flag_f32(cJSON *r) { set_md(r, "weight_dtype", "f32"); }
static void mut_flag_int8(cJSON *r) { set_md(r, "weight_dtype", "int8"); }
static void mut_flag_bad(cJSON *r) { set_md(r, "weight_dtype", "fp16"); }
static void mut_no_scale(cJSON *r) {
  cJSON_DeleteItemFromObject(r, "fc1.weight.scale");
}
static void mut_scale_shape(cJSON *r) { // [16, 1] -> [4, 4]: same size
  cJSON *sh = cJSON_GetObjectItem(cJSON_GetObjectItem(r, "fc2.weight.scale"),
                                  "shape");
  cJSON_ReplaceItemInArray(sh, 0, cJSON_CreateNumber(4));
  cJSON_ReplaceItemInArray(sh, 1, cJSON_CreateNumber(4));
}
static void mut_row_scales(cJSON *r) { // [16, 1] -> [16]: the old format
  cJSON_DeleteItemFromArray(
      cJSON_GetObjectItem(cJSON_GetObjectItem(r, "fc2.weight.scale"), "shape"),
      1);
}
static void mut_i8_as_f32(cJSON *r) {
  cJSON_ReplaceItemInObject(cJSON_GetObjectItem(r, "pi.weight"), "dtype",
                            cJSON_CreateString("F32"));
}

// Points p at the data of tensor `name`.
static uint8_t *tensor_data(cJSON *root, uint8_t *data, const char *name) {
  cJSON *of = cJSON_GetObjectItem(cJSON_GetObjectItem(root, name),
                                  "data_offsets");
  assert_non_null(of);
  return data + cJSON_GetArrayItem(of, 0)->valueint;
}
static void edit_neg_scale(cJSON *root, uint8_t *data, size_t dlen) {
  (void)dlen;
  float f = -0.5f;
  memcpy(tensor_data(root, data, "fc2.weight.scale") + 4 * 3, &f, 4);
}
static void edit_q_min(cJSON *root, uint8_t *data, size_t dlen) {
  (void)dlen;
  tensor_data(root, data, "sage1.w_neigh")[7] = 0x80; // -128
}

static void test_int8_errors(void **state) {
  (void)state;
  char err[512];
  assert_int_equal(mutated_file(NN_DTYPE_INT8, mut_none, NULL, &CHECK, err),
                   NN_OK);
  // the flag lies: int8 data said to be f32, and the reverse
  assert_int_equal(mutated_file(NN_DTYPE_INT8, mut_flag_f32, NULL, &CHECK, err),
                   NN_ERR_FORMAT);
  assert_non_null(strstr(err, "the dtype flag does not match the data"));
  assert_int_equal(mutated_file(NN_DTYPE_F32, mut_flag_int8, NULL, &CHECK, err),
                   NN_ERR_FORMAT);
  assert_non_null(strstr(err, "the dtype flag does not match the data"));
  assert_int_equal(mutated_file(NN_DTYPE_INT8, mut_flag_bad, NULL, &CHECK, err),
                   NN_ERR_FORMAT);
  assert_non_null(strstr(err, "'weight_dtype' = 'fp16'; expected f32 or int8"));
  assert_int_equal(mutated_file(NN_DTYPE_INT8, mut_no_scale, NULL, &CHECK, err),
                   NN_ERR_FORMAT);
  assert_non_null(strstr(err, "'fc1.weight.scale' is missing; int8 weights "
                              "need one f32 scale per block of a row"));
  assert_int_equal(
      mutated_file(NN_DTYPE_INT8, mut_scale_shape, NULL, &CHECK, err),
      NN_ERR_SHAPE);
  assert_non_null(strstr(err, "'fc2.weight.scale' has shape [4, 4]"));
  assert_non_null(strstr(err, "needs [16, 1]"));
  assert_non_null(strstr(err, "edited or written by an incompatible tool"));
  assert_int_equal(
      mutated_file(NN_DTYPE_INT8, mut_row_scales, NULL, &CHECK, err),
      NN_ERR_SHAPE);
  assert_non_null(strstr(err, "'fc2.weight.scale' has shape [16]"));
  assert_non_null(strstr(err, "run mqss quantize on its f32 original again"));
  assert_int_equal(mutated_file(NN_DTYPE_INT8, mut_i8_as_f32, NULL, &CHECK, err),
                   NN_ERR_FORMAT);
  assert_non_null(strstr(err, "'pi.weight' has dtype F32"));
  // data that no quantiser writes, under a valid checksum
  assert_int_equal(
      mutated_file(NN_DTYPE_INT8, mut_none, edit_neg_scale, &CHECK, err),
      NN_ERR_CORRUPT);
  assert_non_null(strstr(err, "'fc2.weight.scale' holds a negative value"));
  assert_int_equal(mutated_file(NN_DTYPE_INT8, mut_none, edit_q_min, &CHECK, err),
                   NN_ERR_CORRUPT);
  assert_non_null(strstr(err, "'sage1.w_neigh' holds -128"));
}


// ----------------------------------------------------------------------------
// ensembles

// Serialises three networks (seeds 3, 4, 5) as one ensemble file in dt.
static uint8_t *ensemble_file(nn_dtype dt, nn_model **ms, size_t *len) {
  for (int j = 0; j < 3; j++)
    ms[j] = small_model(NN_ARCH_GNN, 3 + (uint64_t)j);
  nn_file_meta meta = meta_of(dt);
  uint8_t *buf;
  assert_int_equal(nn_policy_serialize_members((const nn_model *const *)ms, 3,
                                               &meta, &buf, len),
                   NN_OK);
  return buf;
}

static void test_ensemble_roundtrip(void **state) {
  (void)state;
  for (int dt = NN_DTYPE_F32; dt <= NN_DTYPE_INT8; dt++) {
    nn_model *ms[3];
    size_t len;
    uint8_t *buf = ensemble_file((nn_dtype)dt, ms, &len);
    uint64_t hlen = u64le(buf);
    cJSON *root = cJSON_ParseWithLength((const char *)buf + 8, hlen);
    cJSON *md = cJSON_GetObjectItem(root, "__metadata__");
    assert_string_equal(cJSON_GetObjectItem(md, "members")->valuestring, "3");
    assert_non_null(cJSON_GetObjectItem(root, "member2.fc1.weight"));
    cJSON_Delete(root);
    nn_model *out[NN_MAX_MEMBERS];
    int k = -1;
    char err[512] = "";
    assert_int_equal(nn_policy_parse_members(buf, len, "t.safetensors", &CHECK,
                                             out, NN_MAX_MEMBERS, &k, NULL,
                                             err, sizeof err),
                     NN_OK);
    assert_int_equal(k, 3);
    for (int j = 0; j < 3; j++) {
      assert_int_equal(out[j]->n_params, ms[j]->n_params);
      if (dt == NN_DTYPE_F32) {
        assert_memory_equal(out[j]->params_memory, ms[j]->params_memory,
                            sizeof(float) * ms[j]->n_params);
        continue;
      }
      // int8: each member's own weights within half a step of its block
      // (at most max|w| / 254 of its tensor)
      const float *a = ms[j]->params.fc1_w, *b = out[j]->params.fc1_w;
      size_t n = (size_t)ms[j]->cfg.hidden_dim * 20;
      double amax = 0, diff = 0;
      for (size_t i = 0; i < n; i++) {
        amax = fmax(amax, fabs(a[i]));
        diff = fmax(diff, fabs((double)a[i] - b[i]));
      }
      assert_true(diff > 0 && diff <= amax / 254.0 * 1.001);
    }
    for (int j = 0; j < 3; j++) {
      nn_model_destroy(out[j]);
      nn_model_destroy(ms[j]);
    }
    free(buf);
  }
}

static void test_ensemble_single(void **state) {
  (void)state;
  // one network through the ensemble writer: the same bytes as before
  nn_model *m = small_model(NN_ARCH_MLP, 9);
  uint8_t *a, *b;
  size_t la, lb;
  assert_int_equal(nn_policy_serialize(m, &META, &a, &la), NN_OK);
  assert_int_equal(nn_policy_serialize_members((const nn_model *const *)&m, 1,
                                               &META, &b, &lb),
                   NN_OK);
  assert_int_equal(la, lb);
  assert_memory_equal(a, b, la);
  assert_null(strstr((const char *)a + 8, "\"members\""));
  // networks of different shapes are not one ensemble
  nn_model *two[2] = {m, small_model(NN_ARCH_GNN, 9)};
  uint8_t *c = NULL;
  size_t lc;
  assert_int_equal(nn_policy_serialize_members((const nn_model *const *)two, 2,
                                               &META, &c, &lc),
                   NN_ERR_FORMAT);
  assert_null(c);
  nn_model_destroy(two[1]);
  free(a);
  free(b);
  nn_model_destroy(m);
}

static void test_ensemble_refused(void **state) {
  (void)state;
  nn_model *ms[3];
  size_t len;
  uint8_t *buf = ensemble_file(NN_DTYPE_F32, ms, &len);
  char err[512];
  // a reader of one network says what the file is
  assert_int_equal(parse(buf, len, &CHECK, err), NN_ERR_FORMAT);
  printf("  -> %s\n", err);
  assert_non_null(strstr(err, "an ensemble of 3 networks"));
  nn_model *out[2];
  int k;
  assert_int_equal(nn_policy_parse_members(buf, len, "t.safetensors", &CHECK,
                                           out, 2, &k, NULL, err, sizeof err),
                   NN_ERR_FORMAT);
  assert_null(out[0]);
  assert_null(out[1]);
  // every truncation point of an ensemble is refused as truncated
  for (size_t cut = 1; cut < len; cut += 7) {
    uint8_t *p = malloc(cut);
    memcpy(p, buf, cut);
    nn_model *o[NN_MAX_MEMBERS];
    nn_status st = nn_policy_parse_members(p, cut, "t.safetensors", &CHECK, o,
                                           NN_MAX_MEMBERS, &k, NULL, err,
                                           sizeof err);
    free(p);
    if (st != NN_ERR_TRUNCATED)
      fail_msg("cut at %zu of %zu: status %d (%s)", cut, len, st, err);
  }
  // a "members" that does not match the tensors, or is out of range
  static const char *bad[] = {"2", "4", "1", "9", "three"};
  uint64_t hlen = u64le(buf);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cJSON *root = cJSON_ParseWithLength((const char *)buf + 8, hlen);
    set_md(root, "members", bad[i]);
    size_t plen;
    uint8_t *p = rebuilt(root, buf, len, &plen);
    nn_model *o[NN_MAX_MEMBERS];
    nn_status st = nn_policy_parse_members(p, plen, "t.safetensors", &CHECK, o,
                                           NN_MAX_MEMBERS, &k, NULL, err,
                                           sizeof err);
    printf("  members=%s -> %s\n", bad[i], err);
    assert_true(st == NN_ERR_FORMAT || st == NN_ERR_TRUNCATED);
    free(p);
    cJSON_Delete(root);
  }
  for (int j = 0; j < 3; j++)
    nn_model_destroy(ms[j]);
  free(buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_roundtrip_gnn),
      cmocka_unit_test(test_roundtrip_mlp),
      cmocka_unit_test(test_layout),
      cmocka_unit_test(test_not_safetensors),
      cmocka_unit_test(test_truncated_everywhere),
      cmocka_unit_test(test_byte_flips),
      cmocka_unit_test(test_mutations),
      cmocka_unit_test(test_nonfinite_weight),
      cmocka_unit_test(test_int8_roundtrip),
      cmocka_unit_test(test_quantize_blocks),
      cmocka_unit_test(test_int8_errors),
      cmocka_unit_test(test_ensemble_roundtrip),
      cmocka_unit_test(test_ensemble_single),
      cmocka_unit_test(test_ensemble_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
