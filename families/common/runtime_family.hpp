// A kernel family as the runtime sees it: its kernel, its problem sizes and
// problem instances, and for the grid kinds the CPU reference a Workload
// checks against. The generator's half is gpen/generator/family.hpp; each
// family defines one (families/<kind>/<kind>_runtime.cpp), listed by
// families/runtime_registry.cpp from families/kinds.def.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "gpen/families/common/host_array.hpp"
#include "gpen/families/common/kernel.hpp"
#include "gpen/families/common/problem.hpp"

namespace gpen {

class RuntimeFamily {
 public:
  virtual ~RuntimeFamily() = default;
  virtual const char* kind() const = 0;
  // Whether its kernels take arrays whose rows or planes the caller padded.
  virtual Pitches pitches() const { return Pitches::Packed; }
  virtual std::unique_ptr<Kernel> make_kernel(const Spec& spec, Variant variant, const Context& ctx, KernelCache& cache) const = 0;
  // `gpen run --size` for this kind; throws UsageError.
  virtual void check_size(const Spec& spec, const std::string& size) const = 0;
  virtual TuningKey tuning_key(const Spec& spec, const std::string& size, const DeviceInfo& device) const = 0;
  virtual std::string small_size(const Spec& spec, const std::array<long long, 3>& grid) const = 0;
  virtual std::unique_ptr<Problem> make_problem(const Context& ctx, const Spec& spec, const std::string& size, const ProblemOptions& o) const = 0;
  // Grid kinds (a Workload's check): the outputs in double precision from
  // the inputs, and per output what its rounding error scales with (scans;
  // left empty by the others) ...
  virtual void reference(const Spec& spec, const std::vector<HostArray>& inputs, const ParamValues& params, std::vector<HostArray>& outputs,
                         std::vector<HostArray>& scales) const = 0;
  // ... and an output against it; `poison` is what its ghosts must still hold.
  virtual Comparison compare(const Spec& spec, const HostArray& got, const HostArray& want, const HostArray* scale,
                             const HostArray& poison) const = 0;
};

const RuntimeFamily& runtime_family_of(const Spec& spec);

}  // namespace gpen
