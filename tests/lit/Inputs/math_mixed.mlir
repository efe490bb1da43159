// Math ops of several shapes and types for mqss-math-approx: a vector tanh
// and a scalar exp (both f32, approximated) and an f64 tanh (left alone).
func.func @vec(%x: vector<8xf32>) -> vector<8xf32> {
  %t = math.tanh %x : vector<8xf32>
  return %t : vector<8xf32>
}
func.func @scalar(%x: f32) -> f32 {
  %e = math.exp %x : f32
  return %e : f32
}
func.func @double(%x: f64) -> f64 {
  %t = math.tanh %x : f64
  return %t : f64
}
