#!/usr/bin/env python3
"""2-D diffusion in CuPy, one gpen stencil launch a step.

    PYTHONPATH=build/python python3 examples/diffusion_cupy.py --n 512 --steps 2000 --out diffusion.png

du/dt = alpha (d2u/dx2 + d2u/dy2) on the unit square, explicit Euler in
time. A hot square (or a Gaussian, --init gaussian) cools towards walls held
at fixed values: the left wall at 1, the others at 0. The state is two
padded arrays of (n + 2g) x (n + 2g) points, g the stencil's ghost width;
the kernel reads u and writes the interior of u_next, then the two swap.
The ghost zones hold the wall values (Dirichlet): set once in both arrays,
never written by the kernel, so they stay as set.

Prints the variant, the time a step and the path of the picture (PNG, with
matplotlib; without it the final interior as a .npy file).
"""
import argparse
import pathlib
import sys
import time

try:
    import cupy as cp
except ImportError:
    sys.exit("diffusion_cupy.py needs CuPy (pip install cupy-cuda12x or cupy-cuda13x)")

import gpen


def heat_step_spec(order):
    """One Euler step u_next = u + alpha dt / h^2 (D2(u, x) + D2(u, y)),
    D2 central of `order` (2: 5 points, ghost 1; 4: 9 points, ghost 2)."""
    ghost = order // 2
    return {
        "name": f"heat_step2d_o{order}",
        "kind": "stencil",
        "description": "One explicit Euler step of the 2-D heat equation; the ghost zones hold the boundary values and are not written.",
        "dtype": "float64",
        "dims": 2,
        "fields": [
            {"name": "u", "role": "input", "ghost": ghost},
            {"name": "u_next", "role": "output", "ghost": ghost},
        ],
        "params": [{"name": "alpha_dt_h2", "value": 0.1, "description": "alpha dt / h^2"}],
        "operators": [{"name": "D2", "derivative": 2, "order": order}],
        "outputs": [{"field": "u_next", "expr": "u + alpha_dt_h2 * (D2(u, x) + D2(u, y))"}],
    }


# Forward Euler is stable for alpha dt / h^2 <= 2 / (dims * max |symbol of D2|):
# |symbol| at the highest frequency is 4 for order 2 and 16/3 for order 4,
# so in 2-D the limits are 1/4 and 3/16.
STABLE_LIMIT = {2: 1 / 4, 4: 3 / 16}


def initial_state(n, g, kind, dtype):
    """The padded initial array: interior values and wall ghosts."""
    u = cp.zeros((n + 2 * g, n + 2 * g), dtype=dtype)
    c = (cp.arange(n, dtype=dtype) + 0.5) / n  # cell centres in (0, 1)
    y, x = cp.meshgrid(c, c, indexing="ij")
    inner = u[g:g + n, g:g + n]
    if kind == "gaussian":
        inner[...] = cp.exp(-((x - 0.6) ** 2 + (y - 0.5) ** 2) / (2 * 0.05 ** 2))
    else:
        inner[...] = ((abs(x - 0.6) < 0.15) & (abs(y - 0.5) < 0.15)).astype(dtype)
    u[:, :g] = 1.0  # the left wall (x < 0) held at 1; the others stay 0
    return u


def save_picture(interior, out, title):
    """A PNG of the interior at `out`, or the array as .npy without matplotlib.
    Returns the path written."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        path = out.with_suffix(".npy")
        import numpy as np
        np.save(path, interior)
        print("matplotlib is not installed: saved the interior as a NumPy array instead", file=sys.stderr)
        return path
    fig, ax = plt.subplots(figsize=(6, 5))
    im = ax.imshow(interior, origin="lower", extent=(0, 1, 0, 1), cmap="inferno", vmin=0, vmax=1)
    fig.colorbar(im, ax=ax, label="u")
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title(title)
    fig.savefig(out, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=512, help="interior points along each axis (default 512)")
    ap.add_argument("--steps", type=int, default=2000, help="time steps (default 2000)")
    ap.add_argument("--out", default="diffusion.png", help="the picture (default diffusion.png)")
    ap.add_argument("--order", type=int, choices=(2, 4), default=4, help="order of the second differences (default 4)")
    ap.add_argument("--cfl", type=float, default=0.9, help="alpha dt / h^2 as a fraction of the stable limit (default 0.9)")
    ap.add_argument("--init", choices=("square", "gaussian"), default="square")
    ap.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    a = ap.parse_args()
    if a.n < 1 or a.steps < 0:
        ap.error("--n must be at least 1 and --steps at least 0")

    ok, why = gpen.gpu_available()
    if not ok:
        sys.exit(f"no GPU: {why}")

    spec = gpen.load_spec(heat_step_spec(a.order), dtype=a.dtype)
    g = spec.fields[0]["ghost"]
    k = gpen.Kernel(spec, size=(a.n, a.n))  # the tuned variant for this size, if gpen tune stored one
    alpha = 1.0
    h = 1.0 / a.n
    r = a.cfl * STABLE_LIMIT[a.order]  # alpha dt / h^2
    dt = r * h * h / alpha

    u = initial_state(a.n, g, a.init, a.dtype)
    u_next = u.copy()  # the same wall ghosts: the kernel writes only the interior

    k(u=u, u_next=u_next, alpha_dt_h2=r)  # a first launch outside the timing; the loop's first step rewrites u_next
    cp.cuda.get_current_stream().synchronize()

    start, stop = cp.cuda.Event(), cp.cuda.Event()
    t0 = time.perf_counter()
    start.record()
    for _ in range(a.steps):
        k(u=u, u_next=u_next, alpha_dt_h2=r)
        u, u_next = u_next, u
    stop.record()
    stop.synchronize()
    wall_s = time.perf_counter() - t0
    gpu_ms = cp.cuda.get_elapsed_time(start, stop)

    interior = cp.asnumpy(u[g:g + a.n, g:g + a.n])
    title = f"t = {a.steps * dt:.3g} ({a.steps} steps, {a.n}x{a.n}, order {a.order})"
    path = save_picture(interior, pathlib.Path(a.out), title)

    print(f"kernel:  {spec.name} ({k.variant}){' tuned' if k.tuned else ''}")
    print(f"steps:   {a.steps} of dt = {dt:.3g} (alpha dt / h^2 = {r:.4g}, stable up to {STABLE_LIMIT[a.order]:.4g})")
    if a.steps:
        per_step_us = 1e3 * gpu_ms / a.steps
        print(f"time:    {per_step_us:.1f} us a step on the GPU, {1e6 * wall_s / a.steps:.1f} us a step wall "
              f"({a.n * a.n * a.steps / (1e-3 * gpu_ms) / 1e6:.0f} million points a second)")
    print(f"u:       min {interior.min():.4g}  max {interior.max():.4g}  mean {interior.mean():.4g}")
    print(f"wrote:   {path}")


if __name__ == "__main__":
    main()
