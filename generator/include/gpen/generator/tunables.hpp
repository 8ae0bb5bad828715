// Tunables: the knobs of a kind's kernels (strategy, block dims, points per
// thread), each with built-in allowed values that a spec may narrow under
// "tunables" and `--set name=value` may pick from.
#pragma once

#include <nlohmann/json.hpp>

#include "gpen/generator/diagnostics.hpp"
#include "gpen/generator/spec.hpp"

namespace gpen {

// Built-in tunables of `spec.kind` merged with the spec's "tunables" object
// (may be null). Records in `diag` an error for each unknown name, unknown
// key and tunable with a disallowed value, and goes on with the next.
std::vector<TunableDecl> parse_tunables(const Spec& spec, const nlohmann::json* node, const JsonSource& src, Diagnostics& diag);

// The plans' check of the tunables some strategies alone have (TunableDecl::
// only_with_strategy): under another strategy such a tunable must hold its
// plain value (it would be ignored), under one of its own one of its values.
// Throws SpecError at the tunable's pointer.
void check_strategy_tunables(const Spec& spec, const TunableChoice& choice);

// Whether one of `overrides` ("name=value", as --set takes them) sets `name`.
bool overrides_tunable(const std::vector<std::string>& overrides, const std::string& name);

// A value or a choice as JSON: numbers stay numbers,
// {"strategy": "march", "block_x": 64}.
nlohmann::json tunable_json(const TunableValue& v);
nlohmann::json choice_json(const TunableChoice& c);

long long tunable_int(const TunableChoice& c, const std::string& name);
const std::string& tunable_string(const TunableChoice& c, const std::string& name);
// "strategy=rolling block_x=32 ..." in declaration order.
std::string describe(const std::vector<TunableDecl>& decls, const TunableChoice& c);

}  // namespace gpen
