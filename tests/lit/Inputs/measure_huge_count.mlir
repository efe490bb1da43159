// 2^62 x 4 f32 elements: the element count wraps to 0 in 64 bits. It used to
// be measured as `ok` on a zero-byte buffer; it must be `unsupported`.
func.func @forward(%a: memref<4611686018427387904x4xf32>) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  memref.store %f, %a[%c0, %c0] : memref<4611686018427387904x4xf32>
  return
}
