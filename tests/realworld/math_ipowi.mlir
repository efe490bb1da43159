// Integer and mixed powers inside a loop, so nothing folds: math.ipowi on
// i32 and i64 (negative bases, exponent 0), math.fpowi (f32 base, i32
// exponent, negative exponents) and math.powf. ipowi and fpowi have no LLVM
// lowering; convert-math-to-funcs outlines them into software loops.
// Prints a table with one row per exponent n = -2 .. 5.
// UPSTREAM: base

func.func @main() {
  %lo = arith.constant -2 : i32
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1 = arith.constant 1 : index
  %b32 = arith.constant 3 : i32
  %b64 = arith.constant -2 : i64
  %x = arith.constant 1.5 : f32
  %zero = arith.constant 0 : i32
  scf.for %i = %c0 to %c8 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %n = arith.addi %ii, %lo : i32
    %pos = arith.maxsi %n, %zero : i32
    %p32 = math.ipowi %b32, %pos : i32
    %n64 = arith.extsi %pos : i32 to i64
    %p64 = math.ipowi %b64, %n64 : i64
    %pf = math.fpowi %x, %n : f32, i32
    %nf = arith.sitofp %n : i32 to f32
    %pw = math.powf %x, %nf : f32
    %q32 = arith.extsi %p32 : i32 to i64
    %nn = arith.extsi %n : i32 to i64
    func.call @printI64(%nn) : (i64) -> ()
    func.call @printComma() : () -> ()
    func.call @printI64(%q32) : (i64) -> ()
    func.call @printComma() : () -> ()
    func.call @printI64(%p64) : (i64) -> ()
    func.call @printComma() : () -> ()
    func.call @printF32(%pf) : (f32) -> ()
    func.call @printComma() : () -> ()
    func.call @printF32(%pw) : (f32) -> ()
    func.call @printNewline() : () -> ()
  }
  return
}

func.func private @printI64(i64)
func.func private @printF32(f32)
func.func private @printComma()
func.func private @printNewline()
