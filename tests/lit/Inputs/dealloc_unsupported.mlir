// A buffer that leaves a multi-block scf.execute_region: the ownership-based
// deallocation refuses the unstructured control flow inside the region, so
// the finisher lowers the module without freeing it.
func.func @forward(%n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %r = scf.execute_region -> memref<16xf32> {
    %b = memref.alloc() : memref<16xf32>
    cf.br ^bb1(%b : memref<16xf32>)
  ^bb1(%m: memref<16xf32>):
    scf.yield %m : memref<16xf32>
  }
  memref.store %cst, %r[%c0] : memref<16xf32>
  %x = memref.load %r[%c0] : memref<16xf32>
  return %x : f32
}
