// Masked vector code as the vectorizer emits it for a remainder: a
// vector.mask region around vector.transfer_read / transfer_write and a
// masked vector.reduction, with masks from vector.create_mask. The last 3
// of 8 lanes are masked off: reads give the padding value, writes skip
// them. Needs lower-vector-mask before the transfers are lowered.
// UPSTREAM: base

func.func @main() {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %pad = arith.constant -1.0 : f32
  %src = memref.alloc() : memref<8xf32>
  %dst = memref.alloc() : memref<8xf32>
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %g = arith.addf %f, %f : f32
    memref.store %g, %src[%i] : memref<8xf32>
    memref.store %z, %dst[%i] : memref<8xf32>
  }
  %m = vector.create_mask %c5 : vector<8xi1>
  %v = vector.mask %m { vector.transfer_read %src[%c0], %pad : memref<8xf32>, vector<8xf32> } : vector<8xi1> -> vector<8xf32>
  vector.print %v : vector<8xf32>
  %sq = arith.mulf %v, %v : vector<8xf32>
  vector.mask %m { vector.transfer_write %sq, %dst[%c0] : vector<8xf32>, memref<8xf32> } : vector<8xi1>
  %s = vector.mask %m { vector.reduction <add>, %v : vector<8xf32> into f32 } : vector<8xi1> -> f32
  vector.print %s : f32
  %u = memref.cast %dst : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %src : memref<8xf32>
  memref.dealloc %dst : memref<8xf32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
