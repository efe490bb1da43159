// Writing policy files in the safetensors format (layout in
// docs/POLICY_FORMAT.md), plus the pieces the reader shares: status strings,
// the data checksum and error messages.
//
// Not here: reading and validation (safetensors.c).
#include "nn/nn.h"

#include <cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *nn_strerror(nn_status st) {
  switch (st) {
#define NN_STATUS_CASE(name, text)                                             \
  case name:                                                                   \
    return text;
    NN_STATUS_TABLE(NN_STATUS_CASE)
#undef NN_STATUS_CASE
  }
  return "unknown status";
}


// ----------------------------------------------------------------------------
// shared helpers

uint64_t nn_fnv1a64(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

static void put_f32le(uint8_t *p, float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(u >> (8 * i));
}

nn_status nn_seterr(char *err, size_t errlen, nn_status st, const char *name,
                    const char *fmt, ...) {
  if (err && errlen > 0) {
    int n = snprintf(err, errlen, "policy '%s': ", name);
    if (n >= 0 && (size_t)n < errlen) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(err + n, errlen - n, fmt, ap);
      va_end(ap);
    }
  }
  return st;
}

static void hex64(char out[17], uint64_t v) {
  snprintf(out, 17, "%016" PRIx64, v);
}

// ----------------------------------------------------------------------------
// writing

static bool add_str(cJSON *obj, const char *key, const char *val) {
  return cJSON_AddStringToObject(obj, key, val) != NULL;
}

static bool add_int(cJSON *obj, const char *key, long long v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", v);
  return add_str(obj, key, buf);
}

static cJSON *build_header(const nn_model *m, int members,
                           const nn_file_meta *meta,
                           const nn_file_entry *ents, int n_ents,
                           uint64_t checksum) {
  const nn_config *c = &m->cfg;
  cJSON *root = cJSON_CreateObject();
  cJSON *md = cJSON_AddObjectToObject(root, "__metadata__");
  if (!md)
    goto fail;
  char h[17];
  bool ok = add_str(md, "format", NN_FORMAT_NAME) &&
            add_str(md, "format_version", NN_FORMAT_VERSION) &&
            add_str(md, "mlir_version", meta->mlir_version);
  hex64(h, meta->feature_hash);
  ok = ok && add_str(md, "feature_layout_hash", h);
  hex64(h, meta->catalog_hash);
  ok = ok && add_str(md, "catalog_hash", h);
  ok = ok && add_str(md, "architecture", nn_arch_name(c->arch)) &&
       add_int(md, "state_dim", c->state_dim) &&
       add_int(md, "node_dim", c->node_dim) &&
       add_int(md, "gnn_dim", c->gnn_dim) &&
       add_int(md, "hidden_dim", c->hidden_dim) &&
       add_int(md, "n_actions", c->n_actions) &&
       add_int(md, "embed_dim", c->embed_dim) &&
       add_int(md, "embed_rows", c->embed_rows);
  char counts[NN_MAX_ACTIONS * 4 + 1] = "";
  size_t pos = 0;
  for (int a = 0; a < c->n_actions; a++)
    pos += snprintf(counts + pos, sizeof counts - pos, "%s%d", a ? "," : "",
                    c->param_count[a]);
  hex64(h, checksum);
  ok = ok && add_str(md, "param_counts", counts) &&
       add_str(md, "data_checksum", h) &&
       add_str(md, "train_config", meta->train_config) &&
       add_str(md, "train_commit", meta->train_commit) &&
       add_int(md, "train_steps", meta->train_steps) &&
       add_str(md, "train_date", meta->train_date) &&
       add_str(md, "weight_dtype", nn_dtype_name(meta->weight_dtype));
  if (ok && members > 1)
    ok = add_int(md, "members", members);
  if (ok && meta->parent_hash) { // lineage of a migrated policy
    hex64(h, meta->parent_hash);
    ok = add_str(md, "parent_hash", h);
    hex64(h, meta->parent_feature_hash);
    ok = ok && add_str(md, "parent_feature_layout_hash", h);
    hex64(h, meta->parent_catalog_hash);
    ok = ok && add_str(md, "parent_catalog_hash", h) &&
         add_int(md, "parent_feature_version", meta->parent_feature_version) &&
         add_int(md, "parent_actions", meta->parent_actions);
  }
  if (!ok)
    goto fail;
  size_t off = 0;
  for (int i = 0; i < n_ents; i++) {
    const nn_file_entry *e = &ents[i];
    cJSON *tj = cJSON_AddObjectToObject(root, e->name);
    cJSON *shape = cJSON_AddArrayToObject(tj, "shape");
    cJSON *offs = cJSON_AddArrayToObject(tj, "data_offsets");
    if (!add_str(tj, "dtype", e->kind == NN_ENTRY_I8 ? "I8" : "F32") ||
        !shape || !offs)
      goto fail;
    for (int d = 0; d < e->ndim; d++)
      cJSON_AddItemToArray(shape, cJSON_CreateNumber(e->shape[d]));
    cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)off));
    off += e->bytes;
    cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)off));
  }
  return root;
fail:
  cJSON_Delete(root);
  return NULL;
}

nn_status nn_policy_serialize(const nn_model *m, const nn_file_meta *meta,
                              uint8_t **out, size_t *out_len) {
  return nn_policy_serialize_members(&m, 1, meta, out, out_len);
}

// Whether the members share m[0]'s configuration (one metadata describes
// them all).
static bool same_config(const nn_model *const *ms, int members) {
  const nn_config *a = &ms[0]->cfg;
  for (int j = 1; j < members; j++) {
    const nn_config *b = &ms[j]->cfg;
    if (a->arch != b->arch || a->state_dim != b->state_dim ||
        a->node_dim != b->node_dim || a->gnn_dim != b->gnn_dim ||
        a->hidden_dim != b->hidden_dim || a->n_actions != b->n_actions ||
        a->embed_dim != b->embed_dim || a->embed_rows != b->embed_rows ||
        memcmp(a->param_count, b->param_count,
               sizeof(int) * (size_t)a->n_actions) != 0)
      return false;
  }
  return true;
}

nn_status nn_policy_serialize_members(const nn_model *const *ms, int members,
                                      const nn_file_meta *meta, uint8_t **out,
                                      size_t *out_len) {
  *out = NULL;
  *out_len = 0;
  if (!nn_dtype_name(meta->weight_dtype) || members < 1 ||
      members > NN_MAX_MEMBERS || !same_config(ms, members))
    return NN_ERR_FORMAT;
  const nn_model *m = ms[0];
  nn_file_entry *ents = malloc(sizeof *ents * NN_MAX_ENTRIES * members);
  if (!ents)
    return NN_ERR_NOMEM;
  int n_ents = nn_file_layout(m, meta->weight_dtype, members, ents);
  size_t dlen = 0, rows_max = 0;
  for (int i = 0; i < n_ents; i++) {
    dlen += ents[i].bytes;
    if (ents[i].kind != NN_ENTRY_F32 &&
        m->tensors[ents[i].tensor].size > rows_max)
      rows_max = m->tensors[ents[i].tensor].size;
  }
  uint8_t *data = malloc(dlen ? dlen : 1);
  int8_t *q = malloc(rows_max ? rows_max : 1); // (R,C) of one int8 tensor
  float *scale = malloc(sizeof(float) * (rows_max ? rows_max : 1)); // (R,B)
  if (!data || !q || !scale) {
    free(data);
    free(q);
    free(scale);
    free(ents);
    return NN_ERR_NOMEM;
  }
  size_t pos = 0;
  for (int i = 0; i < n_ents; i++) {
    const nn_file_entry *e = &ents[i];
    const nn_tensor *ten = &m->tensors[e->tensor];
    const float *w = ms[e->member]->params_memory + ten->offset;
    if (e->kind == NN_ENTRY_F32) {
      for (size_t k = 0; k < ten->size; k++, pos += 4)
        put_f32le(data + pos, w[k]);
      continue;
    }
    quantize_blocks(q, scale, w, ten->shape[0], ten->shape[1]);
    if (e->kind == NN_ENTRY_SCALE)
      for (int k = 0; k < e->shape[0] * e->shape[1]; k++, pos += 4)
        put_f32le(data + pos, scale[k]);
    else
      for (size_t k = 0; k < ten->size; k++)
        data[pos++] = (uint8_t)q[k];
  }
  free(q);
  free(scale);
  cJSON *root = build_header(m, members, meta, ents, n_ents,
                             nn_fnv1a64(data, dlen));
  free(ents);
  char *json = root ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  if (!json) {
    free(data);
    return NN_ERR_NOMEM;
  }
  // pad the header with spaces so the data starts 8-byte aligned
  size_t hlen = strlen(json);
  size_t padded = (hlen + 7) / 8 * 8;
  size_t total = 8 + padded + dlen;
  uint8_t *buf = malloc(total);
  if (!buf) {
    free(json);
    free(data);
    return NN_ERR_NOMEM;
  }
  for (int i = 0; i < 8; i++)
    buf[i] = (uint8_t)((uint64_t)padded >> (8 * i));
  memcpy(buf + 8, json, hlen);
  memset(buf + 8 + hlen, ' ', padded - hlen);
  memcpy(buf + 8 + padded, data, dlen);
  free(json);
  free(data);
  *out = buf;
  *out_len = total;
  return NN_OK;
}

nn_status nn_policy_write(const char *path, const nn_model *m,
                          const nn_file_meta *meta, char *err, size_t errlen) {
  return nn_policy_write_members(path, &m, 1, meta, err, errlen);
}

nn_status nn_policy_write_members(const char *path, const nn_model *const *ms,
                                  int members, const nn_file_meta *meta,
                                  char *err, size_t errlen) {
  uint8_t *buf;
  size_t len;
  nn_status st = nn_policy_serialize_members(ms, members, meta, &buf, &len);
  if (st != NN_OK)
    return nn_seterr(err, errlen, st, path, "%s", nn_strerror(st));
  // write a temporary file and rename it, so readers never see half a file
  size_t plen = strlen(path) + 32;
  char *tmp = malloc(plen);
  if (!tmp) {
    free(buf);
    return nn_seterr(err, errlen, NN_ERR_NOMEM, path, "out of memory");
  }
  snprintf(tmp, plen, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  bool ok = f && fwrite(buf, 1, len, f) == len;
  if (f)
    ok = (fclose(f) == 0) && ok;
  ok = ok && rename(tmp, path) == 0;
  int e = errno;
  if (!ok)
    remove(tmp);
  free(tmp);
  free(buf);
  if (!ok)
    return nn_seterr(err, errlen, NN_ERR_IO, path,
                  "cannot write: %s; check the directory exists and is "
                  "writable",
                  strerror(e));
  return NN_OK;
}

