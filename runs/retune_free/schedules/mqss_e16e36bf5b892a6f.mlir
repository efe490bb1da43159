module attributes {transform.with_named_sequence} {
  // catalog action 'unroll'
  transform.named_sequence @mqss_e16e36bf5b892a6f(%root: !transform.any_op {transform.readonly}) {
    %k0_0 = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %k1_0 = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %all = transform.merge_handles %k0_0, %k1_0 : !transform.any_op
    %funcs = transform.get_parent_op %all {deduplicate, op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    %targets0 = transform.merge_handles %k0_0, %k1_0 : !transform.any_op
    %loop0 = transform.get_parent_op %targets0 {deduplicate, op_name = "scf.for"} : (!transform.any_op) -> !transform.any_op
    transform.foreach %loop0 : !transform.any_op {
    ^bb0(%one0: !transform.any_op):
      transform.loop.unroll %one0 {factor = 4} : !transform.any_op
    }
    %k0_1 = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %k1_1 = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
