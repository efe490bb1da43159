// Compile and run inside the sandbox child: clone the module, run the
// pipeline and the finisher, JIT-compile with MLIR's ExecutionEngine, size the
// host machine code, and call the entry through its packed wrapper with the
// standard output captured. It does not fork or compare anything.
#include "measure.h"

#include <fcntl.h>
#include <llvm-c/Core.h>
#include <llvm-c/Object.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <mlir-c/Target/LLVMIR.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const runner_libs[] = {
    "/usr/lib/llvm-19/lib/libmlir_runner_utils.so",
    "/usr/lib/llvm-19/lib/libmlir_c_runner_utils.so",
};

// ----------------------------------------------------------------------------
// compile

static mqss_measure_status pipeline_outcome(mqss_status st) {
  switch (st) {
  case MQSS_ERR_PIPELINE: return MQSS_MEASURE_PARSE_ERROR;
  case MQSS_ERR_VERIFY: return MQSS_MEASURE_VERIFY_FAILED;
  default: return MQSS_MEASURE_PASS_FAILED;
  }
}

static bool create_engine(compiled *c, const mqss_measure_options *o,
                          const entry_spec *e, mqss_measure_result *r) {
  MlirStringRef libs[64];
  int n = 0;
  if (!o->no_runner_libs)
    for (size_t i = 0; i < sizeof runner_libs / sizeof runner_libs[0]; i++)
      libs[n++] = mlirStringRefCreateFromCString(runner_libs[i]);
  for (int i = 0; i < o->num_shared_libs && n < 64; i++)
    libs[n++] = mlirStringRefCreateFromCString(o->shared_libs[i]);
  c->ee = mlirExecutionEngineCreate(c->mod->mod, o->opt_level, n, libs, false);
  if (mlirExecutionEngineIsNull(c->ee)) {
    r->status = MQSS_MEASURE_PASS_FAILED;
    set_message(r, "the JIT could not compile the lowered module of '%s' "
                "(a missing shared library or an untranslatable op; see "
                "stderr)", c->mod->name);
    return false;
  }
  // Allocation failures inside the kernel become OUT_OF_MEMORY, not SIGSEGV:
  // the lowered code never checks what malloc returns.
  mlirExecutionEngineRegisterSymbol(c->ee, mlirStringRefCreateFromCString("malloc"),
                                    (void *)guarded_malloc);
  mlirExecutionEngineRegisterSymbol(c->ee,
                                    mlirStringRefCreateFromCString("aligned_alloc"),
                                    (void *)guarded_aligned_alloc);
  clock_register(c->ee); // rtclock, nanoTime: see clock.c
  void *fn = mlirExecutionEngineLookupPacked(
      c->ee, mlirStringRefCreateFromCString(e->name));
  if (!fn) {
    // The lowered llvm.func exists (checked before), so linking failed.
    r->status = MQSS_MEASURE_PASS_FAILED;
    set_message(r, "the JIT could not link @%s: unresolved external symbols "
                "(a runtime function such as printMemrefF32 needs its library: "
                "keep the runner libraries or add --shared-libs)", e->name);
    return false;
  }
  memcpy(&c->fn, &fn, sizeof fn);
  return true;
}

bool compile_variant(mqss_module *m, const char *pipeline,
                     const mqss_measure_options *o, const entry_spec *e,
                     int stage_base, compiled *c, mqss_measure_result *r) {
  memset(c, 0, sizeof *c);
  mqss_session *s = m->session;
  c->mod = mqss_module_clone(m);
  if (!c->mod) {
    r->status = MQSS_MEASURE_OUT_OF_MEMORY;
    set_message(r, "out of memory cloning '%s'", m->name);
    return false;
  }
  double t0 = now_ms();
  if (pipeline && *pipeline) {
    child_report_stage(stage_base + STAGE_PIPELINE);
    mqss_status st = mqss_module_run_pipeline(c->mod, pipeline);
    if (st != MQSS_OK) {
      r->status = pipeline_outcome(st);
      set_message(r, "%s", mqss_errmsg(s));
      return false;
    }
  }
  double t1 = now_ms();
  child_report_stage(stage_base + STAGE_FINISH);
  if (mqss_module_finish(c->mod) != MQSS_OK) {
    r->status = MQSS_MEASURE_PASS_FAILED;
    set_message(r, "%s", mqss_errmsg(s));
    return false;
  }
  double t2 = now_ms();
  int want = entry_expected_nargs(e), got = entry_lowered_nargs(c->mod, e->name);
  if (got != want) {
    r->status = MQSS_MEASURE_UNSUPPORTED;
    set_message(r, "unsupported: after lowering, @%s takes %d LLVM arguments, "
                "expected %d from its signature (the pipeline changed the "
                "calling convention or removed the function)", e->name, got, want);
    return false;
  }
  child_report_stage(stage_base + STAGE_JIT);
  if (!create_engine(c, o, e, r))
    return false;
  double t3 = now_ms();
  r->pipeline_ms = t1 - t0;
  r->finish_ms = t2 - t1;
  r->jit_ms = t3 - t2;
  r->compile_ms = t3 - t0;
  return true;
}

void compiled_free(compiled *c) {
  if (!mlirExecutionEngineIsNull(c->ee))
    mlirExecutionEngineDestroy(c->ee);
  mqss_module_destroy(c->mod);
  memset(c, 0, sizeof *c);
}

// ----------------------------------------------------------------------------
// machine-code size

int64_t text_bytes(mqss_module *lowered, int opt_level) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  int64_t total = -1;
  LLVMContextRef lc = LLVMContextCreate();
  LLVMModuleRef lm =
      mlirTranslateModuleToLLVMIR(mlirModuleGetOperation(lowered->mod), lc);
  char *triple = LLVMGetDefaultTargetTriple();
  char *cpu = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures();
  char *err = NULL;
  LLVMTargetRef target;
  LLVMTargetMachineRef tm = NULL;
  LLVMMemoryBufferRef obj = NULL;
  if (!lm || LLVMGetTargetFromTriple(triple, &target, &err))
    goto done;
  LLVMCodeGenOptLevel cg = opt_level <= 0   ? LLVMCodeGenLevelNone
                           : opt_level == 1 ? LLVMCodeGenLevelLess
                           : opt_level == 2 ? LLVMCodeGenLevelDefault
                                            : LLVMCodeGenLevelAggressive;
  tm = LLVMCreateTargetMachine(target, triple, cpu, features, cg, LLVMRelocPIC,
                               LLVMCodeModelDefault);
  LLVMSetTarget(lm, triple);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(lm, dl);
  LLVMDisposeTargetData(dl);
  char passes[32];
  snprintf(passes, sizeof passes, "default<O%d>", opt_level < 0 ? 0 : opt_level > 3 ? 3 : opt_level);
  LLVMPassBuilderOptionsRef pbo = LLVMCreatePassBuilderOptions();
  LLVMErrorRef perr = LLVMRunPasses(lm, passes, tm, pbo);
  LLVMDisposePassBuilderOptions(pbo);
  if (perr) {
    LLVMConsumeError(perr);
    goto done;
  }
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, lm, LLVMObjectFile, &err, &obj))
    goto done;
  LLVMBinaryRef bin = LLVMCreateBinary(obj, lc, &err);
  if (!bin)
    goto done;
  total = 0;
  LLVMSectionIteratorRef si = LLVMObjectFileCopySectionIterator(bin);
  for (; !LLVMObjectFileIsSectionIteratorAtEnd(bin, si); LLVMMoveToNextSection(si)) {
    const char *name = LLVMGetSectionName(si);
    if (name && !strncmp(name, ".text", 5))
      total += (int64_t)LLVMGetSectionSize(si);
  }
  LLVMDisposeSectionIterator(si);
  LLVMDisposeBinary(bin);
done:
  if (err)
    LLVMDisposeMessage(err);
  if (obj)
    LLVMDisposeMemoryBuffer(obj);
  if (tm)
    LLVMDisposeTargetMachine(tm);
  if (lm)
    LLVMDisposeModule(lm);
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  LLVMContextDispose(lc);
  return total;
}

// ----------------------------------------------------------------------------
// run

static void read_all(int fd, strbuf *sb) {
  char chunk[4096];
  ssize_t n;
  lseek(fd, 0, SEEK_SET);
  while ((n = read(fd, chunk, sizeof chunk)) > 0)
    sb_append(sb, chunk, (size_t)n);
}

double run_once(const compiled *c, call_args *a, outputs *capture) {
  fflush(stdout);
  int saved = dup(1);
  int target = -1;
  FILE *tmp = NULL;
  if (capture && (tmp = tmpfile()))
    target = fileno(tmp);
  else
    target = open("/dev/null", O_WRONLY);
  if (saved >= 0 && target >= 0)
    dup2(target, 1);
  call_args_reset(a);
  double t0 = now_ms();
  c->fn(a->packed);
  double t1 = now_ms();
  fflush(stdout);
  if (saved >= 0) {
    dup2(saved, 1);
    close(saved);
  }
  if (capture && tmp) {
    read_all(target, &capture->out);
    fclose(tmp);
  } else if (target >= 0) {
    close(target);
  }
  if (capture)
    outputs_collect(capture, a);
  return t1 - t0;
}
