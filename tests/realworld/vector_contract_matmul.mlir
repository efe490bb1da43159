// A register-tile matmul written with vector.contract, as a code generator
// emits it: C(4x4) += A(4x8) * B(8x4) read from memrefs with
// vector.transfer_read (B with a transposing permutation map from an 4x8
// buffer), contracted, and written back with vector.transfer_write.
// Prints C.
// UPSTREAM: base

#mA = affine_map<(i, j, k) -> (i, k)>
#mB = affine_map<(i, j, k) -> (k, j)>
#mC = affine_map<(i, j, k) -> (i, j)>
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %f0 = arith.constant 0.0 : f32
  %A = memref.alloc() : memref<4x8xf32>
  %Bt = memref.alloc() : memref<4x8xf32>
  %C = memref.alloc() : memref<4x4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %k = %c0 to %c8 step %c1 {
      %ik = arith.addi %i, %k : index
      %x = arith.index_cast %ik : index to i32
      %fx = arith.sitofp %x : i32 to f32
      memref.store %fx, %A[%i, %k] : memref<4x8xf32>
      %d = arith.subi %k, %i : index
      %y = arith.index_cast %d : index to i32
      %fy = arith.sitofp %y : i32 to f32
      memref.store %fy, %Bt[%i, %k] : memref<4x8xf32>
    }
    scf.for %j = %c0 to %c4 step %c1 {
      memref.store %f0, %C[%i, %j] : memref<4x4xf32>
    }
  }
  %va = vector.transfer_read %A[%c0, %c0], %f0 : memref<4x8xf32>, vector<4x8xf32>
  %vb = vector.transfer_read %Bt[%c0, %c0], %f0 {permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<4x8xf32>, vector<8x4xf32>
  %vc = vector.transfer_read %C[%c0, %c0], %f0 : memref<4x4xf32>, vector<4x4xf32>
  %r = vector.contract {indexing_maps = [#mA, #mB, #mC],
                        iterator_types = ["parallel", "parallel", "reduction"],
                        kind = #vector.kind<add>} %va, %vb, %vc
      : vector<4x8xf32>, vector<8x4xf32> into vector<4x4xf32>
  vector.transfer_write %r, %C[%c0, %c0] : vector<4x4xf32>, memref<4x4xf32>
  %u = memref.cast %C : memref<4x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %A : memref<4x8xf32>
  memref.dealloc %Bt : memref<4x8xf32>
  memref.dealloc %C : memref<4x4xf32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
