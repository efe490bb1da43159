module attributes {transform.with_named_sequence} {
  // catalog action 'pad-register-tile-fma'
  transform.named_sequence @mqss_2c7eedf38342760f(%root: !transform.any_op {transform.readonly}) {
    %k0_0 = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %k1_0 = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %all = transform.merge_handles %k0_0, %k1_0 : !transform.any_op
    %funcs = transform.get_parent_op %all {deduplicate, op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    %outer0, %outer_loops0:2 = transform.structured.tile_using_for %k0_0 tile_sizes [8, 16, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %padded0, %pad0, %copy0 = transform.structured.pad %outer0 {padding_values = [0.0 : f32, 0.0 : f32, 0.0 : f32], padding_dimensions = [0, 1, 2], copy_back_op = "none"} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %k0_1, %inner_loops0 = transform.structured.tile_using_for %padded0 tile_sizes [0, 0, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %k0_1 "mqss.tiled" : !transform.any_op
    %outer1, %outer_loops1:3 = transform.structured.tile_using_for %k1_0 tile_sizes [1, 8, 16, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %padded1, %pad1, %copy1 = transform.structured.pad %outer1 {padding_values = [0.0 : f32, 0.0 : f32, 0.0 : f32], padding_dimensions = [0, 1, 2, 3], copy_back_op = "none"} : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %k1_1, %inner_loops1 = transform.structured.tile_using_for %padded1 tile_sizes [0, 0, 0, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %k1_1 "mqss.tiled" : !transform.any_op
    transform.foreach %k0_1 : !transform.any_op {
    ^bb0(%op2: !transform.any_op):
      transform.sequence %op2 : !transform.any_op failures(suppress) {
      ^bb0(%one2: !transform.any_op):
        transform.structured.vectorize %one2 : !transform.any_op
      }
    }
    transform.foreach %k1_1 : !transform.any_op {
    ^bb0(%op3: !transform.any_op):
      transform.sequence %op3 : !transform.any_op failures(suppress) {
      ^bb0(%one3: !transform.any_op):
        transform.structured.vectorize %one3 : !transform.any_op
      }
    }
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %funcs : !transform.any_op
    transform.foreach %funcs : !transform.any_op {
    ^bb0(%func4: !transform.any_op):
      %for4 = transform.structured.match ops{["scf.for"]} in %func4 : (!transform.any_op) -> !transform.any_op
      transform.foreach %for4 : !transform.any_op {
      ^bb0(%loop4: !transform.any_op):
        transform.loop.hoist_loop_invariant_subsets %loop4 : !transform.any_op
      }
    }
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = "innerparallel"
      transform.apply_patterns.vector.lower_transpose
      transform.apply_patterns.vector.lower_transfer max_transfer_rank = 1
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.yield
  }
}
