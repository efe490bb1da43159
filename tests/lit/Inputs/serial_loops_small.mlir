// A sweep of 1,022 points inside a 4,000-step time loop: a team of threads
// per step would cost more than the step. tests/lit/omp_parallel_loops.test.
func.func @forward(%a: memref<1024xf32>, %b: memref<1024xf32>) {
  %half = arith.constant 0.5 : f32
  affine.for %t = 0 to 4000 {
    affine.parallel (%i) = (1) to (1023) {
      %l = affine.load %a[%i - 1] : memref<1024xf32>
      %r = affine.load %a[%i + 1] : memref<1024xf32>
      %s = arith.addf %l, %r : f32
      %v = arith.mulf %s, %half : f32
      affine.store %v, %b[%i] : memref<1024xf32>
    }
    affine.parallel (%i) = (1) to (1023) {
      %v = affine.load %b[%i] : memref<1024xf32>
      affine.store %v, %a[%i] : memref<1024xf32>
    }
  }
  return
}
