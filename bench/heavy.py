#!/usr/bin/env python3
"""The fused multi-field specs (issue 25) in several variants, dtypes and
sizes, each timed by `gpen run --json` (a copy measured in the same process)
and, at the smaller size, verified against the CPU reference.

    heavy.py GPEN SPEC.json [SPEC.json ...] [--sizes 256] [--large 512] [--variants FILE]

A variant is one line of --set arguments ("strategy=stage ring_ahead=1");
the empty line is the spec's default. Every variant is verified at an odd
size (--verify-size) and timed at each of --sizes; the default variant also
at each of --large. Prints a Markdown table on stdout, progress on stderr."""
import argparse
import sys

from defaults import gpen_run

DEFAULT_VARIANTS = [
    "",
    "mixed_passes=1",
    "strategy=direct",
    "ring_ahead=2",
    "rows_y=2",
    "block_y=8",
    "block_x=64 block_y=2",
]


def run(gpen, spec, dtype, size, variant, verify):
    """The gpen.run/1 document, or {"error": why} for a variant gpen refuses."""
    args = ["--dtype", dtype, "--no-tuned", "--repeat", "10"]
    for s in variant.split():
        args += ["--set", s]
    if verify:
        args.append("--verify")
    try:
        return gpen_run(gpen, spec, size, args)
    except RuntimeError as e:
        return {"error": str(e)[-300:]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("gpen")
    ap.add_argument("specs", nargs="+")
    ap.add_argument("--sizes", default="256")
    ap.add_argument("--large", default="512")
    ap.add_argument("--verify-size", default="67x45x33")
    ap.add_argument("--dtypes", default="float64,float32")
    ap.add_argument("--variants", help="a file of variants, one a line")
    a = ap.parse_args()
    variants = DEFAULT_VARIANTS
    if a.variants:
        variants = [l.strip() for l in open(a.variants) if not l.startswith("#")]
    sizes = a.sizes.split(",")
    large = [x for x in a.large.split(",") if x]
    print("| spec | dtype | size | variant | regs | spill B | ms | copy GB/s | T_eff GB/s | % of copy | FMA ms | % of roofline | verified at " + a.verify_size + " |")
    print("|" + " --- |" * 13)
    for spec in a.specs:
        name = spec.rsplit("/", 1)[-1].removesuffix(".json")
        for dtype in a.dtypes.split(","):
            for v in variants:
                print(f"{name} {dtype} [{v or 'default'}] verify", file=sys.stderr, flush=True)
                check = run(a.gpen, spec, dtype, a.verify_size, v, True)
                if "error" in check:
                    print(f"| {name} | {dtype} | | {v or 'default'} | | | | | | | | | refused: {check['error']} |", flush=True)
                    continue
                ver = check["verify"]
                vtxt = ("PASS" if ver["pass"] else "FAIL") + f" rel_l2 {ver['rel_l2']:.1e}"
                for size in sizes + (large if not v else []):
                    print(f"{name} {dtype} {size} [{v or 'default'}]", file=sys.stderr, flush=True)
                    d = run(a.gpen, spec, dtype, size, v, False)
                    if "error" in d:
                        print(f"| {name} | {dtype} | {size} | {v or 'default'} | | | | | | | | | {vtxt}; run: {d['error']} |", flush=True)
                        continue
                    u = d["usage"]
                    r = d.get("roofline") or {}
                    roof = f"{r['fma_ms']:.3f} | {r['pct_roofline']:.1f}" if r else " | "
                    label = v or "default: " + d["variant"]
                    print(f"| {name} | {dtype} | {size} | {label} | {u['registers']} | {u['spill_stores']} | "
                          f"{d['median_ms']:.3f} | {d['copy_gbs']:.0f} | {d['teff_gbs']:.0f} | "
                          f"{d['pct_copy']:.1f} | {roof} | {vtxt} |", flush=True)


if __name__ == "__main__":
    main()
