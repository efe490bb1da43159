// A module that frees its own buffers (so the finisher adds no
// deallocation) and returns a fresh buffer twice, its argument, a view of
// its argument and a global: the harness frees the fresh buffer once and
// leaves the others alone.
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

func.func @forward(%x: memref<1024x1024xf32>)
    -> (memref<1024x1024xf32>, memref<1024x1024xf32>,
        memref<4x4xf32, strided<[1024, 1], offset: 2048>>, memref<4xf32>,
        memref<1024x1024xf32>) {
  %y = memref.alloc() : memref<1024x1024xf32>
  %tmp = memref.alloc() : memref<1024x1024xf32>
  linalg.add ins(%x, %x : memref<1024x1024xf32>, memref<1024x1024xf32>)
             outs(%tmp : memref<1024x1024xf32>)
  linalg.add ins(%tmp, %x : memref<1024x1024xf32>, memref<1024x1024xf32>)
             outs(%y : memref<1024x1024xf32>)
  memref.dealloc %tmp : memref<1024x1024xf32>
  %v = memref.subview %x[2, 0] [4, 4] [1, 1]
      : memref<1024x1024xf32> to memref<4x4xf32, strided<[1024, 1], offset: 2048>>
  %g = memref.get_global @table : memref<4xf32>
  return %y, %x, %v, %g, %y
      : memref<1024x1024xf32>, memref<1024x1024xf32>,
        memref<4x4xf32, strided<[1024, 1], offset: 2048>>, memref<4xf32>,
        memref<1024x1024xf32>
}
