// A matmul with its schedule embedded, as in MLIR's transform-dialect
// integration tests: a named sequence @__transform_main tiles the
// linalg.matmul 2x4x3 with scf.for loops and then tiles the following
// elementwise linalg.generic. Without the schedule the program computes
// the same numbers; with it the loops are tiled. Prints relu(A*B) - 1.
// UPSTREAM: transform

#id = affine_map<(i, j) -> (i, j)>
module attributes {transform.with_named_sequence} {
  func.func @main() {
    %a = arith.constant dense<[[1.0, 2.0, 0.0, -1.0, 0.5, 1.5],
                               [0.0, -1.0, 2.0, 1.0, 1.0, 0.0],
                               [2.0, 2.0, 2.0, 2.0, 2.0, 2.0],
                               [-0.5, 0.5, -0.5, 0.5, -0.5, 0.5]]> : tensor<4x6xf32>
    %b = arith.constant dense<[[1.0, 0.0, 0.5, -1.0, 2.0, 0.0, 1.0, 1.0],
                               [0.0, 1.0, 0.5, 1.0, -2.0, 0.0, 1.0, -1.0],
                               [1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0],
                               [-1.0, 2.0, 1.0, 0.0, 0.0, 0.5, 0.5, 0.5],
                               [0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25],
                               [3.0, -3.0, 1.0, -1.0, 0.0, 0.0, 2.0, -2.0]]> : tensor<6x8xf32>
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x8xf32>
    %c0 = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %c = linalg.matmul ins(%a, %b : tensor<4x6xf32>, tensor<6x8xf32>)
                       outs(%c0 : tensor<4x8xf32>) -> tensor<4x8xf32>
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%c : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%x: f32, %o: f32):
      %m = arith.maximumf %x, %z : f32
      %one = arith.constant 1.0 : f32
      %y = arith.subf %m, %one : f32
      linalg.yield %y : f32
    } -> tensor<4x8xf32>
    %u = tensor.cast %r : tensor<4x8xf32> to tensor<*xf32>
    call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
    return
  }

  func.func private @printMemrefF32(tensor<*xf32>)

  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %loops:3 = transform.structured.tile_using_for %mm tile_sizes [2, 4, 3]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    %g = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %tg, %l2:2 = transform.structured.tile_using_for %g tile_sizes [1, 8]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
