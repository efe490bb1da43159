// One op of each kind the 1-D decomposition schedules target
// (docs/SCHEDULES.md, "Convolutions"), on tensors with static shapes, for
// tests/lit/schedule_decompose.test: a channels-last and a channels-first
// convolution (the second strided), a depthwise convolution and a max and
// a sum pooling. @forward returns one value per op kind so that every
// result is checked against the reference.
func.func @forward(%x: tensor<1x10x18x8xf32>, %w: tensor<3x3x8x16xf32>,
                   %xc: tensor<1x8x10x34xf32>, %wc: tensor<8x8x3x3xf32>,
                   %k: tensor<3x3x8xf32>)
    -> (tensor<1x8x16x16xf32>, tensor<1x8x4x16xf32>, tensor<1x8x16x8xf32>,
        tensor<1x4x8x8xf32>, tensor<1x8x4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -3.0e38 : f32
  %e0 = tensor.empty() : tensor<1x8x16x16xf32>
  %a0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %conv = linalg.conv_2d_nhwc_hwcf
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x10x18x8xf32>, tensor<3x3x8x16xf32>)
      outs(%a0 : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %e1 = tensor.empty() : tensor<1x8x4x16xf32>
  %a1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32>
  %convc = linalg.conv_2d_nchw_fchw
      {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%xc, %wc : tensor<1x8x10x34xf32>, tensor<8x8x3x3xf32>)
      outs(%a1 : tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32>
  %e2 = tensor.empty() : tensor<1x8x16x8xf32>
  %a2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x8x16x8xf32>) -> tensor<1x8x16x8xf32>
  %dw = linalg.depthwise_conv_2d_nhwc_hwc
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %k : tensor<1x10x18x8xf32>, tensor<3x3x8xf32>)
      outs(%a2 : tensor<1x8x16x8xf32>) -> tensor<1x8x16x8xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %e3 = tensor.empty() : tensor<1x4x8x8xf32>
  %a3 = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %pool = linalg.pooling_nhwc_max
      {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%dw, %win : tensor<1x8x16x8xf32>, tensor<2x2xf32>)
      outs(%a3 : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %win3 = tensor.empty() : tensor<3x3xf32>
  %e4 = tensor.empty() : tensor<1x8x4x16xf32>
  %a4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32>
  %sum = linalg.pooling_nchw_sum
      {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 2]> : tensor<2xi64>}
      ins(%xc, %win3 : tensor<1x8x10x34xf32>, tensor<3x3xf32>)
      outs(%a4 : tensor<1x8x4x16xf32>) -> tensor<1x8x4x16xf32>
  return %conv, %convc, %dw, %pool, %sum
      : tensor<1x8x16x16xf32>, tensor<1x8x4x16xf32>, tensor<1x8x16x8xf32>,
        tensor<1x4x8x8xf32>, tensor<1x8x4x16xf32>
}
