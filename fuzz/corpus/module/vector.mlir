func.func @add(%a: vector<8xf32>, %b: vector<8xf32>) -> vector<8xf32> {
  %c = arith.addf %a, %b : vector<8xf32>
  %t = math.tanh %c : vector<8xf32>
  return %t : vector<8xf32>
}
