// Module-level data: a constant memref.global holding a 3x4 weight matrix
// and a mutable private global used as an accumulator across calls.
// @accumulate adds W * v into the accumulator; @main calls it twice with
// different vectors and prints the accumulator and the weights.
// UPSTREAM: base

memref.global "private" constant @weights : memref<3x4xf32> =
    dense<[[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 0.0, 2.0], [0.25, 0.25, 0.25, 0.25]]>
memref.global "private" @acc : memref<3xf32> = dense<0.0>

func.func private @accumulate(%v: memref<4xf32>) {
  %w = memref.get_global @weights : memref<3x4xf32>
  %a = memref.get_global @acc : memref<3xf32>
  affine.for %i = 0 to 3 {
    affine.for %j = 0 to 4 {
      %x = affine.load %w[%i, %j] : memref<3x4xf32>
      %y = affine.load %v[%j] : memref<4xf32>
      %s = affine.load %a[%i] : memref<3xf32>
      %p = arith.mulf %x, %y : f32
      %t = arith.addf %s, %p : f32
      affine.store %t, %a[%i] : memref<3xf32>
    }
  }
  return
}

func.func @main() {
  %v = memref.alloc() : memref<4xf32>
  affine.for %j = 0 to 4 {
    %jj = arith.index_cast %j : index to i32
    %f = arith.sitofp %jj : i32 to f32
    affine.store %f, %v[%j] : memref<4xf32>
  }
  call @accumulate(%v) : (memref<4xf32>) -> ()
  %one = arith.constant 1.0 : f32
  affine.for %j = 0 to 4 {
    affine.store %one, %v[%j] : memref<4xf32>
  }
  call @accumulate(%v) : (memref<4xf32>) -> ()
  %a = memref.get_global @acc : memref<3xf32>
  %u = memref.cast %a : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %w = memref.get_global @weights : memref<3x4xf32>
  %uw = memref.cast %w : memref<3x4xf32> to memref<*xf32>
  call @printMemrefF32(%uw) : (memref<*xf32>) -> ()
  memref.dealloc %v : memref<4xf32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
