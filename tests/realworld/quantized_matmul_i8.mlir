// A quantised fully connected layer: i8 activations and weights, a
// linalg.matmul accumulating in i32 (with sign extension), a requantising
// linalg.generic that scales by a float, rounds (math.roundeven), clamps
// to [-128, 127] and truncates back to i8. Prints the i32 accumulators
// and the i8 result widened for printing.
// UPSTREAM: base

#id = affine_map<(i, j) -> (i, j)>
func.func @main() {
  %a = arith.constant dense<[[12, -7, 100, 3], [-128, 127, 0, 5], [1, 2, 3, 4]]> : tensor<3x4xi8>
  %w = arith.constant dense<[[2, -1], [3, 4], [-1, 1], [127, -128]]> : tensor<4x2xi8>
  %z = arith.constant 0 : i32
  %e = tensor.empty() : tensor<3x2xi32>
  %c0 = linalg.fill ins(%z : i32) outs(%e : tensor<3x2xi32>) -> tensor<3x2xi32>
  %acc = linalg.matmul ins(%a, %w : tensor<3x4xi8>, tensor<4x2xi8>) outs(%c0 : tensor<3x2xi32>) -> tensor<3x2xi32>
  %eq = tensor.empty() : tensor<3x2xi8>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%acc : tensor<3x2xi32>) outs(%eq : tensor<3x2xi8>) {
  ^bb0(%v: i32, %o: i8):
    %f = arith.sitofp %v : i32 to f32
    %sc = arith.constant 0.0625 : f32
    %s = arith.mulf %f, %sc : f32
    %r = math.roundeven %s : f32
    %lo = arith.constant -128.0 : f32
    %hi = arith.constant 127.0 : f32
    %c1 = arith.maximumf %r, %lo : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %i = arith.fptosi %c2 : f32 to i8
    linalg.yield %i : i8
  } -> tensor<3x2xi8>
  %wide = arith.extsi %q : tensor<3x2xi8> to tensor<3x2xi32>
  %u = tensor.cast %acc : tensor<3x2xi32> to tensor<*xi32>
  call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  %v = tensor.cast %wide : tensor<3x2xi32> to tensor<*xi32>
  call @printMemrefI32(%v) : (tensor<*xi32>) -> ()
  return
}

func.func private @printMemrefI32(tensor<*xi32>)
