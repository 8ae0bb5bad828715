// A spec's unit, or a unit given whole, as the Program the runtime compiles
// and caches: its identity names the spec by its hash, so that a warm cache
// hit prints nothing.
#pragma once

#include <string>

#include "gpen/generator/codegen.hpp"
#include "gpen/runtime/program.hpp"

namespace gpen {

// `unit` is plan_unit(spec, choice) (or a whole generate()): its source is
// printed on a cache miss only. A spec that was not parsed (no hash) has
// nothing to be known by but its text: it is printed here and keyed by it.
// The Program refers to `spec`: use it while the spec lives (as the cache's
// get does, at once), and from one thread (its print fills the unit it holds).
Program spec_program(const Spec& spec, const Variant& unit);
// The same, planning the unit here.
Program spec_program(const Spec& spec, const TunableChoice& choice);
// A unit keyed by its text (ghost fill, comparison, or a source that was
// edited); `label` names it in messages.
Program source_program(const Variant& unit, const std::string& label);
// The identity of spec_program(spec, plan_unit(spec, choice)), without
// planning. The spec must have been parsed (InternalError otherwise).
ProgramIdentity spec_identity(const Spec& spec, const TunableChoice& choice);

}  // namespace gpen
