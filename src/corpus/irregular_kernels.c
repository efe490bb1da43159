// The irregular kernel table of the corpus generator: data, not code. Sparse
// matrix kernels (CSR, ELL), gathers and scatters through index arrays, and
// recurrences (scf.for iter_args, scf.while with data-dependent trip
// counts), as templates in the format of polybench.c.
//
// Index arrays come from the harness with arbitrary values, so every index
// is reduced modulo its extent (arith.remui) before use, and every
// scf.while has an iteration cap: any input is safe. CSR row pointers are
// built inside the kernel from a fixed irregular pattern, row i holding
// 1 + (i*P mod R) entries, so they are always consistent.
#include "corpus.h"

#define ROW(...) {__VA_ARGS__}

// Shared prologue: index constants and the CSR row pointer into %rowptr.
#define CSR_ROWPTR                                                             \
  "  %c0 = arith.constant 0 : index\n"                                         \
  "  %c1 = arith.constant 1 : index\n"                                         \
  "  %cM = arith.constant {M} : index\n"                                       \
  "  %cN = arith.constant {N} : index\n"                                       \
  "  %cR = arith.constant {R} : index\n"                                       \
  "  %cP = arith.constant {P} : index\n"                                       \
  "  %zero = arith.constant 0.0 : {E}\n"                                       \
  "  %rowptr = memref.alloc() : memref<{M+1}xindex>\n"                         \
  "  memref.store %c0, %rowptr[%c0] : memref<{M+1}xindex>\n"                   \
  "  %nnz = scf.for %i = %c0 to %cM step %c1 iter_args(%acc = %c0) -> "        \
  "(index) {\n"                                                                \
  "    %h = arith.muli %i, %cP : index\n"                                      \
  "    %hr = arith.remui %h, %cR : index\n"                                    \
  "    %len = arith.addi %hr, %c1 : index\n"                                   \
  "    %next = arith.addi %acc, %len : index\n"                                \
  "    %i1 = arith.addi %i, %c1 : index\n"                                     \
  "    memref.store %next, %rowptr[%i1] : memref<{M+1}xindex>\n"               \
  "    scf.yield %next : index\n"                                              \
  "  }\n"

const poly_kernel irregular_kernels[] = {
    // ------------------------------------------------------------------ spmv
    ROW("csr_spmv", "spmv", "M:8000-80000 N:8000-80000 R:4-32 P:3-13",
        "vals:M*R cols:M*R:i32 x:N y:M", "M*R",
        CSR_ROWPTR
        "  scf.for %i = %c0 to %cM step %c1 {\n"
        "    %lo = memref.load %rowptr[%i] : memref<{M+1}xindex>\n"
        "    %i1 = arith.addi %i, %c1 : index\n"
        "    %hi = memref.load %rowptr[%i1] : memref<{M+1}xindex>\n"
        "    %sum = scf.for %k = %lo to %hi step %c1 iter_args(%s = %zero) "
        "-> ({E}) {\n"
        "      %v = memref.load %vals[%k] : {Tvals}\n"
        "      %cr = memref.load %cols[%k] : {Tcols}\n"
        "      %ci = arith.index_castui %cr : i32 to index\n"
        "      %col = arith.remui %ci, %cN : index\n"
        "      %xv = memref.load %x[%col] : {Tx}\n"
        "      %p = arith.mulf %v, %xv : {E}\n"
        "      %s1 = arith.addf %s, %p : {E}\n"
        "      scf.yield %s1 : {E}\n"
        "    }\n"
        "    memref.store %sum, %y[%i] : {Ty}\n"
        "  }\n"
        "  memref.dealloc %rowptr : memref<{M+1}xindex>\n"),
    ROW("csr_spmv_t", "spmv", "M:8000-80000 N:8000-80000 R:4-32 P:3-13",
        "vals:M*R cols:M*R:i32 x:M y:N", "M*R",
        CSR_ROWPTR
        "  scf.for %j = %c0 to %cN step %c1 {\n"
        "    memref.store %zero, %y[%j] : {Ty}\n"
        "  }\n"
        "  scf.for %i = %c0 to %cM step %c1 {\n"
        "    %lo = memref.load %rowptr[%i] : memref<{M+1}xindex>\n"
        "    %i1 = arith.addi %i, %c1 : index\n"
        "    %hi = memref.load %rowptr[%i1] : memref<{M+1}xindex>\n"
        "    %xi = memref.load %x[%i] : {Tx}\n"
        "    scf.for %k = %lo to %hi step %c1 {\n"
        "      %v = memref.load %vals[%k] : {Tvals}\n"
        "      %cr = memref.load %cols[%k] : {Tcols}\n"
        "      %ci = arith.index_castui %cr : i32 to index\n"
        "      %col = arith.remui %ci, %cN : index\n"
        "      %p = arith.mulf %v, %xi : {E}\n"
        "      %o = memref.load %y[%col] : {Ty}\n"
        "      %s = arith.addf %o, %p : {E}\n"
        "      memref.store %s, %y[%col] : {Ty}\n"
        "    }\n"
        "  }\n"
        "  memref.dealloc %rowptr : memref<{M+1}xindex>\n"),
    ROW("csr_spmm", "spmv", "M:4000-20000 N:4000-20000 R:4-32 P:3-13 K:4-16",
        "vals:M*R cols:M*R:i32 X:N,K Y:M,K", "M*R*K",
        CSR_ROWPTR
        "  %cK = arith.constant {K} : index\n"
        "  scf.for %i = %c0 to %cM step %c1 {\n"
        "    %lo = memref.load %rowptr[%i] : memref<{M+1}xindex>\n"
        "    %i1 = arith.addi %i, %c1 : index\n"
        "    %hi = memref.load %rowptr[%i1] : memref<{M+1}xindex>\n"
        "    scf.for %j = %c0 to %cK step %c1 {\n"
        "      %sum = scf.for %k = %lo to %hi step %c1 iter_args(%s = %zero) "
        "-> ({E}) {\n"
        "        %v = memref.load %vals[%k] : {Tvals}\n"
        "        %cr = memref.load %cols[%k] : {Tcols}\n"
        "        %ci = arith.index_castui %cr : i32 to index\n"
        "        %col = arith.remui %ci, %cN : index\n"
        "        %xv = memref.load %X[%col, %j] : {TX}\n"
        "        %p = arith.mulf %v, %xv : {E}\n"
        "        %s1 = arith.addf %s, %p : {E}\n"
        "        scf.yield %s1 : {E}\n"
        "      }\n"
        "      memref.store %sum, %Y[%i, %j] : {TY}\n"
        "    }\n"
        "  }\n"
        "  memref.dealloc %rowptr : memref<{M+1}xindex>\n"),
    ROW("ell_spmv", "spmv", "M:8000-80000 N:8000-80000 R:4-32",
        "vals:M,R cols:M,R:i32 x:N y:M", "2*M*R",
        "  %c0 = arith.constant 0 : index\n"
        "  %c1 = arith.constant 1 : index\n"
        "  %cM = arith.constant {M} : index\n"
        "  %cN = arith.constant {N} : index\n"
        "  %cR = arith.constant {R} : index\n"
        "  %zero = arith.constant 0.0 : {E}\n"
        "  scf.for %i = %c0 to %cM step %c1 {\n"
        "    %sum = scf.for %k = %c0 to %cR step %c1 iter_args(%s = %zero) "
        "-> ({E}) {\n"
        "      %v = memref.load %vals[%i, %k] : {Tvals}\n"
        "      %cr = memref.load %cols[%i, %k] : {Tcols}\n"
        "      %ci = arith.index_castui %cr : i32 to index\n"
        "      %col = arith.remui %ci, %cN : index\n"
        "      %xv = memref.load %x[%col] : {Tx}\n"
        "      %p = arith.mulf %v, %xv : {E}\n"
        "      %s1 = arith.addf %s, %p : {E}\n"
        "      scf.yield %s1 : {E}\n"
        "    }\n"
        "    memref.store %sum, %y[%i] : {Ty}\n"
        "  }\n"),
    // ---------------------------------------------------------------- gather
    ROW("embedding_gather", "gather", "V:1000-30000 D:32-256 T:2048-16384",
        "table:V,D idx:T:i32 out:T,D", "T*D",
        "  %c0 = arith.constant 0 : index\n"
        "  %c1 = arith.constant 1 : index\n"
        "  %cV = arith.constant {V} : index\n"
        "  %cD = arith.constant {D} : index\n"
        "  %cT = arith.constant {T} : index\n"
        "  scf.for %t = %c0 to %cT step %c1 {\n"
        "    %raw = memref.load %idx[%t] : {Tidx}\n"
        "    %ri = arith.index_castui %raw : i32 to index\n"
        "    %row = arith.remui %ri, %cV : index\n"
        "    scf.for %d = %c0 to %cD step %c1 {\n"
        "      %v = memref.load %table[%row, %d] : {Ttable}\n"
        "      memref.store %v, %out[%t, %d] : {Tout}\n"
        "    }\n"
        "  }\n"),
    ROW("scatter_add", "gather", "N:100000-1000000 B:64-4096",
        "idx:N:i32 w:N hist:B", "2*N",
        "  %c0 = arith.constant 0 : index\n"
        "  %c1 = arith.constant 1 : index\n"
        "  %cN = arith.constant {N} : index\n"
        "  %cB = arith.constant {B} : index\n"
        "  %zero = arith.constant 0.0 : {E}\n"
        "  scf.for %b = %c0 to %cB step %c1 {\n"
        "    memref.store %zero, %hist[%b] : {Thist}\n"
        "  }\n"
        "  scf.for %i = %c0 to %cN step %c1 {\n"
        "    %raw = memref.load %idx[%i] : {Tidx}\n"
        "    %ri = arith.index_castui %raw : i32 to index\n"
        "    %bin = arith.remui %ri, %cB : index\n"
        "    %wv = memref.load %w[%i] : {Tw}\n"
        "    %o = memref.load %hist[%bin] : {Thist}\n"
        "    %s = arith.addf %o, %wv : {E}\n"
        "    memref.store %s, %hist[%bin] : {Thist}\n"
        "  }\n"),
    ROW("segment_sum", "gather", "N:10000-100000 D:8-64 S:16-1024",
        "x:N,D seg:N:i32 out:S,D", "N*D+S*D",
        "  %c0 = arith.constant 0 : index\n"
        "  %c1 = arith.constant 1 : index\n"
        "  %cN = arith.constant {N} : index\n"
        "  %cD = arith.constant {D} : index\n"
        "  %cS = arith.constant {S} : index\n"
        "  %zero = arith.constant 0.0 : {E}\n"
        "  scf.for %s = %c0 to %cS step %c1 {\n"
        "    scf.for %d = %c0 to %cD step %c1 {\n"
        "      memref.store %zero, %out[%s, %d] : {Tout}\n"
        "    }\n"
        "  }\n"
        "  scf.for %i = %c0 to %cN step %c1 {\n"
        "    %raw = memref.load %seg[%i] : {Tseg}\n"
        "    %ri = arith.index_castui %raw : i32 to index\n"
        "    %sg = arith.remui %ri, %cS : index\n"
        "    scf.for %d = %c0 to %cD step %c1 {\n"
        "      %v = memref.load %x[%i, %d] : {Tx}\n"
        "      %o = memref.load %out[%sg, %d] : {Tout}\n"
        "      %a = arith.addf %o, %v : {E}\n"
        "      memref.store %a, %out[%sg, %d] : {Tout}\n"
        "    }\n"
        "  }\n"),
    ROW("permute_axpy", "gather", "N:100000-1000000",
        "x:N perm:N:i32 y:N", "3*N",
        "  %c0 = arith.constant 0 : index\n"
        "  %c1 = arith.constant 1 : index\n"
        "  %cN = arith.constant {N} : index\n"
        "  %alpha = arith.constant 0.75 : {E}\n"
        "  scf.for %i = %c0 to %cN step %c1 {\n"
        "    %raw = memref.load %perm[%i] : {Tperm}\n"
        "    %ri = arith.index_castui %raw : i32 to index\n"
        "    %j = arith.remui %ri, %cN : index\n"
        "    %xj = memref.load %x[%j] : {Tx}\n"
        "    %ax = arith.mulf %alpha, %xj : {E}\n"
        "    %yi = memref.load %y[%i] : {Ty}\n"
        "    %s = arith.addf %ax, %yi : {E}\n"
        "    memref.store %s, %y[%i] : {Ty}\n"
        "  }\n"),
    // ------------------------------------------------------------ recurrence
    ROW("newton_sqrt", "recurrence", "N:20000-200000",
        "x:N y:N steps:N:i32", "40*N",
        "  %c0 = arith.constant 0 : index\n"
        "  %c1 = arith.constant 1 : index\n"
        "  %cN = arith.constant {N} : index\n"
        "  %half = arith.constant 0.5 : {E}\n"
        "  %one = arith.constant 1.0 : {E}\n"
        "  %tol = arith.constant 1.0e-06 : {E}\n"
        "  %zero_i = arith.constant 0 : i32\n"
        "  %one_i = arith.constant 1 : i32\n"
        "  %max_i = arith.constant 60 : i32\n"
        "  scf.for %i = %c0 to %cN step %c1 {\n"
        "    %raw = memref.load %x[%i] : {Tx}\n"
        "    %ab = math.absf %raw : {E}\n"
        "    %xi = arith.addf %ab, %one : {E}\n"
        "    %res:2 = scf.while (%yc = %xi, %n = %zero_i) : ({E}, i32) -> "
        "({E}, i32) {\n"
        "      %q = arith.divf %xi, %yc : {E}\n"
        "      %s = arith.addf %yc, %q : {E}\n"
        "      %yn = arith.mulf %s, %half : {E}\n"
        "      %d = arith.subf %yn, %yc : {E}\n"
        "      %ad = math.absf %d : {E}\n"
        "      %lim = arith.mulf %yn, %tol : {E}\n"
        "      %notconv = arith.cmpf ogt, %ad, %lim : {E}\n"
        "      %n1 = arith.addi %n, %one_i : i32\n"
        "      %room = arith.cmpi slt, %n1, %max_i : i32\n"
        "      %go = arith.andi %notconv, %room : i1\n"
        "      scf.condition(%go) %yn, %n1 : {E}, i32\n"
        "    } do {\n"
        "    ^bb0(%ya: {E}, %na: i32):\n"
        "      scf.yield %ya, %na : {E}, i32\n"
        "    }\n"
        "    memref.store %res#0, %y[%i] : {Ty}\n"
        "    memref.store %res#1, %steps[%i] : {Tsteps}\n"
        "  }\n"),
    ROW("iir_filter", "recurrence", "B:8-64 L:4000-40000",
        "x:B,L y:B,L", "4*B*L",
        "  %c0 = arith.constant 0 : index\n"
        "  %c1 = arith.constant 1 : index\n"
        "  %cB = arith.constant {B} : index\n"
        "  %cL = arith.constant {L} : index\n"
        "  %a1 = arith.constant 0.6 : {E}\n"
        "  %a2 = arith.constant -0.2 : {E}\n"
        "  %b0 = arith.constant 0.3 : {E}\n"
        "  %zero = arith.constant 0.0 : {E}\n"
        "  scf.for %b = %c0 to %cB step %c1 {\n"
        "    %last:2 = scf.for %t = %c0 to %cL step %c1 iter_args(%y1 = %zero, "
        "%y2 = %zero) -> ({E}, {E}) {\n"
        "      %xv = memref.load %x[%b, %t] : {Tx}\n"
        "      %p0 = arith.mulf %b0, %xv : {E}\n"
        "      %p1 = arith.mulf %a1, %y1 : {E}\n"
        "      %p2 = arith.mulf %a2, %y2 : {E}\n"
        "      %s0 = arith.addf %p0, %p1 : {E}\n"
        "      %yn = arith.addf %s0, %p2 : {E}\n"
        "      memref.store %yn, %y[%b, %t] : {Ty}\n"
        "      scf.yield %yn, %y1 : {E}, {E}\n"
        "    }\n"
        "  }\n"),
    ROW("logistic_orbit", "recurrence", "N:10000-100000",
        "x:N final:N iters:N:i32", "60*N",
        "  %c0 = arith.constant 0 : index\n"
        "  %c1 = arith.constant 1 : index\n"
        "  %cN = arith.constant {N} : index\n"
        "  %half = arith.constant 0.5 : {E}\n"
        "  %one = arith.constant 1.0 : {E}\n"
        "  %scale = arith.constant 0.98 : {E}\n"
        "  %off = arith.constant 0.01 : {E}\n"
        "  %rate = arith.constant 2.9 : {E}\n"
        "  %tol = arith.constant 1.0e-05 : {E}\n"
        "  %zero_i = arith.constant 0 : i32\n"
        "  %one_i = arith.constant 1 : i32\n"
        "  %max_i = arith.constant 200 : i32\n"
        "  scf.for %i = %c0 to %cN step %c1 {\n"
        "    %raw = memref.load %x[%i] : {Tx}\n"
        "    %th = math.tanh %raw : {E}\n"
        "    %t1 = arith.addf %th, %one : {E}\n"
        "    %t2 = arith.mulf %t1, %half : {E}\n"
        "    %t3 = arith.mulf %t2, %scale : {E}\n"
        "    %v0 = arith.addf %t3, %off : {E}\n"
        "    %res:2 = scf.while (%v = %v0, %n = %zero_i) : ({E}, i32) -> "
        "({E}, i32) {\n"
        "      %om = arith.subf %one, %v : {E}\n"
        "      %rv = arith.mulf %rate, %v : {E}\n"
        "      %vn = arith.mulf %rv, %om : {E}\n"
        "      %d = arith.subf %vn, %v : {E}\n"
        "      %ad = math.absf %d : {E}\n"
        "      %moving = arith.cmpf ogt, %ad, %tol : {E}\n"
        "      %n1 = arith.addi %n, %one_i : i32\n"
        "      %room = arith.cmpi slt, %n1, %max_i : i32\n"
        "      %go = arith.andi %moving, %room : i1\n"
        "      scf.condition(%go) %vn, %n1 : {E}, i32\n"
        "    } do {\n"
        "    ^bb0(%va: {E}, %na: i32):\n"
        "      scf.yield %va, %na : {E}, i32\n"
        "    }\n"
        "    memref.store %res#0, %final[%i] : {Tfinal}\n"
        "    memref.store %res#1, %iters[%i] : {Titers}\n"
        "  }\n"),
    ROW("power_iteration", "recurrence", "N:128-512 K:10-40",
        "A:N,N v:N iters:1:i32", "2*K*N*N+5*K*N",
        "  %c0 = arith.constant 0 : index\n"
        "  %c1 = arith.constant 1 : index\n"
        "  %cN = arith.constant {N} : index\n"
        "  %zero = arith.constant 0.0 : {E}\n"
        "  %one = arith.constant 1.0 : {E}\n"
        "  %tol = arith.constant 1.0e-07 : {E}\n"
        "  %zero_i = arith.constant 0 : i32\n"
        "  %one_i = arith.constant 1 : i32\n"
        "  %cap = arith.constant {K} : i32\n"
        "  %w = memref.alloc() : memref<{N}x{E}>\n"
        "  %it = scf.while (%n = %zero_i, %delta = %one) : (i32, {E}) -> "
        "(i32) {\n"
        "    %room = arith.cmpi slt, %n, %cap : i32\n"
        "    %big = arith.cmpf ogt, %delta, %tol : {E}\n"
        "    %go = arith.andi %room, %big : i1\n"
        "    scf.condition(%go) %n : i32\n"
        "  } do {\n"
        "  ^bb0(%na: i32):\n"
        "    scf.for %i = %c0 to %cN step %c1 {\n"
        "      %s = scf.for %j = %c0 to %cN step %c1 iter_args(%acc = %zero) "
        "-> ({E}) {\n"
        "        %a = memref.load %A[%i, %j] : {TA}\n"
        "        %vj = memref.load %v[%j] : {Tv}\n"
        "        %p = arith.mulf %a, %vj : {E}\n"
        "        %acc1 = arith.addf %acc, %p : {E}\n"
        "        scf.yield %acc1 : {E}\n"
        "      }\n"
        "      memref.store %s, %w[%i] : memref<{N}x{E}>\n"
        "    }\n"
        "    %n2 = scf.for %i = %c0 to %cN step %c1 iter_args(%acc = %zero) "
        "-> ({E}) {\n"
        "      %wi = memref.load %w[%i] : memref<{N}x{E}>\n"
        "      %sq = arith.mulf %wi, %wi : {E}\n"
        "      %acc1 = arith.addf %acc, %sq : {E}\n"
        "      scf.yield %acc1 : {E}\n"
        "    }\n"
        "    %nrm = math.sqrt %n2 : {E}\n"
        "    %d = scf.for %i = %c0 to %cN step %c1 iter_args(%acc = %zero) "
        "-> ({E}) {\n"
        "      %wi = memref.load %w[%i] : memref<{N}x{E}>\n"
        "      %vn = arith.divf %wi, %nrm : {E}\n"
        "      %vo = memref.load %v[%i] : {Tv}\n"
        "      %df = arith.subf %vn, %vo : {E}\n"
        "      %ad = math.absf %df : {E}\n"
        "      memref.store %vn, %v[%i] : {Tv}\n"
        "      %acc1 = arith.addf %acc, %ad : {E}\n"
        "      scf.yield %acc1 : {E}\n"
        "    }\n"
        "    %n1 = arith.addi %na, %one_i : i32\n"
        "    scf.yield %n1, %d : i32, {E}\n"
        "  }\n"
        "  memref.store %it, %iters[%c0] : {Titers}\n"
        "  memref.dealloc %w : memref<{N}x{E}>\n"),
};

const int irregular_nkernels =
    sizeof irregular_kernels / sizeof irregular_kernels[0];
