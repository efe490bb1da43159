// Loops bounded by an affine.min, as nested tiling leaves a partial tile:
// @sum carries its sum in iter_args (the loop has a result); @copy has
// none.
#at_most_4 = affine_map<()[s0] -> (s0, 4)>
func.func @sum(%a: memref<61xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %ub = affine.min #at_most_4()[%n]
  %s = scf.for %i = %c0 to %ub step %c1 iter_args(%acc = %zero) -> (f32) {
    %v = memref.load %a[%i] : memref<61xf32>
    %next = arith.addf %acc, %v : f32
    scf.yield %next : f32
  }
  return %s : f32
}

func.func @copy(%a: memref<61xf32>, %b: memref<61xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ub = affine.min #at_most_4()[%n]
  scf.for %i = %c0 to %ub step %c1 {
    %v = memref.load %a[%i] : memref<61xf32>
    memref.store %v, %b[%i] : memref<61xf32>
  }
  return
}
