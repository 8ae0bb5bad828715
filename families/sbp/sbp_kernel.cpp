#include "gpen/families/sbp/sbp_kernel.hpp"

#include <cmath>

#include <fmt/format.h>

#include "gpen/families/sbp/device/sbp_args.h"

namespace gpen {

void check_sbp_lengths(const Spec& spec, const std::array<long long, 3>& shape) {
  const long long need = spec.sbp().min_length();
  for (int a : spec.sbp().axes)
    if (shape[a] < need)
      throw BindingError(fmt::format("spec '{}': {} points along {}, but the operator needs at least {} ({} closure rows at each end, "
                                     "each reaching {} points, must not overlap)",
                                     spec.name, shape[a], axis_name(a), need, spec.sbp().rows(), spec.sbp().left_width()));
}

std::array<double, 3> sbp_scales(const Spec& spec, const ParamValues& params) {
  std::array<double, 3> s{0, 0, 0};
  for (std::size_t i = 0; i < spec.sbp().axes.size(); ++i) {
    double h = 1;
    if (const int k = spec.sbp().spacing[i]; k >= 0) {
      const ParamDecl& p = spec.params[k];
      h = params.count(p.name) ? params.at(p.name) : p.value;
    }
    s[spec.sbp().axes[i]] = 1 / std::pow(h, spec.sbp().derivative);
  }
  return s;
}

SbpKernel::SbpKernel(const Spec& spec, Variant variant, const Context& ctx, KernelCache& cache)
    : Kernel(spec, std::move(variant), ctx, cache) {
  check_block_fits(function(), plan().threads(), "use a smaller block_x * block_y");
}

void SbpKernel::launch(const FieldBindings& fields, const ParamValues& params, CUstream stream) const {
  const auto shape = check_bindings(spec_, fields, params, Pitches::Any);
  check_sbp_lengths(spec_, shape);
  LaunchDims d;
  try {
    d = plan().launch(shape);
  } catch (const std::invalid_argument& e) {
    throw BindingError(fmt::format("spec '{}' ({}): {}", spec_.name, source_.name, e.what()));
  }
  SbpArgs<void> a{};
  a.in = device_pointer(fields.at(spec_.inputs()[0]->name)->get());
  a.out = device_pointer(fields.at(spec_.output_fields()[0]->name)->get());
  for (int i = 0; i < 3; ++i) a.n[i] = shape[i];
  const Pitch in = fields.at(spec_.inputs()[0]->name)->pitch(), out = fields.at(spec_.output_fields()[0]->name)->pitch();
  a.in_pitch[0] = in.row;
  a.in_pitch[1] = in.plane;
  a.out_pitch[0] = out.row;
  a.out_pitch[1] = out.plane;
  const auto scale = sbp_scales(spec_, params);
  for (int i = 0; i < 3; ++i) a.scale[i] = scale[i];
  void* kernel_params[] = {&a};
  GPEN_CU(cuLaunchKernel(function(), d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1], d.block[2], 0, stream, kernel_params, nullptr),
          fmt::format("launching {} of spec '{}'", source_.name, spec_.name));
}

}  // namespace gpen
