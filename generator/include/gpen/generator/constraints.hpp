// Constraints a spec puts on its tunables, e.g.
//   "constraints": ["block_x * block_y * vector_x <= 512"]
// One comparison (<=, <, >=, >, ==, !=) of two expressions in the
// expression language over integer tunables; a tuner skips every choice
// that breaks one, before anything is compiled.
#pragma once

#include <string>
#include <vector>

#include "gpen/generator/diagnostics.hpp"
#include "gpen/generator/expr_ast.hpp"
#include "gpen/generator/json_source.hpp"
#include "gpen/generator/spec.hpp"

namespace gpen {

// Parses /constraints (absent: none). Names must be integer tunables of
// `spec`. Records in `diag` an error for each wrong constraint, and goes on.
std::vector<ConstraintDecl> parse_constraints(const Spec& spec, const nlohmann::json* node, const JsonSource& src, Diagnostics& diag);

bool satisfied(const ConstraintDecl& c, const TunableChoice& choice);
// "block_x = 32, block_y = 4": the values `choice` gives the tunables `c` names.
std::string named_values(const ConstraintDecl& c, const TunableChoice& choice);

// The first constraint of `spec` that `choice` breaks, or nullptr.
const ConstraintDecl* first_broken(const Spec& spec, const TunableChoice& choice);

}  // namespace gpen
