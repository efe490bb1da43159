// Vision families of the corpus: convolution stacks (NHWC/NCHW, strides,
// dilations, i8 quantised), MobileNet-style depthwise blocks, pooling
// pyramids, residual blocks and small CNN classifiers. Each family draws its
// shapes from the RNG and chains layer helpers (layers.c); none writes MLIR
// text itself. Shapes keep one @forward call under ~VISION_BUDGET ops.
#include "layers.h"

#include <stdio.h>

enum { VISION_BUDGET = 300000000 };

static const int SIDES[] = {32, 40, 48, 56, 64, 80, 96};
static const int CHANS[] = {8, 16, 24, 32, 48, 64};
static const int IN_CHANS[] = {3, 4, 8, 16};

static val image_param(gen *g, conv_shape *cs, elt et) {
  int d[4];
  conv_dims_in(cs, d);
  return param_tensor(g, et, 4, d);
}

static double conv_cost(const conv_shape *c, int pad) {
  conv_shape p = *c;
  p.h += 2 * pad, p.w += 2 * pad;
  int d[4];
  conv_dims_out(&p, d);
  return 2.0 * d[0] * d[1] * d[2] * d[3] * c->c * c->kh * c->kw;
}

// After a conv/pool with padding pad, the next layer's input extent.
static void advance(conv_shape *cs, int pad, int f) {
  conv_shape p = *cs;
  p.h += 2 * pad, p.w += 2 * pad;
  cs->h = conv_out(p.h, cs->kh, cs->stride, cs->dil);
  cs->w = conv_out(p.w, cs->kw, cs->stride, cs->dil);
  cs->c = f;
}

// ----------------------------------------------------------------------------
// conv2d: a stack of 3-6 conv layers with random kernel, stride, dilation

void fam_conv2d(gen *g) {
  pcg32 *r = &g->rng;
  conv_shape cs = {.n = pcg_range(r, 1, 2), .nchw = pcg_chance(r, 1, 2)};
  cs.h = cs.w = pcg_pick(r, SIDES, 7);
  cs.c = pcg_pick(r, IN_CHANS, 4);
  int q = pcg_range(r, 0, 4);
  elt et = q == 0 ? ET_I8 : q == 1 ? ET_F64 : ET_F32;
  g->note = "A stack of 2-D convolutions, as exported from a CNN backbone.";
  val x = image_param(g, &cs, et);
  int layers = pcg_range(r, 3, 6);
  for (int l = 0; l < layers; l++) {
    cs.kh = cs.kw = pcg_pick(r, (int[]){1, 3, 3, 5}, 4);
    cs.stride = pcg_range(r, 1, 2);
    cs.dil = cs.kh > 1 && pcg_chance(r, 1, 3) ? 2 : 1;
    cs.f = pcg_pick(r, CHANS, 6);
    int pad = pcg_chance(r, 1, 2) ? cs.dil * (cs.kh - 1) / 2 : 0;
    while (cs.f > 8 && g->flops + conv_cost(&cs, pad) > VISION_BUDGET)
      cs.f /= 2;
    conv_shape p = cs;
    p.h += 2 * pad, p.w += 2 * pad;
    if (conv_out(p.h, cs.kh, cs.stride, cs.dil) < 2 ||
        g->flops + conv_cost(&cs, pad) > VISION_BUDGET)
      break;
    elt in_et = l == 0 ? et : (et == ET_I8 ? ET_F32 : et);
    act_kind a = pcg_chance(r, 1, 4) ? ACT_RELU6 : ACT_RELU;
    x = layer_conv(g, x, &cs, pad, in_et, a, 1.0 / 512);
    advance(&cs, pad, cs.f);
  }
  gen_result(g, x);
}

// ----------------------------------------------------------------------------
// conv2d_layer (opt-in): one conv layer with bias and ReLU on a small image,
// the scale of a single hand-written kernel, which conv2d's stacks of 3-6
// layers on images of side 32-96 do not reach

void fam_conv2d_layer(gen *g) {
  pcg32 *r = &g->rng;
  conv_shape cs = {.n = 1, .nchw = pcg_chance(r, 1, 2), .stride = 1, .dil = 1};
  cs.h = cs.w = pcg_pick(r, (int[]){8, 12, 16, 20, 24, 28, 32}, 7);
  cs.c = pcg_pick(r, IN_CHANS, 4);
  elt et = pcg_chance(r, 1, 4) ? ET_F64 : ET_F32;
  g->note = "One 2-D convolution with bias and ReLU, as a hand-written kernel.";
  val x = image_param(g, &cs, et);
  cs.kh = cs.kw = pcg_pick(r, (int[]){1, 3, 3, 5}, 4);
  cs.f = pcg_pick(r, CHANS, 6);
  int pad = pcg_chance(r, 1, 2) ? (cs.kh - 1) / 2 : 0; // side >= 8 > kernel
  act_kind a = pcg_chance(r, 1, 4) ? ACT_RELU6 : ACT_RELU;
  x = layer_conv(g, x, &cs, pad, et, a, 1.0 / 512);
  gen_result(g, x);
}

// ----------------------------------------------------------------------------
// qconv_layer (opt-in): one int8 NHWC conv layer (half of them with zero
// points), i32 bias and requantisation to i8, as quantised inference runs
// it; conv2d's int8 layers dequantise to f32 instead

void fam_qconv_layer(gen *g) {
  pcg32 *r = &g->rng;
  conv_shape cs = {.n = 1, .nchw = false, .stride = 1, .dil = 1};
  cs.q = pcg_chance(r, 1, 2);
  cs.h = cs.w = pcg_pick(r, (int[]){8, 12, 16, 20, 24, 30, 32}, 7);
  cs.c = pcg_pick(r, (int[]){4, 8, 16, 32}, 4);
  cs.f = pcg_pick(r, CHANS, 6);
  cs.kh = cs.kw = pcg_pick(r, (int[]){1, 3, 3, 5}, 4);
  g->note = "One int8 convolution with bias and requantisation to int8, as "
            "a hand-written kernel.";
  val x = image_param(g, &cs, ET_I8);
  gen_result(g, layer_qconv(g, x, &cs));
}

// ----------------------------------------------------------------------------
// depthwise_layer (opt-in): one depthwise conv with bias and ReLU/ReLU6 on
// a small image, sometimes followed by a 2x2 max pooling, the scale of a
// hand-written kernel (depthwise's blocks interleave it with 1x1 convs)

void fam_depthwise_layer(gen *g) {
  pcg32 *r = &g->rng;
  conv_shape cs = {.n = 1, .nchw = false, .kh = 3, .kw = 3, .dil = 1};
  cs.h = cs.w = pcg_pick(r, (int[]){10, 14, 18, 20, 26, 34, 58}, 7);
  cs.c = cs.f = pcg_pick(r, (int[]){8, 16, 24, 32, 48}, 5);
  cs.stride = pcg_chance(r, 1, 4) ? 2 : 1;
  elt et = pcg_chance(r, 1, 4) ? ET_F64 : ET_F32;
  g->note = "One depthwise 3x3 convolution with bias and activation, as a "
            "hand-written kernel.";
  val x = image_param(g, &cs, et);
  int pad = pcg_chance(r, 1, 3);
  x = layer_depthwise(g, x, &cs, pad, et,
                      pcg_chance(r, 1, 2) ? ACT_RELU6 : ACT_RELU);
  advance(&cs, pad, cs.c);
  if (pcg_chance(r, 1, 3) && cs.h >= 4) {
    cs.kh = cs.kw = cs.stride = 2;
    x = layer_pool(g, x, &cs, true, et);
  }
  gen_result(g, x);
}

// ----------------------------------------------------------------------------
// depthwise: MobileNetV2 inverted-residual blocks (NHWC)

void fam_depthwise(gen *g) {
  pcg32 *r = &g->rng;
  conv_shape cs = {.n = 1, .nchw = false};
  cs.h = cs.w = pcg_pick(r, SIDES, 7);
  cs.c = pcg_pick(r, (int[]){8, 16, 24, 32}, 4);
  elt et = et_pick_float(r);
  g->note = "MobileNetV2-style blocks: 1x1 expand, depthwise 3x3, 1x1 project.";
  val x = image_param(g, &cs, et);
  int blocks = pcg_range(r, 2, 4);
  for (int b = 0; b < blocks && cs.h >= 4 && gen_has_room(g, 8); b++) {
    int in_c = cs.c, expand = pcg_range(r, 2, 4);
    int stride = pcg_chance(r, 1, 3) ? 2 : 1;
    int out_c = stride == 1 && pcg_chance(r, 2, 3) ? in_c : pcg_pick(r, CHANS, 6);
    int dims_in[4];
    conv_dims_in(&cs, dims_in);
    val skip = x;
    conv_shape e = cs;
    e.kh = e.kw = 1, e.stride = e.dil = 1, e.f = in_c * expand;
    x = layer_conv(g, x, &e, 0, et, ACT_RELU6, 0);
    conv_shape d = e;
    d.c = e.f, d.kh = d.kw = 3, d.stride = stride;
    d.dil = stride == 1 && pcg_chance(r, 1, 4) ? 2 : 1;
    x = layer_depthwise(g, x, &d, d.dil, et, ACT_RELU6);
    advance(&d, d.dil, d.c);
    conv_shape p = d;
    p.kh = p.kw = 1, p.stride = p.dil = 1, p.f = out_c;
    x = layer_conv(g, x, &p, 0, et, ACT_NONE, 0);
    if (stride == 1 && out_c == in_c)
      x = layer_add(g, x, skip, 4, dims_in, et, ACT_NONE);
    cs = p;
    cs.c = out_c;
    if (g->flops > VISION_BUDGET / 2)
      break;
  }
  gen_result(g, x);
}

// ----------------------------------------------------------------------------
// pooling: conv stem, then max/sum pooling stages, then a global sum pool

void fam_pooling(gen *g) {
  pcg32 *r = &g->rng;
  conv_shape cs = {.n = pcg_range(r, 1, 4), .nchw = pcg_chance(r, 1, 2)};
  cs.h = cs.w = pcg_pick(r, (int[]){64, 96, 128, 160}, 4);
  cs.c = pcg_pick(r, IN_CHANS, 4);
  elt et = et_pick_float(r);
  g->note = "A pooling pyramid: 1x1 conv stem, max/sum pooling stages with "
            "1x1 mixing, global sum.";
  val x = image_param(g, &cs, et);
  cs.kh = cs.kw = 1, cs.stride = cs.dil = 1, cs.f = pcg_pick(r, CHANS, 6);
  x = layer_conv(g, x, &cs, 0, et, ACT_RELU, 0);
  advance(&cs, 0, cs.f);
  int stages = pcg_range(r, 3, 5);
  for (int s = 0; s < stages && cs.h >= 6; s++) {
    cs.kh = cs.kw = pcg_range(r, 2, 3);
    cs.stride = pcg_range(r, 1, 2);
    cs.dil = 1;
    x = layer_pool(g, x, &cs, pcg_chance(r, 2, 3), et);
    advance(&cs, 0, cs.c);
    if (pcg_chance(r, 1, 2)) { // 1x1 channel mixing between pooling stages
      cs.kh = cs.kw = 1, cs.stride = 1, cs.f = pcg_pick(r, CHANS, 6);
      x = layer_conv(g, x, &cs, 0, et, ACT_RELU, 0);
      advance(&cs, 0, cs.f);
    }
  }
  cs.kh = cs.h, cs.kw = cs.w, cs.stride = 1;
  x = layer_pool(g, x, &cs, false, et);
  gen_result(g, x);
}

// ----------------------------------------------------------------------------
// resblock: ResNet basic blocks, same-padded 3x3 convs plus identity skip

void fam_resblock(gen *g) {
  pcg32 *r = &g->rng;
  conv_shape cs = {.n = 1, .nchw = pcg_chance(r, 1, 2)};
  cs.h = cs.w = pcg_pick(r, (int[]){16, 24, 32, 48, 64}, 5);
  cs.c = cs.f = pcg_pick(r, (int[]){8, 16, 32, 48}, 4);
  cs.kh = cs.kw = 3, cs.stride = cs.dil = 1;
  while (cs.c > 8 && 4 * conv_cost(&cs, 1) > VISION_BUDGET)
    cs.c = cs.f = cs.c / 2;
  elt et = et_pick_float(r);
  g->note = "ResNet basic blocks: conv3x3-relu-conv3x3, identity skip, relu.";
  val x = image_param(g, &cs, et);
  int dims[4];
  conv_dims_in(&cs, dims);
  int blocks = pcg_range(r, 2, 3);
  for (int b = 0; b < blocks && g->flops + 2 * conv_cost(&cs, 1) <
                                    VISION_BUDGET; b++) {
    val skip = x;
    val h = layer_conv(g, x, &cs, 1, et, ACT_RELU, 0);
    h = layer_conv(g, h, &cs, 1, et, ACT_NONE, 0);
    if (cs.nchw)
      x = layer_add(g, h, skip, 4, dims, et, ACT_NONE);
    else
      x = layer_add(g, h, skip, 4, dims, et, ACT_RELU);
  }
  gen_result(g, x);
}

// ----------------------------------------------------------------------------
// cnn: conv-relu-maxpool x2-3, flatten, dense, softmax (NHWC)

void fam_cnn(gen *g) {
  pcg32 *r = &g->rng;
  conv_shape cs = {.n = pcg_range(r, 2, 8), .nchw = false};
  cs.h = cs.w = pcg_pick(r, (int[]){32, 48, 64, 96}, 4);
  cs.c = pcg_pick(r, (int[]){1, 3, 4}, 3);
  elt et = et_pick_float(r);
  g->note = "A small CNN classifier: conv/relu/maxpool stages, dense, softmax.";
  val x = image_param(g, &cs, et);
  int stages = pcg_range(r, 2, 3);
  for (int s = 0; s < stages && cs.h >= 6; s++) {
    cs.kh = cs.kw = 3, cs.stride = cs.dil = 1;
    cs.f = pcg_pick(r, (int[]){16, 32, 48}, 3);
    x = layer_conv(g, x, &cs, 1, et, ACT_RELU, 0);
    advance(&cs, 1, cs.f);
    cs.kh = cs.kw = 2, cs.stride = 2;
    x = layer_pool(g, x, &cs, true, et);
    advance(&cs, 0, cs.c);
  }
  int feat = cs.h * cs.w * cs.c, classes = pcg_pick(r, (int[]){10, 16, 100}, 3);
  char tf[96];
  ty_tensor(tf, et, 2, (int[]){cs.n, feat});
  val flat = {{0}, {0}};
  snprintf(flat.name, sizeof flat.name, "%%v%d", g->nvals++);
  snprintf(flat.type, sizeof flat.type, "%s", tf);
  sb_printf(&g->body, "  %s = tensor.collapse_shape %s [[0], [1, 2, 3]]\n"
                      "      : %s into %s\n",
            flat.name, x.name, x.type, tf);
  val h = layer_linear(g, flat, cs.n, feat, classes, et, true, ACT_NONE);
  h = layer_softmax(g, h, cs.n, classes, et, 1.0, pcg_chance(r, 1, 3));
  gen_result(g, h);
}
