// A program that prints without end: the sandbox's output cap must stop it
// (RLIMIT_FSIZE on the captured output) long before the wall-clock timeout.
func.func private @printF32(f32)
func.func private @printNewline()

func.func @main() {
  %x = arith.constant 1.5 : f32
  %true = arith.constant true
  scf.while : () -> () {
    scf.condition(%true)
  } do {
    func.call @printF32(%x) : (f32) -> ()
    func.call @printNewline() : () -> ()
    scf.yield
  }
  return
}
