module attributes {transform.with_named_sequence} {
  // catalog action 'vector-lower-contraction'
  transform.named_sequence @mqss_46e773565c83d172(%root: !transform.any_op {transform.readonly}) {
    %funcs = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
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
