// A small f32 matmul on memrefs for the search baselines' tests: C = A * B
// with A 16x24, B 24x16 (@forward zeroes C with linalg.fill first). Small
// enough that each measurement takes a fraction of a second, with the
// linalg -> affine -> tile/unroll actions of the catalog all reachable.
func.func @forward(%A: memref<16x24xf32>, %B: memref<24x16xf32>,
                   %C: memref<16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%C : memref<16x16xf32>)
  linalg.matmul ins(%A, %B : memref<16x24xf32>, memref<24x16xf32>)
                outs(%C : memref<16x16xf32>)
  return
}
