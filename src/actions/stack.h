// Stack buffers created inside loops (stack.c): two passes turn buffers into
// allocas without a scope, so that a loop grows the stack by the buffer
// on every iteration, and the compiled code dies of a stack overflow (a
// segfault at run time) once the loops run long enough: promote-buffers-
// to-stack on a memref.alloc in a loop, and convert-vector-to-scf (without
// full-unroll) on a transfer of a 2-D or larger vector in a loop (a
// temporary per transfer). Internal to the library.
#ifndef MQSS_ACTIONS_STACK_H
#define MQSS_ACTIONS_STACK_H

#include "internal.h"

// Stack growth per call that the safety layer tolerates (the default stack
// is 8 MiB; threads may have less).
#define STACK_GROWTH_LIMIT (1 << 20)
// The largest buffer promote-buffers-to-stack may promote (the catalog's
// range of its BYTES parameter).
#define STACK_PROMOTE_MAX 65536

// The bytes op would put on the stack per call of its function when it sits
// in a loop: a static memref.alloc of at most STACK_PROMOTE_MAX bytes
// (`transfers` false: promote-buffers-to-stack makes it an alloca), or a
// vector.transfer_read / transfer_write of a 2-D or larger vector
// (`transfers` true: convert-vector-to-scf's temporary); its bytes times
// the trips of the enclosing loops. 0 for other ops and ops that run once
// per call; STACK_GROWTH_LIMIT + 1 when a loop's trips are unknown or the
// product is larger. The safety layer sums it per function.
int64_t stack_growth(MlirOperation op, bool transfers);

#endif // MQSS_ACTIONS_STACK_H
