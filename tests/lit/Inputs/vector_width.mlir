// Two functions with 16-wide f32 vector ops and one declaration: the input of
// tests/lit/vector_width.test. @keep already carries a passthrough entry.
func.func @scale(%a: memref<64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %z = arith.constant 0.0 : f32
  %b = vector.broadcast %s : f32 to vector<16xf32>
  scf.for %i = %c0 to %c64 step %c16 {
    %v = vector.transfer_read %a[%i], %z {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %r = arith.mulf %v, %b : vector<16xf32>
    vector.transfer_write %r, %a[%i] {in_bounds = [true]} : vector<16xf32>, memref<64xf32>
  }
  return
}

func.func @keep(%a: memref<64xf32>) attributes {passthrough = ["noinline"]} {
  %s = arith.constant 2.0 : f32
  call @scale(%a, %s) : (memref<64xf32>, f32) -> ()
  return
}

func.func private @external(memref<64xf32>)
