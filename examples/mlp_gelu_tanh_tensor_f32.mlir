// Transformer MLP up-projection with the tanh approximation of GELU, on tensors:
//   h = x[16x32] * W[32x64] + b[64]
//   y = 0.5 * h * (1 + tanh(sqrt(2/pi) * (h + 0.044715 * h^3)))
// The kernel @mlp_gelu is linalg.matmul followed by one linalg.generic that
// fuses the bias add and the GELU (math.tanh; lowers to the libm call tanhf via
// convert-math-to-libm). @main builds
//   x[i,k] = ((5i + 3k) mod 13 - 6) * 0.125
//   W[k,j] = ((k + 7j) mod 11 - 5) * 0.0625
//   b[j]   = ((3j) mod 7 - 3) * 0.25
// and prints the first 8 output columns y[:, 0:8] (16x8).

func.func @mlp_gelu(%x: tensor<16x32xf32>, %W: tensor<32x64xf32>, %b: tensor<64xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %c0447 = arith.constant 0.044715 : f32
  %sqrt2pi = arith.constant 0.7978845608 : f32
  %e0 = tensor.empty() : tensor<16x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e0 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %h = linalg.matmul ins(%x, %W : tensor<16x32xf32>, tensor<32x64xf32>)
                     outs(%acc : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e1 = tensor.empty() : tensor<16x64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%h, %b : tensor<16x64xf32>, tensor<64xf32>) outs(%e1 : tensor<16x64xf32>) {
  ^bb0(%hv: f32, %bv: f32, %o: f32):
    %v = arith.addf %hv, %bv : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %t0 = arith.mulf %v3, %c0447 : f32
    %t1 = arith.addf %v, %t0 : f32
    %t2 = arith.mulf %t1, %sqrt2pi : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %t3, %one : f32
    %t5 = arith.mulf %v, %half : f32
    %r = arith.mulf %t5, %t4 : f32
    linalg.yield %r : f32
  } -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}

func.func @main() {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c13 = arith.constant 13 : index
  %f3 = arith.constant 3.0 : f32
  %f5 = arith.constant 5.0 : f32
  %f6 = arith.constant 6.0 : f32
  %eighth = arith.constant 0.125 : f32
  %sixteenth = arith.constant 0.0625 : f32
  %quarter = arith.constant 0.25 : f32

  %ex = tensor.empty() : tensor<16x32xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%ex : tensor<16x32xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %t0 = arith.muli %i, %c5 : index
    %t1 = arith.muli %k, %c3 : index
    %t2 = arith.addi %t0, %t1 : index
    %t3 = arith.remui %t2, %c13 : index
    %t4 = arith.index_cast %t3 : index to i32
    %t5 = arith.sitofp %t4 : i32 to f32
    %t6 = arith.subf %t5, %f6 : f32
    %t7 = arith.mulf %t6, %eighth : f32
    linalg.yield %t7 : f32
  } -> tensor<16x32xf32>

  %ew = tensor.empty() : tensor<32x64xf32>
  %W = linalg.generic {indexing_maps = [affine_map<(k, j) -> (k, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%ew : tensor<32x64xf32>) {
  ^bb0(%o: f32):
    %k = linalg.index 0 : index
    %j = linalg.index 1 : index
    %t0 = arith.muli %j, %c7 : index
    %t1 = arith.addi %k, %t0 : index
    %t2 = arith.remui %t1, %c11 : index
    %t3 = arith.index_cast %t2 : index to i32
    %t4 = arith.sitofp %t3 : i32 to f32
    %t5 = arith.subf %t4, %f5 : f32
    %t6 = arith.mulf %t5, %sixteenth : f32
    linalg.yield %t6 : f32
  } -> tensor<32x64xf32>

  %eb = tensor.empty() : tensor<64xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(j) -> (j)>],
                       iterator_types = ["parallel"]}
      outs(%eb : tensor<64xf32>) {
  ^bb0(%o: f32):
    %j = linalg.index 0 : index
    %t0 = arith.muli %j, %c3 : index
    %t1 = arith.remui %t0, %c7 : index
    %t2 = arith.index_cast %t1 : index to i32
    %t3 = arith.sitofp %t2 : i32 to f32
    %t4 = arith.subf %t3, %f3 : f32
    %t5 = arith.mulf %t4, %quarter : f32
    linalg.yield %t5 : f32
  } -> tensor<64xf32>

  %y = call @mlp_gelu(%x, %W, %b) : (tensor<16x32xf32>, tensor<32x64xf32>, tensor<64xf32>) -> tensor<16x64xf32>

  %cols = tensor.extract_slice %y[0, 0] [16, 8] [1, 1] : tensor<16x64xf32> to tensor<16x8xf32>
  %m = bufferization.to_memref %cols : memref<16x8xf32>
  %u = memref.cast %m : memref<16x8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
