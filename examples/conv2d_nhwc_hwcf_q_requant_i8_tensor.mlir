// Quantized int8 convolution layer (TFLite-style) on tensors, NHWC / HWCF:
//   acc[1x28x28x32] (i32) = conv_2d_nhwc_hwcf_q(in[1x30x30x16] (i8), W[3x3x16x32] (i8),
//                                              in_zp = -5, w_zp = 1)
//   out = clamp(((acc + bias[f]) * 350 + 2^19) >> 20 + 2, -128, 127)   (i8)
// linalg.conv_2d_nhwc_hwcf_q sign-extends both i8 operands, subtracts the
// zero points and accumulates in i32 (3x3 window, unit strides, no padding).
// The requantization generic adds the i32 bias and applies a fixed-point
// multiplier (scale 350 / 2^20) with rounding in i64 (arith.shrsi), adds the
// output zero point and saturates to i8 (about 3% of the outputs saturate).
// All arithmetic is integer, so any loop order gives the same bits. @main
// builds inputs covering the signed i8 range:
//   in[n,h,w,c]  = trunc_i8((11h + 7w + 29c + 3) mod 256)
//   W[kh,kw,c,f] = trunc_i8((3kh + 5kw + 13c + 17f) mod 256)
//   bias[f]      = (37f mod 101 - 50) * 64
// and prints two i32 checksums of the i8 output: 1) per output channel,
// C[f] = sum_{h,w} out[0,h,w,f] (32 values), and 2) per output row,
// R[h] = sum_{w,f} (w + 1) * out[0,h,w,f] (28 values).

func.func @qconv_requant(%in: tensor<1x30x30x16xi8>, %W: tensor<3x3x16x32xi8>,
                         %bias: tensor<32xi32>) -> tensor<1x28x28x32xi8> {
  %zero = arith.constant 0 : i32
  %izp = arith.constant -5 : i32
  %wzp = arith.constant 1 : i32
  %mult = arith.constant 350 : i64
  %round = arith.constant 524288 : i64
  %shift = arith.constant 20 : i64
  %ozp = arith.constant 2 : i32
  %lo = arith.constant -128 : i32
  %hi = arith.constant 127 : i32
  %e0 = tensor.empty() : tensor<1x28x28x32xi32>
  %a0 = linalg.fill ins(%zero : i32) outs(%e0 : tensor<1x28x28x32xi32>) -> tensor<1x28x28x32xi32>
  %acc = linalg.conv_2d_nhwc_hwcf_q
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %W, %izp, %wzp : tensor<1x30x30x16xi8>, tensor<3x3x16x32xi8>, i32, i32)
      outs(%a0 : tensor<1x28x28x32xi32>) -> tensor<1x28x28x32xi32>
  %e1 = tensor.empty() : tensor<1x28x28x32xi8>
  %out = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>,
                                          affine_map<(n, h, w, f) -> (f)>,
                                          affine_map<(n, h, w, f) -> (n, h, w, f)>],
                         iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %bias : tensor<1x28x28x32xi32>, tensor<32xi32>)
      outs(%e1 : tensor<1x28x28x32xi8>) {
  ^bb0(%a: i32, %b: i32, %o: i8):
    %v = arith.addi %a, %b : i32
    %v64 = arith.extsi %v : i32 to i64
    %p = arith.muli %v64, %mult : i64
    %pr = arith.addi %p, %round : i64
    %q64 = arith.shrsi %pr, %shift : i64
    %q = arith.trunci %q64 : i64 to i32
    %qz = arith.addi %q, %ozp : i32
    %c0 = arith.maxsi %qz, %lo : i32
    %c1 = arith.minsi %c0, %hi : i32
    %r = arith.trunci %c1 : i32 to i8
    linalg.yield %r : i8
  } -> tensor<1x28x28x32xi8>
  return %out : tensor<1x28x28x32xi8>
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c13 = arith.constant 13 : index
  %c17 = arith.constant 17 : index
  %c29 = arith.constant 29 : index
  %c37 = arith.constant 37 : index
  %c101 = arith.constant 101 : index
  %c256 = arith.constant 256 : index
  %i50 = arith.constant 50 : i32
  %i64 = arith.constant 64 : i32
  %zero = arith.constant 0 : i32

  %ei = tensor.empty() : tensor<1x30x30x16xi8>
  %in = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%ei : tensor<1x30x30x16xi8>) {
  ^bb0(%o: i8):
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %c = linalg.index 3 : index
    %t0 = arith.muli %h, %c11 : index
    %t1 = arith.muli %w, %c7 : index
    %t2 = arith.muli %c, %c29 : index
    %t3 = arith.addi %t0, %t1 : index
    %t4 = arith.addi %t3, %t2 : index
    %t5 = arith.addi %t4, %c3 : index
    %t6 = arith.remui %t5, %c256 : index
    %t7 = arith.index_cast %t6 : index to i8
    linalg.yield %t7 : i8
  } -> tensor<1x30x30x16xi8>

  %ew = tensor.empty() : tensor<3x3x16x32xi8>
  %W = linalg.generic {indexing_maps = [affine_map<(kh, kw, c, f) -> (kh, kw, c, f)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%ew : tensor<3x3x16x32xi8>) {
  ^bb0(%o: i8):
    %kh = linalg.index 0 : index
    %kw = linalg.index 1 : index
    %c = linalg.index 2 : index
    %f = linalg.index 3 : index
    %t0 = arith.muli %kh, %c3 : index
    %t1 = arith.muli %kw, %c5 : index
    %t2 = arith.muli %c, %c13 : index
    %t3 = arith.muli %f, %c17 : index
    %t4 = arith.addi %t0, %t1 : index
    %t5 = arith.addi %t4, %t2 : index
    %t6 = arith.addi %t5, %t3 : index
    %t7 = arith.remui %t6, %c256 : index
    %t8 = arith.index_cast %t7 : index to i8
    linalg.yield %t8 : i8
  } -> tensor<3x3x16x32xi8>

  %eb = tensor.empty() : tensor<32xi32>
  %bias = linalg.generic {indexing_maps = [affine_map<(f) -> (f)>],
                          iterator_types = ["parallel"]}
      outs(%eb : tensor<32xi32>) {
  ^bb0(%o: i32):
    %f = linalg.index 0 : index
    %t0 = arith.muli %f, %c37 : index
    %t1 = arith.remui %t0, %c101 : index
    %t2 = arith.index_cast %t1 : index to i32
    %t3 = arith.subi %t2, %i50 : i32
    %t4 = arith.muli %t3, %i64 : i32
    linalg.yield %t4 : i32
  } -> tensor<32xi32>

  %out = call @qconv_requant(%in, %W, %bias)
      : (tensor<1x30x30x16xi8>, tensor<3x3x16x32xi8>, tensor<32xi32>) -> tensor<1x28x28x32xi8>

  %ec = tensor.empty() : tensor<32xi32>
  %cs0 = linalg.fill ins(%zero : i32) outs(%ec : tensor<32xi32>) -> tensor<32xi32>
  %C = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>,
                                        affine_map<(n, h, w, f) -> (f)>],
                       iterator_types = ["reduction", "reduction", "reduction", "parallel"]}
      ins(%out : tensor<1x28x28x32xi8>) outs(%cs0 : tensor<32xi32>) {
  ^bb0(%x: i8, %acc: i32):
    %v = arith.extsi %x : i8 to i32
    %r = arith.addi %acc, %v : i32
    linalg.yield %r : i32
  } -> tensor<32xi32>
  %mc = bufferization.to_memref %C : memref<32xi32>
  %uc = memref.cast %mc : memref<32xi32> to memref<*xi32>
  call @printMemrefI32(%uc) : (memref<*xi32>) -> ()

  %er = tensor.empty() : tensor<28xi32>
  %rs0 = linalg.fill ins(%zero : i32) outs(%er : tensor<28xi32>) -> tensor<28xi32>
  %R = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>,
                                        affine_map<(n, h, w, f) -> (h)>],
                       iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%out : tensor<1x28x28x32xi8>) outs(%rs0 : tensor<28xi32>) {
  ^bb0(%x: i8, %acc: i32):
    %w = linalg.index 2 : index
    %w1 = arith.addi %w, %c1 : index
    %wi = arith.index_cast %w1 : index to i32
    %v = arith.extsi %x : i8 to i32
    %p = arith.muli %v, %wi : i32
    %r = arith.addi %acc, %p : i32
    linalg.yield %r : i32
  } -> tensor<28xi32>
  %mr = bufferization.to_memref %R : memref<28xi32>
  %ur = memref.cast %mr : memref<28xi32> to memref<*xi32>
  call @printMemrefI32(%ur) : (memref<*xi32>) -> ()
  return
}

func.func private @printMemrefI32(memref<*xi32>)
