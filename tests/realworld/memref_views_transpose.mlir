// Buffer views and copies on memrefs: memref.subview with strides (every
// other column), memref.copy into a compact buffer, memref.expand_shape /
// collapse_shape, linalg.transpose on a strided view, memref.reinterpret_cast
// and memref.alloca for a scratch row. Prints the transposed view and the
// reshaped buffer.
// UPSTREAM: base

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %m = memref.alloc() : memref<4x6xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c6 step %c1 {
      %t = arith.muli %i, %c6 : index
      %k = arith.addi %t, %j : index
      %x = arith.index_cast %k : index to i32
      %f = arith.sitofp %x : i32 to f32
      memref.store %f, %m[%i, %j] : memref<4x6xf32>
    }
  }
  %v = memref.subview %m[0, 1] [4, 3] [1, 2] : memref<4x6xf32> to memref<4x3xf32, strided<[6, 2], offset: 1>>
  %t = memref.alloc() : memref<3x4xf32>
  linalg.transpose ins(%v : memref<4x3xf32, strided<[6, 2], offset: 1>>)
                   outs(%t : memref<3x4xf32>) permutation = [1, 0]
  %u = memref.cast %t : memref<3x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %flat = memref.collapse_shape %t [[0, 1]] : memref<3x4xf32> into memref<12xf32>
  %re = memref.expand_shape %flat [[0, 1]] output_shape [2, 6] : memref<12xf32> into memref<2x6xf32>
  %row = memref.alloca() : memref<6xf32>
  %r1 = memref.subview %re[1, 0] [1, 6] [1, 1] : memref<2x6xf32> to memref<6xf32, strided<[1], offset: 6>>
  memref.copy %r1, %row : memref<6xf32, strided<[1], offset: 6>> to memref<6xf32>
  %rc = memref.reinterpret_cast %row to offset: [0], sizes: [3, 2], strides: [2, 1] : memref<6xf32> to memref<3x2xf32>
  %ur = memref.cast %rc : memref<3x2xf32> to memref<*xf32>
  call @printMemrefF32(%ur) : (memref<*xf32>) -> ()
  memref.dealloc %m : memref<4x6xf32>
  memref.dealloc %t : memref<3x4xf32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
