// 3037000500^2 f64 elements: just past 2^63, so the count (and the byte
// size) overflow. It used to fill a wrapped buffer until the 30 s timeout.
func.func @forward(%a: memref<3037000500x3037000500xf64>) {
  return
}
