module attributes {transform.with_named_sequence} {
  // catalog action 'parallel-tile-named'
  transform.named_sequence @mqss_7c0d9c8dd47c891a(%root: !transform.any_op {transform.readonly}) {
    %k0_0 = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %k1_0 = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %k2_0 = transform.structured.match ops{["linalg.conv_2d_nhwc_hwcf"]} in %root : (!transform.any_op) -> !transform.any_op
    %k3_0 = transform.structured.match ops{["linalg.conv_2d_nchw_fchw"]} in %root : (!transform.any_op) -> !transform.any_op
    %k4_0 = transform.structured.match ops{["linalg.depthwise_conv_2d_nhwc_hwc"]} in %root : (!transform.any_op) -> !transform.any_op
    %k5_0 = transform.structured.match ops{["linalg.pooling_nhwc_max"]} in %root : (!transform.any_op) -> !transform.any_op
    %k6_0 = transform.structured.match ops{["linalg.pooling_nhwc_sum"]} in %root : (!transform.any_op) -> !transform.any_op
    %k7_0 = transform.structured.match ops{["linalg.pooling_nchw_max"]} in %root : (!transform.any_op) -> !transform.any_op
    %k8_0 = transform.structured.match ops{["linalg.pooling_nchw_sum"]} in %root : (!transform.any_op) -> !transform.any_op
    %all = transform.merge_handles %k0_0, %k1_0, %k2_0, %k3_0, %k4_0, %k5_0, %k6_0, %k7_0, %k8_0 : !transform.any_op
    %funcs = transform.get_parent_op %all {deduplicate, op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    %k0_1, %forall0_0 = transform.structured.tile_using_forall %k0_0 num_threads [1, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %k1_1, %forall1_0 = transform.structured.tile_using_forall %k1_0 num_threads [1, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %k2_1, %forall2_0 = transform.structured.tile_using_forall %k2_0 num_threads [1, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %k3_1, %forall3_0 = transform.structured.tile_using_forall %k3_0 num_threads [1, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %k4_1, %forall4_0 = transform.structured.tile_using_forall %k4_0 num_threads [1, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %k5_1, %forall5_0 = transform.structured.tile_using_forall %k5_0 num_threads [1, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %k6_1, %forall6_0 = transform.structured.tile_using_forall %k6_0 num_threads [1, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %k7_1, %forall7_0 = transform.structured.tile_using_forall %k7_0 num_threads [1, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %k8_1, %forall8_0 = transform.structured.tile_using_forall %k8_0 num_threads [1, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
