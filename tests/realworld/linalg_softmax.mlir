// The named op linalg.softmax over the last dimension of a 3x8 tensor of
// logits (rows of growing temperature). Nothing lowers linalg.softmax
// directly: it must be decomposed into its max / exp / sum / div generics
// first (its AggregatedOpInterface; transform.structured.decompose_interface
// upstream). Prints the probabilities.
// UPSTREAM: decompose-softmax

func.func @main() {
  %x = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0],
                             [0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 0.0, 0.0],
                             [10.0, 10.0, 9.0, 8.0, -10.0, 0.0, 1.0, 2.0]]> : tensor<3x8xf32>
  %e = tensor.empty() : tensor<3x8xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<3x8xf32>)
                                   outs(%e : tensor<3x8xf32>) -> tensor<3x8xf32>
  %u = tensor.cast %y : tensor<3x8xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>)
