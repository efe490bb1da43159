// The measurement cache: one SQLite table in WAL mode mapping a key (module
// hash, canonical pipeline text or lowered-code hash, measurement settings,
// MLIR version) to a result. Several processes may read and write it at
// once; a busy timeout serialises writers. Every row carries a checksum over
// its key and result and is range-checked when read: a corrupt row is a
// miss, is deleted, and the next store writes it afresh. It does not decide
// what is cacheable (measure.c does).
#include "measure.h"

#include <math.h>
#include <mlir-c/Pass.h>
#include <sqlite3.h>
#include <string.h>
#include <unistd.h>

// Bump when the row layout changes: old rows then never match.
//   1: the result struct
//   2: the result struct, then the FNV-1a checksum of key and result
#define CACHE_FORMAT 2

// ----------------------------------------------------------------------------
// rows

typedef struct {
  mqss_measure_result r;
  uint64_t checksum; // fnv1a64 over the key (with its NUL), then r
} row;

static uint64_t row_checksum(const char *key, const mqss_measure_result *r) {
  uint64_t h = fnv1a64(FNV1A64_INIT, key, strlen(key) + 1);
  return fnv1a64(h, r, sizeof *r);
}

static bool nonneg(double x) { return isfinite(x) && x >= 0; }

// Range checks on top of the checksum: what the printers and callers rely on.
static bool result_sane(const mqss_measure_result *r) {
  return strcmp(mqss_measure_status_name(r->status), "unknown") != 0 &&
         r->signal >= 0 && r->signal < 128 && r->cached >= 0 &&
         r->cached <= 2 && memchr(r->entry, 0, sizeof r->entry) &&
         memchr(r->message, 0, sizeof r->message) &&
         memchr(r->notes, 0, sizeof r->notes) && nonneg(r->compile_ms) &&
         nonneg(r->pipeline_ms) && nonneg(r->finish_ms) && nonneg(r->jit_ms) &&
         nonneg(r->llvm_ms) &&
         r->text_bytes >= -1 && r->runs >= 0 && nonneg(r->run_ms_median) &&
         nonneg(r->run_ms_min) && nonneg(r->run_ms_max) &&
         nonneg(r->run_ms_mad) && r->num_values >= 0 &&
         r->mismatch_output >= -1 && r->mismatch_index >= -1 &&
         nonneg(r->error_depth) && r->skipped_values >= 0;
}

// Copies a stored blob into `r` when it is a valid row for `key`.
bool cache_row_decode(const char *key, const void *blob, size_t len,
                      mqss_measure_result *r) {
  row w;
  if (!blob || len != sizeof w)
    return false;
  memcpy(&w, blob, sizeof w);
  if (w.checksum != row_checksum(key, &w.r) || !result_sane(&w.r))
    return false;
  *r = w.r;
  return true;
}

// ----------------------------------------------------------------------------
// canonical pipeline text

mqss_status pipeline_canonical(mqss_session *s, const char *pipeline,
                               strbuf *out) {
  sb_clear(out);
  if (!pipeline || !*pipeline) {
    sb_append(out, "", 0);
    return MQSS_OK;
  }
  strbuf text = {0};
  const char *anchor = "builtin.module(";
  if (strncmp(pipeline, anchor, strlen(anchor)) == 0)
    sb_printf(&text, "%s", pipeline);
  else
    sb_printf(&text, "%s%s)", anchor, pipeline);
  MlirPassManager pm = mlirPassManagerCreate(s->ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  diag_reset(s, NULL);
  mqss_status st = pipeline_parse(s, opm, text.data, pipeline);
  if (st == MQSS_OK)
    mlirPrintPassPipeline(opm, sb_mlir_callback, out);
  mlirPassManagerDestroy(pm);
  sb_free(&text);
  return st;
}

// ----------------------------------------------------------------------------
// open

static mqss_status cache_open(mqss_session *s, const char *path, sqlite3 **out) {
  sqlite3 *db = NULL;
  *out = NULL;
  int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                           NULL);
  if (rc == SQLITE_OK) {
    sqlite3_busy_timeout(db, 10000);
    // Two processes creating a new cache at once can get SQLITE_BUSY without
    // the busy handler being asked (switching to WAL takes an exclusive
    // lock): retry for up to 10 s.
    for (int tries = 0; tries < 200; tries++) {
      rc = sqlite3_exec(db,
                        "PRAGMA journal_mode=WAL;"
                        "PRAGMA synchronous=NORMAL;"
                        "CREATE TABLE IF NOT EXISTS measurements("
                        "  key TEXT PRIMARY KEY,"
                        "  status TEXT NOT NULL,"
                        "  run_ms_median REAL,"
                        "  result BLOB NOT NULL);"
                        "CREATE TABLE IF NOT EXISTS objects("
                        "  key TEXT PRIMARY KEY,"
                        "  checksum INTEGER NOT NULL,"
                        "  object BLOB NOT NULL)",
                        NULL, NULL, NULL);
      if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
        break;
      usleep(50000);
    }
  }
  if (rc != SQLITE_OK) {
    mqss_status st = fail(s, MQSS_ERR_IO, "cannot open the measurement cache "
                          "'%s': %s; pass another --cache path or --no-cache",
                          path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return st;
  }
  *out = db;
  return MQSS_OK;
}

// For reading: the cache as above or, when it cannot be opened for writing
// (a read-only file or directory), read-only and immutable, so that a
// read-only cache still serves hits. The original error stands when that
// fails too.
static mqss_status cache_open_read(mqss_session *s, const char *path,
                                   sqlite3 **out) {
  mqss_status st = cache_open(s, path, out);
  if (st == MQSS_OK)
    return st;
  strbuf uri = {0};
  sb_printf(&uri, "file:");
  for (const char *c = path; *c; c++)
    sb_printf(&uri, strchr("?#%", *c) ? "%%%02X" : "%c", (unsigned char)*c);
  sb_printf(&uri, "?immutable=1");
  sqlite3 *db = NULL;
  sqlite3_stmt *q = NULL;
  bool ok = sqlite3_open_v2(uri.data, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                            NULL) == SQLITE_OK &&
            sqlite3_prepare_v2(db, "SELECT 1 FROM measurements, objects LIMIT 0",
                               -1, &q, NULL) == SQLITE_OK;
  sqlite3_finalize(q);
  sb_free(&uri);
  if (!ok) {
    sqlite3_close(db);
    return st;
  }
  *out = db;
  return MQSS_OK;
}

// ----------------------------------------------------------------------------
// get / put

static void delete_row(sqlite3 *db, const char *key) {
  sqlite3_stmt *q = NULL;
  if (sqlite3_prepare_v2(db, "DELETE FROM measurements WHERE key = ?1", -1, &q,
                         NULL) == SQLITE_OK) {
    sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
    sqlite3_step(q);
  }
  sqlite3_finalize(q);
}

mqss_status cache_get(mqss_session *s, const char *path, const char *key,
                      mqss_measure_result *r, bool *hit) {
  *hit = false;
  sqlite3 *db;
  mqss_status st = cache_open_read(s, path, &db);
  if (st != MQSS_OK)
    return st;
  sqlite3_stmt *q = NULL;
  int rc = sqlite3_prepare_v2(db, "SELECT result FROM measurements WHERE key = ?1",
                              -1, &q, NULL);
  bool corrupt = false;
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
    rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
      *hit = cache_row_decode(key, sqlite3_column_blob(q, 0),
                              (size_t)sqlite3_column_bytes(q, 0), r);
      corrupt = !*hit;
    }
    if (rc == SQLITE_ROW || rc == SQLITE_DONE)
      rc = SQLITE_OK;
  }
  if (rc != SQLITE_OK)
    st = fail(s, MQSS_ERR_IO, "cannot read the measurement cache '%s': %s",
              path, sqlite3_errmsg(db));
  sqlite3_finalize(q);
  // A corrupt row is a miss; delete it so that the next store replaces it
  // (failing that, on a read-only cache, it stays a miss).
  if (corrupt)
    delete_row(db, key);
  sqlite3_close(db);
  return st;
}

static mqss_status insert_row(mqss_session *s, const char *path,
                              const char *key, const row *w) {
  sqlite3 *db;
  mqss_status st = cache_open(s, path, &db);
  if (st != MQSS_OK)
    return st;
  sqlite3_stmt *q = NULL;
  int rc = sqlite3_prepare_v2(db,
                              "INSERT OR IGNORE INTO measurements"
                              "(key, status, run_ms_median, result) "
                              "VALUES (?1, ?2, ?3, ?4)",
                              -1, &q, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(q, 2, mqss_measure_status_name(w->r.status), -1,
                      SQLITE_STATIC);
    sqlite3_bind_double(q, 3, w->r.run_ms_median);
    sqlite3_bind_blob(q, 4, w, (int)sizeof *w, SQLITE_STATIC);
    rc = sqlite3_step(q);
    if (rc == SQLITE_DONE)
      rc = SQLITE_OK;
  }
  if (rc != SQLITE_OK)
    st = fail(s, MQSS_ERR_IO, "cannot write the measurement cache '%s': %s",
              path, sqlite3_errmsg(db));
  sqlite3_finalize(q);
  sqlite3_close(db);
  return st;
}

mqss_status cache_put(mqss_session *s, const char *path, const char *key,
                      mqss_measure_result *r) {
  row w;
  memset(&w, 0, sizeof w);
  w.r = *r;
  w.r.cached = 0;
  w.checksum = row_checksum(key, &w.r);
  // Another process may have stored it first: use theirs. When theirs was
  // corrupt, cache_get deleted it: store ours once more.
  mqss_status st = MQSS_OK;
  bool hit = false;
  for (int tries = 0; st == MQSS_OK && !hit && tries < 2; tries++) {
    mqss_measure_result stored;
    st = insert_row(s, path, key, &w);
    if (st == MQSS_OK)
      st = cache_get(s, path, key, &stored, &hit);
    if (st == MQSS_OK && hit) {
      int cached = r->cached;
      *r = stored;
      r->cached = cached;
    }
  }
  return st;
}

int cache_format(void) { return CACHE_FORMAT; }

// ----------------------------------------------------------------------------
// object files of lowered code

static int64_t object_checksum(const char *key, const void *obj, size_t len) {
  uint64_t h = fnv1a64(FNV1A64_INIT, key, strlen(key) + 1);
  return (int64_t)fnv1a64(h, obj, len);
}

// A stored object is the LLVM time it took (a double), then the object file.
bool cache_object_get(mqss_session *s, const char *path, const char *key,
                      strbuf *obj, double *llvm_ms) {
  sqlite3 *db;
  sb_clear(obj);
  if (cache_open_read(s, path, &db) != MQSS_OK)
    return false;
  sqlite3_stmt *q = NULL;
  bool found = false, corrupt = false;
  if (sqlite3_prepare_v2(db, "SELECT checksum, object FROM objects WHERE key = ?1",
                         -1, &q, NULL) == SQLITE_OK) {
    sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
    if (sqlite3_step(q) == SQLITE_ROW) {
      const void *blob = sqlite3_column_blob(q, 1);
      size_t len = (size_t)sqlite3_column_bytes(q, 1);
      found = blob && len > sizeof *llvm_ms &&
              sqlite3_column_int64(q, 0) == object_checksum(key, blob, len);
      if (found) {
        memcpy(llvm_ms, blob, sizeof *llvm_ms);
        found = *llvm_ms >= 0 && *llvm_ms < 1e12; // finite, in range
      }
      corrupt = !found;
      if (found)
        sb_append(obj, (const char *)blob + sizeof *llvm_ms,
                  len - sizeof *llvm_ms);
    }
  }
  sqlite3_finalize(q);
  if (corrupt && sqlite3_prepare_v2(db, "DELETE FROM objects WHERE key = ?1", -1,
                                    &q, NULL) == SQLITE_OK) {
    sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
    sqlite3_step(q);
    sqlite3_finalize(q);
  }
  sqlite3_close(db);
  return found;
}

void cache_object_put(mqss_session *s, const char *path, const char *key,
                      const void *obj, size_t len, double llvm_ms) {
  sqlite3 *db;
  strbuf blob = {0};
  sb_append(&blob, (const char *)&llvm_ms, sizeof llvm_ms);
  sb_append(&blob, obj, len);
  if (!len || !blob.data || cache_open(s, path, &db) != MQSS_OK) {
    sb_free(&blob);
    return;
  }
  sqlite3_stmt *q = NULL;
  if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO objects(key, checksum, object) "
                         "VALUES (?1, ?2, ?3)", -1, &q, NULL) == SQLITE_OK) {
    sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_int64(q, 2, object_checksum(key, blob.data, blob.len));
    sqlite3_bind_blob(q, 3, blob.data, (int)blob.len, SQLITE_STATIC);
    sqlite3_step(q);
  }
  sqlite3_finalize(q);
  sqlite3_close(db);
  sb_free(&blob);
}
