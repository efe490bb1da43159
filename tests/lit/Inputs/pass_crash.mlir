// A module on which an upstream pass segfaults, deterministically, inside
// MLIR 19: affine-data-copy-generate{generate-dma=false fast-mem-space=0}
// dereferences a null pointer on any affine access to a 0-d memref (here the
// accumulator %acc). The crash tests (measure_pass_crash.test and those it
// names) use this pair, so that every build sees the same crash.
//   row_sum[i] = sum_j A[i][j],  total = sum_i row_sum[i]
// with A[i][j] = (i + 2 j) / 16, printed by @main.

func.func @kernel_sums(%A: memref<16x16xf32>, %rows: memref<16xf32>,
                       %acc: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  affine.store %zero, %acc[] : memref<f32>
  affine.for %i = 0 to 16 {
    affine.store %zero, %rows[%i] : memref<16xf32>
    affine.for %j = 0 to 16 {
      %a = affine.load %A[%i, %j] : memref<16x16xf32>
      %r = affine.load %rows[%i] : memref<16xf32>
      %s = arith.addf %r, %a : f32
      affine.store %s, %rows[%i] : memref<16xf32>
    }
    %t = affine.load %acc[] : memref<f32>
    %r = affine.load %rows[%i] : memref<16xf32>
    %u = arith.addf %t, %r : f32
    affine.store %u, %acc[] : memref<f32>
  }
  return
}

func.func @main() {
  %c2 = arith.constant 2 : index
  %f16 = arith.constant 16.0 : f32
  %A = memref.alloc() : memref<16x16xf32>
  %rows = memref.alloc() : memref<16xf32>
  %acc = memref.alloc() : memref<f32>
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 16 {
      %j2 = arith.muli %j, %c2 : index
      %k = arith.addi %i, %j2 : index
      %ki = arith.index_cast %k : index to i32
      %kf = arith.sitofp %ki : i32 to f32
      %v = arith.divf %kf, %f16 : f32
      affine.store %v, %A[%i, %j] : memref<16x16xf32>
    }
  }
  call @kernel_sums(%A, %rows, %acc)
      : (memref<16x16xf32>, memref<16xf32>, memref<f32>) -> ()
  %pr = memref.cast %rows : memref<16xf32> to memref<*xf32>
  call @printMemrefF32(%pr) : (memref<*xf32>) -> ()
  %pa = memref.cast %acc : memref<f32> to memref<*xf32>
  call @printMemrefF32(%pa) : (memref<*xf32>) -> ()
  memref.dealloc %A : memref<16x16xf32>
  memref.dealloc %rows : memref<16xf32>
  memref.dealloc %acc : memref<f32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
