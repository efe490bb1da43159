// Two loop orders of a linalg.matmul as transform entry points, used as
// --baseline pipelines by guard_baseline_faster.test on slow_matmul.mlir:
// @mkn runs n innermost (unit stride in B and C: fast), @knm runs m
// innermost (strides down the columns of A and C: slow).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @mkn(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.structured.generalize %mm : (!transform.any_op) -> !transform.any_op
    %i = transform.structured.interchange %g iterator_interchange = [0, 2, 1] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @knm(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %g = transform.structured.generalize %mm : (!transform.any_op) -> !transform.any_op
    %i = transform.structured.interchange %g iterator_interchange = [2, 1, 0] : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
