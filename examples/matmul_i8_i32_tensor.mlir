// Quantized integer matrix multiplication on tensors, int8 x int8 -> int32:
//   C[16x16] (i32) = A[16x64] (i8) * B[64x16] (i8)
// linalg.matmul with i8 inputs and an i32 accumulator sign-extends the inputs
// before multiplying and accumulates in i32 (the usual int8 GEMM of quantized
// inference). @main builds inputs covering the whole signed i8 range:
//   A[i,k] = trunc_i8((37i + 11k) mod 256)   (values -128..127)
//   B[k,j] = trunc_i8((13k + 29j + 7) mod 256)
// and prints the 16x16 i32 result with printMemrefI32.

func.func @qmatmul(%A: tensor<16x64xi8>, %B: tensor<64x16xi8>) -> tensor<16x16xi32> {
  %zero = arith.constant 0 : i32
  %init = tensor.empty() : tensor<16x16xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<16x16xi32>) -> tensor<16x16xi32>
  %C = linalg.matmul ins(%A, %B : tensor<16x64xi8>, tensor<64x16xi8>)
                     outs(%acc : tensor<16x16xi32>) -> tensor<16x16xi32>
  return %C : tensor<16x16xi32>
}

func.func @main() {
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c13 = arith.constant 13 : index
  %c29 = arith.constant 29 : index
  %c37 = arith.constant 37 : index
  %c256 = arith.constant 256 : index

  %ea = tensor.empty() : tensor<16x64xi8>
  %A = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%ea : tensor<16x64xi8>) {
  ^bb0(%out: i8):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %t0 = arith.muli %i, %c37 : index
    %t1 = arith.muli %k, %c11 : index
    %t2 = arith.addi %t0, %t1 : index
    %t3 = arith.remui %t2, %c256 : index
    %t4 = arith.index_cast %t3 : index to i8
    linalg.yield %t4 : i8
  } -> tensor<16x64xi8>

  %eb = tensor.empty() : tensor<64x16xi8>
  %B = linalg.generic {indexing_maps = [affine_map<(k, j) -> (k, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%eb : tensor<64x16xi8>) {
  ^bb0(%out: i8):
    %k = linalg.index 0 : index
    %j = linalg.index 1 : index
    %t0 = arith.muli %k, %c13 : index
    %t1 = arith.muli %j, %c29 : index
    %t2 = arith.addi %t0, %t1 : index
    %t3 = arith.addi %t2, %c7 : index
    %t4 = arith.remui %t3, %c256 : index
    %t5 = arith.index_cast %t4 : index to i8
    linalg.yield %t5 : i8
  } -> tensor<64x16xi8>

  %C = call @qmatmul(%A, %B) : (tensor<16x64xi8>, tensor<64x16xi8>) -> tensor<16x16xi32>

  %m = bufferization.to_memref %C : memref<16x16xi32>
  %u = memref.cast %m : memref<16x16xi32> to memref<*xi32>
  call @printMemrefI32(%u) : (memref<*xi32>) -> ()
  return
}

func.func private @printMemrefI32(memref<*xi32>)
