// A masked fill and the mask's complement: an i1 tensor argument and an i1
// result (tests/lit/measure_types.test).
#id = affine_map<(i, j) -> (i, j)>
func.func @forward(%x: tensor<4x4xf32>, %m: tensor<4x4xi1>)
    -> (tensor<4x4xf32>, tensor<4x4xi1>) {
  %ex = tensor.empty() : tensor<4x4xf32>
  %em = tensor.empty() : tensor<4x4xi1>
  %y, %n = linalg.generic {indexing_maps = [#id, #id, #id, #id],
                           iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<4x4xf32>, tensor<4x4xi1>)
      outs(%ex, %em : tensor<4x4xf32>, tensor<4x4xi1>) {
  ^bb0(%v: f32, %on: i1, %o: f32, %p: i1):
    %z = arith.constant -1.0 : f32
    %r = arith.select %on, %v, %z : f32
    %t = arith.constant true
    %f = arith.xori %on, %t : i1
    linalg.yield %r, %f : f32, i1
  } -> (tensor<4x4xf32>, tensor<4x4xi1>)
  return %y, %n : tensor<4x4xf32>, tensor<4x4xi1>
}
