// The vector kernel of bench/vector_vs_tiled.sh: matmul.sched.mlir without
// its contraction lowering. The 4x16 register tiles stay vector.contract
// ops on 2-D transfers, as a schedule that only tiles and vectorises leaves
// them, and the finisher lowers them.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %fill = transform.structured.match ops{["linalg.fill"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %tf, %lf:2 = transform.structured.tile_using_for %fill tile_sizes [8, 32]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %cache, %lc:3 = transform.structured.tile_using_for %mm tile_sizes [128, 256, 64]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %reg, %lr:3 = transform.structured.tile_using_for %cache tile_sizes [4, 16, 1] interchange = [1, 0, 2]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %func = transform.structured.match ops{["func.func"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %vf = transform.structured.vectorize_children_and_apply_patterns %func
      : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %vf {
      transform.apply_patterns.canonicalization
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
    } : !transform.any_op
    transform.apply_cse to %vf : !transform.any_op
    %loops = transform.structured.match ops{["scf.for"]} in %vf
      : (!transform.any_op) -> !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %loops : !transform.any_op
    // Fold the hoisted slice back into its loop-carried tensor, or
    // bufferization copies every cache tile into a fresh buffer.
    transform.apply_patterns to %vf {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %vf : !transform.any_op
    transform.yield
  }
}
