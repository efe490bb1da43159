// MobileNet-style depthwise convolution block on tensors (NHWC input, HWC filter):
//   out[1x18x18x16] = relu6(depthwise_conv_2d_nhwc_hwc(in[1x20x20x16], K[3x3x16]))
// Each of the 16 channels is convolved with its own 3x3 filter (unit strides
// and dilations, no padding); ReLU6 is clamp(x, 0, 6) with arith.maximumf /
// arith.minimumf in a linalg.generic. @main builds inputs with linalg.index:
//   in[n,h,w,c] = ((2h + 5w + 3c) mod 11 - 5) * 0.5
//   K[kh,kw,c]  = ((kh + 2kw + c) mod 5 - 1) * 0.25
// and prints 1) per-channel sums over (h,w) (16 values) and 2) the 18x16
// (w,c) row out[0,7,:,:].

func.func @depthwise_block(%in: tensor<1x20x20x16xf32>, %K: tensor<3x3x16xf32>) -> tensor<1x18x18x16xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %init = tensor.empty() : tensor<1x18x18x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<1x18x18x16xf32>) -> tensor<1x18x18x16xf32>
  %dw = linalg.depthwise_conv_2d_nhwc_hwc
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %K : tensor<1x20x20x16xf32>, tensor<3x3x16xf32>)
      outs(%acc : tensor<1x18x18x16xf32>) -> tensor<1x18x18x16xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%dw : tensor<1x18x18x16xf32>) {
  ^bb0(%x: f32):
    %lo = arith.maximumf %x, %zero : f32
    %r = arith.minimumf %lo, %six : f32
    linalg.yield %r : f32
  } -> tensor<1x18x18x16xf32>
  return %out : tensor<1x18x18x16xf32>
}

func.func @main() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c11 = arith.constant 11 : index
  %f1 = arith.constant 1.0 : f32
  %f5 = arith.constant 5.0 : f32
  %half = arith.constant 0.5 : f32
  %quarter = arith.constant 0.25 : f32
  %zero = arith.constant 0.0 : f32

  %ei = tensor.empty() : tensor<1x20x20x16xf32>
  %in = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%ei : tensor<1x20x20x16xf32>) {
  ^bb0(%o: f32):
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %c = linalg.index 3 : index
    %t0 = arith.muli %h, %c2 : index
    %t1 = arith.muli %w, %c5 : index
    %t2 = arith.muli %c, %c3 : index
    %t3 = arith.addi %t0, %t1 : index
    %t4 = arith.addi %t3, %t2 : index
    %t5 = arith.remui %t4, %c11 : index
    %t6 = arith.index_cast %t5 : index to i32
    %t7 = arith.sitofp %t6 : i32 to f32
    %t8 = arith.subf %t7, %f5 : f32
    %t9 = arith.mulf %t8, %half : f32
    linalg.yield %t9 : f32
  } -> tensor<1x20x20x16xf32>

  %ek = tensor.empty() : tensor<3x3x16xf32>
  %K = linalg.generic {indexing_maps = [affine_map<(kh, kw, c) -> (kh, kw, c)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%ek : tensor<3x3x16xf32>) {
  ^bb0(%o: f32):
    %kh = linalg.index 0 : index
    %kw = linalg.index 1 : index
    %c = linalg.index 2 : index
    %t0 = arith.muli %kw, %c2 : index
    %t1 = arith.addi %kh, %t0 : index
    %t2 = arith.addi %t1, %c : index
    %t3 = arith.remui %t2, %c5 : index
    %t4 = arith.index_cast %t3 : index to i32
    %t5 = arith.sitofp %t4 : i32 to f32
    %t6 = arith.subf %t5, %f1 : f32
    %t7 = arith.mulf %t6, %quarter : f32
    linalg.yield %t7 : f32
  } -> tensor<3x3x16xf32>

  %out = call @depthwise_block(%in, %K)
      : (tensor<1x20x20x16xf32>, tensor<3x3x16xf32>) -> tensor<1x18x18x16xf32>

  %es = tensor.empty() : tensor<16xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%es : tensor<16xf32>) -> tensor<16xf32>
  %S = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>,
                                        affine_map<(n, h, w, c) -> (c)>],
                       iterator_types = ["reduction", "reduction", "reduction", "parallel"]}
      ins(%out : tensor<1x18x18x16xf32>) outs(%s0 : tensor<16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %ms = bufferization.to_memref %S : memref<16xf32>
  %us = memref.cast %ms : memref<16xf32> to memref<*xf32>
  call @printMemrefF32(%us) : (memref<*xf32>) -> ()

  %row = tensor.extract_slice %out[0, 7, 0, 0] [1, 1, 18, 16] [1, 1, 1, 1]
      : tensor<1x18x18x16xf32> to tensor<18x16xf32>
  %mr = bufferization.to_memref %row : memref<18x16xf32>
  %ur = memref.cast %mr : memref<18x16xf32> to memref<*xf32>
  call @printMemrefF32(%ur) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
