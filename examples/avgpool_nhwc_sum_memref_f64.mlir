// 2x2 / stride-2 average pooling on memrefs in double precision, NHWC:
//   out[2x6x6x4] = pooling_nhwc_sum(in[2x12x12x4], window 2x2, strides 2) / 4
// The kernel @avgpool works on buffers: linalg.fill zeroes the output,
// linalg.pooling_nhwc_sum accumulates each window (the window operand is a
// shape-only memref<2x2xf64> that is never read), and an in-place
// linalg.generic scales by 1/4. @main fills
//   in[n,h,w,c] = ((h*(w+1) + 7n + 3c) mod 13) / 13
// and prints the 6x6 planes out[0,:,:,1] and out[1,:,:,0] through strided
// memref.subview views (non-unit innermost stride).

func.func @avgpool(%in: memref<2x12x12x4xf64>, %out: memref<2x6x6x4xf64>) {
  %zero = arith.constant 0.0 : f64
  %scale = arith.constant 0.25 : f64
  %window = memref.alloc() : memref<2x2xf64>
  linalg.fill ins(%zero : f64) outs(%out : memref<2x6x6x4xf64>)
  linalg.pooling_nhwc_sum
      {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %window : memref<2x12x12x4xf64>, memref<2x2xf64>)
      outs(%out : memref<2x6x6x4xf64>)
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%out : memref<2x6x6x4xf64>) {
  ^bb0(%x: f64):
    %r = arith.mulf %x, %scale : f64
    linalg.yield %r : f64
  }
  memref.dealloc %window : memref<2x2xf64>
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c13 = arith.constant 13 : index
  %f13 = arith.constant 13.0 : f64

  %in = memref.alloc() : memref<2x12x12x4xf64>
  %out = memref.alloc() : memref<2x6x6x4xf64>

  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%in : memref<2x12x12x4xf64>) {
  ^bb0(%o: f64):
    %n = linalg.index 0 : index
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %c = linalg.index 3 : index
    %w1 = arith.addi %w, %c1 : index
    %t0 = arith.muli %h, %w1 : index
    %t1 = arith.muli %n, %c7 : index
    %t2 = arith.muli %c, %c3 : index
    %t3 = arith.addi %t0, %t1 : index
    %t4 = arith.addi %t3, %t2 : index
    %t5 = arith.remui %t4, %c13 : index
    %t6 = arith.index_cast %t5 : index to i64
    %t7 = arith.sitofp %t6 : i64 to f64
    %t8 = arith.divf %t7, %f13 : f64
    linalg.yield %t8 : f64
  }

  call @avgpool(%in, %out) : (memref<2x12x12x4xf64>, memref<2x6x6x4xf64>) -> ()

  %p0 = memref.subview %out[0, 0, 0, 1] [1, 6, 6, 1] [1, 1, 1, 1]
      : memref<2x6x6x4xf64> to memref<6x6xf64, strided<[24, 4], offset: 1>>
  %u0 = memref.cast %p0 : memref<6x6xf64, strided<[24, 4], offset: 1>> to memref<*xf64>
  call @printMemrefF64(%u0) : (memref<*xf64>) -> ()

  %p1 = memref.subview %out[1, 0, 0, 0] [1, 6, 6, 1] [1, 1, 1, 1]
      : memref<2x6x6x4xf64> to memref<6x6xf64, strided<[24, 4], offset: 144>>
  %u1 = memref.cast %p1 : memref<6x6xf64, strided<[24, 4], offset: 144>> to memref<*xf64>
  call @printMemrefF64(%u1) : (memref<*xf64>) -> ()

  memref.dealloc %in : memref<2x12x12x4xf64>
  memref.dealloc %out : memref<2x6x6x4xf64>
  return
}

func.func private @printMemrefF64(memref<*xf64>)
