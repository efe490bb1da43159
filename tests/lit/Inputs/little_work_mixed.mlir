// Two functions: @rows' parallel loop runs 16 iterations, each a sequential
// loop of 8,192 (131,072 in all: enough for threads); @tail's runs 64. One
// loop large enough keeps omp-parallel allowed.
func.func @rows(%x: memref<16x8192xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %cn = arith.constant 8192 : index
  %k = arith.constant 1.5 : f32
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %j = %c0 to %cn step %c1 {
      %v = memref.load %x[%i, %j] : memref<16x8192xf32>
      %w = arith.mulf %v, %k : f32
      memref.store %w, %x[%i, %j] : memref<16x8192xf32>
    }
    scf.reduce
  }
  return
}

func.func @tail(%x: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %k = arith.constant 1.5 : f32
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %v = memref.load %x[%i] : memref<64xf32>
    %w = arith.mulf %v, %k : f32
    memref.store %w, %x[%i] : memref<64xf32>
    scf.reduce
  }
  return
}
