// Schedule actions (schedule.c, schedule_check.c): catalog actions that run
// a transform-dialect schedule instead of a pass pipeline. Internal to the
// library; docs/SCHEDULES.md describes the steps.
#ifndef MQSS_ACTIONS_SCHEDULE_H
#define MQSS_ACTIONS_SCHEDULE_H

#include "internal.h"

// Largest iteration space (product of the tile sizes, in elements) of an op
// a schedule vectorises: 512 f32 lanes are the 32 AVX-512 registers, room
// for the accumulator tile, the operand slices and the broadcast temporaries
// the vectoriser builds before folding them into a vector.contract. An
// untiled 128x512x512 matmul would otherwise become a vector<128x512x512>
// that exhausts the JIT's memory.
#define SCHEDULE_MAX_VECTOR_ELEMS 512

// Largest accumulator tile (product of the register tile sizes of the
// parallel loops, in elements) of an op a schedule tiles to registers and
// vectorises: 128 f32 lanes are the 16 ymm registers of AVX2. A bigger tile
// cannot keep its accumulators in registers and spills at every k step
// (8x32 ran at half the speed of 4x16, /work/notes/recipes.md).
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
};

// Flags of step `name`, or -1 when there is no such step.
int schedule_step_flags(const char *name);
// Flags of all of the action's steps together.
int schedule_action_flags(const mqss_action *a);

// First line of a transform library module; close it with "}\n".
#define SCHEDULE_MODULE_HEAD                                                   \
  "module attributes {transform.with_named_sequence} {\n"

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
// The anchored pass pipeline that runs decision d: preloads the script,
// written to the schedule directory under its content hash, and runs the
// transform interpreter on it. Sets *out (malloc'ed); on failure returns
// the status with the message on s.
mqss_status schedule_pipeline(mqss_session *s, const mqss_action *a,
                              const mqss_decision *d, char **out);

// Whether schedule action a applies in `scope`. With d == NULL (the mask,
// for an untargeted decision): every op of the action's kinds in scope has
// static loops, a candidate of every size parameter divides its loop, and
// the vector bound can be met. With d: every op d targets fits d's sizes.
// Either way there must be at least one op. Writes the
// reason into why (why_len bytes) when it does not apply.
bool schedule_applies(MlirOperation scope, const mqss_action *a,
                      const mqss_decision *d, char *why, size_t why_len);

// Drops the transform-preload-library passes from `pipeline` whose library
// this session has loaded already, after loading the others once: MLIR keeps
// preloaded libraries in the context and rejects a second copy of one
// ("doubly defined symbol"). Sets *rewritten to the remaining text
// (malloc'ed); on failure returns the status with the message on s.
mqss_status schedule_preload(mqss_session *s, MlirOperation payload,
                             const char *pipeline, char **rewritten);

#endif // MQSS_ACTIONS_SCHEDULE_H
