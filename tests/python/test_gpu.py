"""The gpen module on a GPU, on CuPy arrays and PyTorch tensors: every shipped
spec gives what the C++ path gives on the same inputs, outputs are written
in place, launches follow the stream's order, views of padded or wider
arrays work, bad arrays are refused, nothing leaks over 10^5 launches, and
tune and simulate work from Python. Run by run_pytest.py gpu."""
import gc
import os
import pathlib
import resource
import subprocess
import sys

import numpy as np
import pytest

import gpen

ROOT = pathlib.Path(os.environ.get("GPEN_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
KERNEL_SPECS = sorted(p for kind in ("stencil", "scan", "sbp", "pairwise", "reduce") for p in (ROOT / "specs" / kind).glob("*.json"))
LAPLACIAN = ROOT / "specs" / "stencil" / "laplacian3d_o2.json"

if not gpen.gpu_available()[0]:
    pytest.skip(f"no GPU: {gpen.gpu_available()[1]}", allow_module_level=True)


class Library:
    """What a test needs of CuPy or PyTorch."""

    def __init__(self, name):
        self.name = name
        self.m = __import__(name)

    def device(self, a):
        return self.m.asarray(a) if self.name == "cupy" else self.m.as_tensor(a, device="cuda")

    def host(self, a):
        return self.m.asnumpy(a) if self.name == "cupy" else a.cpu().numpy()

    def ptr(self, a):
        return a.data.ptr if self.name == "cupy" else a.data_ptr()

    def synchronize(self):
        if self.name == "cupy":
            self.m.cuda.Device().synchronize()
        else:
            self.m.cuda.synchronize()

    def stream(self):
        return self.m.cuda.Stream(non_blocking=True) if self.name == "cupy" else self.m.cuda.Stream()

    def use(self, s):
        return s if self.name == "cupy" else self.m.cuda.stream(s)


def available():
    out = []
    for name in ("cupy", "torch"):
        try:
            __import__(name)
            out.append(name)
        except ImportError:
            pass
    return out


@pytest.fixture(params=available())
def lib(request):
    return Library(request.param)


def interior_for(spec):
    return {1: (1001,), 2: (45, 61), 3: (19, 21, 37)}[spec.dims]


def host_inputs(spec, rng, targets=1000, sources=700):
    """Random inputs (values in [0.5, 1.5]: logs and roots stay finite), padded,
    NumPy's order, in the fields' dtypes; outputs filled with NaN."""
    pairwise = spec.kind == "pairwise"
    interior = interior_for(spec)
    arrays = {}
    for f in spec.fields:
        g = f["ghost"]
        if pairwise and spec.dims == 1:
            shape = (sources if f.get("set") == "sources" else targets,)
        elif "reduced_axes" in f:
            shape = tuple(1 if a in f["reduced_axes"] else n for a, n in enumerate(interior))
        else:
            shape = tuple(n + 2 * g for n in interior)
        if f["role"] == "input":
            arrays[f["name"]] = (0.5 + rng.random(shape)).astype(f["dtype"])
        else:
            arrays[f["name"]] = np.full(shape, np.nan, dtype=f["dtype"])
    return arrays


def groups_for(spec, arrays):
    if not (spec.kind == "pairwise" and "grouped" in spec.generate()):
        return None
    n = len(next(iter(arrays.values())))
    half = n // 2
    # Two groups of targets; the first meets every source, the second two ranges.
    return gpen.PairGroups([0, half, n], [0, 1, 3], [0, n, 0, half // 2, half, n], targets=n, sources=n)


@pytest.mark.parametrize("path", KERNEL_SPECS, ids=lambda p: p.stem)
def test_every_shipped_spec_is_what_the_cpp_path_gives(path, lib):
    spec = gpen.load_spec(path)
    rng = np.random.default_rng(7)
    arrays = host_inputs(spec, rng)
    k = gpen.Kernel(spec)
    groups = groups_for(spec, arrays)
    extra = {"groups": groups} if groups else {}
    cpp = k._launch_copies({n: a for n, a in arrays.items() if n in [f["name"] for f in spec.fields if f["role"] == "input"]}, **extra)
    dev = {n: lib.device(a) for n, a in arrays.items()}
    ptrs = {n: lib.ptr(a) for n, a in dev.items()}
    returned = k(**dev, **extra)
    outputs = [f["name"] for f in spec.fields if f["role"] == "output"]
    returned = returned if isinstance(returned, tuple) else (returned,)
    lib.synchronize()
    for name, r in zip(outputs, returned):
        assert r is dev[name] and lib.ptr(r) == ptrs[name], "the output given is the one written, in place"
        got = lib.host(dev[name]).astype(np.float64)
        want = cpp[name]
        assert got.shape == want.shape
        assert np.isnan(got).sum() == np.isnan(want).sum(), f"{name}: the same points written (NaN poison elsewhere)"
        written = ~np.isnan(want)
        assert written.any()
        if spec.kind == "scan":  # look-back combines blocks in the order they finish: close, not bitwise
            tol = 1e-12 if spec.dtype == "float64" else 1e-5
            np.testing.assert_allclose(got[written], want[written], rtol=tol, atol=tol * np.abs(want[written]).max())
        else:
            assert np.array_equal(got[written], want[written]), f"{name}: bitwise as the C++ path"


def numpy_laplacian(u):
    c = u[1:-1, 1:-1, 1:-1]
    return (u[2:, 1:-1, 1:-1] + u[:-2, 1:-1, 1:-1] + u[1:-1, 2:, 1:-1] + u[1:-1, :-2, 1:-1] + u[1:-1, 1:-1, 2:] + u[1:-1, 1:-1, :-2] - 6 * c)


def test_a_laplacian_against_numpy(lib):
    u = np.random.default_rng(1).random((21, 35, 67))
    k = gpen.Kernel(LAPLACIAN, size=(19, 33, 65))
    lap = k(u=lib.device(u), inv_h2=4.0)
    np.testing.assert_allclose(lib.host(lap), 4.0 * numpy_laplacian(u), rtol=1e-13, atol=1e-13)
    assert lap.shape == (19, 33, 65)


def test_params_default_to_the_specs(lib):
    u = np.random.default_rng(2).random((10, 11, 12))
    k = gpen.Kernel(LAPLACIAN)
    np.testing.assert_allclose(lib.host(k(u=lib.device(u))), numpy_laplacian(u), rtol=1e-13, atol=1e-13)


def test_a_reduction_gives_a_device_array_or_a_float(lib):
    spec = gpen.load_spec(ROOT / "specs" / "reduce" / "sum3d.json")
    name_in = next(f["name"] for f in spec.fields if f["role"] == "input")
    u = np.random.default_rng(3).random(tuple(n + 2 * spec.fields[0]["ghost"] for n in (33, 20, 17)))
    k = gpen.Kernel(spec)
    d = u.reshape(u.shape)
    res = k(**{name_in: lib.device(d)})
    first = res[0] if isinstance(res, tuple) else res
    assert tuple(first.shape) == (1, 1, 1)
    host = k(**{name_in: lib.device(d)}, host=True)
    value = host[0] if isinstance(host, tuple) else host
    assert isinstance(value, float)
    assert value == pytest.approx(float(lib.host(first).ravel()[0]), rel=0, abs=0)


def test_outputs_not_given_are_made_in_the_inputs_library(lib):
    u = np.random.default_rng(10).random((6, 7, 8))
    lap = gpen.Kernel(LAPLACIAN)(u=lib.device(u))
    assert type(lap) is type(lib.device(u)) and tuple(lap.shape) == (4, 5, 6)
    np.testing.assert_allclose(lib.host(lap), numpy_laplacian(u), rtol=1e-13, atol=1e-13)


def test_outputs_made_for_an_explicit_stream_follow_it(lib):
    u = np.random.default_rng(11).random((66, 66, 66))
    s = lib.stream()
    lap = gpen.Kernel(LAPLACIAN)(u=lib.device(u), stream=s)  # made and zeroed in s, then written in s
    s.synchronize()
    np.testing.assert_allclose(lib.host(lap), numpy_laplacian(u), rtol=1e-13, atol=1e-13)


def test_several_outputs_come_back_as_floats(lib):
    spec = gpen.load_spec(ROOT / "specs" / "reduce" / "mass_energy.json")
    arrays = {n: lib.device(a) for n, a in host_inputs(spec, np.random.default_rng(12)).items()
              if n in [f["name"] for f in spec.fields if f["role"] == "input"]}
    k = gpen.Kernel(spec)
    on_device = k(**arrays)
    on_host = k(**arrays, host=True)
    assert isinstance(on_host, tuple) and len(on_host) == len(on_device) >= 2
    for d, h in zip(on_device, on_host):
        assert isinstance(h, float) and h == float(lib.host(d).ravel()[0])


def test_float32_specs_take_float32_arrays_only(lib):
    k = gpen.Kernel(gpen.load_spec(LAPLACIAN, dtype="float32"))
    u = np.random.default_rng(4).random((9, 9, 9)).astype(np.float32)
    lap = k(u=lib.device(u))
    np.testing.assert_allclose(lib.host(lap), numpy_laplacian(u.astype(np.float64)), rtol=1e-5, atol=1e-5)
    with pytest.raises(gpen.BindingError, match="field 'u': a float64 array; the spec 'laplacian3d_o2' says float32"):
        k(u=lib.device(u.astype(np.float64)))


def test_bad_arrays_are_refused(lib):
    k = gpen.Kernel(LAPLACIAN)
    with pytest.raises(gpen.BindingError, match="host array"):
        k(u=np.zeros((6, 6, 6)))
    with pytest.raises(gpen.BindingError, match="last axis has a stride of 2"):
        k(u=lib.device(np.zeros((6, 6, 12)))[:, :, ::2])
    with pytest.raises(gpen.BindingError, match=r"field 'lap': shape \(4, 4, 5\); expected \(4, 4, 4\)|not the interior"):
        k(u=lib.device(np.zeros((6, 6, 6))), lap=lib.device(np.zeros((4, 4, 5))))
    with pytest.raises(gpen.BindingError, match="dtype"):
        k(u=lib.device(np.zeros((6, 6, 6), dtype=np.int32)))
    with pytest.raises(gpen.BindingError, match="no field or param named 'inv_h'"):
        k(u=lib.device(np.zeros((6, 6, 6))), inv_h=1.0)
    with pytest.raises(gpen.BindingError, match="param 'inv_h2' is 'x'; expected a finite number"):
        k(u=lib.device(np.zeros((6, 6, 6))), inv_h2="x")
    if lib.name == "torch":
        with pytest.raises(gpen.BindingError, match="host array"):
            k(u=lib.m.zeros((6, 6, 6), dtype=lib.m.float64))


def test_pitched_and_wider_arrays_are_views(lib):
    rng = np.random.default_rng(5)
    big = rng.random((14, 16, 44))
    k = gpen.Kernel(LAPLACIAN)
    # A slice of a larger array: rows and planes of the big array's pitch.
    u = big[1:11, 2:12, 3:23]
    got = k(u=lib.device(big)[1:11, 2:12, 3:23])
    np.testing.assert_allclose(lib.host(got), numpy_laplacian(u), rtol=1e-13, atol=1e-13)
    # The same interior inside ghost zones of 2 (the spec needs 1), the wide
    # array itself a slice of the big one (an offset and pitches): said by
    # ghost= (the output made), by a dict, or by the kernel's size.
    wide_host = big[0:12, 1:13, 2:24]
    want = numpy_laplacian(wide_host[1:-1, 1:-1, 1:-1])
    wide = lib.device(big)[0:12, 1:13, 2:24]
    np.testing.assert_allclose(lib.host(k(u=wide, ghost=2)), want, rtol=1e-13, atol=1e-13)
    out = lib.device(np.full((8, 8, 18), np.nan))
    k(u=wide, lap=out, ghost={"u": 2})
    np.testing.assert_allclose(lib.host(out), want, rtol=1e-13, atol=1e-13)
    sized = gpen.Kernel(LAPLACIAN, size=(8, 8, 18))
    np.testing.assert_allclose(lib.host(sized(u=wide)), want, rtol=1e-13, atol=1e-13)
    view = {v["field"]: v for v in LAPLACIAN_SPEC().bind(u=wide, lap=out, ghost={"u": 2})}
    pz, py = 16 * 44, 44
    assert view["u"]["pitch"] == (py, pz) and view["u"]["offset"] == 1 * pz + 1 * py + 1
    assert view["lap"]["packed"] and view["lap"]["offset"] == 0


def LAPLACIAN_SPEC():
    return gpen.load_spec(LAPLACIAN)


def test_a_launch_follows_its_stream(lib):
    n = 192
    u = lib.device(np.random.default_rng(6).random((n + 2, n + 2, n + 2)))
    k = gpen.Kernel(LAPLACIAN, size=(n, n, n))
    want = lib.host(k(u=u))
    for explicit in (False, True):
        s = lib.stream()
        lap = lib.device(np.full((n, n, n), np.nan))
        lib.synchronize()
        if explicit:  # s is not current: stream= alone puts the launch there
            for _ in range(3):
                k(u=u, lap=lap, stream=s)
            with lib.use(s):
                copy = lap.copy() if lib.name == "cupy" else lap.clone()
        else:
            with lib.use(s):  # s current: the launches and the copy after them, queued on s only
                for _ in range(3):
                    k(u=u, lap=lap)
                copy = lap.copy() if lib.name == "cupy" else lap.clone()
        s.synchronize()
        assert np.array_equal(lib.host(copy), want)


class InterfaceOnly:
    """A CuPy array seen through __cuda_array_interface__ alone, naming a producer stream."""

    def __init__(self, a, stream):
        self.a = a
        self.__cuda_array_interface__ = dict(a.__cuda_array_interface__, stream=stream)


def test_an_interface_array_waits_for_its_producer_stream():
    cupy = pytest.importorskip("cupy")
    n = 256
    producer, launch = cupy.cuda.Stream(non_blocking=True), cupy.cuda.Stream(non_blocking=True)
    k = gpen.Kernel(LAPLACIAN, size=(n, n, n))
    lap = cupy.full((n, n, n), np.nan)
    u = cupy.full((n + 2, n + 2, n + 2), np.nan)  # NaN until the producer writes it
    x = cupy.arange(n + 2, dtype=cupy.float64)

    def produce():
        with producer:  # about 5 ms of work, u written last
            busy = cupy.ones((n + 2, n + 2, n + 2))
            for _ in range(60):
                busy = busy * 1.0
            cupy.multiply((x * x)[None, None, :], busy, out=u)  # x^2: its Laplacian is 2

    produce()  # once first, so that no kernel load (which waits for the GPU) comes in the timed one
    u.fill(np.nan)
    cupy.cuda.Device().synchronize()
    produce()
    k(u=InterfaceOnly(u, producer.ptr), lap=lap, stream=launch)
    launch.synchronize()
    assert float(lap.min()) == 2.0 and float(lap.max()) == 2.0
    with pytest.raises(gpen.BindingError, match="stream 0"):
        k(u=InterfaceOnly(u, 0), lap=lap)


class DLPackOnly:
    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_an_array_seen_through_dlpack_only(lib):
    u = np.random.default_rng(8).random((9, 10, 11))
    k = gpen.Kernel(LAPLACIAN)
    lap = lib.device(np.full((7, 8, 9), np.nan))
    k(u=DLPackOnly(lib.device(u)), lap=DLPackOnly(lap))
    np.testing.assert_allclose(lib.host(lap), numpy_laplacian(u), rtol=1e-13, atol=1e-13)


def rss_kib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def test_no_leak_over_100000_launches(lib):
    k = gpen.Kernel(LAPLACIAN, size=(8, 8, 8))
    u = lib.device(np.random.default_rng(9).random((10, 10, 10)))
    lap = lib.device(np.zeros((8, 8, 8)))
    for _ in range(2000):
        k(u=u, lap=lap, inv_h2=1.0)
    lib.synchronize()
    gc.collect()
    free_before = lib.m.cuda.runtime.memGetInfo()[0] if lib.name == "cupy" else lib.m.cuda.mem_get_info()[0]
    rss_before = rss_kib()
    for _ in range(100_000):
        k(u=u, lap=lap, inv_h2=1.0)
    lib.synchronize()
    gc.collect()
    free_after = lib.m.cuda.runtime.memGetInfo()[0] if lib.name == "cupy" else lib.m.cuda.mem_get_info()[0]
    assert rss_kib() - rss_before < 4096, "host memory grew by more than 4 MiB over 10^5 launches"
    assert free_before - free_after < (2 << 20), "device memory shrank by more than 2 MiB over 10^5 launches"


def test_tune_then_the_kernel_takes_its_best(tmp_path, monkeypatch):
    spec = gpen.load_spec(LAPLACIAN)
    r = gpen.tune(spec, size=(40, 48, 64), time=8, progress=True)
    assert r["best"] is not None and r["saved"]
    k = gpen.Kernel(spec, size=(40, 48, 64))
    assert k.tuned is not None
    assert k.tunables == r["best"]["tunables"]
    assert gpen.Kernel(spec, size=(40, 48, 64), tuned=False).tuned is None


def test_simulate_on_the_gpu_matches_the_cpu():
    program = str(ROOT / "specs" / "programs" / "sound_wave3d.json")
    gpu = gpen.simulate(program, steps=4, size=(12, 10, 16), progress=False)
    cpu = gpen.simulate(program, steps=4, size=(12, 10, 16), device="cpu", progress=False)
    assert gpu["step"] == cpu["step"] == 4 and gpu["time"] == pytest.approx(cpu["time"], rel=1e-12)
    for name, a in cpu["fields"].items():
        np.testing.assert_allclose(gpu["fields"][name], a, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("order", ["gpen first", "gpen last"])
def test_gpen_imports_beside_cupy_and_torch_in_any_order(order):
    libraries = available()
    modules = ["gpen"] + libraries if order == "gpen first" else libraries + ["gpen"]
    code = "; ".join(f"import {m}" for m in modules) + "; print('imported')"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "imported" in r.stdout, f"{code}: {r.returncode} {r.stderr[-500:]}"
