// A parallel loop whose last iteration opens a file for writing: on
// OpenMP threads (and under async-parallel-for) that iteration runs on a
// worker thread, which the sandbox must confine as it does the main thread
// (threads.test), so threads_marker never appears.
module {
  llvm.func @fopen(!llvm.ptr, !llvm.ptr) -> !llvm.ptr
  llvm.mlir.global internal constant @path("threads_marker\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @mode("w\00") {addr_space = 0 : i32}
  func.func @forward(%m: memref<64xi32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1 : i32
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %last = arith.cmpi eq, %i, %c63 : index
      scf.if %last {
        %path = llvm.mlir.addressof @path : !llvm.ptr
        %mode = llvm.mlir.addressof @mode : !llvm.ptr
        %f = llvm.call @fopen(%path, %mode) : (!llvm.ptr, !llvm.ptr) -> !llvm.ptr
      }
      memref.store %one, %m[%i] : memref<64xi32>
      scf.reduce
    }
    return
  }
}
