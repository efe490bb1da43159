// Two matmuls of different shapes in one function, for the per-op rule
// (docs/POLICY.md): the second (64x40, k 48: 245760 flops) is the focus
// first, then the first (64x48, k 32: 196608 flops). N = 40 takes tile 8
// but not 16; N = 48 takes both.
func.func @forward(%A: tensor<64x32xf32>, %B: tensor<32x48xf32>, %E: tensor<48x40xf32>) -> tensor<64x40xf32> {
  %zero = arith.constant 0.0 : f32
  %i1 = tensor.empty() : tensor<64x48xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%i1 : tensor<64x48xf32>) -> tensor<64x48xf32>
  %C = linalg.matmul ins(%A, %B : tensor<64x32xf32>, tensor<32x48xf32>)
                     outs(%f1 : tensor<64x48xf32>) -> tensor<64x48xf32>
  %i2 = tensor.empty() : tensor<64x40xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%i2 : tensor<64x40xf32>) -> tensor<64x40xf32>
  %D = linalg.matmul ins(%C, %E : tensor<64x48xf32>, tensor<48x40xf32>)
                     outs(%f2 : tensor<64x40xf32>) -> tensor<64x40xf32>
  return %D : tensor<64x40xf32>
}
