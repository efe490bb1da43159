// One channels-first convolution and no channels-last one: the resblock
// recipe's first step (the NHWC decomposition) matches nothing here, its
// second (NCHW) decomposes the convolution (tests/unit/test_demo.c).
func.func @conv(%x: tensor<1x8x10x10xf32>, %w: tensor<8x8x3x3xf32>)
    -> tensor<1x8x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x8xf32>)
      -> tensor<1x8x8x8xf32>
  %y = linalg.conv_2d_nchw_fchw
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x10x10xf32>, tensor<8x8x3x3xf32>)
      outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}
