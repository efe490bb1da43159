// vector.contract with an array holding an affine set (and its `>=`)
// among its attributes before iterator_types: the pre-scan must skip the
// value whole
// (bad_syntax.test: not refused).
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
#s = affine_set<(d0) : (d0 >= 0)>
func.func @c(%x: vector<4x4xf32>, %y: vector<4x4xf32>, %z: vector<4x4xf32>) -> vector<4x4xf32> {
  %0 = vector.contract {indexing_maps = [#a, #b, #c], mqss.note = [affine_set<(d0) : (d0 >= 0)>, 1], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %z : vector<4x4xf32>, vector<4x4xf32> into vector<4x4xf32>
  return %0 : vector<4x4xf32>
}
