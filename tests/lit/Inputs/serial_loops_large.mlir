// A 1-D Jacobi sweep of 8,192 points per time step, parallel inside the
// sequential time loop, then copied back; and a 2-D loop whose inner
// parallel loop sits inside a parallel one. tests/lit/omp_parallel_loops.test.
func.func @forward(%a: memref<8192xf32>, %b: memref<8192xf32>, %m: memref<64x64xf32>) {
  %third = arith.constant 0.333333343 : f32
  affine.for %t = 0 to 8 {
    affine.parallel (%i) = (1) to (8191) {
      %l = affine.load %a[%i - 1] : memref<8192xf32>
      %c = affine.load %a[%i] : memref<8192xf32>
      %r = affine.load %a[%i + 1] : memref<8192xf32>
      %s = arith.addf %l, %c : f32
      %s2 = arith.addf %s, %r : f32
      %v = arith.mulf %s2, %third : f32
      affine.store %v, %b[%i] : memref<8192xf32>
    }
    affine.parallel (%i) = (1) to (8191) {
      %v = affine.load %b[%i] : memref<8192xf32>
      affine.store %v, %a[%i] : memref<8192xf32>
    }
  }
  affine.parallel (%i) = (0) to (64) {
    affine.parallel (%j) = (0) to (64) {
      %v = affine.load %m[%i, %j] : memref<64x64xf32>
      %w = arith.mulf %v, %third : f32
      affine.store %w, %m[%i, %j] : memref<64x64xf32>
    }
  }
  return
}
