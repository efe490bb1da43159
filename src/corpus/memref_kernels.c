// The kernel table of the opt-in family memref_layer: single linalg ops on
// memrefs in buffer style (the caller's output buffer, no return), the way
// hand-written buffer kernels and MLIR's integration tests write them; the
// generator's other vision and NLP modules are all on tensors. Same format
// as polybench_kernels.c (placeholders: polybench.c).
#include "corpus.h"

#define ROW(...) {__VA_ARGS__}

#define NHWC_MAP "affine_map<(n, h, w, c) -> (n, h, w, c)>"
#define PAR4 "[\"parallel\", \"parallel\", \"parallel\", \"parallel\"]"

const poly_kernel memref_kernels[] = {
    // sum pooling with a scale: an average pool
    ROW("avgpool", "memref_layer", "N:1-2 H:4-24 W:4-24 C:4-32 K:2-3",
        "in:N,H*K,W*K,C out:N,H,W,C", "N*H*W*C*K*K+N*H*W*C",
        "  %zero = arith.constant 0.0 : {E}\n"
        "  %scale = arith.constant 0.25 : {E}\n"
        "  %win = memref.alloc() : memref<{K}x{K}x{E}>\n"
        "  linalg.fill ins(%zero : {E}) outs(%out : {Tout})\n"
        "  linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, "
        "strides = dense<{K}> : tensor<2xi64>}\n"
        "      ins(%in, %win : {Tin}, memref<{K}x{K}x{E}>) outs(%out : {Tout})\n"
        "  linalg.generic {indexing_maps = [" NHWC_MAP "], iterator_types = "
        PAR4 "}\n"
        "      outs(%out : {Tout}) {\n"
        "  ^bb0(%x: {E}):\n"
        "    %r = arith.mulf %x, %scale : {E}\n"
        "    linalg.yield %r : {E}\n"
        "  }\n"
        "  memref.dealloc %win : memref<{K}x{K}x{E}>\n"),
    ROW("maxpool", "memref_layer", "N:1-2 H:4-24 W:4-24 C:4-32 K:2-3",
        "in:N,H*K,W*K,C out:N,H,W,C", "N*H*W*C*K*K",
        "  %low = arith.constant -1.0e30 : {E}\n"
        "  %win = memref.alloc() : memref<{K}x{K}x{E}>\n"
        "  linalg.fill ins(%low : {E}) outs(%out : {Tout})\n"
        "  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, "
        "strides = dense<{K}> : tensor<2xi64>}\n"
        "      ins(%in, %win : {Tin}, memref<{K}x{K}x{E}>) outs(%out : {Tout})\n"
        "  memref.dealloc %win : memref<{K}x{K}x{E}>\n"),
    ROW("matmul", "memref_layer", "M:8-96 K:8-96 N:8-96",
        "A:M,K B:K,N C:M,N", "2*M*K*N",
        "  %zero = arith.constant 0.0 : {E}\n"
        "  linalg.fill ins(%zero : {E}) outs(%C : {TC})\n"
        "  linalg.matmul ins(%A, %B : {TA}, {TB}) outs(%C : {TC})\n"),
    // patchify: a KxK convolution with stride K
    ROW("conv_patch", "memref_layer", "H:4-16 W:4-16 C:3-16 F:8-48 K:2-4",
        "in:1,H*K,W*K,C w:K,K,C,F out:1,H,W,F", "2*H*W*F*C*K*K",
        "  %zero = arith.constant 0.0 : {E}\n"
        "  linalg.fill ins(%zero : {E}) outs(%out : {Tout})\n"
        "  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, "
        "strides = dense<{K}> : tensor<2xi64>}\n"
        "      ins(%in, %w : {Tin}, {Tw}) outs(%out : {Tout})\n"),
};

const int memref_nkernels = sizeof memref_kernels / sizeof memref_kernels[0];
