// Returns a fresh 4 MB tensor, its argument, a constant and one buffer
// twice: the harness must free the first once and leave the others alone.
func.func @forward(%x: tensor<1024x1024xf32>)
    -> (tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<4xf32>,
        tensor<1024x1024xf32>) {
  %e = tensor.empty() : tensor<1024x1024xf32>
  %y = linalg.add ins(%x, %x : tensor<1024x1024xf32>, tensor<1024x1024xf32>)
                  outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  return %y, %x, %c, %y : tensor<1024x1024xf32>, tensor<1024x1024xf32>,
                          tensor<4xf32>, tensor<1024x1024xf32>
}
