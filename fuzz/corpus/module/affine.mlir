func.func @scale(%m: memref<16xf32>, %s: f32) {
  affine.for %i = 0 to 16 step 2 {
    %v = affine.load %m[%i] : memref<16xf32>
    %w = arith.mulf %v, %s : f32
    affine.store %w, %m[%i] : memref<16xf32>
  }
  return
}
