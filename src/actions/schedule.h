// Schedule actions (schedule.c, schedule_check.c): catalog actions that run
// a transform-dialect schedule instead of a pass pipeline. Internal to the
// library; docs/SCHEDULES.md describes the steps.
#ifndef MQSS_ACTIONS_SCHEDULE_H
#define MQSS_ACTIONS_SCHEDULE_H

#include "internal.h"

// Largest iteration space (product of the tile sizes, in elements) of an op
// a schedule vectorises: 512 f32 lanes (64 ymm registers' worth on AVX2)
// bound the accumulator tile, the operand slices and the broadcast
// temporaries the vectoriser builds before folding them into a
// vector.contract. An
// untiled 128x512x512 matmul would otherwise become a vector<128x512x512>
// that exhausts the JIT's memory.
#define SCHEDULE_MAX_VECTOR_ELEMS 512

// Largest accumulator tile (product of the register tile sizes of the
// parallel loops, in elements) of an op a schedule tiles to registers and
// vectorises: 128 f32 lanes are the 16 ymm registers of AVX2. A bigger tile
// cannot keep its accumulators in registers and spills at every k step
// (8x32 ran at half the speed of 4x16 on 512^3, docs/SCHEDULES.md).
#define SCHEDULE_MAX_ACC_ELEMS 128

// Most tiling steps (levels) one schedule may have.
#define SCHEDULE_MAX_LEVELS 4

// What a step does to the targeted ops.
enum {
  STEP_TARGETS = 1,     // works on the targeted linalg ops (needs `ops`)
  STEP_TILES = 2,       // tiles them: every kind needs a known rank
  STEP_UNIT_TILES = 4,  // loops without a size parameter get tile 1, not 0
  STEP_VECTORIZES = 8,  // vectorises them: the vector bound applies
  STEP_FOLDS = 16,      // generalises them and folds their unit loops away
  // schedule_xforms.c
  STEP_PARTIAL = 32,    // its M and N sizes need not divide (it pads)
  STEP_IN_LOOP = 64,    // each targeted op must sit in an scf.for
  STEP_PERMUTES = 128,  // its PERM parameter must permute the op's loops
  STEP_ROOTS = 256,     // no targeted op may feed another targeted op
  STEP_PARALLEL = 512,  // the loops its size parameters name must be
                        // parallel (a fused init restarts every reduction
                        // tile)
  STEP_DECOMPOSES = 1024, // turns the ops into their 1-D form: their
                          // height loops must be tiled to 1
  STEP_OUTSIDE_FORALL = 2048, // no targeted op may sit in an scf.forall
  STEP_COUNTS = 4096,   // its T0 and T1 parameters count tiles along the
                        // first two loops (1: the loop is not split)
};

// The state of a script being built. Handles: %scope is what the schedule
// may touch (the module or one function); %k<i>_<v> is version v of the
// handle to the targeted ops of kind i; %funcs are the functions that hold
// them. A step that replaces the targeted ops defines %k<i>_<version + 1>
// for every kind and increments `version`, so that steps compose in any
// order the catalog lists them.
typedef struct {
  strbuf *sb;
  const mqss_action *a;
  const mqss_decision *d;
  const char *scope; // "root", or "scope" when the decision has a target
  int version;  // current version of every %k<i> handle
  int counter;  // for fresh value names
  int level;    // tiling level of the next tiling step (0: outermost)
  bool folded;  // the ops are generics without their unit loops
  // When the decision addresses one op (by its mqss.id): its outermost
  // tile loop ("%loops0_1#0, ..."), from the first tiling step that gave it
  // one (schedule_set_nest); else empty. `lower-contraction` then lowers
  // the vector code inside these loops only, not over the whole function:
  // 14 per-op register tiles would otherwise re-lower each other's code
  // (0.5 s of a 0.6 s pipeline on transformer_248). A decision that
  // addresses every op of its kinds (as the baselines do) runs once and
  // still lowers the functions.
  strbuf nest;
} schedule_builder;

// Records `outer`, the outermost tile loop handles of the targeted ops, as
// the nest when the decision addresses one op and none is recorded yet.
// `complete` is false when some op got no tile loop: its code would lie
// outside, so nothing is recorded.
void schedule_set_nest(schedule_builder *b, const strbuf *outer,
                       bool complete);

// A schedule step: its name in the catalog, its STEP_* flags, and the
// function that appends its transform ops to the script.
typedef struct {
  const char *name;
  int flags;
  void (*emit)(schedule_builder *b);
} schedule_step;

// Appends one line of the sequence body (indented, newline added).
void schedule_line(schedule_builder *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
// Tile size of loop `loop` of an op with `rank` loops (-1: unknown, then
// only parameters with dim >= 0 count) at the current tiling level: the
// divisor parameter of that level naming that loop, else `fill`.
int64_t schedule_tile_size(const schedule_builder *b, int rank, int loop,
                           int64_t fill);
// Number of loops a tiling step names for kind `kind`: its rank, or for a
// kind of unknown rank (linalg.generic) one more than the largest `dim` of
// the divisor parameters.
int schedule_tiled_rank(const mqss_action *a, const char *kind);
// Marks the ops of handle %k<kind>_<version + 1> (the tiled ops a step just
// defined) with LINALG_TILED, so that the focus moves on (focus.c).
void schedule_mark_tiled(schedule_builder *b, int kind);
// The " attributes {mqss.id = N : i64}" match filter of a decision that
// targets one op, or "" (out: len bytes).
void schedule_id_filter(const mqss_decision *d, char *out, size_t len);
// The value text of choice parameter `name` under decision d, or NULL.
const char *schedule_choice(const mqss_action *a, const mqss_decision *d,
                            const char *name);

// The steps of schedule_xforms.c (interchange, fuse, pad, unroll).
extern const schedule_step schedule_xform_steps[];
extern const int schedule_n_xform_steps;
// Parses a permutation "2,0,1" into perm (LINALG_MAX_RANK entries) and
// returns its length, or -1 when text is not a permutation of 0..n-1.
int schedule_perm_parse(const char *text, int *perm);
// The preconditions of the steps of schedule_xforms.c (flags: the action's
// STEP_* flags) on one targeted op with `rank` loops, called `name` in
// messages: PERM permutes its loops, pad-tile's operands are f32, unroll's
// op sits in an scf.for, fuse's op feeds no other op the decision targets.
// d == NULL asks whether some choice of the parameters fits. Writes the
// reason into why when it does not.
bool schedule_xform_fits(const mqss_action *a, const mqss_decision *d,
                         int flags, MlirOperation op, int rank,
                         const char *name, char *why, size_t why_len);

// Flags of step `name`, or -1 when there is no such step.
int schedule_step_flags(const char *name);
// Flags of all of the action's steps together.
int schedule_action_flags(const mqss_action *a);

// First line of a transform library module; close it with
// schedule_close_module().
#define SCHEDULE_MODULE_HEAD                                                   \
  "module attributes {transform.with_named_sequence} {\n"

// Closes the library module in sb: defines the matchers that the
// sequences after byte `from` use (each once), then the closing brace.
void schedule_close_module(strbuf *sb, size_t from);
// The matcher (schedule_fit.c) with which a kind-wide decision collects its
// ops of kind `kind`, written to out; false when it takes every op of the
// kind (or the one its mqss.id names) with a plain match.
bool schedule_fit_name(const schedule_builder *b, const char *kind, char *out,
                       size_t len);

// Appends the named sequence of decision d (action a) to sb, called
// `entry` (32 bytes, set here: "mqss_" and the hash of its body). False
// when out of memory.
bool schedule_sequence(strbuf *sb, const mqss_action *a,
                       const mqss_decision *d, char entry[32]);
// The transform script of decision d (action a of the catalog) as a
// complete module with one named sequence called `entry` (32 bytes, set
// here: "mqss_" and a content hash). Returns a malloc'ed string or NULL.
char *schedule_script(const mqss_action *a, const mqss_decision *d,
                      char entry[32]);
// Appends the library of n >= 2 consecutive schedule decisions d[0..n):
// each one's sequence, private, as @<entry>_1 .. @<entry>_n, and the public
// @<entry> (32 bytes, set here: "mqss_" and a hash of theirs) that includes
// them in order, so that one transform interpreter runs them all. False
// when out of memory or when some d[i] is not a schedule action.
bool schedule_run_sequences(strbuf *sb, const mqss_catalog *c,
                            const mqss_decision *d, int n, char entry[32]);
// The anchored pass pipeline that runs decision d: preloads the script,
// written to the schedule directory under its content hash, and runs the
// transform interpreter on it. Sets *out (malloc'ed); on failure returns
// the status with the message on s.
mqss_status schedule_pipeline(mqss_session *s, const mqss_action *a,
                              const mqss_decision *d, char **out);

// As schedule_pipeline for the n >= 2 consecutive schedule decisions
// d[0..n) (schedule_run_sequences): one preload and one interpreter, which
// give the IR that n interpreters give with one pass and one verification
// instead of n (bench/fused_schedules.py: 0.88x the pipeline time at the
// median). Errors are set on the catalog's session.
mqss_status schedule_run_pipeline(const mqss_catalog *c,
                                  const mqss_decision *d, int n, char **out);

// Whether op is of one of schedule action a's kinds and fits d's sizes (as
// schedule_applies checks each op it matches; a decision's repeats, repeat.c).
bool schedule_fits_op(MlirOperation op, const mqss_action *a,
                      const mqss_decision *d);

// Whether decision d's partial tiles are peeled (mqss_decision.peel): d
// asks for it, addresses one op, and its action has one tiling step and
// otherwise only vectorises or works on the loops (no fold, decomposition,
// padding, permutation or fusion). Its sizes then need not divide the loops
// they tile, but must not exceed them.
bool schedule_peels(const mqss_action *a, const mqss_decision *d);

// Whether schedule action a applies in `scope` to the ops of its kinds,
// only the one tagged `id` when id != 0 (d->op for a decision; the mask
// passes focus_target's). With d == NULL (the mask): every such op has
// static loops, a candidate of every size parameter divides its loop, and
// the vector bound can be met. With d: every such op fits d's sizes.
// Either way there must be at least one op. Writes the
// reason into why (why_len bytes) when it does not apply.
bool schedule_applies(MlirOperation scope, const mqss_action *a,
                      const mqss_decision *d, int64_t id, char *why,
                      size_t why_len);

// Drops the transform-preload-library passes from `pipeline` whose library
// this session has loaded already, after loading the others once: MLIR keeps
// preloaded libraries in the context and rejects a second copy of one
// ("doubly defined symbol"). Sets *rewritten to the remaining text
// (malloc'ed); on failure returns the status with the message on s.
mqss_status schedule_preload(mqss_session *s, MlirOperation payload,
                             const char *pipeline, char **rewritten);

// Removes, in place, every transform-preload-library pass of the joined
// `pipeline` whose library an earlier one in the same text preloads (the
// same path, or a schedule of ours of the same hash name in another
// directory: a recipe's in data/schedules and a decision's), so that a
// printed pipeline choosing one schedule twice still runs in mlir-opt (a
// second preload of a sequence is "doubly defined symbol").
void schedule_drop_repeated_preloads(char *pipeline);

#endif // MQSS_ACTIONS_SCHEDULE_H
