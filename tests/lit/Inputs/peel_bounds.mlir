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
// @equal: the loops' bounds are two constants of one value (as lower-affine
// leaves them); the pass folds them into one before peeling.
func.func @equal(%out: memref<6x6xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c6 step %c1 {
    %c6_0 = arith.constant 6 : index
    scf.for %j = %c0 to %c6_0 step %c1 {
      memref.store %one, %out[%i, %j] : memref<6x6xf32>
    }
  }
  return
}
// @rows: CSR-style rows, row 1 empty (its bounds come from memory).
func.func @rows(%ptr: memref<4xindex>, %val: memref<8xf32>, %out: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  memref.store %c0, %ptr[%c0] : memref<4xindex>
  memref.store %c2, %ptr[%c1] : memref<4xindex>
  memref.store %c2, %ptr[%c2] : memref<4xindex>
  memref.store %c5, %ptr[%c3] : memref<4xindex>
  %zero = arith.constant 0.0 : f32
  scf.for %r = %c0 to %c3 step %c1 {
    %lo = memref.load %ptr[%r] : memref<4xindex>
    %r1 = arith.addi %r, %c1 : index
    %hi = memref.load %ptr[%r1] : memref<4xindex>
    %s = scf.for %k = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %val[%k] : memref<8xf32>
      %a = arith.addf %acc, %v : f32
      scf.yield %a : f32
    }
    memref.store %s, %out[%r] : memref<3xf32>
  }
  return
}
