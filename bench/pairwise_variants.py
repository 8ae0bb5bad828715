#!/usr/bin/env python3
"""Pairwise variants side by side: `gpen run --json --no-tuned` of one spec
at one size for each combination of tunables given, a Markdown row each
(pairs/s, % of the limiting unit's bound, registers, spills, the ratio to
the first row). Used to choose the family's defaults (issue 29).

  pairwise_variants.py GPEN SPEC SIZE [--dtype D] [--repeat R] NAME=V1,V2 ...
"""
import argparse
import itertools
import json
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gpen")
    ap.add_argument("spec")
    ap.add_argument("size")
    ap.add_argument("--dtype")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("axes", nargs="*", help="tunable=v1,v2,...")
    args = ap.parse_intermixed_args()
    names, values = [], []
    for a in args.axes:
        name, _, vs = a.partition("=")
        names.append(name)
        values.append(vs.split(","))
    print(f"\n{args.spec} {args.dtype or ''} size {args.size}\n")
    print("| " + " | ".join(names) + " | pairs/s | vs first | % of unit | registers | spill B |")
    print("|" + " --- |" * (len(names) + 5))
    first = None
    for combo in itertools.product(*values) if names else [()]:
        cmd = [args.gpen, "run", args.spec, "--size", args.size, "--no-tuned", "--repeat", str(args.repeat), "--json"]
        if args.dtype:
            cmd += ["--dtype", args.dtype]
        for n, v in zip(names, combo):
            cmd += ["--set", f"{n}={v}"]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        try:
            d = json.loads(r.stdout)
        except json.JSONDecodeError:
            d = {"message": (r.stdout + r.stderr).strip().splitlines()[-1:]}
        if "pairs_per_s" not in d:
            print("| " + " | ".join(combo) + f" | failed: {d.get('message')} | | | | |")
            continue
        rate = d["pairs_per_s"]
        first = first or rate
        u = d.get("usage") or {}
        print("| " + " | ".join(combo) + f" | {rate:.4g} | {rate / first:.3f} | {d['pct_unit']:.1f} {d['bound_unit']} | "
              f"{u.get('registers', '?')} | {u.get('spill_stores', '?')} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
