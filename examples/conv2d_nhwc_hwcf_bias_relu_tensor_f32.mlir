// A convolution layer of a CNN on tensors, channels-last (NHWC / HWCF):
//   out[1x16x16x16] = relu(conv_2d_nhwc_hwcf(in[1x18x18x8], W[3x3x8x16]) + bias[16])
// unit strides and dilations, no padding. The kernel @conv_layer is a
// linalg.conv_2d_nhwc_hwcf followed by an elementwise linalg.generic doing the
// broadcast bias add and ReLU (arith.maximumf). @main builds inputs with
// linalg.index:
//   in[n,h,w,c]  = ((5h + 3w + 7c) mod 13 - 6) * 0.125
//   W[kh,kw,c,f] = ((3kh + 5kw + c + 2f) mod 7 - 3) * 0.25
//   bias[f]      = (f mod 5 - 2) * 0.5
// and prints 1) per-output-channel sums over (h,w) (16 values, via a
// linalg.generic reduction) and 2) the 16x16 (w,f) plane out[0,5,:,:].

func.func @conv_layer(%in: tensor<1x18x18x8xf32>, %W: tensor<3x3x8x16xf32>,
                      %bias: tensor<16xf32>) -> tensor<1x16x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1x16x16x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %conv = linalg.conv_2d_nhwc_hwcf
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %W : tensor<1x18x18x8xf32>, tensor<3x3x8x16xf32>)
      outs(%acc : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %init2 = tensor.empty() : tensor<1x16x16x16xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>,
                                          affine_map<(n, h, w, f) -> (f)>,
                                          affine_map<(n, h, w, f) -> (n, h, w, f)>],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %bias : tensor<1x16x16x16xf32>, tensor<16xf32>)
      outs(%init2 : tensor<1x16x16x16xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x16x16x16xf32>
  return %out : tensor<1x16x16x16xf32>
}

func.func @main() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c13 = arith.constant 13 : index
  %f2 = arith.constant 2.0 : f32
  %f3 = arith.constant 3.0 : f32
  %f6 = arith.constant 6.0 : f32
  %eighth = arith.constant 0.125 : f32
  %quarter = arith.constant 0.25 : f32
  %half = arith.constant 0.5 : f32
  %zero = arith.constant 0.0 : f32

  %ei = tensor.empty() : tensor<1x18x18x8xf32>
  %in = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%ei : tensor<1x18x18x8xf32>) {
  ^bb0(%out: f32):
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %c = linalg.index 3 : index
    %t0 = arith.muli %h, %c5 : index
    %t1 = arith.muli %w, %c3 : index
    %t2 = arith.muli %c, %c7 : index
    %t3 = arith.addi %t0, %t1 : index
    %t4 = arith.addi %t3, %t2 : index
    %t5 = arith.remui %t4, %c13 : index
    %t6 = arith.index_cast %t5 : index to i32
    %t7 = arith.sitofp %t6 : i32 to f32
    %t8 = arith.subf %t7, %f6 : f32
    %t9 = arith.mulf %t8, %eighth : f32
    linalg.yield %t9 : f32
  } -> tensor<1x18x18x8xf32>

  %ew = tensor.empty() : tensor<3x3x8x16xf32>
  %W = linalg.generic {indexing_maps = [affine_map<(kh, kw, c, f) -> (kh, kw, c, f)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%ew : tensor<3x3x8x16xf32>) {
  ^bb0(%out: f32):
    %kh = linalg.index 0 : index
    %kw = linalg.index 1 : index
    %c = linalg.index 2 : index
    %f = linalg.index 3 : index
    %t0 = arith.muli %kh, %c3 : index
    %t1 = arith.muli %kw, %c5 : index
    %t2 = arith.muli %f, %c2 : index
    %t3 = arith.addi %t0, %t1 : index
    %t4 = arith.addi %t3, %t2 : index
    %t5 = arith.addi %t4, %c : index
    %t6 = arith.remui %t5, %c7 : index
    %t7 = arith.index_cast %t6 : index to i32
    %t8 = arith.sitofp %t7 : i32 to f32
    %t9 = arith.subf %t8, %f3 : f32
    %t10 = arith.mulf %t9, %quarter : f32
    linalg.yield %t10 : f32
  } -> tensor<3x3x8x16xf32>

  %eb = tensor.empty() : tensor<16xf32>
  %bias = linalg.generic {indexing_maps = [affine_map<(f) -> (f)>],
                          iterator_types = ["parallel"]}
      outs(%eb : tensor<16xf32>) {
  ^bb0(%out: f32):
    %f = linalg.index 0 : index
    %t0 = arith.remui %f, %c5 : index
    %t1 = arith.index_cast %t0 : index to i32
    %t2 = arith.sitofp %t1 : i32 to f32
    %t3 = arith.subf %t2, %f2 : f32
    %t4 = arith.mulf %t3, %half : f32
    linalg.yield %t4 : f32
  } -> tensor<16xf32>

  %out = call @conv_layer(%in, %W, %bias)
      : (tensor<1x18x18x8xf32>, tensor<3x3x8x16xf32>, tensor<16xf32>) -> tensor<1x16x16x16xf32>

  // Per-channel sums over (h, w).
  %es = tensor.empty() : tensor<16xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%es : tensor<16xf32>) -> tensor<16xf32>
  %S = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>,
                                        affine_map<(n, h, w, f) -> (f)>],
                       iterator_types = ["reduction", "reduction", "reduction", "parallel"]}
      ins(%out : tensor<1x16x16x16xf32>) outs(%s0 : tensor<16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %ms = bufferization.to_memref %S : memref<16xf32>
  %us = memref.cast %ms : memref<16xf32> to memref<*xf32>
  call @printMemrefF32(%us) : (memref<*xf32>) -> ()

  %plane = tensor.extract_slice %out[0, 5, 0, 0] [1, 1, 16, 16] [1, 1, 1, 1]
      : tensor<1x16x16x16xf32> to tensor<16x16xf32>
  %mp = bufferization.to_memref %plane : memref<16x16xf32>
  %up = memref.cast %mp : memref<16x16xf32> to memref<*xf32>
  call @printMemrefF32(%up) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
