// The plan of a spec's variant with tunables the caller set (the CLI's
// --set, the Python module's keywords): a plan error those settings brought
// is the caller's mistake, not a place in the spec.
#pragma once

#include <string>
#include <vector>

#include "gpen/generator/codegen.hpp"

namespace gpen {

// plan_unit(spec, choice), where `choice` holds the `overrides` ("name=value").
// A SpecError at "/tunables" that the overrides brought (the spec's own
// defaults plan) becomes UsageError("<label>: <message>; expected <...>"):
// the spec need not have "tunables" at all. Other errors pass unchanged.
Variant plan_with_overrides(const Spec& spec, const TunableChoice& choice, const std::vector<std::string>& overrides, const std::string& label);

}  // namespace gpen
