"""gpen: kernel specs in JSON turned into specialised CUDA kernels.

    import gpen, cupy
    spec = gpen.load_spec("specs/stencil/laplacian3d_o2.json")
    k = gpen.Kernel(spec, size=(256, 256, 256))   # the tuned variant, if gpen tune stored one
    u = cupy.random.rand(258, 258, 258)           # interior and ghost zones, (z, y, x)
    lap = k(u=u, inv_h2=1.0)                      # an output made here; or k(u=u, lap=out) in place

Arrays are passed by field name: CuPy, PyTorch, or anything with
__cuda_array_interface__ or __dlpack__, in place, without a copy, on the
array library's current stream (or stream=...). Errors are Python
exceptions: SpecError (with pointer, line, column, expected), UsageError,
BindingError (wrong dtype, shape, strides, device, or a host array) and
NoDeviceError.
"""
from ._gpen import (  # noqa: F401
    BindingError,
    Kernel,
    NoDeviceError,
    PairGroups,
    Spec,
    SpecError,
    UsageError,
    gpu_available,
    load_spec,
    simulate,
    tune,
)



class _StreamHandle:
    """A raw CUDA stream handle, as the CUDA stream protocol hands it over
    (for CuPy's Stream.from_external, where gpen makes outputs in a stream
    given by handle)."""

    def __init__(self, handle):
        self.handle = handle

    def __cuda_stream__(self):
        return (0, self.handle)


__all__ = ["BindingError", "Kernel", "NoDeviceError", "PairGroups", "Spec", "SpecError", "UsageError",
           "gpu_available", "load_spec", "simulate", "tune"]
