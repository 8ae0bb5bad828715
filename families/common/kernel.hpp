// A spec's kernel of any kind, compiled through the cache and loaded on a
// context; launched on fields bound by name. Each family derives its own
// (families/<kind>/<kind>_kernel.hpp); make_kernel asks the spec's family.
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "gpen/families/common/device_buffer.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/runtime/device.hpp"
#include "gpen/runtime/kernel_cache.hpp"

namespace gpen {

// A launch's arguments do not fit the spec (missing, extra or mismatched field).
class BindingError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A variant's block does not fit an SM of this GPU at the registers ptxas
// gave its threads: the variant cannot run here (a smaller block can).
class BlockFitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using FieldBindings = std::map<std::string, const DeviceBuffer*>;
using ParamValues = std::map<std::string, double>;

// Whether a kind's kernels take arrays whose rows or planes the caller
// padded (a view's Pitch), or only packed ones.
enum class Pitches { Packed, Any };

// The checks of a launch that need no GPU: every field of the spec bound
// once, dtype, dims, shape and ghost width as the spec says, pointers
// non-null and aligned to their elements, pitches packed unless `pitches`
// is Any, no output sharing memory with another bound array (but for
// FieldDecl::in_place_of), params known. Returns the interior shape.
// Throws BindingError.
std::array<long long, 3> check_bindings(const Spec& spec, const FieldBindings& fields, const ParamValues& params, Pitches pitches = Pitches::Packed);

// The spec's params (a value given in `params`, else the spec's) in the
// spec's dtype, one after another from bytes + at: an argument block's
// params array (families/<kind>/device/<kind>_args.h).
void put_params(const Spec& spec, const ParamValues& params, unsigned char* bytes, std::size_t at);

class Kernel {
 public:
  virtual ~Kernel() = default;
  Kernel(const Kernel&) = delete;

  // The unit as planned: plan, names, choice. Its source text is empty:
  // printed only when the cache missed, and then not kept.
  const Variant& source() const { return source_; }
  const KernelCache::Result& compiled() const { return compiled_; }
  // The device address of the unit's global `name` (a stencil's device
  // params: gpen_param_<name>), for other kernels to write.
  CUdeviceptr global(const std::string& name) const { return module_.global(name); }
  double module_load_ms() const { return load_ms_; }

  // Params not given take the spec's values. Launched in `stream`; the host
  // does not wait for it.
  virtual void launch(const FieldBindings& fields, const ParamValues& params = {}, CUstream stream = nullptr) const = 0;
  // The kernel a launch on `fields` runs: this one, or another unit of the
  // same variant that the family keeps for such arrays (a stencil's with
  // every field's own pitch, made at the first call that needs it). Its
  // globals are its own: whoever writes a device param (global()) before
  // launches writes it in each kernel they run.
  virtual const Kernel& kernel_for(const FieldBindings& fields) const {
    (void)fields;
    return *this;
  }
  // Allocates what launches over an interior of `shape` points need beyond
  // the bound arrays (a reduction's partials, a scan's status, pairwise
  // block on block's partials and streams), so that those launches
  // allocate nothing: a time loop calls it once. Nothing for most kernels.
  virtual void prepare(const std::array<long long, 3>& shape) const { (void)shape; }

 protected:
  // Looks `unit` (plan_unit(spec, choice)) up in the cache, which prints and
  // compiles it on a miss only, and loads it; registers, shared memory and
  // stack then come from the loaded function.
  Kernel(const Spec& spec, Variant unit, const Context& ctx, KernelCache& cache);
  // Throws BindingError unless every extent is 1 to 2^30 points.
  void check_extents(const std::array<long long, 3>& shape) const;
  // Throws, in words, when a block of `threads` threads of `f` does not fit
  // in one SM's registers (rather than CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES).
  void check_block_fits(CUfunction f, int threads, const std::string& advice) const;
  CUfunction function() const { return module_.function(); }

  // The kernel's own copy of its spec (a copy shares the lowered
  // expressions): a kernel made from a temporary spec outlives it.
  std::shared_ptr<const Spec> own_spec_;
  const Spec& spec_;
  Variant source_;
  KernelCache::Result compiled_;
  double load_ms_ = 0;
  Module module_;
};

// The kernel of a variant (plan_unit(spec, choice)), of whichever family the spec's is.
std::unique_ptr<Kernel> make_kernel(const Spec& spec, Variant variant, const Context& ctx, KernelCache& cache = process_cache());
std::unique_ptr<Kernel> make_kernel(const Spec& spec, const TunableChoice& choice, const Context& ctx, KernelCache& cache = process_cache());

}  // namespace gpen
