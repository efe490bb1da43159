// Writing a compiled module: the LLVM-dialect module as .mlir text, LLVM IR
// (.ll, via mlirTranslateModuleToLLVMIR, not optimised) or a host object
// file (.o: LLVM's default<O3> pipeline, as the measurement's JIT runs it,
// which also lowers the coroutines of async code, then the LLVM-C target
// machine). The module must already be lowered (mqss_module_finish). It
// does not lower or optimise the MLIR itself.
#include "policy/policy.h"

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <mlir-c/Target/LLVMIR.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && !strcmp(s + a - b, suf);
}

static mqss_status write_text(mqss_session *s, const char *path,
                              const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return fail(s, MQSS_ERR_IO, "cannot write '%s': %s", path,
                strerror(errno));
  size_t n = strlen(text);
  bool ok = fwrite(text, 1, n, f) == n;
  ok = fclose(f) == 0 && ok;
  return ok ? MQSS_OK
            : fail(s, MQSS_ERR_IO, "cannot write '%s': %s", path,
                   strerror(errno));
}

// Emits an object file of lm for the host into path.
static mqss_status emit_object(mqss_session *s, LLVMModuleRef lm,
                               const char *path) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  char *triple = LLVMGetDefaultTargetTriple();
  char *cpu = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures();
  char *err = NULL;
  LLVMTargetRef target;
  mqss_status rc = MQSS_OK;
  if (LLVMGetTargetFromTriple(triple, &target, &err)) {
    rc = fail(s, MQSS_ERR_INTERNAL, "no LLVM target for '%s': %s", triple,
              err ? err : "?");
  } else {
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
        target, triple, cpu, features, LLVMCodeGenLevelDefault, LLVMRelocPIC,
        LLVMCodeModelDefault);
    LLVMSetTarget(lm, triple);
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(lm, dl);
    LLVMDisposeTargetData(dl);
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    LLVMErrorRef perr = LLVMRunPasses(lm, "default<O3>", tm, po);
    LLVMDisposePassBuilderOptions(po);
    if (perr) {
      char *msg = LLVMGetErrorMessage(perr);
      rc = fail(s, MQSS_ERR_INTERNAL, "LLVM's optimisation pipeline failed "
                "on '%s': %s", path, msg);
      LLVMDisposeErrorMessage(msg);
    } else if (LLVMTargetMachineEmitToFile(tm, lm, (char *)path,
                                           LLVMObjectFile, &err)) {
      rc = fail(s, MQSS_ERR_IO, "cannot emit object file '%s': %s", path,
                err ? err : "?");
    }
    LLVMDisposeTargetMachine(tm);
  }
  if (err)
    LLVMDisposeMessage(err);
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  return rc;
}

mqss_status mqss_module_emit(const mqss_module *m, const char *path) {
  if (!m)
    return MQSS_ERR_INVALID_ARG;
  mqss_session *s = m->session;
  if (!path)
    return fail(s, MQSS_ERR_INVALID_ARG, "emit: NULL path");
  if (ends_with(path, ".mlir")) {
    char *text = mqss_module_to_string(m);
    if (!text)
      return fail(s, MQSS_ERR_NOMEM, "out of memory");
    mqss_status rc = write_text(s, path, text);
    free(text);
    return rc;
  }
  bool ll = ends_with(path, ".ll");
  if (!ll && !ends_with(path, ".o"))
    return fail(s, MQSS_ERR_INVALID_ARG, "cannot tell the output format of "
                "'%s': name it .mlir, .ll or .o", path);
  diag_reset(s, m->name);
  LLVMContextRef lc = LLVMContextCreate();
  LLVMModuleRef lm =
      mlirTranslateModuleToLLVMIR(mlirModuleGetOperation(m->mod), lc);
  mqss_status rc = MQSS_OK;
  if (!lm) {
    rc = fail(s, MQSS_ERR_FINISH, "cannot translate '%s' to LLVM IR (is it "
              "fully lowered to the LLVM dialect?)", m->name);
  } else if (ll) {
    char *text = LLVMPrintModuleToString(lm);
    rc = write_text(s, path, text);
    LLVMDisposeMessage(text);
  } else {
    rc = emit_object(s, lm, path);
  }
  if (lm)
    LLVMDisposeModule(lm);
  LLVMContextDispose(lc);
  return rc;
}
