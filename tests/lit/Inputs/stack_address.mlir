// Returns the address of a buffer on the program's stack. test_measure.c
// calls it several times in one process: run_once starts each call's stack
// at a new offset within a page, so the addresses differ in their low bits.
func.func @forward() -> i64 {
  %buf = memref.alloca() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %buf[%c0] : memref<4xf32>
  %p = memref.extract_aligned_pointer_as_index %buf : memref<4xf32> -> index
  %r = arith.index_cast %p : index to i64
  return %r : i64
}
