# Writes a copy of a safetensors policy whose tensor NAME is multiplied by
# FACTOR: huge but finite weights, for the non-finite activation tests. The
# data checksum in the metadata (FNV-1a of the tensor bytes) is updated.
# usage: scale_policy.py IN OUT NAME FACTOR
import json
import struct
import sys

src, dst, name, factor = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
data = bytearray(open(src, "rb").read())
(n,) = struct.unpack("<Q", data[:8])
header = json.loads(data[8:8 + n])
lo, hi = header[name]["data_offsets"]
base = 8 + n
for off in range(base + lo, base + hi, 4):
    (x,) = struct.unpack("<f", data[off:off + 4])
    struct.pack_into("<f", data, off, max(-3.0e38, min(3.0e38, x * factor)))
h = 0xcbf29ce484222325
for b in data[base:]:
    h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
old = header["__metadata__"]["data_checksum"].encode()
at = data.index(b'"data_checksum":"' + old) + len(b'"data_checksum":"')
data[at:at + len(old)] = b"%016x" % h
open(dst, "wb").write(bytes(data))
