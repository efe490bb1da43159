module attributes {transform.with_named_sequence} {
  // catalog action 'tile-vectorize-generic'
  transform.named_sequence @mqss_48cd64e936e8e222(%root: !transform.any_op {transform.readonly}) {
    %k0_0 = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %all = transform.merge_handles %k0_0 : !transform.any_op
    %funcs = transform.get_parent_op %all {deduplicate, op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    %k0_1, %loops0_0:2 = transform.structured.tile_using_for %k0_0 tile_sizes [2, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %k0_1 "mqss.tiled" : !transform.any_op
    transform.foreach %k0_1 : !transform.any_op {
    ^bb0(%op1: !transform.any_op):
      transform.sequence %op1 : !transform.any_op failures(suppress) {
      ^bb0(%one1: !transform.any_op):
        transform.structured.vectorize %one1 : !transform.any_op
      }
    }
    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.reduction_to_contract
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %funcs : !transform.any_op
    transform.yield
  }
}
