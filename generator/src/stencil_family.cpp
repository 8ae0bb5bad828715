// The stencil family: outputs as expressions of inputs' neighbours.
#include <fmt/format.h>

#include "gpen/generator/family.hpp"
#include "gpen/generator/stencil_plan.hpp"
#include "tunable_offer.hpp"

namespace gpen {
namespace {

class StencilFamily final : public Family {
 public:
  const char* kind() const override { return "stencil"; }
  FamilyDecl declaration() const override { return StencilDecl{}; }
  std::vector<TunableInfo> tunables() const override { return table_info(stencil_tunable_rows()); }
  std::vector<TunableOffer> offers(const Spec& spec) const override { return stencil_offers(spec); }
  GeneratedSource plan_unit(const Spec& spec, const TunableChoice& choice) const override { return plan_stencil_unit(spec, choice); }
  std::string print_unit(const Spec& spec, const GeneratedSource& unit) const override { return print_stencil_unit(spec, unit); }
  UnitResources resources(const Spec& spec, const TunableChoice& choice) const override {
    const StencilPlan p = plan_stencil(spec, choice);
    return {p.threads(), p.shared_bytes, p.dynamic_shared_bytes};
  }
  std::string describe(const Spec& s) const override {
    const Footprint fp = s.footprint();
    std::string reach;
    for (const auto* in : s.inputs())
      reach += fmt::format(" {}[{}]", in->name, fmt::join(std::vector<int>(fp[in->slot].begin(), fp[in->slot].begin() + s.dims), ","));
    return fmt::format("{} '{}', {}, {}-D, {} input(s), {} output(s); reach:{}", s.kind, s.name, to_string(s.dtype), s.dims, s.inputs().size(),
                       s.output_fields().size(), reach);
  }
};

}  // namespace

const Family& stencil_family() {
  static const StencilFamily f;
  return f;
}

}  // namespace gpen
