// Two matmuls on tensors for the schedule-action tests: @forward (fill +
// 32x48 * 48x16) is the measured entry, @square (24x24 * 24x24) shows that
// a decision scoped to one function or one op leaves the other alone.
func.func @forward(%A: tensor<32x48xf32>, %B: tensor<48x16xf32>) -> tensor<32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<32x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  %C = linalg.matmul ins(%A, %B : tensor<32x48xf32>, tensor<48x16xf32>)
                     outs(%acc : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %C : tensor<32x16xf32>
}

func.func @square(%A: tensor<24x24xf32>, %B: tensor<24x24xf32>, %C: tensor<24x24xf32>) -> tensor<24x24xf32> {
  %D = linalg.matmul ins(%A, %B : tensor<24x24xf32>, tensor<24x24xf32>)
                     outs(%C : tensor<24x24xf32>) -> tensor<24x24xf32>
  return %D : tensor<24x24xf32>
}
