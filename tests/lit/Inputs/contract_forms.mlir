// vector.contract in the forms MLIR 19 parses safely: its dictionary as an
// alias with the kind as an alias, and iterator_types in the dictionary
// after the operands (bad_syntax.test: none is refused).
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
#k = #vector.kind<add>
#trait = {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #k}
func.func @c(%x: vector<4x4xf32>, %y: vector<4x4xf32>, %z: vector<4x4xf32>) -> (vector<4x4xf32>, vector<4x4xf32>) {
  %0 = vector.contract {indexing_maps = [#a, #b, #c]} %x, %y, %z {iterator_types = ["parallel", "parallel", "reduction"]} : vector<4x4xf32>, vector<4x4xf32> into vector<4x4xf32>
  %1 = vector.contract #trait %x, %y, %z : vector<4x4xf32>, vector<4x4xf32> into vector<4x4xf32>
  return %0, %1 : vector<4x4xf32>, vector<4x4xf32>
}
