// For safety_fusion.test. @doitgen: PolyBench doitgen's inner nests; the
// second nest copies sum into A, which the first still reads, so fusing
// the copy into the first is wrong (MLIR 19's affine-loop-fusion does it).
// @chain: a producer and a consumer with no write after read (2mm style).
func.func @doitgen(%A: memref<4x8xf64>, %C4: memref<8x8xf64>) {
  %zero = arith.constant 0.0 : f64
  %sum = memref.alloca() : memref<8xf64>
  affine.for %q = 0 to 4 {
    affine.for %p = 0 to 8 {
      affine.store %zero, %sum[%p] : memref<8xf64>
      affine.for %s = 0 to 8 {
        %a = affine.load %A[%q, %s] : memref<4x8xf64>
        %c = affine.load %C4[%s, %p] : memref<8x8xf64>
        %m = arith.mulf %a, %c : f64
        %o = affine.load %sum[%p] : memref<8xf64>
        %n = arith.addf %o, %m : f64
        affine.store %n, %sum[%p] : memref<8xf64>
      }
    }
    affine.for %p = 0 to 8 {
      %v = affine.load %sum[%p] : memref<8xf64>
      affine.store %v, %A[%q, %p] : memref<4x8xf64>
    }
  }
  return
}
func.func @chain(%A: memref<8xf64>, %T: memref<8xf64>, %D: memref<8xf64>) {
  %two = arith.constant 2.0 : f64
  affine.for %i = 0 to 8 {
    %a = affine.load %A[%i] : memref<8xf64>
    %t = arith.mulf %a, %two : f64
    affine.store %t, %T[%i] : memref<8xf64>
  }
  affine.for %i = 0 to 8 {
    %t = affine.load %T[%i] : memref<8xf64>
    %d = arith.addf %t, %two : f64
    affine.store %d, %D[%i] : memref<8xf64>
  }
  return
}
