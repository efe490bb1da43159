// Affine accesses of each stride kind, one function each, for the safety
// layer's affine.access.strided (safety_strides.test). MLIR 19's
// super-vectorizer reads the strided ones as if contiguous.
func.func @unit(%in: memref<64x64xf32>, %out: memref<32x32xf32>) {
  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      %v = affine.load %in[%i + 1, %j + %i] : memref<64x64xf32>
      affine.store %v, %out[%i, %j] : memref<32x32xf32>
    }
  }
  return
}
func.func @stride2(%in: memref<64xf32>, %out: memref<32xf32>) {
  affine.for %i = 0 to 32 {
    %v = affine.load %in[%i * 2] : memref<64xf32>
    affine.store %v, %out[%i] : memref<32xf32>
  }
  return
}
func.func @reversed(%in: memref<64xf32>, %out: memref<32xf32>) {
  affine.for %i = 0 to 32 {
    %v = affine.load %in[31 - %i] : memref<64xf32>
    affine.store %v, %out[%i] : memref<32xf32>
  }
  return
}
func.func @halved(%in: memref<64xf32>, %out: memref<32xf32>) {
  affine.for %i = 0 to 32 {
    %v = affine.load %in[%i floordiv 2] : memref<64xf32>
    affine.store %v, %out[%i] : memref<32xf32>
  }
  return
}
func.func @symbolic(%in: memref<64xf32>, %out: memref<32xf32>, %s: index) {
  affine.for %i = 0 to 16 {
    %k = affine.apply affine_map<(d0)[s0] -> (d0 * s0)>(%i)[%s]
    %v = memref.load %in[%k] : memref<64xf32>
    affine.store %v, %out[%i] : memref<32xf32>
  }
  return
}
