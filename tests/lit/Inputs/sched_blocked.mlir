// Matmuls no schedule action may touch: dynamic extents (@dynamic), and
// extents no register-tile candidate divides (@odd: n = 9).
func.func @dynamic(%A: tensor<?x?xf32>, %B: tensor<?x?xf32>, %C: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %D = linalg.matmul ins(%A, %B : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%C : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %D : tensor<?x?xf32>
}

func.func @odd(%A: tensor<7x5xf32>, %B: tensor<5x9xf32>, %C: tensor<7x9xf32>) -> tensor<7x9xf32> {
  %D = linalg.matmul ins(%A, %B : tensor<7x5xf32>, tensor<5x9xf32>)
                     outs(%C : tensor<7x9xf32>) -> tensor<7x9xf32>
  return %D : tensor<7x9xf32>
}
