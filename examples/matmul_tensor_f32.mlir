// Dense single-precision matrix multiplication on tensors:
//   C[32x16] = A[32x48] * B[48x16]
// The kernel @forward is a single linalg.matmul in destination-passing style
// (zero-filled tensor.empty as the accumulator). @main builds deterministic,
// non-constant inputs with linalg.generic + linalg.index:
//   A[i,k] = ((3i + 5k) mod 7 - 3) * 0.25
//   B[k,j] = ((2k + 7j) mod 9 - 4) * 0.5
// and prints the full 32x16 result with printMemrefF32. All values are exact
// in binary floating point, so results are exact.

func.func @forward(%A: tensor<32x48xf32>, %B: tensor<48x16xf32>) -> tensor<32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<32x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<32x16xf32>) -> tensor<32x16xf32>
  %C = linalg.matmul ins(%A, %B : tensor<32x48xf32>, tensor<48x16xf32>)
                     outs(%acc : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %C : tensor<32x16xf32>
}

func.func @main() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c9 = arith.constant 9 : index
  %f3 = arith.constant 3.0 : f32
  %f4 = arith.constant 4.0 : f32
  %q = arith.constant 0.25 : f32
  %h = arith.constant 0.5 : f32

  %ea = tensor.empty() : tensor<32x48xf32>
  %A = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%ea : tensor<32x48xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %a0 = arith.muli %i, %c3 : index
    %a1 = arith.muli %k, %c5 : index
    %a2 = arith.addi %a0, %a1 : index
    %a3 = arith.remui %a2, %c7 : index
    %a4 = arith.index_cast %a3 : index to i32
    %a5 = arith.sitofp %a4 : i32 to f32
    %a6 = arith.subf %a5, %f3 : f32
    %a7 = arith.mulf %a6, %q : f32
    linalg.yield %a7 : f32
  } -> tensor<32x48xf32>

  %eb = tensor.empty() : tensor<48x16xf32>
  %B = linalg.generic {indexing_maps = [affine_map<(k, j) -> (k, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%eb : tensor<48x16xf32>) {
  ^bb0(%out: f32):
    %k = linalg.index 0 : index
    %j = linalg.index 1 : index
    %b0 = arith.muli %k, %c2 : index
    %b1 = arith.muli %j, %c7 : index
    %b2 = arith.addi %b0, %b1 : index
    %b3 = arith.remui %b2, %c9 : index
    %b4 = arith.index_cast %b3 : index to i32
    %b5 = arith.sitofp %b4 : i32 to f32
    %b6 = arith.subf %b5, %f4 : f32
    %b7 = arith.mulf %b6, %h : f32
    linalg.yield %b7 : f32
  } -> tensor<48x16xf32>

  %C = call @forward(%A, %B) : (tensor<32x48xf32>, tensor<48x16xf32>) -> tensor<32x16xf32>

  %m = bufferization.to_memref %C : memref<32x16xf32>
  %u = memref.cast %m : memref<32x16xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
