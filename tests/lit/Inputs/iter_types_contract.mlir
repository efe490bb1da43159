// vector.contract with affine maps for iterator types: MLIR 19's custom
// parser crashes on them as on linalg.generic's (bad_syntax.test).
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
func.func @c(%x: vector<4x4xf32>, %y: vector<4x4xf32>,
             %z: vector<4x4xf32>) -> vector<4x4xf32> {
  %0 = vector.contract {indexing_maps = [#a, #b, #c],
                        iterator_types = ["parallel", "parallel", #c],
                        kind = #vector.kind<add>}
      %x, %y, %z : vector<4x4xf32>, vector<4x4xf32> into vector<4x4xf32>
  return %0 : vector<4x4xf32>
}
