// A three-dimensional parallel loop that adds 1 to every element in place
// (threads.test): MLIR 19's async-parallel-for, split for 2 workers, runs
// iterations of such a loop twice; made one-dimensional first it is right.
func.func @forward(%out: memref<30x30x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c30 = arith.constant 30 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c30, %c30, %c8) step (%c1, %c1, %c1) {
    %o = memref.load %out[%i, %j, %k] : memref<30x30x8xf32>
    %s = arith.addf %o, %one : f32
    memref.store %s, %out[%i, %j, %k] : memref<30x30x8xf32>
    scf.reduce
  }
  return
}
