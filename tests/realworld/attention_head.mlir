// One attention head on tensors, the kernel at the heart of transformer
// inference: scores = Q K^T / sqrt(d) with linalg.matmul_transpose_b,
// a row softmax written as linalg.generic reductions (max, exp-sum), and
// out = P V with linalg.matmul. Q, K, V are 4x8 and built from indices.
// Prints the 4x8 output.
// UPSTREAM: base

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func private @make(%scale: f32, %shift: index) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<4x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c5 = arith.constant 5 : index
    %ij = arith.muli %i, %j : index
    %s = arith.addi %ij, %shift : index
    %m = arith.remui %s, %c5 : index
    %x = arith.index_cast %m : index to i32
    %f = arith.sitofp %x : i32 to f32
    %two = arith.constant 2.0 : f32
    %c = arith.subf %f, %two : f32
    %v = arith.mulf %c, %scale : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %sq = arith.constant 0.5 : f32
  %sk = arith.constant 0.25 : f32
  %sv = arith.constant 1.0 : f32
  %q = call @make(%sq, %c1) : (f32, index) -> tensor<4x8xf32>
  %k = call @make(%sk, %c2) : (f32, index) -> tensor<4x8xf32>
  %v = call @make(%sv, %c3) : (f32, index) -> tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %es = tensor.empty() : tensor<4x4xf32>
  %s0 = linalg.fill ins(%z : f32) outs(%es : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = linalg.matmul_transpose_b ins(%q, %k : tensor<4x8xf32>, tensor<4x8xf32>)
                                 outs(%s0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %er = tensor.empty() : tensor<4xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %rsd = arith.constant 0.35355339 : f32
  %mx = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<4x4xf32>) outs(%m0 : tensor<4xf32>) {
  ^bb0(%x: f32, %a: f32):
    %xs = arith.mulf %x, %rsd : f32
    %r = arith.maximumf %a, %xs : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %mx : tensor<4x4xf32>, tensor<4xf32>) outs(%es : tensor<4x4xf32>) {
  ^bb0(%x: f32, %m: f32, %o: f32):
    %xs = arith.mulf %x, %rsd : f32
    %d = arith.subf %xs, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<4x4xf32>
  %z0 = linalg.fill ins(%z : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<4x4xf32>) outs(%z0 : tensor<4xf32>) {
  ^bb0(%x: f32, %a: f32):
    %r = arith.addf %a, %x : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<4x4xf32>, tensor<4xf32>) outs(%es : tensor<4x4xf32>) {
  ^bb0(%x: f32, %t: f32, %o: f32):
    %r = arith.divf %x, %t : f32
    linalg.yield %r : f32
  } -> tensor<4x4xf32>
  %eo = tensor.empty() : tensor<4x8xf32>
  %o0 = linalg.fill ins(%z : f32) outs(%eo : tensor<4x8xf32>) -> tensor<4x8xf32>
  %o = linalg.matmul ins(%p, %v : tensor<4x4xf32>, tensor<4x8xf32>)
                     outs(%o0 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %u = tensor.cast %o : tensor<4x8xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>)
