// Found by fuzz_module: the first vector.contract's type list has one type
// before `into` where its parser reads two, and MLIR 19 crashes reading
// past the list's end. mqss parses modules with vector.contract in a child
// first and turns the crash into an error (bad_syntax.test).
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
#k = #vector.kind<add>
#trait = {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #k}
func.func @c(%x: vector<4x4xf32>, %y: vector<4x4xf32>, %z: vector<4x4xf32>) -> (vector<4x4xf32>, vector<4x4xf32>) {
  %0 = vector.contract {indexing_maps = [#a, #b, #c]} %x, %y, %z {iterator_types = ["parallel", "parallel", "reduction"]} : vector<4x4xf32> into vector<4x4xf32>
  %1 = vector.contract #trait %x, %y, %z : vector<4x4xf32>, vector<4x4xf32> into vector<4x4xf32>
  return %0, %1 : vector<4x4xf32>, vector<4x4xf32>
}
