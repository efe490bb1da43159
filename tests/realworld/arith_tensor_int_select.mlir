// Integer tensor arithmetic with a predicate tensor: arith.cmpi produces a
// tensor<8xi1>, arith.select picks per element, arith.remsi / shli / xori
// work elementwise on tensor<8xi32>. A clamp-and-hash kernel as found in
// quantisation code. Prints the selected values.
// UPSTREAM: base

func.func @main() {
  %x = arith.constant dense<[-7, 3, 12, -1, 0, 9, 25, -30]> : tensor<8xi32>
  %t = arith.constant dense<5> : tensor<8xi32>
  %k = arith.constant dense<3> : tensor<8xi32>
  %one = arith.constant dense<1> : tensor<8xi32>
  %gt = arith.cmpi sgt, %x, %t : tensor<8xi32>
  %rem = arith.remsi %x, %k : tensor<8xi32>
  %sh = arith.shli %x, %one : tensor<8xi32>
  %mix = arith.xori %sh, %k : tensor<8xi32>
  %y = arith.select %gt, %rem, %mix : tensor<8xi1>, tensor<8xi32>
  %u = tensor.cast %y : tensor<8xi32> to tensor<*xi32>
  call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  return
}

func.func private @printMemrefI32(tensor<*xi32>)
