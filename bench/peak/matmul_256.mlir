// f32 matmul 256x256 * 256x256 for bench/peak.sh (2*M*N*K flop).
func.func @forward(%A: tensor<256x256xf32>, %B: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<256x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<256x256xf32>) -> tensor<256x256xf32>
  %C = linalg.matmul ins(%A, %B : tensor<256x256xf32>, tensor<256x256xf32>)
                     outs(%acc : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %C : tensor<256x256xf32>
}
