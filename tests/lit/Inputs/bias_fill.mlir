// A bias vector filled with a constant and added to each row: the vector
// fill has one loop, but its only use is an input of a linalg.generic, so
// elementwise fusion folds it into the addition.
#in = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @bias(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %half = arith.constant 0.5 : f32
  %ev = tensor.empty() : tensor<32xf32>
  %b = linalg.fill ins(%half : f32) outs(%ev : tensor<32xf32>) -> tensor<32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %y = linalg.generic {indexing_maps = [#in, #col, #in], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<16x32xf32>, tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}
