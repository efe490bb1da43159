// A parallel loop whose bound is the buffer's dynamic size: its work is not
// known, so it counts as large and omp-parallel stays allowed.
func.func @scale(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %k = arith.constant 1.5 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %x[%i] : memref<?xf32>
    %w = arith.mulf %v, %k : f32
    memref.store %w, %x[%i] : memref<?xf32>
    scf.reduce
  }
  return
}
