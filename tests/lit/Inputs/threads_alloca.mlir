// A parallel loop whose body allocates a row buffer on the stack, of a size
// that depends on the row (threads.test): convert-scf-to-openmp wraps the
// body in a memref.alloca_scope that keeps the allocation (one of constant
// size would move to the top of the thread's region), which the finisher
// expands into a stack save and restore before the loops inside it become
// blocks.
func.func @forward(%A: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %n = arith.addi %i, %c32 : index
    %row = memref.alloca(%n) : memref<?xf32>
    scf.for %j = %c0 to %c32 step %c1 {
      %a = memref.load %A[%i, %j] : memref<64x32xf32>
      %b = arith.mulf %a, %two : f32
      memref.store %b, %row[%j] : memref<?xf32>
    }
    scf.for %j = %c0 to %c32 step %c1 {
      %b = memref.load %row[%j] : memref<?xf32>
      %c = arith.addf %b, %one : f32
      memref.store %c, %A[%i, %j] : memref<64x32xf32>
    }
    scf.reduce
  }
  return
}
