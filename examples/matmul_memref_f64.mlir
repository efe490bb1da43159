// Dense double-precision matrix multiplication on memrefs (buffer style):
//   C[24x20] = A[24x40] * B[40x20]
// The kernel @matmul_f64 takes three memrefs, zeroes C with linalg.fill and
// accumulates with linalg.matmul (no return value). @main allocates the
// buffers, fills them PolyBench-style with linalg.generic + linalg.index:
//   A[i,k] = ((i*k + 1) mod 24) / 24
//   B[k,j] = ((k*(j+1) + j) mod 20) / 20
// and prints the full 24x20 result with printMemrefF64.

func.func @matmul_f64(%A: memref<24x40xf64>, %B: memref<40x20xf64>, %C: memref<24x20xf64>) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%C : memref<24x20xf64>)
  linalg.matmul ins(%A, %B : memref<24x40xf64>, memref<40x20xf64>)
                outs(%C : memref<24x20xf64>)
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c20 = arith.constant 20 : index
  %c24 = arith.constant 24 : index
  %f20 = arith.constant 20.0 : f64
  %f24 = arith.constant 24.0 : f64

  %A = memref.alloc() : memref<24x40xf64>
  %B = memref.alloc() : memref<40x20xf64>
  %C = memref.alloc() : memref<24x20xf64>

  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%A : memref<24x40xf64>) {
  ^bb0(%out: f64):
    %i = linalg.index 0 : index
    %k = linalg.index 1 : index
    %t0 = arith.muli %i, %k : index
    %t1 = arith.addi %t0, %c1 : index
    %t2 = arith.remui %t1, %c24 : index
    %t3 = arith.index_cast %t2 : index to i64
    %t4 = arith.sitofp %t3 : i64 to f64
    %t5 = arith.divf %t4, %f24 : f64
    linalg.yield %t5 : f64
  }

  linalg.generic {indexing_maps = [affine_map<(k, j) -> (k, j)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%B : memref<40x20xf64>) {
  ^bb0(%out: f64):
    %k = linalg.index 0 : index
    %j = linalg.index 1 : index
    %t0 = arith.addi %j, %c1 : index
    %t1 = arith.muli %k, %t0 : index
    %t1b = arith.addi %t1, %j : index
    %t2 = arith.remui %t1b, %c20 : index
    %t3 = arith.index_cast %t2 : index to i64
    %t4 = arith.sitofp %t3 : i64 to f64
    %t5 = arith.divf %t4, %f20 : f64
    linalg.yield %t5 : f64
  }

  call @matmul_f64(%A, %B, %C) : (memref<24x40xf64>, memref<40x20xf64>, memref<24x20xf64>) -> ()

  %u = memref.cast %C : memref<24x20xf64> to memref<*xf64>
  call @printMemrefF64(%u) : (memref<*xf64>) -> ()

  memref.dealloc %A : memref<24x40xf64>
  memref.dealloc %B : memref<40x20xf64>
  memref.dealloc %C : memref<24x20xf64>
  return
}

func.func private @printMemrefF64(memref<*xf64>)
