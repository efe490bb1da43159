// Executed code that opens a file for writing (fopen "w") and writes to it:
// the sandbox must block the open, so forbidden_file_marker never appears.
module {
  llvm.func @fopen(!llvm.ptr, !llvm.ptr) -> !llvm.ptr
  llvm.func @fputs(!llvm.ptr, !llvm.ptr) -> i32
  llvm.func @fclose(!llvm.ptr) -> i32
  llvm.mlir.global internal constant @path("forbidden_file_marker\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @mode("w\00") {addr_space = 0 : i32}
  llvm.mlir.global internal constant @text("written by executed code\0A\00") {addr_space = 0 : i32}
  func.func @forward(%m: memref<1xi32>) {
    %path = llvm.mlir.addressof @path : !llvm.ptr
    %mode = llvm.mlir.addressof @mode : !llvm.ptr
    %text = llvm.mlir.addressof @text : !llvm.ptr
    %f = llvm.call @fopen(%path, %mode) : (!llvm.ptr, !llvm.ptr) -> !llvm.ptr
    %w = llvm.call @fputs(%text, %f) : (!llvm.ptr, !llvm.ptr) -> i32
    %c = llvm.call @fclose(%f) : (!llvm.ptr) -> i32
    %c0 = arith.constant 0 : index
    memref.store %w, %m[%c0] : memref<1xi32>
    return
  }
}
