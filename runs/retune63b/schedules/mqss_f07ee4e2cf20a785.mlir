module attributes {transform.with_named_sequence} {
  // catalog action 'tile-vectorize-generic'
  transform.named_sequence @mqss_f07ee4e2cf20a785(%root: !transform.any_op {transform.readonly}) {
    %k0_0 = transform.collect_matching @mqss_fit_generic_r2_v in %root : (!transform.any_op) -> !transform.any_op
    %all = transform.merge_handles %k0_0 : !transform.any_op
    %funcs = transform.get_parent_op %all {deduplicate, op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    %k0_1, %loops0_0:2 = transform.structured.tile_using_for %k0_0 tile_sizes [4, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
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
  transform.named_sequence private @mqss_fit_generic_r2_v(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %rank = transform.match.structured %op : (!transform.any_op) -> !transform.param<i64> {
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      transform.match.structured.init %s[all] {projected_permutation} : !transform.any_op
      transform.match.structured.yield %r : !transform.param<i64>
    }
    %need = transform.param.constant 2 : i64 -> !transform.param<i64>
    transform.match.param.cmpi ge %rank, %need : !transform.param<i64>
    transform.yield %op : !transform.any_op
  }
}
