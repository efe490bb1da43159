// A tanh-started iteration whose trip count is an output: math-approx is
// refused here (an ulp moved can change the count).
func.func @forward(%x: memref<16xf32>, %n: memref<16xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %tol = arith.constant 1.0e-07 : f32
  %zero_i = arith.constant 0 : i32
  %one_i = arith.constant 1 : i32
  scf.for %i = %c0 to %c16 step %c1 {
    %raw = memref.load %x[%i] : memref<16xf32>
    %v0 = math.tanh %raw : f32
    %r:2 = scf.while (%v = %v0, %k = %zero_i) : (f32, i32) -> (f32, i32) {
      %h = arith.mulf %v, %v : f32
      %d = arith.subf %h, %v : f32
      %ad = math.absf %d : f32
      %go = arith.cmpf ogt, %ad, %tol : f32
      %k1 = arith.addi %k, %one_i : i32
      scf.condition(%go) %h, %k1 : f32, i32
    } do {
    ^bb0(%a: f32, %b: i32):
      scf.yield %a, %b : f32, i32
    }
    memref.store %r#1, %n[%i] : memref<16xi32>
  }
  return
}
