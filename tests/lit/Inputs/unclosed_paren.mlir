// A parenthesis left open mid-file (tests/lit/opt_errors.test): MLIR stops
// at it, not at the end of the text.
func.func @f(%a: f32 -> f32 {
  return %a : f32
}
