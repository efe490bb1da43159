// A kernel with memref and tensor arguments, a scalar and two results:
// exercises input generation, the packed calling convention, the in-place
// memref output and returned tensors (bufferized to memrefs).
//   out[i,j]  = a[i,j] + s * a[i,j]   (memref argument, written in place)
//   ret0[i,j] = b[i,j] + b[i,j]       (returned tensor, f32)
//   ret1[i,j] = ia[i,j] * ib[i,j]     (returned tensor, i32)
func.func @forward(%a: memref<4x8xf32>, %b: tensor<4x8xf32>, %s: f32,
                   %out: memref<4x8xf32>, %ia: tensor<4x8xi32>,
                   %ib: tensor<4x8xi32>) -> (tensor<4x8xf32>, tensor<4x8xi32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%out : memref<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.mulf %s, %x : f32
    %r = arith.addf %x, %t : f32
    linalg.yield %r : f32
  }
  %ef = tensor.empty() : tensor<4x8xf32>
  %ret0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                           affine_map<(i, j) -> (i, j)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<4x8xf32>) outs(%ef : tensor<4x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %d = arith.addf %x, %x : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xi32>
  %ret1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                           affine_map<(i, j) -> (i, j)>,
                                           affine_map<(i, j) -> (i, j)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%ia, %ib : tensor<4x8xi32>, tensor<4x8xi32>) outs(%e : tensor<4x8xi32>) {
  ^bb0(%x: i32, %y: i32, %o: i32):
    %p = arith.muli %x, %y : i32
    linalg.yield %p : i32
  } -> tensor<4x8xi32>
  return %ret0, %ret1 : tensor<4x8xf32>, tensor<4x8xi32>
}
