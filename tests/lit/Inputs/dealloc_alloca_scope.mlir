// A heap buffer allocated inside a memref.alloca_scope (straight-line code
// in the scope, the loop outside it): the deallocation step puts an scf.if
// into the scope's region, which the later lowering of scf to control flow
// turns into blocks the scope cannot hold. The finisher leaves such modules
// without the step.
func.func @forward(%x: memref<8xf32>) -> memref<8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %out = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    memref.alloca_scope {
      %tmp = memref.alloc() : memref<1xf32>
      %v = memref.load %x[%i] : memref<8xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %tmp[%c0] : memref<1xf32>
      %r = memref.load %tmp[%c0] : memref<1xf32>
      memref.store %r, %out[%i] : memref<8xf32>
    }
  }
  return %out : memref<8xf32>
}
