#include "gpen/families/reduce/reduce_kernel.hpp"

#include <cstddef>
#include <cstring>

#include <fmt/format.h>

#include "gpen/families/reduce/device/reduce_args.h"

namespace gpen {
namespace {

// reduce_args_layout() is C++'s layout of ReduceArgsOf, for a spread of counts and both reals.
template <class real, int NumIn, int NumOut, int NumParams>
constexpr bool layout_is_the_structs() {
  using A = ReduceArgsOf<real, double, NumIn, NumOut, NumParams>;
  constexpr ReduceArgsLayout l = reduce_args_layout(NumIn, NumOut, NumParams, sizeof(real));
  return offsetof(A, partial) == l.partial && offsetof(A, in) == l.in && offsetof(A, out) == l.out && offsetof(A, in_pitch) == l.in_pitch &&
         offsetof(A, out_pitch) == l.out_pitch && offsetof(A, params) == l.params && sizeof(A) == l.size;
}
template <class real>
constexpr bool layout_is_the_structs() {
  return layout_is_the_structs<real, 1, 1, 0>() && layout_is_the_structs<real, 1, 1, 1>() && layout_is_the_structs<real, 2, 3, 3>() &&
         layout_is_the_structs<real, 4, 2, 5>() && layout_is_the_structs<real, 7, 5, 4>() && layout_is_the_structs<real, 16, 8, 16>();
}
static_assert(layout_is_the_structs<float>() && layout_is_the_structs<double>(), "reduce_args_layout() is ReduceArgsOf's layout");

}  // namespace

ReduceKernel::ReduceKernel(const Spec& spec, Variant variant, const Context& ctx, KernelCache& cache)
    : Kernel(spec, std::move(variant), ctx, cache), final_(module_.function(plan().final_kernel_name)) {
  check_block_fits(function(), plan().threads(), "use a smaller block_x * block_y");
  check_block_fits(final_, kReduceFinalThreads, "(the final kernel's block is fixed)");
}

void ReduceKernel::prepare(const std::array<long long, 3>& shape) const {
  check_extents(shape);
  const ReducePlan& p = plan();
  const ReduceGeometryArgs g = p.geometry(shape);
  if (g.partials == 1) return;
  const std::size_t acc = size_of(accumulator_dtype(spec_));
  const std::size_t need = static_cast<std::size_t>(p.result_points(shape) * g.partials) * spec_.outputs.size() * acc;
  if (need > partial_bytes_) {
    partials_ = DeviceMemory(need);
    partial_bytes_ = need;
  }
}

void ReduceKernel::launch(const FieldBindings& fields, const ParamValues& params, CUstream stream) const {
  const auto shape = check_bindings(spec_, fields, params, Pitches::Any);
  const ReducePlan& p = plan();
  const ReduceGeometryArgs g = p.geometry(shape);  // extents of 1 or more (check_bindings)
  const LaunchDims d = p.launch(g);
  if (g.x_blocks * g.chunks * g.kept_rows > 0x7fffffffLL)
    throw BindingError(fmt::format("spec '{}': {} blocks exceed the grid limit; use a larger points_per_thread", spec_.name, g.x_blocks * g.chunks * g.kept_rows));
  prepare(shape);  // the extents checked, the partials there
  const auto outs = spec_.output_fields();
  const auto ins = spec_.inputs();
  const std::size_t real = size_of(spec_.dtype);
  const ReduceArgsLayout l = reduce_args_layout(static_cast<int>(ins.size()), static_cast<int>(outs.size()), static_cast<int>(spec_.params.size()),
                                                static_cast<int>(real));
  std::vector<unsigned char> args(l.size, 0);
  auto put = [&](std::size_t at, const auto& v) { std::memcpy(args.data() + at, &v, sizeof v); };
  put(0, g);
  put(l.partial, device_pointer(g.partials > 1 ? partials_.get() : 0));
  for (std::size_t i = 0; i < ins.size(); ++i) put(l.in + sizeof(void*) * i, device_pointer(fields.at(ins[i]->name)->get()));
  for (std::size_t i = 0; i < outs.size(); ++i) put(l.out + sizeof(void*) * i, device_pointer(fields.at(outs[i]->name)->get()));
  for (std::size_t i = 0; i < ins.size(); ++i) put(l.in_pitch + sizeof(Pitch) * i, fields.at(ins[i]->name)->pitch());
  for (std::size_t i = 0; i < outs.size(); ++i) put(l.out_pitch + sizeof(Pitch) * i, fields.at(outs[i]->name)->pitch());
  put_params(spec_, params, args.data(), l.params);
  void* kernel_params[] = {args.data()};
  GPEN_CU(cuLaunchKernel(function(), d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1], d.block[2], 0, stream, kernel_params, nullptr),
          fmt::format("launching {} of spec '{}'", source_.name, spec_.name));
  if (g.partials > 1) {
    const LaunchDims f = p.final_launch(g);
    GPEN_CU(cuLaunchKernel(final_, f.grid[0], f.grid[1], f.grid[2], f.block[0], f.block[1], f.block[2], 0, stream, kernel_params, nullptr),
            fmt::format("launching the final combination of spec '{}'", spec_.name));
  }
}

}  // namespace gpen
