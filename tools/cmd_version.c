// `mqss version`: the tool's version and the MLIR/LLVM it runs against.
#include "cli.h"

#include <stdio.h>

int cmd_version(int argc, char **argv) {
  (void)argc;
  (void)argv;
  printf("mqss %s\nMLIR/LLVM %s\n", mqss_version(), mqss_mlir_version());
  return 0;
}
