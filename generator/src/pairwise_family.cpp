// The pairwise family: every output at a target reduced over sources.
#include <fmt/format.h>

#include "gpen/generator/expr_ast.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/generator/pairwise_plan.hpp"
#include "tunable_offer.hpp"

namespace gpen {
namespace {

class PairwiseFamily final : public Family {
 public:
  const char* kind() const override { return "pairwise"; }
  FamilyDecl declaration() const override { return PairwiseDecl{}; }
  std::vector<TunableInfo> tunables() const override { return table_info(pairwise_tunable_rows()); }
  std::vector<TunableOffer> offers(const Spec& spec) const override { return pairwise_offers(spec); }
  GeneratedSource plan_unit(const Spec& spec, const TunableChoice& choice) const override { return plan_pairwise_unit(spec, choice); }
  std::string print_unit(const Spec& spec, const GeneratedSource& unit) const override { return print_pairwise_unit(spec, unit); }
  UnitResources resources(const Spec& spec, const TunableChoice& choice) const override {
    const PairwisePlan p = plan_pairwise(spec, choice);
    return {p.block, p.shared_bytes, 0};
  }
  std::string describe(const Spec& s) const override {
    const PairwiseDecl& d = s.pairwise();
    std::vector<std::string> outs;
    for (std::size_t o = 0; o < s.outputs.size(); ++o)
      outs.push_back(fmt::format("{}_i = {} over j of {}", s.fields[s.outputs[o].field].name, to_string(d.reduce[o]), to_source_text(*s.outputs[o].ast)));
    return fmt::format("pairwise '{}', {}, {}; {}{}; {}", s.name, to_string(s.dtype),
                       d.grid ? fmt::format("{}-D grid cells", s.dims) : d.same_set ? "N particles" : "N targets, M sources",
                       d.same_set ? (d.skip_self ? "self skipped" : "self included") : "separate sets", d.grouped ? ", grouped" : "",
                       fmt::join(outs, "; "));
  }
};

}  // namespace

const Family& pairwise_family() {
  static const PairwiseFamily f;
  return f;
}

}  // namespace gpen
