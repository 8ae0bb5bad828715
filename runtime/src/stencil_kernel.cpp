#include "gpen/runtime/stencil_kernel.hpp"

#include "gpen/generator/tunables.hpp"

#include <chrono>
#include <cstring>
#include <set>

#include <fmt/format.h>

namespace gpen {

std::array<long long, 3> check_bindings(const Spec& spec, const FieldBindings& fields, const ParamValues& params) {
  const std::string where = fmt::format("spec '{}'", spec.name);
  for (const auto& [name, buf] : fields) {
    if (!spec.find_field(name)) {
      std::vector<std::string> names;
      for (const auto& f : spec.fields) names.push_back(f.name);
      throw BindingError(fmt::format("{}: no field named '{}' (fields: {})", where, name, fmt::join(names, ", ")));
    }
    if (!buf) throw BindingError(fmt::format("{}: field '{}' is bound to no buffer", where, name));
  }
  std::array<long long, 3> shape{0, 0, 0};
  const DeviceBuffer* first = nullptr;
  for (const auto& f : spec.fields) {
    auto it = fields.find(f.name);
    if (it == fields.end()) throw BindingError(fmt::format("{}: field '{}' ({}) is not bound", where, f.name, f.pointer));
    const DeviceBuffer& b = *it->second;
    if (b.dtype() != spec.dtype)
      throw BindingError(fmt::format("{}: field '{}' is {}, the spec says {}", where, f.name, to_string(b.dtype()), to_string(spec.dtype)));
    if (b.dims() != spec.dims)
      throw BindingError(fmt::format("{}: field '{}' is {}-D, the spec says {}-D", where, f.name, b.dims(), spec.dims));
    if (b.ghost() != f.ghost)
      throw BindingError(fmt::format("{}: field '{}' has ghost width {}, the spec says {} ({}/ghost)", where, f.name, b.ghost(), f.ghost, f.pointer));
    if (!first) {
      first = &b;
      shape = b.shape();
    } else if (b.shape() != shape) {
      throw BindingError(fmt::format("{}: field '{}' is {}x{}x{}, but '{}' is {}x{}x{}", where, f.name, b.shape()[0], b.shape()[1],
                                     b.shape()[2], spec.fields[0].name, shape[0], shape[1], shape[2]));
    }
  }
  for (int ax = 0; ax < 3; ++ax)
    if (shape[ax] < 1) throw BindingError(fmt::format("{}: empty arrays ({}x{}x{})", where, shape[0], shape[1], shape[2]));
  for (const auto& [name, value] : params) {
    (void)value;
    const bool known = std::any_of(spec.params.begin(), spec.params.end(), [&](const ParamDecl& p) { return p.name == name; });
    if (!known) throw BindingError(fmt::format("{}: no param named '{}'", where, name));
  }
  return shape;
}

namespace {

// Host image of gpen::StencilArgs<B> (templates/gpen/stencil_common.cuh):
// pointers to inputs, pointers to outputs, three ints, the params.
std::vector<unsigned char> pack_args(const Spec& spec, const FieldBindings& fields, const ParamValues& params,
                                     const std::array<long long, 3>& kernel_extent) {
  const std::size_t real = size_of(spec.dtype);
  const auto ins = spec.inputs();
  const auto outs = spec.output_fields();
  const std::size_t n_in = std::max<std::size_t>(1, ins.size());
  std::size_t off = 8 * (n_in + outs.size());
  const std::size_t extent_off = off;
  off += 12;
  off = (off + real - 1) / real * real;
  const std::size_t params_off = off;
  off += real * std::max<std::size_t>(1, spec.params.size());
  std::vector<unsigned char> bytes((off + 7) / 8 * 8, 0);
  auto put_ptr = [&](std::size_t at, CUdeviceptr p) { std::memcpy(bytes.data() + at, &p, 8); };
  for (std::size_t i = 0; i < ins.size(); ++i) put_ptr(8 * i, fields.at(ins[i]->name)->get());
  for (std::size_t i = 0; i < outs.size(); ++i) put_ptr(8 * (n_in + i), fields.at(outs[i]->name)->get());
  for (int ax = 0; ax < 3; ++ax) {
    const int v = static_cast<int>(kernel_extent[ax]);
    std::memcpy(bytes.data() + extent_off + 4 * ax, &v, 4);
  }
  for (std::size_t i = 0; i < spec.params.size(); ++i) {
    auto it = params.find(spec.params[i].name);
    const double v = it != params.end() ? it->second : spec.params[i].value;
    if (real == 8) std::memcpy(bytes.data() + params_off + 8 * i, &v, 8);
    else {
      const float f = static_cast<float>(v);
      std::memcpy(bytes.data() + params_off + 4 * i, &f, 4);
    }
  }
  return bytes;
}

}  // namespace

StencilKernel::StencilKernel(const Spec& spec, const TunableChoice& choice, const Context& ctx, KernelCache& cache)
    : spec_(spec),
      source_(generate(spec, choice)),
      compiled_(cache.get(source_, ctx.info().arch(), spec.name)),
      load_ms_(0),
      module_([&] {
        const auto t0 = std::chrono::steady_clock::now();
        Module m(compiled_.kernel.cubin, source_.kernel_name, fmt::format("spec '{}' ({})", spec.name, source_.name));
        load_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return m;
      }()) {
  // The loaded function's own attributes are authoritative; the ptxas log
  // parse is what we have without a GPU.
  auto& u = compiled_.kernel.usage;
  int v = 0;
  if (driver().cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, module_.function()) == CUDA_SUCCESS) u.registers = v;
  if (driver().cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, module_.function()) == CUDA_SUCCESS) u.shared_bytes = v;
  if (driver().cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, module_.function()) == CUDA_SUCCESS) u.stack_bytes = v;
  if (!source_.plan.clamped_kernel_name.empty()) clamped_ = module_.function(source_.plan.clamped_kernel_name);
  // A block of this variant must fit in one SM's registers; say so now, in
  // words, rather than with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES at launch.
  for (CUfunction f : {module_.function(), clamped_}) {
    if (!f) continue;
    if (driver().cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f) == CUDA_SUCCESS && v < source_.plan.threads()) {
      int regs = 0;
      driver().cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
      throw std::runtime_error(fmt::format(
          "spec '{}' ({}): a block of {} threads at {} registers each does not fit on this GPU (at most {} threads); "
          "use a smaller block_x * block_y, or a smaller vector_x * rows_y",
          spec.name, describe(spec.tunables, choice), source_.plan.threads(), regs, v));
    }
  }
}

bool fits_vector_runs(const StencilPlan& plan, const std::array<long long, 3>& kernel_extent, const FieldBindings& fields) {
  if (kernel_extent[1] < plan.rows_y) return false;
  const long long v = plan.vector_x;
  for (const auto& [name, b] : fields) {
    const long long row = b->padded()[0];
    if (b->ghost() % v != 0 || row % v != 0 || b->get() % static_cast<CUdeviceptr>(v * size_of(b->dtype())) != 0) return false;
  }
  return true;
}

void StencilKernel::launch(const FieldBindings& fields, const ParamValues& params, CUstream stream) const {
  const auto shape = check_bindings(spec_, fields, params);
  const auto& plan = source_.plan;
  const auto kext = plan.kernel_extent(shape);
  for (int ax = 0; ax < 3; ++ax)
    if (kext[ax] > (1LL << 30)) throw BindingError(fmt::format("spec '{}': extent {} along kernel axis {} is too large", spec_.name, kext[ax], ax));
  const LaunchDims d = plan.launch(shape);
  if (d.grid[1] > 65535 || d.grid[2] > 65535)
    throw BindingError(fmt::format("spec '{}': grid {}x{}x{} exceeds the 65535 limit on y/z; use a larger block_y or points_per_thread",
                                   spec_.name, d.grid[0], d.grid[1], d.grid[2]));
  std::vector<unsigned char> args = pack_args(spec_, fields, params, kext);
  void* kernel_params[] = {args.data()};
  const CUfunction f = clamped_ && !fits_vector_runs(plan, kext, fields) ? clamped_ : module_.function();
  GPEN_CU(cuLaunchKernel(f, d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1], d.block[2], 0, stream,
                         kernel_params, nullptr),
          fmt::format("launching {} of spec '{}'", source_.name, spec_.name));
}

PeriodicFill::PeriodicFill(Dtype dtype, const Context& ctx, KernelCache& cache)
    : dtype_(dtype),
      source_(generate_periodic_fill(dtype)),
      compiled_(cache.get(source_, ctx.info().arch(), "periodic_fill")),
      module_(compiled_.kernel.cubin, source_.kernel_name, source_.name),
      sm_count_(ctx.info().sm_count) {}

void PeriodicFill::launch(const DeviceBuffer& b, CUstream stream) const {
  if (b.dtype() != dtype_)
    throw BindingError(fmt::format("periodic fill: the buffer is {}, this fill kernel was built for {}", to_string(b.dtype()), to_string(dtype_)));
  if (b.ghost() == 0) return;
  CUdeviceptr p = b.get();
  long long n[3] = {b.shape()[0], b.shape()[1], b.shape()[2]};
  int dims = b.dims(), g = b.ghost();
  for (int axis = 0; axis < dims; ++axis) {
    if (n[axis] < g) throw BindingError(fmt::format("periodic fill: ghost width {} exceeds the interior extent {} along axis {}", g, n[axis], axis));
    void* params[] = {&p, &n[0], &n[1], &n[2], &dims, &g, &axis};
    GPEN_CU(cuLaunchKernel(module_.function(), static_cast<unsigned>(sm_count_ * 8), 1, 1, 256, 1, 1, 0, stream, params, nullptr),
            "launching the periodic ghost fill");
  }
}

}  // namespace gpen
