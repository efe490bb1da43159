module attributes {transform.with_named_sequence} {
  // catalog action 'vectorize'
  transform.named_sequence @mqss_cd03b6fda05ff96b(%root: !transform.any_op {transform.readonly}) {
    %k0_0 = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %k1_0 = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %k2_0 = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %all = transform.merge_handles %k0_0, %k1_0, %k2_0 : !transform.any_op
    %funcs = transform.get_parent_op %all {deduplicate, op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    transform.foreach %k0_0 : !transform.any_op {
    ^bb0(%op0: !transform.any_op):
      transform.sequence %op0 : !transform.any_op failures(suppress) {
      ^bb0(%one0: !transform.any_op):
        transform.structured.vectorize %one0 : !transform.any_op
      }
    }
    transform.foreach %k1_0 : !transform.any_op {
    ^bb0(%op1: !transform.any_op):
      transform.sequence %op1 : !transform.any_op failures(suppress) {
      ^bb0(%one1: !transform.any_op):
        transform.structured.vectorize %one1 : !transform.any_op
      }
    }
    transform.foreach %k2_0 : !transform.any_op {
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
    transform.yield
  }
}
