// MobileNet-style depthwise stage followed by downsampling, on tensors (NHWC):
//   a[1x56x56x32]   = relu(depthwise_conv_2d_nhwc_hwc(in[1x58x58x32], K[3x3x32]) + bias[32])
//   out[1x28x28x32] = pooling_nhwc_max(a, window 2x2, strides 2)
// The kernel @dw_relu_pool is a depthwise 3x3 convolution (unit strides and
// dilations, no padding), one linalg.generic for the per-channel bias and the
// ReLU (arith.maximumf), and a 2x2 / stride-2 max pooling whose output is
// filled with -inf. @main builds inputs with linalg.index:
//   in[n,h,w,c] = ((3h + 7w + 5c) mod 17 - 8) * 0.125
//   K[kh,kw,c]  = ((2kh + kw + 3c) mod 7 - 3) * 0.25
//   bias[c]     = (c mod 5 - 2) * 0.0625
// and prints 1) per-channel sums over (h,w) (32 values) and 2) the 28x32
// (w,c) row out[0,13,:,:].

func.func @dw_relu_pool(%in: tensor<1x58x58x32xf32>, %K: tensor<3x3x32xf32>,
                        %bias: tensor<32xf32>) -> tensor<1x28x28x32xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<1x56x56x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x56x56x32xf32>) -> tensor<1x56x56x32xf32>
  %dw = linalg.depthwise_conv_2d_nhwc_hwc
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %K : tensor<1x58x58x32xf32>, tensor<3x3x32xf32>)
      outs(%acc : tensor<1x56x56x32xf32>) -> tensor<1x56x56x32xf32>
  %act = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (c)>,
                                          affine_map<(n, h, w, c) -> (n, h, w, c)>],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<32xf32>) outs(%dw : tensor<1x56x56x32xf32>) {
  ^bb0(%b: f32, %x: f32):
    %v = arith.addf %x, %b : f32
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x56x56x32xf32>
  %e1 = tensor.empty() : tensor<1x28x28x32xf32>
  %pinit = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<1x28x28x32xf32>) -> tensor<1x28x28x32xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %out = linalg.pooling_nhwc_max
      {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%act, %win : tensor<1x56x56x32xf32>, tensor<2x2xf32>)
      outs(%pinit : tensor<1x28x28x32xf32>) -> tensor<1x28x28x32xf32>
  return %out : tensor<1x28x28x32xf32>
}

func.func @main() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c17 = arith.constant 17 : index
  %f2 = arith.constant 2.0 : f32
  %f3 = arith.constant 3.0 : f32
  %f8 = arith.constant 8.0 : f32
  %eighth = arith.constant 0.125 : f32
  %quarter = arith.constant 0.25 : f32
  %sixteenth = arith.constant 0.0625 : f32
  %zero = arith.constant 0.0 : f32

  %ei = tensor.empty() : tensor<1x58x58x32xf32>
  %in = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%ei : tensor<1x58x58x32xf32>) {
  ^bb0(%o: f32):
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %c = linalg.index 3 : index
    %t0 = arith.muli %h, %c3 : index
    %t1 = arith.muli %w, %c7 : index
    %t2 = arith.muli %c, %c5 : index
    %t3 = arith.addi %t0, %t1 : index
    %t4 = arith.addi %t3, %t2 : index
    %t5 = arith.remui %t4, %c17 : index
    %t6 = arith.index_cast %t5 : index to i32
    %t7 = arith.sitofp %t6 : i32 to f32
    %t8 = arith.subf %t7, %f8 : f32
    %t9 = arith.mulf %t8, %eighth : f32
    linalg.yield %t9 : f32
  } -> tensor<1x58x58x32xf32>

  %ek = tensor.empty() : tensor<3x3x32xf32>
  %K = linalg.generic {indexing_maps = [affine_map<(kh, kw, c) -> (kh, kw, c)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%ek : tensor<3x3x32xf32>) {
  ^bb0(%o: f32):
    %kh = linalg.index 0 : index
    %kw = linalg.index 1 : index
    %c = linalg.index 2 : index
    %t0 = arith.muli %kh, %c2 : index
    %t1 = arith.muli %c, %c3 : index
    %t2 = arith.addi %t0, %kw : index
    %t3 = arith.addi %t2, %t1 : index
    %t4 = arith.remui %t3, %c7 : index
    %t5 = arith.index_cast %t4 : index to i32
    %t6 = arith.sitofp %t5 : i32 to f32
    %t7 = arith.subf %t6, %f3 : f32
    %t8 = arith.mulf %t7, %quarter : f32
    linalg.yield %t8 : f32
  } -> tensor<3x3x32xf32>

  %eb = tensor.empty() : tensor<32xf32>
  %bias = linalg.generic {indexing_maps = [affine_map<(c) -> (c)>],
                          iterator_types = ["parallel"]}
      outs(%eb : tensor<32xf32>) {
  ^bb0(%o: f32):
    %c = linalg.index 0 : index
    %t0 = arith.remui %c, %c5 : index
    %t1 = arith.index_cast %t0 : index to i32
    %t2 = arith.sitofp %t1 : i32 to f32
    %t3 = arith.subf %t2, %f2 : f32
    %t4 = arith.mulf %t3, %sixteenth : f32
    linalg.yield %t4 : f32
  } -> tensor<32xf32>

  %out = call @dw_relu_pool(%in, %K, %bias)
      : (tensor<1x58x58x32xf32>, tensor<3x3x32xf32>, tensor<32xf32>) -> tensor<1x28x28x32xf32>

  %es = tensor.empty() : tensor<32xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%es : tensor<32xf32>) -> tensor<32xf32>
  %S = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>,
                                        affine_map<(n, h, w, c) -> (c)>],
                       iterator_types = ["reduction", "reduction", "reduction", "parallel"]}
      ins(%out : tensor<1x28x28x32xf32>) outs(%s0 : tensor<32xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  %ms = bufferization.to_memref %S : memref<32xf32>
  %us = memref.cast %ms : memref<32xf32> to memref<*xf32>
  call @printMemrefF32(%us) : (memref<*xf32>) -> ()

  %row = tensor.extract_slice %out[0, 13, 0, 0] [1, 1, 28, 32] [1, 1, 1, 1]
      : tensor<1x28x28x32xf32> to tensor<28x32xf32>
  %mr = bufferization.to_memref %row : memref<28x32xf32>
  %ur = memref.cast %mr : memref<28x32xf32> to memref<*xf32>
  call @printMemrefF32(%ur) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
