#!/usr/bin/env python3
"""gpen's pairwise kernels beside straightforward hand-written ones (issue 29):
a Gaussian kernel sum in float32 (N targets, M sources) and a Yukawa
potential in float64 (N particles, the pair i == j skipped), each a shared-
memory tile kernel compiled by CuPy (RawKernel), with accurate math (expf,
exp) and with the float32 hardware exponential (__expf). gpen's specs run
through the Python module with "math": "accurate" (the shipped specs) and
"fast". Pairs per second from CUDA events, the median of --repeat launches
after one; every output compared with the hand-written accurate one.

    PYTHONPATH=build/python python3 bench/pairwise_handwritten.py [--n 262144] [--n-yukawa 65536]

Prints a Markdown table on stdout.
"""
import argparse
import datetime
import json
import pathlib
import statistics
import sys

import numpy as np

try:
    import cupy as cp
    import gpen
except ImportError as e:
    sys.exit(f"pairwise_handwritten.py needs CuPy and gpen (PYTHONPATH=build/python): {e}")

ROOT = pathlib.Path(__file__).resolve().parent.parent

GAUSS = r"""
extern "C" __global__ void gauss(const float* __restrict__ x, const float* __restrict__ y, const float* __restrict__ z,
                                 const float* __restrict__ sx, const float* __restrict__ sy, const float* __restrict__ sz,
                                 const float* __restrict__ b, float* __restrict__ g, int n, int m, float inv_s) {
  extern __shared__ float tile[];
  float* px = tile; float* py = px + blockDim.x; float* pz = py + blockDim.x; float* pb = pz + blockDim.x;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float xi = i < n ? x[i] : 0.f, yi = i < n ? y[i] : 0.f, zi = i < n ? z[i] : 0.f;
  float acc = 0.f;
  for (int t = 0; t < m; t += blockDim.x) {
    const int j = t + threadIdx.x;
    px[threadIdx.x] = j < m ? sx[j] : 0.f; py[threadIdx.x] = j < m ? sy[j] : 0.f;
    pz[threadIdx.x] = j < m ? sz[j] : 0.f; pb[threadIdx.x] = j < m ? b[j] : 0.f;
    __syncthreads();
    const int count = min((int)blockDim.x, m - t);
#pragma unroll 8
    for (int k = 0; k < count; ++k) {
      const float dx = xi - px[k], dy = yi - py[k], dz = zi - pz[k];
      acc += pb[k] * EXP(-(dx * dx + dy * dy + dz * dz) * inv_s);
    }
    __syncthreads();
  }
  if (i < n) g[i] = acc;
}
"""

YUKAWA = r"""
extern "C" __global__ void yukawa(const double* __restrict__ x, const double* __restrict__ y, const double* __restrict__ z,
                                  const double* __restrict__ q, double* __restrict__ phi, int n, double kappa) {
  extern __shared__ double tile[];
  double* px = tile; double* py = px + blockDim.x; double* pz = py + blockDim.x; double* pq = pz + blockDim.x;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const double xi = i < n ? x[i] : 0.0, yi = i < n ? y[i] : 0.0, zi = i < n ? z[i] : 0.0;
  double acc = 0.0;
  for (int t = 0; t < n; t += blockDim.x) {
    const int j = t + threadIdx.x;
    px[threadIdx.x] = j < n ? x[j] : 0.0; py[threadIdx.x] = j < n ? y[j] : 0.0;
    pz[threadIdx.x] = j < n ? z[j] : 0.0; pq[threadIdx.x] = j < n ? q[j] : 0.0;
    __syncthreads();
    const int count = min((int)blockDim.x, n - t);
#pragma unroll 4
    for (int k = 0; k < count; ++k) {
      if (t + k == i) continue;
      const double dx = xi - px[k], dy = yi - py[k], dz = zi - pz[k];
      const double r = sqrt(dx * dx + dy * dy + dz * dz);
      acc += pq[k] * exp(-kappa * r) / r;
    }
    __syncthreads();
  }
  if (i < n) phi[i] = acc;
}
"""


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
    d = json.loads((ROOT / "specs" / "pairwise" / f"{name}.json").read_text())
    d["math"] = math
    d["name"] = f"{name}_{math}"
    return gpen.load_spec(d)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1 << 18, help="Gaussian sum: targets and sources (default 2^18)")
    ap.add_argument("--n-yukawa", type=int, default=1 << 16, help="Yukawa: particles (default 2^16)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--block", type=int, default=256)
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    name = cp.cuda.runtime.getDeviceProperties(0)["name"]
    name = name.decode() if isinstance(name, bytes) else name
    rows = []

    # Gaussian kernel sum, float32.
    n = m = a.n
    x, y, z = (cp.asarray(rng.random(n, dtype=np.float32)) for _ in range(3))
    sx, sy, sz, b = (cp.asarray(rng.random(m, dtype=np.float32)) for _ in range(4))
    inv_s = 4.0
    pairs = float(n) * m
    ref = None
    for label, exp in (("hand-written tile, expf", "expf"), ("hand-written tile, __expf", "__expf")):
        k = cp.RawKernel(GAUSS.replace("EXP", exp), "gauss")
        g = cp.empty(n, dtype=cp.float32)
        grid = ((n + a.block - 1) // a.block,)
        launch = lambda: k(grid, (a.block,), (x, y, z, sx, sy, sz, b, g, np.int32(n), np.int32(m), np.float32(inv_s)), shared_mem=16 * a.block)
        ms = timed(launch, a.repeat)
        ref = g.copy() if ref is None else ref
        rows.append(("gaussian_sum float32", f"{n}x{m}", label, ms, pairs / ms * 1e3, float(cp.abs(g - ref).max() / cp.abs(ref).max())))
    for math in ("accurate", "fast"):
        k = gpen.Kernel(spec_with_math("gaussian_sum", math), size=f"{n}x{m}")
        g = cp.empty(n, dtype=cp.float32)
        ms = timed(lambda: k(x=x, y=y, z=z, sx=sx, sy=sy, sz=sz, b=b, gamma=g, inv_s=inv_s), a.repeat)
        rows.append(("gaussian_sum float32", f"{n}x{m}", f"gpen, math {math} ({k.variant})", ms, pairs / ms * 1e3, float(cp.abs(g - ref).max() / cp.abs(ref).max())))

    # Yukawa potential, float64, i == j skipped.
    n = a.n_yukawa
    x, y, z, q = (cp.asarray(rng.random(n)) for _ in range(4))
    kappa = 2.0
    pairs = float(n) * (n - 1)
    k = cp.RawKernel(YUKAWA, "yukawa")
    phi_ref = cp.empty(n)
    grid = ((n + a.block - 1) // a.block,)
    ms = timed(lambda: k(grid, (a.block,), (x, y, z, q, phi_ref, np.int32(n), np.float64(kappa)), shared_mem=32 * a.block), a.repeat)
    rows.append(("yukawa_potential float64", str(n), "hand-written tile, exp", ms, pairs / ms * 1e3, 0.0))
    for math in ("accurate", "fast"):
        kg = gpen.Kernel(spec_with_math("yukawa_potential", math), size=n)
        phi = cp.empty(n)
        ms = timed(lambda: kg(x=x, y=y, z=z, q=q, phi=phi, kappa=kappa), a.repeat)
        rows.append(("yukawa_potential float64", str(n), f"gpen, math {math} ({kg.variant})", ms, pairs / ms * 1e3,
                     float(cp.abs(phi - phi_ref).max() / cp.abs(phi_ref).max())))

    print(f"Pairwise kernels beside hand-written tile kernels: {name}, {datetime.datetime.now():%Y-%m-%d %H:%M}, CuPy {cp.__version__}")
    print()
    print("| spec | size | kernel | ms | pairs/s | max abs diff / max abs (vs hand-written accurate) |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    for spec, size, label, ms, rate, diff in rows:
        print(f"| {spec} | {size} | {label} | {ms:.3f} | {rate:.3e} | {diff:.1e} |")


if __name__ == "__main__":
    main()
