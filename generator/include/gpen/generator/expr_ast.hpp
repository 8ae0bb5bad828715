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
  int depth = 1;             // 1 + the deepest argument's depth
};

// Thrown by the parser; the spec layer turns it into a SpecError with a
// JSON pointer, line and column.
struct ExprSyntaxError {
  std::size_t offset;
  std::string message;
  std::string expected;
};

// Refuses text longer than kMaxExprChars and trees (or parentheses) nested
// deeper than kMaxExprDepth (limits.hpp), so that nothing after it recurses
// past a bounded depth.
AstPtr parse_expression(const std::string& text);

// The tree back as text, fully parenthesized: for tests and --dump.
std::string to_string(const Ast& ast);

// The tree back as text with the parentheses precedence needs and no more:
// what generated code shows of an expression. Only parsed tokens (names,
// numbers, operators) appear in it, never the user's raw text.
std::string to_source_text(const Ast& ast);

}  // namespace gpen
