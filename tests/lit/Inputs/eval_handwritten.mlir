// A hand-written module outside the generator's families (no family header):
// scales a vector in place with an scf loop.
func.func @forward(%a: memref<65536xf32>) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 65536 : index
  %k = arith.constant 1.5 : f32
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %a[%i] : memref<65536xf32>
    %s = arith.mulf %v, %k : f32
    memref.store %s, %a[%i] : memref<65536xf32>
  }
  return
}
