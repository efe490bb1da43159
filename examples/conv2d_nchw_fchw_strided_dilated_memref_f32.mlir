// Strided, dilated 2-D convolution on memrefs, channels-first (NCHW / FCHW):
//   out[2x8x9x9] = conv_2d_nchw_fchw(in[2x4x21x21], F[8x4x3x3]),
//   strides = 2, dilations = 2, no padding
// (output size = (21 - 2*(3-1) - 1) / 2 + 1 = 9). The kernel @conv_s2_d2 works
// on buffers: it zeroes the output with linalg.fill and accumulates with
// linalg.conv_2d_nchw_fchw. @main fills the inputs with linalg.index patterns
//   in[n,c,h,w]  = ((3n + 5c + (n+2)h + 7w) mod 17 - 8) * 0.0625
//   F[f,c,kh,kw] = ((4f + 2c + 5kh + kw) mod 11 - 5) * 0.25
// and prints 1) per-(n,f) sums over (h,w) (2x8, a linalg.generic reduction on
// memrefs) and 2) the 9x9 plane out[1,3,:,:] through a strided memref.subview.

func.func @conv_s2_d2(%in: memref<2x4x21x21xf32>, %F: memref<8x4x3x3xf32>,
                      %out: memref<2x8x9x9xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<2x8x9x9xf32>)
  linalg.conv_2d_nchw_fchw
      {dilations = dense<2> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %F : memref<2x4x21x21xf32>, memref<8x4x3x3xf32>)
      outs(%out : memref<2x8x9x9xf32>)
  return
}

func.func @main() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c4 = arith.constant 4 : index
  %c11 = arith.constant 11 : index
  %c17 = arith.constant 17 : index
  %f5 = arith.constant 5.0 : f32
  %f8 = arith.constant 8.0 : f32
  %sixteenth = arith.constant 0.0625 : f32
  %quarter = arith.constant 0.25 : f32
  %zero = arith.constant 0.0 : f32

  %in = memref.alloc() : memref<2x4x21x21xf32>
  %F = memref.alloc() : memref<8x4x3x3xf32>
  %out = memref.alloc() : memref<2x8x9x9xf32>
  %sums = memref.alloc() : memref<2x8xf32>

  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%in : memref<2x4x21x21xf32>) {
  ^bb0(%o: f32):
    %n = linalg.index 0 : index
    %c = linalg.index 1 : index
    %h = linalg.index 2 : index
    %w = linalg.index 3 : index
    %t0 = arith.muli %n, %c3 : index
    %t1 = arith.muli %c, %c5 : index
    %n2 = arith.addi %n, %c2 : index
    %t2 = arith.muli %h, %n2 : index
    %t3 = arith.muli %w, %c7 : index
    %t4 = arith.addi %t0, %t1 : index
    %t5 = arith.addi %t2, %t3 : index
    %t6 = arith.addi %t4, %t5 : index
    %t7 = arith.remui %t6, %c17 : index
    %t8 = arith.index_cast %t7 : index to i32
    %t9 = arith.sitofp %t8 : i32 to f32
    %t10 = arith.subf %t9, %f8 : f32
    %t11 = arith.mulf %t10, %sixteenth : f32
    linalg.yield %t11 : f32
  }

  linalg.generic {indexing_maps = [affine_map<(f, c, kh, kw) -> (f, c, kh, kw)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%F : memref<8x4x3x3xf32>) {
  ^bb0(%o: f32):
    %f = linalg.index 0 : index
    %c = linalg.index 1 : index
    %kh = linalg.index 2 : index
    %kw = linalg.index 3 : index
    %t0 = arith.muli %f, %c4 : index
    %t1 = arith.muli %c, %c2 : index
    %t2 = arith.muli %kh, %c5 : index
    %t4 = arith.addi %t0, %t1 : index
    %t5 = arith.addi %t2, %kw : index
    %t6 = arith.addi %t4, %t5 : index
    %t7 = arith.remui %t6, %c11 : index
    %t8 = arith.index_cast %t7 : index to i32
    %t9 = arith.sitofp %t8 : i32 to f32
    %t10 = arith.subf %t9, %f5 : f32
    %t11 = arith.mulf %t10, %quarter : f32
    linalg.yield %t11 : f32
  }

  call @conv_s2_d2(%in, %F, %out)
      : (memref<2x4x21x21xf32>, memref<8x4x3x3xf32>, memref<2x8x9x9xf32>) -> ()

  // Per-(n, f) sums over the output plane.
  linalg.fill ins(%zero : f32) outs(%sums : memref<2x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, f, h, w) -> (n, f, h, w)>,
                                   affine_map<(n, f, h, w) -> (n, f)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%out : memref<2x8x9x9xf32>) outs(%sums : memref<2x8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  }
  %us = memref.cast %sums : memref<2x8xf32> to memref<*xf32>
  call @printMemrefF32(%us) : (memref<*xf32>) -> ()

  // Plane out[1, 3, :, :] (offset = 1*8*81 + 3*81 = 891).
  %plane = memref.subview %out[1, 3, 0, 0] [1, 1, 9, 9] [1, 1, 1, 1]
      : memref<2x8x9x9xf32> to memref<9x9xf32, strided<[9, 1], offset: 891>>
  %up = memref.cast %plane : memref<9x9xf32, strided<[9, 1], offset: 891>> to memref<*xf32>
  call @printMemrefF32(%up) : (memref<*xf32>) -> ()

  memref.dealloc %in : memref<2x4x21x21xf32>
  memref.dealloc %F : memref<8x4x3x3xf32>
  memref.dealloc %out : memref<2x8x9x9xf32>
  memref.dealloc %sums : memref<2x8xf32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
