// Schedule actions: builds the transform-dialect script of a decision from
// small typed steps (tile, register-tile, vectorize, hoist, ...), writes it
// to the schedule directory under its content hash, and formats the pass
// pipeline that runs it:
//
//   builtin.module(transform-preload-library{transform-library-paths=F},
//                  transform-interpreter{entry-point=mqss_<hash>})
//
// so that a selection stays a plain pipeline text that mlir-opt-19 runs as
// well. The script matches its ops by kind, by the `mqss.id` tag when the
// decision addresses one op, and inside one function when it has a target.
// It does not decide whether a schedule is safe (schedule_check.c).
#include "internal.h"
#include "actions/linalg_ops.h"
#include "actions/schedule.h"

#include <errno.h>
#include <mlir-c/Pass.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// ----------------------------------------------------------------------------
// script builder

typedef schedule_builder builder;

#define ANY "!transform.any_op"
#define SCF_FOR "!transform.op<\"scf.for\">"

static void vline(builder *b, const char *fmt, va_list ap) {
  sb_printf(b->sb, "    ");
  sb_vprintf(b->sb, fmt, ap);
  sb_printf(b->sb, "\n");
}

static void line(builder *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void line(builder *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vline(b, fmt, ap);
  va_end(ap);
}

void schedule_line(builder *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vline(b, fmt, ap);
  va_end(ap);
}

int64_t schedule_tile_size(const builder *b, int rank, int loop,
                           int64_t fill) {
  for (int i = 0; i < b->a->n_params; i++) {
    const mqss_param *p = &b->a->params[i];
    int d = p->dim < 0 ? rank + p->dim : p->dim;
    if (p->kind == MQSS_PARAM_DIVISOR && d == loop &&
        (rank >= 0 || p->dim >= 0) && p->level == b->level)
      return strtoll(p->values[mqss_param_map(p, b->d->u[i])], NULL, 10);
  }
  return fill;
}

void schedule_set_nest(builder *b, const strbuf *outer, bool complete) {
  if (b->d->op && !b->nest.data && complete && outer->data)
    sb_printf(&b->nest, "%s", outer->data);
}

void schedule_mark_tiled(builder *b, int kind) {
  line(b, "transform.annotate %%k%d_%d \"" LINALG_TILED "\" : " ANY, kind,
       b->version + 1);
}

int schedule_tiled_rank(const mqss_action *a, const char *kind) {
  int rank = linalg_kind_rank(kind);
  if (rank >= 0)
    return rank;
  for (int i = 0; i < a->n_params; i++)
    if (a->params[i].kind == MQSS_PARAM_DIVISOR && a->params[i].dim >= 0 &&
        a->params[i].dim + 1 > rank)
      rank = a->params[i].dim + 1;
  return rank;
}

const char *schedule_choice(const mqss_action *a, const mqss_decision *d,
                            const char *name) {
  for (int i = 0; i < a->n_params; i++) {
    const mqss_param *p = &a->params[i];
    if (p->kind == MQSS_PARAM_CHOICE && !strcmp(p->name, name))
      return p->values[mqss_param_map(p, d->u[i])];
  }
  return NULL;
}

// True when the action's choice parameter ORDER is "nmk": the tile loops
// run n outside m (the B panel of a register tile stays in L1 while m
// sweeps). Any other value, or no ORDER, keeps the op's loop order.
static bool swap_mn(const builder *b) {
  const char *order = schedule_choice(b->a, b->d, "ORDER");
  return order && !strcmp(order, "nmk");
}

// Peels the partial last iteration off each of the `loops` tile loops of
// kind i of a peeled decision (schedule_peels), innermost first, so that
// the remainder of an outer loop holds inner loops peeled already: the full
// tiles keep static shapes and vectorise, and so may the remainder. A loop
// its tile divides has nothing to peel (the failure is suppressed).
static void peel_loops(builder *b, int i, int loops) {
  for (int j = loops - 1; j >= 0; j--) {
    char n[32]; // named after the loop handle %loops<i>_<counter>#<j>
    snprintf(n, sizeof n, "%d_%d_%d", i, b->counter, j);
    line(b, "transform.sequence %%loops%d_%d#%d : " ANY " failures(suppress) "
         "{", i, b->counter, j);
    line(b, "^bb0(%%peel%s: " ANY "):", n);
    line(b, "  %%for%s = transform.cast %%peel%s : " ANY " to " SCF_FOR, n, n);
    line(b, "  %%main%s, %%rest%s = transform.loop.peel %%for%s : (" SCF_FOR
         ") -> (" ANY ", " ANY ")", n, n, n);
    line(b, "}");
  }
}

// Defines %k<i>_<version>, the ops of kind i in %<in> the decision
// addresses: the one tagged with its mqss.id, or every op of the kind, or,
// for a kind-wide decision on linalg.generic, the generics it fits
// (schedule_fit.c; the library defines the matcher once,
// schedule_close_module). The mask checks the policy's own kind-wide
// decisions against every op of their kinds first (schedule_check.c).
static void match_kind(builder *b, int i, const char *in, int version) {
  const char *kind = b->a->ops[i];
  char matcher[128], id[64];
  if (schedule_fit_name(b, kind, matcher, sizeof matcher)) {
    line(b, "%%k%d_%d = transform.collect_matching @%s in %%%s : (" ANY
         ") -> " ANY, i, version, matcher, in);
    return;
  }
  schedule_id_filter(b->d, id, sizeof id);
  line(b, "%%k%d_%d = transform.structured.match ops{[\"%s\"]}%s in %%%s "
       ": (" ANY ") -> " ANY, i, version, kind, id, in);
}

// After peel_loops: canonicalization makes the full tiles' slices static,
// and the targeted ops are matched again, the main tile and its peeled
// copies (clones keep the mqss.id tag).
static void rematch_peeled(builder *b) {
  line(b, "transform.apply_patterns to %%funcs {");
  line(b, "  transform.apply_patterns.canonicalization");
  line(b, "} : " ANY);
  for (int i = 0; i < b->a->n_ops; i++)
    match_kind(b, i, "funcs", b->version + 1);
  b->version++;
}

// tile_using_for on every kind with the sizes of the next tiling level;
// `fill` is the size of loops no parameter names (0: not tiled; 1: unit
// tiles, for register tiles). `reorder`: ORDER applies to these loops.
static void step_tile(builder *b, int64_t fill, bool reorder) {
  strbuf outer = {0};
  bool peel = schedule_peels(b->a, b->d);
  bool complete = !peel; // a peeled loop's remainder lies outside its nest
  for (int i = 0; i < b->a->n_ops; i++) {
    int rank = schedule_tiled_rank(b->a, b->a->ops[i]);
    if (b->folded)
      rank -= __builtin_popcount(linalg_kind_unit_loops(b->a->ops[i]));
    strbuf sizes = {0}, types = {0}, order = {0};
    if (reorder && swap_mn(b) && rank >= 3) {
      sb_printf(&order, " interchange = [");
      for (int d = 0; d < rank; d++)
        sb_printf(&order, "%s%d", d ? ", " : "",
                  d == rank - 3 ? rank - 2 : d == rank - 2 ? rank - 3 : d);
      sb_printf(&order, "]");
    }
    int loops = 0;
    for (int d = 0; d < rank; d++) {
      int64_t t = schedule_tile_size(b, rank, d, fill);
      sb_printf(&sizes, "%s%lld", d ? ", " : "", (long long)t);
      if (t) {
        sb_printf(&types, ", " ANY);
        loops++;
      }
    }
    line(b, "%%k%d_%d, %%loops%d_%d:%d = transform.structured.tile_using_for "
         "%%k%d_%d tile_sizes [%s]%s : (" ANY ") -> (" ANY "%s)", i,
         b->version + 1, i, b->counter, loops, i, b->version,
         sizes.data ? sizes.data : "", order.data ? order.data : "",
         types.data ? types.data : "");
    schedule_mark_tiled(b, i);
    if (peel)
      peel_loops(b, i, loops);
    if (loops)
      sb_printf(&outer, "%s%%loops%d_%d#0", outer.data ? ", " : "", i,
                b->counter);
    complete &= loops > 0;
    sb_free(&sizes);
    sb_free(&types);
    sb_free(&order);
  }
  schedule_set_nest(b, &outer, complete);
  sb_free(&outer);
  b->version++;
  if (peel)
    rematch_peeled(b);
  b->counter++;
  b->level++;
}

// The loop order (ORDER) is a property of the register tile: the cache
// tile loops keep the op's order.
static void step_cache_tile(builder *b) { step_tile(b, 0, false); }
static void step_register_tile(builder *b) { step_tile(b, 1, true); }

// Generalises the targeted ops and folds their unit loops away (a 1x1
// convolution on batch 1 becomes a generic over (oh, ow, f, c) whose
// operands are projections, that is a matmul). The handles follow the
// folded generics.
static void step_fold_unit_dims(builder *b) {
  for (int i = 0; i < b->a->n_ops; i++)
    line(b, "%%k%d_%d = transform.structured.generalize %%k%d_%d : (" ANY
         ") -> " ANY, i, b->version + 1, i, b->version);
  line(b, "transform.apply_patterns to %%funcs {");
  line(b, "  transform.apply_patterns.linalg.fold_unit_extent_dims_via_reshapes");
  line(b, "} : " ANY);
  b->version++;
  b->folded = true;
}

// Vectorises the targeted ops (static shapes: no vector sizes), then folds
// the broadcast/multiply/reduce form into vector.contract and the tensor
// slices into the transfers. One op at a time, its failure suppressed: an
// op the vectoriser refuses (a partial tile, when a fixed recipe's sizes do
// not divide some other op of the kind) stays as it is, and the schedule
// still applies to the others. The mask's decisions fit every op they
// target (schedule_check.c), so this only changes recipes replayed as text.
static void step_vectorize(builder *b) {
  for (int i = 0; i < b->a->n_ops; i++) {
    int n = b->counter++;
    line(b, "transform.foreach %%k%d_%d : " ANY " {", i, b->version);
    line(b, "^bb0(%%op%d: " ANY "):", n);
    line(b, "  transform.sequence %%op%d : " ANY " failures(suppress) {", n);
    line(b, "  ^bb0(%%one%d: " ANY "):", n);
    line(b, "    transform.structured.vectorize %%one%d : " ANY, n);
    line(b, "  }");
    line(b, "}");
  }
  line(b, "transform.apply_patterns to %%funcs {");
  line(b, "  transform.apply_patterns.vector.reduction_to_contract");
  line(b, "  transform.apply_patterns.vector.transfer_permutation_patterns");
  line(b, "  transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers");
  line(b, "  transform.apply_patterns.canonicalization");
  line(b, "} : " ANY);
  line(b, "transform.apply_cse to %%funcs : " ANY);
}

// Moves loop-invariant reads/writes of a subset (the accumulator tile) out
// of every scf.for: the accumulator then stays in registers across k.
static void step_hoist(builder *b) {
  int n = b->counter++;
  line(b, "transform.foreach %%funcs : " ANY " {");
  line(b, "^bb0(%%func%d: " ANY "):", n);
  line(b, "  %%for%d = transform.structured.match ops{[\"scf.for\"]} in "
       "%%func%d : (" ANY ") -> " ANY, n, n);
  line(b, "  transform.foreach %%for%d : " ANY " {", n);
  line(b, "  ^bb0(%%loop%d: " ANY "):", n);
  line(b, "    transform.loop.hoist_loop_invariant_subsets %%loop%d : " ANY, n);
  line(b, "  }");
  line(b, "}");
}

// Contractions to outer products to FMAs, and transfers down to rank 1:
// inside the tile loops when the schedule tiled one op (schedule_builder.
// nest), else over the functions. Never add lower_shape_cast together with
// lower_broadcast here: with the transfer lowering and canonicalization
// they make the rewriter loop forever (docs/SCHEDULES.md).
static void step_lower_contraction(builder *b) {
  char scope[32] = "funcs";
  if (b->nest.data) {
    snprintf(scope, sizeof scope, "nest%d", b->counter++);
    line(b, "%%%s = transform.merge_handles %s : " ANY, scope, b->nest.data);
  }
  line(b, "transform.apply_patterns to %%%s {", scope);
  line(b, "  transform.apply_patterns.vector.lower_contraction "
       "lowering_strategy = \"outerproduct\"");
  line(b, "  transform.apply_patterns.vector.transfer_permutation_patterns");
  line(b, "  transform.apply_patterns.vector.lower_outerproduct");
  line(b, "  transform.apply_patterns.vector.lower_multi_reduction "
       "lowering_strategy = \"innerparallel\"");
  line(b, "  transform.apply_patterns.vector.lower_transpose");
  line(b, "  transform.apply_patterns.vector.lower_transfer "
       "max_transfer_rank = 1");
  line(b, "  transform.apply_patterns.canonicalization");
  line(b, "} : " ANY);
}

static const schedule_step steps[] = {
    {"tile", STEP_TARGETS | STEP_TILES, step_cache_tile},
    {"register-tile", STEP_TARGETS | STEP_TILES | STEP_UNIT_TILES,
     step_register_tile},
    {"vectorize", STEP_TARGETS | STEP_VECTORIZES, step_vectorize},
    {"hoist", 0, step_hoist},
    {"fold-unit-dims", STEP_TARGETS | STEP_FOLDS, step_fold_unit_dims},
    {"lower-contraction", 0, step_lower_contraction},
};

// The step called `name`, here or in schedule_xforms.c; NULL if none.
static const schedule_step *find_step(const char *name) {
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
    if (!strcmp(steps[i].name, name))
      return &steps[i];
  for (int i = 0; i < schedule_n_xform_steps; i++)
    if (!strcmp(schedule_xform_steps[i].name, name))
      return &schedule_xform_steps[i];
  return NULL;
}

int schedule_step_flags(const char *name) {
  const schedule_step *st = find_step(name);
  return st ? st->flags : -1;
}

int schedule_action_flags(const mqss_action *a) {
  int f = 0;
  for (int i = 0; i < a->n_steps; i++)
    f |= schedule_step_flags(a->steps[i]);
  return f;
}

void schedule_id_filter(const mqss_decision *d, char *out, size_t len) {
  out[0] = '\0';
  if (d->op)
    snprintf(out, len, " attributes {" LINALG_TAG " = %lld : i64}",
             (long long)d->op);
}

// The handles every schedule starts from: %scope, one %k<i>_0 per op kind,
// and %funcs.
static void prologue(builder *b) {
  const mqss_decision *d = b->d;
  b->scope = d->target ? "scope" : "root";
  if (d->target)
    line(b, "%%scope = transform.structured.match ops{[\"func.func\"]} "
         "attributes {sym_name = \"%s\"} in %%root : (" ANY ") -> " ANY,
         d->target);
  for (int i = 0; i < b->a->n_ops; i++)
    match_kind(b, i, b->scope, 0);
  if (!b->a->n_ops) {
    line(b, "%%funcs = transform.structured.match ops{[\"func.func\"]} in "
         "%%%s : (" ANY ") -> " ANY, b->scope);
    return;
  }
  sb_printf(b->sb, "    %%all = transform.merge_handles ");
  for (int i = 0; i < b->a->n_ops; i++)
    sb_printf(b->sb, "%s%%k%d_0", i ? ", " : "", i);
  sb_printf(b->sb, " : " ANY "\n");
  line(b, "%%funcs = transform.get_parent_op %%all {deduplicate, op_name = "
       "\"func.func\"} : (" ANY ") -> " ANY);
}

static uint64_t fnv(const char *s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (; *s; s++) {
    h ^= (unsigned char)*s;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// The body of decision d's named sequence (malloc'ed), and its entry name
// (32 bytes): "mqss_" and the hash of the body. NULL when out of memory.
static char *sequence_body(const mqss_action *a, const mqss_decision *d,
                           char entry[32]) {
  strbuf body = {0};
  builder b = {.sb = &body, .a = a, .d = d};
  prologue(&b);
  for (int i = 0; i < a->n_steps; i++)
    find_step(a->steps[i])->emit(&b);
  line(&b, "transform.yield");
  sb_free(&b.nest);
  if (body.data)
    snprintf(entry, 32, "mqss_%016llx", (unsigned long long)fnv(body.data));
  return body.data;
}

// A named sequence's first line: its visibility ("" or "private ") and name.
#define SEQUENCE_HEAD "transform.named_sequence %s@%s(%%root: " ANY \
                      " {transform.readonly}) {\n"

bool schedule_sequence(strbuf *sb, const mqss_action *a,
                       const mqss_decision *d, char entry[32]) {
  char *body = sequence_body(a, d, entry);
  if (!body)
    return false;
  sb_printf(sb, "  // catalog action '%s'\n  " SEQUENCE_HEAD "%s  }\n",
            a->name, "", entry, body);
  free(body);
  return sb->data != NULL;
}

bool schedule_run_sequences(strbuf *sb, const mqss_catalog *c,
                            const mqss_decision *d, int n, char entry[32]) {
  char **body = calloc((size_t)n, sizeof *body);
  char (*names)[32] = calloc((size_t)n, sizeof *names);
  bool ok = body && names;
  uint64_t h = FNV1A64_INIT;
  for (int i = 0; ok && i < n; i++) {
    const mqss_action *a = mqss_catalog_action(c, d[i].action);
    ok = a && a->n_steps && (body[i] = sequence_body(a, &d[i], names[i]));
    if (ok)
      h = fnv1a64(h, names[i], strlen(names[i]));
  }
  if (ok) {
    snprintf(entry, 32, "mqss_%016llx", (unsigned long long)h);
    for (int i = 0; i < n; i++) {
      char step[48];
      snprintf(step, sizeof step, "%s_%d", entry, i + 1);
      sb_printf(sb, "  // catalog action '%s'\n  " SEQUENCE_HEAD "%s  }\n",
                mqss_catalog_action(c, d[i].action)->name, "private ", step,
                body[i]);
    }
    sb_printf(sb, "  " SEQUENCE_HEAD, "", entry);
    for (int i = 0; i < n; i++)
      sb_printf(sb, "    transform.include @%s_%d failures(propagate) "
                "(%%root) : (" ANY ") -> ()\n", entry, i + 1);
    sb_printf(sb, "    transform.yield\n  }\n");
    ok = sb->data != NULL;
  }
  for (int i = 0; body && i < n; i++)
    free(body[i]);
  free(body);
  free(names);
  return ok;
}

char *schedule_script(const mqss_action *a, const mqss_decision *d,
                      char entry[32]) {
  strbuf sb = {0};
  sb_printf(&sb, "%s", SCHEDULE_MODULE_HEAD);
  if (!schedule_sequence(&sb, a, d, entry)) {
    sb_free(&sb);
    return NULL;
  }
  schedule_close_module(&sb, 0);
  return sb.data;
}

// ----------------------------------------------------------------------------
// files

const char *mqss_schedule_dir(void) {
  const char *env = getenv("MQSS_SCHEDULE_DIR");
  if (env && *env)
    return env;
  static char dir[4096];
  if (!dir[0]) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/mqss-schedules", tmp && *tmp ? tmp : "/tmp");
  }
  return dir;
}

// Writes `text` to `path` unless it exists: the name is its content hash.
// A temporary file and rename keep concurrent writers from tearing it.
static bool write_once(const char *path, const char *text) {
  struct stat st;
  if (stat(path, &st) == 0)
    return true;
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f)
    return false;
  bool ok = fputs(text, f) >= 0;
  ok = fclose(f) == 0 && ok;
  if (ok && rename(tmp, path) != 0)
    ok = false;
  if (!ok)
    remove(tmp);
  return ok;
}

// Writes `script` (a library module defining @entry; freed here) to the
// schedule directory under the entry's name and sets *out to the pipeline
// that preloads it and runs the entry.
static mqss_status write_pipeline(mqss_session *s, char *script,
                                  const char *entry, char **out) {
  *out = NULL;
  const char *dir = mqss_schedule_dir();
  if (!script)
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  if (strpbrk(dir, ",{} ()")) {
    free(script);
    return fail(s, MQSS_ERR_INVALID_ARG, "schedule directory '%s' contains "
                "one of \",{} ()\", which pass pipeline text cannot hold; set "
                "MQSS_SCHEDULE_DIR to a plain path", dir);
  }
  strbuf path = {0};
  sb_printf(&path, "%s/%s.mlir", dir, entry);
  bool ok = (mkdir(dir, 0777) == 0 || errno == EEXIST) &&
            write_once(path.data, script);
  free(script);
  mqss_status st = MQSS_OK;
  if (!ok) {
    st = fail(s, MQSS_ERR_IO, "cannot write schedule '%s': %s; set "
              "MQSS_SCHEDULE_DIR to a writable directory", path.data,
              strerror(errno));
  } else {
    strbuf sb = {0};
    sb_printf(&sb, "builtin.module(transform-preload-library{"
              "transform-library-paths=%s},transform-interpreter{"
              "entry-point=%s})", path.data, entry);
    *out = sb.data;
    if (!sb.data)
      st = fail(s, MQSS_ERR_NOMEM, "out of memory");
  }
  sb_free(&path);
  return st;
}

mqss_status schedule_pipeline(mqss_session *s, const mqss_action *a,
                              const mqss_decision *d, char **out) {
  char entry[32];
  return write_pipeline(s, schedule_script(a, d, entry), entry, out);
}

mqss_status schedule_run_pipeline(const mqss_catalog *c,
                                  const mqss_decision *d, int n, char **out) {
  char entry[32];
  strbuf sb = {0};
  sb_printf(&sb, "%s", SCHEDULE_MODULE_HEAD);
  if (!schedule_run_sequences(&sb, c, d, n, entry))
    sb_free(&sb);
  else
    schedule_close_module(&sb, 0);
  return write_pipeline(catalog_session(c), sb.data, entry, out);
}

// ----------------------------------------------------------------------------
// preloading

static const char preload_key[] =
    "transform-preload-library{transform-library-paths=";

// The file name of `path` (len bytes) when it is a schedule of ours,
// "mqss_<16 hex digits>.mlir": its name is the hash of the sequence it
// defines (schedule_script), so two such files of one name in different
// directories (a policy's in MQSS_SCHEDULE_DIR, a baseline's in
// data/schedules) define the same @mqss_<hash>, which one context can hold
// only once. NULL for any other path.
static const char *hash_named(const char *path, size_t len, size_t *name_len) {
  const char *name = path + len;
  while (name > path && name[-1] != '/')
    name--;
  size_t n = (size_t)(path + len - name);
  if (memchr(path, ',', len) || n != 26 || strncmp(name, "mqss_", 5) ||
      strncmp(name + 21, ".mlir", 5) ||
      strspn(name + 5, "0123456789abcdef") < 16)
    return NULL;
  *name_len = n;
  return name;
}

// Loads the library `paths` into the session's context once: a path
// already loaded, or a schedule of ours whose hash name is (hash_named), is
// not loaded again.
static bool preload_once(mqss_session *s, MlirOperation payload,
                         const char *paths, size_t len) {
  size_t nlen = 0, llen = 0;
  const char *name = hash_named(paths, len, &nlen);
  for (const char *l = s->libraries.data; l && *l; l = strchr(l, '\n') + 1) {
    const char *lname = name ? hash_named(l, strcspn(l, "\n"), &llen) : NULL;
    if ((!strncmp(l, paths, len) && l[len] == '\n') ||
        (lname && !strncmp(lname, name, nlen)))
      return true;
  }
  strbuf text = {0};
  sb_printf(&text, "builtin.module(%s%.*s})", preload_key, (int)len, paths);
  MlirPassManager pm = mlirPassManagerCreate(s->ctx);
  strbuf perr = {0};
  bool ok = mlirLogicalResultIsSuccess(mlirParsePassPipeline(
                mlirPassManagerGetAsOpPassManager(pm),
                mlirStringRefCreate(text.data, text.len), sb_mlir_callback,
                &perr)) &&
            mlirLogicalResultIsSuccess(mlirPassManagerRunOnOp(pm, payload));
  mlirPassManagerDestroy(pm);
  if (ok)
    sb_printf(&s->libraries, "%.*s\n", (int)len, paths);
  else
    fail(s, MQSS_ERR_PIPELINE, "cannot preload transform library '%.*s'%s%s",
         (int)len, paths, perr.data ? ": " : "", perr.data ? perr.data : "");
  sb_free(&perr);
  sb_free(&text);
  return ok;
}

void schedule_drop_repeated_preloads(char *pipeline) {
  size_t key = sizeof preload_key - 1;
  char *q = pipeline;
  while ((q = strstr(q, preload_key))) {
    const char *paths = q + key, *end = strchr(paths, '}');
    if (!end)
      return;
    size_t len = (size_t)(end - paths), nlen = 0, plen = 0;
    const char *name = hash_named(paths, len, &nlen);
    bool seen = false;
    for (const char *p = pipeline; !seen && (p = strstr(p, preload_key)) &&
                                   p < q;
         p += key) {
      const char *pp = p + key, *pname = NULL;
      if (name)
        pname = hash_named(pp, strcspn(pp, "}"), &plen);
      seen = (!strncmp(pp, paths, len) && pp[len] == '}') ||
             (pname && !strncmp(pname, name, nlen));
    }
    if (!seen) {
      q = (char *)end;
      continue;
    }
    const char *next = end + 1 + (end[1] == ','); // the pass and its comma
    memmove(q, next, strlen(next) + 1);
  }
}

mqss_status schedule_preload(mqss_session *s, MlirOperation payload,
                             const char *pipeline, char **rewritten) {
  *rewritten = NULL;
  strbuf out = {0};
  const char *p = pipeline;
  for (const char *q; (q = strstr(p, preload_key));) {
    const char *paths = q + sizeof preload_key - 1;
    const char *end = strchr(paths, '}');
    if (!end)
      break; // malformed: the pipeline parser will say so
    if (!preload_once(s, payload, paths, (size_t)(end - paths))) {
      sb_free(&out);
      return MQSS_ERR_PIPELINE;
    }
    sb_append(&out, p, (size_t)(q - p));
    p = end + 1;
    if (*p == ',') // drop the separator with the pass
      p++;
    else if (out.len && out.data[out.len - 1] == ',')
      out.data[--out.len] = '\0';
  }
  sb_printf(&out, "%s", p);
  if (!out.data)
    return fail(s, MQSS_ERR_NOMEM, "out of memory");
  *rewritten = out.data;
  return MQSS_OK;
}

// ----------------------------------------------------------------------------
// API

char *mqss_decision_schedule(const mqss_catalog *c, const mqss_decision *d) {
  const mqss_action *a = c && d ? mqss_catalog_action(c, d->action) : NULL;
  if (!a || !a->n_steps) {
    if (c)
      fail(catalog_session(c), MQSS_ERR_INVALID_ARG, "action %d is not a "
           "schedule action; only those have a transform script",
           d ? d->action : -1);
    return NULL;
  }
  char entry[32];
  return schedule_script(a, d, entry);
}
