#!/usr/bin/env python3
"""gpen's pairwise kernels beside straightforward hand-written ones (issue 29):
every shipped pairwise spec, each beside a shared-memory tile kernel of the
same formula written by hand and compiled by CuPy (RawKernel): one target a
thread, the sources of a tile in shared memory as one array a value, the
tile loop unrolled, CUDA's math functions (and, for the Gaussian sum, a
second kernel with the float32 hardware exponential __expf). gpen runs
through the Python module with the spec as shipped ("math": "accurate")
and with "math": "fast", default variants or the tuned one that `gpen tune`
stored. Pairs per second from CUDA events, the median of --repeat launches
after one; every output compared with the first hand-written kernel's;
gpen's rate beside the bound of the unit that limits its formula (`gpen run
--json`: unit_bound_per_s at the boost clock), and the SM clock nvidia-smi
saw while each ran.

    PYTHONPATH=build/python python3 bench/pairwise_handwritten.py [--only NAME ...] [--tuned] [--gpen build/cli/gpen]
        [--group TARGETS] [--variant block_x=128,targets_per_thread=1 ...]

Prints a Markdown table on stdout.
"""
import argparse
import datetime
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile

import numpy as np

try:
    import cupy as cp
    import gpen
except ImportError as e:
    sys.exit(f"pairwise_handwritten.py needs CuPy and gpen (PYTHONPATH=build/python): {e}")

ROOT = pathlib.Path(__file__).resolve().parent.parent

# One hand-written kernel: TARGETS are loaded once into registers (ti_<v>),
# SOURCES staged a tile at a time (s_<v>[js], written [k] below); BODY adds one pair into
# acc<o>. A grid's cells read their coordinates from the index (CELL).
# A tile of sources [t, m) from j = t + threadIdx.x: staged, then applied.
TILE_LOOP = r"""
      __syncthreads();
      SOURCE_STORES
      __syncthreads();
      const int count = min((int)blockDim.x, m - t);
#pragma unroll UNROLL
      for (int js = 0; js < count; ++js) {
        SKIP
        SOURCE_READS
        BODY
      }
"""

TILE = r"""
extern "C" __global__ void hand(const T* const* in, T* const* out, int n, int m, int nx, int ny, PARAMS) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* sh = reinterpret_cast<T*>(smem);
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int ic = i < n ? i : n - 1;
  TARGET_LOADS
  ACC_INIT
  for (int t = 0; t < m; t += blockDim.x) {
    const int j = t + threadIdx.x;
    TILE_LOOP
  }
  if (i < n) { STORES }
}
""".replace("TILE_LOOP", TILE_LOOP)

# Grouped: a block a group, its targets a block at a time against each of its source ranges.
GROUPED = r"""
extern "C" __global__ void hand(const T* const* in, T* const* out, const int* groups, const int* offsets, const int* ranges, PARAMS) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* sh = reinterpret_cast<T*>(smem);
  const int g = blockIdx.x;
  for (int first = groups[g]; first < groups[g + 1]; first += blockDim.x) {
    const int i = first + threadIdx.x;
    const int ic = i < groups[g + 1] ? i : groups[g + 1] - 1;
    TARGET_LOADS
    ACC_INIT
    for (int r = offsets[g]; r < offsets[g + 1]; ++r) {
      const int begin = ranges[2 * r], m = ranges[2 * r + 1];
      for (int t = begin; t < m; t += blockDim.x) {
        const int j = t + threadIdx.x;
        TILE_LOOP
      }
    }
    if (i < groups[g + 1]) { STORES }
  }
}
""".replace("TILE_LOOP", TILE_LOOP)

XYZ = ["x", "y", "z"]
D = "const T dx = ti_x - s_x[k], dy = ti_y - s_y[k], dz = ti_z - s_z[k];"
# name: (dtype, targets, sources, params, outputs, self skipped, body), fields by name.
FORMULAS = {
    "softened_potential": ("float32", XYZ, XYZ + ["m"], ["eps2"], ["phi"], False,
                           D + " acc0 += s_m[k] * rsqrtf(eps2 + dx * dx + dy * dy + dz * dz);"),
    "softened_acceleration": ("float32", XYZ, XYZ + ["m"], ["eps2"], ["ax", "ay", "az"], False,
                              D + " const T r = rsqrtf(eps2 + dx * dx + dy * dy + dz * dz); const T w = s_m[k] * r * r * r;"
                              " acc0 -= w * dx; acc1 -= w * dy; acc2 -= w * dz;"),
    "coulomb_potential": ("float64", XYZ, XYZ + ["q"], ["k"], ["phi"], True,
                          D + " acc0 += k * s_q[k] * rsqrt(dx * dx + dy * dy + dz * dz);"),
    "grouped_potential": ("float32", XYZ, XYZ + ["m"], ["eps2"], ["phi"], True,
                          D + " acc0 += s_m[k] * rsqrtf(eps2 + dx * dx + dy * dy + dz * dz);"),
    "multipole_potential": ("float32", XYZ, ["cx", "cy", "cz", "q", "px", "py", "pz", "qxx", "qyy", "qzz", "qxy", "qyz", "qzx"], [], ["phi"],
                            False,
                            "const T dx = ti_x - s_cx[k], dy = ti_y - s_cy[k], dz = ti_z - s_cz[k];"
                            " const T r1 = rsqrtf(dx * dx + dy * dy + dz * dz), r3 = r1 * r1 * r1, r5 = r3 * r1 * r1;"
                            " acc0 += s_q[k] * r1 - (s_px[k] * dx + s_py[k] * dy + s_pz[k] * dz) * r3"
                            " + s_qxx[k] * (3 * dx * dx * r5 - r3) + s_qyy[k] * (3 * dy * dy * r5 - r3) + s_qzz[k] * (3 * dz * dz * r5 - r3)"
                            " + 3 * (s_qxy[k] * dx * dy + s_qyz[k] * dy * dz + s_qzx[k] * dz * dx) * r5;"),
    "radiation_grid": ("float32", ["ix", "iy", "iz"], ["ix", "iy", "iz", "e"], ["geometry"], ["flux"], True,
                       "const T di = ti_ix - s_ix[k], dj = ti_iy - s_iy[k], dk = ti_iz - s_iz[k];"
                       " const T r = rsqrtf(di * di + dj * dj + dk * dk); acc0 += s_e[k] * r * r * geometry;"),
    "gaussian_sum": ("float32", XYZ, ["sx", "sy", "sz", "b"], ["inv_s"], ["gamma"], False,
                     "const T dx = ti_x - s_sx[k], dy = ti_y - s_sy[k], dz = ti_z - s_sz[k];"
                     " acc0 += s_b[k] * EXP(-(dx * dx + dy * dy + dz * dz) * inv_s);"),
    "yukawa_potential": ("float64", XYZ, XYZ + ["q"], ["kappa"], ["phi"], True,
                         D + " const T r = sqrt(dx * dx + dy * dy + dz * dz); acc0 += s_q[k] * exp(-kappa * r) / r;"),
}
CELL = {"ix": "(T)(IDX % nx)", "iy": "(T)((IDX / nx) % ny)", "iz": "(T)(IDX / (nx * ny))"}


def kernel_source(name, template, unroll, exp="expf"):
    dtype, targets, sources, params, outs, skip, body = FORMULAS[name]
    field = {}  # a value's input slot: targets and sources by field name, in the order passed
    for v in targets + sources:
        if v not in CELL and v not in field:
            field[v] = len(field)
    load = lambda v, idx: CELL[v].replace("IDX", idx) if v in CELL else f"in[{field[v]}][{idx}]"
    t = "float" if dtype == "float32" else "double"
    subs = {
        "PARAMS": ", ".join(f"T {p}" for p in params) or "int unused_",
        "TARGET_LOADS": " ".join(f"const T ti_{v} = {load(v, 'ic')};" for v in targets),
        "ACC_INIT": " ".join(f"T acc{o} = 0;" for o in range(len(outs))),
        "SOURCE_STORES": " ".join(f"sh[{s} * blockDim.x + threadIdx.x] = j < m ? {load(v, 'j')} : (T)0;" for s, v in enumerate(sources)),
        "SOURCE_READS": " ".join(f"const T* s_{v} = sh + {s} * blockDim.x;" for s, v in enumerate(sources)),
        "SKIP": "if (t + js == i) continue;" if skip else "",
        "BODY": body.replace("EXP", exp).replace("[k]", "[js]"),  # a param may be called k
        "STORES": " ".join(f"out[{o}][i] = acc{o};" for o in range(len(outs))),
        "UNROLL": str(unroll),
    }
    src = template
    for k, v in subs.items():
        src = src.replace(k, v)
    return f"typedef {t} T;\n" + src, field


def timed(launch, repeat):
    launch()  # warm-up (and a first compile or load)
    start, end = cp.cuda.Event(), cp.cuda.Event()
    ms = []
    for _ in range(repeat):
        start.record()
        launch()
        end.record()
        end.synchronize()
        ms.append(cp.cuda.get_elapsed_time(start, end))
    return statistics.median(ms)


def spec_with_math(name, math):
    path = ROOT / "specs" / "pairwise" / f"{name}.json"
    if math == "accurate":  # as shipped: its hash is the one `gpen tune` stored results under
        return gpen.load_spec(path), str(path)
    d = json.loads(path.read_text())
    d["math"] = math
    out = pathlib.Path(tempfile.gettempdir()) / f"{name}_{math}.json"
    out.write_text(json.dumps(d))
    return gpen.load_spec(out), str(out)


def unit_bound(gpen_cli, spec_path, size):
    """The bound gpen quotes the spec's rate against, and its unit (gpen run --json)."""
    r = subprocess.run([gpen_cli, "run", spec_path, "--size", size, "--repeat", "1", "--no-tuned", "--json"], capture_output=True, text=True)
    d = json.loads(r.stdout)
    return d["unit_bound_per_s"], d["bound_unit"]


class SmClock:
    """The SM clock nvidia-smi reports every 20 ms while the block runs: its median, MHz."""

    def __enter__(self):
        self.p = subprocess.Popen(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits", "-lms", "20"],
                                  stdout=subprocess.PIPE, text=True)
        return self

    def __exit__(self, *exc):
        self.p.terminate()
        out, _ = self.p.communicate()
        mhz = [int(l) for l in out.split() if l.strip().isdigit()]
        self.mhz = statistics.median(mhz) if mhz else 0


def pointer_array(arrays):
    return cp.asarray(np.array([a.data.ptr for a in arrays], dtype=np.uint64))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n32", type=int, default=1 << 18, help="float32 particles (default 2^18)")
    ap.add_argument("--n64", type=int, default=1 << 16, help="float64 particles (default 2^16)")
    ap.add_argument("--sources", type=int, default=4096, help="multipole_potential: expansions (default 4096)")
    ap.add_argument("--grid", type=int, default=40, help="radiation_grid: cells a side (default 40)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--block", type=int, default=256)
    ap.add_argument("--only", nargs="*", help="spec names (default: every shipped pairwise spec)")
    ap.add_argument("--tuned", action="store_true", help="gpen's tuned variant where `gpen tune` stored one")
    ap.add_argument("--gpen", default=str(ROOT / "build-gpu" / "cli" / "gpen"), help="the gpen command, for the unit bounds")
    ap.add_argument("--group", type=int, default=512, help="grouped_potential: targets a group (default 512)")
    ap.add_argument("--variant", action="append", default=[],
                    help="also time gpen with these tunables (accurate math): name=value,name=value (repeatable)")
    a = ap.parse_args()
    variants = [dict(kv.split("=") for kv in v.split(",")) for v in a.variant]
    rng = np.random.default_rng(1)
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    rows = []
    for spec_name in a.only or sorted(FORMULAS):
        dtype, targets, sources, params, outs, skip, _ = FORMULAS[spec_name]
        spec = gpen.load_spec(ROOT / "specs" / "pairwise" / f"{spec_name}.json")
        np_t = np.float32 if dtype == "float32" else np.float64
        grid = spec_name == "radiation_grid"
        grouped = spec_name == "grouped_potential"
        separate = spec_name in ("gaussian_sum", "multipole_potential")
        n = a.grid ** 3 if grid else a.n32 if dtype == "float32" else a.n64
        m = a.sources if spec_name == "multipole_potential" else n
        size = f"{a.grid}x{a.grid}x{a.grid}" if grid else f"{n}x{m}" if separate else str(n)
        p = dict(spec.params)
        if grid:
            p = {"geometry": 0.0795774715459476678844 / (p["h"] ** 2)}
        fields = {f: cp.asarray(rng.random(n if f in targets else m).astype(np_t)) for f in dict.fromkeys(targets + sources) if f not in CELL}
        out_arrays = [cp.empty(n, dtype=np_t) for _ in outs]
        # Grouped: groups of 512 (--group) targets, each against three ranges of 8192 sources.
        groups = None
        if grouped:
            tg = list(range(0, n, a.group)) + [n]
            ro, sr = [0], []
            for g in range(len(tg) - 1):
                for r in range(3):
                    b = int(rng.integers(0, n - 8192))
                    sr += [b, b + 8192]
                ro.append(len(sr) // 2)
            groups = (tg, ro, sr)
            pairs = float(sum((tg[g + 1] - tg[g]) * sum(sr[2 * r + 1] - sr[2 * r] for r in range(ro[g], ro[g + 1])) for g in range(len(tg) - 1)))
            pairs -= sum(1 for g in range(len(tg) - 1) for i in range(tg[g], tg[g + 1]) for r in range(ro[g], ro[g + 1]) if sr[2 * r] <= i < sr[2 * r + 1])
        else:
            pairs = float(n) * (m - 1 if skip else m)

        ref = None
        exps = ("expf", "__expf") if spec_name == "gaussian_sum" else ("exp",)
        for exp in exps:
            src, field = kernel_source(spec_name, GROUPED if grouped else TILE, 8 if dtype == "float32" else 4, exp)
            k = cp.RawKernel(src, "hand")
            ins = pointer_array([fields[f] for f in field])
            outp = pointer_array(out_arrays)
            pv = [np_t(p[q]) for q in params] or [np.int32(0)]
            shared = len(sources) * a.block * np.dtype(np_t).itemsize
            if grouped:
                gt, go, gr = (cp.asarray(np.array(v, dtype=np.int32)) for v in groups)
                args = (ins, outp, gt, go, gr, *pv)
                blocks = (len(groups[0]) - 1,)
            else:
                args = (ins, outp, np.int32(n), np.int32(m), np.int32(a.grid), np.int32(a.grid), *pv)
                blocks = ((n + a.block - 1) // a.block,)
            with SmClock() as clock:
                ms = timed(lambda: k(blocks, (a.block,), args, shared_mem=shared), a.repeat)
            if ref is None:
                ref = [o.copy() for o in out_arrays]
                base = pairs / ms * 1e3
            label = "hand-written tile" + (f", `{exp}`" if len(exps) > 1 else "")
            diff = max(float(cp.abs(o - r).max() / cp.abs(r).max()) for o, r in zip(out_arrays, ref))
            rows.append((f"{spec_name} {dtype}", size, label, ms, pairs / ms * 1e3, pairs / ms * 1e3 / base, "", clock.mhz, diff))
            if exp == "__expf":
                fast_base = pairs / ms * 1e3
        for math, tunables in [("accurate", None), ("fast", None)] + [("accurate", v) for v in variants]:
            spec_m, spec_path = spec_with_math(spec_name, math)
            kg = gpen.Kernel(spec_m, size=size, tuned=a.tuned, tunables=tunables)
            bound, unit = unit_bound(a.gpen, spec_path, size)
            shape = (a.grid,) * 3 if grid else (n,)  # a grid's arrays in NumPy order (z, y, x)
            kw = {f: v.reshape(shape) if grid else v for f, v in fields.items()}
            kw.update({f: o.reshape(shape) for f, o in zip(outs, out_arrays)})
            kw.update(spec.params)
            if grouped:
                kw["groups"] = gpen.PairGroups(target_groups=groups[0], range_offsets=groups[1], source_ranges=groups[2], targets=n, sources=n)
            with SmClock() as clock:
                ms = timed(lambda: kg(**kw), a.repeat)
            diff = max(float(cp.abs(o - r).max() / cp.abs(r).max()) for o, r in zip(out_arrays, ref))
            versus = pairs / ms * 1e3 / (fast_base if math == "fast" and len(exps) > 1 else base)
            rate = pairs / ms * 1e3
            rows.append((f"{spec_name} {dtype}", size, f"gpen, math {math} ({kg.variant})", ms, rate, versus,
                         f"{100 * rate / bound:.1f}% of {unit} ({bound:.3e})", clock.mhz, diff))

    print(f"Pairwise kernels beside hand-written tile kernels: {name}, {datetime.datetime.now():%Y-%m-%d %H:%M}, CuPy {cp.__version__}")
    print()
    print("| spec | size | kernel | ms | pairs/s | vs hand-written | of gpen's unit bound (at the boost clock) | SM MHz (median) | max abs diff / max abs (vs the first hand-written) |")
    print("| --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: |")
    for spec_, size, label, ms, rate, versus, pct, mhz, diff in rows:
        print(f"| {spec_} | {size} | {label} | {ms:.3f} | {rate:.3e} | {versus:.2f} | {pct} | {mhz:.0f} | {diff:.1e} |", flush=True)


if __name__ == "__main__":
    main()
