// The pairwise family: every output at a target reduced over sources.
#include <fmt/format.h>

#include "gpen/families/common/tunable_offer.hpp"
#include "gpen/families/pairwise/pairwise_plan.hpp"
#include "gpen/generator/expr_ast.hpp"
#include "gpen/generator/family.hpp"

namespace gpen {
namespace {

UnitResources resources(const Spec& spec, const TunableChoice& choice) {
  const PairwisePlan p = plan_pairwise(spec, choice);
  return {p.block, p.shared_bytes, 0};
}

std::string describe(const Spec& s) {
  const PairwiseDecl& d = s.pairwise();
  std::vector<std::string> outs;
  for (std::size_t o = 0; o < s.outputs.size(); ++o)
    outs.push_back(fmt::format("{}_i = {} over j of {}", s.fields[s.outputs[o].field].name, to_string(d.reduce[o]), to_source_text(*s.outputs[o].ast)));
  return fmt::format("pairwise '{}', {}, {}; {}{}; {}", s.name, to_string(s.dtype),
                     d.grid ? fmt::format("{}-D grid cells", s.dims) : d.same_set ? "N particles" : "N targets, M sources",
                     d.same_set ? (d.skip_self ? "self skipped" : "self included") : "separate sets", d.grouped ? ", grouped" : "",
                     fmt::join(outs, "; "));
}

}  // namespace

const Family& pairwise_family() {
  static const Family f{"pairwise", [] { return FamilyDecl{PairwiseDecl{}}; }, [] { return table_info(pairwise_tunable_rows()); },
                        pairwise_offers, plan_pairwise_unit, print_pairwise_unit, resources, describe};
  return f;
}

}  // namespace gpen
