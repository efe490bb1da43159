// Two hidden layers and a 10-class head (8x64 -> 32 -> 32 -> 10): register
// tiles with N = 16 fit the hidden layers' matmuls but not the head's, as
// in the corpus's softmax family (test_demo's per-op seed).
func.func @forward(%x: tensor<8x64xf32>, %w1: tensor<64x32xf32>,
                   %w2: tensor<32x32xf32>, %w3: tensor<32x10xf32>)
    -> tensor<8x10xf32> {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %f1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h1 = linalg.matmul ins(%x, %w1 : tensor<8x64xf32>, tensor<64x32xf32>)
                      outs(%f1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h2 = linalg.matmul ins(%h1, %w2 : tensor<8x32xf32>, tensor<32x32xf32>)
                      outs(%f1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %e3 = tensor.empty() : tensor<8x10xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<8x10xf32>) -> tensor<8x10xf32>
  %y = linalg.matmul ins(%h2, %w3 : tensor<8x32xf32>, tensor<32x10xf32>)
                     outs(%f3 : tensor<8x10xf32>) -> tensor<8x10xf32>
  return %y : tensor<8x10xf32>
}
