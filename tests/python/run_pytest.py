"""CTest's entry to the Python tests: `run_pytest.py cpu` runs test_cpu.py;
`run_pytest.py gpu` runs test_gpu.py, or prints "[SKIP] <why>" and exits
77 (CTest: skipped) where there is no GPU or neither CuPy nor PyTorch."""
import pathlib
import sys

here = pathlib.Path(__file__).resolve().parent
which = sys.argv[1] if len(sys.argv) > 1 else "cpu"
try:
    import pytest
except ImportError:
    print("python3-pytest is not installed (apt-get install python3-pytest)", file=sys.stderr)
    sys.exit(1)
if which == "gpu":
    import gpen

    ok, why = gpen.gpu_available()
    if not ok:
        print(f"[SKIP] the Python GPU tests: {why}")
        sys.exit(77)
    import importlib.util

    if not any(importlib.util.find_spec(name) for name in ("cupy", "torch")):
        print("[SKIP] the Python GPU tests: neither CuPy nor PyTorch can be imported")
        sys.exit(77)
sys.exit(pytest.main(["-q", "-rs", "-p", "no:cacheprovider", str(here / f"test_{which}.py")] + sys.argv[2:]))
