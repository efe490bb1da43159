// A GPU kernel in the style of MLIR's CUDA runner tests: gpu.launch over a
// 1-D grid that doubles a host-registered buffer, then prints it. mqss
// compiles for the host CPU only, so this module must be REJECTED with a
// message that names the gpu dialect. The expected output below is empty
// on purpose: upstream needs a GPU runtime (libmlir_cuda_runtime) to run it.
// UPSTREAM: none (needs a GPU)

func.func @main() {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %buf = memref.alloc() : memref<8xf32>
  %cast = memref.cast %buf : memref<8xf32> to memref<*xf32>
  gpu.host_register %cast : memref<*xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %i = arith.index_cast %tx : index to i32
    %f = arith.sitofp %i : i32 to f32
    %two = arith.constant 2.0 : f32
    %v = arith.mulf %f, %two : f32
    memref.store %v, %buf[%tx] : memref<8xf32>
    gpu.terminator
  }
  call @printMemrefF32(%cast) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
