// Half-precision storage with f32 compute, as in mixed-precision
// inference: a linalg.generic reads f16 and bf16 tensors, computes in f32,
// and writes f16 and bf16 results, printed with printMemrefF16 and
// printMemrefBF16 (C interface only).
// UPSTREAM: base

#id = affine_map<(i) -> (i)>
func.func @main() {
  %x = arith.constant dense<[0.5, 1.25, -3.0, 100.0, 0.1, 65000.0]> : tensor<6xf16>
  %y = arith.constant dense<[2.0, -0.75, 1.5, 0.01, 1000.0, 3.0]> : tensor<6xbf16>
  %eh = tensor.empty() : tensor<6xf16>
  %eb = tensor.empty() : tensor<6xbf16>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<6xf16>, tensor<6xbf16>) outs(%eh, %eb : tensor<6xf16>, tensor<6xbf16>) {
  ^bb0(%a: f16, %b: bf16, %o1: f16, %o2: bf16):
    %fa = arith.extf %a : f16 to f32
    %fb = arith.extf %b : bf16 to f32
    %p = arith.mulf %fa, %fb : f32
    %s = arith.addf %fa, %fb : f32
    %h = arith.truncf %p : f32 to f16
    %g = arith.truncf %s : f32 to bf16
    linalg.yield %h, %g : f16, bf16
  } -> (tensor<6xf16>, tensor<6xbf16>)
  %u = tensor.cast %r#0 : tensor<6xf16> to tensor<*xf16>
  call @printMemrefF16(%u) : (tensor<*xf16>) -> ()
  %v = tensor.cast %r#1 : tensor<6xbf16> to tensor<*xbf16>
  call @printMemrefBF16(%v) : (tensor<*xbf16>) -> ()
  return
}

func.func private @printMemrefF16(tensor<*xf16>) attributes {llvm.emit_c_interface}
func.func private @printMemrefBF16(tensor<*xbf16>) attributes {llvm.emit_c_interface}
