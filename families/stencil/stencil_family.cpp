// The stencil family: outputs as expressions of inputs' neighbours.
#include <fmt/format.h>

#include "gpen/families/common/tunable_offer.hpp"
#include "gpen/families/stencil/stencil_plan.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/generator/ir_common.hpp"

namespace gpen {
namespace {

UnitResources resources(const Spec& spec, const TunableChoice& choice) {
  const StencilPlan p = plan_stencil(spec, choice);
  return {p.threads(), p.shared_bytes, p.dynamic_shared_bytes};
}

std::string describe(const Spec& s) {
  const Footprint fp = s.footprint();
  std::string reach;
  for (const auto* in : s.inputs())
    reach += fmt::format(" {}[{}]", in->name, fmt::join(std::vector<int>(fp[in->slot].begin(), fp[in->slot].begin() + s.dims), ","));
  const IrWork w = ir_work(s.output_exprs());
  return fmt::format("{} '{}', {}, {}-D, {} input(s), {} output(s); reach:{}; per point: {:.0f} reads ({:.0f} distinct), {:.0f} operations ({:.0f} "
                     "with common subexpressions once: {:.0f} adds, multiplies and FMAs, {:.0f} divisions and math calls)",
                     s.kind, s.name, to_string(s.dtype), s.dims, s.inputs().size(), s.output_fields().size(), reach, w.reads, w.distinct_reads, w.ops,
                     w.distinct_ops, w.fma_pipe, w.divisions_and_calls);
}

// Its JSON: the root's keys, own object, and how fields and expressions read
// (SpecShape: required, optional, own_key, expressions, pair_expressions, ghost_reach).
SpecShape spec_shape() {
  return SpecShape{{"name", "kind", "dtype", "dims", "fields", "outputs"}, {"$schema", "description", "params", "operators", "lets", "tunables", "constraints"}, nullptr, true, false, true};
}

}  // namespace

const Family& stencil_family() {
  static const Family f{"stencil", spec_shape(), nullptr, [] { return FamilyDecl{StencilDecl{}}; }, [] { return table_info(stencil_tunable_rows()); },
                        stencil_offers, plan_stencil_unit, print_stencil_unit, resources, describe, stencil_ops_per_point,
                        stencil_plain_twin};
  return f;
}

}  // namespace gpen
