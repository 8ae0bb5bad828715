// plan_unit, print_unit and generate for any kind: through its family.
#include <atomic>

#include "gpen/generator/codegen.hpp"
#include "gpen/generator/family.hpp"

namespace gpen {
namespace {
std::atomic<std::size_t> printed{0};
}  // namespace

Variant plan_unit(const Spec& spec, const TunableChoice& choice) { return family_of(spec).plan_unit(spec, choice); }

void print_unit(const Spec& spec, Variant& unit) {
  ++printed;
  unit.source = family_of(spec).print_unit(spec, unit);
}

std::size_t units_printed() { return printed.load(); }

Variant generate(const Spec& spec, const TunableChoice& choice) {
  Variant g = plan_unit(spec, choice);
  print_unit(spec, g);
  return g;
}

}  // namespace gpen
