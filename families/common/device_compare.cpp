#include "gpen/families/common/device_compare.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpen/families/common/spec_program.hpp"
#include "gpen/families/common/kernel.hpp"
#include "gpen/families/common/utility_units.hpp"

namespace gpen {
namespace {
constexpr int kStats = 5;      // as gpen::kCompareStats in families/common/device/compare.cuh
constexpr int kThreads = 256;  // as gpen::kCompareThreads
}  // namespace

DeviceComparer::DeviceComparer(Dtype dtype, const Context& ctx, KernelCache& cache)
    : dtype_(dtype),
      source_(generate_compare(dtype)),
      compiled_(cache.get(source_program(source_, "compare"), ctx.info().arch())),
      module_(compiled_.kernel.cubin, source_.kernel_name, source_.name),
      blocks_(static_cast<unsigned>(ctx.info().sm_count * 4)),
      partials_(blocks_ * kStats * sizeof(double)) {}

Comparison DeviceComparer::compare(const DeviceBuffer& got, const DeviceBuffer& want, double tolerance, CUstream stream) const {
  if (got.dtype() != dtype_ || want.dtype() != dtype_ || got.shape() != want.shape() || got.ghost() != want.ghost() ||
      got.dims() != want.dims())
    throw BindingError(fmt::format("device comparison of buffers that differ in dtype, shape or ghost width (comparer built for {})",
                                   to_string(dtype_)));
  CUdeviceptr a = got.get(), b = want.get(), p = partials_.get();
  long long n[3] = {got.shape()[0], got.shape()[1], got.shape()[2]};
  int dims = got.dims(), g = got.ghost();
  void* params[] = {&a, &b, &n[0], &n[1], &n[2], &dims, &g, &p};
  GPEN_CU(cuLaunchKernel(module_.function(), blocks_, 1, 1, kThreads, 1, 1, 0, stream, params, nullptr), "launching the device comparison");
  GPEN_CU(cuStreamSynchronize(stream), "waiting for the device comparison");
  std::vector<double> part(blocks_ * kStats);
  GPEN_CU(cuMemcpyDtoH(part.data(), p, part.size() * sizeof(double)), "copying the comparison's partial results");
  double s[kStats] = {0, 0, 0, 0, 0};
  for (unsigned blk = 0; blk < blocks_; ++blk)
    for (int q = 0; q < kStats; ++q) s[q] = q == 2 ? std::max(s[q], part[blk * kStats + q]) : s[q] + part[blk * kStats + q];
  Comparison c;
  c.rel_l2 = s[1] > 0 ? std::sqrt(s[0] / s[1]) : std::sqrt(s[0]);
  c.max_abs = s[2];
  c.non_finite = static_cast<long long>(s[3]);
  c.ghost_changed = static_cast<long long>(s[4]);
  c.tolerance = tolerance;
  c.worst = {-1, -1, -1};
  c.pass = c.non_finite == 0 && c.ghost_changed == 0 && c.rel_l2 <= tolerance;
  return c;
}

}  // namespace gpen
