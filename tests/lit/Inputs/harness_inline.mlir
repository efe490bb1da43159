// A @main() that does the work itself and calls only a declaration (the
// printer) is the kernel: the state describes it (env_features_harness.test).
func.func @main() {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ea = tensor.empty() : tensor<4x4xf32>
  %a = linalg.fill ins(%one : f32) outs(%ea : tensor<4x4xf32>) -> tensor<4x4xf32>
  %ec = tensor.empty() : tensor<4x4xf32>
  %c0 = linalg.fill ins(%z : f32) outs(%ec : tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>)
                     outs(%c0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = bufferization.to_memref %c : memref<4x4xf32>
  %u = memref.cast %m : memref<4x4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
