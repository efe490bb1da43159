// A two-layer perceptron as a TOSA frontend (TFLite, ONNX) emits it:
// tosa.matmul on rank-3 tensors, tosa.add with a broadcast bias,
// tosa.clamp as ReLU, tosa.reshape, tosa.mul and tosa.reduce_sum. Prints
// the hidden activations and the per-row output sums.
// UPSTREAM: tosa

func.func @main() {
  %x = arith.constant dense<[[[1.0, -1.0, 0.5], [0.0, 2.0, -0.5]]]> : tensor<1x2x3xf32>
  %w1 = arith.constant dense<[[[0.5, -0.25, 1.0, 0.0], [1.0, 0.5, -1.0, 0.25], [-2.0, 0.0, 0.5, 1.0]]]> : tensor<1x3x4xf32>
  %b1 = arith.constant dense<[[[0.1, 0.2, -0.3, 0.4]]]> : tensor<1x1x4xf32>
  %h = tosa.matmul %x, %w1 : (tensor<1x2x3xf32>, tensor<1x3x4xf32>) -> tensor<1x2x4xf32>
  %hb = tosa.add %h, %b1 : (tensor<1x2x4xf32>, tensor<1x1x4xf32>) -> tensor<1x2x4xf32>
  %r = tosa.clamp %hb {min_int = 0 : i64, max_int = 1000 : i64, min_fp = 0.0 : f32, max_fp = 1000.0 : f32} : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %w2 = arith.constant dense<[[[1.5], [-1.0], [2.0], [0.5]]]> : tensor<1x4x1xf32>
  %o = tosa.matmul %r, %w2 : (tensor<1x2x4xf32>, tensor<1x4x1xf32>) -> tensor<1x2x1xf32>
  %sc = arith.constant dense<2.0> : tensor<1x2x1xf32>
  %o2 = tosa.mul %o, %sc {shift = 0 : i8} : (tensor<1x2x1xf32>, tensor<1x2x1xf32>) -> tensor<1x2x1xf32>
  %flat = tosa.reshape %r {new_shape = array<i64: 2, 4>} : (tensor<1x2x4xf32>) -> tensor<2x4xf32>
  %s = tosa.reduce_sum %flat {axis = 1 : i32} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %u = tensor.cast %flat : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  %v = tensor.cast %s : tensor<2x1xf32> to tensor<*xf32>
  call @printMemrefF32(%v) : (tensor<*xf32>) -> ()
  %w = tensor.cast %o2 : tensor<1x2x1xf32> to tensor<*xf32>
  call @printMemrefF32(%w) : (tensor<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>)
