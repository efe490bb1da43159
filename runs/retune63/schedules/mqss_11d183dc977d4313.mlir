module attributes {transform.with_named_sequence} {
  // catalog action 'window-decompose-vector'
  transform.named_sequence @mqss_11d183dc977d4313(%root: !transform.any_op {transform.readonly}) {
    %k0_0 = transform.structured.match ops{["linalg.depthwise_conv_2d_nhwc_hwc"]} in %root : (!transform.any_op) -> !transform.any_op
    %k1_0 = transform.structured.match ops{["linalg.pooling_nhwc_max"]} in %root : (!transform.any_op) -> !transform.any_op
    %k2_0 = transform.structured.match ops{["linalg.pooling_nhwc_sum"]} in %root : (!transform.any_op) -> !transform.any_op
    %all = transform.merge_handles %k0_0, %k1_0, %k2_0 : !transform.any_op
    %funcs = transform.get_parent_op %all {deduplicate, op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    %k0_1, %loops0_0:6 = transform.structured.tile_using_for %k0_0 tile_sizes [1, 1, 2, 16, 1, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %k0_1 "mqss.tiled" : !transform.any_op
    %k1_1, %loops1_0:6 = transform.structured.tile_using_for %k1_0 tile_sizes [1, 1, 2, 16, 1, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %k1_1 "mqss.tiled" : !transform.any_op
    %k2_1, %loops2_0:6 = transform.structured.tile_using_for %k2_0 tile_sizes [1, 1, 2, 16, 1, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %k2_1 "mqss.tiled" : !transform.any_op
    %k0_2 = transform.structured.decompose %k0_1 : (!transform.any_op) -> !transform.any_op
    %k1_2 = transform.structured.decompose %k1_1 : (!transform.any_op) -> !transform.any_op
    %k2_2 = transform.structured.decompose %k2_1 : (!transform.any_op) -> !transform.any_op
    transform.foreach %k0_2 : !transform.any_op {
    ^bb0(%op1: !transform.any_op):
      transform.sequence %op1 : !transform.any_op failures(suppress) {
      ^bb0(%one1: !transform.any_op):
        transform.structured.vectorize %one1 : !transform.any_op
      }
    }
    transform.foreach %k1_2 : !transform.any_op {
    ^bb0(%op2: !transform.any_op):
      transform.sequence %op2 : !transform.any_op failures(suppress) {
      ^bb0(%one2: !transform.any_op):
        transform.structured.vectorize %one2 : !transform.any_op
      }
    }
    transform.foreach %k2_2 : !transform.any_op {
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
    transform.yield
  }
}
