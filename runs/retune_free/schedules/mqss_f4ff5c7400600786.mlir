module attributes {transform.with_named_sequence} {
  // catalog action 'interchange'
  transform.named_sequence @mqss_f4ff5c7400600786(%root: !transform.any_op {transform.readonly}) {
    %k0_0 = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %all = transform.merge_handles %k0_0 : !transform.any_op
    %funcs = transform.get_parent_op %all {deduplicate, op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    %generic0 = transform.structured.generalize %k0_0 : (!transform.any_op) -> !transform.any_op
    %k0_1 = transform.structured.interchange %generic0 iterator_interchange = [1,2,0] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
