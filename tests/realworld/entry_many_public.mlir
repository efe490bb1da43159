// A test file in the style of MLIR's integration tests: several public
// functions, none called @main or @forward, and the entry named by the
// RUN line (mlir-cpu-runner -e entry). The helpers are public on purpose:
// @entry is the function to run. Prints the helpers' results.
// UPSTREAM: base, entry

func.func @scale(%m: memref<4xf32>, %s: f32) {
  affine.for %i = 0 to 4 {
    %v = affine.load %m[%i] : memref<4xf32>
    %w = arith.mulf %v, %s : f32
    affine.store %w, %m[%i] : memref<4xf32>
  }
  return
}

func.func @sum(%m: memref<4xf32>) -> f32 {
  %z = arith.constant 0.0 : f32
  %r = affine.for %i = 0 to 4 iter_args(%a = %z) -> (f32) {
    %v = affine.load %m[%i] : memref<4xf32>
    %t = arith.addf %a, %v : f32
    affine.yield %t : f32
  }
  return %r : f32
}

func.func @checkpoint() -> i64 {
  %c = arith.constant 42 : i64
  return %c : i64
}

func.func @entry() {
  %m = memref.alloc() : memref<4xf32>
  affine.for %i = 0 to 4 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %one = arith.constant 1.0 : f32
    %g = arith.addf %f, %one : f32
    affine.store %g, %m[%i] : memref<4xf32>
  }
  %s = arith.constant -2.5 : f32
  call @scale(%m, %s) : (memref<4xf32>, f32) -> ()
  %t = call @sum(%m) : (memref<4xf32>) -> f32
  %u = memref.cast %m : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  call @printF32(%t) : (f32) -> ()
  call @printNewline() : () -> ()
  %k = call @checkpoint() : () -> i64
  call @printI64(%k) : (i64) -> ()
  call @printNewline() : () -> ()
  memref.dealloc %m : memref<4xf32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
func.func private @printF32(f32)
func.func private @printI64(i64)
func.func private @printNewline()
