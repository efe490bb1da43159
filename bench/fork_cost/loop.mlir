// The hand-over cost of a parallel loop (bench/fork_cost.sh): @kernel scales
// two rows of 2048 floats, one row per iteration of an scf.parallel; @main
// calls it 20000 times and prints the microseconds per call.
func.func private @rtclock() -> f64
func.func private @printF64(f64)
func.func private @printNewline()
func.func @kernel(%A: memref<2x2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = arith.constant 2048 : index
  %k = arith.constant 1.0001 : f32
  %o = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    scf.for %j = %c0 to %n step %c1 {
      %v = memref.load %A[%i, %j] : memref<2x2048xf32>
      %m = arith.mulf %v, %k : f32
      %a = arith.addf %m, %o : f32
      memref.store %a, %A[%i, %j] : memref<2x2048xf32>
    }
    scf.reduce
  }
  return
}
func.func @main() {
  %A = memref.alloc() : memref<2x2048xf32>
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%A : memref<2x2048xf32>)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %N = arith.constant 20000 : index
  scf.for %w = %c0 to %c1 step %c1 { func.call @kernel(%A) : (memref<2x2048xf32>) -> () }
  %t0 = func.call @rtclock() : () -> f64
  scf.for %r = %c0 to %N step %c1 { func.call @kernel(%A) : (memref<2x2048xf32>) -> () }
  %t1 = func.call @rtclock() : () -> f64
  %dt = arith.subf %t1, %t0 : f64
  %nf = arith.constant 20000.0 : f64
  %us = arith.constant 1000000.0 : f64
  %per = arith.divf %dt, %nf : f64
  %per_us = arith.mulf %per, %us : f64
  func.call @printF64(%per_us) : (f64) -> ()
  func.call @printNewline() : () -> ()
  memref.dealloc %A : memref<2x2048xf32>
  return
}
