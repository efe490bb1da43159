// One channels-last convolution with 16 output channels: a decomposition
// sized for 32 does not divide them, one sized for 16 does
// (tests/unit/test_demo.c, adapting a seed's sizes).
func.func @conv(%x: tensor<1x10x10x8xf32>, %w: tensor<3x3x8x16xf32>)
    -> tensor<1x8x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8x8x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x16xf32>)
      -> tensor<1x8x8x16xf32>
  %y = linalg.conv_2d_nhwc_hwcf
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x10x10x8xf32>, tensor<3x3x8x16xf32>)
      outs(%init : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %y : tensor<1x8x8x16xf32>
}
