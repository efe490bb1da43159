// Layer normalization over the last dimension, on memrefs (math.rsqrt):
//   mu[i]  = mean_j x[i,j]
//   var[i] = mean_j (x[i,j] - mu[i])^2
//   y[i,j] = (x[i,j] - mu[i]) * rsqrt(var[i] + 1e-5) * gamma[j] + beta[j]
// for x of shape 16x64. The kernel @layernorm writes into a caller-provided
// output buffer and uses two temporary memref.alloc buffers for the statistics;
// every step is a linalg.generic (two reductions, one elementwise with
// math.rsqrt, which convert-math-to-llvm expands to 1/sqrt). @main fills
//   x[i,j]   = ((7i + 5j) mod 23) * 0.5 + i     (row i has a different offset)
//   gamma[j] = 1 + (j mod 4) * 0.25
//   beta[j]  = ((j mod 3) - 1) * 0.5
// and prints y[:, 0:8] (16x8) through a strided memref.subview.

func.func @layernorm(%x: memref<16x64xf32>, %gamma: memref<64xf32>, %beta: memref<64xf32>,
                     %y: memref<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %inv_n = arith.constant 0.015625 : f32
  %eps = arith.constant 1.0e-5 : f32
  %mean = memref.alloc() : memref<16xf32>
  %var = memref.alloc() : memref<16xf32>

  linalg.fill ins(%zero : f32) outs(%mean : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x64xf32>) outs(%mean : memref<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.mulf %v, %inv_n : f32
    %r = arith.addf %acc, %s : f32
    linalg.yield %r : f32
  }

  linalg.fill ins(%zero : f32) outs(%var : memref<16xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>,
                                   affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : memref<16x64xf32>, memref<16xf32>) outs(%var : memref<16xf32>) {
  ^bb0(%v: f32, %m: f32, %acc: f32):
    %d = arith.subf %v, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.mulf %d2, %inv_n : f32
    %r = arith.addf %acc, %s : f32
    linalg.yield %r : f32
  }

  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>,
                                   affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>,
                                   affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %var, %gamma, %beta
          : memref<16x64xf32>, memref<16xf32>, memref<16xf32>, memref<64xf32>, memref<64xf32>)
      outs(%y : memref<16x64xf32>) {
  ^bb0(%v: f32, %m: f32, %s2: f32, %g: f32, %b: f32, %o: f32):
    %d = arith.subf %v, %m : f32
    %ve = arith.addf %s2, %eps : f32
    %inv = math.rsqrt %ve : f32
    %n = arith.mulf %d, %inv : f32
    %sc = arith.mulf %n, %g : f32
    %r = arith.addf %sc, %b : f32
    linalg.yield %r : f32
  }

  memref.dealloc %mean : memref<16xf32>
  memref.dealloc %var : memref<16xf32>
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c23 = arith.constant 23 : index
  %half = arith.constant 0.5 : f32
  %quarter = arith.constant 0.25 : f32
  %one = arith.constant 1.0 : f32

  %x = memref.alloc() : memref<16x64xf32>
  %gamma = memref.alloc() : memref<64xf32>
  %beta = memref.alloc() : memref<64xf32>
  %y = memref.alloc() : memref<16x64xf32>

  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%x : memref<16x64xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %t0 = arith.muli %i, %c7 : index
    %t1 = arith.muli %j, %c5 : index
    %t2 = arith.addi %t0, %t1 : index
    %t3 = arith.remui %t2, %c23 : index
    %t4 = arith.index_cast %t3 : index to i32
    %t5 = arith.sitofp %t4 : i32 to f32
    %t6 = arith.mulf %t5, %half : f32
    %ii = arith.index_cast %i : index to i32
    %if = arith.sitofp %ii : i32 to f32
    %t7 = arith.addf %t6, %if : f32
    linalg.yield %t7 : f32
  }

  linalg.generic {indexing_maps = [affine_map<(j) -> (j)>, affine_map<(j) -> (j)>],
                  iterator_types = ["parallel"]}
      outs(%gamma, %beta : memref<64xf32>, memref<64xf32>) {
  ^bb0(%og: f32, %ob: f32):
    %j = linalg.index 0 : index
    %g0 = arith.remui %j, %c4 : index
    %g1 = arith.index_cast %g0 : index to i32
    %g2 = arith.sitofp %g1 : i32 to f32
    %g3 = arith.mulf %g2, %quarter : f32
    %g4 = arith.addf %g3, %one : f32
    %b0 = arith.remui %j, %c3 : index
    %b1 = arith.index_cast %b0 : index to i32
    %b2 = arith.sitofp %b1 : i32 to f32
    %b3 = arith.subf %b2, %one : f32
    %b4 = arith.mulf %b3, %half : f32
    linalg.yield %g4, %b4 : f32, f32
  }

  call @layernorm(%x, %gamma, %beta, %y)
      : (memref<16x64xf32>, memref<64xf32>, memref<64xf32>, memref<16x64xf32>) -> ()

  %cols = memref.subview %y[0, 0] [16, 8] [1, 1]
      : memref<16x64xf32> to memref<16x8xf32, strided<[64, 1]>>
  %u = memref.cast %cols : memref<16x8xf32, strided<[64, 1]>> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()

  memref.dealloc %x : memref<16x64xf32>
  memref.dealloc %gamma : memref<64xf32>
  memref.dealloc %beta : memref<64xf32>
  memref.dealloc %y : memref<16x64xf32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
