#!/usr/bin/env python3
"""Candidate pipelines made of the family recipes, for EXTRA of
scripts/retune_baselines.sh: every distinct recipe of BASELINES alone, and
ANCHOR's recipe before and after each of the others (an exhaustive search
over one- and two-recipe pipelines around ANCHOR). Prints "family<TAB>
pipeline" lines for each family named, with absolute schedule paths.

usage: recipe_pairs.py BASELINES ANCHOR FAMILY...
"""
import os
import re
import sys

import yaml

LIBRARY = re.compile(r"(transform-library-paths=)([^,}]+)")


def inner(pipe):
    """The pass list of a builtin.module(...) pipeline."""
    assert pipe.startswith("builtin.module(") and pipe.endswith(")"), pipe
    return pipe[len("builtin.module("):-1]


def main():
    path, anchor, families = sys.argv[1], sys.argv[2], sys.argv[3:]
    base = os.path.dirname(os.path.abspath(path))
    with open(path) as f:
        entries = yaml.safe_load(f)["families"]
    recipes = {}
    for fam, v in sorted(entries.items()):
        pipe = (v or {}).get("pipeline", "")
        if pipe and pipe not in recipes.values():
            recipes[fam] = LIBRARY.sub(lambda m: m.group(1) + (
                m.group(2) if m.group(2).startswith("/")
                else os.path.join(base, m.group(2))), pipe)
    if anchor not in recipes:
        sys.exit(f"{path}: '{anchor}' has no recipe of its own; name one of "
                 f"{', '.join(recipes)}")
    cands = list(recipes.values())
    a = inner(recipes[anchor])
    for fam, pipe in recipes.items():
        if fam != anchor:
            cands.append(f"builtin.module({a},{inner(pipe)})")
            cands.append(f"builtin.module({inner(pipe)},{a})")
    print(f"# {len(cands)} candidates per family: the recipes of {path} alone, "
          f"and {anchor}'s before and after each other")
    for fam in families:
        for c in cands:
            print(f"{fam}\t{c}")


if __name__ == "__main__":
    main()
