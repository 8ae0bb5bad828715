#!/usr/bin/env python3
"""Instructions a pair executes in gpen's pairwise kernels, by pipe: each
shipped pairwise spec under both "math" policies, one launch of its default
variant under Nsight Compute (FMA, FP64, XU = the special-function unit,
all), divided by the pairs of the launch; beside the counts gpen's model
takes from the IR (`gpen run --json`: unit_bound's per-pair counts). The
kernel's counts include the tile loop's loads and bookkeeping, shared by
the targets a thread owns; the model counts the formula alone. Last, how
busy each unit was (% of its peak as Nsight Compute knows it).

    python3 bench/pairwise_pipes.py GPEN [SPEC.json ...]

Prints a Markdown table on stdout.
"""
import csv
import io
import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
METRICS = ["smsp__inst_executed_pipe_fma.sum", "smsp__inst_executed_pipe_fp64.sum", "smsp__inst_executed_pipe_xu.sum", "smsp__inst_executed.sum"]
# How busy each unit was, as % of its peak (Nsight Compute's own ceilings, at the clock it ran).
BUSY = ["sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active", "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active",
        "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active", "smsp__issue_active.avg.pct_of_peak_sustained_active"]


def ncu_metrics(gpen, args, metrics):
    """One launch of gpen's pairwise kernel under Nsight Compute: {metric: value}, {} if it failed."""
    r = subprocess.run(["ncu", "--csv", "--metrics", ",".join(metrics), "-k", "regex:pairwise", "--launch-count", "1", gpen, *args],
                       capture_output=True, text=True)
    rows = list(csv.reader(io.StringIO("\n".join(l for l in r.stdout.splitlines() if l.startswith('"')))))
    if not rows:
        return {}
    head = rows[0]
    return {r[head.index("Metric Name")]: float(r[head.index("Metric Value")].replace(",", "")) for r in rows[1:]}


def size_of(spec):
    p = spec["pairwise"]
    if p.get("domain") == "grid":
        return "24"
    return "65536x4096" if p.get("sources") == "separate" else "65536"


def main():
    gpen = sys.argv[1]
    specs = sys.argv[2:] or sorted(str(p) for p in (ROOT / "specs" / "pairwise").glob("*.json"))
    print("| spec | math | variant | FMA a pair | FP64 a pair | XU a pair | all a pair | model FMA / FP64 / XU / all | bound unit | busy % FMA / FP64 / XU / issue |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for path in specs:
            spec = json.loads(pathlib.Path(path).read_text())
            for math in ("accurate", "fast"):
                spec["math"] = math
                f = pathlib.Path(tmp) / f"{spec['name']}_{math}.json"
                f.write_text(json.dumps(spec))
                args = ["run", str(f), "--size", size_of(spec), "--repeat", "1", "--no-tuned"]
                run = json.loads(subprocess.run([gpen, *args, "--json"], capture_output=True, text=True, check=True).stdout)
                got = ncu_metrics(gpen, args, METRICS)
                busy = ncu_metrics(gpen, args, BUSY)
                per = [got[m] * 32 / run["pairs"] for m in METRICS]
                mtext = " / ".join(f"{run[k]:.0f}" for k in ("pair_fp32", "pair_fp64", "pair_mufu", "pair_issued"))
                btext = " / ".join(f"{busy[m]:.0f}" if m in busy else "-" for m in BUSY)
                print(f"| {spec['name']} | {math} | {run['variant']} | {per[0]:.2f} | {per[1]:.2f} | {per[2]:.2f} | {per[3]:.2f} | {mtext} | {run['bound_unit']} | {btext} |",
                      flush=True)


if __name__ == "__main__":
    main()
