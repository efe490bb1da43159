func.func @nested(%x: i32) -> i32 {
  %r = scf.execute_region -> i32 {
    %s = scf.execute_region -> i32 {
      %c = arith.constant 2 : i32
      %m = arith.muli %x, %c : i32
      scf.yield %m : i32
    }
    scf.yield %s : i32
  }
  return %r : i32
}
