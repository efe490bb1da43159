// Allocates 64 GiB (2^33 f64), far above the default 4096 MiB address-space
// limit of the sandbox child, and returns it so that LLVM cannot delete the
// allocation. Must give out_of_memory.
func.func @forward(%m: memref<4xf64>) -> memref<8589934592xf64> {
  %c0 = arith.constant 0 : index
  %big = memref.alloc() : memref<8589934592xf64>
  %v = memref.load %m[%c0] : memref<4xf64>
  memref.store %v, %big[%c0] : memref<8589934592xf64>
  return %big : memref<8589934592xf64>
}
