// A 16x64 elementwise loop nest on memrefs, already parallel loops: 1,024
// iterations, too few for a team of threads (parallel.little-work).
func.func @scale(%x: memref<16x64xf32>, %y: memref<16x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %k = arith.constant 1.5 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c16, %c64) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<16x64xf32>
    %w = arith.mulf %v, %k : f32
    memref.store %w, %y[%i, %j] : memref<16x64xf32>
    scf.reduce
  }
  return
}
