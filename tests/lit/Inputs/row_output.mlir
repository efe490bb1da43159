// Column sums into a 1x16 tensor: the output's map (d0, d1) -> (0, d1) keeps
// a loop dimension, and vectorises (schedule_fit_scalar_output.test).
func.func @forward(%x: tensor<8x16xf32>, %acc: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (0, d1)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%acc : tensor<1x16xf32>) {
  ^bb0(%a: f32, %s: f32):
    %n = arith.addf %s, %a : f32
    linalg.yield %n : f32
  } -> tensor<1x16xf32>
  return %r : tensor<1x16xf32>
}
