// A matmul whose outer loops are parallel already, on memrefs (as
// poly_blas3's are after affine-parallelize): the search's loop variant
// (the best so far, then omp-parallel) applies to it. search_json.test.
func.func @forward(%A: memref<128x96xf32>, %B: memref<96x64xf32>,
                   %C: memref<128x64xf32>) {
  affine.parallel (%i, %j) = (0, 0) to (128, 64) {
    %zero = arith.constant 0.0 : f32
    %sum = affine.for %k = 0 to 96 iter_args(%acc = %zero) -> f32 {
      %a = affine.load %A[%i, %k] : memref<128x96xf32>
      %b = affine.load %B[%k, %j] : memref<96x64xf32>
      %p = arith.mulf %a, %b : f32
      %s = arith.addf %acc, %p : f32
      affine.yield %s : f32
    }
    affine.store %sum, %C[%i, %j] : memref<128x64xf32>
  }
  return
}
