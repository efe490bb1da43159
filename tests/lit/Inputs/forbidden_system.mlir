// Executed code that runs a shell command through libc's system(): the
// command would create forbidden_system_marker in the working directory.
// The sandbox must end the run as forbidden before anything is executed.
module {
  llvm.func @system(!llvm.ptr) -> i32
  llvm.mlir.global internal constant @cmd("touch forbidden_system_marker\00") {addr_space = 0 : i32}
  func.func @forward(%m: memref<1xi32>) {
    %p = llvm.mlir.addressof @cmd : !llvm.ptr
    %r = llvm.call @system(%p) : (!llvm.ptr) -> i32
    %c0 = arith.constant 0 : index
    memref.store %r, %m[%c0] : memref<1xi32>
    return
  }
}
