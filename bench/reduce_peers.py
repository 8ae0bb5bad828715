"""Reductions of other libraries on the GPU, timed like gpen's: a float64
sum of 512^3 values, and the maximum of |u| + c_s over three 512^3 fields,
beside a device-to-device copy measured in the same process. T_eff = bytes
read / median time of 20 launches after 3 warm-ups (CUDA events).

    python3 bench/reduce_peers.py [N]   # N^3 points, 512 by default
"""
import os
import sys

import cupy as cp
import numpy as np

N = int(sys.argv[1]) if len(sys.argv) > 1 else 512
POINTS = N ** 3


def median_ms(fn, events, reps=20, warmup=3):
    start, stop, sync = events
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        a, b = start(), stop()
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(sync(a, b))
    return float(np.median(times))


def cupy_events():
    return (cp.cuda.Event, cp.cuda.Event, lambda a, b: cp.cuda.get_elapsed_time(a, b))


def report(who, what, ms, read_bytes, copy_gbs):
    gbs = read_bytes / ms / 1e6
    print(f"{who:28s} {what:34s} {ms:8.3f} ms {gbs:8.1f} GB/s {100 * gbs / copy_gbs:6.1f}% of copy")


def main():
    rng = cp.random.default_rng(12345)
    u = rng.random(POINTS, dtype=cp.float64) * 2 - 1
    ux, uy, uz = (rng.random(POINTS, dtype=cp.float64) * 2 - 1 for _ in range(3))
    # The copy as gpen measures it: 1 GiB, bytes read + written.
    src = cp.empty(1 << 27, dtype=cp.float64)
    dst = cp.empty_like(src)
    copy_ms = median_ms(lambda: cp.copyto(dst, src), cupy_events())
    copy_gbs = 2 * src.nbytes / copy_ms / 1e6
    print(f"device-to-device copy {copy_gbs:.1f} GB/s ({N}^3 reductions below; CuPy {cp.__version__})")
    for acc in ("", "cub"):
        os.environ["CUPY_ACCELERATORS"] = acc
        cp._core.set_reduction_accelerators([acc] if acc else [])
        who = "cupy.sum" + (" (CUB)" if acc else "")
        report(who, "float64 sum", median_ms(lambda: cp.sum(u), cupy_events()), u.nbytes, copy_gbs)
        report(who.replace("sum", "max"), "float64 max of u", median_ms(lambda: cp.max(u), cupy_events()), u.nbytes, copy_gbs)
        report("cupy (unfused)", "max(sqrt(ux^2+uy^2+uz^2) + 1)",
               median_ms(lambda: cp.max(cp.sqrt(ux * ux + uy * uy + uz * uz) + 1.0), cupy_events()), 3 * u.nbytes, copy_gbs)
    try:
        import torch
    except ImportError:
        print("torch: not installed")
        return
    tu = torch.as_tensor(u, device="cuda")
    tx, ty, tz = (torch.as_tensor(a, device="cuda") for a in (ux, uy, uz))
    tev = (lambda: torch.cuda.Event(enable_timing=True), lambda: torch.cuda.Event(enable_timing=True), lambda a, b: a.elapsed_time(b))
    report(f"torch.sum ({torch.__version__})", "float64 sum", median_ms(lambda: torch.sum(tu), tev), u.nbytes, copy_gbs)
    report("torch.max", "float64 max of u", median_ms(lambda: torch.max(tu), tev), u.nbytes, copy_gbs)
    report("torch (unfused)", "max(sqrt(ux^2+uy^2+uz^2) + 1)", median_ms(lambda: (torch.sqrt(tx * tx + ty * ty + tz * tz) + 1.0).max(), tev),
           3 * u.nbytes, copy_gbs)


if __name__ == "__main__":
    main()
