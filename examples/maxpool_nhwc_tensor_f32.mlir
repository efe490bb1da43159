// Overlapping 3x3 / stride-2 max pooling (AlexNet-style) on tensors, NHWC:
//   out[1x8x8x8] = pooling_nhwc_max(in[1x17x17x8], window 3x3), strides = 2
// ((17 - 3) / 2 + 1 = 8). The kernel @maxpool fills the output with -inf and
// applies linalg.pooling_nhwc_max; the window operand is a shape-only
// tensor.empty() : tensor<3x3xf32> whose contents are never read. @main builds
//   in[n,h,w,c] = ((h - 8) * (w - c - 4) + (3h + 5w) mod 7) * 0.125
// (a saddle plus a ripple, so each window's maximum sits at a different place)
// and prints the 8x8 output planes of channels 2 and 5 (tensor.extract_slice).

func.func @maxpool(%in: tensor<1x17x17x8xf32>) -> tensor<1x8x8x8xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %init = tensor.empty() : tensor<1x8x8x8xf32>
  %acc = linalg.fill ins(%ninf : f32) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %out = linalg.pooling_nhwc_max
      {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %window : tensor<1x17x17x8xf32>, tensor<3x3xf32>)
      outs(%acc : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %out : tensor<1x8x8x8xf32>
}

func.func @main() {
  %i3 = arith.constant 3 : i32
  %i4 = arith.constant 4 : i32
  %i5 = arith.constant 5 : i32
  %i7 = arith.constant 7 : i32
  %i8 = arith.constant 8 : i32
  %eighth = arith.constant 0.125 : f32

  %ei = tensor.empty() : tensor<1x17x17x8xf32>
  %in = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>],
                        iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%ei : tensor<1x17x17x8xf32>) {
  ^bb0(%o: f32):
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %c = linalg.index 3 : index
    %hi = arith.index_cast %h : index to i32
    %wi = arith.index_cast %w : index to i32
    %ci = arith.index_cast %c : index to i32
    %a = arith.subi %hi, %i8 : i32
    %b0 = arith.subi %wi, %ci : i32
    %b = arith.subi %b0, %i4 : i32
    %ab = arith.muli %a, %b : i32
    %r0 = arith.muli %hi, %i3 : i32
    %r1 = arith.muli %wi, %i5 : i32
    %r2 = arith.addi %r0, %r1 : i32
    %r3 = arith.remsi %r2, %i7 : i32
    %v = arith.addi %ab, %r3 : i32
    %vf = arith.sitofp %v : i32 to f32
    %res = arith.mulf %vf, %eighth : f32
    linalg.yield %res : f32
  } -> tensor<1x17x17x8xf32>

  %out = call @maxpool(%in) : (tensor<1x17x17x8xf32>) -> tensor<1x8x8x8xf32>

  %p2 = tensor.extract_slice %out[0, 0, 0, 2] [1, 8, 8, 1] [1, 1, 1, 1]
      : tensor<1x8x8x8xf32> to tensor<8x8xf32>
  %m2 = bufferization.to_memref %p2 : memref<8x8xf32>
  %u2 = memref.cast %m2 : memref<8x8xf32> to memref<*xf32>
  call @printMemrefF32(%u2) : (memref<*xf32>) -> ()

  %p5 = tensor.extract_slice %out[0, 0, 0, 5] [1, 8, 8, 1] [1, 1, 1, 1]
      : tensor<1x8x8x8xf32> to tensor<8x8xf32>
  %m5 = bufferization.to_memref %p5 : memref<8x8xf32>
  %u5 = memref.cast %m5 : memref<8x8xf32> to memref<*xf32>
  call @printMemrefF32(%u5) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
