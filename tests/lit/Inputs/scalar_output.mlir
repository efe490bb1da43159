// A sum of all elements into a one-element tensor: the output's indexing map
// (d0, d1) -> (0) has constant results only (schedule_fit_scalar_output.test).
func.func @forward(%x: tensor<8x16xf32>, %acc: tensor<1xf32>) -> tensor<1xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (0)>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<8x16xf32>) outs(%acc : tensor<1xf32>) {
  ^bb0(%a: f32, %s: f32):
    %n = arith.addf %s, %a : f32
    linalg.yield %n : f32
  } -> tensor<1xf32>
  return %r : tensor<1xf32>
}
