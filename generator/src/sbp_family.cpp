// The SBP family: summation-by-parts derivatives, closures at both ends.
#include <fmt/format.h>

#include "gpen/generator/family.hpp"
#include "gpen/generator/sbp_plan.hpp"
#include "tunable_offer.hpp"

namespace gpen {
namespace {

class SbpFamily final : public Family {
 public:
  const char* kind() const override { return "sbp"; }
  FamilyDecl declaration() const override { return SbpDecl{}; }
  std::vector<TunableInfo> tunables() const override { return table_info(sbp_tunable_rows()); }
  std::vector<TunableOffer> offers(const Spec& spec) const override { return sbp_offers(spec); }
  GeneratedSource plan_unit(const Spec& spec, const TunableChoice& choice) const override { return plan_sbp_unit(spec, choice); }
  std::string print_unit(const Spec& spec, const GeneratedSource& unit) const override { return print_sbp_unit(spec, unit); }
  UnitResources resources(const Spec& spec, const TunableChoice& choice) const override {
    const SbpPlan p = plan_sbp(spec, choice);
    return {p.threads(), p.shared_bytes, 0};
  }
  std::string describe(const Spec& s) const override {
    std::vector<std::string> axes;
    for (int a : s.sbp().axes) axes.push_back(axis_name(a));
    return fmt::format("sbp '{}', {}, {}-D; {} = D{} {} along {}; interior order {}, boundary order {}, {} closure rows a side, lines of >= {} points",
                       s.name, to_string(s.dtype), s.dims, s.output_fields()[0]->name, s.sbp().derivative, s.inputs()[0]->name,
                       fmt::join(axes, " + "), s.sbp().order, s.sbp().boundary_order, s.sbp().rows(), s.sbp().min_length());
  }
};

}  // namespace

const Family& sbp_family() {
  static const SbpFamily f;
  return f;
}

}  // namespace gpen
