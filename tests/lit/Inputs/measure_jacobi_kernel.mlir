// The jacobi-2d kernel of examples/jacobi2d_affine_memref_f32.mlir alone
// (PolyBench "jacobi-2d", N = 32, TSTEPS = 8, affine loops on memrefs). Its
// entry @kernel_jacobi_2d takes A and B in place. docs/DESIGN.md records that
// affine-loop-tile{tile-size=64} followed by
// affine-super-vectorize{virtual-vector-size=8} miscompiles it (max error
// about 1.0): a real wrong_output case.

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

