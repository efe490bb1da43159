// The newer structured named ops on tensors: linalg.map (elementwise with
// a region), linalg.reduce over one dimension, linalg.broadcast back to
// 2-D, linalg.elemwise_binary and a linalg.dot. A centring step as in
// batch normalisation. Prints the centred matrix, column sums and a dot.
// UPSTREAM: base

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [-1.0, 0.0, 7.0], [2.0, 2.0, 2.0]]> : tensor<4x3xf32>
  %z = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<3xf32>
  %i3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<3xf32>) -> tensor<3xf32>
  %colsum = linalg.reduce ins(%x : tensor<4x3xf32>) outs(%i3 : tensor<3xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %q = arith.constant 4.0 : f32
  %mean = linalg.map ins(%colsum : tensor<3xf32>) outs(%e3 : tensor<3xf32>)
    (%v: f32) {
      %m = arith.divf %v, %q : f32
      linalg.yield %m : f32
    }
  %e43 = tensor.empty() : tensor<4x3xf32>
  %mb = linalg.broadcast ins(%mean : tensor<3xf32>) outs(%e43 : tensor<4x3xf32>) dimensions = [0]
  %c = linalg.elemwise_binary {fun = #linalg.binary_fn<sub>}
      ins(%x, %mb : tensor<4x3xf32>, tensor<4x3xf32>) outs(%e43 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %e0 = tensor.empty() : tensor<f32>
  %i0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %d = linalg.dot ins(%colsum, %mean : tensor<3xf32>, tensor<3xf32>) outs(%i0 : tensor<f32>) -> tensor<f32>
  %u = tensor.cast %c : tensor<4x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  %v = tensor.cast %colsum : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%v) : (tensor<*xf32>) -> ()
  %w = tensor.cast %d : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%w) : (tensor<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>)
