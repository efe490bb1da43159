// 32 x 8 element-wise iterations: too little work for a team of threads
// (parallel.little-work-scf).
func.func @forward(%a: memref<32x8xf64>, %b: memref<32x8xf64>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c32 step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %a[%i, %j] : memref<32x8xf64>
      %d = arith.addf %v, %v : f64
      memref.store %d, %b[%i, %j] : memref<32x8xf64>
    }
  }
  return
}
