// An elementwise chain of transcendental functions on f32, for the math
// approximation action: y = tanh(4x) + exp(2x) * erf(3x) + log(x*x + 1).
#id = affine_map<(i, j) -> (i, j)>
func.func @forward(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %c4 = arith.constant 4.0 : f32
  %c3 = arith.constant 3.0 : f32
  %c2 = arith.constant 2.0 : f32
  %c1 = arith.constant 1.0 : f32
  %init = tensor.empty() : tensor<64x256xf32>
  %y = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x256xf32>) outs(%init : tensor<64x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %a = arith.mulf %v, %c4 : f32
    %t = math.tanh %a : f32
    %b = arith.mulf %v, %c2 : f32
    %e = math.exp %b : f32
    %c = arith.mulf %v, %c3 : f32
    %f = math.erf %c : f32
    %ef = arith.mulf %e, %f : f32
    %sq = arith.mulf %v, %v : f32
    %sq1 = arith.addf %sq, %c1 : f32
    %l = math.log %sq1 : f32
    %s0 = arith.addf %t, %ef : f32
    %s1 = arith.addf %s0, %l : f32
    linalg.yield %s1 : f32
  } -> tensor<64x256xf32>
  return %y : tensor<64x256xf32>
}
