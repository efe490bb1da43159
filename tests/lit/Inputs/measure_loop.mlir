// A kernel that never terminates: the loop condition is always true and the
// body stores to memory, so LLVM cannot delete the loop. Must give timeout.
func.func @forward(%m: memref<4xi64>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i64
  %true = arith.constant true
  scf.while (%i = %one) : (i64) -> () {
    scf.condition(%true)
  } do {
    %v = memref.load %m[%c0] : memref<4xi64>
    %w = arith.addi %v, %one : i64
    memref.store %w, %m[%c0] : memref<4xi64>
    scf.yield %w : i64
  }
  return
}
