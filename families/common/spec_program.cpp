#include "gpen/families/common/spec_program.hpp"

#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpen/generator/error.hpp"
#include "gpen/generator/templates.hpp"
#include "gpen/generator/tunables.hpp"

namespace gpen {

ProgramIdentity spec_identity(const Spec& spec, const TunableChoice& choice) {
  // The generated text is a function of these: the spec (by its hash), the
  // choice, the templates and the generator's code.
  GPEN_INTERNAL_CHECK(!spec.hash.empty(), fmt::format("spec '{}' has no hash: it was not parsed, so it has no cache key of its own", spec.name));
  return {"spec " + spec.hash + " " + choice_json(choice).dump(), templates_sha256(), generator_fingerprint()};
}

Program source_program(const Variant& unit, const std::string& label) {
  // The unit #includes the templates, so their text is part of what is
  // compiled: an edited template (or a GPEN_TEMPLATE_DIR) must miss.
  return Program{unit.name, unit.kernel_name, label, {"source " + unit.source, template_headers_sha256(), ""},
                 [text = unit.source] { return text; }, [] { return template_headers(); }};
}

Program spec_program(const Spec& spec, const Variant& unit) {
  if (spec.hash.empty()) {
    Variant whole = unit;
    if (whole.source.empty()) print_unit(spec, whole);
    return source_program(whole, spec.name);
  }
  // A copy of the unit, printed into on a miss (the caller's stays as planned).
  auto planned = std::make_shared<Variant>(unit);
  ProgramIdentity identity = spec_identity(spec, unit.choice);
  if (!unit.key.empty()) identity.unit += " " + unit.key;
  return Program{unit.name, unit.kernel_name, spec.name, std::move(identity),
                 [&spec, planned] {
                   if (planned->source.empty()) print_unit(spec, *planned);
                   return planned->source;
                 },
                 [] { return template_headers(); }};
}

Program spec_program(const Spec& spec, const TunableChoice& choice) { return spec_program(spec, plan_unit(spec, choice)); }

}  // namespace gpen
