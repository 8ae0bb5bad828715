// The scan family: prefix sums (or any associative op) along one axis.
#include <fmt/format.h>

#include "gpen/families/scan/scan_decl.hpp"
#include "gpen/families/common/tunable_offer.hpp"
#include "gpen/families/scan/scan_plan.hpp"
#include "gpen/generator/expr_ast.hpp"
#include "gpen/generator/family.hpp"

namespace gpen {
namespace {

UnitResources resources(const Spec& spec, const TunableChoice& choice) { return {plan_scan(spec, choice).threads(), 0, 0}; }

std::string describe(const Spec& s) {
  return fmt::format("scan '{}', {}, {}-D; {} = {}{} scan of {} along {}, op '{}', identity {}", s.name, to_string(s.dtype), s.dims,
                     s.output_fields()[0]->name, s.scan().reverse ? "reverse " : "", s.scan().exclusive ? "exclusive" : "inclusive",
                     s.inputs()[0]->name, axis_name(s.scan().axis), to_source_text(*s.scan().op_ast), s.scan().identity_text);
}

// Its JSON: the root's keys, own object, and how fields and expressions read
// (SpecShape: required, optional, own_key, expressions, pair_expressions, ghost_reach).
SpecShape spec_shape() {
  return SpecShape{{"name", "kind", "dtype", "dims", "fields", "scan"}, {"$schema", "description", "tunables", "constraints"}, "scan", false, false, false};
}

}  // namespace

const Family& scan_family() {
  static const Family f{"scan", spec_shape(), read_scan, [] { return FamilyDecl{ScanDecl{}}; }, [] { return table_info(scan_tunable_rows()); },
                        scan_offers, plan_scan_unit, print_scan_unit, resources, describe};
  return f;
}

}  // namespace gpen
