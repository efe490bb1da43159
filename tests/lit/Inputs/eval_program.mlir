// A program as the examples are written: @main fills an input, calls the
// public kernel @scale and prints the result. `mqss eval --kernels` times
// @scale alone (eval_kernels.test).
func.func @scale(%x: memref<8x16xf32>, %y: memref<8x16xf32>) {
  %two = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.mulf %v, %two : f32
    linalg.yield %r : f32
  }
  return
}

func.func @main() {
  %one = arith.constant 1.5 : f32
  %x = memref.alloc() : memref<8x16xf32>
  %y = memref.alloc() : memref<8x16xf32>
  linalg.fill ins(%one : f32) outs(%x : memref<8x16xf32>)
  call @scale(%x, %y) : (memref<8x16xf32>, memref<8x16xf32>) -> ()
  %u = memref.cast %y : memref<8x16xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %x : memref<8x16xf32>
  memref.dealloc %y : memref<8x16xf32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
