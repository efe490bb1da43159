// Compile and run inside the sandbox child: clone the module, run the
// pipeline and the finisher, JIT-compile with MLIR's ExecutionEngine, size the
// host machine code, and call the entry through its packed wrapper with the
// standard output captured. It does not fork or compare anything.
#define _GNU_SOURCE // memfd_create
#include "measure.h"

#include <fcntl.h>
#include <llvm-c/Core.h>
#include <llvm-c/ExecutionEngine.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Object.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *const runner_libs[] = {
    "/usr/lib/llvm-19/lib/libmlir_runner_utils.so",
    "/usr/lib/llvm-19/lib/libmlir_c_runner_utils.so",
};

// A runner library that is not installed is left out: a static mqss on a
// machine without MLIR's runtime libraries still runs every program that
// calls none of their functions (the others fail to link, with a message).
static bool runner_lib_present(size_t i) {
  return access(runner_libs[i], R_OK) == 0;
}

// ----------------------------------------------------------------------------
// compile

static mqss_measure_status pipeline_outcome(mqss_status st) {
  switch (st) {
  case MQSS_ERR_PIPELINE: return MQSS_MEASURE_PARSE_ERROR;
  case MQSS_ERR_VERIFY: return MQSS_MEASURE_VERIFY_FAILED;
  default: return MQSS_MEASURE_PASS_FAILED;
  }
}

// MLIR's ExecutionEngine attaches LLVM's perf listener to every engine. That
// listener is one object per process: on first use it creates
// .debug/jit/llvm-IR-jit-DATE-XXXXXX in $JITDUMPDIR (else, as built here, in
// the temporary directory) and copies every JIT's machine code and line
// tables into it, and nothing ever removes it: one directory per sandbox
// child. Unless the user set JITDUMPDIR (they want
// perf's jitdump), the listener is made to fail its initialisation once,
// quietly (its directory cannot be created under /dev/null; it reports that
// on fd 2, which is pointed at /dev/null for the call), which turns it off
// for the life of the process.
static void perf_listener_off(void) {
  if (getenv("JITDUMPDIR"))
    return;
  if (setenv("JITDUMPDIR", "/dev/null", 1) != 0)
    return;
  fflush(stderr);
  int saved = dup(2), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (saved >= 0 && null >= 0)
    dup2(null, 2);
  LLVMCreatePerfJITEventListener();
  if (saved >= 0) {
    dup2(saved, 2);
    close(saved);
  }
  if (null >= 0)
    close(null);
  unsetenv("JITDUMPDIR");
}

static int engines_created; // in this process (tests of the object cache)

int jit_engines_created(void) { return engines_created; }

static bool create_engine(compiled *c, const mqss_measure_options *o,
                          const entry_spec *e, bool keep_object,
                          mqss_measure_result *r) {
  engines_created++;
  MlirStringRef libs[64];
  int n = 0;
  if (!o->no_runner_libs)
    for (size_t i = 0; i < sizeof runner_libs / sizeof runner_libs[0]; i++)
      if (runner_lib_present(i))
        libs[n++] = mlirStringRefCreateFromCString(runner_libs[i]);
  for (int i = 0; i < o->num_shared_libs && n < 64; i++)
    libs[n++] = mlirStringRefCreateFromCString(o->shared_libs[i]);
  static pthread_once_t listener_once = PTHREAD_ONCE_INIT;
  pthread_once(&listener_once, perf_listener_off);
  c->ee = mlirExecutionEngineCreate(c->mod->mod, o->opt_level, n, libs,
                                    keep_object);
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

bool lower_variant(mqss_module *m, const char *pipeline, const entry_spec *e,
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
  // The printed LLVM-dialect module without locations: what the JIT compiles.
  c->lowered_hash = mqss_module_hash(c->mod);
  r->lowered_hash = c->lowered_hash;
  r->pipeline_ms = t1 - t0;
  r->finish_ms = t2 - t1;
  r->compile_ms = t2 - t0;
  return true;
}

static bool engine_object(const compiled *c, strbuf *obj);

// ----------------------------------------------------------------------------
// object cache: the JIT's object file, stored under the lowered code's hash
// and what else shapes the machine code; linked again with ORC's LLJIT

static void object_key(const compiled *c, const mqss_measure_options *o,
                       strbuf *key) {
  char *cpu = LLVMGetHostCPUName(), *features = LLVMGetHostCPUFeatures();
  uint64_t fh = fnv1a64(FNV1A64_INIT, features, strlen(features));
  sb_printf(key, "object v2;lowered=%016" PRIx64 ";opt=%d;cpu=%s;features=%016"
            PRIx64 ";mlir=%s", c->lowered_hash, o->opt_level, cpu, fh,
            mqss_mlir_version());
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
}

// Links c->object with LLJIT: the guarded allocators first, then every
// symbol of the process, with the runner and shared libraries loaded
// globally as the engine would. False (nothing kept) on any failure: the
// caller compiles instead.
static bool load_object(compiled *c, const mqss_measure_options *o,
                        const entry_spec *e) {
  if (!o->no_runner_libs)
    for (size_t i = 0; i < sizeof runner_libs / sizeof runner_libs[0]; i++)
      if (runner_lib_present(i) && !dlopen(runner_libs[i], RTLD_NOW | RTLD_GLOBAL))
        return false;
  for (int i = 0; i < o->num_shared_libs; i++)
    if (!dlopen(o->shared_libs[i], RTLD_NOW | RTLD_GLOBAL))
      return false;
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMOrcLLJITRef jit = NULL;
  LLVMErrorRef err = LLVMOrcCreateLLJIT(&jit, LLVMOrcCreateLLJITBuilder());
  if (err) {
    LLVMConsumeError(err);
    return false;
  }
  LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(jit);
  LLVMJITSymbolFlags flags = {
      LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable, 0};
  LLVMOrcCSymbolMapPair alloc[2] = {
      {LLVMOrcLLJITMangleAndIntern(jit, "malloc"),
       {(LLVMOrcExecutorAddress)(uintptr_t)guarded_malloc, flags}},
      {LLVMOrcLLJITMangleAndIntern(jit, "aligned_alloc"),
       {(LLVMOrcExecutorAddress)(uintptr_t)guarded_aligned_alloc, flags}},
  };
  LLVMOrcDefinitionGeneratorRef gen = NULL;
  LLVMOrcExecutorAddress addr = 0;
  char name[160];
  snprintf(name, sizeof name, "_mlir_%s", e->name);
  err = LLVMOrcJITDylibDefine(jd, LLVMOrcAbsoluteSymbols(alloc, 2));
  if (!err)
    err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
        &gen, LLVMOrcLLJITGetGlobalPrefix(jit), NULL, NULL);
  if (!err) {
    LLVMOrcJITDylibAddGenerator(jd, gen);
    err = LLVMOrcLLJITAddObjectFile(
        jit, jd, LLVMCreateMemoryBufferWithMemoryRangeCopy(
                     c->object.data, c->object.len, "cached-object"));
  }
  if (!err)
    err = LLVMOrcLLJITLookup(jit, &addr, name);
  if (err || !addr) {
    if (err)
      LLVMConsumeError(err);
    LLVMOrcDisposeLLJIT(jit);
    return false;
  }
  c->lljit = jit;
  void *fn = (void *)(uintptr_t)addr;
  memcpy(&c->fn, &fn, sizeof fn);
  return true;
}

bool jit_variant(const mqss_measure_options *o, const entry_spec *e,
                 int stage_base, compiled *c, mqss_measure_result *r) {
  child_report_stage(stage_base + STAGE_JIT);
  async_pool_start(c->mod);
  omp_pool_start(c->mod);
  double t2 = now_ms();
  bool objects = o->cache_path && !o->no_cache;
  strbuf key = {0};
  if (objects) {
    object_key(c, o, &key);
    if (cache_object_get(c->mod->session, o->cache_path, key.data, &c->object,
                         &r->llvm_ms) &&
        load_object(c, o, e)) {
      sb_free(&key);
      r->jit_ms = now_ms() - t2; // the link: compile_ms counts the stored JIT
      r->compile_ms = r->pipeline_ms + r->finish_ms + r->llvm_ms;
      return true;
    }
    sb_clear(&c->object);
  }
  // The candidate's object is kept for text_bytes (the reference is not
  // sized), and every object when there is a cache to store it in.
  bool ok = create_engine(c, o, e, objects || (o->code_size && stage_base == 0), r);
  r->jit_ms = r->llvm_ms = now_ms() - t2;
  r->compile_ms = r->pipeline_ms + r->finish_ms + r->jit_ms;
  if (ok && objects && engine_object(c, &c->object))
    cache_object_put(c->mod->session, o->cache_path, key.data, c->object.data,
                     c->object.len, r->llvm_ms);
  sb_free(&key);
  return ok;
}

bool compile_variant(mqss_module *m, const char *pipeline,
                     const mqss_measure_options *o, const entry_spec *e,
                     int stage_base, compiled *c, mqss_measure_result *r) {
  return lower_variant(m, pipeline, e, stage_base, c, r) &&
         jit_variant(o, e, stage_base, c, r);
}

void warm_jit(mqss_module *m, const mqss_measure_options *o,
              const entry_spec *e) {
  compiled c = {0};
  mqss_measure_result r;
  measure_result_init(&r, e->name);
  (void)compile_variant(m, NULL, o, e, STAGE_REF_OFFSET, &c, &r);
  compiled_free(&c);
}

void compiled_free(compiled *c) {
  if (!mlirExecutionEngineIsNull(c->ee))
    mlirExecutionEngineDestroy(c->ee);
  if (c->lljit)
    LLVMOrcDisposeLLJIT(c->lljit);
  sb_free(&c->object);
  mqss_module_destroy(c->mod);
  memset(c, 0, sizeof *c);
}

// ----------------------------------------------------------------------------
// machine-code size

// The JIT keeps a copy of the object file it linked (created with
// keep_object); MLIR writes it to a file, here the memfd's /proc path. (Its
// "-" goes to LLVM's buffered outs(), which nothing flushes.) Writing a file
// makes LLVM install its signal handlers, to remove the file on a crash;
// in a sandbox child they are reset to the defaults at once.
static bool engine_object(const compiled *c, strbuf *obj) {
  sb_clear(obj);
  if (mlirExecutionEngineIsNull(c->ee))
    return false;
  int fd = memfd_create("mqss-object", MFD_CLOEXEC);
  if (fd < 0)
    return false;
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  mlirExecutionEngineDumpToObjectFile(c->ee, mlirStringRefCreateFromCString(path));
  child_default_signals();
  fd_read_all(fd, obj);
  close(fd);
  return obj->len > 0;
}

int64_t text_bytes(const compiled *c) {
  strbuf own = {0};
  const strbuf *obj = &c->object;
  if (!obj->len && engine_object(c, &own))
    obj = &own;
  int64_t total = -1;
  char *err = NULL;
  LLVMMemoryBufferRef buf =
      obj->len ? LLVMCreateMemoryBufferWithMemoryRange(obj->data, obj->len,
                                                       "jit-object", 0)
               : NULL;
  LLVMBinaryRef bin = buf ? LLVMCreateBinary(buf, NULL, &err) : NULL;
  if (bin) {
    total = 0;
    LLVMSectionIteratorRef si = LLVMObjectFileCopySectionIterator(bin);
    for (; !LLVMObjectFileIsSectionIteratorAtEnd(bin, si);
         LLVMMoveToNextSection(si)) {
      const char *name = LLVMGetSectionName(si);
      // The JIT uses the large code model: its code is in .ltext.
      if (name && (!strncmp(name, ".text", 5) || !strncmp(name, ".ltext", 6)))
        total += (int64_t)LLVMGetSectionSize(si);
    }
    LLVMDisposeSectionIterator(si);
    LLVMDisposeBinary(bin);
  }
  if (err)
    LLVMDisposeMessage(err);
  if (buf)
    LLVMDisposeMemoryBuffer(buf);
  sb_free(&own);
  return total;
}

// ----------------------------------------------------------------------------
// run

enum { STACK_PAGE = 4096 };

// The offset, within a page, at which the next call's stack starts: 0 to
// 4080 in steps of 16, from a fixed xorshift sequence, so every child draws
// the same offsets in the same order.
static size_t next_stack_shift(void) {
  static uint64_t x = 0x9e3779b97f4a7c15u;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return (size_t)(x % (STACK_PAGE / 16)) * 16;
}

// Each call starts its stack at a new offset within a page. The kernel
// places a process's stack at a random offset, and a program can run twice
// as long at some offsets as at others (the same code; docs/MEASURE.md,
// "Stack offset"), so one child used to read one of two times. Varying the
// offset from call to call makes that noise within a child, which the
// median over calls and the statistics over pairs absorb.
double run_once(const compiled *c, call_args *a, outputs *capture) {
  program_io io;
  program_io_begin(&io, capture != NULL);
  call_args_reset(a);
  volatile char shift[next_stack_shift() + 1];
  shift[0] = 0;
  (void)shift;
  child_program_output(true);
  double t0 = now_ms();
  c->fn(a->packed);
  double t1 = now_ms();
  fflush(stdout); // under the output cap
  child_program_output(false);
  program_io_end(&io, capture ? &capture->out : NULL);
  if (capture)
    outputs_collect(capture, a);
  call_args_free_results(a); // else every call takes fresh pages for them
  return t1 - t0;
}
