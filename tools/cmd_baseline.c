// placeholder replaced below
#include "cli.h"
int cmd_baseline(int argc, char **argv) { (void)argc; (void)argv; return 1; }
