module attributes {transform.with_named_sequence} {
  // catalog action 'tile-fuse'
  transform.named_sequence @mqss_00ecb3dac8c7e76f(%root: !transform.any_op {transform.readonly}) {
    %k0_0 = transform.structured.match ops{["linalg.generic"]} in %root : (!transform.any_op) -> !transform.any_op
    %k1_0 = transform.structured.match ops{["linalg.pooling_nhwc_max"]} in %root : (!transform.any_op) -> !transform.any_op
    %k2_0 = transform.structured.match ops{["linalg.pooling_nhwc_sum"]} in %root : (!transform.any_op) -> !transform.any_op
    %all = transform.merge_handles %k0_0, %k1_0, %k2_0 : !transform.any_op
    %funcs = transform.get_parent_op %all {deduplicate, op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    %k0_1, %fused0_0:2 = transform.structured.fuse %k0_0 [2, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %k0_1 "mqss.tiled" : !transform.any_op
    %k1_1, %fused1_0:2 = transform.structured.fuse %k1_0 [2, 4, 0, 0, 0, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %k1_1 "mqss.tiled" : !transform.any_op
    %k2_1, %fused2_0:2 = transform.structured.fuse %k2_0 [2, 4, 0, 0, 0, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %k2_1 "mqss.tiled" : !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %funcs : !transform.any_op
    transform.yield
  }
}
