// A matmul that carries its own transform schedule: @__transform_main tiles
// the matmul to 8x16x1 and vectorises it. `mqss measure` applies it to the
// reference and the candidate alike; --ignore-schedule drops it, and says so.
module attributes {transform.with_named_sequence} {
  func.func @forward(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>) -> tensor<16x64xf32> {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<16x64xf32>
    %c = linalg.fill ins(%z : f32) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
    %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x64xf32>)
                       outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
    return %r : tensor<16x64xf32>
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [8, 16, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op
    %v = transform.structured.vectorize_children_and_apply_patterns %f : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
