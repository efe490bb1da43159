// The entry convention: which function a measurement runs and what its
// signature looks like (static memrefs/tensors and scalars of f32, f64, bf16,
// f16, i1, i8, i16, i32, i64, index). It reads the source module only; it does not
// generate inputs or lower anything.
#include "measure.h"

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/BuiltinTypes.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

// ----------------------------------------------------------------------------
// element types

static const struct {
  elem_type et;
  const char *name;
  size_t size;
} elem_table[] = {
    {ET_F32, "f32", 4}, {ET_F64, "f64", 8}, {ET_I8, "i8", 1},
    {ET_I16, "i16", 2}, {ET_I32, "i32", 4}, {ET_I64, "i64", 8},
    {ET_INDEX, "index", 8}, {ET_BF16, "bf16", 2}, {ET_F16, "f16", 2},
    {ET_I1, "i1", 1},
};

size_t elem_size(elem_type et) { return elem_table[et].size; }
const char *elem_name(elem_type et) { return elem_table[et].name; }

static bool elem_of(MlirType t, elem_type *et) {
  if (mlirTypeIsAF32(t))
    *et = ET_F32;
  else if (mlirTypeIsAF64(t))
    *et = ET_F64;
  else if (mlirTypeIsABF16(t))
    *et = ET_BF16;
  else if (mlirTypeIsAF16(t))
    *et = ET_F16;
  else if (mlirTypeIsAIndex(t))
    *et = ET_INDEX;
  else if (mlirTypeIsAInteger(t) && !mlirIntegerTypeIsUnsigned(t)) {
    switch (mlirIntegerTypeGetWidth(t)) {
    case 1: *et = ET_I1; break;
    case 8: *et = ET_I8; break;
    case 16: *et = ET_I16; break;
    case 32: *et = ET_I32; break;
    case 64: *et = ET_I64; break;
    default: return false;
    }
  } else
    return false;
  return true;
}

static void type_text(MlirType t, char *buf, size_t len) {
  strbuf sb = {0};
  mlirTypePrint(t, sb_mlir_callback, &sb);
  snprintf(buf, len, "%s", sb.data ? sb.data : "?");
  sb_free(&sb);
}

// Reads one argument or result type. `what` is "argument 2" or "result 0".
static bool read_value(MlirType t, const char *what, const char *fname,
                       value_spec *v, char *msg, size_t msglen) {
  char tt[96];
  type_text(t, tt, sizeof tt);
  memset(v, 0, sizeof *v);
  v->count = 1;
  if (mlirTypeIsAMemRef(t) || mlirTypeIsARankedTensor(t)) {
    v->shaped = true;
    v->tensor = mlirTypeIsARankedTensor(t);
    if (!mlirShapedTypeHasStaticShape(t)) {
      snprintf(msg, msglen, "unsupported: %s of @%s has dynamic shape '%s'; "
               "give the entry static shapes", what, fname, tt);
      return false;
    }
    v->rank = (int)mlirShapedTypeGetRank(t);
    if (v->rank > MAX_RANK) {
      snprintf(msg, msglen, "unsupported: %s of @%s has rank %d > %d ('%s')",
               what, fname, v->rank, MAX_RANK, tt);
      return false;
    }
    bool overflow = false;
    for (int i = 0; i < v->rank; i++) {
      v->shape[i] = mlirShapedTypeGetDimSize(t, i);
      overflow |= __builtin_mul_overflow(v->count, v->shape[i], &v->count);
    }
    t = mlirShapedTypeGetElementType(t);
    // The byte size must fit too: the harness allocates and copies it.
    int64_t bytes;
    if (!overflow && elem_of(t, &v->et))
      overflow = __builtin_mul_overflow(v->count, (int64_t)elem_size(v->et),
                                        &bytes);
    if (overflow) {
      snprintf(msg, msglen, "unsupported: %s of @%s has more elements than "
               "fit in 64 bits ('%s'); give the entry a smaller shape",
               what, fname, tt);
      return false;
    }
  }
  if (!elem_of(t, &v->et)) {
    snprintf(msg, msglen, "unsupported: %s of @%s has type '%s'; supported are "
             "static memrefs/tensors and scalars of f32, f64, bf16, f16, i1, "
             "i8, i16, i32, i64, index", what, fname, tt);
    return false;
  }
  return true;
}

mqss_measure_status entry_check_memory(const entry_spec *e, int mem_limit_mb,
                                       char *msg, size_t msglen) {
  // The harness allocates two copies of each argument (pristine and
  // working) and, to compare memref arguments, two more (reference and
  // candidate outputs). Results are the program's own allocations, which
  // the sandbox child's allocator guards by itself.
  double total = 0, largest = 0;
  int big = -1;
  for (int i = 0; i < e->nargs; i++) {
    double b = (double)e->args[i].count * (double)elem_size(e->args[i].et);
    total += 4 * b;
    if (b > largest) {
      largest = b;
      big = i;
    }
  }
  double limit = mem_limit_mb > 0 ? (double)mem_limit_mb * 1048576.0
                                  : (double)sysconf(_SC_PHYS_PAGES) *
                                        (double)sysconf(_SC_PAGESIZE);
  if (big < 0 || total <= limit)
    return MQSS_MEASURE_OK;
  const value_spec *v = &e->args[big];
  char shape[96] = "";
  size_t len = 0;
  for (int i = 0; i < v->rank && len < sizeof shape; i++)
    len += (size_t)snprintf(shape + len, sizeof shape - len, "%" PRId64 "x",
                            v->shape[i]);
  snprintf(msg, msglen, "out_of_memory: the inputs of @%s need %.0f MiB of "
           "harness buffers, over the %s of %.0f MiB; argument %d alone is "
           "%s%s (%.0f MiB): shrink the shapes%s", e->name, total / 1048576.0,
           mem_limit_mb > 0 ? "memory limit" : "physical memory",
           limit / 1048576.0, big, shape, elem_name(v->et),
           largest / 1048576.0, mem_limit_mb > 0 ? " or raise the limit" : "");
  return MQSS_MEASURE_OUT_OF_MEMORY;
}

// ----------------------------------------------------------------------------
// finding the entry

struct func_list {
  MlirOperation ops[256];
  int n;
};

static MlirWalkResult collect_funcs(MlirOperation op, void *user) {
  struct func_list *fl = user;
  MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
  if (name.length == 9 && !memcmp(name.data, "func.func", 9)) {
    if (fl->n < (int)(sizeof fl->ops / sizeof fl->ops[0]))
      fl->ops[fl->n++] = op;
    return MlirWalkResultSkip;
  }
  return MlirWalkResultAdvance;
}

static MlirStringRef func_name(MlirOperation f) {
  MlirAttribute a = mlirOperationGetAttributeByName(
      f, mlirStringRefCreateFromCString("sym_name"));
  return mlirAttributeIsNull(a) ? (MlirStringRef){"", 0}
                                : mlirStringAttrGetValue(a);
}

static bool name_is(MlirStringRef n, const char *s) {
  return n.length == strlen(s) && !memcmp(n.data, s, n.length);
}

// The one public function with a body in fl other than @skip (NULL: none
// skipped), else a null op; *npublic counts them and `names` lists them
// (", "-separated), so that an error can name the choices.
static MlirOperation single_public(const struct func_list *fl, const char *skip,
                                   int *npublic, char *names, size_t len) {
  MlirOperation f = {NULL};
  size_t used = 0;
  *npublic = 0;
  names[0] = '\0';
  for (int i = 0; i < fl->n; i++) {
    MlirStringRef n = func_name(fl->ops[i]);
    if (!func_is_public_definition(fl->ops[i]) || (skip && name_is(n, skip)))
      continue;
    if ((*npublic)++ == 0)
      f = fl->ops[i];
    if (used < len) {
      int w = snprintf(names + used, len - used, "%s@%.*s", used ? ", " : "",
                       (int)n.length, n.data);
      used += w > 0 ? (size_t)w : 0;
    }
  }
  return *npublic == 1 ? f : (MlirOperation){NULL};
}

mqss_measure_status entry_find(mqss_module *m, const char *want,
                               entry_spec *out, char *msg, size_t msglen) {
  memset(out, 0, sizeof *out);
  struct func_list fl = {.n = 0}; // (256,) handles: 2 KiB of stack
  mlirOperationWalk(mlirModuleGetOperation(m->mod), collect_funcs, &fl,
                    MlirWalkPreOrder);
  MlirOperation f = {NULL};
  // "entry" is what MLIR's integration tests name in their RUN lines
  // (mlir-cpu-runner -e entry), next to public helpers.
  const char *order[] = {want, want ? NULL : "forward", want ? NULL : "main",
                         want ? NULL : "entry"};
  for (int k = 0; k < 4 && mlirOperationIsNull(f); k++)
    for (int i = 0; order[k] && i < fl.n; i++)
      if (name_is(func_name(fl.ops[i]), order[k]) &&
          !mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(fl.ops[i], 0))))
        f = fl.ops[i];
  if (mlirOperationIsNull(f) && !want) {
    char names[256];
    int npublic;
    f = single_public(&fl, NULL, &npublic, names, sizeof names);
    if (npublic != 1) {
      snprintf(msg, msglen, "unsupported: no entry in '%s': no @forward, "
               "@main or @entry, and %d public functions%s%s; name one with "
               "--entry", m->name, npublic, npublic ? ": " : "", names);
      return MQSS_MEASURE_UNSUPPORTED;
    }
  }
  if (mlirOperationIsNull(f)) {
    snprintf(msg, msglen, "unsupported: no function @%s with a body in '%s'",
             want, m->name);
    return MQSS_MEASURE_UNSUPPORTED;
  }
  MlirStringRef name = func_name(f);
  snprintf(out->name, sizeof out->name, "%.*s", (int)name.length, name.data);
  MlirType ft = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(
      f, mlirStringRefCreateFromCString("function_type")));
  out->nargs = (int)mlirFunctionTypeGetNumInputs(ft);
  out->nresults = (int)mlirFunctionTypeGetNumResults(ft);
  if (out->nargs > MAX_VALUES || out->nresults > MAX_VALUES) {
    snprintf(msg, msglen, "unsupported: @%s has more than %d arguments or "
             "results", out->name, MAX_VALUES);
    return MQSS_MEASURE_UNSUPPORTED;
  }
  char what[32];
  for (int i = 0; i < out->nargs; i++) {
    snprintf(what, sizeof what, "argument %d", i);
    if (!read_value(mlirFunctionTypeGetInput(ft, i), what, out->name,
                    &out->args[i], msg, msglen))
      return MQSS_MEASURE_UNSUPPORTED;
  }
  for (int i = 0; i < out->nresults; i++) {
    snprintf(what, sizeof what, "result %d", i);
    if (!read_value(mlirFunctionTypeGetResult(ft, i), what, out->name,
                    &out->results[i], msg, msglen))
      return MQSS_MEASURE_UNSUPPORTED;
  }
  return MQSS_MEASURE_OK;
}

bool entry_kernel(mqss_module *m, char *name, size_t len, char *msg,
                  size_t msglen) {
  struct func_list fl = {.n = 0};
  mlirOperationWalk(mlirModuleGetOperation(m->mod), collect_funcs, &fl,
                    MlirWalkPreOrder);
  char names[256];
  int npublic;
  MlirOperation f = single_public(&fl, "main", &npublic, names, sizeof names);
  if (mlirOperationIsNull(f)) {
    snprintf(msg, msglen, "unsupported: '%s' has %d public functions with a "
             "body besides @main%s%s; timing the kernel needs exactly one: "
             "make the kernel public and its helpers private", m->name,
             npublic, npublic ? ": " : "", names);
    return false;
  }
  MlirStringRef n = func_name(f);
  snprintf(name, len, "%.*s", (int)n.length, n.data);
  return true;
}

// ----------------------------------------------------------------------------
// the lowered signature

int entry_expected_nargs(const entry_spec *e) {
  int n = 0;
  for (int i = 0; i < e->nargs; i++)
    n += e->args[i].shaped ? 3 + 2 * e->args[i].rank : 1;
  return n;
}

struct find_llvm_func {
  const char *name;
  int nargs;
};

static MlirWalkResult find_llvm_func(MlirOperation op, void *user) {
  struct find_llvm_func *ff = user;
  if (!name_is(mlirIdentifierStr(mlirOperationGetName(op)), "llvm.func"))
    return MlirWalkResultAdvance;
  if (!name_is(func_name(op), ff->name))
    return MlirWalkResultSkip;
  MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0));
  ff->nargs = mlirBlockIsNull(b) ? -1 : (int)mlirBlockGetNumArguments(b);
  return MlirWalkResultInterrupt;
}

int entry_lowered_nargs(mqss_module *lowered, const char *name) {
  struct find_llvm_func ff = {name, -1};
  mlirOperationWalk(mlirModuleGetOperation(lowered->mod), find_llvm_func, &ff,
                    MlirWalkPreOrder);
  return ff.nargs;
}
