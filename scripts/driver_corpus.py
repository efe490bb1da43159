#!/usr/bin/env python3
"""Writes driver-form copies of corpus modules, with a manifest.

The driver form (`mqss corpus emit --driver`, docs/CORPUS.md) is the shape of the
hand-written examples: a @main that fills the inputs, calls the public
kernel and prints checksums, where the generator writes a public @forward
that takes its buffers as arguments. For each family of FAMILIES it takes
the modules SKIP+1 to SKIP+PER_FAMILY of MANIFEST (the first SKIP are left
to bench/inline_driver.py), writes them as OUT_DIR/drv_<file> and lists them
in OUT_DIR/train.tsv with the manifest's header and columns (lines and fnv64
those of the driver copy). Unlike `mqss corpus gen --driver`, it takes the
modules of an existing manifest, such as a merged one (bench/merge_manifests.sh).

usage: scripts/driver_corpus.py MANIFEST MODULE_DIR OUT_DIR [BUILD_DIR]
  env: FAMILIES=a,b (default: the 16 of configs/expit52.yaml), SKIP (3),
  PER_FAMILY (4).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from inline_driver import driver_text  # noqa: E402
from ensemble_member import fnv1a64  # noqa: E402

FAMILIES = ("conv2d,conv2d_layer,qconv_layer,depthwise,depthwise_layer,pooling,matmul_layer,"
            "matmul_chain,mlp,softmax,layernorm,attention,poly_blas3,recurrence,cnn,memref_layer")


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    manifest, mdir, out_dir = sys.argv[1:4]
    mqss = os.path.join(sys.argv[4] if len(sys.argv) > 4 else "build", "mqss")
    families = os.environ.get("FAMILIES", FAMILIES).split(",")
    skip, per = int(os.environ.get("SKIP", "3")), int(os.environ.get("PER_FAMILY", "4"))
    os.makedirs(out_dir, exist_ok=True)
    lines = open(manifest).read().splitlines()
    header = [line for line in lines if line.startswith("#")]
    rows = [line.split("\t") for line in lines if not line.startswith("#")]
    listed = []
    for fam in families:
        for row in [r for r in rows if r[1] == fam][skip:skip + per]:
            name = "drv_" + row[0]
            text = driver_text(mqss, os.path.join(mdir, row[0]))
            with open(os.path.join(out_dir, name), "w") as g:
                g.write(text)
            row[4:6] = [str(text.count("\n")), f"{fnv1a64(text.encode()):016x}"]
            listed.append("\t".join([name] + row[1:]))
    with open(os.path.join(out_dir, "train.tsv"), "w") as f:
        f.write("\n".join(header + listed) + "\n")
    print(f"{len(listed)} driver-form modules in {out_dir}")


if __name__ == "__main__":
    main()
