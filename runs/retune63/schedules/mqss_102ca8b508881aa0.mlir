module attributes {transform.with_named_sequence} {
  // catalog action 'register-tile-fma'
  transform.named_sequence @mqss_102ca8b508881aa0(%root: !transform.any_op {transform.readonly}) {
    %k0_0 = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %k1_0 = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %all = transform.merge_handles %k0_0, %k1_0 : !transform.any_op
    %funcs = transform.get_parent_op %all {deduplicate, op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    %k0_1, %loops0_0:3 = transform.structured.tile_using_for %k0_0 tile_sizes [4, 16, 8] interchange = [1, 0, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %k0_1 "mqss.tiled" : !transform.any_op
    %k1_1, %loops1_0:4 = transform.structured.tile_using_for %k1_0 tile_sizes [1, 4, 16, 8] interchange = [0, 2, 1, 3] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %k1_1 "mqss.tiled" : !transform.any_op
    transform.foreach %k0_1 : !transform.any_op {
    ^bb0(%op1: !transform.any_op):
      transform.sequence %op1 : !transform.any_op failures(suppress) {
      ^bb0(%one1: !transform.any_op):
        transform.structured.vectorize %one1 : !transform.any_op
      }
    }
    transform.foreach %k1_1 : !transform.any_op {
    ^bb0(%op2: !transform.any_op):
      transform.sequence %op2 : !transform.any_op failures(suppress) {
      ^bb0(%one2: !transform.any_op):
        transform.structured.vectorize %one2 : !transform.any_op
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
    ^bb0(%func3: !transform.any_op):
      %for3 = transform.structured.match ops{["scf.for"]} in %func3 : (!transform.any_op) -> !transform.any_op
      transform.foreach %for3 : !transform.any_op {
      ^bb0(%loop3: !transform.any_op):
        transform.loop.hoist_loop_invariant_subsets %loop3 : !transform.any_op
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
