// The runtime half of the pairwise family (runtime_family.hpp).
#include "gpen/families/common/runtime_family.hpp"
#include "gpen/families/pairwise/pairwise_kernel.hpp"
#include "gpen/families/pairwise/pairwise_run.hpp"
#include "gpen/generator/error.hpp"

namespace gpen {
namespace {

class PairwiseRuntime final : public RuntimeFamily {
 public:
  const char* kind() const override { return "pairwise"; }
  std::unique_ptr<Kernel> make_kernel(const Spec& s, Variant v, const Context& ctx, KernelCache& cache) const override {
    return std::make_unique<PairwiseKernel>(s, std::move(v), ctx, cache);
  }
  void check_size(const Spec& spec, const std::string& size) const override { parse_pair_size(spec, size); }
  TuningKey tuning_key(const Spec& spec, const std::string& size, const DeviceInfo& d) const override {
    return pair_tuning_key(spec, parse_pair_size(spec, size), d);
  }
  std::string small_size(const Spec& spec, const std::array<long long, 3>&) const override { return spec.pairwise().grid ? "9" : "1000"; }
  std::unique_ptr<Problem> make_problem(const Context& ctx, const Spec& spec, const std::string& size, const ProblemOptions& o) const override {
    return make_pair_problem(ctx, spec, size, o);
  }
  void reference(const Spec& spec, const std::vector<HostArray>&, const ParamValues&, std::vector<HostArray>&, std::vector<HostArray>&) const override {
    throw InternalError("spec '" + spec.name + "': a pairwise spec is checked by its PairWorkload, not a Workload", __FILE__, __LINE__);
  }
  Comparison compare(const Spec& spec, const HostArray&, const HostArray&, const HostArray*, const HostArray&) const override {
    throw InternalError("spec '" + spec.name + "': a pairwise spec is checked by its PairWorkload, not a Workload", __FILE__, __LINE__);
  }
};

}  // namespace

const RuntimeFamily& pairwise_runtime() {
  static const PairwiseRuntime family;
  return family;
}

}  // namespace gpen
