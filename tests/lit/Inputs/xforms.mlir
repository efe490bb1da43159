// Kernels for the loop-transformation schedule tests (tests/lit/xforms.test):
// @mlp is fill + matmul (24x48 * 48x112: no register tile of 32 divides
// n = 112) + one bias/relu generic; @conv_pool is a 3x3 convolution into a
// 2x2 max pooling; @rows is a row max and a shifted exp (softmax's first
// half) on 16x64.
func.func @mlp(%A: tensor<24x48xf32>, %B: tensor<48x112xf32>, %bias: tensor<112xf32>) -> tensor<24x112xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<24x112xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<24x112xf32>) -> tensor<24x112xf32>
  %C = linalg.matmul ins(%A, %B : tensor<24x48xf32>, tensor<48x112xf32>)
                     outs(%acc : tensor<24x112xf32>) -> tensor<24x112xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%C, %bias : tensor<24x112xf32>, tensor<112xf32>) outs(%init : tensor<24x112xf32>) {
  ^bb0(%c: f32, %b: f32, %o: f32):
    %s = arith.addf %c, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<24x112xf32>
  return %y : tensor<24x112xf32>
}

func.func @conv_pool(%in: tensor<1x18x18x8xf32>, %w: tensor<3x3x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<1x16x16x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x18x18x8xf32>, tensor<3x3x8x16xf32>)
      outs(%acc : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %e1 = tensor.empty() : tensor<1x8x8x16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  %pool = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%conv, %win : tensor<1x16x16x16xf32>, tensor<2x2xf32>)
      outs(%m0 : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %pool : tensor<1x8x8x16xf32>
}

func.func @rows(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<16xf32>) -> tensor<16xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                          affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x64xf32>) outs(%m0 : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %acc, %v : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %e1 = tensor.empty() : tensor<16x64xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                         affine_map<(i, j) -> (i)>,
                                         affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<16x64xf32>, tensor<16xf32>) outs(%e1 : tensor<16x64xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %d = arith.subf %v, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<16x64xf32>
  return %ex : tensor<16x64xf32>
}
