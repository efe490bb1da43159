// Layer normalisation over rows of an 5x16 f32 matrix in affine loops, the
// way a polyhedral front end writes it: affine.for nests with
// affine.load/store, iter_args reductions for mean and variance,
// math.rsqrt, and gamma/beta vectors. Prints the normalised matrix' first
// 4 columns (via a memref.subview) and the row means.
// UPSTREAM: base

func.func @main() {
  %x = memref.alloc() : memref<5x16xf32>
  %y = memref.alloc() : memref<5x16xf32>
  %mean = memref.alloc() : memref<5xf32>
  affine.for %i = 0 to 5 {
    affine.for %j = 0 to 16 {
      %k = affine.apply affine_map<(i, j) -> ((i * 7 + j * 3) mod 11)>(%i, %j)
      %ki = arith.index_cast %k : index to i32
      %f = arith.sitofp %ki : i32 to f32
      %ii = arith.index_cast %i : index to i32
      %fi = arith.sitofp %ii : i32 to f32
      %v = arith.mulf %f, %fi : f32
      affine.store %v, %x[%i, %j] : memref<5x16xf32>
    }
  }
  %z = arith.constant 0.0 : f32
  %n = arith.constant 16.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  affine.for %i = 0 to 5 {
    %s = affine.for %j = 0 to 16 iter_args(%a = %z) -> (f32) {
      %v = affine.load %x[%i, %j] : memref<5x16xf32>
      %t = arith.addf %a, %v : f32
      affine.yield %t : f32
    }
    %mu = arith.divf %s, %n : f32
    affine.store %mu, %mean[%i] : memref<5xf32>
    %q = affine.for %j = 0 to 16 iter_args(%a = %z) -> (f32) {
      %v = affine.load %x[%i, %j] : memref<5x16xf32>
      %d = arith.subf %v, %mu : f32
      %d2 = arith.mulf %d, %d : f32
      %t = arith.addf %a, %d2 : f32
      affine.yield %t : f32
    }
    %var = arith.divf %q, %n : f32
    %ve = arith.addf %var, %eps : f32
    %r = math.rsqrt %ve : f32
    affine.for %j = 0 to 16 {
      %v = affine.load %x[%i, %j] : memref<5x16xf32>
      %d = arith.subf %v, %mu : f32
      %nv = arith.mulf %d, %r : f32
      %ji = arith.index_cast %j : index to i32
      %jf = arith.sitofp %ji : i32 to f32
      %g = arith.constant 0.125 : f32
      %gamma = arith.mulf %jf, %g : f32
      %o = arith.mulf %nv, %gamma : f32
      %beta = arith.constant 0.5 : f32
      %ob = arith.addf %o, %beta : f32
      affine.store %ob, %y[%i, %j] : memref<5x16xf32>
    }
  }
  %sub = memref.subview %y[0, 0] [5, 4] [1, 1] : memref<5x16xf32> to memref<5x4xf32, strided<[16, 1]>>
  %u = memref.cast %sub : memref<5x4xf32, strided<[16, 1]>> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %um = memref.cast %mean : memref<5xf32> to memref<*xf32>
  call @printMemrefF32(%um) : (memref<*xf32>) -> ()
  memref.dealloc %x : memref<5x16xf32>
  memref.dealloc %y : memref<5x16xf32>
  memref.dealloc %mean : memref<5xf32>
  return
}

func.func private @printMemrefF32(memref<*xf32>)
