// A small program split into several functions, as hand-written kernels
// are: private helpers (a dot product on memrefs, a recursive integer
// factorial, a scaled axpy) called from @main, and a public helper that is
// not the entry. Prints dot(x, y), 10!, and axpy's result.
// UPSTREAM: base

func.func private @dot(%x: memref<6xf64>, %y: memref<6xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c6 = arith.constant 6 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %c6 step %c1 iter_args(%acc = %z) -> (f64) {
    %a = memref.load %x[%i] : memref<6xf64>
    %b = memref.load %y[%i] : memref<6xf64>
    %p = arith.mulf %a, %b : f64
    %s = arith.addf %acc, %p : f64
    scf.yield %s : f64
  }
  return %r : f64
}

func.func private @fact(%n: i64) -> i64 {
  %one = arith.constant 1 : i64
  %le = arith.cmpi sle, %n, %one : i64
  %r = scf.if %le -> (i64) {
    scf.yield %one : i64
  } else {
    %m = arith.subi %n, %one : i64
    %f = func.call @fact(%m) : (i64) -> i64
    %p = arith.muli %n, %f : i64
    scf.yield %p : i64
  }
  return %r : i64
}

func.func @axpy(%a: f64, %x: memref<6xf64>, %y: memref<6xf64>) {
  %c0 = arith.constant 0 : index
  %c6 = arith.constant 6 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c6 step %c1 {
    %u = memref.load %x[%i] : memref<6xf64>
    %v = memref.load %y[%i] : memref<6xf64>
    %p = arith.mulf %a, %u : f64
    %s = arith.addf %p, %v : f64
    memref.store %s, %y[%i] : memref<6xf64>
  }
  return
}

func.func private @fill(%m: memref<6xf64>, %scale: f64) {
  %c0 = arith.constant 0 : index
  %c6 = arith.constant 6 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c6 step %c1 {
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f64
    %v = arith.mulf %f, %scale : f64
    memref.store %v, %m[%i] : memref<6xf64>
  }
  return
}

func.func @main() {
  %x = memref.alloc() : memref<6xf64>
  %y = memref.alloc() : memref<6xf64>
  %s1 = arith.constant 0.5 : f64
  %s2 = arith.constant -1.25 : f64
  call @fill(%x, %s1) : (memref<6xf64>, f64) -> ()
  call @fill(%y, %s2) : (memref<6xf64>, f64) -> ()
  %d = call @dot(%x, %y) : (memref<6xf64>, memref<6xf64>) -> f64
  call @printF64(%d) : (f64) -> ()
  call @printNewline() : () -> ()
  %ten = arith.constant 10 : i64
  %f = call @fact(%ten) : (i64) -> i64
  call @printI64(%f) : (i64) -> ()
  call @printNewline() : () -> ()
  %a = arith.constant 3.0 : f64
  call @axpy(%a, %x, %y) : (f64, memref<6xf64>, memref<6xf64>) -> ()
  %u = memref.cast %y : memref<6xf64> to memref<*xf64>
  call @printMemrefF64(%u) : (memref<*xf64>) -> ()
  memref.dealloc %x : memref<6xf64>
  memref.dealloc %y : memref<6xf64>
  return
}

func.func private @printF64(f64)
func.func private @printI64(i64)
func.func private @printNewline()
func.func private @printMemrefF64(memref<*xf64>)
