// linalg.generic whose attribute dictionary is an alias (#trait) with affine
// maps for iterator types: MLIR 19's custom parser crashes on it as on the
// inline dictionary (bad_syntax.test).
#id = affine_map<(d0, d1) -> (d0, d1)>
#trait = {indexing_maps = [#id, #id], iterator_types = [#id, #id]}
func.func @relu(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = linalg.generic #trait
      ins(%x : tensor<3x5xf32>) outs(%x : tensor<3x5xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
