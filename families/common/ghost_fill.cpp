#include "gpen/families/common/ghost_fill.hpp"

#include <fmt/format.h>

#include "gpen/families/common/kernel.hpp"
#include "gpen/families/common/spec_program.hpp"
#include "gpen/families/common/utility_units.hpp"

namespace gpen {

PeriodicFill::PeriodicFill(Dtype dtype, const Context& ctx, KernelCache& cache)
    : dtype_(dtype),
      source_(generate_periodic_fill(dtype)),
      compiled_(cache.get(source_program(source_, "periodic_fill"), ctx.info().arch())),
      module_(compiled_.kernel.cubin, source_.kernel_name, source_.name),
      sm_count_(ctx.info().sm_count) {}

void PeriodicFill::launch(const DeviceBuffer& b, CUstream stream) const {
  if (b.dtype() != dtype_)
    throw BindingError(fmt::format("periodic fill: the buffer is {}, this fill kernel was built for {}", to_string(b.dtype()), to_string(dtype_)));
  if (b.ghost() == 0) return;
  CUdeviceptr p = b.get();
  long long n[3] = {b.shape()[0], b.shape()[1], b.shape()[2]};
  long long row = b.pitch().row, plane = b.pitch().plane;
  int dims = b.dims(), g = b.ghost();
  for (int axis = 0; axis < dims; ++axis) {
    if (n[axis] < g) throw BindingError(fmt::format("periodic fill: ghost width {} exceeds the interior extent {} along axis {}", g, n[axis], axis));
    void* params[] = {&p, &n[0], &n[1], &n[2], &row, &plane, &dims, &g, &axis};
    GPEN_CU(cuLaunchKernel(module_.function(), static_cast<unsigned>(sm_count_ * 8), 1, 1, 256, 1, 1, 0, stream, params, nullptr),
            "launching the periodic ghost fill");
  }
}

}  // namespace gpen
