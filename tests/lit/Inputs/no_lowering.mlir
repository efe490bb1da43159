func.func @f(%a: i32) -> i32 {
  %0 = emitc.add %a, %a : (i32, i32) -> i32
  return %0 : i32
}
