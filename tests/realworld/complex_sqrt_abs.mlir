// Complex arithmetic on scalars: complex.sqrt, complex.abs, complex.exp,
// complex.mul and complex.div. complex-to-llvm lowers only create/re/im,
// add/sub/mul/div/abs; sqrt and exp need convert-complex-to-standard first.
// Stores the results in a memref<4xcomplex<f32>> and prints it, then the
// modulus of the first one with printF32.
// UPSTREAM: base

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %re = arith.constant -3.0 : f32
  %im = arith.constant 4.0 : f32
  %z = complex.create %re, %im : complex<f32>
  %w = complex.constant [0.5 : f32, -0.25 : f32] : complex<f32>
  %s = complex.sqrt %z : complex<f32>
  %e = complex.exp %w : complex<f32>
  %m = complex.mul %s, %w : complex<f32>
  %d = complex.div %z, %w : complex<f32>
  %buf = memref.alloc() : memref<4xcomplex<f32>>
  memref.store %s, %buf[%c0] : memref<4xcomplex<f32>>
  memref.store %e, %buf[%c1] : memref<4xcomplex<f32>>
  memref.store %m, %buf[%c2] : memref<4xcomplex<f32>>
  memref.store %d, %buf[%c3] : memref<4xcomplex<f32>>
  %u = memref.cast %buf : memref<4xcomplex<f32>> to memref<*xcomplex<f32>>
  call @printMemrefC32(%u) : (memref<*xcomplex<f32>>) -> ()
  %a = complex.abs %z : complex<f32>
  call @printF32(%a) : (f32) -> ()
  call @printNewline() : () -> ()
  memref.dealloc %buf : memref<4xcomplex<f32>>
  return
}

func.func private @printMemrefC32(memref<*xcomplex<f32>>)
func.func private @printF32(f32)
func.func private @printNewline()
