// Parallel loops for the thread tests (threads.test). @forward: a parallel
// loop over rows whose body holds another parallel loop (async-parallel-for
// alone would make tasks of both, and a worker waiting for the inner tasks
// blocks the pool), then a parallel loop inside a sequential one, and a
// parallel row sum (a reduction: it stays sequential).
func.func @forward(%A: memref<64x48xf32>, %B: memref<64x48xf32>, %S: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    scf.parallel (%j) = (%c0) to (%c48) step (%c1) {
      %a = memref.load %A[%i, %j] : memref<64x48xf32>
      %e = math.exp %a : f32
      %b = arith.mulf %e, %two : f32
      memref.store %b, %B[%i, %j] : memref<64x48xf32>
      scf.reduce
    }
    scf.reduce
  }
  scf.for %k = %c0 to %c4 step %c1 {
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %b = memref.load %B[%i, %k] : memref<64x48xf32>
      %c = arith.addf %b, %two : f32
      memref.store %c, %B[%i, %k] : memref<64x48xf32>
      scf.reduce
    }
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %sum = scf.parallel (%j) = (%c0) to (%c48) step (%c1) init (%zero) -> f32 {
      %b = memref.load %B[%i, %j] : memref<64x48xf32>
      scf.reduce(%b : f32) {
      ^bb0(%x: f32, %y: f32):
        %s = arith.addf %x, %y : f32
        scf.reduce.return %s : f32
      }
    }
    memref.store %sum, %S[%i] : memref<64xf32>
    scf.reduce
  }
  return
}
