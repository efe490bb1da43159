// An op with no lowering whose operand is converted first: lowering the
// memref leaves a builtin.unrealized_conversion_cast in front of the op,
// which is only a symptom; the error must name bufferization.dealloc.
func.func @main() {
  %m = memref.alloc() : memref<4xf32>
  %true = arith.constant true
  bufferization.dealloc (%m : memref<4xf32>) if (%true)
  return
}
