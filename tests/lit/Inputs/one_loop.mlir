// The maximum of each row of a 16x32 matrix: the accumulator is a vector
// fill that initialises a reduction (a linalg op with one loop that
// elementwise fusion cannot fold away).
#in = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @rowmax(%x: tensor<16x32xf32>) -> tensor<16xf32> {
  %lowest = arith.constant -3.0e+38 : f32
  %e = tensor.empty() : tensor<16xf32>
  %acc = linalg.fill ins(%lowest : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %m = linalg.generic {indexing_maps = [#in, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x32xf32>) outs(%acc : tensor<16xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.maximumf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  return %m : tensor<16xf32>
}
