#!/usr/bin/env python3
"""A fused stencil spec beside its outputs split over several kernels
(fission, issue 25): each group of outputs becomes a spec of its own, with
only the lets, inputs and params its expressions use, and the parts' times
add up against the fused kernel's, each run by `gpen run --json --no-tuned`
at its own default variant.

    fission.py GPEN SPEC DTYPE SIZE SPLIT [SPLIT...] [--parts-set K=V]... [--check-only]

A SPLIT names groups of outputs: groups apart by '/', outputs of a group by
',', e.g. 'dux_dt/duy_dt/duz_dt' or 'dux_dt,duy_dt/duz_dt'; each split names
every output once. A part keeps the spec's tunables less each that `gpen
compile` refuses for it, said on stderr (e.g. a block_y default of 6,
not offered to a part light enough for the march; a spec that allows
only the stage keeps it for every part). Every spec runs twice, in alternation; each
takes the lower of its times. --parts-set K=V sets a tunable of every part
(e.g. strategy=stage for parts the march would take); --check-only writes
and checks the parts, without a GPU."""
import json
import pathlib
import re
import subprocess
import sys
import tempfile


def identifiers(expr):
    return set(re.findall(r"[A-Za-z_]\w*", expr))


def part_of(spec, outputs):
    """The spec restricted to `outputs`: the lets they use, transitively,
    and the inputs and params those reach."""
    missing = set(outputs) - {o["field"] for o in spec["outputs"]}
    if missing:
        raise SystemExit(f"fission.py: {spec['name']} has no output {', '.join(sorted(missing))}")
    lets = {let["name"]: let for let in spec.get("lets", [])}
    used, todo = set(), [o["expr"] for o in spec["outputs"] if o["field"] in outputs]
    while todo:
        for name in identifiers(todo.pop()) - used:
            used.add(name)
            if name in lets:
                todo.append(lets[name]["expr"])
    part = dict(spec)
    part.pop("$schema", None)
    part["name"] = spec["name"] + "__" + "_".join(outputs)
    part["outputs"] = [o for o in spec["outputs"] if o["field"] in outputs]
    part["lets"] = [let for let in spec.get("lets", []) if let["name"] in used]
    part["fields"] = [f for f in spec["fields"] if f["name"] in outputs or (f["role"] == "input" and f["name"] in used)]
    part["params"] = [p for p in spec.get("params", []) if p["name"] in used]
    return part


def write_checked(gpen, part, where, dtype, sets):
    """The part written and compiled; a tunable of the spec's that gpen
    refuses for the part (its error names /tunables/NAME) is dropped, and
    said, until none is."""
    path = where / (part["name"] + ".json")
    while True:
        path.write_text(json.dumps(part, indent=1))
        done = subprocess.run([gpen, "compile", str(path), "--dtype", dtype, *sets], capture_output=True, text=True)
        if done.returncode == 0:
            return path
        refused = re.search(r"/tunables/(\w+)", done.stderr)
        if not refused or refused.group(1) not in part.get("tunables", {}):
            raise SystemExit(f"fission.py: part {part['name']}: {done.stderr.strip()[-400:]}")
        print(f"part {part['name']}: the spec's tunable {refused.group(1)} dropped ({done.stderr.strip().splitlines()[0]})", file=sys.stderr)
        part = dict(part, tunables={k: v for k, v in part["tunables"].items() if k != refused.group(1)})


def median_ms(gpen, path, dtype, size, sets):
    try:
        out = subprocess.run([gpen, "run", str(path), "--size", size, "--dtype", dtype, *sets, "--no-tuned", "--repeat", "20", "--json"],
                             capture_output=True, text=True, timeout=300)
        doc = json.loads(out.stdout) if out.stdout.strip() else {}
    except (subprocess.TimeoutExpired, json.JSONDecodeError) as e:
        raise SystemExit(f"fission.py: {path}: {e}")
    if "median_ms" not in doc:
        raise SystemExit(f"fission.py: {path}: {doc.get('message', out.stderr[-400:])}")
    return doc["median_ms"], doc.get("pct_copy", 0.0), doc["variant"]


def main():
    args, sets, check_only = [], [], False
    argv = iter(sys.argv[1:])
    for a in argv:
        if a == "--check-only":
            check_only = True
        elif a == "--parts-set":
            kv = next(argv, None)
            if kv is None or "=" not in kv:
                raise SystemExit("fission.py: --parts-set wants K=V")
            sets += ["--set", kv]
        elif a.startswith("--"):
            raise SystemExit(f"fission.py: unknown option {a}\n{__doc__}")
        else:
            args.append(a)
    if len(args) < 5:
        raise SystemExit(__doc__)
    gpen, spec_path, dtype, size, splits = args[0], pathlib.Path(args[1]), args[2], args[3], args[4:]
    spec = json.loads(spec_path.read_text())
    outputs = sorted(o["field"] for o in spec["outputs"])
    for split in splits:
        named = sorted(o for g in split.split("/") for o in g.split(","))
        if named != outputs:
            raise SystemExit(f"fission.py: split {split} must name each output of {spec['name']} once: {', '.join(outputs)}")
    with tempfile.TemporaryDirectory() as tmp:
        where = pathlib.Path(tmp)
        groups = {tuple(g.split(",")) for s in splits for g in s.split("/")}
        paths = {g: write_checked(gpen, part_of(spec, list(g)), where, dtype, sets) for g in sorted(groups)}
        for g, path in paths.items():
            part = json.loads(path.read_text())
            print(f"part {','.join(g)}: inputs {', '.join(f['name'] for f in part['fields'] if f['role'] == 'input')}", flush=True)
        if check_only:
            return
        best = {}
        for _ in range(2):
            for key, path in [(None, spec_path)] + list(paths.items()):
                ms, pct, variant = median_ms(gpen, path, dtype, size, sets if key else [])
                if key not in best or ms < best[key][0]:
                    best[key] = (ms, pct, variant)
        for key, (ms, pct, variant) in best.items():
            print(f"{'fused' if key is None else ','.join(key)}: {ms:.3f} ms, {pct:.1f}% of copy ({variant})")
        for s in splits:
            total = sum(best[tuple(g.split(','))][0] for g in s.split("/"))
            print(f"{spec['name']} {dtype} {size}: fused {best[None][0]:.3f} ms, split {s} {total:.3f} ms, fused / split {best[None][0] / total:.3f}")


if __name__ == "__main__":
    main()
