// An scf.for nested in an affine.for: convert-scf-to-cf splits it into
// blocks inside the single-block affine.for region, so that pipeline leaves
// IR that fails verification (verify_failed). The finisher alone is fine.
func.func @forward(%m: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  affine.for %i = 0 to 4 {
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %m[%j] : memref<4xf32>
      %w = arith.addf %v, %v : f32
      memref.store %w, %m[%j] : memref<4xf32>
    }
  }
  return
}
