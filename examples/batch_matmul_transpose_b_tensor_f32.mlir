// Scaled attention scores with a transposed operand (Q K^T), batched over 8
// heads, on tensors (f32):
//   S[h] (96x80) = (Q[h] (96x40) * K[h]^T) / sqrt(40),   K[h]: 80x40,  h = 0..7
// The kernel @attn_scores is one linalg.batch_matmul_transpose_b (K is kept
// row-major per key, as attention stores it, so the reduction runs along the
// contiguous dimension of both operands) and one linalg.generic for the
// 1/sqrt(d) scale. @main builds inputs with linalg.index (the head index
// changes the pattern):
//   Q[h,i,d] = (((h+1)*i + 5d) mod 13 - 6) * 0.125
//   K[h,j,d] = ((3j + (h+2)*d) mod 11 - 4) * 0.25
// The 8x96x80 result is too big to print whole, so @main prints
//   1) the row sums R[h,i] = sum_j S[h,i,j]   (8x96)
//   2) the slice S[5, 0:4, :]                  (4x80)

func.func @attn_scores(%Q: tensor<8x96x40xf32>, %K: tensor<8x80x40xf32>) -> tensor<8x96x80xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.15811388 : f32
  %e0 = tensor.empty() : tensor<8x96x80xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e0 : tensor<8x96x80xf32>) -> tensor<8x96x80xf32>
  %qk = linalg.batch_matmul_transpose_b ins(%Q, %K : tensor<8x96x40xf32>, tensor<8x80x40xf32>)
                                        outs(%acc : tensor<8x96x80xf32>) -> tensor<8x96x80xf32>
  %S = linalg.generic {indexing_maps = [affine_map<(h, i, j) -> (h, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%qk : tensor<8x96x80xf32>) {
  ^bb0(%v: f32):
    %r = arith.mulf %v, %scale : f32
    linalg.yield %r : f32
  } -> tensor<8x96x80xf32>
  return %S : tensor<8x96x80xf32>
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c11 = arith.constant 11 : index
  %c13 = arith.constant 13 : index
  %f4 = arith.constant 4.0 : f32
  %f6 = arith.constant 6.0 : f32
  %eighth = arith.constant 0.125 : f32
  %quarter = arith.constant 0.25 : f32
  %zero = arith.constant 0.0 : f32

  %eq = tensor.empty() : tensor<8x96x40xf32>
  %Q = linalg.generic {indexing_maps = [affine_map<(h, i, d) -> (h, i, d)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%eq : tensor<8x96x40xf32>) {
  ^bb0(%out: f32):
    %h = linalg.index 0 : index
    %i = linalg.index 1 : index
    %d = linalg.index 2 : index
    %h1 = arith.addi %h, %c1 : index
    %t0 = arith.muli %h1, %i : index
    %t1 = arith.muli %d, %c5 : index
    %t2 = arith.addi %t0, %t1 : index
    %t3 = arith.remui %t2, %c13 : index
    %t4 = arith.index_cast %t3 : index to i32
    %t5 = arith.sitofp %t4 : i32 to f32
    %t6 = arith.subf %t5, %f6 : f32
    %t7 = arith.mulf %t6, %eighth : f32
    linalg.yield %t7 : f32
  } -> tensor<8x96x40xf32>

  %ek = tensor.empty() : tensor<8x80x40xf32>
  %K = linalg.generic {indexing_maps = [affine_map<(h, j, d) -> (h, j, d)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%ek : tensor<8x80x40xf32>) {
  ^bb0(%out: f32):
    %h = linalg.index 0 : index
    %j = linalg.index 1 : index
    %d = linalg.index 2 : index
    %h2 = arith.addi %h, %c2 : index
    %t0 = arith.muli %j, %c3 : index
    %t1 = arith.muli %h2, %d : index
    %t2 = arith.addi %t0, %t1 : index
    %t3 = arith.remui %t2, %c11 : index
    %t4 = arith.index_cast %t3 : index to i32
    %t5 = arith.sitofp %t4 : i32 to f32
    %t6 = arith.subf %t5, %f4 : f32
    %t7 = arith.mulf %t6, %quarter : f32
    linalg.yield %t7 : f32
  } -> tensor<8x80x40xf32>

  %S = call @attn_scores(%Q, %K) : (tensor<8x96x40xf32>, tensor<8x80x40xf32>) -> tensor<8x96x80xf32>

  %er = tensor.empty() : tensor<8x96xf32>
  %r0 = linalg.fill ins(%zero : f32) outs(%er : tensor<8x96xf32>) -> tensor<8x96xf32>
  %R = linalg.generic {indexing_maps = [affine_map<(h, i, j) -> (h, i, j)>,
                                        affine_map<(h, i, j) -> (h, i)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%S : tensor<8x96x80xf32>) outs(%r0 : tensor<8x96xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<8x96xf32>
  %mr = bufferization.to_memref %R : memref<8x96xf32>
  %ur = memref.cast %mr : memref<8x96xf32> to memref<*xf32>
  call @printMemrefF32(%ur) : (memref<*xf32>) -> ()

  %slice = tensor.extract_slice %S[5, 0, 0] [1, 4, 80] [1, 1, 1]
      : tensor<8x96x80xf32> to tensor<4x80xf32>
  %mc = bufferization.to_memref %slice : memref<4x80xf32>
  %uc = memref.cast %mc : memref<4x80xf32> to memref<*xf32>
  call @printMemrefF32(%uc) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
