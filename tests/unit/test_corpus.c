// Unit tests of the corpus generator: every family emits a module that
// parses, follows the module convention and finishes to the LLVM dialect;
// emission is deterministic per (seed, index) and changes with the seed;
// mqss_corpus_generate() applies the line filter, writes the manifests and
// splits as documented; the baselines file loads and names every family.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"
#include "mqss/mqss.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// ----------------------------------------------------------------------------

static void test_family_table(void **state) {
  (void)state;
  int n = mqss_corpus_family_count();
  assert_true(n >= 12);
  int per_domain[4] = {0};
  static const char *domains[4] = {"vision", "nlp", "hpc", "irregular"};
  for (int i = 0; i < n; i++) {
    const char *d = mqss_corpus_family_domain(i);
    int k = 0;
    while (k < 4 && strcmp(d, domains[k]))
      k++;
    assert_true(k < 4);
    per_domain[k]++;
    assert_non_null(mqss_corpus_family_about(i));
  }
  for (int k = 0; k < 4; k++)
    assert_true(per_domain[k] >= 3);
  assert_null(mqss_corpus_family_name(n));
  assert_null(mqss_corpus_family_name(-1));
  assert_null(mqss_corpus_emit("no_such_family", 0, 0));
  assert_null(mqss_corpus_emit("conv2d", 0, -1));
}

// Every family, two indices: parses, has a public @forward and no @main,
// finishes to LLVM.
static void test_every_family_parses_and_finishes(void **state) {
  mqss_session *s = *state;
  for (int i = 0; i < mqss_corpus_family_count(); i++) {
    const char *fam = mqss_corpus_family_name(i);
    for (int idx = 0; idx < 2; idx++) {
      char *text = mqss_corpus_emit(fam, 11, idx);
      assert_non_null(text);
      assert_non_null(strstr(text, "func.func @forward("));
      assert_null(strstr(text, "func.func @main"));
      assert_null(strstr(text, "@printMemref"));
      // Every other function is private.
      for (const char *p = strstr(text, "\nfunc.func "); p;
           p = strstr(p + 1, "\nfunc.func "))
        if (strncmp(p, "\nfunc.func private @", 20) &&
            strncmp(p, "\nfunc.func @forward(", 20))
          fail_msg("%s index %d: public function other than @forward", fam,
                   idx);
      mqss_module *m = NULL;
      mqss_status st =
          mqss_module_parse_string(s, text, strlen(text), fam, &m);
      if (st != MQSS_OK)
        fail_msg("%s index %d does not parse: %s", fam, idx, mqss_errmsg(s));
      st = mqss_module_finish(m);
      if (st != MQSS_OK)
        fail_msg("%s index %d does not finish: %s", fam, idx, mqss_errmsg(s));
      mqss_module_destroy(m);
      free(text);
    }
  }
}

// Counts the occurrences of needle in text, or in [text, end) when end is
// not NULL.
static int count_in(const char *text, const char *end, const char *needle) {
  int n = 0;
  for (const char *p = strstr(text, needle); p && (!end || p < end);
       p = strstr(p + 1, needle))
    n++;
  return n;
}

// The driver form of every family: the helpers and the kernel are the usual
// form's bytes with @forward named @kernel; @main calls it once and prints
// two checksums of each result and memref argument; it finishes to LLVM.
static void test_driver_form(void **state) {
  mqss_session *s = *state;
  assert_null(mqss_corpus_emit_driver("no_such_family", 0, 0));
  assert_null(mqss_corpus_emit_driver("conv2d", 0, -1));
  for (int i = 0; i < mqss_corpus_family_count(); i++) {
    const char *fam = mqss_corpus_family_name(i);
    char *fwd = mqss_corpus_emit(fam, 11, 1);
    char *drv = mqss_corpus_emit_driver(fam, 11, 1);
    assert_non_null(drv);
    char *again = mqss_corpus_emit_driver(fam, 11, 1);
    assert_string_equal(drv, again);
    free(again);
    assert_null(strstr(drv, "@forward"));
    assert_int_equal(count_of(drv, "call @kernel("), 1);
    // Usual form from its first function on, @forward renamed.
    const char *f0 = strstr(fwd, "\nfunc.func "), *d0 = strstr(drv, "\nfunc.func ");
    const char *dmain = strstr(drv, "\nfunc.func @main() {\n");
    assert_non_null(f0);
    assert_non_null(dmain);
    const char *ff = strstr(f0, "func.func @forward(");
    const char *fk = ff + strlen("func.func @forward(");
    const char *dk = d0 + (ff - f0) + strlen("func.func @kernel(");
    if (strncmp(f0, d0, (size_t)(ff - f0)) ||
        strncmp(d0 + (ff - f0), "func.func @kernel(", 18) ||
        strlen(fk) != (size_t)(dmain - dk) ||
        strncmp(fk, dk, strlen(fk)))
      fail_msg("%s: the driver form's helpers or kernel differ", fam);
    // Two prints per result and per memref argument of the kernel.
    const char *sig = strstr(fwd, "func.func @forward(");
    const char *sig_end = strchr(sig, '\n');
    const char *arrow = strstr(sig, ") -> (");
    int outs = count_in(sig, sig_end, ": memref<");
    if (arrow && arrow < sig_end)
      outs += count_in(arrow, sig_end, "tensor<") +
              count_in(arrow, sig_end, "memref<");
    assert_true(outs > 0);
    if (count_of(dmain, "call @printMemref") != 2 * outs)
      fail_msg("%s: %d checksum prints for %d outputs", fam,
               count_of(dmain, "call @printMemref"), outs);
    mqss_module *m = NULL;
    if (mqss_module_parse_string(s, drv, strlen(drv), fam, &m) != MQSS_OK)
      fail_msg("%s driver form does not parse: %s", fam, mqss_errmsg(s));
    if (mqss_module_finish(m) != MQSS_OK)
      fail_msg("%s driver form does not finish: %s", fam, mqss_errmsg(s));
    mqss_module_destroy(m);
    free(fwd);
    free(drv);
  }
}

static void test_deterministic_per_seed(void **state) {
  (void)state;
  for (int i = 0; i < mqss_corpus_family_count(); i++) {
    const char *fam = mqss_corpus_family_name(i);
    char *a = mqss_corpus_emit(fam, 5, 3);
    char *b = mqss_corpus_emit(fam, 5, 3);
    char *c = mqss_corpus_emit(fam, 6, 3);
    char *d = mqss_corpus_emit(fam, 5, 4);
    assert_string_equal(a, b);
    // Compare past the header line, which names the seed and index anyway.
    const char *ca = strchr(a, '\n'), *cc = strchr(c, '\n'),
               *cd = strchr(d, '\n');
    if (!strcmp(ca, cc))
      fail_msg("%s: seeds 5 and 6 give the same module", fam);
    if (!strcmp(ca, cd))
      fail_msg("%s: indices 3 and 4 give the same module", fam);
    free(a), free(b), free(c), free(d);
  }
}

// ----------------------------------------------------------------------------
// generate: filters, manifests, split

static int count_rows(const char *path, int *holdout_families) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[512];
  int rows = 0;
  if (holdout_families)
    *holdout_families = 0;
  char seen[64][32];
  int nseen = 0;
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#')
      continue;
    rows++;
    char fam[32];
    assert_int_equal(sscanf(line, "%*s %31s", fam), 1);
    int k = 0;
    while (k < nseen && strcmp(seen[k], fam))
      k++;
    if (k == nseen && nseen < 64)
      snprintf(seen[nseen++], sizeof seen[0], "%s", fam);
  }
  fclose(f);
  if (holdout_families)
    *holdout_families = nseen;
  return rows;
}

static void test_generate_filters_and_splits(void **state) {
  mqss_session *s = *state;
  char dir[] = "/tmp/mqss_corpus_test_XXXXXX";
  assert_non_null(mkdtemp(dir));
  mqss_corpus_options o;
  mqss_corpus_options_init(&o);
  assert_int_equal(o.min_lines, 100);
  assert_int_equal(o.max_lines, 5000);
  o.out_dir = dir;
  o.count = 40;
  o.seed = 2;
  o.min_lines = 120;
  o.max_lines = 300;
  mqss_corpus_report r;
  assert_int_equal(mqss_corpus_generate(s, &o, &r), MQSS_OK);
  assert_int_equal(r.kept, 40);
  // Every candidate is accounted for by exactly one outcome.
  assert_int_equal(r.candidates, r.kept + r.dropped_short + r.dropped_long);
  assert_true(r.dropped_short > 0); // 120 lines drops some small modules
  // holdout = max(ceil(0.1 * 40), min(50, 40 / 5)) = 8
  assert_int_equal(r.holdout, 8);
  assert_int_equal(r.train, 32);

  char path[256];
  snprintf(path, sizeof path, "%s/manifest.tsv", dir);
  int nfam = 0;
  assert_int_equal(count_rows(path, NULL), 40);
  snprintf(path, sizeof path, "%s/holdout.tsv", dir);
  assert_int_equal(count_rows(path, &nfam), 8);
  assert_true(nfam >= 6); // stratified: the hold-out spreads over families
  snprintf(path, sizeof path, "%s/train.tsv", dir);
  assert_int_equal(count_rows(path, NULL), 32);

  // Every kept module is within the window.
  snprintf(path, sizeof path, "%s/manifest.tsv", dir);
  FILE *f = fopen(path, "r");
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (line[0] == '#')
      continue;
    char file[128];
    int lines = 0;
    assert_int_equal(sscanf(line, "%127s %*s %*s %*d %d", file, &lines), 2);
    assert_in_range(lines, 120, 300);
  }
  fclose(f);

  // Same options, new directory: same manifest hash. Another seed: different.
  uint64_t h = r.manifest_hash;
  char dir2[] = "/tmp/mqss_corpus_test_XXXXXX";
  assert_non_null(mkdtemp(dir2));
  o.out_dir = dir2;
  assert_int_equal(mqss_corpus_generate(s, &o, &r), MQSS_OK);
  assert_int_equal(r.manifest_hash, h);
  o.seed = 3;
  assert_int_equal(mqss_corpus_generate(s, &o, &r), MQSS_OK);
  assert_true(r.manifest_hash != h);

  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, dir2);
  assert_int_equal(system(cmd), 0);
}

static void test_generate_rejects_unknown_family(void **state) {
  mqss_session *s = *state;
  mqss_corpus_options o;
  mqss_corpus_options_init(&o);
  o.out_dir = "/tmp";
  o.count = 1;
  o.families = "conv2d,nope";
  mqss_corpus_report r;
  assert_int_equal(mqss_corpus_generate(s, &o, &r), MQSS_ERR_INVALID_ARG);
  assert_non_null(strstr(mqss_errmsg(s), "unknown corpus family 'nope'"));
}

// ----------------------------------------------------------------------------
// baselines

static void test_baselines_cover_every_family(void **state) {
  mqss_session *s = *state;
  mqss_baselines *b = NULL;
  assert_int_equal(mqss_baselines_load(s, MQSS_SOURCE_DIR
                                       "/data/baselines.yaml", &b),
                   MQSS_OK);
  for (int i = 0; i < mqss_corpus_family_count(); i++)
    if (!mqss_baselines_pipeline(b, mqss_corpus_family_name(i)))
      fail_msg("data/baselines.yaml has no entry for family %s",
               mqss_corpus_family_name(i));
  assert_null(mqss_baselines_pipeline(b, "no_such_family"));
  mqss_baselines_destroy(b);
  mqss_baselines_destroy(NULL);

  assert_int_equal(mqss_baselines_load(s, "/nonexistent.yaml", &b),
                   MQSS_ERR_IO);
  assert_null(b);
}

// A schedule script kept next to the table is found from any directory:
// relative transform-library-paths= resolve against the file's directory,
// absolute ones and other passes are left alone.
static void test_baselines_resolve_schedule_paths(void **state) {
  mqss_session *s = *state;
  char dir[] = "/tmp/mqss-baselines-XXXXXX", path[64];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/b.yaml", dir);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("version: 1\nfamilies:\n"
        "  mlp:\n    pipeline: \"cse,transform-preload-library{"
        "transform-library-paths=schedules/a.mlir},transform-interpreter,"
        "transform-preload-library{transform-library-paths=/abs/b.mlir}\"\n"
        "  spmv:\n    pipeline: \"\"\n",
        f);
  fclose(f);
  mqss_baselines *b = NULL;
  assert_int_equal(mqss_baselines_load(s, path, &b), MQSS_OK);
  char want[256];
  snprintf(want, sizeof want,
           "cse,transform-preload-library{transform-library-paths=%s/"
           "schedules/a.mlir},transform-interpreter,transform-preload-library{"
           "transform-library-paths=/abs/b.mlir}",
           dir);
  assert_string_equal(mqss_baselines_pipeline(b, "mlp"), want);
  assert_string_equal(mqss_baselines_pipeline(b, "spmv"), "");
  mqss_baselines_destroy(b);
  unlink(path);
  rmdir(dir);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_family_table),
      cmocka_unit_test_setup_teardown(test_every_family_parses_and_finishes,
                                      session_setup, session_teardown),
      cmocka_unit_test(test_deterministic_per_seed),
      cmocka_unit_test_setup_teardown(test_driver_form, session_setup,
                                      session_teardown),
      cmocka_unit_test_setup_teardown(test_generate_filters_and_splits, session_setup,
                                      session_teardown),
      cmocka_unit_test_setup_teardown(test_generate_rejects_unknown_family,
                                      session_setup, session_teardown),
      cmocka_unit_test_setup_teardown(test_baselines_cover_every_family, session_setup,
                                      session_teardown),
      cmocka_unit_test_setup_teardown(test_baselines_resolve_schedule_paths,
                                      session_setup, session_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
