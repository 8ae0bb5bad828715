// The scan family: prefix sums (or any associative op) along one axis.
#include <fmt/format.h>

#include "gpen/generator/expr_ast.hpp"
#include "gpen/generator/family.hpp"
#include "gpen/generator/scan_plan.hpp"
#include "tunable_offer.hpp"

namespace gpen {
namespace {

class ScanFamily final : public Family {
 public:
  const char* kind() const override { return "scan"; }
  FamilyDecl declaration() const override { return ScanDecl{}; }
  std::vector<TunableInfo> tunables() const override { return table_info(scan_tunable_rows()); }
  std::vector<TunableOffer> offers(const Spec& spec) const override { return scan_offers(spec); }
  GeneratedSource plan_unit(const Spec& spec, const TunableChoice& choice) const override { return plan_scan_unit(spec, choice); }
  std::string print_unit(const Spec& spec, const GeneratedSource& unit) const override { return print_scan_unit(spec, unit); }
  UnitResources resources(const Spec& spec, const TunableChoice& choice) const override { return {plan_scan(spec, choice).threads(), 0, 0}; }
  std::string describe(const Spec& s) const override {
    return fmt::format("scan '{}', {}, {}-D; {} = {}{} scan of {} along {}, op '{}', identity {}", s.name, to_string(s.dtype), s.dims,
                       s.output_fields()[0]->name, s.scan().reverse ? "reverse " : "", s.scan().exclusive ? "exclusive" : "inclusive",
                       s.inputs()[0]->name, axis_name(s.scan().axis), to_source_text(*s.scan().op_ast), s.scan().identity_text);
  }
};

}  // namespace

const Family& scan_family() {
  static const ScanFamily f;
  return f;
}

}  // namespace gpen
