#!/usr/bin/env python3
"""Every shipped spec's default variant, timed by `gpen run --json --no-tuned`
(a copy measured in the same process), for one or two gpen binaries: the
figures a reshaping change must leave within noise (issue 24's guard rail).

    defaults.py SPECS_DIR NAME=GPEN [NAME=GPEN]

With two binaries each spec runs A, B, B, A and each reports the mean of
its two medians, so that drift of the GPU's clocks falls on both alike.
Prints a Markdown table on stdout, progress on stderr."""
import json
import pathlib
import subprocess
import sys


def size_of(spec):
    """A size per kind and shape: large enough to be bound by memory (or,
    pairwise, by arithmetic), small enough for the whole set to take minutes."""
    kind, dims = spec.get("kind", "stencil"), spec.get("dims", 3)
    if kind == "pairwise":
        p = spec["pairwise"]
        if p.get("domain") == "grid":
            return "32"
        return "131072x16384" if p.get("sources") == "separate" else "131072"
    return {3: "512", 2: "8192", 1: "134217728"}[dims]


def gpen_run(gpen, path, size, args):
    """`gpen run PATH --size SIZE ARGS... --json` as a gpen.run/1 document;
    RuntimeError with gpen's message when it printed none (a refused
    variant prints gpen.error/1)."""
    out = subprocess.run([gpen, "run", str(path), "--size", size, *args, "--json"], capture_output=True, text=True, timeout=300)
    if not out.stdout.strip():
        raise RuntimeError(f"{gpen} run {path} --size {size}: exit {out.returncode}: {out.stderr[-500:]}")
    doc = json.loads(out.stdout)
    if doc.get("schema", "gpen.run/1") != "gpen.run/1":
        raise RuntimeError(f"{path}: {doc.get('message', doc)}")
    return doc


def run(gpen, path, size):
    doc = gpen_run(gpen, path, size, ["--no-tuned", "--repeat", "20"])
    # gpen before gpen.run/1 (session 16) printed no schema and no pct_rsqrt.
    if "pairs_per_s" in doc and "pct_rsqrt" not in doc:
        doc["pct_rsqrt"] = 100 * doc["pairs_per_s"] / doc["rsqrt_bound_per_s"]
    return doc


def main():
    specs_dir, binaries = pathlib.Path(sys.argv[1]), [a.split("=", 1) for a in sys.argv[2:]]
    names = [n for n, _ in binaries]
    order = binaries + binaries[::-1] if len(binaries) == 2 else binaries
    head = "| spec | kind | size | variant | copy GB/s | " + " | ".join(f"{n} ms | {n} % of bound" for n in names)
    print(head + (f" | {names[0]} ms / {names[1]} ms |" if len(names) == 2 else " |"))
    print("|" + " --- |" * (head.count("|") + (1 if len(names) == 2 else 0)))
    for path in sorted(p for p in specs_dir.rglob("*.json") if not p.name.endswith(".schema.json") and p.parent.name != "programs"):
        spec = json.loads(path.read_text())
        size = size_of(spec)
        got = {n: [] for n in names}
        for name, gpen in order:
            print(f"{path.name} {size} {name}", file=sys.stderr, flush=True)
            got[name].append(run(gpen, path, size))
        first = got[names[0]][0]
        bound = "pct_rsqrt" if "pct_rsqrt" in first else "pct_copy"
        cells = []
        ms = {}
        for n in names:
            ms[n] = sum(d["median_ms"] for d in got[n]) / len(got[n])
            pct = sum(d.get("pct_rsqrt", d.get("pct_copy", 0)) for d in got[n]) / len(got[n])
            cells.append(f"{ms[n]:.4f} | {pct:.1f}%" + (" rsqrt" if bound == "pct_rsqrt" else ""))
        ratio = f" {ms[names[0]] / ms[names[1]]:.3f} |" if len(names) == 2 else ""
        copy = first.get("copy_gbs", 0)
        print(f"| {first['spec']} | {spec.get('kind', 'stencil')} | {size} | {first['variant']} | {copy:.0f} | " + " | ".join(cells) + " |" + ratio,
              flush=True)


if __name__ == "__main__":
    main()
