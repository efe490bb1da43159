// A matmul (64x32 * 32x128) and a batch matmul (2 x 32x32 * 32x64) on
// tensors for the two-level tiling tests (schedules_two_level.test): both
// results are checked when measured.
func.func @forward(%A: tensor<64x32xf32>, %B: tensor<32x128xf32>,
                   %P: tensor<2x32x32xf32>, %Q: tensor<2x32x64xf32>)
    -> (tensor<64x128xf32>, tensor<2x32x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<64x128xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<64x128xf32>) -> tensor<64x128xf32>
  %C = linalg.matmul ins(%A, %B : tensor<64x32xf32>, tensor<32x128xf32>)
                     outs(%acc : tensor<64x128xf32>) -> tensor<64x128xf32>
  %binit = tensor.empty() : tensor<2x32x64xf32>
  %bacc = linalg.fill ins(%zero : f32) outs(%binit : tensor<2x32x64xf32>) -> tensor<2x32x64xf32>
  %R = linalg.batch_matmul ins(%P, %Q : tensor<2x32x32xf32>, tensor<2x32x64xf32>)
                           outs(%bacc : tensor<2x32x64xf32>) -> tensor<2x32x64xf32>
  return %C, %R : tensor<64x128xf32>, tensor<2x32x64xf32>
}
