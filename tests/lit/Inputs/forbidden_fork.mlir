// Executed code that forks, then runs a shell command in both processes
// (it would create forbidden_fork_marker): the sandbox must block the fork.
module {
  llvm.func @fork() -> i32
  llvm.func @system(!llvm.ptr) -> i32
  llvm.mlir.global internal constant @cmd("touch forbidden_fork_marker\00") {addr_space = 0 : i32}
  func.func @forward(%m: memref<1xi32>) {
    %pid = llvm.call @fork() : () -> i32
    %p = llvm.mlir.addressof @cmd : !llvm.ptr
    %r = llvm.call @system(%p) : (!llvm.ptr) -> i32
    %c0 = arith.constant 0 : index
    memref.store %pid, %m[%c0] : memref<1xi32>
    return
  }
}
