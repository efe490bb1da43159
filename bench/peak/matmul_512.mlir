// f32 matmul 512x512 * 512x512 for bench/peak.sh (2*M*N*K flop).
func.func @forward(%A: tensor<512x512xf32>, %B: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<512x512xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<512x512xf32>) -> tensor<512x512xf32>
  %C = linalg.matmul ins(%A, %B : tensor<512x512xf32>, tensor<512x512xf32>)
                     outs(%acc : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %C : tensor<512x512xf32>
}
