// Hand-written vector code in the style of the vector dialect's CPU
// integration tests: vector.broadcast, vector.fma, vector.shuffle,
// vector.extract / insert, vector.reduction (add, maxnumf), vector.splat
// and a 2-D vector.transpose, all printed with vector.print.
// UPSTREAM: base

func.func @main() {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : vector<4xf32>
  %b = arith.constant dense<[0.5, -1.0, 2.0, -0.25]> : vector<4xf32>
  %s = arith.constant 3.0 : f32
  %bs = vector.broadcast %s : f32 to vector<4xf32>
  %f = vector.fma %a, %b, %bs : vector<4xf32>
  vector.print %f : vector<4xf32>
  %sh = vector.shuffle %a, %b [7, 0, 5, 2, 4, 1] : vector<4xf32>, vector<4xf32>
  vector.print %sh : vector<6xf32>
  %e = vector.extract %f[2] : f32 from vector<4xf32>
  %ins = vector.insert %e, %a [0] : f32 into vector<4xf32>
  vector.print %ins : vector<4xf32>
  %sum = vector.reduction <add>, %f : vector<4xf32> into f32
  %mx = vector.reduction <maxnumf>, %sh : vector<6xf32> into f32
  vector.print %sum : f32
  vector.print %mx : f32
  %sp = vector.splat %e : vector<2x3xf32>
  %m = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : vector<2x3xf32>
  %p = arith.mulf %sp, %m : vector<2x3xf32>
  %t = vector.transpose %p, [1, 0] : vector<2x3xf32> to vector<3x2xf32>
  vector.print %t : vector<3x2xf32>
  return
}
