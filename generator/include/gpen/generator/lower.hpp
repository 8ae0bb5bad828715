// Name resolution and lowering of a parsed expression into IR, against the
// declarations of a spec. Errors point at the offending token.
#pragma once

#include <string>

#include "gpen/generator/expr_ast.hpp"
#include "gpen/generator/ir.hpp"
#include "gpen/generator/json_source.hpp"

namespace gpen {

struct Spec;

// `pointer` names the JSON string the expression came from; lets declared
// before index `visible_lets` may be referenced. `scope_noun` says in
// errors what a name may be.
IrPtr lower_expression(const Spec& spec, const Ast& ast, const JsonSource& src, const std::string& pointer,
                       std::size_t visible_lets, const std::string& scope_noun = "a declared input field, param or let");

// Parses `text` (the string at `pointer`), turning syntax errors into SpecErrors.
AstPtr parse_expression_at(const std::string& text, const JsonSource& src, const std::string& pointer);

}  // namespace gpen
