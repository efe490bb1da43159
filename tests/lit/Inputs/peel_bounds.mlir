// Two loop nests for safety_peel.test: @shared's loops share their upper
// bound %c6 (as after CSE), @distinct's do not.
func.func @shared(%out: memref<6x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c6 step %c1 {
    scf.for %j = %c0 to %c6 step %c1 {
      memref.store %one, %out[%i, %j] : memref<6x6xf32>
    }
  }
  return
}
func.func @distinct(%out: memref<4x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c6 step %c1 {
      memref.store %one, %out[%i, %j] : memref<4x6xf32>
    }
  }
  return
}
