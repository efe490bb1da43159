// Vector code of the kinds the finisher must lower well: a register-tile
// vector.contract (matmul form) over 2-D transfers, a transposed (permuted)
// 2-D transfer, a masked transfer under vector.mask, and a
// vector.multi_reduction. @main prints every result with vector.print.
memref.global "private" constant @A : memref<4x8xf32> = dense<[[-3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0], [0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0], [3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0], [-1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0]]>
memref.global "private" constant @B : memref<8x16xf32> = dense<[[-2.0, 1.0, -1.0, 2.0, 0.0, -2.0, 1.0, -1.0, 2.0, 0.0, -2.0, 1.0, -1.0, 2.0, 0.0, -2.0], [0.0, -2.0, 1.0, -1.0, 2.0, 0.0, -2.0, 1.0, -1.0, 2.0, 0.0, -2.0, 1.0, -1.0, 2.0, 0.0], [2.0, 0.0, -2.0, 1.0, -1.0, 2.0, 0.0, -2.0, 1.0, -1.0, 2.0, 0.0, -2.0, 1.0, -1.0, 2.0], [-1.0, 2.0, 0.0, -2.0, 1.0, -1.0, 2.0, 0.0, -2.0, 1.0, -1.0, 2.0, 0.0, -2.0, 1.0, -1.0], [1.0, -1.0, 2.0, 0.0, -2.0, 1.0, -1.0, 2.0, 0.0, -2.0, 1.0, -1.0, 2.0, 0.0, -2.0, 1.0], [-2.0, 1.0, -1.0, 2.0, 0.0, -2.0, 1.0, -1.0, 2.0, 0.0, -2.0, 1.0, -1.0, 2.0, 0.0, -2.0], [0.0, -2.0, 1.0, -1.0, 2.0, 0.0, -2.0, 1.0, -1.0, 2.0, 0.0, -2.0, 1.0, -1.0, 2.0, 0.0], [2.0, 0.0, -2.0, 1.0, -1.0, 2.0, 0.0, -2.0, 1.0, -1.0, 2.0, 0.0, -2.0, 1.0, -1.0, 2.0]]>
memref.global "private" constant @C : memref<4x16xf32> = dense<[[0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0], [1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0], [2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0], [0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 0.0]]>

#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %pad = arith.constant 0.0 : f32
  %A = memref.get_global @A : memref<4x8xf32>
  %B = memref.get_global @B : memref<8x16xf32>
  %C = memref.get_global @C : memref<4x16xf32>
  %out = memref.alloca() : memref<4x16xf32>

  // 4x16 += 4x8 * 8x16 as one contraction over 2-D transfers.
  %va = vector.transfer_read %A[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x8xf32>, vector<4x8xf32>
  %vb = vector.transfer_read %B[%c0, %c0], %pad {in_bounds = [true, true]} : memref<8x16xf32>, vector<8x16xf32>
  %vc = vector.transfer_read %C[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x16xf32>, vector<4x16xf32>
  %r = vector.contract {indexing_maps = [#a, #b, #c],
                        iterator_types = ["parallel", "parallel", "reduction"],
                        kind = #vector.kind<add>} %va, %vb, %vc
      : vector<4x8xf32>, vector<8x16xf32> into vector<4x16xf32>
  vector.transfer_write %r, %out[%c0, %c0] {in_bounds = [true, true]} : vector<4x16xf32>, memref<4x16xf32>
  %back = vector.transfer_read %out[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x16xf32>, vector<4x16xf32>
  vector.print %back : vector<4x16xf32>

  // Row sums of the product.
  %zero4 = arith.constant dense<0.0> : vector<4xf32>
  %sums = vector.multi_reduction <add>, %back, %zero4 [1] : vector<4x16xf32> to vector<4xf32>
  vector.print %sums : vector<4xf32>

  // B transposed through the transfer's permutation map.
  %bt = vector.transfer_read %B[%c0, %c0], %pad {in_bounds = [true, true],
        permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<8x16xf32>, vector<16x8xf32>
  %bt0 = vector.extract %bt[0] : vector<8xf32> from vector<16x8xf32>
  vector.print %bt0 : vector<8xf32>

  // Row 1 of A, first 5 elements only: the rest reads as the padding.
  %m = vector.create_mask %c5 : vector<8xi1>
  %row = vector.mask %m { vector.transfer_read %A[%c1, %c0], %pad {in_bounds = [true]} : memref<4x8xf32>, vector<8xf32> } : vector<8xi1> -> vector<8xf32>
  vector.print %row : vector<8xf32>
  return
}
