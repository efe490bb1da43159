// PolyBench/C "gemm" written directly as an affine loop nest on memrefs (f64):
//   C = alpha * A * B + beta * C,  A: 20x28, B: 28x24, C: 20x24
// The kernel @kernel_gemm follows the PolyBench 4.2 loop order
//   for i: (for j: C[i][j] *= beta); for k: for j: C[i][j] += alpha*A[i][k]*B[k][j]
// using affine.for / affine.load / affine.store, with the scalars alpha and beta
// as function arguments. @main initialises the arrays exactly like PolyBench's
// init_array (also with affine loops):
//   C[i][j] = ((i*j + 1) mod NI) / NI
//   A[i][k] = (i*(k+1) mod NK) / NK
//   B[k][j] = (k*(j+2) mod NJ) / NJ
// with alpha = 1.5, beta = 1.2, and prints the 20x24 result C.

func.func @kernel_gemm(%alpha: f64, %beta: f64, %C: memref<20x24xf64>,
                       %A: memref<20x28xf64>, %B: memref<28x24xf64>) {
  affine.for %i = 0 to 20 {
    affine.for %j = 0 to 24 {
      %c = affine.load %C[%i, %j] : memref<20x24xf64>
      %cb = arith.mulf %c, %beta : f64
      affine.store %cb, %C[%i, %j] : memref<20x24xf64>
    }
    affine.for %k = 0 to 28 {
      %a = affine.load %A[%i, %k] : memref<20x28xf64>
      %aa = arith.mulf %alpha, %a : f64
      affine.for %j = 0 to 24 {
        %b = affine.load %B[%k, %j] : memref<28x24xf64>
        %p = arith.mulf %aa, %b : f64
        %c = affine.load %C[%i, %j] : memref<20x24xf64>
        %s = arith.addf %c, %p : f64
        affine.store %s, %C[%i, %j] : memref<20x24xf64>
      }
    }
  }
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ni = arith.constant 20 : index
  %nj = arith.constant 24 : index
  %nk = arith.constant 28 : index
  %fni = arith.constant 20.0 : f64
  %fnj = arith.constant 24.0 : f64
  %fnk = arith.constant 28.0 : f64
  %alpha = arith.constant 1.5 : f64
  %beta = arith.constant 1.2 : f64

  %A = memref.alloc() : memref<20x28xf64>
  %B = memref.alloc() : memref<28x24xf64>
  %C = memref.alloc() : memref<20x24xf64>

  affine.for %i = 0 to 20 {
    affine.for %j = 0 to 24 {
      %t0 = arith.muli %i, %j : index
      %t1 = arith.addi %t0, %c1 : index
      %t2 = arith.remui %t1, %ni : index
      %t3 = arith.index_cast %t2 : index to i64
      %t4 = arith.sitofp %t3 : i64 to f64
      %v = arith.divf %t4, %fni : f64
      affine.store %v, %C[%i, %j] : memref<20x24xf64>
    }
  }
  affine.for %i = 0 to 20 {
    affine.for %k = 0 to 28 {
      %k1 = arith.addi %k, %c1 : index
      %t0 = arith.muli %i, %k1 : index
      %t2 = arith.remui %t0, %nk : index
      %t3 = arith.index_cast %t2 : index to i64
      %t4 = arith.sitofp %t3 : i64 to f64
      %v = arith.divf %t4, %fnk : f64
      affine.store %v, %A[%i, %k] : memref<20x28xf64>
    }
  }
  affine.for %k = 0 to 28 {
    affine.for %j = 0 to 24 {
      %j2 = arith.addi %j, %c2 : index
      %t0 = arith.muli %k, %j2 : index
      %t2 = arith.remui %t0, %nj : index
      %t3 = arith.index_cast %t2 : index to i64
      %t4 = arith.sitofp %t3 : i64 to f64
      %v = arith.divf %t4, %fnj : f64
      affine.store %v, %B[%k, %j] : memref<28x24xf64>
    }
  }

  call @kernel_gemm(%alpha, %beta, %C, %A, %B)
      : (f64, f64, memref<20x24xf64>, memref<20x28xf64>, memref<28x24xf64>) -> ()

  %u = memref.cast %C : memref<20x24xf64> to memref<*xf64>
  call @printMemrefF64(%u) : (memref<*xf64>) -> ()

  memref.dealloc %A : memref<20x28xf64>
  memref.dealloc %B : memref<28x24xf64>
  memref.dealloc %C : memref<20x24xf64>
  return
}

func.func private @printMemrefF64(memref<*xf64>)
