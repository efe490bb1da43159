#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = [#id, #id], iterator_typesA= ["parallel", "parallel"]}
      ins(%x : tensor<3x5xf32>) outs(%x : tensor<3x5xf3f32):
    %z = arith.constant 1.0 : f32
    %m = arith.maximumf %in, %z : f32
    linalg.yield %m : f32
  } -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
