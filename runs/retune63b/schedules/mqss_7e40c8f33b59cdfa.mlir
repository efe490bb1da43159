module attributes {transform.with_named_sequence} {
  // catalog action 'tile-fuse'
  transform.named_sequence @mqss_7e40c8f33b59cdfa(%root: !transform.any_op {transform.readonly}) {
    %k0_0 = transform.collect_matching @mqss_fit_generic_r2_p in %root : (!transform.any_op) -> !transform.any_op
    %k1_0 = transform.structured.match ops{["linalg.pooling_nhwc_max"]} in %root : (!transform.any_op) -> !transform.any_op
    %k2_0 = transform.structured.match ops{["linalg.pooling_nhwc_sum"]} in %root : (!transform.any_op) -> !transform.any_op
    %all = transform.merge_handles %k0_0, %k1_0, %k2_0 : !transform.any_op
    %funcs = transform.get_parent_op %all {deduplicate, op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    %k0_1, %fused0_0:2 = transform.structured.fuse %k0_0 [8, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %k0_1 "mqss.tiled" : !transform.any_op
    %k1_1, %fused1_0:2 = transform.structured.fuse %k1_0 [8, 16, 0, 0, 0, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %k1_1 "mqss.tiled" : !transform.any_op
    %k2_1, %fused2_0:2 = transform.structured.fuse %k2_0 [8, 16, 0, 0, 0, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %k2_1 "mqss.tiled" : !transform.any_op
    transform.apply_patterns to %funcs {
      transform.apply_patterns.canonicalization
    } : !transform.any_op
    transform.apply_cse to %funcs : !transform.any_op
    transform.yield
  }
  transform.named_sequence private @mqss_fit_generic_r2_p(%op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    %rank = transform.match.structured %op : (!transform.any_op) -> !transform.param<i64> {
    ^bb0(%s: !transform.any_op):
      %r = transform.match.structured.rank %s : (!transform.any_op) -> !transform.param<i64>
      transform.match.structured.yield %r : !transform.param<i64>
    }
    %need = transform.param.constant 2 : i64 -> !transform.param<i64>
    transform.match.param.cmpi ge %rank, %need : !transform.param<i64>
    transform.match.structured %op : !transform.any_op {
    ^bb0(%t: !transform.any_op):
      transform.match.structured.dim %t[0, 1] {parallel} : !transform.any_op
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
}
