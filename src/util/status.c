// Status strings and versions: the static tables behind mqss_strerror(),
// mqss_version() and mqss_mlir_version().
#include "mqss/mqss.h"

#include <llvm-c/Core.h>
#include <pthread.h>
#include <stdio.h>

const char *mqss_strerror(mqss_status status) {
  switch (status) {
#define MQSS_STATUS_CASE(name, value, text)                                    \
  case name:                                                                   \
    return text;
    MQSS_STATUS_TABLE(MQSS_STATUS_CASE)
#undef MQSS_STATUS_CASE
  }
  return "unknown status";
}

const char *mqss_version(void) { return MQSS_VERSION; }

static char mlir_version[32];

static void read_mlir_version(void) {
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  snprintf(mlir_version, sizeof mlir_version, "%u.%u.%u", major, minor, patch);
}

const char *mqss_mlir_version(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, read_mlir_version);
  return mlir_version;
}
