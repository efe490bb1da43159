// A convolutional block from a TOSA model: tosa.conv2d (NHWC input, OHWI
// weights, bias, padding 1) on a 1x5x5x1 image with a 3x3 edge filter and
// a 3x3 box filter, tosa.max_pool2d 2x2 stride 2, tosa.sigmoid and
// tosa.transpose to NCHW. Prints the pooled map and the transposed,
// squashed output.
// UPSTREAM: tosa

func.func @main() {
  %img = arith.constant dense<[[[[1.0], [2.0], [3.0], [4.0], [5.0]],
                                [[2.0], [4.0], [6.0], [8.0], [10.0]],
                                [[0.0], [1.0], [0.0], [1.0], [0.0]],
                                [[-1.0], [-2.0], [-3.0], [-4.0], [-5.0]],
                                [[5.0], [4.0], [3.0], [2.0], [1.0]]]]> : tensor<1x5x5x1xf32>
  %w = arith.constant dense<[[[[0.0], [-1.0], [0.0]], [[-1.0], [4.0], [-1.0]], [[0.0], [-1.0], [0.0]]],
                             [[[0.125], [0.125], [0.125]], [[0.125], [0.0], [0.125]], [[0.125], [0.125], [0.125]]]]> : tensor<2x3x3x1xf32>
  %b = arith.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %c = tosa.conv2d %img, %w, %b {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x5x5x1xf32>, tensor<2x3x3x1xf32>, tensor<2xf32>) -> tensor<1x5x5x2xf32>
  %p = tosa.max_pool2d %c {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>} : (tensor<1x5x5x2xf32>) -> tensor<1x2x2x2xf32>
  %perms = arith.constant dense<[0, 3, 1, 2]> : tensor<4xi32>
  %t = tosa.transpose %p, %perms : (tensor<1x2x2x2xf32>, tensor<4xi32>) -> tensor<1x2x2x2xf32>
  %s = tosa.sigmoid %t : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %u = tensor.cast %p : tensor<1x2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  %v = tensor.cast %s : tensor<1x2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%v) : (tensor<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>)
