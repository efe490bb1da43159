// A self-contained program in the style of MLIR's sgemm benchmarks: it
// times a matmul with rtclock and prints the result, then the elapsed time.
// The check must skip the printed time and still compare the matrix.
func.func private @rtclock() -> f64
func.func private @printMemrefF32(memref<*xf32>)
func.func private @printF64(f64)
func.func private @printNewline()

func.func @main() {
  %one = arith.constant 1.5 : f32
  %two = arith.constant 0.25 : f32
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<8x8xf32>
  %b = memref.alloc() : memref<8x8xf32>
  %c = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%one : f32) outs(%a : memref<8x8xf32>)
  linalg.fill ins(%two : f32) outs(%b : memref<8x8xf32>)
  linalg.fill ins(%zero : f32) outs(%c : memref<8x8xf32>)
  %t0 = call @rtclock() : () -> f64
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>)
                outs(%c : memref<8x8xf32>)
  %t1 = call @rtclock() : () -> f64
  %u = memref.cast %c : memref<8x8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %dt = arith.subf %t1, %t0 : f64
  call @printF64(%dt) : (f64) -> ()
  call @printNewline() : () -> ()
  memref.dealloc %a : memref<8x8xf32>
  memref.dealloc %b : memref<8x8xf32>
  memref.dealloc %c : memref<8x8xf32>
  return
}
