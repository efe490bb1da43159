// Buffers in loops. @scratch allocates a 4 KiB scratch buffer in each of
// 4096 iterations (promoted to the stack: 16 MiB per call); @once
// allocates it once, outside the loop.
func.func @scratch(%a: memref<4096xf32>, %b: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.constant 1024 : index
  %n = arith.constant 4096 : index
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.alloc() : memref<1024xf32>
    scf.for %j = %c0 to %m step %c1 {
      %v = memref.load %a[%j] : memref<4096xf32>
      memref.store %v, %t[%j] : memref<1024xf32>
    }
    %k = arith.remui %i, %m : index
    %w = memref.load %t[%k] : memref<1024xf32>
    memref.store %w, %b[%i] : memref<4096xf32>
  }
  return
}

func.func @once(%a: memref<4096xf32>, %b: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.constant 1024 : index
  %n = arith.constant 4096 : index
  %t = memref.alloc() : memref<1024xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %m step %c1 {
      %v = memref.load %a[%j] : memref<4096xf32>
      memref.store %v, %t[%j] : memref<1024xf32>
    }
    %k = arith.remui %i, %m : index
    %w = memref.load %t[%k] : memref<1024xf32>
    memref.store %w, %b[%i] : memref<4096xf32>
  }
  return
}

// @transfers reads and writes an 8x32 tile in each of 16384 iterations:
// convert-vector-to-scf gives each transfer a 1 KiB stack temporary per
// iteration (32 MiB per call).
func.func @transfers(%a: memref<64x32xf32>, %b: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c56 = arith.constant 56 : index
  %n = arith.constant 16384 : index
  %pad = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %r = arith.remui %i, %c56 : index
    %v = vector.transfer_read %a[%r, %c0], %pad : memref<64x32xf32>, vector<8x32xf32>
    vector.transfer_write %v, %b[%r, %c0] : vector<8x32xf32>, memref<64x32xf32>
  }
  return
}
