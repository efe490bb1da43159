// Mixed-precision matrix multiplication on tensors: bf16 operands, f32
// accumulation and result (the GEMM of bf16 inference and training):
//   C[96x80] (f32) = A[96x192] (bf16) * B[192x80] (bf16)
// linalg.matmul with bf16 inputs and an f32 accumulator extends each operand
// to f32 (arith.extf) before the multiply-add. @main computes the inputs in
// f32 and rounds them to bf16 toward zero by keeping the upper 16 bits
// (arith.bitcast to i32, arith.shrui 16, arith.trunci to i16, arith.bitcast
// to bf16): integer operations only, so no soft-float conversion routine is
// needed on CPUs without native bf16 conversions.
//   A[i,k] = ((5i + 3k) mod 17 - 6) / 7
//   B[k,j] = ((k + 7j) mod 13 - 4) / 9
// and prints 1) the row sums sum_j C[i,j] (96 values) and 2) the slice
// C[8:16, 0:20].

func.func @matmul_bf16(%A: tensor<96x192xbf16>, %B: tensor<192x80xbf16>) -> tensor<96x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<96x80xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e0 : tensor<96x80xf32>) -> tensor<96x80xf32>
  %C = linalg.matmul ins(%A, %B : tensor<96x192xbf16>, tensor<192x80xbf16>)
                     outs(%acc : tensor<96x80xf32>) -> tensor<96x80xf32>
  return %C : tensor<96x80xf32>
}

func.func @main() {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c13 = arith.constant 13 : index
  %c17 = arith.constant 17 : index
  %f4 = arith.constant 4.0 : f32
  %f6 = arith.constant 6.0 : f32
  %f7 = arith.constant 7.0 : f32
  %f9 = arith.constant 9.0 : f32
  %sh = arith.constant 16 : i32
  %zero = arith.constant 0.0 : f32

  %ea = tensor.empty() : tensor<96x192xbf16>
  %A = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%ea : tensor<96x192xbf16>) {
  ^bb0(%o: bf16):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %t0 = arith.muli %i, %c5 : index
    %t1 = arith.muli %k, %c3 : index
    %t2 = arith.addi %t0, %t1 : index
    %t3 = arith.remui %t2, %c17 : index
    %t4 = arith.index_cast %t3 : index to i32
    %t5 = arith.sitofp %t4 : i32 to f32
    %t6 = arith.subf %t5, %f6 : f32
    %v = arith.divf %t6, %f7 : f32
    %bits = arith.bitcast %v : f32 to i32
    %hi = arith.shrui %bits, %sh : i32
    %h16 = arith.trunci %hi : i32 to i16
    %r = arith.bitcast %h16 : i16 to bf16
    linalg.yield %r : bf16
  } -> tensor<96x192xbf16>

  %eb = tensor.empty() : tensor<192x80xbf16>
  %B = linalg.generic {indexing_maps = [affine_map<(k, j) -> (k, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%eb : tensor<192x80xbf16>) {
  ^bb0(%o: bf16):
    %k = linalg.index 0 : index
    %j = linalg.index 1 : index
    %t0 = arith.muli %j, %c7 : index
    %t1 = arith.addi %k, %t0 : index
    %t2 = arith.remui %t1, %c13 : index
    %t3 = arith.index_cast %t2 : index to i32
    %t4 = arith.sitofp %t3 : i32 to f32
    %t5 = arith.subf %t4, %f4 : f32
    %v = arith.divf %t5, %f9 : f32
    %bits = arith.bitcast %v : f32 to i32
    %hi = arith.shrui %bits, %sh : i32
    %h16 = arith.trunci %hi : i32 to i16
    %r = arith.bitcast %h16 : i16 to bf16
    linalg.yield %r : bf16
  } -> tensor<192x80xbf16>

  %C = call @matmul_bf16(%A, %B) : (tensor<96x192xbf16>, tensor<192x80xbf16>) -> tensor<96x80xf32>

  %es = tensor.empty() : tensor<96xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%es : tensor<96xf32>) -> tensor<96xf32>
  %S = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%C : tensor<96x80xf32>) outs(%s0 : tensor<96xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<96xf32>
  %ms = bufferization.to_memref %S : memref<96xf32>
  %us = memref.cast %ms : memref<96xf32> to memref<*xf32>
  call @printMemrefF32(%us) : (memref<*xf32>) -> ()

  %slice = tensor.extract_slice %C[8, 0] [8, 20] [1, 1] : tensor<96x80xf32> to tensor<8x20xf32>
  %mc = bufferization.to_memref %slice : memref<8x20xf32>
  %uc = memref.cast %mc : memref<8x20xf32> to memref<*xf32>
  call @printMemrefF32(%uc) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
