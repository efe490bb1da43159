// A kernel that returns how long its loop took, the way MLIR-RL's benchmarks
// do (nanoTime, declared with the C interface), next to a real result: the
// sum of its input. The check must skip the timing and still compare the sum.
func.func private @nanoTime() -> i64 attributes {llvm.emit_c_interface}

func.func @forward(%a: memref<256xf32>) -> (i64, f32) {
  %zero = arith.constant 0.0 : f32
  %t0 = call @nanoTime() : () -> i64
  %s = affine.for %i = 0 to 256 iter_args(%acc = %zero) -> f32 {
    %v = affine.load %a[%i] : memref<256xf32>
    %n = arith.addf %acc, %v : f32
    affine.yield %n : f32
  }
  %t1 = call @nanoTime() : () -> i64
  %d = arith.subi %t1, %t0 : i64
  return %d, %s : i64, f32
}
