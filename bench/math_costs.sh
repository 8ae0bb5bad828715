#!/usr/bin/env bash
# Builds bench/math_costs.cu for ARCH (default sm_90), runs it once under
# Nsight Compute and prints, for each math function as gpen prints it, the
# instructions a call executes on each pipe: FMA (float32 add, multiply,
# fused multiply-add), FP64, XU (the special-function unit, MUFU) and the
# rest (integer, logic, selects, branches, conversions), less the copy (one
# argument) or the add (two) kernel's. Values are per call, averaged over
# 2^20 calls; the add's own FMA or FP64 instruction is counted back.
#   bash bench/math_costs.sh [ARCH]        (needs nvcc and ncu)
set -euo pipefail
arch=${1:-sm_90}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nvcc -arch="$arch" -O3 -I"$root/families/common/device" -o "$tmp/math_costs" "$root/bench/math_costs.cu"
m=smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_fp64.sum,smsp__inst_executed_pipe_xu.sum
ncu --csv --metrics "$m" "$tmp/math_costs" >"$tmp/ncu.csv" 2>"$tmp/ncu.err" || { cat "$tmp/ncu.err" >&2; exit 1; }
python3 - "$tmp/ncu.csv" "$arch" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]
k, name, val = head.index("Kernel Name"), head.index("Metric Name"), head.index("Metric Value")
got = {}
for r in rows[1:]:
    got.setdefault(r[k].split("(")[0], {})[r[name]] = float(r[val].replace(",", ""))
warps = (1 << 20) / 32
cols = ["smsp__inst_executed_pipe_fma.sum", "smsp__inst_executed_pipe_fp64.sum", "smsp__inst_executed_pipe_xu.sum"]
print(f"Instructions a call executes, {sys.argv[2]}, Nsight Compute counts over 2^20 calls, arguments in [0.5, 4)")
print()
print("| kernel | FMA | FP64 | XU (MUFU) | other | all |")
print("| --- | ---: | ---: | ---: | ---: | ---: |")
for kern, v in got.items():
    t = kern[:3]
    binary = any(s in kern for s in ("_add", "_div", "_pow", "_min", "_sqrt_rs"))
    base = got[t + ("_add" if binary else "_copy")]
    per = [(v[c] - base[c]) / warps for c in cols]
    if binary:  # the add's own instruction
        per[0 if t == "f32" else 1] += 1
    total = (v["smsp__inst_executed.sum"] - base["smsp__inst_executed.sum"]) / warps + (1 if binary else 0)
    other = total - sum(per)
    print(f"| {kern} | {per[0]:.2f} | {per[1]:.2f} | {per[2]:.2f} | {other:.2f} | {total:.2f} |")
PY
