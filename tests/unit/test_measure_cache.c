// Unit tests of the measurement cache: canonical pipeline keys, hits through
// mqss_measure() (a hit does no compiling), --no-cache, and several processes
// writing the same SQLite file at once with nothing lost or corrupted.
// measure.h first: cmocka's fail() macro would clash with internal.h's fail().
#include "measure/measure.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define INPUTS MQSS_SOURCE_DIR "/tests/lit/Inputs/"

enum { NPROC = 4, NKEYS = 150 };

static char db_path[64];

static int setup(void **state) {
  mqss_session *s = NULL;
  assert_int_equal(mqss_session_create(&s), MQSS_OK);
  *state = s;
  snprintf(db_path, sizeof db_path, "/tmp/mqss_cache_test_%d.db", (int)getpid());
  return 0;
}

static void remove_db(void) {
  char p[96];
  remove(db_path);
  snprintf(p, sizeof p, "%s-wal", db_path);
  remove(p);
  snprintf(p, sizeof p, "%s-shm", db_path);
  remove(p);
}

static int teardown(void **state) {
  mqss_session_destroy(*state);
  remove_db();
  return 0;
}

// ----------------------------------------------------------------------------

static void test_canonical_pipeline(void **state) {
  mqss_session *s = *state;
  strbuf a = {0}, b = {0};
  assert_int_equal(pipeline_canonical(s, "canonicalize,cse", &a), MQSS_OK);
  assert_int_equal(pipeline_canonical(s, "builtin.module(canonicalize, cse)", &b),
                   MQSS_OK);
  assert_string_equal(a.data, b.data);
  assert_non_null(strstr(a.data, "max-iterations=10")); // defaults spelled out
  assert_int_equal(pipeline_canonical(s, "canonicalize{max-iterations=3}", &b),
                   MQSS_OK);
  assert_string_not_equal(a.data, b.data);
  assert_int_equal(pipeline_canonical(s, "bogus-pass", &b), MQSS_ERR_PIPELINE);
  sb_free(&a);
  sb_free(&b);
}

static void test_hit_and_no_cache(void **state) {
  mqss_session *s = *state;
  remove_db();
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_file(s, INPUTS "measure_add.mlir", &m), MQSS_OK);
  mqss_measure_options o;
  mqss_measure_options_init(&o);
  o.warmup = 0;
  o.repeat = 2;
  o.code_size = 0;
  o.cache_path = db_path;
  o.pipeline = "canonicalize";
  mqss_measure_result r1, r2, r3;
  assert_int_equal(mqss_measure(m, &o, &r1), MQSS_OK);
  assert_int_equal(r1.status, MQSS_MEASURE_OK);
  assert_false(r1.cached);
  // Same key through another spelling of the pipeline: a hit, no compiling.
  o.pipeline = "builtin.module(canonicalize)";
  double t0 = now_ms();
  assert_int_equal(mqss_measure(m, &o, &r2), MQSS_OK);
  double dt = now_ms() - t0;
  assert_true(r2.cached);
  assert_true(r2.checksum == r1.checksum);
  assert_true(r2.compile_ms == r1.compile_ms);
  // A hit forks nothing and compiles nothing; a measurement here takes tens
  // of ms. (Generous bound: correctness, not a benchmark.)
  assert_true(dt < r1.compile_ms + 1000);
  o.no_cache = 1;
  assert_int_equal(mqss_measure(m, &o, &r3), MQSS_OK);
  assert_false(r3.cached);
  // Another setting is another key.
  o.no_cache = 0;
  o.seed = 99;
  assert_int_equal(mqss_measure(m, &o, &r3), MQSS_OK);
  assert_false(r3.cached);
  assert_true(r3.checksum != r1.checksum);
  // An unopenable cache is a harness error with a message.
  o.cache_path = "/nonexistent/dir/cache.db";
  assert_int_equal(mqss_measure(m, &o, &r3), MQSS_ERR_IO);
  assert_non_null(strstr(mqss_errmsg(s), "/nonexistent/dir/cache.db"));
  mqss_module_destroy(m);
}

// Each of NPROC processes writes NKEYS keys of its own plus one shared key,
// all at once; then every row must be there with the value its writer wrote.
static void test_concurrent_writers(void **state) {
  mqss_session *s = *state;
  remove_db();
  pid_t pids[NPROC];
  for (int p = 0; p < NPROC; p++) {
    pids[p] = fork();
    assert_true(pids[p] >= 0);
    if (pids[p] == 0) {
      int bad = 0;
      for (int k = 0; k < NKEYS; k++) {
        mqss_measure_result r;
        memset(&r, 0, sizeof r);
        r.runs = p * 100000 + k;
        r.run_ms_median = k * 0.5;
        snprintf(r.message, sizeof r.message, "writer %d key %d", p, k);
        char key[64];
        snprintf(key, sizeof key, "proc%d/key%d", p, k);
        bad += cache_put(s, db_path, key, &r) != MQSS_OK;
        r.runs = -1;
        bad += cache_put(s, db_path, "shared", &r) != MQSS_OK;
      }
      _exit(bad ? 1 : 0);
    }
  }
  for (int p = 0; p < NPROC; p++) {
    int st;
    assert_int_equal(waitpid(pids[p], &st, 0), pids[p]);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
  }
  for (int p = 0; p < NPROC; p++)
    for (int k = 0; k < NKEYS; k++) {
      char key[64], want[64];
      snprintf(key, sizeof key, "proc%d/key%d", p, k);
      snprintf(want, sizeof want, "writer %d key %d", p, k);
      mqss_measure_result r;
      bool hit = false;
      assert_int_equal(cache_get(s, db_path, key, &r, &hit), MQSS_OK);
      if (!hit || r.runs != p * 100000 + k || strcmp(r.message, want))
        fail_msg("%s: hit %d runs %d message '%s'", key, hit, r.runs, r.message);
    }
  sqlite3 *db;
  assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
  sqlite3_stmt *q;
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM measurements",
                                      -1, &q, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_step(q), SQLITE_ROW);
  assert_int_equal(sqlite3_column_int(q, 0), NPROC * NKEYS + 1);
  sqlite3_finalize(q);
  assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &q, NULL),
                   SQLITE_OK);
  assert_int_equal(sqlite3_step(q), SQLITE_ROW);
  assert_string_equal((const char *)sqlite3_column_text(q, 0), "ok");
  sqlite3_finalize(q);
  assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &q, NULL),
                   SQLITE_OK);
  assert_int_equal(sqlite3_step(q), SQLITE_ROW);
  assert_string_equal((const char *)sqlite3_column_text(q, 0), "wal");
  sqlite3_finalize(q);
  sqlite3_close(db);
}

// Two processes run full measurements into one cache at the same time.
static void test_concurrent_measure(void **state) {
  (void)state;
  remove_db();
  pid_t pids[2];
  for (int p = 0; p < 2; p++) {
    pids[p] = fork();
    if (pids[p] == 0) {
      mqss_session *s = NULL;
      mqss_module *m = NULL;
      int bad = mqss_session_create(&s) != MQSS_OK ||
                mqss_module_parse_file(s, INPUTS "measure_add.mlir", &m) != MQSS_OK;
      mqss_measure_options o;
      mqss_measure_options_init(&o);
      o.warmup = 0;
      o.repeat = 1;
      o.code_size = 0;
      o.cache_path = db_path;
      for (int k = 0; k < 3 && !bad; k++) {
        o.seed = (uint64_t)(10 * p + k);
        mqss_measure_result r;
        mqss_status rc = mqss_measure(m, &o, &r);
        bad = rc != MQSS_OK || r.status != MQSS_MEASURE_OK;
        if (bad) // say why in the test log
          fprintf(stderr, "child %d, measurement %d: %s / %s: %s %s\n", p, k,
                  mqss_strerror(rc), mqss_measure_status_name(r.status),
                  r.message, mqss_errmsg(s));
      }
      mqss_module_destroy(m);
      mqss_session_destroy(s);
      _exit(bad);
    }
  }
  for (int p = 0; p < 2; p++) {
    int st;
    assert_int_equal(waitpid(pids[p], &st, 0), pids[p]);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  sqlite3 *db;
  assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
  sqlite3_stmt *q;
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM measurements "
                                      "WHERE status = 'ok'", -1, &q, NULL),
                   SQLITE_OK);
  assert_int_equal(sqlite3_step(q), SQLITE_ROW);
  assert_int_equal(sqlite3_column_int(q, 0), 6);
  sqlite3_finalize(q);
  sqlite3_close(db);
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_canonical_pipeline),
      T(test_hit_and_no_cache),
      T(test_concurrent_writers),
      T(test_concurrent_measure),
#undef T
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
