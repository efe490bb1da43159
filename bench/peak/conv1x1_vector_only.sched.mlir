// The vector kernel of bench/vector_vs_tiled.sh: conv1x1.sched.mlir without
// its contraction lowering, so that the finisher lowers the register tiles'
// vector.contract ops and 2-D transfers.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %fill = transform.structured.match ops{["linalg.fill"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %tf, %lf:4 = transform.structured.tile_using_for %fill tile_sizes [1, 1, 8, 32]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %conv = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %gen = transform.structured.generalize %conv
      : (!transform.any_op) -> !transform.any_op
    %func = transform.structured.match ops{["func.func"]} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %func {
      transform.apply_patterns.linalg.fold_unit_extent_dims_via_reshapes
    } : !transform.any_op
    %mm = transform.structured.match ops{["linalg.generic"]} in %func
      : (!transform.any_op) -> !transform.any_op
    %cache, %lc:4 = transform.structured.tile_using_for %mm tile_sizes [1, 56, 256, 64]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %reg, %lr:4 = transform.structured.tile_using_for %cache tile_sizes [1, 4, 16, 1] interchange = [0, 2, 1, 3]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
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
