// Unit tests of the measurement cache: canonical pipeline keys, hits through
// mqss_measure() (a hit does no compiling), --no-cache, and several processes
// writing the same SQLite file at once with nothing lost or corrupted, and
// corrupt rows (bit flips, wrong lengths, out-of-range fields) never trusted.
// measure.h first: cmocka's fail() macro would clash with internal.h's fail().
#include "measure/measure.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <math.h>
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

// A fresh cache file, the module measure_add.mlir and quick options that
// use the cache (no warm-up, `repeat` runs, no code size).
static mqss_module *cached_add(mqss_session *s, mqss_measure_options *o,
                               int repeat) {
  remove_db();
  mqss_module *m = NULL;
  assert_int_equal(mqss_module_parse_file(s, INPUTS "measure_add.mlir", &m), MQSS_OK);
  mqss_measure_options_init(o);
  o->warmup = 0;
  o->repeat = repeat;
  o->code_size = 0;
  o->cache_path = db_path;
  return m;
}

static void test_hit_and_no_cache(void **state) {
  mqss_measure_options o;
  mqss_module *m = cached_add(*state, &o, 2);
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
  assert_non_null(strstr(mqss_errmsg(*state), "/nonexistent/dir/cache.db"));
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
        r.runs = 0; // a valid row: corrupt ones are deleted when read
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
  // 6 measurements, each stored under its pipeline and its lowered code.
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM measurements "
                                      "WHERE status = 'ok' AND key NOT LIKE "
                                      "'%;lowered=%'", -1, &q, NULL),
                   SQLITE_OK);
  assert_int_equal(sqlite3_step(q), SQLITE_ROW);
  assert_int_equal(sqlite3_column_int(q, 0), 6);
  sqlite3_finalize(q);
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM measurements "
                                      "WHERE status = 'ok' AND key LIKE "
                                      "'%;lowered=%'", -1, &q, NULL),
                   SQLITE_OK);
  assert_int_equal(sqlite3_step(q), SQLITE_ROW);
  assert_int_equal(sqlite3_column_int(q, 0), 6);
  sqlite3_finalize(q);
  sqlite3_close(db);
}

// Pipelines that lower to the same code share one result through the second
// key (the lowered code's hash): the second spelling is a hit of kind 2 with
// the first one's run figures and its own lowering times; code that differs
// is measured.
static void test_lowered_code_hit(void **state) {
  mqss_measure_options o;
  mqss_module *m = cached_add(*state, &o, 2);
  mqss_measure_result r1, r2, r3, r4;
  o.pipeline = "func.func(canonicalize),func.func(cse)";
  assert_int_equal(mqss_measure(m, &o, &r1), MQSS_OK);
  assert_int_equal(r1.status, MQSS_MEASURE_OK);
  assert_int_equal(r1.cached, 0);
  assert_true(r1.lowered_hash != 0);
  o.pipeline = "func.func(canonicalize,cse)"; // another canonical text
  assert_int_equal(mqss_measure(m, &o, &r2), MQSS_OK);
  assert_int_equal(r2.cached, 2);
  assert_true(r2.lowered_hash == r1.lowered_hash);
  assert_true(r2.run_ms_median == r1.run_ms_median);
  assert_true(r2.checksum == r1.checksum);
  assert_int_equal(mqss_measure(m, &o, &r3), MQSS_OK);
  assert_int_equal(r3.cached, 1); // now under its own pipeline too
  assert_true(r3.run_ms_median == r1.run_ms_median);
  o.pipeline = "func.func(convert-linalg-to-affine-loops)"; // other code
  assert_int_equal(mqss_measure(m, &o, &r4), MQSS_OK);
  assert_int_equal(r4.status, MQSS_MEASURE_OK);
  assert_int_equal(r4.cached, 0);
  assert_true(r4.lowered_hash != r1.lowered_hash);
  mqss_module_destroy(m);
}

// The object cache: a measurement whose lowered code was compiled before
// (here: another seed, so the result cache misses) links the stored object
// file instead of running the JIT, and gets the same outputs and the LLVM
// time the stored compilation took. In process, so
// that the engines can be counted.
static void test_object_cache(void **state) {
  mqss_measure_options o;
  mqss_module *m = cached_add(*state, &o, 1);
  o.code_size = 1;
  o.no_sandbox = 1;
  // Changes the code (bufferized first: the affine lowering needs buffers),
  // so the reference and the candidate are two objects.
  o.pipeline = "one-shot-bufferize{bufferize-function-boundaries "
               "function-boundary-type-conversion=identity-layout-map},"
               "func.func(convert-linalg-to-affine-loops)";
  mqss_measure_result r1, r2, r3;
  o.seed = 101; // seeds no other test uses: no reference is kept in process
  int before = jit_engines_created();
  assert_int_equal(mqss_measure(m, &o, &r1), MQSS_OK);
  assert_int_equal(r1.status, MQSS_MEASURE_OK);
  int first = jit_engines_created() - before; // reference and candidate
  assert_int_equal(first, 2);
  o.seed = 102; // another result key (and reference), the same code
  assert_int_equal(mqss_measure(m, &o, &r2), MQSS_OK);
  assert_int_equal(r2.status, MQSS_MEASURE_OK);
  assert_int_equal(r2.cached, 0);
  assert_int_equal(jit_engines_created() - before, first); // no JIT at all
  assert_int_equal(r2.text_bytes, r1.text_bytes);
  // The JIT r1 ran is r2's LLVM time too: the object carries it.
  assert_true(r1.llvm_ms == r1.jit_ms && r1.llvm_ms > 0);
  assert_true(r2.llvm_ms == r1.llvm_ms);
  // Without the cache the same measurement compiles, and agrees.
  o.no_cache = 1;
  assert_int_equal(mqss_measure(m, &o, &r3), MQSS_OK);
  assert_true(jit_engines_created() - before > first); // the candidate at least
  assert_true(r3.checksum == r2.checksum);
  assert_int_equal(r3.text_bytes, r2.text_bytes);
  mqss_module_destroy(m);
}

// ----------------------------------------------------------------------------
// corrupt rows

static int64_t row_count(sqlite3 *db, const char *key) {
  sqlite3_stmt *q;
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM measurements "
                                      "WHERE key = ?1", -1, &q, NULL), SQLITE_OK);
  sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
  assert_int_equal(sqlite3_step(q), SQLITE_ROW);
  int64_t n = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  return n;
}

static void set_blob(sqlite3 *db, const char *key, const void *blob, int len) {
  sqlite3_stmt *q;
  assert_int_equal(sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO measurements"
                                      "(key, status, run_ms_median, result) "
                                      "VALUES (?1, 'ok', 0, ?2)", -1, &q, NULL),
                   SQLITE_OK);
  sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
  sqlite3_bind_blob(q, 2, blob, len, SQLITE_STATIC);
  assert_int_equal(sqlite3_step(q), SQLITE_DONE);
  sqlite3_finalize(q);
}

static mqss_measure_result sample_result(void) {
  mqss_measure_result r;
  memset(&r, 0, sizeof r);
  r.status = MQSS_MEASURE_WRONG_OUTPUT;
  snprintf(r.entry, sizeof r.entry, "forward");
  snprintf(r.message, sizeof r.message, "wrong_output: result 0 at index 3");
  r.runs = 0;
  r.text_bytes = 1234;
  r.compile_ms = 12.5;
  r.mismatch_output = 0;
  r.mismatch_index = 3;
  return r;
}

// Random bit flips anywhere in a stored row (1 to 4 bits, 300 trials) are all
// detected: each read is a miss, deletes the row, and a store afterwards
// writes a good one again. Rows of the wrong length are misses too.
static void test_corrupt_rows(void **state) {
  mqss_session *s = *state;
  remove_db();
  const char *key = "module/pipeline";
  mqss_measure_result good = sample_result(), r;
  assert_int_equal(cache_put(s, db_path, key, &good), MQSS_OK);
  sqlite3 *db;
  assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
  sqlite3_stmt *q;
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT result FROM measurements "
                                      "WHERE key = ?1", -1, &q, NULL), SQLITE_OK);
  sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
  assert_int_equal(sqlite3_step(q), SQLITE_ROW);
  int len = sqlite3_column_bytes(q, 0);
  assert_true(len > (int)sizeof good);
  unsigned char *blob = malloc((size_t)len), *bad = malloc((size_t)len);
  memcpy(blob, sqlite3_column_blob(q, 0), (size_t)len);
  sqlite3_finalize(q);
  bool hit = false;
  assert_int_equal(cache_get(s, db_path, key, &r, &hit), MQSS_OK);
  assert_true(hit);
  assert_string_equal(r.message, good.message);

  uint64_t x = 0x9E3779B97F4A7C15ull; // xorshift64
  for (int t = 0; t < 300; t++) {
    memcpy(bad, blob, (size_t)len);
    int flips = 1 + t % 4;
    for (int f = 0; f < flips; f++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      size_t bit = (size_t)(x % ((uint64_t)len * 8));
      bad[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    }
    if (!memcmp(bad, blob, (size_t)len))
      continue; // two flips of one bit cancelled
    set_blob(db, key, bad, len);
    hit = true;
    assert_int_equal(cache_get(s, db_path, key, &r, &hit), MQSS_OK);
    if (hit)
      fail_msg("trial %d: %d flipped bits were not detected", t, flips);
    assert_int_equal(row_count(db, key), 0); // deleted
  }
  // Wrong lengths: truncated, and one byte more.
  set_blob(db, key, blob, len - 1);
  assert_int_equal(cache_get(s, db_path, key, &r, &hit), MQSS_OK);
  assert_false(hit);
  unsigned char *longer = calloc(1, (size_t)len + 1);
  memcpy(longer, blob, (size_t)len);
  set_blob(db, key, longer, len + 1);
  assert_int_equal(cache_get(s, db_path, key, &r, &hit), MQSS_OK);
  assert_false(hit);
  // The intact row is still accepted; under another key it is not.
  set_blob(db, key, blob, len);
  assert_int_equal(cache_get(s, db_path, key, &r, &hit), MQSS_OK);
  assert_true(hit);
  set_blob(db, "another/key", blob, len);
  assert_int_equal(cache_get(s, db_path, "another/key", &r, &hit), MQSS_OK);
  assert_false(hit);
  // A store over a corrupt row replaces it.
  memcpy(bad, blob, (size_t)len);
  bad[len / 2] ^= 0x10;
  set_blob(db, key, bad, len);
  r = good;
  assert_int_equal(cache_put(s, db_path, key, &r), MQSS_OK);
  assert_int_equal(cache_get(s, db_path, key, &r, &hit), MQSS_OK);
  assert_true(hit);
  assert_int_equal(r.text_bytes, good.text_bytes);
  free(longer);
  free(bad);
  free(blob);
  sqlite3_close(db);
}

// The checksum alone is not trusted: a row whose fields are out of range
// (unterminated message, unknown status) is refused even with a checksum
// that matches.
static void test_row_range_checks(void **state) {
  (void)state;
  const char *key = "k";
  struct {
    mqss_measure_result r;
    uint64_t checksum;
  } w;
  mqss_measure_result out;
  for (int c = 0; c < 6; c++) {
    memset(&w, 0, sizeof w);
    w.r = sample_result();
    if (c == 1)
      memset(w.r.message, 'x', sizeof w.r.message); // no NUL
    if (c == 2)
      w.r.status = (mqss_measure_status)99;
    if (c == 3) // no NUL: found by fuzz/fuzz_cache_row.c (its corpus keeps
                // the input, notes_unterminated)
      memset(w.r.notes, 'x', sizeof w.r.notes);
    if (c == 4)
      w.r.error_depth = NAN;
    if (c == 5)
      w.r.skipped_values = -3;
    uint64_t h = fnv1a64(FNV1A64_INIT, key, strlen(key) + 1);
    w.checksum = fnv1a64(h, &w.r, sizeof w.r);
    assert_int_equal(cache_row_decode(key, &w, sizeof w, &out), c == 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
      T(test_canonical_pipeline),
      T(test_hit_and_no_cache),
      T(test_concurrent_writers),
      T(test_concurrent_measure),
      T(test_lowered_code_hit),
      T(test_object_cache),
      T(test_corrupt_rows),
      T(test_row_range_checks),
#undef T
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
