module attributes {transform.with_named_sequence} {
  func.func @scale(%m: memref<8xf32>) {
    %c = arith.constant 2.0 : f32
    affine.for %i = 0 to 8 {
      %v = affine.load %m[%i] : memref<8xf32>
      %w = arith.mulf %v, %c : f32
      affine.store %w, %m[%i] : memref<8xf32>
    }
    return
  }
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %loops = transform.structured.match ops{["affine.for"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.yield
  }
}
