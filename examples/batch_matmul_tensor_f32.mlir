// Batched single-precision matrix multiplication on tensors (e.g. the per-head
// score computation of multi-head attention):
//   C[b] (16x24) = A[b] (16x32) * B[b] (32x24),  b = 0..3
// The kernel @forward is one linalg.batch_matmul. @main builds inputs with
// linalg.index (the batch index changes the pattern):
//   A[b,i,k] = (((b+1)*i + 3k) mod 11 - 5) * 0.125
//   B[b,k,j] = ((5k + (b+2)*j) mod 13 - 6) * 0.25
// The 4x16x24 result is too big to print whole, so @main prints
//   1) the row sums S[b,i] = sum_j C[b,i,j]   (4x16, via a linalg.generic reduction)
//   2) the slice C[1, 0:4, :]                  (4x24, via tensor.extract_slice)

func.func @forward(%A: tensor<4x16x32xf32>, %B: tensor<4x32x24xf32>) -> tensor<4x16x24xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x16x24xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %C = linalg.batch_matmul ins(%A, %B : tensor<4x16x32xf32>, tensor<4x32x24xf32>)
                           outs(%acc : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  return %C : tensor<4x16x24xf32>
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c11 = arith.constant 11 : index
  %c13 = arith.constant 13 : index
  %f5 = arith.constant 5.0 : f32
  %f6 = arith.constant 6.0 : f32
  %eighth = arith.constant 0.125 : f32
  %quarter = arith.constant 0.25 : f32
  %zero = arith.constant 0.0 : f32

  %ea = tensor.empty() : tensor<4x16x32xf32>
  %A = linalg.generic {indexing_maps = [affine_map<(b, i, k) -> (b, i, k)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%ea : tensor<4x16x32xf32>) {
  ^bb0(%out: f32):
    %b = linalg.index 0 : index
    %i = linalg.index 1 : index
    %k = linalg.index 2 : index
    %b1 = arith.addi %b, %c1 : index
    %t0 = arith.muli %b1, %i : index
    %t1 = arith.muli %k, %c3 : index
    %t2 = arith.addi %t0, %t1 : index
    %t3 = arith.remui %t2, %c11 : index
    %t4 = arith.index_cast %t3 : index to i32
    %t5 = arith.sitofp %t4 : i32 to f32
    %t6 = arith.subf %t5, %f5 : f32
    %t7 = arith.mulf %t6, %eighth : f32
    linalg.yield %t7 : f32
  } -> tensor<4x16x32xf32>

  %eb = tensor.empty() : tensor<4x32x24xf32>
  %B = linalg.generic {indexing_maps = [affine_map<(b, k, j) -> (b, k, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%eb : tensor<4x32x24xf32>) {
  ^bb0(%out: f32):
    %b = linalg.index 0 : index
    %k = linalg.index 1 : index
    %j = linalg.index 2 : index
    %b2 = arith.addi %b, %c2 : index
    %t0 = arith.muli %k, %c5 : index
    %t1 = arith.muli %b2, %j : index
    %t2 = arith.addi %t0, %t1 : index
    %t3 = arith.remui %t2, %c13 : index
    %t4 = arith.index_cast %t3 : index to i32
    %t5 = arith.sitofp %t4 : i32 to f32
    %t6 = arith.subf %t5, %f6 : f32
    %t7 = arith.mulf %t6, %quarter : f32
    linalg.yield %t7 : f32
  } -> tensor<4x32x24xf32>

  %C = call @forward(%A, %B) : (tensor<4x16x32xf32>, tensor<4x32x24xf32>) -> tensor<4x16x24xf32>

  // Row sums over j.
  %es = tensor.empty() : tensor<4x16xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%es : tensor<4x16xf32>) -> tensor<4x16xf32>
  %S = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>,
                                        affine_map<(b, i, j) -> (b, i)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%C : tensor<4x16x24xf32>) outs(%s0 : tensor<4x16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>

  %ms = bufferization.to_memref %S : memref<4x16xf32>
  %us = memref.cast %ms : memref<4x16xf32> to memref<*xf32>
  call @printMemrefF32(%us) : (memref<*xf32>) -> ()

  %slice = tensor.extract_slice %C[1, 0, 0] [1, 4, 24] [1, 1, 1]
      : tensor<4x16x24xf32> to tensor<4x24xf32>
  %mc = bufferization.to_memref %slice : memref<4x24xf32>
  %uc = memref.cast %mc : memref<4x24xf32> to memref<*xf32>
  call @printMemrefF32(%uc) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
