// The runtime half of the reduction family (runtime_family.hpp).
#include "gpen/families/common/grid_family.hpp"
#include "gpen/families/common/point_values.hpp"
#include "gpen/families/reduce/reduce_kernel.hpp"
#include "gpen/families/reduce/reduce_reference.hpp"

namespace gpen {
namespace {

class ReduceRuntime final : public GridFamily {
 public:
  const char* kind() const override { return "reduce"; }
  Pitches pitches() const override { return Pitches::Any; }
  std::unique_ptr<Kernel> make_kernel(const Spec& s, Variant v, const Context& ctx, KernelCache& cache) const override {
    return std::make_unique<ReduceKernel>(s, std::move(v), ctx, cache);
  }
  void reference(const Spec& spec, const std::vector<HostArray>& inputs, const ParamValues& params, std::vector<HostArray>& outputs,
                 std::vector<HostArray>& scales) const override {
    std::vector<const HostArray*> ins;
    for (const auto& h : inputs) ins.push_back(&h);
    reference_reduce(spec, ins, param_values(spec, params), inputs.at(0).shape, outputs, scales);
  }
  // Against a bound that grows with the values combined (reduce_reference.hpp).
  Comparison compare(const Spec& spec, const HostArray& got, const HostArray& want, const HostArray* scale, const HostArray&) const override {
    return compare_reduce(spec, got, want, *scale);
  }
};

}  // namespace

const RuntimeFamily& reduce_runtime() {
  static const ReduceRuntime family;
  return family;
}

}  // namespace gpen
