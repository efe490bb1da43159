// `mqss corpus`: the CLI of the workload corpus generator. `gen` writes a
// filtered, split corpus to a directory; `list` prints the families; `emit`
// prints one module. The thin twin of mqss_corpus_generate() and
// mqss_corpus_emit(); it makes no decisions of its own.
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// argument helpers

static bool parse_u64(const char *s, uint64_t *out) {
  char *end;
  unsigned long long v = strtoull(s, &end, 0);
  if (!*s || *end)
    return false;
  *out = v;
  return true;
}

static bool parse_int(const char *s, int *out) {
  char *end;
  long v = strtol(s, &end, 0);
  if (!*s || *end || v < 0 || v > 100000000)
    return false;
  *out = (int)v;
  return true;
}

static bool parse_double(const char *s, double *out) {
  char *end;
  *out = strtod(s, &end);
  return *s && !*end && *out >= 0;
}

// ----------------------------------------------------------------------------
// subcommands

static int corpus_list(void) {
  for (int i = 0; i < mqss_corpus_family_count(); i++)
    printf("%-15s %-10s %s\n", mqss_corpus_family_name(i),
           mqss_corpus_family_domain(i), mqss_corpus_family_about(i));
  return 0;
}

static int corpus_emit(int argc, char **argv) {
  const char *family = NULL;
  uint64_t seed = 0;
  int index = 0;
  bool driver = false;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    bool has = i + 1 < argc;
    if (!strcmp(a, "--driver")) {
      driver = true;
    } else if (!strcmp(a, "--seed") && has) {
      if (!parse_u64(argv[++i], &seed))
        return cli_error("corpus emit: bad --seed '%s'", argv[i]);
    } else if (!strcmp(a, "--index") && has) {
      if (!parse_int(argv[++i], &index))
        return cli_error("corpus emit: bad --index '%s'", argv[i]);
    } else if (a[0] != '-' && !family) {
      family = a;
    } else {
      return cli_error("corpus emit: unexpected argument '%s'; see 'mqss "
                       "corpus --help'", a);
    }
  }
  if (!family)
    return cli_error("corpus emit: name a family; 'mqss corpus list' shows "
                     "them");
  char *text = driver ? mqss_corpus_emit_driver(family, seed, index)
                      : mqss_corpus_emit(family, seed, index);
  if (!text && mqss_corpus_emit(family, seed, index))
    return cli_error("corpus emit: %s module %d has too many arguments for "
                     "the driver form; leave out --driver", family, index);
  if (!text)
    return cli_error("corpus emit: unknown family '%s'; 'mqss corpus list' "
                     "shows them", family);
  fputs(text, stdout);
  free(text);
  return 0;
}

static int corpus_gen(int argc, char **argv) {
  mqss_corpus_options o;
  mqss_corpus_options_init(&o);
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    bool ok = true;
    if (!strcmp(a, "--no-verify")) {
      o.verify = 0;
      continue;
    }
    if (!strcmp(a, "--driver")) {
      o.driver = 1;
      continue;
    }
    if (!v)
      return cli_error("corpus gen: %s needs a value; see 'mqss corpus "
                       "--help'", a);
    if (!strcmp(a, "--out"))
      o.out_dir = v;
    else if (!strcmp(a, "--count"))
      ok = parse_int(v, &o.count);
    else if (!strcmp(a, "--seed"))
      ok = parse_u64(v, &o.seed);
    else if (!strcmp(a, "--min-lines"))
      ok = parse_int(v, &o.min_lines);
    else if (!strcmp(a, "--max-lines"))
      ok = parse_int(v, &o.max_lines);
    else if (!strcmp(a, "--families"))
      o.families = v;
    else if (!strcmp(a, "--holdout"))
      ok = parse_double(v, &o.holdout_fraction) && o.holdout_fraction <= 1;
    else if (!strcmp(a, "--min-holdout"))
      ok = parse_int(v, &o.min_holdout);
    else if (!strcmp(a, "--min-ms"))
      ok = parse_double(v, &o.min_run_ms);
    else if (!strcmp(a, "--max-ms"))
      ok = parse_double(v, &o.max_run_ms);
    else if (!strcmp(a, "--max-candidates"))
      ok = parse_int(v, &o.max_candidates);
    else
      return cli_error("corpus gen: unknown option '%s'; see 'mqss corpus "
                       "--help'", a);
    if (!ok)
      return cli_error("corpus gen: bad value '%s' for %s", v, a);
    i++;
  }
  if (!o.out_dir)
    return cli_error("corpus gen: --out DIR is required");

  mqss_session *s = NULL;
  if (mqss_session_create(&s) != MQSS_OK)
    return cli_error("out of memory");
  mqss_corpus_report r;
  mqss_status st = mqss_corpus_generate(s, &o, &r);
  int rc = 0;
  if (st != MQSS_OK)
    rc = cli_error("%s", mqss_errmsg(s));
  printf("candidates %d, kept %d\n", r.candidates, r.kept);
  printf("dropped by line count: %d below %d lines, %d above %d lines\n",
         r.dropped_short, o.min_lines, r.dropped_long, o.max_lines);
  if (o.min_run_ms > 0 || o.max_run_ms > 0)
    printf("dropped by reference runtime: %d below %g ms, %d above %g ms, "
           "%d failed\n",
           r.dropped_fast, o.min_run_ms, r.dropped_slow, o.max_run_ms,
           r.dropped_failed);
  else
    printf("dropped by reference runtime: filter off (use --min-ms/--max-ms)"
           "\n");
  printf("split: %d train, %d holdout\n", r.train, r.holdout);
  printf("manifest hash: %016llx\n", (unsigned long long)r.manifest_hash);
  if (st == MQSS_OK && r.kept < o.count)
    rc = cli_error("corpus gen: only %d of %d modules passed the filters "
                   "within %d candidates; widen the windows",
                   r.kept, o.count, r.candidates);
  mqss_session_destroy(s);
  return rc;
}

int cmd_corpus(int argc, char **argv) {
  if (argc < 2)
    return cli_error("corpus: say 'gen', 'list' or 'emit'; see 'mqss corpus "
                     "--help'");
  if (!strcmp(argv[1], "list"))
    return corpus_list();
  if (!strcmp(argv[1], "emit"))
    return corpus_emit(argc, argv);
  if (!strcmp(argv[1], "gen"))
    return corpus_gen(argc, argv);
  return cli_error("corpus: unknown subcommand '%s'; say 'gen', 'list' or "
                   "'emit'", argv[1]);
}
