# Writes an MLIR module nested N levels deep to stdout, for the nesting-limit
# tests: `attr` nests arrays in a module attribute, `region` nests
# scf.execute_region ops inside a function.
import sys

kind, n = sys.argv[1], int(sys.argv[2])
if kind == "attr":
    sys.stdout.write("module attributes {t.x = " + "[" * n + "]" * n + "} {}\n")
elif kind == "region":
    sys.stdout.write("func.func @f() {\n" + "scf.execute_region {\n" * n +
                     "scf.yield\n}\n" * n + "return\n}\n")
else:
    sys.exit("gen_deep.py: kind is attr or region")
