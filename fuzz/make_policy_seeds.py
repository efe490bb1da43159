#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_safetensors: tiny valid policy files
(docs/POLICY_FORMAT.md) of each architecture and weight dtype (an int8
file whose first layer has two blocks of columns among them), and a
two-network ensemble.

Usage: fuzz/make_policy_seeds.py fuzz/corpus/safetensors
"""
import json
import os
import struct
import sys


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def tensors(arch, S, F, G, H, A, P):
    """(name, shape) in the model's table order (src/nn/model.c)."""
    t = []
    if arch == "gnn":
        t += [("sage1.w_self", [G, F]), ("sage1.w_neigh", [G, F]), ("sage1.bias", [G]),
              ("sage2.w_self", [G, G]), ("sage2.w_neigh", [G, G]), ("sage2.bias", [G])]
    s_in = S + (G if arch == "gnn" else 0)
    t += [("fc1.weight", [H, s_in]), ("fc1.bias", [H]), ("fc2.weight", [H, H]),
          ("fc2.bias", [H]), ("pi.weight", [A + 1, H]), ("pi.bias", [A + 1])]
    if P:
        t += [("mu.weight", [P, H]), ("mu.bias", [P]), ("log_std", [P])]
    t += [("value.weight", [1, H]), ("value.bias", [1])]
    return t


def policy(arch, dtype, counts, S=3, F=2, G=2, H=2, members=1):
    A, P = len(counts), sum(counts)
    one = tensors(arch, S, F, G, H, A, P)
    # an ensemble (f32): every member's tensors, the second's as member1.NAME
    ts = [(("member%d." % j if j else "") + name, shape)
          for j in range(members) for name, shape in one]
    entries = []  # (name, dtype, shape, bytes)
    for name, shape in ts:
        n = 1
        for d in shape:
            n *= d
        if dtype == "int8" and len(shape) == 2:
            # one scale per block of 32 columns of a row: shape (R, B)
            rows, blocks = shape[0], (shape[1] + 31) // 32
            scales = [0.01 * (i + 1) for i in range(rows * blocks)]
            entries.append((name + ".scale", "F32", [rows, blocks],
                            struct.pack("<%df" % len(scales), *scales)))
        else:
            vals = [((i * 7) % 11 - 5) / 10.0 for i in range(n)]
            entries.append((name, "F32", shape, struct.pack("<%df" % n, *vals)))
    if dtype == "int8":
        for name, shape in ts:
            if len(shape) == 2:
                n = shape[0] * shape[1]
                q = [((i * 37) % 255) - 127 for i in range(n)]
                entries.append((name, "I8", shape, struct.pack("<%db" % n, *q)))
    data, header, off = b"", {}, 0
    for name, dt, shape, raw in entries:
        header[name] = {"dtype": dt, "shape": shape, "data_offsets": [off, off + len(raw)]}
        off += len(raw)
        data += raw
    header["__metadata__"] = {
        "format": "mqss-policy", "format_version": "1", "mlir_version": "19.1.7",
        "feature_layout_hash": "0000000000000003", "catalog_hash": "0000000000000004",
        "architecture": arch, "state_dim": str(S), "node_dim": str(F),
        "gnn_dim": str(G), "hidden_dim": str(H), "n_actions": str(A),
        "param_counts": ",".join(map(str, counts)),
        "data_checksum": "%016x" % fnv1a64(data), "train_config": "seed",
        "train_commit": "none", "train_steps": "0", "train_date": "1970-01-01",
        "weight_dtype": dtype,
    }
    if members > 1:
        header["__metadata__"]["members"] = str(members)
    js = json.dumps(header, separators=(",", ":")).encode()
    js += b" " * ((8 - len(js) % 8) % 8)
    return struct.pack("<Q", len(js)) + js + data


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = {
        "mlp_f32": policy("mlp", "f32", [1]),
        "mlp_int8": policy("mlp", "int8", [1]),
        "mlp_int8_blocks2": policy("mlp", "int8", [1], S=40),
        "gnn_f32": policy("gnn", "f32", [0, 2]),
        "gnn_int8_noparams": policy("gnn", "int8", [0]),
        "mlp_f32_ensemble2": policy("mlp", "f32", [1], members=2),
    }
    for name, blob in seeds.items():
        with open(os.path.join(out, name + ".safetensors"), "wb") as f:
            f.write(blob)


if __name__ == "__main__":
    main()
