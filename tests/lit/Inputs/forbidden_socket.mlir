// Executed code that opens a TCP socket (socket(AF_INET, SOCK_STREAM, 0)):
// the sandbox must block it.
module {
  llvm.func @socket(i32, i32, i32) -> i32
  func.func @forward(%m: memref<1xi32>) {
    %inet = llvm.mlir.constant(2 : i32) : i32
    %stream = llvm.mlir.constant(1 : i32) : i32
    %zero = llvm.mlir.constant(0 : i32) : i32
    %s = llvm.call @socket(%inet, %stream, %zero) : (i32, i32, i32) -> i32
    %c0 = arith.constant 0 : index
    memref.store %s, %m[%c0] : memref<1xi32>
    return
  }
}
