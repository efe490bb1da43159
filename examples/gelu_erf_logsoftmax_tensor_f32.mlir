// Elementwise chain of transcendental functions on tensors: exact (erf) GELU
// followed by a row-wise log-softmax (a classifier head), f32:
//   g[i,j]   = 0.5 * x[i,j] * (1 + erf(x[i,j] / sqrt(2)))        x: 96x200
//   m[i]     = max_j g[i,j]
//   lse[i]   = m[i] + log(sum_j exp(g[i,j] - m[i]))
//   y[i,j]   = g[i,j] - lse[i]
// The kernel @gelu_logsoftmax is four linalg.generic ops: the GELU (math.erf,
// which lowers to the libm call erff), a max reduction, a sum of math.exp
// reduction, and the subtraction of m + math.log(sum). @main builds
//   x[i,j] = ((7i + 3j) mod 29 - 14) * 0.25   (-3.5 .. 3.5)
// and prints 1) the row sums sum_j y[i,j] (96 values) and 2) the slice
// y[0:16, 0:12].

func.func @gelu_logsoftmax(%x: tensor<96x200xf32>) -> tensor<96x200xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.70710678 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<96x200xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<96x200xf32>) outs(%e0 : tensor<96x200xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t0 = arith.mulf %v, %rsqrt2 : f32
    %t1 = math.erf %t0 : f32
    %t2 = arith.addf %t1, %one : f32
    %t3 = arith.mulf %v, %half : f32
    %r = arith.mulf %t3, %t2 : f32
    linalg.yield %r : f32
  } -> tensor<96x200xf32>

  %e1 = tensor.empty() : tensor<96xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<96xf32>) -> tensor<96xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%g : tensor<96x200xf32>) outs(%m0 : tensor<96xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %acc, %v : f32
    linalg.yield %r : f32
  } -> tensor<96xf32>

  %e2 = tensor.empty() : tensor<96xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<96xf32>) -> tensor<96xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i)>,
                                        affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%g, %m : tensor<96x200xf32>, tensor<96xf32>) outs(%s0 : tensor<96xf32>) {
  ^bb0(%v: f32, %mv: f32, %acc: f32):
    %d = arith.subf %v, %mv : f32
    %e = math.exp %d : f32
    %r = arith.addf %acc, %e : f32
    linalg.yield %r : f32
  } -> tensor<96xf32>

  %e3 = tensor.empty() : tensor<96x200xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i)>,
                                        affine_map<(i, j) -> (i)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%g, %m, %s : tensor<96x200xf32>, tensor<96xf32>, tensor<96xf32>)
      outs(%e3 : tensor<96x200xf32>) {
  ^bb0(%v: f32, %mv: f32, %sv: f32, %o: f32):
    %l = math.log %sv : f32
    %lse = arith.addf %mv, %l : f32
    %r = arith.subf %v, %lse : f32
    linalg.yield %r : f32
  } -> tensor<96x200xf32>
  return %y : tensor<96x200xf32>
}

func.func @main() {
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c29 = arith.constant 29 : index
  %f14 = arith.constant 14.0 : f32
  %quarter = arith.constant 0.25 : f32
  %zero = arith.constant 0.0 : f32

  %ex = tensor.empty() : tensor<96x200xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%ex : tensor<96x200xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %t0 = arith.muli %i, %c7 : index
    %t1 = arith.muli %j, %c3 : index
    %t2 = arith.addi %t0, %t1 : index
    %t3 = arith.remui %t2, %c29 : index
    %t4 = arith.index_cast %t3 : index to i32
    %t5 = arith.sitofp %t4 : i32 to f32
    %t6 = arith.subf %t5, %f14 : f32
    %t7 = arith.mulf %t6, %quarter : f32
    linalg.yield %t7 : f32
  } -> tensor<96x200xf32>

  %y = call @gelu_logsoftmax(%x) : (tensor<96x200xf32>) -> tensor<96x200xf32>

  %es = tensor.empty() : tensor<96xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%es : tensor<96xf32>) -> tensor<96xf32>
  %S = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<96x200xf32>) outs(%s0 : tensor<96xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %acc, %v : f32
    linalg.yield %r : f32
  } -> tensor<96xf32>
  %ms = bufferization.to_memref %S : memref<96xf32>
  %us = memref.cast %ms : memref<96xf32> to memref<*xf32>
  call @printMemrefF32(%us) : (memref<*xf32>) -> ()

  %slice = tensor.extract_slice %y[0, 0] [16, 12] [1, 1] : tensor<96x200xf32> to tensor<16x12xf32>
  %mc = bufferization.to_memref %slice : memref<16x12xf32>
  %uc = memref.cast %mc : memref<16x12xf32> to memref<*xf32>
  call @printMemrefF32(%uc) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
