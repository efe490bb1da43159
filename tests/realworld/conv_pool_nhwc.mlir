// A CNN layer on memrefs with named linalg ops: linalg.conv_2d_nhwc_hwcf
// (1x6x6x2 input, 3x3x2x3 filter, stride 1) into a zero-filled output,
// then linalg.pooling_nhwc_max with a 2x2 window and stride 2. Input and
// filter come from linalg.generic with linalg.index. Prints the pooled map.
// UPSTREAM: base

func.func @main() {
  %in = memref.alloc() : memref<1x6x6x2xf32>
  %fl = memref.alloc() : memref<3x3x2x3xf32>
  %out = memref.alloc() : memref<1x4x4x3xf32>
  %pool = memref.alloc() : memref<1x2x2x3xf32>
  %win = memref.alloc() : memref<2x2xf32>
  linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%in : memref<1x6x6x2xf32>) {
  ^bb0(%o: f32):
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %c = linalg.index 3 : index
    %hw = arith.muli %h, %w : index
    %s = arith.addi %hw, %c : index
    %c7 = arith.constant 7 : index
    %m = arith.remui %s, %c7 : index
    %x = arith.index_cast %m : index to i32
    %f = arith.sitofp %x : i32 to f32
    linalg.yield %f : f32
  }
  linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%fl : memref<3x3x2x3xf32>) {
  ^bb0(%o: f32):
    %a = linalg.index 0 : index
    %b = linalg.index 1 : index
    %d = linalg.index 3 : index
    %ab = arith.subi %a, %b : index
    %s = arith.addi %ab, %d : index
    %x = arith.index_cast %s : index to i32
    %f = arith.sitofp %x : i32 to f32
    %q = arith.constant 0.25 : f32
    %v = arith.mulf %f, %q : f32
    linalg.yield %v : f32
  }
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%out : memref<1x4x4x3xf32>)
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %fl : memref<1x6x6x2xf32>, memref<3x3x2x3xf32>)
      outs(%out : memref<1x4x4x3xf32>)
  %ninf = arith.constant -1.0e30 : f32
  linalg.fill ins(%ninf : f32) outs(%pool : memref<1x2x2x3xf32>)
  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%out, %win : memref<1x4x4x3xf32>, memref<2x2xf32>)
      outs(%pool : memref<1x2x2x3xf32>)
  %u = memref.cast %pool : memref<1x2x2x3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %in : memref<1x6x6x2xf32>
  memref.dealloc %fl : memref<3x3x2x3xf32>
  memref.dealloc %out : memref<1x4x4x3xf32>
  memref.dealloc %pool : memref<1x2x2x3xf32>
  memref.dealloc %win : memref<2x2xf32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
