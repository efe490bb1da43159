// An out-of-bounds store at a dynamic index far past the buffer: the index is
// computed from the argument's contents at run time, so no pass can fold it.
// Must give crashed with SIGSEGV (signal 11).
func.func @forward(%m: memref<4xi64>) {
  %c0 = arith.constant 0 : index
  %far = arith.constant 1099511627776 : i64
  %v = memref.load %m[%c0] : memref<4xi64>
  %j = arith.addi %v, %far : i64
  %idx = arith.index_cast %j : i64 to index
  memref.store %v, %m[%idx] : memref<4xi64>
  return
}
