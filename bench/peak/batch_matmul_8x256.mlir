// f32 batch matmul, 8 batches of 256x256 * 256x256, for bench/peak.sh
// (2*B*M*N*K flop).
func.func @forward(%A: tensor<8x256x256xf32>, %B: tensor<8x256x256xf32>) -> tensor<8x256x256xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<8x256x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<8x256x256xf32>) -> tensor<8x256x256xf32>
  %C = linalg.batch_matmul ins(%A, %B : tensor<8x256x256xf32>, tensor<8x256x256xf32>)
                           outs(%acc : tensor<8x256x256xf32>) -> tensor<8x256x256xf32>
  return %C : tensor<8x256x256xf32>
}
