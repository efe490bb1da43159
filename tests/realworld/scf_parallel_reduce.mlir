// scf.parallel loops as produced by tiling for parallelism: a 2-D parallel
// loop that writes a 6x5 grid, then a 1-D parallel loop with an scf.reduce
// that sums each row into a second buffer and a 2-D parallel reduction of
// the maximum over the whole grid. Prints the grid, row sums and maximum.
// UPSTREAM: base

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %g = memref.alloc() : memref<6x5xf32>
  %rows = memref.alloc() : memref<6xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c5) step (%c1, %c1) {
    %ij = arith.muli %i, %j : index
    %m = arith.remui %ij, %c5 : index
    %x = arith.index_cast %m : index to i32
    %f = arith.sitofp %x : i32 to f32
    %h = arith.constant 0.5 : f32
    %v = arith.subf %f, %h : f32
    memref.store %v, %g[%i, %j] : memref<6x5xf32>
    scf.reduce
  }
  %z = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c6) step (%c1) {
    %s = scf.parallel (%j) = (%c0) to (%c5) step (%c1) init (%z) -> f32 {
      %v = memref.load %g[%i, %j] : memref<6x5xf32>
      scf.reduce(%v : f32) {
      ^bb0(%l: f32, %r: f32):
        %t = arith.addf %l, %r : f32
        scf.reduce.return %t : f32
      }
    }
    memref.store %s, %rows[%i] : memref<6xf32>
    scf.reduce
  }
  %ninf = arith.constant -1.0e30 : f32
  %mx = scf.parallel (%i, %j) = (%c0, %c0) to (%c6, %c5) step (%c1, %c1) init (%ninf) -> f32 {
    %v = memref.load %g[%i, %j] : memref<6x5xf32>
    %w = arith.mulf %v, %v : f32
    scf.reduce(%w : f32) {
    ^bb0(%l: f32, %r: f32):
      %t = arith.maximumf %l, %r : f32
      scf.reduce.return %t : f32
    }
  }
  %u = memref.cast %g : memref<6x5xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %ur = memref.cast %rows : memref<6xf32> to memref<*xf32>
  call @printMemrefF32(%ur) : (memref<*xf32>) -> ()
  call @printF32(%mx) : (f32) -> ()
  call @printNewline() : () -> ()
  memref.dealloc %g : memref<6x5xf32>
  memref.dealloc %rows : memref<6xf32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printF32(f32)
func.func private @printNewline()
