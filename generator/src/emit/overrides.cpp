#include "gpen/generator/overrides.hpp"

#include <exception>

#include "gpen/generator/error.hpp"

namespace gpen {

Variant plan_with_overrides(const Spec& spec, const TunableChoice& choice, const std::vector<std::string>& overrides, const std::string& label) {
  try {
    return plan_unit(spec, choice);
  } catch (const SpecError& e) {
    if (overrides.empty() || e.pointer().rfind("/tunables", 0) != 0) throw;
    const std::exception_ptr spec_error = std::current_exception();
    try {
      plan_unit(spec, spec.choose());
    } catch (const SpecError&) {
      std::rethrow_exception(spec_error);  // the spec's own defaults fail: the spec's error
    }
    const auto& d = e.detail();
    throw UsageError(label + ": " + d.message + (d.expected.empty() ? "" : "; expected " + d.expected));
  }
}

}  // namespace gpen
