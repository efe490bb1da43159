// linalg.generic with affine maps for iterator types: MLIR 19's custom
// parser reads them as strings of garbage length and aborts (found by
// fuzz_module); mqss refuses the text first (bad_syntax.test).
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @relu(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = linalg.generic {indexing_maps = [#id, #id],
                       iterator_types = ["parallel", #id]}
      ins(%x : tensor<3x5xf32>) outs(%x : tensor<3x5xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
