#!/usr/bin/env python3
"""Writes one member of an ensemble policy (`mqss ensemble`) as a policy of
its own, e.g. to start training from the shipped default's first member
(`policy.init_from` takes one network; docs/TRAINING.md).

usage: scripts/ensemble_member.py ENSEMBLE.safetensors K OUT.safetensors

Member 0's tensors have plain names, member K's are "memberK.<name>"
(src/nn/quant.c). The metadata is kept but for "members", and
"data_checksum" is the FNV-1a 64 of the new tensor data, as `mqss` checks.
"""
import json
import struct
import sys


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    if len(sys.argv) != 4:
        sys.exit(next(l for l in __doc__.splitlines() if l.startswith("usage:")))
    src, k, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    blob = open(src, "rb").read()
    n = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8:8 + n])
    meta = header.pop("__metadata__")
    members = int(meta.pop("members", "1"))
    if not 0 <= k < members:
        sys.exit(f"{src}: has {members} member(s); K must be in [0, {members - 1}]")
    prefix = f"member{k}."
    data = blob[8 + n:]
    picked = {}
    for name, t in header.items():
        if k and name.startswith(prefix):
            picked[name[len(prefix):]] = t
        elif not k and not name.startswith("member"):
            picked[name] = t
    body = bytearray()
    new_header = {}
    for name in sorted(picked, key=lambda s: picked[s]["data_offsets"][0]):
        t = picked[name]
        a, b = t["data_offsets"]
        new_header[name] = {"dtype": t["dtype"], "shape": t["shape"],
                            "data_offsets": [len(body), len(body) + b - a]}
        body += data[a:b]
    meta["data_checksum"] = f"{fnv1a64(body):016x}"
    meta["train_config"] = f"member {k} of {src}: {meta.get('train_config', '')}"
    new_header["__metadata__"] = meta
    text = json.dumps(new_header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(out, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + bytes(body))
    print(f"{out}: member {k} of {members}, {len(picked)} tensors")


if __name__ == "__main__":
    main()
