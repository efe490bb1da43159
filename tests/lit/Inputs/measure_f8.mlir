// An entry of a type measure does not generate (tests/lit/measure_types.test).
func.func @forward(%a: tensor<4xf8E5M2>) -> tensor<4xf8E5M2> {
  return %a : tensor<4xf8E5M2>
}
