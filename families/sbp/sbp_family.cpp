// The SBP family: summation-by-parts derivatives, closures at both ends.
#include <fmt/format.h>

#include "gpen/families/sbp/sbp_decl.hpp"
#include "gpen/families/common/tunable_offer.hpp"
#include "gpen/families/sbp/sbp_plan.hpp"
#include "gpen/generator/family.hpp"

namespace gpen {
namespace {

UnitResources resources(const Spec& spec, const TunableChoice& choice) {
  const SbpPlan p = plan_sbp(spec, choice);
  return {p.threads(), p.shared_bytes, 0};
}

std::string describe(const Spec& s) {
  std::vector<std::string> axes;
  for (int a : s.sbp().axes) axes.push_back(axis_name(a));
  return fmt::format("sbp '{}', {}, {}-D; {} = D{} {} along {}; interior order {}, boundary order {}, {} closure rows a side, lines of >= {} points",
                     s.name, to_string(s.dtype), s.dims, s.output_fields()[0]->name, s.sbp().derivative, s.inputs()[0]->name,
                     fmt::join(axes, " + "), s.sbp().order, s.sbp().boundary_order, s.sbp().rows(), s.sbp().min_length());
}

// Its JSON: the root's keys, own object, and how fields and expressions read
// (SpecShape: required, optional, own_key, expressions, pair_expressions, ghost_reach).
SpecShape spec_shape() {
  return SpecShape{{"name", "kind", "dtype", "dims", "fields", "sbp"}, {"$schema", "description", "params", "tunables", "constraints"}, "sbp", false, false, false};
}

}  // namespace

const Family& sbp_family() {
  static const Family f{"sbp", spec_shape(), read_sbp, [] { return FamilyDecl{SbpDecl{}}; }, [] { return table_info(sbp_tunable_rows()); },
                        sbp_offers, plan_sbp_unit, print_sbp_unit, resources, describe};
  return f;
}

}  // namespace gpen
