// Elementwise arithmetic written directly on tensors, as frontends emit it:
// arith.addf / mulf / maximumf / negf on tensor<4x6xf32> values, no linalg.
// Lowering needs convert-elementwise-to-linalg before bufferization.
// Prints relu(a*b + a) - b for two constant tensors.
// UPSTREAM: base

func.func @main() {
  %a = arith.constant dense<[[1.0, -2.0, 3.0, -4.0, 5.0, -6.0],
                             [0.5, 1.5, -2.5, 3.5, -4.5, 5.5],
                             [2.0, 2.0, 2.0, -2.0, -2.0, -2.0],
                             [0.0, 1.0, 0.0, -1.0, 0.0, 1.0]]> : tensor<4x6xf32>
  %b = arith.constant dense<[[0.25, 0.5, 0.75, 1.0, 1.25, 1.5],
                             [-1.0, -0.5, 0.0, 0.5, 1.0, 1.5],
                             [3.0, -3.0, 3.0, -3.0, 3.0, -3.0],
                             [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]> : tensor<4x6xf32>
  %zero = arith.constant dense<0.0> : tensor<4x6xf32>
  %p = arith.mulf %a, %b : tensor<4x6xf32>
  %q = arith.addf %p, %a : tensor<4x6xf32>
  %r = arith.maximumf %q, %zero : tensor<4x6xf32>
  %nb = arith.negf %b : tensor<4x6xf32>
  %y = arith.addf %r, %nb : tensor<4x6xf32>
  %u = tensor.cast %y : tensor<4x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>)
