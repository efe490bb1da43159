// A row sum: a linalg.generic whose second loop is a reduction
// (threads_forall.test: parallel-tile may split its rows across threads,
// not its reduction).
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @forward(%A: tensor<64x32xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%A : tensor<64x32xf32>) outs(%acc : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %s : tensor<64xf32>
}
