// The measurement cache: one SQLite table in WAL mode mapping a key (module
// hash, canonical pipeline text, measurement settings, MLIR version) to a
// result. Several processes may read and write it at once; a busy timeout
// serialises writers. It does not decide what is cacheable (measure.c does).
#include "measure.h"

#include <mlir-c/Pass.h>
#include <sqlite3.h>
#include <string.h>
#include <unistd.h>

// Bump when mqss_measure_result changes layout: old rows then never match.
#define CACHE_FORMAT 1

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
                        "  result BLOB NOT NULL)",
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

// ----------------------------------------------------------------------------
// get / put

mqss_status cache_get(mqss_session *s, const char *path, const char *key,
                      mqss_measure_result *r, bool *hit) {
  *hit = false;
  sqlite3 *db;
  mqss_status st = cache_open(s, path, &db);
  if (st != MQSS_OK)
    return st;
  sqlite3_stmt *q = NULL;
  int rc = sqlite3_prepare_v2(db, "SELECT result FROM measurements WHERE key = ?1",
                              -1, &q, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
    rc = sqlite3_step(q);
    if (rc == SQLITE_ROW &&
        sqlite3_column_bytes(q, 0) == (int)sizeof *r) {
      memcpy(r, sqlite3_column_blob(q, 0), sizeof *r);
      *hit = true;
    }
    if (rc == SQLITE_ROW || rc == SQLITE_DONE)
      rc = SQLITE_OK;
  }
  if (rc != SQLITE_OK)
    st = fail(s, MQSS_ERR_IO, "cannot read the measurement cache '%s': %s",
              path, sqlite3_errmsg(db));
  sqlite3_finalize(q);
  sqlite3_close(db);
  return st;
}

mqss_status cache_put(mqss_session *s, const char *path, const char *key,
                      mqss_measure_result *r) {
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
    sqlite3_bind_text(q, 2, mqss_measure_status_name(r->status), -1, SQLITE_STATIC);
    sqlite3_bind_double(q, 3, r->run_ms_median);
    sqlite3_bind_blob(q, 4, r, (int)sizeof *r, SQLITE_STATIC);
    rc = sqlite3_step(q);
    if (rc == SQLITE_DONE)
      rc = SQLITE_OK;
  }
  if (rc != SQLITE_OK)
    st = fail(s, MQSS_ERR_IO, "cannot write the measurement cache '%s': %s",
              path, sqlite3_errmsg(db));
  sqlite3_finalize(q);
  sqlite3_close(db);
  bool hit;
  if (st == MQSS_OK) // another process may have stored it first: use theirs
    st = cache_get(s, path, key, r, &hit);
  return st;
}

int cache_format(void) { return CACHE_FORMAT; }
