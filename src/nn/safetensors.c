// Reading policy files in the safetensors format: an 8-byte little-endian
// header length, a JSON header (tensor names, dtypes, shapes, data offsets,
// and string metadata), then the raw little-endian data: F32 tensors, and in
// an int8 policy I8 weights whose block scales are dequantised here (quant.c).
// The layout and every metadata key are documented in docs/POLICY_FORMAT.md.
//
// Loading trusts nothing: every length, offset, shape and metadata value is
// checked, and a bad file yields an nn_status plus a message saying what is
// wrong and what to do, never a crash. Not here: writing
// (safetensors_write.c) or choosing which hashes to expect (the caller
// passes them in nn_load_check).
#include "nn/nn.h"

#include <cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HEADER (64u << 20) // a header this large is not ours
#define MAX_FILE (1ull << 32)

// ----------------------------------------------------------------------------
// strict parsers

static float get_f32le(const uint8_t *p) {
  uint32_t u = 0;
  for (int i = 0; i < 4; i++)
    u |= (uint32_t)p[i] << (8 * i);
  float f;
  memcpy(&f, &u, 4);
  return f;
}

// Strict parsers for metadata strings: the whole string must be the value.
static bool parse_hex64(const char *s, uint64_t *out) {
  if (strlen(s) != 16)
    return false;
  uint64_t v = 0;
  for (int i = 0; i < 16; i++) {
    char c = s[i];
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                   : -1;
    if (d < 0)
      return false;
    v = v << 4 | (uint64_t)d;
  }
  *out = v;
  return true;
}

static bool parse_int(const char *s, long long lo, long long hi,
                      long long *out) {
  if (!*s || (*s != '-' && (*s < '0' || *s > '9')))
    return false;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || *end || v < lo || v > hi)
    return false;
  *out = v;
  return true;
}

// A JSON number that is an exact non-negative integer below 2^53.
static bool json_uint(const cJSON *j, uint64_t *out) {
  if (!cJSON_IsNumber(j))
    return false;
  double d = j->valuedouble;
  if (!(d >= 0.0) || d > 9007199254740992.0 || d != floor(d))
    return false;
  *out = (uint64_t)d;
  return true;
}

// ----------------------------------------------------------------------------
// reading

static const char *REQUIRED_KEYS[] = {
    "format",       "format_version", "mlir_version", "feature_layout_hash",
    "catalog_hash", "architecture",   "state_dim",    "node_dim",
    "gnn_dim",      "hidden_dim",     "n_actions",    "param_counts",
    "data_checksum", "train_config",  "train_commit", "train_steps",
    "train_date",
};

static const char *md_get(const cJSON *md, const char *key) {
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(md, key);
  return cJSON_IsString(j) ? j->valuestring : NULL;
}

// Reads the architecture from the metadata into cfg.
static nn_status parse_config(const cJSON *md, nn_config *cfg, const char *name,
                              char *err, size_t errlen) {
  nn_config_default(cfg);
  if (nn_arch_parse(md_get(md, "architecture"), &cfg->arch) != 0)
    return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                  "unknown architecture '%s' (expected gnn or mlp)",
                  md_get(md, "architecture"));
  static const struct {
    const char *key;
    size_t off;
    long long lo, hi;
  } dims[] = {
      {"state_dim", offsetof(nn_config, state_dim), 1, 1 << 20},
      {"node_dim", offsetof(nn_config, node_dim), 0, 1 << 20},
      {"gnn_dim", offsetof(nn_config, gnn_dim), 0, 1 << 16},
      {"hidden_dim", offsetof(nn_config, hidden_dim), 1, 1 << 16},
      {"n_actions", offsetof(nn_config, n_actions), 0, NN_MAX_ACTIONS},
  };
  for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
    long long v;
    if (!parse_int(md_get(md, dims[i].key), dims[i].lo, dims[i].hi, &v))
      return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                    "metadata '%s' = '%s' is not an integer in [%lld, %lld]",
                    dims[i].key, md_get(md, dims[i].key), dims[i].lo,
                    dims[i].hi);
    *(int *)((char *)cfg + dims[i].off) = (int)v;
  }
  // optional (format 1 files before the embedding lack them: 0)
  static const struct {
    const char *key;
    size_t off;
  } opt[] = {{"embed_dim", offsetof(nn_config, embed_dim)},
             {"embed_rows", offsetof(nn_config, embed_rows)}};
  for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++) {
    const char *v = md_get(md, opt[i].key);
    long long n = 0;
    if (v && !parse_int(v, 0, 1 << 16, &n))
      return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                       "metadata '%s' = '%s' is not an integer in [0, 65536]",
                       opt[i].key, v);
    *(int *)((char *)cfg + opt[i].off) = (int)n;
  }
  // param_counts: n_actions comma-separated integers
  const char *s = md_get(md, "param_counts");
  for (int a = 0; a < cfg->n_actions; a++) {
    char num[16];
    size_t n = strcspn(s, ",");
    long long v;
    if (n == 0 || n >= sizeof num)
      goto bad_counts;
    memcpy(num, s, n);
    num[n] = 0;
    if (!parse_int(num, 0, 64, &v))
      goto bad_counts;
    cfg->param_count[a] = (int)v;
    s += n;
    if (a + 1 < cfg->n_actions) {
      if (*s != ',')
        goto bad_counts;
      s++;
    }
  }
  if (*s)
    goto bad_counts;
  return NN_OK;
bad_counts:
  return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                "metadata 'param_counts' = '%s' is not %d comma-separated "
                "counts",
                md_get(md, "param_counts"), cfg->n_actions);
}

static void shape_str(char *out, size_t n, const int *shape, int ndim) {
  size_t p = snprintf(out, n, "[");
  for (int d = 0; d < ndim && p < n; d++)
    p += snprintf(out + p, n - p, "%s%d", d ? ", " : "", shape[d]);
  if (p < n)
    snprintf(out + p, n - p, "]");
}

typedef struct {
  uint64_t begin, end;
} span;

static int span_cmp(const void *a, const void *b) {
  const span *x = a, *y = b;
  return x->begin < y->begin ? -1 : x->begin > y->begin;
}

// Why a tensor the header names is not one of `ents`: a hint for the
// tensors of the other weight dtype, whose presence means the metadata's
// weight_dtype does not match the data.
static nn_status unexpected(const char *tname, const nn_model *m, nn_dtype dt,
                            int members, const char *name, char *err,
                            size_t errlen) {
  nn_file_entry *other = malloc(sizeof *other * NN_FILE_MAX_ENTRIES);
  nn_dtype od = dt == NN_DTYPE_INT8 ? NN_DTYPE_F32 : NN_DTYPE_INT8;
  int n = other ? nn_file_layout(m, od, members, other) : 0;
  bool flag = false; // a tensor of the other dtype
  for (int i = 0; i < n && !flag; i++)
    flag = strcmp(other[i].name, tname) == 0;
  free(other);
  if (flag)
    return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                     "tensor '%s' belongs to %s weights but the metadata says "
                     "weight_dtype %s; the dtype flag does not match the "
                     "data, write the file again (mqss quantize for int8)",
                     tname, nn_dtype_name(od), nn_dtype_name(dt));
  return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                "unexpected tensor '%s' for %d %s network%s", tname, members,
                nn_arch_name(m->cfg.arch), members > 1 ? "s" : "");
}

// Checks every tensor entry of the header against the file layout `ents`
// (n of them) of `members` models shaped as m in weight dtype `dt`, and the
// data length.
static nn_status check_tensors(const cJSON *root, const nn_model *m,
                               int members, nn_dtype dt,
                               const nn_file_entry *ents, int n, size_t dlen,
                               span *spans, const char *name, char *err,
                               size_t errlen) {
  bool seen[NN_FILE_MAX_ENTRIES] = {0};
  for (const cJSON *it = root->child; it; it = it->next) {
    if (strcmp(it->string, "__metadata__") == 0)
      continue;
    int t = 0;
    while (t < n && strcmp(ents[t].name, it->string) != 0)
      t++;
    if (t == n)
      return unexpected(it->string, m, dt, members, name, err, errlen);
    if (seen[t])
      return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                    "tensor '%s' appears twice", it->string);
    seen[t] = true;
    const nn_file_entry *ten = &ents[t];
    const char *want = ten->kind == NN_ENTRY_I8 ? "I8" : "F32";
    const cJSON *dtj = cJSON_GetObjectItemCaseSensitive(it, "dtype");
    if (!cJSON_IsString(dtj) || strcmp(dtj->valuestring, want) != 0)
      return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                    "tensor '%s' has dtype %s; a policy with weight_dtype %s "
                    "stores it as %s%s",
                    ten->name, cJSON_IsString(dtj) ? dtj->valuestring : "(none)",
                    nn_dtype_name(dt), want,
                    cJSON_IsString(dtj) && (!strcmp(dtj->valuestring, "I8") ||
                                            !strcmp(dtj->valuestring, "F32"))
                        ? "; the dtype flag does not match the data"
                        : "");
    const cJSON *sh = cJSON_GetObjectItemCaseSensitive(it, "shape");
    if (!cJSON_IsArray(sh))
      return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                    "tensor '%s' has no shape array", ten->name);
    int shape[8], nd = 0;
    bool shape_ok = true;
    for (const cJSON *d = sh->child; d; d = d->next) {
      uint64_t v;
      if (!json_uint(d, &v) || v > (1u << 30) || nd == 8)
        return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                      "tensor '%s' has an invalid shape", ten->name);
      shape[nd] = (int)v;
      shape_ok = shape_ok && nd < ten->ndim && shape[nd] == ten->shape[nd];
      nd++;
    }
    if (!shape_ok || nd != ten->ndim) {
      char got[96], want_s[96];
      shape_str(got, sizeof got, shape, nd);
      shape_str(want_s, sizeof want_s, ten->shape, ten->ndim);
      return nn_seterr(err, errlen, NN_ERR_SHAPE, name,
                    "tensor '%s' has shape %s but the architecture in the "
                    "metadata needs %s; %s",
                    ten->name, got, want_s,
                    ten->kind == NN_ENTRY_SCALE && nd == 1
                        ? "an int8 file with one scale per row predates the "
                          "per-block scales: run mqss quantize on its f32 "
                          "original again"
                        : "the file was edited or written by an "
                          "incompatible tool");
    }
    const cJSON *of = cJSON_GetObjectItemCaseSensitive(it, "data_offsets");
    uint64_t b, e;
    if (!cJSON_IsArray(of) || cJSON_GetArraySize(of) != 2 ||
        !json_uint(of->child, &b) || !json_uint(of->child->next, &e) || e < b)
      return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                    "tensor '%s' has invalid data_offsets", ten->name);
    if (e - b != ten->bytes)
      return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                    "tensor '%s' spans %" PRIu64 " bytes but its shape needs "
                    "%zu",
                    ten->name, e - b, ten->bytes);
    if (e > dlen)
      return nn_seterr(err, errlen, NN_ERR_TRUNCATED, name,
                    "tensor '%s' ends at byte %" PRIu64 " of the data but "
                    "only %zu bytes are present; the file was cut short, "
                    "copy it again",
                    ten->name, e, dlen);
    spans[t] = (span){b, e};
  }
  for (int t = 0; t < n; t++)
    if (!seen[t])
      return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                    "tensor '%s' is missing%s", ents[t].name,
                    ents[t].kind == NN_ENTRY_SCALE
                        ? "; int8 weights need one f32 scale per block of a row"
                        : "");
  // the tensors must tile the data exactly: no overlaps, no holes
  span sorted[NN_FILE_MAX_ENTRIES];
  memcpy(sorted, spans, sizeof(span) * n);
  qsort(sorted, n, sizeof(span), span_cmp);
  uint64_t at = 0;
  for (int t = 0; t < n; t++) {
    if (sorted[t].begin != at)
      return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                    "tensor data overlaps or leaves a hole at byte %" PRIu64,
                    at);
    at = sorted[t].end;
  }
  if (at != dlen)
    return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                  "%zu bytes of data follow the last tensor", dlen - (size_t)at);
  return NN_OK;
}

// Copies the checked data into the parameters of the models ms (entry e's
// into ms[e->member]): F32 tensors as they are, each I8 tensor times its
// block scales (fc1.weight.scale, ...). Refuses non-finite values, negative
// scales and -128, which the symmetric quantiser never writes.
static nn_status fill_params(nn_model **ms, const nn_file_entry *ents, int n,
                             const span *spans, const uint8_t *data,
                             const char *name, char *err, size_t errlen) {
  for (int i = 0; i < n; i++) {
    const nn_file_entry *e = &ents[i];
    const nn_tensor *ten = &ms[e->member]->tensors[e->tensor];
    float *w = ms[e->member]->params_memory + ten->offset;
    const uint8_t *p = data + spans[i].begin;
    if (e->kind == NN_ENTRY_I8)
      continue; // with its scale, below
    size_t count = e->bytes / 4;
    for (size_t k = 0; k < count; k++) {
      float f = get_f32le(p + 4 * k);
      if (!isfinite(f) || (e->kind == NN_ENTRY_SCALE && f < 0))
        return nn_seterr(err, errlen, NN_ERR_CORRUPT, name,
                      "tensor '%s' holds %s value; %s", e->name,
                      isfinite(f) ? "a negative" : "a non-finite",
                      e->kind == NN_ENTRY_SCALE
                          ? "int8 scales are finite and >= 0, write the file "
                            "again with mqss quantize"
                          : "the policy diverged in training");
      w[k] = f; // a scale waits here until its int8 tensor arrives
    }
  }
  for (int i = 0; i < n; i++) {
    const nn_file_entry *e = &ents[i];
    if (e->kind != NN_ENTRY_I8)
      continue;
    nn_model *m = ms[e->member];
    const nn_tensor *ten = &m->tensors[e->tensor];
    const int8_t *q = (const int8_t *)(data + spans[i].begin);
    for (size_t k = 0; k < ten->size; k++)
      if (q[k] == INT8_MIN)
        return nn_seterr(err, errlen, NN_ERR_CORRUPT, name,
                      "tensor '%s' holds -128, outside the symmetric range "
                      "[-127, 127]; the file is corrupt or was not written "
                      "by mqss quantize",
                      e->name);
    // the R x B block scales sit in the first floats of the tensor's slots
    int R = ten->shape[0], C = ten->shape[1];
    size_t ns = (size_t)R * nn_quant_blocks(C);
    float *w = m->params_memory + ten->offset;
    float *scale = malloc(sizeof(float) * ns);
    if (!scale)
      return nn_seterr(err, errlen, NN_ERR_NOMEM, name, "out of memory");
    memcpy(scale, w, sizeof(float) * ns);
    dequantize_blocks(w, q, scale, R, C);
    free(scale);
  }
  return NN_OK;
}

// Compares the file's hashes and MLIR version with what this build expects.
static nn_status check_compat(const nn_file_meta *fm, const nn_load_check *c,
                              const char *name, char *err, size_t errlen) {
  if (!c)
    return NN_OK;
  bool older = false;
  for (int i = 0; i < c->n_old_feature_hashes && !older; i++)
    older = fm->feature_hash == c->old_feature_hashes[i];
  if (fm->feature_hash != c->feature_hash && !older)
    return nn_seterr(err, errlen, NN_ERR_HASH, name,
                  "feature-layout hash %016" PRIx64 " differs from this "
                  "build's %016" PRIx64 "; the state/graph features changed, "
                  "retrain the policy",
                  fm->feature_hash, c->feature_hash);
  bool prefix = false;
  for (int i = 0; i < c->n_prefix_hashes && !prefix; i++)
    prefix = fm->catalog_hash == c->prefix_hashes[i];
  if (fm->catalog_hash != c->catalog_hash && !prefix)
    return nn_seterr(err, errlen, NN_ERR_HASH, name,
                  "catalog hash %016" PRIx64 " differs from the loaded "
                  "catalog's %016" PRIx64 "; use the catalog it was trained "
                  "with, or retrain",
                  fm->catalog_hash, c->catalog_hash);
  if (c->mlir_version && strcmp(fm->mlir_version, c->mlir_version) != 0 &&
      !c->allow_version_mismatch)
    return nn_seterr(err, errlen, NN_ERR_VERSION, name,
                  "trained with MLIR %s but this build uses MLIR %s; retrain, "
                  "or pass --allow-version-mismatch to use it anyway",
                  fm->mlir_version, c->mlir_version);
  return NN_OK;
}

static nn_status parse_meta(const cJSON *md, nn_file_meta *fm,
                            uint64_t *checksum, const char *name, char *err,
                            size_t errlen) {
  memset(fm, 0, sizeof *fm);
  const char *v = md_get(md, "format_version");
  if (strcmp(v, NN_FORMAT_VERSION) != 0)
    return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                  "format version %s; this build reads version %s", v,
                  NN_FORMAT_VERSION);
  static const char *hashes[] = {"feature_layout_hash", "catalog_hash",
                                 "data_checksum"};
  uint64_t *dst[] = {&fm->feature_hash, &fm->catalog_hash, checksum};
  for (int i = 0; i < 3; i++)
    if (!parse_hex64(md_get(md, hashes[i]), dst[i]))
      return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                    "metadata '%s' = '%s' is not 16 lowercase hex digits",
                    hashes[i], md_get(md, hashes[i]));
  if (!parse_int(md_get(md, "train_steps"), 0, INT64_MAX, &fm->train_steps))
    return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                  "metadata 'train_steps' = '%s' is not a count",
                  md_get(md, "train_steps"));
  if (strlen(md_get(md, "mlir_version")) >= sizeof fm->mlir_version)
    return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                  "metadata 'mlir_version' is too long");
  snprintf(fm->mlir_version, sizeof fm->mlir_version, "%s",
           md_get(md, "mlir_version"));
  snprintf(fm->train_config, sizeof fm->train_config, "%s",
           md_get(md, "train_config"));
  snprintf(fm->train_commit, sizeof fm->train_commit, "%s",
           md_get(md, "train_commit"));
  snprintf(fm->train_date, sizeof fm->train_date, "%s",
           md_get(md, "train_date"));
  const char *dt = md_get(md, "weight_dtype"); // optional: f32 without it
  if (dt && nn_dtype_parse(dt, &fm->weight_dtype) != 0)
    return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                  "metadata 'weight_dtype' = '%s'; expected f32 or int8", dt);
  // optional lineage (policies migrated with --init-from)
  const char *ph = md_get(md, "parent_hash");
  if (!ph)
    return NN_OK;
  static const char *lineage[] = {"parent_hash", "parent_feature_layout_hash",
                                  "parent_catalog_hash"};
  uint64_t *ldst[] = {&fm->parent_hash, &fm->parent_feature_hash,
                      &fm->parent_catalog_hash};
  long long ver = 0, acts = 0;
  for (int i = 0; i < 3; i++) {
    const char *v = md_get(md, lineage[i]);
    if (!v || !parse_hex64(v, ldst[i]))
      return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                       "metadata '%s' = '%s' is not 16 lowercase hex digits",
                       lineage[i], v ? v : "(missing)");
  }
  const char *pv = md_get(md, "parent_feature_version"),
             *pa = md_get(md, "parent_actions");
  if (!pv || !pa || !parse_int(pv, 0, 1 << 20, &ver) ||
      !parse_int(pa, 0, NN_MAX_ACTIONS, &acts))
    return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                     "metadata 'parent_feature_version' or 'parent_actions' "
                     "is not a count");
  fm->parent_feature_version = (int)ver;
  fm->parent_actions = (int)acts;
  return NN_OK;
}

nn_status nn_policy_parse(const uint8_t *buf, size_t len, const char *name,
                          const nn_load_check *check, nn_model **out,
                          nn_file_meta *meta, char *err, size_t errlen) {
  int members;
  return nn_policy_parse_members(buf, len, name, check, out, 1, &members,
                                 meta, err, errlen);
}

// The metadata's "members": 1 without it, else an integer in
// [2, NN_MAX_MEMBERS] (a one-network file does not write the key).
static nn_status parse_members(const cJSON *md, int *members, const char *name,
                               char *err, size_t errlen) {
  const char *v = md_get(md, "members");
  long long k = 1;
  if (v && !parse_int(v, 2, NN_MAX_MEMBERS, &k))
    return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                     "metadata 'members' = '%s' is not an integer in [2, %d]",
                     v, NN_MAX_MEMBERS);
  *members = (int)k;
  return NN_OK;
}

nn_status nn_policy_parse_members(const uint8_t *buf, size_t len,
                                  const char *name, const nn_load_check *check,
                                  nn_model **out, int max, int *members,
                                  nn_file_meta *meta, char *err,
                                  size_t errlen) {
  for (int j = 0; j < max; j++)
    out[j] = NULL;
  *members = 0;
  if (err && errlen)
    err[0] = 0;
  if (!name)
    name = "<memory>";
  if (len == 0)
    return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                  "the file is empty, not a safetensors policy");
  if (len < 8)
    return nn_seterr(err, errlen, NN_ERR_TRUNCATED, name,
                  "only %zu bytes, shorter than the 8-byte header length; "
                  "the file was cut short",
                  len);
  uint64_t hlen = 0;
  for (int i = 0; i < 8; i++)
    hlen |= (uint64_t)buf[i] << (8 * i);
  if (hlen < 2 || hlen > MAX_HEADER)
    return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                  "header length %" PRIu64 " is implausible; this is not a "
                  "safetensors file",
                  hlen);
  if (hlen > len - 8)
    return nn_seterr(err, errlen, NN_ERR_TRUNCATED, name,
                  "the header needs %" PRIu64 " bytes but only %zu follow; "
                  "the file was cut short, copy it again",
                  hlen, len - 8);
  const char *hdr = (const char *)buf + 8;
  if (hdr[0] != '{')
    return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                  "the header does not start with '{'; this is not a "
                  "safetensors file");
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(hdr, (size_t)hlen, &end, false);
  bool trailing_ok = root != NULL;
  for (const char *p = end; root && p < hdr + hlen; p++)
    if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
      trailing_ok = false;
  if (!root || !trailing_ok || !cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                  "the header is not a JSON object; this is not a "
                  "safetensors file");
  }
  nn_status st = NN_OK;
  nn_model *ms[NN_MAX_MEMBERS] = {0};
  int k = 0; // networks in the file
  nn_file_entry *ents = NULL;
  span *spans = NULL;
  nn_file_meta fm;
  uint64_t checksum = 0;
  const cJSON *md = cJSON_GetObjectItemCaseSensitive(root, "__metadata__");
  if (!cJSON_IsObject(md)) {
    st = nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                "no __metadata__; a safetensors file, but not an mqss policy");
    goto done;
  }
  for (const cJSON *it = md->child; it; it = it->next)
    if (!cJSON_IsString(it)) {
      st = nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                  "metadata '%s' is not a string", it->string);
      goto done;
    }
  for (size_t i = 0; i < sizeof REQUIRED_KEYS / sizeof REQUIRED_KEYS[0]; i++)
    if (!md_get(md, REQUIRED_KEYS[i])) {
      st = nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                  "metadata '%s' is missing; not an mqss policy file",
                  REQUIRED_KEYS[i]);
      goto done;
    }
  if (strcmp(md_get(md, "format"), NN_FORMAT_NAME) != 0) {
    st = nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                "metadata format is '%s', expected '" NN_FORMAT_NAME "'",
                md_get(md, "format"));
    goto done;
  }
  if ((st = parse_meta(md, &fm, &checksum, name, err, errlen)) != NN_OK)
    goto done;
  nn_config cfg;
  if ((st = parse_config(md, &cfg, name, err, errlen)) != NN_OK ||
      (st = parse_members(md, &k, name, err, errlen)) != NN_OK)
    goto done;
  if (k > max) {
    st = nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                   "an ensemble of %d networks where %s expected; use it as "
                   "a policy (select, compile, eval, quantize), and one of "
                   "its members' files to start training or join another "
                   "ensemble", k,
                   max == 1 ? "one network is" : "fewer are");
    goto done;
  }
  const uint8_t *data = buf + 8 + hlen;
  size_t dlen = len - 8 - (size_t)hlen;
  // Every parameter takes at least one byte of tensor data (int8): a
  // metadata that asks for more cannot be this file's, and must not make
  // us allocate it.
  size_t need = nn_config_param_count(&cfg) * (size_t)k;
  if (need > dlen) {
    st = nn_seterr(err, errlen, NN_ERR_TRUNCATED, name,
                "the architecture in the metadata has %zu parameters, but "
                "the file holds %zu bytes of tensor data; the file is "
                "truncated or corrupt, copy it again", need, dlen);
    goto done;
  }
  for (int j = 0; j < k; j++)
    if (!(ms[j] = nn_model_create(&cfg, 0))) {
      st = nn_seterr(err, errlen, NN_ERR_FORMAT, name,
                     "the architecture in the metadata is invalid");
      goto done;
    }
  // an ensemble's layout is too large for a thread's stack
  if (!(ents = malloc(sizeof *ents * NN_FILE_MAX_ENTRIES)) ||
      !(spans = malloc(sizeof *spans * NN_FILE_MAX_ENTRIES))) {
    st = nn_seterr(err, errlen, NN_ERR_NOMEM, name, "out of memory");
    goto done;
  }
  int n_ents = nn_file_layout(ms[0], fm.weight_dtype, k, ents);
  if ((st = check_tensors(root, ms[0], k, fm.weight_dtype, ents, n_ents, dlen,
                          spans, name, err, errlen)) != NN_OK)
    goto done;
  if (nn_fnv1a64(data, dlen) != checksum) {
    st = nn_seterr(err, errlen, NN_ERR_CORRUPT, name,
                "the tensor data does not match its checksum; the file is "
                "corrupt, copy it again");
    goto done;
  }
  if ((st = fill_params(ms, ents, n_ents, spans, data, name, err, errlen)) !=
      NN_OK)
    goto done;
  if ((st = check_compat(&fm, check, name, err, errlen)) != NN_OK)
    goto done;
  if (meta)
    *meta = fm;
done:
  cJSON_Delete(root);
  free(ents);
  free(spans);
  for (int j = 0; j < k; j++) {
    if (st != NN_OK)
      nn_model_destroy(ms[j]);
    else
      out[j] = ms[j];
  }
  if (st == NN_OK)
    *members = k;
  return st;
}

nn_status nn_policy_read(const char *path, const nn_load_check *check,
                         nn_model **out, nn_file_meta *meta, char *err,
                         size_t errlen) {
  int members;
  return nn_policy_read_members(path, check, out, 1, &members, meta, err,
                                errlen);
}

nn_status nn_policy_read_members(const char *path, const nn_load_check *check,
                                 nn_model **out, int max, int *members,
                                 nn_file_meta *meta, char *err,
                                 size_t errlen) {
  for (int j = 0; j < max; j++)
    out[j] = NULL;
  *members = 0;
  FILE *f = fopen(path, "rb");
  if (!f)
    return nn_seterr(err, errlen, NN_ERR_IO, path, "cannot open: %s",
                  strerror(errno));
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      cap = cap ? cap * 2 : 1 << 16;
      uint8_t *nb = cap <= MAX_FILE ? realloc(buf, cap) : NULL;
      if (!nb) {
        free(buf);
        fclose(f);
        return nn_seterr(err, errlen, NN_ERR_NOMEM, path,
                      "out of memory reading the file");
      }
      buf = nb;
    }
    size_t n = fread(buf + len, 1, cap - len, f);
    len += n;
    if (n == 0)
      break;
  }
  bool bad = ferror(f);
  fclose(f);
  nn_status st = bad ? nn_seterr(err, errlen, NN_ERR_IO, path, "read error")
                     : nn_policy_parse_members(buf, len, path, check, out,
                                               max, members, meta, err,
                                               errlen);
  free(buf);
  return st;
}
