// The runtime half of the scan family (runtime_family.hpp).
#include "gpen/families/common/grid_family.hpp"
#include "gpen/families/scan/scan_kernel.hpp"
#include "gpen/families/scan/scan_reference.hpp"

namespace gpen {
namespace {

class ScanRuntime final : public GridFamily {
 public:
  const char* kind() const override { return "scan"; }
  std::unique_ptr<Kernel> make_kernel(const Spec& s, Variant v, const Context& ctx, KernelCache& cache) const override {
    return std::make_unique<ScanKernel>(s, std::move(v), ctx, cache);
  }
  void reference(const Spec& spec, const std::vector<HostArray>& inputs, const ParamValues&, std::vector<HostArray>& outputs,
                 std::vector<HostArray>& scales) const override {
    scales.emplace_back(outputs[0].dims, outputs[0].shape, 0);
    reference_scan(spec, inputs[0], outputs[0], scales[0]);
  }
  // Against a bound that grows with the values summed (scan_reference.hpp).
  Comparison compare(const Spec& spec, const HostArray& got, const HostArray& want, const HostArray* scale, const HostArray&) const override {
    return compare_scan(spec, got, want, *scale);
  }
};

}  // namespace

const RuntimeFamily& scan_runtime() {
  static const ScanRuntime family;
  return family;
}

}  // namespace gpen
