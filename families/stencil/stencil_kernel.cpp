#include "gpen/families/stencil/stencil_kernel.hpp"

#include "gpen/families/common/spec_program.hpp"
#include "gpen/generator/tunables.hpp"

#include <chrono>
#include <cstddef>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "gpen/families/stencil/device/stencil_args.h"

namespace gpen {

namespace {

// stencil_args_layout() is C++'s layout of StencilArgsOf, here for any
// counts of fields and params: checked for a spread of counts and both reals.
template <class real, int NumIn, int NumOut, int NumParams>
constexpr bool layout_is_the_structs() {
  using A = StencilArgsOf<real, NumIn, NumOut, NumParams>;
  constexpr StencilArgsLayout l = stencil_args_layout(NumIn, NumOut, NumParams, sizeof(real));
  return offsetof(A, in) == l.in && offsetof(A, out) == l.out && offsetof(A, in_pitch) == l.in_pitch && offsetof(A, out_pitch) == l.out_pitch &&
         offsetof(A, n) == l.extent && offsetof(A, params) == l.params &&
         sizeof(A) == l.size;
}
template <class real>
constexpr bool layout_is_the_structs() {
  return layout_is_the_structs<real, 0, 1, 0>() && layout_is_the_structs<real, 1, 1, 0>() && layout_is_the_structs<real, 1, 1, 1>() &&
         layout_is_the_structs<real, 2, 1, 3>() && layout_is_the_structs<real, 4, 3, 2>() && layout_is_the_structs<real, 5, 2, 7>() &&
         layout_is_the_structs<real, 7, 5, 4>() && layout_is_the_structs<real, 16, 8, 16>();
}
static_assert(layout_is_the_structs<float>() && layout_is_the_structs<double>(), "stencil_args_layout() is StencilArgsOf's layout");

// The bytes of StencilArgs<B> for this spec: pointers to its inputs and
// outputs, their pitches, the kernel's extent, the params in the spec's real.
// A field's pitch along the kernel's y and z axes (stencil_kernel_axis):
// the array's own along the user axis that the kernel axis is, and where
// none is (2-D: the kernel's y; 1-D: y and z) the one a packed array has
// there, so that the kernel sees a packed array along its axes of extent 1.
Pitch kernel_pitch(const StencilPlan& plan, const DeviceBuffer& b) {
  const long long user[3] = {1, b.pitch().row, b.pitch().plane};
  long long k[3] = {1, 0, 0};
  for (int ax = 0; ax < b.dims(); ++ax) k[plan.kernel_axis[ax]] = user[ax];
  if (k[1] == 0) k[1] = b.pitch().row;
  if (k[2] == 0) k[2] = k[1];
  return {k[1], k[2]};
}

std::vector<unsigned char> pack_args(const Spec& spec, const StencilPlan& plan, const FieldBindings& fields, const ParamValues& params,
                                     const std::array<long long, 3>& kernel_extent) {
  const std::size_t real = size_of(spec.dtype);
  const auto ins = spec.inputs();
  const auto outs = spec.output_fields();
  const StencilArgsLayout l = stencil_args_layout(static_cast<int>(ins.size()), static_cast<int>(outs.size()),
                                                  static_cast<int>(spec.params.size()), static_cast<int>(real));
  std::vector<unsigned char> bytes(l.size, 0);
  auto put = [&](std::size_t at, const auto& v) { std::memcpy(bytes.data() + at, &v, sizeof v); };
  for (std::size_t i = 0; i < ins.size(); ++i) put(l.in + sizeof(void*) * i, device_pointer(fields.at(ins[i]->name)->get()));
  for (std::size_t i = 0; i < outs.size(); ++i) put(l.out + sizeof(void*) * i, device_pointer(fields.at(outs[i]->name)->get()));
  for (std::size_t i = 0; i < ins.size(); ++i) put(l.in_pitch + sizeof(Pitch) * i, kernel_pitch(plan, *fields.at(ins[i]->name)));
  for (std::size_t i = 0; i < outs.size(); ++i) put(l.out_pitch + sizeof(Pitch) * i, kernel_pitch(plan, *fields.at(outs[i]->name)));
  put(l.extent, Extent{static_cast<int>(kernel_extent[0]), static_cast<int>(kernel_extent[1]), static_cast<int>(kernel_extent[2])});
  put_params(spec, params, bytes.data(), l.params);
  return bytes;
}

}  // namespace

StencilKernel::StencilKernel(const Spec& spec, Variant variant, const Context& ctx, KernelCache& cache)
    : Kernel(spec, std::move(variant), ctx, cache), ctx_(ctx), cache_(cache) {
  if (!plan().clamped_kernel_name.empty()) clamped_ = module_.function(plan().clamped_kernel_name);
  for (CUfunction f : {function(), clamped_})
    if (f) check_block_fits(f, plan().threads(), "use a smaller block_x * block_y, or a smaller vector_x * rows_y");
  // The march's ring and the stage's planes live in dynamic shared memory;
  // more than 48 KiB a block needs the function's opt-in. The clamped entry
  // has no ring.
  if (const std::size_t ring = plan().dynamic_shared_bytes) {
    const int limit = ctx.info().max_shared_per_block_optin;
    if (ring > static_cast<std::size_t>(limit))
      throw std::runtime_error(fmt::format("spec '{}' ({}): the {} strategy's planes need {} bytes of shared memory a block, this GPU allows {}; "
                                           "use a smaller ring_ahead, block, vector_x or rows_y",
                                           spec.name, describe(spec.tunables, source_.choice), to_string(plan().strategy), ring, limit));
    GPEN_CU(cuFuncSetAttribute(function(), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(ring)),
            fmt::format("allowing {} bytes of dynamic shared memory to {} of spec '{}'", ring, source_.name, spec.name));
  }
}

bool fits_vector_runs(const StencilPlan& plan, const std::array<long long, 3>& kernel_extent, const FieldBindings& fields) {
  if (kernel_extent[1] < plan.rows_y) return false;
  const long long v = plan.vector_x;
  for (const auto& [name, b] : fields) {
    const Pitch pitch = kernel_pitch(plan, *b);
    if (b->ghost() % v != 0 || b->padded()[0] % v != 0 || pitch.row % v != 0 || pitch.plane % v != 0 || b->get() % static_cast<CUdeviceptr>(v * size_of(b->dtype())) != 0) return false;
  }
  return true;
}

bool shares_pitches(const Spec& spec, const StencilPlan& plan, const FieldBindings& fields) {
  auto pitch = [&](const FieldDecl* f) {
    const auto it = fields.find(f->name);
    if (it == fields.end() || !it->second) throw BindingError(fmt::format("spec '{}': field '{}' is not bound", spec.name, f->name));
    return kernel_pitch(plan, *it->second);
  };
  auto alike = [&](const std::vector<const FieldDecl*>& kind, const std::vector<std::array<int, 3>>& ghosts) {
    const std::vector<int> source = pitch_sources(ghosts, !plan.shared_pitches);
    for (std::size_t f = 0; f < kind.size(); ++f) {
      const Pitch own = pitch(kind[f]), used = pitch(kind[static_cast<std::size_t>(source[f])]);
      if (own.row != used.row || own.plane != used.plane) return false;
    }
    return true;
  };
  return alike(spec.inputs(), plan.in_ghost) && alike(spec.output_fields(), plan.out_ghost);
}

const StencilKernel& StencilKernel::kernel_for(const FieldBindings& fields) const {
  if (shares_pitches(spec_, plan(), fields)) return *this;
  std::call_once(own_pitches_once_, [&] {
    Variant own = source_;
    own.key = "own pitches";
    std::any_cast<StencilPlan&>(own.plan).shared_pitches = false;
    own_pitches_ = std::make_unique<StencilKernel>(spec_, std::move(own), ctx_, cache_);
  });
  return *own_pitches_;
}

void StencilKernel::launch(const FieldBindings& fields, const ParamValues& params, CUstream stream) const {
  const auto shape = check_bindings(spec_, fields, params, Pitches::Any);
  kernel_for(fields).launch_here(shape, fields, params, stream);
}

void StencilKernel::launch_here(const std::array<long long, 3>& shape, const FieldBindings& fields, const ParamValues& params, CUstream stream) const {
  const auto& plan = this->plan();
  check_extents(shape);
  const auto kext = plan.kernel_extent(shape);
  const LaunchDims d = plan.launch(shape);
  if (d.grid[1] > 65535 || d.grid[2] > 65535)
    throw BindingError(fmt::format("spec '{}': grid {}x{}x{} exceeds the 65535 limit on y/z; use a larger block_y or points_per_thread",
                                   spec_.name, d.grid[0], d.grid[1], d.grid[2]));
  std::vector<unsigned char> args = pack_args(spec_, plan, fields, params, kext);
  void* kernel_params[] = {args.data()};
  const CUfunction f = clamped_ && !fits_vector_runs(plan, kext, fields) ? clamped_ : function();
  const unsigned shared = f == function() ? static_cast<unsigned>(plan.dynamic_shared_bytes) : 0;
  GPEN_CU(cuLaunchKernel(f, d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1], d.block[2], shared, stream,
                         kernel_params, nullptr),
          fmt::format("launching {} of spec '{}'", source_.name, spec_.name));
}


}  // namespace gpen
