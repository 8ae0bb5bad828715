#!/usr/bin/env python3
"""The host cost of one kernel launch from Python: gpen.Kernel on CuPy and
PyTorch arrays beside a CuPy RawKernel of the same 7-point Laplacian
(specs/stencil/laplacian3d_o2.json) and an empty RawKernel.

    PYTHONPATH=build/python python3 bench/python_overhead.py [--n 10000] [--size 8]

The interior is tiny (8^3 by default), so that the GPU keeps up with the
host: each path is called back to back, --warmup times first, then --n times
with time.perf_counter_ns around each call, and one synchronize at the end.
A row gives the median and 90th percentile of those host times, and the
whole loop's time (the synchronize included) over --n: about the mean when
the host is the bottleneck, larger when the GPU is. Before the timing, each
kernel's result is compared with the same Laplacian computed by slicing
(CuPy or PyTorch). Paths whose library (CuPy, PyTorch, gpen, a GPU) is
missing are listed as skipped, with the reason. Prints a Markdown table on
stdout, progress on stderr.
"""
import argparse
import datetime
import gc
import pathlib
import platform
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "stencil" / "laplacian3d_o2.json"

try:
    import numpy as np
except ImportError:
    sys.exit("python_overhead.py needs NumPy")

try:
    import cupy as cp
    CUPY_WHY = None
except ImportError as e:
    cp, CUPY_WHY = None, f"no cupy ({e})"

try:
    import torch
    TORCH_WHY = None if torch.cuda.is_available() else "torch sees no CUDA device"
except ImportError as e:
    torch, TORCH_WHY = None, f"no torch ({e})"

try:
    import gpen
    ok, why = gpen.gpu_available()
    GPEN_WHY = None if ok else f"gpen: no GPU ({why})"
except ImportError as e:
    gpen, GPEN_WHY = None, f"no gpen module ({e}; PYTHONPATH=build/python?)"

# The spec's layout: u padded by one point on each side, (n+2)^3 in (z, y, x)
# order, x contiguous; lap the packed interior, n^3.
LAPLACIAN_SOURCE = r"""
typedef REAL real;
extern "C" __global__ void laplacian7(const real* __restrict__ u, real* __restrict__ lap,
                                      int nx, int ny, int nz, real inv_h2) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= (long long)nx * ny * nz) return;
  const int x = (int)(i % nx);
  const int y = (int)((i / nx) % ny);
  const int z = (int)(i / ((long long)nx * ny));
  const long long px = nx + 2, pxy = px * (ny + 2);
  const long long c = (z + 1) * pxy + (y + 1) * px + (x + 1);
  lap[i] = (u[c - 1] + u[c + 1] + u[c - px] + u[c + px] + u[c - pxy] + u[c + pxy] - 6 * u[c]) * inv_h2;
}
"""
EMPTY_SOURCE = r'extern "C" __global__ void empty() {}'


def reference(u):
    """The 7-point Laplacian of a padded array by slicing (CuPy or PyTorch)."""
    c = u[1:-1, 1:-1, 1:-1]
    return (u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
            + u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] - 6 * c)


def measure(call, n, warmup, synchronize):
    """Host nanoseconds of each of n back-to-back calls, after warmup calls,
    and the whole loop's nanoseconds with one synchronize at its end."""
    for _ in range(warmup):
        call()
    synchronize()
    times = [0] * n
    clock = time.perf_counter_ns
    gc_was = gc.isenabled()
    gc.disable()
    try:
        start = clock()
        for i in range(n):
            t0 = clock()
            call()
            times[i] = clock() - t0
        synchronize()
        total = clock() - start
    finally:
        if gc_was:
            gc.enable()
    return times, total


def percentile(sorted_values, q):
    """The q-th percentile (0..100) by nearest rank."""
    k = max(0, min(len(sorted_values) - 1, int(round(q / 100 * len(sorted_values))) - 1))
    return sorted_values[k]


def check(name, got, want, tol):
    err = float(abs(got - want).max())
    if not err <= tol:
        raise SystemExit(f"{name}: the result differs from the reference by {err:g} (tolerance {tol:g})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10000, help="timed launches a path (default 10000)")
    ap.add_argument("--size", type=int, default=8, help="interior points along each axis (default 8)")
    ap.add_argument("--warmup", type=int, default=1000, help="launches before the timing (default 1000)")
    ap.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    a = ap.parse_args()
    if a.n < 1 or a.size < 1 or a.warmup < 0:
        ap.error("--n and --size must be at least 1, --warmup at least 0")

    s = a.size
    padded = (s + 2, s + 2, s + 2)
    tol = 1e-12 if a.dtype == "float64" else 1e-4
    rows = []  # (path, times or None, total ns or why)
    notes = []

    def run(path, call, synchronize):
        times, total = measure(call, a.n, a.warmup, synchronize)
        rows.append((path, sorted(times), total))
        print(f"  {path}: done", file=sys.stderr)

    def skip(path, why):
        rows.append((path, None, why))

    run("Python call of an empty function (the timer's own cost)", lambda: None, lambda: None)

    k = None
    if GPEN_WHY is None:
        spec = gpen.load_spec(SPEC, dtype=a.dtype)
        # The direct strategy (a thread a point), as the RawKernel: the
        # default (a march along z) takes longer on the GPU than the host
        # takes to launch it at 8^3, and back-to-back launches would then
        # wait for a full launch queue, timing the GPU instead of the host.
        k = gpen.Kernel(spec, size=(s, s, s), tunables={"strategy": "direct"})
        notes.append(f"gpen variant: {k.variant}{' (tuned)' if k.tuned else ''}")

    device = "unknown"
    if CUPY_WHY is None:
        name = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"]
        device = name.decode() if isinstance(name, bytes) else str(name)
        sync = cp.cuda.get_current_stream().synchronize
        u = cp.random.rand(*padded).astype(a.dtype)
        lap = cp.zeros((s, s, s), dtype=a.dtype)
        want = reference(u)

        raw = cp.RawKernel(LAPLACIAN_SOURCE.replace("REAL", "double" if a.dtype == "float64" else "float"), "laplacian7")
        threads = 256
        blocks = (s * s * s + threads - 1) // threads
        args = (u, lap, np.int32(s), np.int32(s), np.int32(s), np.dtype(a.dtype).type(1.0))
        raw((blocks,), (threads,), args)
        check("CuPy RawKernel", lap, want, tol)

        if k is not None:
            lap.fill(np.nan)
            k(u=u, lap=lap, inv_h2=1.0)
            check("gpen on CuPy arrays", lap, want, tol)
            run("gpen, CuPy arrays: k(u=u, lap=lap, inv_h2=1.0)", lambda: k(u=u, lap=lap, inv_h2=1.0), sync)
            ptr = cp.cuda.get_current_stream().ptr
            run("gpen, CuPy arrays, stream= an int handle", lambda: k(u=u, lap=lap, inv_h2=1.0, stream=ptr), sync)
            fields, params = {"u": u, "lap": lap}, {"inv_h2": 1.0}
            run("gpen, CuPy arrays: k.launch(fields, params)", lambda: k.launch(fields, params), sync)
            run("gpen, CuPy arrays, output made: k(u=u, inv_h2=1.0)", lambda: k(u=u, inv_h2=1.0), sync)
        else:
            skip("gpen, CuPy arrays", GPEN_WHY)

        run("CuPy RawKernel, same Laplacian", lambda: raw((blocks,), (threads,), args), sync)
        empty = cp.RawKernel(EMPTY_SOURCE, "empty")
        run("CuPy RawKernel, empty", lambda: empty((1,), (1,), ()), sync)
    else:
        for path in ("gpen, CuPy arrays", "CuPy RawKernel, same Laplacian", "CuPy RawKernel, empty"):
            skip(path, CUPY_WHY)

    if TORCH_WHY is None:
        if device == "unknown":
            device = torch.cuda.get_device_name()
        if k is not None:
            dt = getattr(torch, a.dtype)
            ut = torch.rand(padded, dtype=dt, device="cuda")
            lt = torch.full((s, s, s), float("nan"), dtype=dt, device="cuda")
            k(u=ut, lap=lt, inv_h2=1.0)
            check("gpen on PyTorch tensors", lt, reference(ut), tol)
            run("gpen, PyTorch tensors: k(u=u, lap=lap, inv_h2=1.0)", lambda: k(u=ut, lap=lt, inv_h2=1.0), torch.cuda.synchronize)
        else:
            skip("gpen, PyTorch tensors", GPEN_WHY)
    else:
        skip("gpen, PyTorch tensors", TORCH_WHY)

    versions = [f"Python {platform.python_version()}"]
    if cp is not None:
        versions.append(f"CuPy {cp.__version__}")
    if torch is not None:
        versions.append(f"PyTorch {torch.__version__}")
    print(f"Launch overhead from Python: {device}, {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}, "
          f"{', '.join(versions)}")
    print(f"laplacian3d_o2 ({a.dtype}) at {s}^3; {a.n} launches a path after {a.warmup}, host time of each call")
    print()
    print("| launch path | median us | p90 us | whole loop / n us |")
    print("| --- | ---: | ---: | ---: |")
    for path, times, total in rows:
        if times is None:
            print(f"| {path} | skipped: {total} | | |")
        else:
            print(f"| {path} | {statistics.median(times) / 1e3:.2f} | {percentile(times, 90) / 1e3:.2f} | {total / a.n / 1e3:.2f} |")
    for note in notes:
        print()
        print(note)


if __name__ == "__main__":
    main()
