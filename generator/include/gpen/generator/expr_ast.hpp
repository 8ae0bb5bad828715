// The expression language's syntax tree, as parsed from one JSON string.
// Names are not resolved here (see lower.hpp): the tree is what the user wrote.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace gpen {

struct Ast;
using AstPtr = std::shared_ptr<const Ast>;

struct Ast {
  enum class Kind { Number, Name, Unary, Binary, Call };
  Kind kind;
  std::size_t offset = 0;  // character offset of the node in the expression string
  std::string text;        // Number: literal as written; Name/Call: identifier; Unary/Binary: operator
  std::vector<AstPtr> args;  // Unary: 1, Binary: 2, Call: the arguments
};

// Thrown by the parser; the spec layer turns it into a SpecError with a
// JSON pointer, line and column.
struct ExprSyntaxError {
  std::size_t offset;
  std::string message;
  std::string expected;
};

AstPtr parse_expression(const std::string& text);

// The tree back as text, fully parenthesized: for tests and --dump.
std::string to_string(const Ast& ast);

}  // namespace gpen
