module {
  func.func private @helper(%x: index) -> index {
    %c1 = arith.constant 1 : index
    %y = arith.addi %x, %c1 : index
    return %y : index
  }
  func.func @main() -> index {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %c0) -> (index) {
      %n = func.call @helper(%acc) : (index) -> index
      scf.yield %n : index
    }
    return %r : index
  }
}
