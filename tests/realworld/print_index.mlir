// Index arithmetic and index-typed buffers: a memref<2x5xindex> filled
// with delinearised coordinates (index.divu / index.remu from the index
// dialect, arith.muli on index), printed with printMemrefInd, plus
// index.ceildivs and the index.castu of a sum printed with printI64.
// UPSTREAM: base

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c7 = index.constant 7
  %m = memref.alloc() : memref<2x5xindex>
  %s = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %c0) -> (index) {
    %t = scf.for %j = %c0 to %c5 step %c1 iter_args(%a = %acc) -> (index) {
      %row = arith.muli %i, %c5 : index
      %lin = arith.addi %row, %j : index
      %sq = arith.muli %lin, %lin : index
      %q = index.divu %sq, %c7
      %r = index.remu %sq, %c7
      %v = arith.addi %q, %r : index
      memref.store %v, %m[%i, %j] : memref<2x5xindex>
      %n = arith.addi %a, %v : index
      scf.yield %n : index
    }
    scf.yield %t : index
  }
  %u = memref.cast %m : memref<2x5xindex> to memref<*xindex>
  call @printMemrefInd(%u) : (memref<*xindex>) -> ()
  %cd = index.ceildivs %s, %c7
  %w = index.castu %cd : index to i64
  %sw = index.castu %s : index to i64
  call @printI64(%sw) : (i64) -> ()
  call @printNewline() : () -> ()
  call @printI64(%w) : (i64) -> ()
  call @printNewline() : () -> ()
  memref.dealloc %m : memref<2x5xindex>
  return
}

func.func private @printMemrefInd(memref<*xindex>)
func.func private @printI64(i64)
func.func private @printNewline()
