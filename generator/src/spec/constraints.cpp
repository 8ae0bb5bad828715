#include "gpen/generator/constraints.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "gpen/generator/diagnostics.hpp"
#include "gpen/generator/limits.hpp"
#include "gpen/generator/lower.hpp"

namespace gpen {
namespace {

const char* const kOps[] = {"<=", ">=", "==", "!=", "<", ">"};

// Names used in an expression, with their offsets, and the node kinds allowed.
void check_names(const Ast& a, const Spec& spec, const JsonSource& src, const std::string& ptr, std::size_t base) {
  switch (a.kind) {
    case Ast::Kind::Number:
      if (!std::isfinite(std::strtod(a.text.c_str(), nullptr)))
        src.fail_at(ptr, src.locate_in_string(ptr, base + a.offset), fmt::format("the number {} is beyond the range of a float64", quoted_text(a.text, 40)),
                    "a finite number");
      return;
    case Ast::Kind::Name: {
      const TunableDecl* t = spec.find_tunable(a.text);
      if (!t || std::holds_alternative<std::string>(t->default_value)) {
        std::vector<std::string> names;
        for (const auto& x : spec.tunables)
          if (std::holds_alternative<long long>(x.default_value)) names.push_back(x.name);
        src.fail_at(ptr, src.locate_in_string(ptr, base + a.offset), fmt::format("'{}' is not an integer tunable{}", a.text, did_you_mean(a.text, names)),
                    fmt::format("one of: {}", fmt::join(names, ", ")));
      }
      return;
    }
    case Ast::Kind::Unary:
    case Ast::Kind::Binary:
      for (const auto& x : a.args) check_names(*x, spec, src, ptr, base);
      return;
    case Ast::Kind::Call:
      src.fail_at(ptr, src.locate_in_string(ptr, base + a.offset), fmt::format("function call '{}' in a constraint", a.text),
                  "tunables, numbers, + - * / and parentheses");
  }
}

double value(const Ast& a, const TunableChoice& c) {
  switch (a.kind) {
    case Ast::Kind::Number: return std::strtod(a.text.c_str(), nullptr);  // finite: check_names saw to it
    case Ast::Kind::Name: return static_cast<double>(std::get<long long>(c.at(a.text)));
    case Ast::Kind::Unary: return a.text == "-" ? -value(*a.args[0], c) : value(*a.args[0], c);
    case Ast::Kind::Binary: {
      const double l = value(*a.args[0], c), r = value(*a.args[1], c);
      if (a.text == "+") return l + r;
      if (a.text == "-") return l - r;
      if (a.text == "*") return l * r;
      return l / r;
    }
    case Ast::Kind::Call: break;
  }
  return NAN;
}

// The tunables an expression names, each once, in the order they appear.
void collect_names(const Ast& a, std::vector<std::string>& names) {
  if (a.kind == Ast::Kind::Name && std::find(names.begin(), names.end(), a.text) == names.end()) names.push_back(a.text);
  for (const auto& x : a.args) collect_names(*x, names);
}

}  // namespace

std::vector<ConstraintDecl> parse_constraints(const Spec& spec, const nlohmann::json* node, const JsonSource& src, Diagnostics& diag) {
  std::vector<ConstraintDecl> out;
  if (!node) return out;
  const bool listed = diag.unit([&] {
    if (!node->is_array()) src.fail("/constraints", "found a non-array", "an array of strings such as \"block_x * block_y <= 512\"");
    src.check_count("/constraints", node->size(), kMaxConstraints);
  });
  if (!listed) return out;
  for (std::size_t i = 0; i < node->size(); ++i) {
    ConstraintDecl c;
    c.pointer = json_pointer_join("/constraints", i);
    // Each constraint on its own: a wrong one does not hide the next.
    diag.unit([&] {
      if (!(*node)[i].is_string()) src.fail(c.pointer, "found a non-string", "a comparison such as \"block_x * block_y <= 512\"");
      c.text = (*node)[i].get<std::string>();
      std::size_t at = std::string::npos;
      for (const char* op : kOps) {
        const auto p = c.text.find(op);
        if (p != std::string::npos) {
          at = p;
          c.op = op;
          break;
        }
      }
      if (at == std::string::npos)
        src.fail(c.pointer, "no comparison in the constraint", "one of <=, <, >=, >, ==, != between two expressions");
      const std::size_t rhs_at = at + c.op.size();
      c.lhs = parse_expression_at(c.text.substr(0, at), src, c.pointer);
      try {
        c.rhs = parse_expression(c.text.substr(rhs_at));
      } catch (const ExprSyntaxError& e) {
        src.fail_at(c.pointer, src.locate_in_string(c.pointer, rhs_at + e.offset), e.message, e.expected);
      }
      check_names(*c.lhs, spec, src, c.pointer, 0);
      check_names(*c.rhs, spec, src, c.pointer, rhs_at);
      out.push_back(std::move(c));
    });
  }
  return out;
}

bool satisfied(const ConstraintDecl& c, const TunableChoice& choice) {
  const double l = value(*c.lhs, choice), r = value(*c.rhs, choice);
  if (c.op == "<=") return l <= r;
  if (c.op == ">=") return l >= r;
  if (c.op == "==") return l == r;
  if (c.op == "!=") return l != r;
  if (c.op == "<") return l < r;
  return l > r;
}

std::string named_values(const ConstraintDecl& c, const TunableChoice& choice) {
  std::vector<std::string> names, values;
  collect_names(*c.lhs, names);
  collect_names(*c.rhs, names);
  for (const auto& n : names) values.push_back(n + " = " + to_string(choice.at(n)));
  return fmt::format("{}", fmt::join(values, ", "));
}

const ConstraintDecl* first_broken(const Spec& spec, const TunableChoice& choice) {
  for (const auto& c : spec.constraints)
    if (!satisfied(c, choice)) return &c;
  return nullptr;
}

}  // namespace gpen
