func.func @f() -> i32 {
  %0 = arith.constant 1 : i32
  %1 = arith.addi %0, %undefined : i32
  return %1 : i32
}
