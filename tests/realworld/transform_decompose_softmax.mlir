// A schedule that decomposes a linalg.softmax itself and then tiles the
// resulting generics, embedded next to the payload: the embedded schedule
// handles what the finisher would otherwise decompose. The softmax runs
// over dimension 0 of a 4x3 tensor of logits. Prints the probabilities.
// UPSTREAM: transform

module attributes {transform.with_named_sequence} {
  func.func @main() {
    %x = arith.constant dense<[[1.0, 0.0, -1.0],
                               [2.0, 0.0, -2.0],
                               [3.0, 0.0, 4.0],
                               [0.5, 0.0, 0.25]]> : tensor<4x3xf32>
    %e = tensor.empty() : tensor<4x3xf32>
    %y = linalg.softmax dimension(0) ins(%x : tensor<4x3xf32>)
                                     outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
    %u = tensor.cast %y : tensor<4x3xf32> to tensor<*xf32>
    call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
    return
  }

  func.func private @printMemrefF32(tensor<*xf32>)

  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %sm = transform.structured.match ops{["linalg.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %d = transform.structured.decompose_interface %sm : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
