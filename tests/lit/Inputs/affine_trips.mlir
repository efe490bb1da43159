// For safety_strides.test: a copy over 32 elements and one over the 30
// inner elements of a 32-element buffer.
func.func @whole(%in: memref<32xf32>, %out: memref<32xf32>) {
  affine.for %i = 0 to 32 {
    %v = affine.load %in[%i] : memref<32xf32>
    affine.store %v, %out[%i] : memref<32xf32>
  }
  return
}
func.func @inner(%in: memref<32xf32>, %out: memref<32xf32>) {
  affine.for %i = 1 to 31 {
    %v = affine.load %in[%i] : memref<32xf32>
    affine.store %v, %out[%i] : memref<32xf32>
  }
  return
}
