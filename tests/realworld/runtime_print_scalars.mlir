// Calls into every scalar printer of the runner utils library: printF32,
// printF64, printI64, printU64, printOpen/printClose/printComma and
// printNewline, printing a running sum and its square root as a tuple per
// step, then the unsigned view of a negative number.
// UPSTREAM: base

func.func @main() {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %zi = arith.constant 0 : i64
  %r:2 = scf.for %i = %c0 to %c5 step %c1 iter_args(%s = %z, %k = %zi) -> (f64, i64) {
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f64
    %sq = arith.mulf %f, %f : f64
    %s2 = arith.addf %s, %sq : f64
    %k2 = arith.addi %k, %ii : i64
    %rt = math.sqrt %s2 : f64
    %rt32 = arith.truncf %rt : f64 to f32
    func.call @printOpen() : () -> ()
    func.call @printI64(%k2) : (i64) -> ()
    func.call @printComma() : () -> ()
    func.call @printF64(%s2) : (f64) -> ()
    func.call @printComma() : () -> ()
    func.call @printF32(%rt32) : (f32) -> ()
    func.call @printClose() : () -> ()
    func.call @printNewline() : () -> ()
    scf.yield %s2, %k2 : f64, i64
  }
  %neg = arith.constant -5 : i64
  func.call @printU64(%neg) : (i64) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func private @printOpen()
func.func private @printClose()
func.func private @printComma()
func.func private @printNewline()
func.func private @printI64(i64)
func.func private @printU64(i64)
func.func private @printF32(f32)
func.func private @printF64(f64)
