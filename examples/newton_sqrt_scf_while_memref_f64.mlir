// Data-dependent iteration with scf.while, on memrefs (f64): Newton's method
// for square roots,  y_{n+1} = 0.5 * (y_n + x / y_n),  started at y_0 = x and
// run until |y_{n+1} - y_n| <= 1e-12 * y_{n+1} (or 100 steps). The kernel
// @newton_sqrt loops over 32 inputs with scf.for; each element runs its own
// scf.while whose trip count depends on the value (large x need more steps).
// It stores the root and the number of steps taken. @main fills
//   x[i] = 0.3 + 3.7 * i^3
// and prints the roots (printMemrefF64) and step counts (printMemrefI32).
// Expected: y[i] = sqrt(x[i]), e.g. y[0] = 0.547723, y[31] = sqrt(110227) = 332.005,
// with 6 steps for x[0] rising to 14 steps for x[31].

func.func @newton_sqrt(%x: memref<32xf64>, %y: memref<32xf64>, %steps: memref<32xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %half = arith.constant 0.5 : f64
  %tol = arith.constant 1.0e-12 : f64
  %zero_i = arith.constant 0 : i32
  %one_i = arith.constant 1 : i32
  %max_i = arith.constant 100 : i32
  scf.for %i = %c0 to %c32 step %c1 {
    %xi = memref.load %x[%i] : memref<32xf64>
    %res:2 = scf.while (%yc = %xi, %n = %zero_i) : (f64, i32) -> (f64, i32) {
      %q = arith.divf %xi, %yc : f64
      %s = arith.addf %yc, %q : f64
      %yn = arith.mulf %s, %half : f64
      %d = arith.subf %yn, %yc : f64
      %ad = math.absf %d : f64
      %lim = arith.mulf %yn, %tol : f64
      %notconv = arith.cmpf ogt, %ad, %lim : f64
      %n1 = arith.addi %n, %one_i : i32
      %room = arith.cmpi slt, %n1, %max_i : i32
      %go = arith.andi %notconv, %room : i1
      scf.condition(%go) %yn, %n1 : f64, i32
    } do {
    ^bb0(%ya: f64, %na: i32):
      scf.yield %ya, %na : f64, i32
    }
    memref.store %res#0, %y[%i] : memref<32xf64>
    memref.store %res#1, %steps[%i] : memref<32xi32>
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %base = arith.constant 0.3 : f64
  %scale = arith.constant 3.7 : f64
  %x = memref.alloc() : memref<32xf64>
  %y = memref.alloc() : memref<32xf64>
  %steps = memref.alloc() : memref<32xi32>
  scf.for %i = %c0 to %c32 step %c1 {
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f64
    %i2 = arith.mulf %fi, %fi : f64
    %i3 = arith.mulf %i2, %fi : f64
    %t = arith.mulf %i3, %scale : f64
    %v = arith.addf %t, %base : f64
    memref.store %v, %x[%i] : memref<32xf64>
  }

  call @newton_sqrt(%x, %y, %steps) : (memref<32xf64>, memref<32xf64>, memref<32xi32>) -> ()

  %uy = memref.cast %y : memref<32xf64> to memref<*xf64>
  call @printMemrefF64(%uy) : (memref<*xf64>) -> ()
  %us = memref.cast %steps : memref<32xi32> to memref<*xi32>
  call @printMemrefI32(%us) : (memref<*xi32>) -> ()

  memref.dealloc %x : memref<32xf64>
  memref.dealloc %y : memref<32xf64>
  memref.dealloc %steps : memref<32xi32>
  return
}

func.func private @printMemrefF64(memref<*xf64>)
func.func private @printMemrefI32(memref<*xi32>)
