// Unit tests of the measurement harness: the entry convention, input
// generation, the packed calling convention (checked against C arithmetic on
// the same inputs), standard-output capture (checked against the values the
// example's comment defines), output comparison and tolerances, every
// sandbox fault (loop, segfault, huge allocation, invalid IR, bad pipeline),
// wrong_output on a known miscompile, and the --vs pairing.
// measure.h first: cmocka's fail() macro would clash with internal.h's fail().
#include "measure/measure.h"

#include "util/sanitized.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "check.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define INPUTS MQSS_SOURCE_DIR "/tests/lit/Inputs/"
#define EXAMPLES MQSS_SOURCE_DIR "/examples/"


static mqss_module *parse_text(mqss_session *s, const char *text) {
  mqss_module *m = NULL;
  if (mqss_module_parse_string(s, text, strlen(text), "t.mlir", &m) != MQSS_OK)
    fail_msg("parse failed: %s", mqss_errmsg(s));
  return m;
}

static mqss_module *parse_path(mqss_session *s, const char *path) {
  mqss_module *m = NULL;
  if (mqss_module_parse_file(s, path, &m) != MQSS_OK)
    fail_msg("parse failed: %s", mqss_errmsg(s));
  return m;
}

// Fast options for tests: few runs, no code size unless asked.
static mqss_measure_options quick(void) {
  mqss_measure_options o;
  mqss_measure_options_init(&o);
  o.warmup = 1;
  o.repeat = 3;
  o.code_size = 0;
  return o;
}

// Finds the default entry of m and compiles it after `pipeline` with `o`;
// fails the test when either step fails.
static void compile_entry(mqss_module *m, const char *pipeline,
                          const mqss_measure_options *o, entry_spec *e,
                          compiled *c) {
  char msg[512];
  assert_int_equal(entry_find(m, NULL, e, msg, sizeof msg), MQSS_MEASURE_OK);
  mqss_measure_result r;
  memset(&r, 0, sizeof r);
  if (!compile_variant(m, pipeline, o, e, 0, c, &r))
    fail_msg("compile failed: %s", r.message);
  assert_true(r.compile_ms > 0);
}

// ----------------------------------------------------------------------------
// names, defaults, entry convention

static void test_defaults_and_names(void **state) {
  (void)state;
  mqss_measure_options o;
  mqss_measure_options_init(&o);
  assert_int_equal(o.warmup, 3);
  assert_int_equal(o.repeat, 10);
  assert_int_equal(o.cpu, -1);
  assert_true(o.check_reference);
  assert_null(o.cache_path);
  assert_string_equal(mqss_measure_status_name(MQSS_MEASURE_OK), "ok");
  assert_string_equal(mqss_measure_status_name(MQSS_MEASURE_WRONG_OUTPUT),
                      "wrong_output");
  assert_string_equal(mqss_measure_status_name(MQSS_MEASURE_OUT_OF_MEMORY),
                      "out_of_memory");
  assert_string_equal(mqss_measure_status_name((mqss_measure_status)99), "unknown");
}

static const char *FUNCS =
    "func.func private @helper(%x: f32) -> f32 { return %x : f32 }\n"
    "func.func @main() { return }\n"
    "func.func @forward(%a: memref<2x3xf64>, %n: index) -> tensor<5xi8> {\n"
    "  %e = tensor.empty() : tensor<5xi8>\n  return %e : tensor<5xi8>\n}\n";

static void test_entry_convention(void **state) {
  mqss_session *s = *state;
  char msg[512];
  entry_spec e;
  mqss_module *m = parse_text(s, FUNCS);
  assert_int_equal(entry_find(m, NULL, &e, msg, sizeof msg), MQSS_MEASURE_OK);
  assert_string_equal(e.name, "forward");
  assert_int_equal(e.nargs, 2);
  assert_true(e.args[0].shaped && !e.args[0].tensor);
  assert_int_equal(e.args[0].et, ET_F64);
  assert_int_equal(e.args[0].count, 6);
  assert_false(e.args[1].shaped);
  assert_int_equal(e.args[1].et, ET_INDEX);
  assert_int_equal(e.nresults, 1);
  assert_true(e.results[0].tensor);
  assert_int_equal(e.results[0].et, ET_I8);
  // memref<2x3> expands to 3 + 2*2 words, the index to one.
  assert_int_equal(entry_expected_nargs(&e), 8);
  assert_int_equal(entry_find(m, "main", &e, msg, sizeof msg), MQSS_MEASURE_OK);
  assert_int_equal(e.nargs, 0);
  assert_int_equal(entry_find(m, "nope", &e, msg, sizeof msg),
                   MQSS_MEASURE_UNSUPPORTED);
  assert_non_null(strstr(msg, "no function @nope"));
  mqss_module_destroy(m);

  // No @forward/@main: the single public function, private ones ignored.
  m = parse_text(s, "func.func private @p() { return }\n"
                    "func.func @only(%x: i32) -> i32 { return %x : i32 }\n");
  assert_int_equal(entry_find(m, NULL, &e, msg, sizeof msg), MQSS_MEASURE_OK);
  assert_string_equal(e.name, "only");
  mqss_module_destroy(m);

  m = parse_text(s, "func.func @a() { return }\nfunc.func @b() { return }\n");
  assert_int_equal(entry_find(m, NULL, &e, msg, sizeof msg),
                   MQSS_MEASURE_UNSUPPORTED);
  assert_non_null(strstr(msg, "2 public functions"));
  mqss_module_destroy(m);
}

static void test_entry_unsupported(void **state) {
  mqss_session *s = *state;
  char msg[512];
  entry_spec e;
  mqss_module *m = parse_text(s, "func.func @forward(%a: memref<4xf32>, "
                                 "%b: memref<?x4xf32>) { return }\n");
  assert_int_equal(entry_find(m, NULL, &e, msg, sizeof msg),
                   MQSS_MEASURE_UNSUPPORTED);
  assert_non_null(strstr(msg, "argument 1"));
  assert_non_null(strstr(msg, "dynamic shape"));
  mqss_module_destroy(m);
  m = parse_text(s, "func.func @forward(%a: f8E5M2) { return }\n");
  assert_int_equal(entry_find(m, NULL, &e, msg, sizeof msg),
                   MQSS_MEASURE_UNSUPPORTED);
  assert_non_null(strstr(msg, "argument 0 of @forward has type 'f8E5M2'"));
  mqss_module_destroy(m);
  // Through the public call: no fork happens, the outcome says why.
  m = parse_text(s, "func.func @forward(%a: tensor<?xf32>) { return }\n");
  mqss_measure_options o = quick();
  mqss_measure_result r;
  assert_int_equal(mqss_measure(m, &o, &r), MQSS_OK);
  assert_int_equal(r.status, MQSS_MEASURE_UNSUPPORTED);
  assert_non_null(strstr(r.message, "unsupported: argument 0"));
  mqss_module_destroy(m);
}

// ----------------------------------------------------------------------------
// inputs and the calling convention

static void test_inputs_deterministic(void **state) {
  mqss_session *s = *state;
  mqss_module *m = parse_path(s, INPUTS "measure_add.mlir");
  entry_spec e;
  char msg[512];
  assert_int_equal(entry_find(m, NULL, &e, msg, sizeof msg), MQSS_MEASURE_OK);
  call_args a, b, c;
  assert_true(call_args_init(&a, &e, 7));
  assert_true(call_args_init(&b, &e, 7));
  assert_true(call_args_init(&c, &e, 8));
  assert_memory_equal(a.pristine[0], b.pristine[0], 32 * sizeof(float));
  assert_memory_not_equal(a.pristine[0], c.pristine[0], 32 * sizeof(float));
  const float *f = a.pristine[0];
  const int32_t *ia = a.pristine[4];
  for (int i = 0; i < 32; i++) {
    assert_true(f[i] >= -1.0f && f[i] < 1.0f);
    assert_true(ia[i] >= -8 && ia[i] <= 7);
  }
  call_args_free(&a);
  call_args_free(&b);
  call_args_free(&c);
  mqss_module_destroy(m);
}

// Runs measure_add.mlir in process and checks every output against the same
// arithmetic done in C on the generated inputs.
static void test_calling_convention(void **state) {
  mqss_session *s = *state;
  mqss_module *m = parse_path(s, INPUTS "measure_add.mlir");
  entry_spec e;
  mqss_measure_options o = quick();
  o.code_size = 1; // keeps the JIT's object for text_bytes
  compiled c;
  compile_entry(m, "func.func(convert-linalg-to-affine-loops)", &o, &e, &c);
  call_args a;
  assert_true(call_args_init(&a, &e, 42));
  outputs out = {0};
  run_once(&c, &a, &out);
  // results 0, 1, then the memref arguments 0 (a) and 3 (out)
  assert_int_equal(out.n, 4);
  assert_string_equal(out.v[0].what, "result 0");
  assert_string_equal(out.v[3].what, "argument 3");
  const float *A = a.pristine[0], *B = a.pristine[1];
  float sc;
  memcpy(&sc, &a.scalar[2], sizeof sc);
  const int32_t *IA = a.pristine[4], *IB = a.pristine[5];
  const float *ret0 = out.v[0].data, *arga = out.v[2].data, *argout = out.v[3].data;
  const int32_t *ret1 = out.v[1].data;
  for (int i = 0; i < 32; i++) {
    float want_out = A[i] + sc * A[i];
    if (ret0[i] != B[i] + B[i] || ret1[i] != IA[i] * IB[i] || arga[i] != A[i] ||
        argout[i] != want_out)
      fail_msg("element %d: ret0 %g (want %g) ret1 %d (want %d) out %g (want %g)",
               i, ret0[i], B[i] + B[i], ret1[i], IA[i] * IB[i], argout[i],
               want_out);
  }
  // The machine code exists and is small but not empty.
  int64_t bytes = text_bytes(&c);
  assert_true(bytes > 16);
  outputs_free(&out);
  call_args_free(&a);
  compiled_free(&c);
  mqss_module_destroy(m);
}

// run_once starts each call's stack at a new offset within a page: the
// address of a stack buffer, returned by the program, moves by multiples of
// 16 bytes from call to call and stays within one page of the first call's.
static void test_stack_offset(void **state) {
  mqss_session *s = *state;
  mqss_module *m = parse_path(s, INPUTS "stack_address.mlir");
  entry_spec e;
  mqss_measure_options o = quick();
  compiled c;
  compile_entry(m, NULL, &o, &e, &c);
  call_args a;
  assert_true(call_args_init(&a, &e, 1));
  enum { CALLS = 16 };
  int64_t addr[CALLS];
  for (int i = 0; i < CALLS; i++) {
    outputs out = {0};
    run_once(&c, &a, &out);
    assert_int_equal(out.n, 1);
    memcpy(&addr[i], out.v[0].data, sizeof addr[i]);
    outputs_free(&out);
  }
  int distinct = 0;
  for (int i = 0; i < CALLS; i++) {
    int64_t d = addr[i] - addr[0];
    assert_int_equal(d % 16, 0);
    assert_true(d > -4096 && d < 4096);
    bool seen = false;
    for (int j = 0; j < i; j++)
      seen |= addr[j] == addr[i];
    distinct += !seen;
  }
  if (distinct < CALLS / 2)
    fail_msg("%d distinct stack addresses in %d calls", distinct, CALLS);
  call_args_free(&a);
  compiled_free(&c);
  mqss_module_destroy(m);
}

// examples/matmul_tensor_f32.mlir's @main prints C = A * B with
//   A[i,k] = ((3i + 5k) mod 7 - 3) * 0.25,  B[k,j] = ((2k + 7j) mod 9 - 4) * 0.5
// (32x48 times 48x16). The captured standard output must hold exactly those.
static void test_stdout_capture(void **state) {
  mqss_session *s = *state;
  mqss_module *m = parse_path(s, EXAMPLES "matmul_tensor_f32.mlir");
  entry_spec e;
  char msg[512];
  assert_int_equal(entry_find(m, "main", &e, msg, sizeof msg), MQSS_MEASURE_OK);
  mqss_measure_options o = quick();
  mqss_measure_result r;
  memset(&r, 0, sizeof r);
  compiled c;
  if (!compile_variant(m, NULL, &o, &e, 0, &c, &r))
    fail_msg("compile failed: %s", r.message);
  call_args a;
  assert_true(call_args_init(&a, &e, 1));
  outputs out = {0};
  run_once(&c, &a, &out);
  assert_non_null(out.out.data);
  const char *data = strstr(out.out.data, "data =");
  assert_non_null(data);
  const char *p = data + 6;
  int n = 0;
  for (int i = 0; i < 32; i++)
    for (int j = 0; j < 16; j++) {
      double want = 0;
      for (int k = 0; k < 48; k++)
        want += ((3 * i + 5 * k) % 7 - 3) * 0.25 * (((2 * k + 7 * j) % 9 - 4) * 0.5);
      while (*p && !(*p == '-' || (*p >= '0' && *p <= '9')))
        p++;
      char *end;
      double got = strtod(p, &end);
      assert_true(end != p);
      p = end;
      if (got != want)
        fail_msg("C[%d,%d] printed %g, want %g", i, j, got, want);
      n++;
    }
  assert_int_equal(n, 512);
  outputs_free(&out);
  call_args_free(&a);
  compiled_free(&c);
  mqss_module_destroy(m);
}

// ----------------------------------------------------------------------------
// comparison

static outputs text_outputs(const char *text) {
  outputs o = {0};
  sb_append(&o.out, text, strlen(text));
  return o;
}

// outputs_compare with no magnitude run, depth 1 and nothing skipped.
static void compare_plain(const outputs *got, const outputs *want, double rtol,
                          double atol, compare_result *cr) {
  reference ref = {.val = *want, .depth = 1};
  outputs_compare(got, &ref, NULL, rtol, atol, cr);
}

static void test_compare_printed(void **state) {
  (void)state;
  compare_result cr;
  outputs want = text_outputs("Unranked Memref base@ = 0x55aa rank = 1 data =\n"
                              "[1,  2.5,  -3e-07,  nan]\n");
  // Other pointer, numbers within tolerance (|1.00005 - 1| <= 1e-5 + 1e-4).
  outputs near = text_outputs("Unranked Memref base@ = 0x7fff rank = 1 data =\n"
                              "[1.00005,  2.5,  0,  nan]\n");
  outputs far = text_outputs("Unranked Memref base@ = 0x7fff rank = 1 data =\n"
                             "[1,  2.6,  0,  nan]\n");
  outputs word = text_outputs("Unranked Memref base@ = 0x7fff rank = 2 data =\n"
                              "[1,  2.5,  0,  nan]\n");
  outputs shorter = text_outputs("Unranked Memref base@ = 0x1 rank = 1 data =\n[1, 2.5]");
  compare_plain(&near, &want, 1e-4, 1e-5, &cr);
  assert_true(cr.equal);
  assert_int_equal(cr.nvalues, 4 + 1); // four data numbers and the rank
  compare_plain(&far, &want, 1e-4, 1e-5, &cr);
  assert_false(cr.equal);
  assert_string_equal(cr.what, "stdout number");
  assert_true(fabs(cr.got - 2.6) < 1e-12 && fabs(cr.want - 2.5) < 1e-12);
  assert_true(fabs(cr.max_error - 0.1) < 1e-9);
  compare_plain(&word, &want, 1e-4, 1e-5, &cr);
  assert_false(cr.equal); // rank 2 vs 1 is a number mismatch
  compare_plain(&shorter, &want, 1e-4, 1e-5, &cr);
  assert_false(cr.equal);
  assert_non_null(strstr(cr.what, "shorter"));
  // Same text, tolerance zero: exact.
  compare_plain(&want, &want, 0, 0, &cr);
  assert_true(cr.equal);
  assert_int_equal(outputs_checksum(&near) == outputs_checksum(&want), 0);
  outputs same_but_pointer = text_outputs("Unranked Memref base@ = 0x1234 rank = 1 "
                                          "data =\n[1,  2.5,  -3e-07,  nan]\n");
  assert_true(outputs_checksum(&same_but_pointer) == outputs_checksum(&want));
  outputs *all[] = {&want, &near, &far, &word, &shorter, &same_but_pointer};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    outputs_free(all[i]);
}

static void test_compare_buffers(void **state) {
  (void)state;
  float g[3] = {1.0f, 2.0f, 3.0f}, w[3] = {1.0f, 2.0f, 3.5f};
  int32_t gi[2] = {5, 6}, wi[2] = {5, 7};
  outputs got = {0}, want = {0};
  got.n = want.n = 2;
  got.v[0] = (output_buf){ET_F32, 3, malloc(sizeof g), "result 0"};
  want.v[0] = (output_buf){ET_F32, 3, malloc(sizeof w), "result 0"};
  got.v[1] = (output_buf){ET_I32, 2, malloc(sizeof gi), "argument 1"};
  want.v[1] = (output_buf){ET_I32, 2, malloc(sizeof wi), "argument 1"};
  memcpy(got.v[0].data, g, sizeof g);
  memcpy(want.v[0].data, w, sizeof w);
  memcpy(got.v[1].data, gi, sizeof gi);
  memcpy(want.v[1].data, wi, sizeof wi);
  compare_result cr;
  compare_plain(&got, &want, 1e-4, 1e-5, &cr);
  assert_false(cr.equal);
  // Two mismatches: float 3 vs 3.5 (error 0.5) and integer 6 vs 7 (error 1).
  // The one reported is the largest: output 1, index 1.
  assert_int_equal(cr.output, 1);
  assert_int_equal(cr.index, 1);
  assert_true(cr.max_error == 1.0);
  assert_int_equal(cr.nvalues, 5);
  // Integers compare exactly: even a huge tolerance does not hide 6 vs 7.
  compare_plain(&got, &want, 1.0, 10.0, &cr);
  assert_false(cr.equal);
  assert_int_equal(cr.output, 1);
  outputs_free(&got);
  outputs_free(&want);
}

// bf16 and f16 elements: rounding to nearest even, the subnormals of f16,
// overflow to the largest finite value, and the check's unit roundoffs.
static uint16_t put16(elem_type et, double x) {
  uint16_t h;
  elem_put(et, &h, 0, x);
  return h;
}

static void test_half_floats(void **state) {
  (void)state;
  assert_int_equal(put16(ET_F16, 1.0), 0x3C00);
  assert_int_equal(put16(ET_F16, -2.5), 0xC100);
  assert_int_equal(put16(ET_F16, 65504.0), 0x7BFF);
  assert_int_equal(put16(ET_F16, 1e6), 0x7BFF);   // overflow: the largest
  assert_int_equal(put16(ET_F16, -1e6), 0xFBFF);
  assert_int_equal(put16(ET_F16, 0x1p-24), 0x0001); // least subnormal
  assert_int_equal(put16(ET_F16, 0x1p-25), 0x0000); // tie: to even (0)
  assert_int_equal(put16(ET_F16, 0x3p-25), 0x0002); // tie: to even (2)
  assert_int_equal(put16(ET_F16, 0x1p-14), 0x0400); // least normal
  assert_int_equal(put16(ET_F16, 1.0 + 0x1p-11), 0x3C00); // tie: to even
  assert_int_equal(put16(ET_F16, 1.0 + 0x3p-11), 0x3C02);
  assert_int_equal(put16(ET_F16, INFINITY), 0x7C00);
  uint16_t h = put16(ET_F16, 0.1);
  assert_true(elem_get(ET_F16, &h, 0) == 0x1.998p-4); // 0x2E66
  h = put16(ET_F16, NAN);
  assert_true(isnan(elem_get(ET_F16, &h, 0)));
  assert_int_equal(put16(ET_BF16, 1.0), 0x3F80);
  assert_int_equal(put16(ET_BF16, 1.0 + 0x1p-8), 0x3F80); // tie: to even
  assert_int_equal(put16(ET_BF16, 1.0 + 0x3p-8), 0x3F82);
  assert_int_equal(put16(ET_BF16, -0.75), 0xBF40);
  assert_int_equal(put16(ET_BF16, 1e39), 0x7F7F); // over f32 and bf16
  h = put16(ET_BF16, NAN);
  assert_true(isnan(elem_get(ET_BF16, &h, 0)));
  for (int i = -2048; i < 2048; i++) { // every f16 step of [-2, 2)
    double x = i * 0x1p-10;
    h = put16(ET_F16, x);
    assert_true(elem_get(ET_F16, &h, 0) == x);
  }
  assert_true(unit_roundoff(ET_F16) == 0x1p-11);
  assert_true(unit_roundoff(ET_BF16) == 0x1p-8);
  // The check: one f16 step at 1.0 (2^-10) is the depth-1 allowance
  // 2 u |want|; a quarter is far beyond it, at any depth the model allows.
  outputs want = {.n = 1}, near = {.n = 1}, far = {.n = 1};
  output_buf *b[] = {&want.v[0], &near.v[0], &far.v[0]};
  double v[] = {1.0, 1.0 + 0x1p-10, 1.25};
  for (int i = 0; i < 3; i++) {
    *b[i] = (output_buf){ET_F16, 1, malloc(2), "result 0"};
    elem_put(ET_F16, b[i]->data, 0, v[i]);
  }
  compare_result cr;
  compare_plain(&near, &want, 0, 0, &cr);
  assert_true(cr.equal);
  compare_plain(&far, &want, 0, 0, &cr);
  assert_false(cr.equal);
  assert_true(cr.got == 1.25 && cr.want == 1.0);
  outputs_free(&want);
  outputs_free(&near);
  outputs_free(&far);
}

// An entry with bf16, f16 and i1 arguments (a memref, tensors, a scalar)
// and results, run in process: the inputs lie on each type's grid (floats
// in [-1, 1), masks 0 or 1), and every output equals the same arithmetic
// done in C on them.
static void test_narrow_types_entry(void **state) {
  mqss_session *s = *state;
  mqss_module *m = parse_text(s,
      "#id = affine_map<(i) -> (i)>\n"
      "func.func @forward(%a: memref<8xbf16>, %b: tensor<8xf16>, %s: f16,\n"
      "                   %k: tensor<8xi1>)\n"
      "    -> (tensor<8xf32>, tensor<8xf16>, tensor<8xi1>) {\n"
      "  %ea = tensor.empty() : tensor<8xf32>\n"
      "  %eb = tensor.empty() : tensor<8xf16>\n"
      "  %ek = tensor.empty() : tensor<8xi1>\n"
      "  %ta = bufferization.to_tensor %a restrict : memref<8xbf16>\n"
      "  %x = linalg.generic {indexing_maps = [#id, #id, #id],\n"
      "      iterator_types = [\"parallel\"]}\n"
      "      ins(%ta, %k : tensor<8xbf16>, tensor<8xi1>) outs(%ea : tensor<8xf32>) {\n"
      "  ^bb0(%v: bf16, %on: i1, %o: f32):\n"
      "    %w = arith.extf %v : bf16 to f32\n"
      "    %d = arith.addf %w, %w : f32\n"
      "    %z = arith.constant 0.0 : f32\n"
      "    %r = arith.select %on, %d, %z : f32\n"
      "    linalg.yield %r : f32\n"
      "  } -> tensor<8xf32>\n"
      "  %y = linalg.generic {indexing_maps = [#id, #id],\n"
      "      iterator_types = [\"parallel\"]}\n"
      "      ins(%b : tensor<8xf16>) outs(%eb : tensor<8xf16>) {\n"
      "  ^bb0(%v: f16, %o: f16):\n"
      "    %d = arith.addf %v, %s : f16\n"
      "    linalg.yield %d : f16\n"
      "  } -> tensor<8xf16>\n"
      "  %n = linalg.generic {indexing_maps = [#id, #id],\n"
      "      iterator_types = [\"parallel\"]}\n"
      "      ins(%k : tensor<8xi1>) outs(%ek : tensor<8xi1>) {\n"
      "  ^bb0(%on: i1, %o: i1):\n"
      "    %t = arith.constant true\n"
      "    %f = arith.xori %on, %t : i1\n"
      "    linalg.yield %f : i1\n"
      "  } -> tensor<8xi1>\n"
      "  return %x, %y, %n : tensor<8xf32>, tensor<8xf16>, tensor<8xi1>\n"
      "}\n");
  entry_spec e;
  char msg[512];
  assert_int_equal(entry_find(m, NULL, &e, msg, sizeof msg), MQSS_MEASURE_OK);
  assert_int_equal(e.args[0].et, ET_BF16);
  assert_int_equal(e.args[2].et, ET_F16);
  assert_int_equal(e.args[3].et, ET_I1);
  assert_int_equal(e.results[1].et, ET_F16);
  assert_int_equal(e.results[2].et, ET_I1);
  mqss_measure_options o = quick();
  mqss_measure_result r;
  memset(&r, 0, sizeof r);
  compiled c;
  if (!compile_variant(m, "", &o, &e, 0, &c, &r))
    fail_msg("compile failed: %s", r.message);
  call_args a;
  assert_true(call_args_init(&a, &e, 5));
  outputs out = {0};
  run_once(&c, &a, &out);
  assert_int_equal(out.n, 4); // results 0, 1, 2, then memref argument 0
  double sc = elem_get(ET_F16, &a.scalar[2], 0), distinct = 0, on = 0;
  assert_true(sc >= -1 && sc < 1 && sc == ldexp(nearbyint(ldexp(sc, 10)), -10));
  for (int i = 0; i < 8; i++) {
    double x = elem_get(ET_BF16, a.pristine[0], i);
    double y = elem_get(ET_F16, a.pristine[1], i);
    uint8_t k = ((const uint8_t *)a.pristine[3])[i];
    assert_true(x >= -1 && x < 1 && x == ldexp(nearbyint(ldexp(x, 7)), -7));
    assert_true(y >= -1 && y < 1 && y == ldexp(nearbyint(ldexp(y, 10)), -10));
    assert_true(k == 0 || k == 1);
    distinct += x != elem_get(ET_BF16, a.pristine[0], 0);
    on += k;
    assert_true(elem_get(ET_F32, out.v[0].data, i) == (k ? 2 * x : 0));
    uint16_t want;
    elem_put(ET_F16, &want, 0, y + sc); // rounded once, as the program does
    assert_true(elem_get(ET_F16, out.v[1].data, i) ==
                elem_get(ET_F16, &want, 0));
    assert_true(elem_get(ET_I1, out.v[2].data, i) == !k);
    assert_true(elem_get(ET_BF16, out.v[3].data, i) == x);
  }
  assert_true(distinct > 0); // not a constant fill
  assert_true(on > 0 && on < 8); // both mask values drawn
  outputs_free(&out);
  call_args_free(&a);
  compiled_free(&c);
  mqss_module_destroy(m);
}

// ----------------------------------------------------------------------------
// the public call: ok, faults, wrong output

static void test_measure_ok(void **state) {
  mqss_session *s = *state;
  mqss_module *m = parse_path(s, INPUTS "measure_add.mlir");
  uint64_t h = mqss_module_hash(m);
  mqss_measure_options o = quick();
  o.pipeline = "func.func(convert-linalg-to-affine-loops)";
  o.code_size = 1;
  mqss_measure_result r;
  assert_int_equal(mqss_measure(m, &o, &r), MQSS_OK);
  if (r.status != MQSS_MEASURE_OK)
    fail_msg("status %s: %s", mqss_measure_status_name(r.status), r.message);
  assert_string_equal(r.entry, "forward");
  assert_int_equal(r.runs, 3);
  assert_true(r.run_ms_min <= r.run_ms_median && r.run_ms_median <= r.run_ms_max);
  assert_true(r.compile_ms >= r.jit_ms && r.jit_ms > 0);
  assert_true(r.text_bytes > 16);
  assert_int_equal(r.num_values, 4 * 32);
  assert_true(r.max_error == 0); // same arithmetic, same order
  assert_false(r.cached);
  assert_int_equal(mqss_module_hash(m), h); // the module is not modified
  // In process (no sandbox) gives the same outputs.
  mqss_measure_result r2;
  o.no_sandbox = 1;
  assert_int_equal(mqss_measure(m, &o, &r2), MQSS_OK);
  assert_int_equal(r2.status, MQSS_MEASURE_OK);
  assert_true(r2.checksum == r.checksum);
  // Another seed: other inputs, other outputs.
  o.seed = 2;
  assert_int_equal(mqss_measure(m, &o, &r2), MQSS_OK);
  assert_true(r2.checksum != r.checksum);
  mqss_module_destroy(m);
}

static mqss_measure_result measure_file(mqss_session *s, const char *path,
                                        const char *pipeline, int timeout_ms) {
  mqss_module *m = parse_path(s, path);
  mqss_measure_options o = quick();
  o.pipeline = pipeline;
  o.timeout_ms = timeout_ms;
  mqss_measure_result r;
  assert_int_equal(mqss_measure(m, &o, &r), MQSS_OK);
  mqss_module_destroy(m);
  return r;
}

static void test_fault_timeout(void **state) {
  mqss_measure_result r = measure_file(*state, INPUTS "measure_loop.mlir", NULL, 800);
  assert_int_equal(r.status, MQSS_MEASURE_TIMEOUT);
  assert_non_null(strstr(r.message, "800 ms"));
  assert_non_null(strstr(r.message, "run"));
}

static void test_fault_segfault(void **state) {
  mqss_measure_result r = measure_file(*state, INPUTS "measure_segv.mlir", NULL, 20000);
  assert_int_equal(r.status, MQSS_MEASURE_CRASHED);
  assert_int_equal(r.signal, SIGSEGV);
  assert_non_null(strstr(r.message, "during reference run"));
  // Without the reference, the candidate's own run crashes.
  mqss_module *m = parse_path(*state, INPUTS "measure_segv.mlir");
  mqss_measure_options o = quick();
  o.check_reference = 0;
  assert_int_equal(mqss_measure(m, &o, &r), MQSS_OK);
  assert_int_equal(r.status, MQSS_MEASURE_CRASHED);
  assert_non_null(strstr(r.message, "during run"));
  mqss_module_destroy(m);
}

static void test_fault_oom(void **state) {
  mqss_measure_result r = measure_file(*state, INPUTS "measure_oom.mlir", NULL, 20000);
  assert_int_equal(r.status, MQSS_MEASURE_OUT_OF_MEMORY);
  // 2^33 f64 = 2^36 bytes, the size of the memref in the file.
  assert_non_null(strstr(r.message, "68719476736 bytes"));
}

static void test_fault_pass_crash(void **state) {
  // MLIR 19's affine-data-copy-generate dereferences a null pointer on this
  // module's 0-d memref accesses (tests/lit/measure_pass_crash.test).
  mqss_measure_result r = measure_file(
      *state, INPUTS "pass_crash.mlir",
      "func.func(affine-data-copy-generate{generate-dma=false "
      "fast-mem-space=0})", 20000);
  assert_int_equal(r.status, MQSS_MEASURE_CRASHED);
  assert_int_equal(r.signal, SIGSEGV);
  assert_non_null(strstr(r.message, "during pipeline"));
}

static void test_fault_invalid_ir_and_pipeline(void **state) {
  mqss_session *s = *state;
  mqss_measure_result r = measure_file(s, INPUTS "measure_scf_in_affine.mlir",
                                       "convert-scf-to-cf", 20000);
  assert_int_equal(r.status, MQSS_MEASURE_VERIFY_FAILED);
  assert_non_null(strstr(r.message, "expects region #0 to have 0 or 1 blocks"));
  r = measure_file(s, INPUTS "measure_scf_in_affine.mlir", NULL, 20000);
  assert_int_equal(r.status, MQSS_MEASURE_OK);
  r = measure_file(s, INPUTS "measure_add.mlir", "canonicalize,no-such-pass", 20000);
  assert_int_equal(r.status, MQSS_MEASURE_PARSE_ERROR);
  assert_non_null(strstr(r.message, "no-such-pass"));
}

static void test_wrong_output(void **state) {
  mqss_measure_result r = measure_file(
      *state, INPUTS "measure_jacobi_kernel.mlir",
      "func.func(affine-loop-tile{tile-size=64},"
      "affine-super-vectorize{virtual-vector-size=8})", 20000);
  assert_int_equal(r.status, MQSS_MEASURE_WRONG_OUTPUT);
  assert_string_equal(r.entry, "kernel_jacobi_2d");
  // Outputs: A (argument 0) and B (argument 1), 32x32 each.
  assert_int_equal(r.num_values, 2048);
  assert_true(r.mismatch_output == 0 || r.mismatch_output == 1);
  assert_true(r.mismatch_index >= 0 && r.mismatch_index < 1024);
  assert_true(fabs(r.mismatch_got - r.mismatch_want) == r.max_error);
  assert_true(r.max_error > 0.1); // docs/DESIGN.md saw about 1.0
  assert_non_null(strstr(r.message, "wrong_output: argument"));
}

static void test_vs(void **state) {
  mqss_session *s = *state;
  mqss_module *m = parse_path(s, INPUTS "measure_add.mlir");
  mqss_measure_options o = quick();
  o.repeat = 5;
  o.pipeline = "func.func(convert-linalg-to-affine-loops)";
  mqss_measure_vs_result v;
  assert_int_equal(mqss_measure_vs(m, &o, "canonicalize", &v), MQSS_OK);
  assert_int_equal(v.a.status, MQSS_MEASURE_OK);
  assert_int_equal(v.b.status, MQSS_MEASURE_OK);
  assert_int_equal(v.pairs, 5);
  assert_true(v.a.checksum == v.b.checksum);
  assert_true(v.ratio_min > 0 && v.ratio_min <= v.ratio_median &&
              v.ratio_median <= v.ratio_max);
  // A broken side is reported as such, and no ratio is computed.
  assert_int_equal(mqss_measure_vs(m, &o, "no-such-pass", &v), MQSS_OK);
  assert_int_equal(v.b.status, MQSS_MEASURE_PARSE_ERROR);
  assert_int_equal(v.pairs, 0);
  mqss_module_destroy(m);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults_and_names),
      cmocka_unit_test(test_compare_printed),
      cmocka_unit_test(test_compare_buffers),
      cmocka_unit_test(test_half_floats),
#define T(name) cmocka_unit_test_setup_teardown(name, session_setup, session_teardown)
      T(test_entry_convention),
      T(test_entry_unsupported),
      T(test_inputs_deterministic),
      T(test_calling_convention),
      T(test_narrow_types_entry),
      T(test_stack_offset),
      T(test_stdout_capture),
      T(test_measure_ok),
      T(test_fault_timeout),
      T(test_fault_segfault),
      T(test_fault_oom),
      T(test_fault_pass_crash),
      T(test_fault_invalid_ir_and_pipeline),
      T(test_wrong_output),
      T(test_vs),
#undef T
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
