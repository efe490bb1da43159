// A 1x1 convolution on tensors (NHWC 1x4x14x16 input, HWCF 1x1x16x64
// filter, stride 1) for the conv1x1-tile-fma tests in
// schedules_two_level.test: a matmul of (4*14) x 64 x 16.
func.func @forward(%I: tensor<1x4x14x16xf32>, %F: tensor<1x1x16x64xf32>) -> tensor<1x4x14x64xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1x4x14x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1x4x14x64xf32>) -> tensor<1x4x14x64xf32>
  %O = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%I, %F : tensor<1x4x14x16xf32>, tensor<1x1x16x64xf32>)
         outs(%acc : tensor<1x4x14x64xf32>) -> tensor<1x4x14x64xf32>
  return %O : tensor<1x4x14x64xf32>
}
