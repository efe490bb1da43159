// Decisions: maps the policy's continuous parameter values onto each
// parameter's range, fills the catalog's pipeline templates, and applies a
// decision to a module, either to the whole module or to one func.func
// ("which IR segment"). Schedule actions (schedule.c) are applied to the
// whole module with a script that matches the target function and op
// itself; their size checks run first. It does not check the stage
// preconditions (safety.c) and does not choose anything.
//
// Scoping works by running a pass manager anchored on func.func directly on
// the named function op (mlirPassManagerCreateOnOperation + RunOnOp): the
// other functions are never touched, and the pass manager still verifies the
// function after each pass. MLIR's pipeline text itself has no way to name a
// function.
#include "internal.h"
#include "actions/linalg_ops.h"
#include "actions/schedule.h"

#include <math.h>
#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/Pass.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ----------------------------------------------------------------------------
// parameter mapping

// round(x) clamped to [min, max], computed in double so that no int64_t
// arithmetic can overflow, and x is never converted when out of range (a
// huge max used to round past INT64_MAX and come back as the minimum).
static int64_t round_within(double x, int64_t min, int64_t max) {
  if (!(x > (double)min)) // NaN too
    return min;
  if (x >= (double)max)
    return max;
  int64_t r = (int64_t)llround(x); // |x| < 2^63 here
  return r < min ? min : r > max ? max : r;
}

int64_t mqss_param_map(const mqss_param *p, float u) {
  if (!p)
    return 0;
  double v = isnan(u) ? 0.0 : u;
  v = v < -1.0 ? -1.0 : v > 1.0 ? 1.0 : v;
  double t = (v + 1.0) / 2.0; // [0, 1]
  bool numeric = p->kind == MQSS_PARAM_INT || p->kind == MQSS_PARAM_LOG_INT;
  if (numeric && (t <= 0.0 || t >= 1.0)) // exact ends, whatever the precision
    return t <= 0.0 ? p->min : p->max;
  switch (p->kind) {
  case MQSS_PARAM_INT: {
    if (p->max <= p->min)
      return p->min;
    double lo = (double)p->min, hi = (double)p->max;
    return round_within(lo + t * (hi - lo), p->min, p->max);
  }
  case MQSS_PARAM_LOG_INT: {
    if (p->max <= p->min || p->min < 1)
      return p->min;
    double lo = (double)p->min, hi = (double)p->max;
    return round_within(lo * pow(hi / lo, t), p->min, p->max);
  }
  case MQSS_PARAM_CHOICE:
  case MQSS_PARAM_DIVISOR: {
    int64_t i = (int64_t)floor(t * p->n_values);
    return i >= p->n_values ? p->n_values - 1 : i;
  }
  case MQSS_PARAM_BOOL:
    return v > 0.0;
  }
  return 0;
}

// ----------------------------------------------------------------------------
// pipeline text

// Appends the pass text of action `a` with parameters from `u` to sb.
static void fill_template(strbuf *sb, const mqss_action *a, const float *u) {
  const char *s = a->pipeline;
  while (*s) {
    const char *d = strchr(s, '$');
    if (!d) {
      sb_printf(sb, "%s", s);
      break;
    }
    sb_append(sb, s, (size_t)(d - s));
    size_t len = strspn(d + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "abcdefghijklmnopqrstuvwxyz0123456789_");
    for (int i = 0; i < a->n_params; i++) {
      const mqss_param *p = &a->params[i];
      if (strlen(p->name) != len || strncmp(p->name, d + 1, len))
        continue;
      int64_t v = mqss_param_map(p, u[i]);
      if (p->kind == MQSS_PARAM_CHOICE)
        sb_printf(sb, "%s", p->values[v]);
      else if (p->kind == MQSS_PARAM_BOOL)
        sb_printf(sb, "%s", v ? "true" : "false");
      else
        sb_printf(sb, "%lld", (long long)v);
    }
    s = d + 1 + len;
  }
}

static const mqss_action *decision_action(const mqss_catalog *c,
                                          const mqss_decision *d) {
  const mqss_action *a = d ? mqss_catalog_action(c, d->action) : NULL;
  if (!a && c)
    fail(catalog_session(c), MQSS_ERR_INVALID_ARG,
         "decision: action %d is not in the catalog (0..%d)",
         d ? d->action : -1, mqss_catalog_size(c) - 1);
  return a;
}

char *mqss_decision_pipeline(const mqss_catalog *c, const mqss_decision *d) {
  const mqss_action *a = decision_action(c, d);
  if (!a)
    return NULL;
  char *text = NULL;
  if (a->n_steps)
    return schedule_pipeline(catalog_session(c), a, d, &text) == MQSS_OK
               ? text
               : NULL;
  strbuf sb = {0};
  if (a->is_stop) {
    sb_append(&sb, "", 0);
    return sb.data;
  }
  sb_printf(&sb, "%s(", a->anchor);
  fill_template(&sb, a, d->u);
  sb_append(&sb, ")", 1);
  return sb.data;
}

// ----------------------------------------------------------------------------
// apply

// The top-level func.func called `name`, or a null op.
MlirOperation find_function(const mqss_module *m, const char *name) {
  MlirBlock body = mlirModuleGetBody(m->mod);
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirStringRef opname =
        mlirIdentifierStr(mlirOperationGetName(op));
    if (opname.length != 9 || memcmp(opname.data, "func.func", 9))
      continue;
    MlirAttribute sym = mlirOperationGetAttributeByName(
        op, mlirStringRefCreateFromCString("sym_name"));
    if (mlirAttributeIsNull(sym) || !mlirAttributeIsAString(sym))
      continue;
    MlirStringRef s = mlirStringAttrGetValue(sym);
    if (s.length == strlen(name) && !memcmp(s.data, name, s.length))
      return op;
  }
  return (MlirOperation){NULL};
}

MlirOperation decision_scope(const mqss_module *m, const mqss_decision *d) {
  return d->target ? find_function(m, d->target)
                   : mlirModuleGetOperation(m->mod);
}

static mqss_status run_on_function(mqss_module *m, MlirOperation fn,
                                   const char *text, const char *target) {
  mqss_session *s = m->session;
  diag_reset(s, m->name);
  MlirPassManager pm = mlirPassManagerCreateOnOperation(
      s->ctx, mlirStringRefCreateFromCString("func.func"));
  mqss_status st =
      pipeline_parse(s, mlirPassManagerGetAsOpPassManager(pm), text, text);
  if (st == MQSS_OK && mlirLogicalResultIsFailure(mlirPassManagerRunOnOp(pm, fn))) {
    bool valid = mlirOperationVerify(mlirModuleGetOperation(m->mod));
    st = fail(s, valid ? MQSS_ERR_PASS_FAILED : MQSS_ERR_VERIFY,
              "pipeline '%.*s%s' %s on @%s of '%s'", PIPELINE_QUOTE(text),
              valid ? "failed" : "produced invalid IR", target, m->name);
  }
  mlirPassManagerDestroy(pm);
  return st;
}

static bool stop_walk(MlirOperation op, void *user) {
  (void)op, (void)user;
  return false;
}

bool decision_matches_nothing(const mqss_module *m, const mqss_catalog *c,
                              const mqss_decision *d) {
  const mqss_action *a = m && d ? mqss_catalog_action(c, d->action) : NULL;
  if (!a || !a->n_steps || !a->n_ops)
    return false;
  MlirOperation scope = decision_scope(m, d);
  return !mlirOperationIsNull(scope) &&
         linalg_for_each(scope, a->ops, a->n_ops, d->op, stop_walk, NULL);
}

bool decision_fits(const mqss_module *m, const mqss_catalog *c,
                   const mqss_decision *d, char *why, size_t why_len) {
  const mqss_action *a = m && d ? mqss_catalog_action(c, d->action) : NULL;
  if (!a || !a->n_steps)
    return true;
  MlirOperation scope = decision_scope(m, d);
  return !mlirOperationIsNull(scope) &&
         schedule_applies(scope, a, d, d->op, why, why_len);
}

// A schedule action: tags the linalg ops when the module has no tag yet
// (as mqss_module_run_pipeline does before a transform interpreter, so that
// a replay of the pipeline text tags the same ops alike),
// refuses sizes that do not divide or vectors over the bound, and runs the
// schedule's pipeline on the module (the script itself restricts it to the
// target function and op).
static mqss_status apply_schedule(mqss_module *m, const mqss_action *a,
                                  const mqss_decision *d) {
  mqss_session *s = m->session;
  MlirOperation scope = decision_scope(m, d);
  diag_reset(s, m->name);
  if (mlirOperationIsNull(scope))
    return fail(s, MQSS_ERR_INVALID_ARG, "'%s' has no function @%s to scope "
                "action '%s' to", m->name, d->target, a->name);
  char why[256];
  linalg_tag_once(mlirModuleGetOperation(m->mod));
  if (!schedule_applies(scope, a, d, d->op, why, sizeof why))
    return fail(s, MQSS_ERR_INVALID_ARG, "action '%s' does not apply to "
                "'%s': %s", a->name, m->name, why);
  char *text = NULL;
  mqss_status st = schedule_pipeline(s, a, d, &text);
  if (st == MQSS_OK)
    st = mqss_module_run_pipeline(m, text);
  free(text);
  return st;
}

mqss_status mqss_decision_apply(mqss_module *m, const mqss_catalog *c,
                                const mqss_decision *d) {
  if (!m || !c || !d)
    return m ? fail(m->session, MQSS_ERR_INVALID_ARG, "apply: NULL argument")
             : MQSS_ERR_INVALID_ARG;
  const mqss_action *a = decision_action(c, d);
  if (!a)
    return MQSS_ERR_INVALID_ARG;
  if (a->is_stop)
    return MQSS_OK;
  if (a->n_steps)
    return apply_schedule(m, a, d);
  char *text = mqss_decision_pipeline(c, d);
  if (!text)
    return fail(m->session, MQSS_ERR_NOMEM, "out of memory");
  char why[256];
  mqss_status st;
  if (decision_refused(m, a, d, text, why, sizeof why)) {
    diag_reset(m->session, m->name);
    st = fail(m->session, MQSS_ERR_INVALID_ARG,
              "action '%s' is refused on '%s': MLIR miscompiles it with %s "
              "(data/catalog.yaml)", a->name, m->name, why);
  } else if (!d->target) {
    st = mqss_module_run_pipeline(m, text);
  } else if (strcmp(a->anchor, "func.func")) {
    diag_reset(m->session, m->name);
    st = fail(m->session, MQSS_ERR_INVALID_ARG,
              "action '%s' is anchored on %s and cannot be scoped to @%s; "
              "apply it to the whole module", a->name, a->anchor, d->target);
  } else {
    MlirOperation fn = find_function(m, d->target);
    if (mlirOperationIsNull(fn)) {
      diag_reset(m->session, m->name);
      st = fail(m->session, MQSS_ERR_INVALID_ARG,
                "'%s' has no function @%s to scope action '%s' to", m->name,
                d->target, a->name);
    } else {
      st = run_on_function(m, fn, text, d->target);
    }
  }
  free(text);
  return st;
}
