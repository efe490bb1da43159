// Data-dependent control flow: Euclid's gcd and the Collatz step count in
// scf.while loops (with scf.condition carrying two values), driven by an
// scf.for over pairs, plus cf-style early exit through scf.if. Prints
// "a, b, gcd, steps(a)" per pair as i64.
// UPSTREAM: base

func.func private @gcd(%a: i64, %b: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %r:2 = scf.while (%x = %a, %y = %b) : (i64, i64) -> (i64, i64) {
    %c = arith.cmpi ne, %y, %zero : i64
    scf.condition(%c) %x, %y : i64, i64
  } do {
  ^bb0(%x: i64, %y: i64):
    %m = arith.remsi %x, %y : i64
    scf.yield %y, %m : i64, i64
  }
  return %r#0 : i64
}

func.func private @collatz(%n: i64) -> i64 {
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %three = arith.constant 3 : i64
  %zero = arith.constant 0 : i64
  %r:2 = scf.while (%x = %n, %k = %zero) : (i64, i64) -> (i64, i64) {
    %c = arith.cmpi sgt, %x, %one : i64
    scf.condition(%c) %x, %k : i64, i64
  } do {
  ^bb0(%x: i64, %k: i64):
    %odd = arith.remsi %x, %two : i64
    %isodd = arith.cmpi ne, %odd, %zero : i64
    %nx = scf.if %isodd -> (i64) {
      %t = arith.muli %x, %three : i64
      %u = arith.addi %t, %one : i64
      scf.yield %u : i64
    } else {
      %h = arith.divsi %x, %two : i64
      scf.yield %h : i64
    }
    %nk = arith.addi %k, %one : i64
    scf.yield %nx, %nk : i64, i64
  }
  return %r#1 : i64
}

func.func @main() {
  %as = arith.constant dense<[12, 1071, 97, 360, 27, 0]> : tensor<6xi64>
  %bs = arith.constant dense<[18, 462, 13, 84, 81, 5]> : tensor<6xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  scf.for %i = %c0 to %c6 step %c1 {
    %a = tensor.extract %as[%i] : tensor<6xi64>
    %b = tensor.extract %bs[%i] : tensor<6xi64>
    %g = func.call @gcd(%a, %b) : (i64, i64) -> i64
    %s = func.call @collatz(%a) : (i64) -> i64
    func.call @printI64(%a) : (i64) -> ()
    func.call @printComma() : () -> ()
    func.call @printI64(%b) : (i64) -> ()
    func.call @printComma() : () -> ()
    func.call @printI64(%g) : (i64) -> ()
    func.call @printComma() : () -> ()
    func.call @printI64(%s) : (i64) -> ()
    func.call @printNewline() : () -> ()
  }
  return
}

func.func private @printI64(i64)
func.func private @printComma()
func.func private @printNewline()
