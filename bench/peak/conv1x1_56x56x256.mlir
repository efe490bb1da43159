// f32 1x1 convolution, NHWC 1x56x56x256 input, HWCF 1x1x256x256 filter,
// stride 1, for bench/peak.sh: a GEMM of (56*56) x 256 x 256 (2*M*N*K flop).
func.func @forward(%I: tensor<1x56x56x256xf32>, %F: tensor<1x1x256x256xf32>) -> tensor<1x56x56x256xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1x56x56x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1x56x56x256xf32>) -> tensor<1x56x56x256xf32>
  %O = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%I, %F : tensor<1x56x56x256xf32>, tensor<1x1x256x256xf32>)
         outs(%acc : tensor<1x56x56x256xf32>) -> tensor<1x56x56x256xf32>
  return %O : tensor<1x56x56x256xf32>
}
