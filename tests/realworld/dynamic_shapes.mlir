// Dynamic shapes inside the program (the entry itself is static): the size
// n is computed at run time, buffers are memref<?x?xf32> from memref.alloc
// with dynamic sizes, a linalg.matmul works on tensor<?x?xf32> built with
// tensor.empty(%n, %n), and tensor.dim reads the sizes back. Prints the
// n x n product of two index-dependent matrices and the sum of its trace.
// UPSTREAM: base

func.func private @build(%n: index, %s: f32) -> tensor<?x?xf32> {
  %e = tensor.empty(%n, %n) : tensor<?x?xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %d = arith.subi %i, %j : index
    %di = arith.index_cast %d : index to i32
    %f = arith.sitofp %di : i32 to f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

func.func @main() {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %n = arith.addi %c2, %c3 : index
  %sa = arith.constant 0.5 : f32
  %sb = arith.constant -1.0 : f32
  %a = call @build(%n, %sa) : (index, f32) -> tensor<?x?xf32>
  %b = call @build(%n, %sb) : (index, f32) -> tensor<?x?xf32>
  %cd1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %cd1 : tensor<?x?xf32>
  %z = arith.constant 1.0 : f32
  %e = tensor.empty(%d0, %d0) : tensor<?x?xf32>
  %init = linalg.fill ins(%z : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %c = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%init : tensor<?x?xf32>) -> tensor<?x?xf32>
  %buf = memref.alloc(%n) : memref<?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %dim = memref.dim %buf, %c0 : memref<?xf32>
  scf.for %i = %c0 to %dim step %c1 {
    %x = tensor.extract %c[%i, %i] : tensor<?x?xf32>
    memref.store %x, %buf[%i] : memref<?xf32>
  }
  %zero = arith.constant 0.0 : f32
  %tr = scf.for %i = %c0 to %dim step %c1 iter_args(%s = %zero) -> (f32) {
    %x = memref.load %buf[%i] : memref<?xf32>
    %t = arith.addf %s, %x : f32
    scf.yield %t : f32
  }
  %u = tensor.cast %c : tensor<?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  call @printF32(%tr) : (f32) -> ()
  call @printNewline() : () -> ()
  memref.dealloc %buf : memref<?xf32>
  return
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printF32(f32)
func.func private @printNewline()
