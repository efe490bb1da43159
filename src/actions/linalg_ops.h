// Linalg ops as targets of schedule actions (linalg_ops.c): the `mqss.id`
// tag, static loop extents, and the walk over the ops a decision targets.
// Internal to the library.
#ifndef MQSS_ACTIONS_LINALG_OPS_H
#define MQSS_ACTIONS_LINALG_OPS_H

#include "internal.h"

// Name of the discardable attribute that tags linalg ops.
#define LINALG_TAG "mqss.id"
// Name of the unit attribute the tiling steps of a schedule set on the ops
// they tiled: such an op is no longer the focus of the state (focus.c).
#define LINALG_TILED "mqss.tiled"
// Most loops a schedule's target op may have.
#define LINALG_MAX_RANK 8

// Number of loops of named op kind `name` ("linalg.matmul"), or -1 when
// schedules cannot tile that kind (linalg.generic: unknown rank).
int linalg_kind_rank(const char *name);
// Number of innermost loops of kind `name` that are reductions (the others
// are parallel), or -1 for a kind of unknown rank.
int linalg_kind_reductions(const char *name);
// The loops of kind `name` (bit d: loop d) that must have extent 1 for a
// fold of unit dimensions to leave a matmul-like generic (n, kh, kw of a
// convolution), or 0.
unsigned linalg_kind_unit_loops(const char *name);
// The output and window height loops of kind `name` (oh, kh; bit d: loop
// d), which must be tiled to 1 before `transform.structured.decompose`
// turns the op into its 1-D form, or 0 for a kind that does not decompose.
unsigned linalg_kind_height_loops(const char *name);
// Whether loop d of `op` is a reduction: one of a named kind's last loops,
// or a linalg.generic whose iterator_types entry d says so. True when it
// cannot tell (a kind of unknown rank, no such loop), so that callers that
// need a parallel loop stay on the safe side.
bool linalg_loop_is_reduction(MlirOperation op, int d);
// Writes the static extent of each loop of `op` into ext (LINALG_MAX_RANK
// entries; -1: dynamic or
// unknown) and returns the number of loops, or -1 for an unsupported op.
int linalg_loop_extents(MlirOperation op, int64_t *ext);
// Whether `op` is a linalg.generic with an output (init) indexed by
// constants only, as a sum into a memref<1xf32> through (d0, d1) -> (0).
// MLIR 19's vectorizer writes such an output with a vector.transfer_write
// that has no indices, which does not verify.
bool linalg_scalar_output(MlirOperation op);
// The op's tag, or 0 when it has none.
int64_t linalg_op_tag(MlirOperation op);
// True when a schedule tiled the op (it carries LINALG_TILED).
bool linalg_op_tiled(MlirOperation op);
// Tags the linalg ops under root (mqss_module_tag_ops) when none of them
// carries a tag yet, so that the numbering is the one `mqss opt --tag` gives
// the module as it was first tagged. Returns the number of ops tagged.
int linalg_tag_once(MlirOperation root);
// True when linalg_tag_once(root) would tag something.
bool linalg_needs_tags(MlirOperation root);

// Visits op; returns false to stop the walk.
typedef bool (*linalg_visit_fn)(MlirOperation op, void *user);
// Calls fn on every op in `scope` (itself included) whose name is one of
// kinds (n_kinds) and, when id != 0, whose tag is id. Returns false when fn
// stopped the walk.
// Whether op is one of the n_kinds op names in kinds.
bool linalg_op_is_kind(MlirOperation op, const char *const *kinds,
                       int n_kinds);
bool linalg_for_each(MlirOperation scope, const char *const *kinds,
                     int n_kinds, int64_t id, linalg_visit_fn fn, void *user);

#endif // MQSS_ACTIONS_LINALG_OPS_H
