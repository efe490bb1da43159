// Two elementwise steps on tensors: the first result is an intermediate
// buffer after bufferization, which the finisher must free; the second is
// returned and belongs to the caller.
func.func @forward(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %sq = linalg.mul ins(%x, %x : tensor<64x64xf32>, tensor<64x64xf32>)
                   outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %y = linalg.add ins(%sq, %x : tensor<64x64xf32>, tensor<64x64xf32>)
                  outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
