// Embedded transform schedules: a module that carries
// `transform.named_sequence @__transform_main` is measured as its author
// meant it, with the schedule applied (transform-interpreter) to the module
// that both the reference and the candidate start from, or, with
// ignore_schedule, without it and with a note saying so (docs/MEASURE.md,
// "Embedded transform schedules"). It does not compile or run anything.
#include "measure.h"

#include <mlir-c/BuiltinAttributes.h>
#include <stdio.h>
#include <string.h>

static MlirWalkResult find_main_schedule(MlirOperation op, void *user) {
  MlirStringRef n = mlirIdentifierStr(mlirOperationGetName(op));
  MlirAttribute sym = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("sym_name"));
  if (strlen("transform.named_sequence") == n.length &&
      !memcmp(n.data, "transform.named_sequence", n.length) &&
      !mlirAttributeIsNull(sym) && mlirAttributeIsAString(sym) &&
      mlirStringRefEqual(mlirStringAttrGetValue(sym),
                         mlirStringRefCreateFromCString("__transform_main"))) {
    *(MlirOperation *)user = op;
    return MlirWalkResultInterrupt;
  }
  return MlirWalkResultAdvance;
}

static MlirOperation main_schedule(mqss_module *m) {
  MlirOperation found = {NULL};
  mlirOperationWalk(mlirModuleGetOperation(m->mod), find_main_schedule, &found,
                    MlirWalkPreOrder);
  return found;
}

bool schedule_apply(mqss_module *m, const mqss_measure_options *o,
                    mqss_module **owned, mqss_measure_result *r) {
  *owned = NULL;
  if (mlirOperationIsNull(main_schedule(m)))
    return true;
  if (o->ignore_schedule) {
    snprintf(r->notes, sizeof r->notes, "the module's transform schedule "
             "@__transform_main was not applied (ignore_schedule): the "
             "finisher drops it");
    return true;
  }
  mqss_module *c = mqss_module_clone(m);
  if (!c) {
    r->status = MQSS_MEASURE_OUT_OF_MEMORY;
    set_message(r, "out of memory cloning '%s'", m->name);
    return false;
  }
  child_report_stage(STAGE_REF_OFFSET + STAGE_PIPELINE);
  if (mqss_module_run_pipeline(c, "transform-interpreter") != MQSS_OK) {
    r->status = MQSS_MEASURE_PASS_FAILED;
    set_message(r, "the module's embedded transform schedule "
                "@__transform_main failed (measure applies it to the "
                "reference and the candidate): %s; fix the schedule, or "
                "measure with --ignore-schedule (ignore_schedule = 1) to "
                "drop it", mqss_errmsg(m->session));
    mqss_module_destroy(c);
    return false;
  }
  mlirOperationDestroy(main_schedule(c)); // consumed: a pipeline's own
                                          // transform-interpreter finds none
  snprintf(r->notes, sizeof r->notes, "applied the module's transform "
           "schedule @__transform_main");
  *owned = c;
  return true;
}
