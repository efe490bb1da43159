// Transform library for the upstream reference of linalg_softmax.mlir:
// decomposes every linalg.softmax into its linalg.generic ops. Loaded with
// transform-preload-library (see ../README.md); not a test module itself.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %sm = transform.structured.match ops{["linalg.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %d = transform.structured.decompose_interface %sm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
