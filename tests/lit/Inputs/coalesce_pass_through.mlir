// Tiled loops as bufferization leaves them: an scf.for nest threading a
// buffer through its iter_args, with affine loops inside the tile.
// @pass_through's inner loop yields its iter_arg unchanged; @new_value's
// yields the sum it computes.
func.func @pass_through(%a: memref<64x128xf32>) -> memref<64x128xf32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f32
  %0 = scf.for %i = %c0 to %c64 step %c32 iter_args(%x = %a) -> (memref<64x128xf32>) {
    %1 = scf.for %j = %c0 to %c128 step %c8 iter_args(%y = %x) -> (memref<64x128xf32>) {
      affine.for %k = 0 to 8 {
        %c = arith.addi %j, %k : index
        memref.store %one, %y[%i, %c] : memref<64x128xf32>
      }
      scf.yield %y : memref<64x128xf32>
    }
    scf.yield %1 : memref<64x128xf32>
  }
  return %0 : memref<64x128xf32>
}

func.func @new_value(%a: memref<64x128xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %0 = scf.for %i = %c0 to %c64 step %c32 iter_args(%x = %zero) -> (f32) {
    %1 = scf.for %j = %c0 to %c128 step %c8 iter_args(%y = %x) -> (f32) {
      %s = affine.for %k = 0 to 8 iter_args(%t = %y) -> (f32) {
        %c = arith.addi %j, %k : index
        %v = memref.load %a[%i, %c] : memref<64x128xf32>
        %n = arith.addf %t, %v : f32
        affine.yield %n : f32
      }
      scf.yield %s : f32
    }
    scf.yield %1 : f32
  }
  return %0 : f32
}
