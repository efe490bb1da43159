// Tensor manipulation as in a convolution's im2col prologue: tensor.pad
// with a constant border, tensor.extract_slice of a strided window,
// tensor.insert_slice into a larger tensor, tensor.collapse_shape /
// expand_shape and tensor.generate. Prints each intermediate.
// UPSTREAM: base

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %pv = arith.constant -1.0 : f32
  %p = tensor.pad %x low[1, 0] high[1, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %pv : f32
  } : tensor<2x3xf32> to tensor<4x5xf32>
  %s = tensor.extract_slice %p[0, 1] [2, 2] [2, 2] : tensor<4x5xf32> to tensor<2x2xf32>
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %k = arith.addi %i, %j : index
    %ki = arith.index_cast %k : index to i32
    %f = arith.sitofp %ki : i32 to f32
    %h = arith.constant 10.0 : f32
    %v = arith.mulf %f, %h : f32
    tensor.yield %v : f32
  } : tensor<3x4xf32>
  %ins = tensor.insert_slice %s into %g[1, 2] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<3x4xf32>
  %flat = tensor.collapse_shape %ins [[0, 1]] : tensor<3x4xf32> into tensor<12xf32>
  %re = tensor.expand_shape %flat [[0, 1]] output_shape [6, 2] : tensor<12xf32> into tensor<6x2xf32>
  %u = tensor.cast %p : tensor<4x5xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  %v = tensor.cast %re : tensor<6x2xf32> to tensor<*xf32>
  call @printMemrefF32(%v) : (tensor<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>)
