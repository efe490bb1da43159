// Power iteration for the dominant eigenpair of a symmetric 16x16 matrix, with
// an scf.while loop carrying a tensor (plus scalars) on tensors (f32):
//   w = A v;  lambda = v . w;  v = w * rsqrt(w . w)
// repeated until |lambda_k - lambda_{k-1}| <= 1e-6 * |lambda_k| (or 500 steps).
// The loop body uses linalg.matvec, linalg.dot (0-d tensor results read back
// with tensor.extract), a linalg.generic with math.rsqrt, and a
// plain arith for the convergence test. This exercises one-shot-bufferize on
// scf.while with a tensor iter_arg.
// @main builds A[i,j] = 1 / (1 + |i - j|) + (i == j ? 0.25 * (i mod 5) : 0)
// and v0[i] = (1 + (i mod 3)) / 8, and prints the eigenvector v (16 values)
// and a 2-vector [lambda, steps]; expected lambda = 4.76115 after 9 steps,
// v[0] = 0.15483, v[15] = 0.16053.

func.func @power_iteration(%A: tensor<16x16xf32>, %v0: tensor<16xf32>) -> (tensor<16xf32>, f32, i32) {
  %zero = arith.constant 0.0 : f32
  %tol = arith.constant 1.0e-6 : f32
  %zero_i = arith.constant 0 : i32
  %one_i = arith.constant 1 : i32
  %max_i = arith.constant 500 : i32
  %res:3 = scf.while (%v = %v0, %lam = %zero, %n = %zero_i)
      : (tensor<16xf32>, f32, i32) -> (tensor<16xf32>, f32, i32) {
    %e = tensor.empty() : tensor<16xf32>
    %wz = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    %w = linalg.matvec ins(%A, %v : tensor<16x16xf32>, tensor<16xf32>)
                       outs(%wz : tensor<16xf32>) -> tensor<16xf32>
    %s = tensor.empty() : tensor<f32>
    %sz = linalg.fill ins(%zero : f32) outs(%s : tensor<f32>) -> tensor<f32>
    %ww = linalg.dot ins(%w, %w : tensor<16xf32>, tensor<16xf32>)
                     outs(%sz : tensor<f32>) -> tensor<f32>
    %vw = linalg.dot ins(%v, %w : tensor<16xf32>, tensor<16xf32>)
                     outs(%sz : tensor<f32>) -> tensor<f32>
    %nrm2 = tensor.extract %ww[] : tensor<f32>
    %lam_new = tensor.extract %vw[] : tensor<f32>
    // The normalised vector is written into the loop-carried %v (destination
    // passing), so it bufferizes in place: the value passed to scf.condition
    // must be equivalent to the before-region argument, else one-shot-bufferize
    // fails with "Condition arg #0 is not equivalent to the corresponding iter
    // bbArg" (unless allow-return-allocs-from-loops is set).
    %vn = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                          iterator_types = ["parallel"]}
        ins(%w : tensor<16xf32>) outs(%v : tensor<16xf32>) {
    ^bb0(%x: f32, %o: f32):
      %inv = math.rsqrt %nrm2 : f32
      %r = arith.mulf %x, %inv : f32
      linalg.yield %r : f32
    } -> tensor<16xf32>
    // |lam_new - lam| > tol * |lam_new|, written with max(d, -d).
    %d = arith.subf %lam_new, %lam : f32
    %nd = arith.negf %d : f32
    %ad = arith.maximumf %d, %nd : f32
    %nl = arith.negf %lam_new : f32
    %al = arith.maximumf %lam_new, %nl : f32
    %lim = arith.mulf %al, %tol : f32
    %notconv = arith.cmpf ogt, %ad, %lim : f32
    %n1 = arith.addi %n, %one_i : i32
    %room = arith.cmpi slt, %n1, %max_i : i32
    %go = arith.andi %notconv, %room : i1
    scf.condition(%go) %vn, %lam_new, %n1 : tensor<16xf32>, f32, i32
  } do {
  ^bb0(%va: tensor<16xf32>, %la: f32, %na: i32):
    scf.yield %va, %la, %na : tensor<16xf32>, f32, i32
  }
  return %res#0, %res#1, %res#2 : tensor<16xf32>, f32, i32
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %one = arith.constant 1.0 : f32
  %quarter = arith.constant 0.25 : f32
  %eighth = arith.constant 0.125 : f32
  %zero = arith.constant 0.0 : f32

  %ea = tensor.empty() : tensor<16x16xf32>
  %A = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%ea : tensor<16x16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %jj = arith.index_cast %j : index to i32
    %d = arith.subi %ii, %jj : i32
    %nd = arith.subi %jj, %ii : i32
    %ad = arith.maxsi %d, %nd : i32
    %adf = arith.sitofp %ad : i32 to f32
    %den = arith.addf %adf, %one : f32
    %off = arith.divf %one, %den : f32
    %im = arith.remui %i, %c5 : index
    %imi = arith.index_cast %im : index to i32
    %imf = arith.sitofp %imi : i32 to f32
    %dg = arith.mulf %imf, %quarter : f32
    %isdiag = arith.cmpi eq, %i, %j : index
    %add = arith.select %isdiag, %dg, %zero : f32
    %v = arith.addf %off, %add : f32
    linalg.yield %v : f32
  } -> tensor<16x16xf32>

  %ev = tensor.empty() : tensor<16xf32>
  %v0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>],
                        iterator_types = ["parallel"]}
      outs(%ev : tensor<16xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %m = arith.remui %i, %c3 : index
    %m1 = arith.addi %m, %c1 : index
    %mi = arith.index_cast %m1 : index to i32
    %mf = arith.sitofp %mi : i32 to f32
    %r = arith.mulf %mf, %eighth : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>

  %v, %lam, %n = call @power_iteration(%A, %v0) : (tensor<16x16xf32>, tensor<16xf32>) -> (tensor<16xf32>, f32, i32)

  %mv = bufferization.to_memref %v : memref<16xf32>
  %uv = memref.cast %mv : memref<16xf32> to memref<*xf32>
  call @printMemrefF32(%uv) : (memref<*xf32>) -> ()

  %nf = arith.sitofp %n : i32 to f32
  %summary = tensor.from_elements %lam, %nf : tensor<2xf32>
  %ms = bufferization.to_memref %summary : memref<2xf32>
  %us = memref.cast %ms : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%us) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
