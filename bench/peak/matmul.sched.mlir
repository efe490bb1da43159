// Hand-written schedule for the f32 matmuls of bench/peak.sh, the best recipe
// found on the development machine (AVX2, 16 ymm registers): a cache tile
// [128, N, 64], then a 4x16 register tile with the j loop outside the i loop
// so that the 64x16 panel of B stays in L1, vectorised, accumulators hoisted
// out of the k loop, contraction lowered to outer-product FMAs. Run it with
//   transform-preload-library{transform-library-paths=THIS},transform-interpreter
// before the finisher.
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
    transform.apply_patterns to %vf {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_outerproduct
    } : !transform.any_op
    // Fold the hoisted slice back into its loop-carried tensor, or
    // bufferization copies every cache tile into a fresh buffer.
    transform.apply_patterns to %vf {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %vf : !transform.any_op
    transform.yield
  }
}
