module attributes {transform.with_named_sequence} {
  // catalog action 'tile'
  transform.named_sequence @mqss_7e342864d17b6aab(%root: !transform.any_op {transform.readonly}) {
    %k0_0 = transform.structured.match ops{["linalg.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %k1_0 = transform.structured.match ops{["linalg.batch_matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %all = transform.merge_handles %k0_0, %k1_0 : !transform.any_op
    %funcs = transform.get_parent_op %all {deduplicate, op_name = "func.func"} : (!transform.any_op) -> !transform.any_op
    %k0_1, %loops0_0:3 = transform.structured.tile_using_for %k0_0 tile_sizes [16, 512, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %k0_1 "mqss.tiled" : !transform.any_op
    %k1_1, %loops1_0:3 = transform.structured.tile_using_for %k1_0 tile_sizes [0, 16, 512, 256] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.annotate %k1_1 "mqss.tiled" : !transform.any_op
    transform.yield
  }
}
