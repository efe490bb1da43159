// A 256x256 f32 matmul on memrefs for select_budget_slower.test: the
// finisher alone lowers it in m-n-k order; the interchange schedule of
// slow_catalog.yaml runs k outermost and m innermost, so that the inner loop
// strides down the columns of A and C, several times slower.
func.func @forward(%A: memref<256x256xf32>, %B: memref<256x256xf32>,
                   %C: memref<256x256xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<256x256xf32>)
  linalg.matmul ins(%A, %B : memref<256x256xf32>, memref<256x256xf32>)
                outs(%C : memref<256x256xf32>)
  return
}
