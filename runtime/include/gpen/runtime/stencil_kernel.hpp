// A stencil spec compiled (through the cache) and loaded on a context, with
// launches whose arguments are bound by name and checked against the spec
// before anything runs.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

#include "gpen/generator/codegen.hpp"
#include "gpen/runtime/device.hpp"
#include "gpen/runtime/kernel_cache.hpp"

namespace gpen {

// A launch's arguments do not fit the spec (missing, extra or mismatched field).
class BindingError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

using FieldBindings = std::map<std::string, const DeviceBuffer*>;
using ParamValues = std::map<std::string, double>;

// The checks of a launch that need no GPU: every field of the spec bound
// once, dtype, dims, shape and ghost width as the spec says, params known.
// Returns the interior shape. Throws BindingError.
std::array<long long, 3> check_bindings(const Spec& spec, const FieldBindings& fields, const ParamValues& params);

// Whether a march kernel with several points a thread may take its fast
// entry for these buffers: every pointer, x ghost width and padded row a
// multiple of vector_x values, and at least rows_y rows (kernel y extent).
bool fits_vector_runs(const StencilPlan& plan, const std::array<long long, 3>& kernel_extent, const FieldBindings& fields);

class StencilKernel {
 public:
  StencilKernel(const Spec& spec, const TunableChoice& choice, const Context& ctx, KernelCache& cache = process_cache());

  const GeneratedSource& source() const { return source_; }
  const KernelCache::Result& compiled() const { return compiled_; }
  const StencilPlan& plan() const { return source_.plan; }
  double module_load_ms() const { return load_ms_; }

  // Params not given take the spec's values.
  void launch(const FieldBindings& fields, const ParamValues& params = {}, CUstream stream = nullptr) const;

 private:
  const Spec& spec_;
  GeneratedSource source_;
  KernelCache::Result compiled_;
  double load_ms_ = 0;
  Module module_;
  CUfunction clamped_ = nullptr;  // plan().clamped_kernel_name, when there is one
};

// Periodic ghost zones of one buffer, on the GPU.
class PeriodicFill {
 public:
  PeriodicFill(Dtype dtype, const Context& ctx, KernelCache& cache = process_cache());
  void launch(const DeviceBuffer& buffer, CUstream stream = nullptr) const;

 private:
  Dtype dtype_;
  GeneratedSource source_;
  KernelCache::Result compiled_;
  Module module_;
  int sm_count_;
};

}  // namespace gpen
