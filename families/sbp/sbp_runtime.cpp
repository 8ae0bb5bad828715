// The runtime half of the sbp family (runtime_family.hpp).
#include "gpen/families/common/grid_family.hpp"
#include "gpen/families/sbp/sbp_kernel.hpp"
#include "gpen/families/sbp/sbp_reference.hpp"

namespace gpen {
namespace {

class SbpRuntime final : public GridFamily {
 public:
  const char* kind() const override { return "sbp"; }
  Pitches pitches() const override { return Pitches::Any; }
  std::unique_ptr<Kernel> make_kernel(const Spec& s, Variant v, const Context& ctx, KernelCache& cache) const override {
    return std::make_unique<SbpKernel>(s, std::move(v), ctx, cache);
  }
  void reference(const Spec& spec, const std::vector<HostArray>& inputs, const ParamValues& params, std::vector<HostArray>& outputs,
                 std::vector<HostArray>&) const override {
    reference_sbp(spec, inputs[0], params, outputs[0]);
  }
};

}  // namespace

const RuntimeFamily& sbp_runtime() {
  static const SbpRuntime family;
  return family;
}

}  // namespace gpen
