// An f16 matmul scaled by an f16 scalar (tests/lit/measure_types.test).
func.func @forward(%a: tensor<16x32xf16>, %b: tensor<32x8xf16>, %s: f16) -> tensor<16x8xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<16x8xf16>
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<16x8xf16>) -> tensor<16x8xf16>
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf16>, tensor<32x8xf16>) outs(%f : tensor<16x8xf16>) -> tensor<16x8xf16>
  %o = linalg.generic {indexing_maps = [affine_map<(i,j)->(i,j)>, affine_map<(i,j)->(i,j)>], iterator_types = ["parallel","parallel"]} ins(%r : tensor<16x8xf16>) outs(%e : tensor<16x8xf16>) {
  ^bb0(%x: f16, %y: f16):
    %m = arith.mulf %x, %s : f16
    linalg.yield %m : f16
  } -> tensor<16x8xf16>
  return %o : tensor<16x8xf16>
}
