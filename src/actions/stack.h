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

// Trip count of an scf.for or affine.for with constant bounds and step, or
// -1 (not such a loop, or bounds that are not constants).
int64_t stack_loop_trips(MlirOperation loop);
// Whether, in function `op` (false for other ops), promoting every static
// memref.alloc of at most STACK_PROMOTE_MAX bytes that sits in a loop would
// grow the stack by more than STACK_GROWTH_LIMIT per call: bytes times the
// trips of the enclosing loops, summed; a loop of unknown trips counts as
// too many.
bool stack_promote_grows(MlirOperation op);
// The same for the temporaries convert-vector-to-scf gives each
// vector.transfer_read / transfer_write of a 2-D or larger vector in a loop.
bool stack_transfers_grow(MlirOperation op);

#endif // MQSS_ACTIONS_STACK_H
