module attributes {transform.with_named_sequence} {
  transform.named_sequence @fc(%root: !transform.any_op {transform.readonly}) {
    %m = transform.structured.match ops{["linalg.conv_2d_nchw_fchw", "linalg.pooling_nchw_max", "linalg.pooling_nchw_sum", "linalg.conv_2d_nhwc_hwcf", "linalg.pooling_nhwc_max"]} in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %m : !transform.any_op {
    ^bb0(%op: !transform.any_op):
      %t, %f = transform.structured.tile_using_forall %op num_threads [0, 0, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    transform.yield
  }
}
