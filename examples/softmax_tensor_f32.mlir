// Numerically stable row-wise softmax on tensors (math.exp in a linalg.generic):
//   y[i,j] = exp(x[i,j] - max_j x[i,:]) / sum_j exp(x[i,j] - max_j x[i,:])
// for x of shape 16x32. The kernel @softmax is four linalg.generic ops: a max
// reduction (init -inf, arith.maximumf), an elementwise exp of the shifted
// logits, a sum reduction, and a broadcast division. @main builds
//   x[i,j] = ((3i + 7j) mod 17 - 8) * 0.3 * (1 + (i mod 3))
// (so rows have different temperatures) and prints 1) the 8x8 top-left block
// of y and 2) the 16 row sums of y (each should be 1 up to rounding).

func.func @softmax(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32

  %e1 = tensor.empty() : tensor<16xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<16xf32>) -> tensor<16xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                          affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x32xf32>) outs(%m0 : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %acc, %v : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>

  %e2 = tensor.empty() : tensor<16x32xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                         affine_map<(i, j) -> (i)>,
                                         affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<16x32xf32>, tensor<16xf32>) outs(%e2 : tensor<16x32xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %d = arith.subf %v, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<16x32xf32>

  %e3 = tensor.empty() : tensor<16xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                          affine_map<(i, j) -> (i)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<16x32xf32>) outs(%s0 : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %acc, %v : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>

  %e4 = tensor.empty() : tensor<16x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<16x32xf32>, tensor<16xf32>) outs(%e4 : tensor<16x32xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %r = arith.divf %v, %s : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c17 = arith.constant 17 : index
  %f8 = arith.constant 8.0 : f32
  %scale = arith.constant 0.3 : f32
  %zero = arith.constant 0.0 : f32

  %ex = tensor.empty() : tensor<16x32xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%ex : tensor<16x32xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %t0 = arith.muli %i, %c3 : index
    %t1 = arith.muli %j, %c7 : index
    %t2 = arith.addi %t0, %t1 : index
    %t3 = arith.remui %t2, %c17 : index
    %t4 = arith.index_cast %t3 : index to i32
    %t5 = arith.sitofp %t4 : i32 to f32
    %t6 = arith.subf %t5, %f8 : f32
    %t7 = arith.mulf %t6, %scale : f32
    %k0 = arith.remui %i, %c3 : index
    %k1 = arith.addi %k0, %c1 : index
    %k2 = arith.index_cast %k1 : index to i32
    %k3 = arith.sitofp %k2 : i32 to f32
    %t8 = arith.mulf %t7, %k3 : f32
    linalg.yield %t8 : f32
  } -> tensor<16x32xf32>

  %y = call @softmax(%x) : (tensor<16x32xf32>) -> tensor<16x32xf32>

  %blk = tensor.extract_slice %y[0, 0] [8, 8] [1, 1] : tensor<16x32xf32> to tensor<8x8xf32>
  %mb = bufferization.to_memref %blk : memref<8x8xf32>
  %ub = memref.cast %mb : memref<8x8xf32> to memref<*xf32>
  call @printMemrefF32(%ub) : (memref<*xf32>) -> ()

  %es = tensor.empty() : tensor<16xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%es : tensor<16xf32>) -> tensor<16xf32>
  %rs = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                         affine_map<(i, j) -> (i)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<16x32xf32>) outs(%s0 : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %acc, %v : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %ms = bufferization.to_memref %rs : memref<16xf32>
  %us = memref.cast %ms : memref<16xf32> to memref<*xf32>
  call @printMemrefF32(%us) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
