// The fixed op-kind vocabulary shared by the state features (op-type
// frequencies) and the IR graph (node op-kind ids): the ops our corpus is
// made of, plus one overflow bucket per dialect for everything else. Ids are
// part of the feature layout and of trained policies: append, never reorder.
// It does not count anything itself.
#include "internal.h"

#include <string.h>

// ----------------------------------------------------------------------------
// the vocabulary

static const char *const named[] = {
    // func (3)
    "func.func", "func.return", "func.call",
    // arith (20)
    "arith.constant", "arith.addf", "arith.subf", "arith.mulf", "arith.divf",
    "arith.maximumf", "arith.minimumf", "arith.cmpf", "arith.select",
    "arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.remsi",
    "arith.cmpi", "arith.index_cast", "arith.sitofp", "arith.extf",
    "arith.truncf", "arith.extsi",
    // math (8)
    "math.exp", "math.tanh", "math.sqrt", "math.rsqrt", "math.log",
    "math.powf", "math.fma", "math.absf",
    // linalg (16)
    "linalg.generic", "linalg.matmul", "linalg.batch_matmul", "linalg.fill",
    "linalg.conv_2d_nchw_fchw", "linalg.conv_2d_nhwc_hwcf",
    "linalg.depthwise_conv_2d_nhwc_hwc", "linalg.pooling_nhwc_max",
    "linalg.pooling_nhwc_sum", "linalg.yield", "linalg.index",
    "linalg.transpose", "linalg.reduce", "linalg.map", "linalg.copy",
    "linalg.matvec",
    // tensor (4)
    "tensor.empty", "tensor.extract_slice", "tensor.insert_slice",
    "tensor.extract",
    // memref (8)
    "memref.alloc", "memref.alloca", "memref.dealloc", "memref.load",
    "memref.store", "memref.subview", "memref.copy", "memref.cast",
    // bufferization (2)
    "bufferization.to_tensor", "bufferization.to_memref",
    // affine (9)
    "affine.for", "affine.load", "affine.store", "affine.apply",
    "affine.yield", "affine.if", "affine.parallel", "affine.min",
    "affine.max",
    // scf (7)
    "scf.for", "scf.yield", "scf.while", "scf.condition", "scf.if",
    "scf.parallel", "scf.reduce",
    // vector (9)
    "vector.transfer_read", "vector.transfer_write", "vector.load",
    "vector.store", "vector.broadcast", "vector.reduction", "vector.fma",
    "vector.contract", "vector.multi_reduction",
    // cf (2)
    "cf.br", "cf.cond_br",
};

enum { N_NAMED = sizeof named / sizeof named[0] };

// Overflow buckets, in id order after the named kinds; the last is the
// catch-all.
static const char *const buckets[] = {
    "other.arith", "other.math",   "other.linalg", "other.tensor",
    "other.memref", "other.affine", "other.scf",   "other.vector",
    "other.llvm",  "other.misc",
};

enum { N_BUCKETS = sizeof buckets / sizeof buckets[0] };

_Static_assert(N_NAMED == 88, "the vocabulary is part of the feature layout");

// ----------------------------------------------------------------------------
// lookup

int mqss_op_kind_count(void) { return N_NAMED + N_BUCKETS; }

int op_kind_named_count(void) { return N_NAMED; }

const char *mqss_op_kind_name(int id) {
  if (id >= 0 && id < N_NAMED)
    return named[id];
  if (id >= N_NAMED && id < N_NAMED + N_BUCKETS)
    return buckets[id - N_NAMED];
  return NULL;
}

int op_kind_id(MlirStringRef name) {
  // A linear scan costs ~90 compares per op; callers cache by identifier.
  for (int i = 0; i < N_NAMED; i++)
    if (strlen(named[i]) == name.length &&
        !memcmp(named[i], name.data, name.length))
      return i;
  for (int b = 0; b < N_BUCKETS - 1; b++) {
    const char *d = buckets[b] + 6; // after "other."
    size_t n = strlen(d);
    if (name.length > n && name.data[n] == '.' && !memcmp(name.data, d, n))
      return N_NAMED + b;
  }
  return N_NAMED + N_BUCKETS - 1;
}
