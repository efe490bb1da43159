// A matmul big enough for the search's thread variant (search_threads.c
// skips ops of fewer than 2^17 loop iterations; this one has 128x64x96):
// search_json.test.
func.func @forward(%A: memref<128x96xf32>, %B: memref<96x64xf32>,
                   %C: memref<128x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<128x64xf32>)
  linalg.matmul ins(%A, %B : memref<128x96xf32>, memref<96x64xf32>)
                outs(%C : memref<128x64xf32>)
  return
}
