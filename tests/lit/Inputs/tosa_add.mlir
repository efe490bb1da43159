func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = tosa.add %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %c : tensor<4xf32>
}
