func.func @add(%a: i32, %b: i32) -> i32 {
  %zero = arith.constant 0 : i32
  %0 = arith.addi %a, %zero : i32
  %1 = arith.addi %0, %b : i32
  return %1 : i32
}
