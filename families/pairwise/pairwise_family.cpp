// The pairwise family: every output at a target reduced over sources.
#include <fmt/format.h>

#include "gpen/families/pairwise/pair_cost.hpp"
#include "gpen/families/pairwise/pairwise_decl.hpp"
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
    outs.push_back(fmt::format("{}_i = {} over j of {}", s.fields[s.outputs[o].field].name, to_string(s.outputs[o].reduce), to_source_text(*s.outputs[o].ast)));
  const PairCost c = pair_cost(s);
  return fmt::format("pairwise '{}', {}, {}; {}{}; {}; a pair: {:g} float32, {:g} float64, {:g} special-function (MUFU), {:g} issued instructions",
                     s.name, to_string(s.dtype), d.grid ? fmt::format("{}-D grid cells", s.dims) : d.same_set ? "N particles" : "N targets, M sources",
                     d.same_set ? (d.skip_self ? "self skipped" : "self included") : "separate sets", d.grouped ? ", grouped" : "",
                     fmt::join(outs, "; "), c.fp32, c.fp64, c.mufu, c.issued());
}

// Its JSON: the root's keys, own object, and how fields and expressions read
// (SpecShape: required, optional, own_key, expressions, pair_expressions, ghost_reach).
SpecShape spec_shape() {
  return SpecShape{{"name", "kind", "dtype", "dims", "fields", "pairwise", "outputs"}, {"$schema", "description", "params", "lets", "tunables", "constraints"}, "pairwise", true, true, false};
}

}  // namespace

const Family& pairwise_family() {
  static const Family f{"pairwise", spec_shape(), read_pairwise, [] { return FamilyDecl{PairwiseDecl{}}; }, [] { return table_info(pairwise_tunable_rows()); },
                        pairwise_offers, plan_pairwise_unit, print_pairwise_unit, resources, describe};
  return f;
}

}  // namespace gpen
