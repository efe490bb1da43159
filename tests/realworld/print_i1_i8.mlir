// Narrow integer types: an i8 saturating add stored through a
// memref<6xi8>, printed with vector.print as i8 (printMemrefI8 prints
// characters, not numbers), and i1 comparison results printed with
// vector.print, one boolean vector and one scalar.
// UPSTREAM: base

func.func @main() {
  %c0 = arith.constant 0 : index
  %c0i8 = arith.constant 0 : i8
  %a = arith.constant dense<[100, -100, 27, 127, -128, 5]> : vector<6xi8>
  %b = arith.constant dense<[50, -50, 100, 1, -1, -10]> : vector<6xi8>
  %s = arith.addi %a, %b : vector<6xi8>
  %lo = arith.constant dense<-128> : vector<6xi16>
  %hi = arith.constant dense<127> : vector<6xi16>
  %aw = arith.extsi %a : vector<6xi8> to vector<6xi16>
  %bw = arith.extsi %b : vector<6xi8> to vector<6xi16>
  %sw = arith.addi %aw, %bw : vector<6xi16>
  %c1w = arith.maxsi %sw, %lo : vector<6xi16>
  %c2w = arith.minsi %c1w, %hi : vector<6xi16>
  %sat = arith.trunci %c2w : vector<6xi16> to vector<6xi8>
  %m = memref.alloc() : memref<6xi8>
  vector.transfer_write %sat, %m[%c0] : vector<6xi8>, memref<6xi8>
  %back = vector.transfer_read %m[%c0], %c0i8 : memref<6xi8>, vector<6xi8>
  vector.print %back : vector<6xi8>
  %wrapped = arith.cmpi ne, %s, %sat : vector<6xi8>
  vector.print %wrapped : vector<6xi1>
  %x = vector.extract %wrapped[3] : i1 from vector<6xi1>
  vector.print %x : i1
  %w8 = arith.extsi %s : vector<6xi8> to vector<6xi32>
  vector.print %w8 : vector<6xi32>
  memref.dealloc %m : memref<6xi8>
  return
}
