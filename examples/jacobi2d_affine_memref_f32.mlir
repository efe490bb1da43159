// PolyBench/C "jacobi-2d" stencil as an affine loop nest on memrefs (f32):
//   for t in 0..TSTEPS:
//     B[i][j] = 0.2 * (A[i][j] + A[i][j-1] + A[i][j+1] + A[i+1][j] + A[i-1][j])  (1 <= i,j < N-1)
//     A[i][j] = 0.2 * (B[i][j] + B[i][j-1] + B[i][j+1] + B[i+1][j] + B[i-1][j])
// with N = 32 and TSTEPS = 8. The kernel @kernel_jacobi_2d uses affine.for with
// shifted affine.load subscripts (%j - 1, %i + 1, ...). @main initialises like
// PolyBench's init_array:
//   A[i][j] = (i*(j+2) + 2) / N,   B[i][j] = (i*(j+3) + 3) / N
// and prints the final A (32x32; boundary rows/columns keep their initial values).
// Note: docs/DESIGN.md records that affine-loop-tile{tile-size=64} +
// affine-super-vectorize miscompiled this kind of stencil, so its output is a
// useful correctness check.

func.func @kernel_jacobi_2d(%A: memref<32x32xf32>, %B: memref<32x32xf32>) {
  %fifth = arith.constant 0.2 : f32
  affine.for %t = 0 to 8 {
    affine.for %i = 1 to 31 {
      affine.for %j = 1 to 31 {
        %a0 = affine.load %A[%i, %j] : memref<32x32xf32>
        %a1 = affine.load %A[%i, %j - 1] : memref<32x32xf32>
        %a2 = affine.load %A[%i, %j + 1] : memref<32x32xf32>
        %a3 = affine.load %A[%i + 1, %j] : memref<32x32xf32>
        %a4 = affine.load %A[%i - 1, %j] : memref<32x32xf32>
        %s0 = arith.addf %a0, %a1 : f32
        %s1 = arith.addf %s0, %a2 : f32
        %s2 = arith.addf %s1, %a3 : f32
        %s3 = arith.addf %s2, %a4 : f32
        %v = arith.mulf %fifth, %s3 : f32
        affine.store %v, %B[%i, %j] : memref<32x32xf32>
      }
    }
    affine.for %i = 1 to 31 {
      affine.for %j = 1 to 31 {
        %b0 = affine.load %B[%i, %j] : memref<32x32xf32>
        %b1 = affine.load %B[%i, %j - 1] : memref<32x32xf32>
        %b2 = affine.load %B[%i, %j + 1] : memref<32x32xf32>
        %b3 = affine.load %B[%i + 1, %j] : memref<32x32xf32>
        %b4 = affine.load %B[%i - 1, %j] : memref<32x32xf32>
        %s0 = arith.addf %b0, %b1 : f32
        %s1 = arith.addf %s0, %b2 : f32
        %s2 = arith.addf %s1, %b3 : f32
        %s3 = arith.addf %s2, %b4 : f32
        %v = arith.mulf %fifth, %s3 : f32
        affine.store %v, %A[%i, %j] : memref<32x32xf32>
      }
    }
  }
  return
}

func.func @main() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %fn = arith.constant 32.0 : f32
  %A = memref.alloc() : memref<32x32xf32>
  %B = memref.alloc() : memref<32x32xf32>

  affine.for %i = 0 to 32 {
    affine.for %j = 0 to 32 {
      %j2 = arith.addi %j, %c2 : index
      %ta = arith.muli %i, %j2 : index
      %ta2 = arith.addi %ta, %c2 : index
      %ta3 = arith.index_cast %ta2 : index to i32
      %ta4 = arith.sitofp %ta3 : i32 to f32
      %va = arith.divf %ta4, %fn : f32
      affine.store %va, %A[%i, %j] : memref<32x32xf32>
      %j3 = arith.addi %j, %c3 : index
      %tb = arith.muli %i, %j3 : index
      %tb2 = arith.addi %tb, %c3 : index
      %tb3 = arith.index_cast %tb2 : index to i32
      %tb4 = arith.sitofp %tb3 : i32 to f32
      %vb = arith.divf %tb4, %fn : f32
      affine.store %vb, %B[%i, %j] : memref<32x32xf32>
    }
  }

  call @kernel_jacobi_2d(%A, %B) : (memref<32x32xf32>, memref<32x32xf32>) -> ()

  %u = memref.cast %A : memref<32x32xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()

  memref.dealloc %A : memref<32x32xf32>
  memref.dealloc %B : memref<32x32xf32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
