// Loops for mqss-scf-parallelize (tests/lit/scf_parallelize.test): which
// scf.for loops have iterations that touch different elements.

// Rows of a CSR product: each row writes y[i] only. Converted.
func.func private @csr_rows(%ptr: memref<65xindex>, %vals: memref<256xf64>, %cols: memref<256xi32>, %x: memref<64xf64>, %y: memref<64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f64
  scf.for %i = %c0 to %c64 step %c1 {
    %lo = memref.load %ptr[%i] : memref<65xindex>
    %i1 = arith.addi %i, %c1 : index
    %hi = memref.load %ptr[%i1] : memref<65xindex>
    %sum = scf.for %k = %lo to %hi step %c1 iter_args(%s = %zero) -> (f64) {
      %v = memref.load %vals[%k] : memref<256xf64>
      %c = memref.load %cols[%k] : memref<256xi32>
      %cu = arith.index_castui %c : i32 to index
      %ci = arith.remui %cu, %c64 : index
      %xv = memref.load %x[%ci] : memref<64xf64>
      %p = arith.mulf %v, %xv : f64
      %s1 = arith.addf %s, %p : f64
      scf.yield %s1 : f64
    }
    memref.store %sum, %y[%i] : memref<64xf64>
  }
  return
}

// A running sum carried from one iteration to the next: kept.
func.func private @prefix(%y: memref<64xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f64
  %t = scf.for %i = %c0 to %c64 step %c1 iter_args(%s = %zero) -> (f64) {
    %v = memref.load %y[%i] : memref<64xf64>
    %s1 = arith.addf %s, %v : f64
    scf.yield %s1 : f64
  }
  return %t : f64
}

// A histogram: iterations may add to the same bin. Kept.
func.func private @scatter(%idx: memref<256xi32>, %w: memref<256xf64>, %hist: memref<16xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  scf.for %i = %c0 to %c256 step %c1 {
    %r = memref.load %idx[%i] : memref<256xi32>
    %ri = arith.index_castui %r : i32 to index
    %b = arith.remui %ri, %c16 : index
    %wv = memref.load %w[%i] : memref<256xf64>
    %o = memref.load %hist[%b] : memref<16xf64>
    %s = arith.addf %o, %wv : f64
    memref.store %s, %hist[%b] : memref<16xf64>
  }
  return
}

// Each iteration reads the element the previous one wrote: kept.
func.func private @shift(%y: memref<65xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %v = memref.load %y[%i] : memref<65xf64>
    %i1 = arith.addi %i, %c1 : index
    memref.store %v, %y[%i1] : memref<65xf64>
  }
  return
}

// Writes y[i] but reads it through a view: kept.
func.func private @view(%y: memref<64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  %sv = memref.subview %y[1] [63] [1] : memref<64xf64> to memref<63xf64, strided<[1], offset: 1>>
  scf.for %i = %c0 to %c63 step %c1 {
    %v = memref.load %sv[%i] : memref<63xf64, strided<[1], offset: 1>>
    memref.store %v, %y[%i] : memref<64xf64>
  }
  return
}

// Two get_global ops of one global are the same buffer: each iteration
// reads the element the next one writes. Kept.
memref.global "private" @g : memref<65xf64> = dense<1.0>
func.func private @globals() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a = memref.get_global @g : memref<65xf64>
  %b = memref.get_global @g : memref<65xf64>
  scf.for %i = %c0 to %c64 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %v = memref.load %b[%i1] : memref<65xf64>
    memref.store %v, %a[%i] : memref<65xf64>
  }
  return
}

// A call whose effects the loop cannot see: kept.
func.func private @touch(%y: memref<64xf64>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %y[%c0] : memref<64xf64>
  %d = arith.addf %v, %v : f64
  memref.store %d, %y[%c0] : memref<64xf64>
  return
}
func.func private @calls(%y: memref<64xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    func.call @touch(%y) : (memref<64xf64>) -> ()
  }
  return
}

// A buffer allocated in each iteration is the iteration's own; the rows of
// the outer loop are independent, and the inner loop stays sequential
// inside the converted one.
func.func private @private_rows(%a: memref<32x8xf64>, %b: memref<32x8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c32 step %c1 {
    %t = memref.alloca() : memref<8xf64>
    scf.for %j = %c0 to %c8 step %c1 {
      %v = memref.load %a[%i, %j] : memref<32x8xf64>
      %d = arith.addf %v, %v : f64
      memref.store %d, %t[%j] : memref<8xf64>
    }
    scf.for %j = %c0 to %c8 step %c1 {
      %k = arith.subi %c8, %j : index
      %k1 = arith.subi %k, %c1 : index
      %v = memref.load %t[%k1] : memref<8xf64>
      memref.store %v, %b[%i, %j] : memref<32x8xf64>
    }
  }
  return
}

func.func @forward(%ptr: memref<65xindex>, %vals: memref<256xf64>, %cols: memref<256xi32>, %x: memref<64xf64>, %y: memref<64xf64>, %a: memref<32x8xf64>, %b: memref<32x8xf64>) -> f64 attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  // A well-formed row pointer: row i holds i mod 4 + 1 entries.
  memref.store %c0, %ptr[%c0] : memref<65xindex>
  %n = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %c0) -> (index) {
    %r = arith.remui %i, %c4 : index
    %len = arith.addi %r, %c1 : index
    %next = arith.addi %acc, %len : index
    %i1 = arith.addi %i, %c1 : index
    memref.store %next, %ptr[%i1] : memref<65xindex>
    scf.yield %next : index
  }
  call @csr_rows(%ptr, %vals, %cols, %x, %y) : (memref<65xindex>, memref<256xf64>, memref<256xi32>, memref<64xf64>, memref<64xf64>) -> ()
  call @private_rows(%a, %b) : (memref<32x8xf64>, memref<32x8xf64>) -> ()
  %s = call @prefix(%y) : (memref<64xf64>) -> f64
  return %s : f64
}
