// The runtime half of the stencil family (runtime_family.hpp).
#include "gpen/families/common/grid_family.hpp"
#include "gpen/families/common/host_array.hpp"
#include "gpen/families/common/point_values.hpp"
#include "gpen/families/stencil/stencil_reference.hpp"
#include "gpen/families/stencil/stencil_kernel.hpp"

namespace gpen {
namespace {

class StencilRuntime final : public GridFamily {
 public:
  const char* kind() const override { return "stencil"; }
  Pitches pitches() const override { return Pitches::Any; }
  std::unique_ptr<Kernel> make_kernel(const Spec& s, Variant v, const Context& ctx, KernelCache& cache) const override {
    return std::make_unique<StencilKernel>(s, std::move(v), ctx, cache);
  }
  void reference(const Spec& spec, const std::vector<HostArray>& inputs, const ParamValues& params, std::vector<HostArray>& outputs,
                 std::vector<HostArray>&) const override {
    std::vector<const HostArray*> ins;
    std::vector<HostArray*> outs;
    for (const auto& h : inputs) ins.push_back(&h);
    for (auto& o : outputs) outs.push_back(&o);
    reference_stencil(spec, ins, param_values(spec, params), outs);
  }
};

}  // namespace

const RuntimeFamily& stencil_runtime() {
  static const StencilRuntime family;
  return family;
}

}  // namespace gpen
