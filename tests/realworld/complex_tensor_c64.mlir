// A complex<f64> kernel on tensors: a linalg.generic that computes
// log(z) * conj(z) + z / (1 + z) for a 2x3 tensor of complex numbers
// (complex.log, conj, add, div, mul), then prints it with printMemrefC64.
// UPSTREAM: base

#id = affine_map<(i, j) -> (i, j)>
func.func @main() {
  %z = complex.constant [1.0 : f64, 0.0 : f64] : complex<f64>
  %e = tensor.empty() : tensor<2x3xcomplex<f64>>
  %init = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<2x3xcomplex<f64>>) {
  ^bb0(%o: complex<f64>):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %fi = arith.sitofp %ii : i64 to f64
    %fj = arith.sitofp %jj : i64 to f64
    %half = arith.constant 0.5 : f64
    %r = arith.addf %fj, %half : f64
    %m = arith.constant -1.0 : f64
    %q = arith.addf %fi, %m : f64
    %c = complex.create %r, %q : complex<f64>
    linalg.yield %c : complex<f64>
  } -> tensor<2x3xcomplex<f64>>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%init : tensor<2x3xcomplex<f64>>) outs(%e : tensor<2x3xcomplex<f64>>) {
  ^bb0(%v: complex<f64>, %o: complex<f64>):
    %l = complex.log %v : complex<f64>
    %cj = complex.conj %v : complex<f64>
    %p = complex.mul %l, %cj : complex<f64>
    %den = complex.add %v, %z : complex<f64>
    %q = complex.div %v, %den : complex<f64>
    %s = complex.add %p, %q : complex<f64>
    linalg.yield %s : complex<f64>
  } -> tensor<2x3xcomplex<f64>>
  %u = tensor.cast %y : tensor<2x3xcomplex<f64>> to tensor<*xcomplex<f64>>
  call @printMemrefC64(%u) : (tensor<*xcomplex<f64>>) -> ()
  return
}

func.func private @printMemrefC64(tensor<*xcomplex<f64>>)
