#include "scalar_expr.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>

#include "gpen/generator/expr_ast.hpp"
#include "gpen/generator/lower.hpp"

namespace gpen::sim {
namespace {

using Step = ScalarExpr::Step;

// The steps of `a` appended to `out`; returns the most values the stack
// holds meanwhile. Recursion is bounded: the parser refuses trees deeper
// than kMaxExprDepth.
int flatten(const Ast& a, const JsonReader& r, const std::string& pointer, const std::vector<std::string>& names,
            const std::string& noun, std::vector<Step>& out) {
  auto fail = [&](const std::string& message, const std::string& expected) {
    r.src().fail_at(pointer, r.src().locate_in_string(pointer, a.offset), message, expected);
  };
  switch (a.kind) {
    case Ast::Kind::Number: {
      Step s{Step::Kind::Number};
      if (auto q = Rational::parse(a.text)) {
        s.number = q->to_double();
      } else {
        // A decimal the parser accepted; past float64's range it is refused,
        // as the JSON reader refuses such a number.
        char* end = nullptr;
        s.number = std::strtod(a.text.c_str(), &end);
        if (*end != '\0' || !std::isfinite(s.number)) fail(fmt::format("'{}' is beyond the range of a float64", quoted_text(a.text)), "a finite number");
      }
      out.push_back(s);
      return 1;
    }
    case Ast::Kind::Name: {
      const auto it = std::find(names.begin(), names.end(), a.text);
      if (it == names.end()) fail(fmt::format("unknown name '{}'", quoted_text(a.text)), noun);
      Step s{Step::Kind::Name};
      s.slot = static_cast<int>(it - names.begin());
      out.push_back(s);
      return 1;
    }
    case Ast::Kind::Unary: {
      const int d = flatten(*a.args[0], r, pointer, names, noun, out);
      if (a.text == "-") out.push_back(Step{Step::Kind::Neg});
      return d;
    }
    case Ast::Kind::Binary: {
      const int d0 = flatten(*a.args[0], r, pointer, names, noun, out);
      const int d1 = flatten(*a.args[1], r, pointer, names, noun, out);
      const Step::Kind k = a.text == "+" ? Step::Kind::Add : a.text == "-" ? Step::Kind::Sub : a.text == "*" ? Step::Kind::Mul : Step::Kind::Div;
      if (k == Step::Kind::Div && a.text != "/") fail(fmt::format("the operator '{}'", a.text), "+, -, * or /");
      out.push_back(Step{k});
      return std::max(d0, d1 + 1);
    }
    case Ast::Kind::Call: {
      const MathFnInfo* f = find_math_function(a.text);
      if (!f) fail(fmt::format("'{}' is no math function", quoted_text(a.text)), "sqrt, exp, log, sin, cos, tanh, pow, abs, min, max, ...");
      if (static_cast<int>(a.args.size()) != f->arity)
        fail(fmt::format("{}() takes {} argument{}, found {}", f->name, f->arity, f->arity == 1 ? "" : "s", a.args.size()),
             fmt::format("{} argument{}", f->arity, f->arity == 1 ? "" : "s"));
      int d = 0;
      for (std::size_t i = 0; i < a.args.size(); ++i) d = std::max(d, flatten(*a.args[i], r, pointer, names, noun, out) + static_cast<int>(i));
      Step s{Step::Kind::Call};
      s.fn = f->fn;
      s.arity = f->arity;
      out.push_back(s);
      return d;
    }
  }
  return 0;
}

}  // namespace

ScalarExpr ScalarExpr::parse(const JsonReader& r, const std::string& pointer, const std::vector<std::string>& names, const std::string& noun) {
  ScalarExpr e;
  const nlohmann::json& j = r.at(pointer);
  if (j.is_number()) return constant(j.get<double>());
  e.text_ = r.string(pointer);
  const AstPtr ast = parse_expression_at(e.text_, r.src(), pointer);
  e.depth_ = flatten(*ast, r, pointer, names, noun, e.steps_);
  return e;
}

ScalarExpr ScalarExpr::constant(double v) {
  ScalarExpr e;
  Step s{Step::Kind::Number};
  s.number = v;
  e.steps_.push_back(s);
  e.depth_ = 1;
  e.text_ = fmt::format("{}", v);
  return e;
}

double ScalarExpr::operator()(const double* values) const {
  // A fixed stack: kMaxExprDepth bounds depth_, and most expressions are shallow.
  double small[32];
  std::vector<double> big;
  double* stack = small;
  if (depth_ > 32) {
    big.resize(static_cast<std::size_t>(depth_));
    stack = big.data();
  }
  int top = 0;  // values on the stack
  for (const Step& s : steps_) {
    switch (s.kind) {
      case Step::Kind::Number: stack[top++] = s.number; break;
      case Step::Kind::Name: stack[top++] = values[s.slot]; break;
      case Step::Kind::Neg: stack[top - 1] = -stack[top - 1]; break;
      case Step::Kind::Add: --top; stack[top - 1] += stack[top]; break;
      case Step::Kind::Sub: --top; stack[top - 1] -= stack[top]; break;
      case Step::Kind::Mul: --top; stack[top - 1] *= stack[top]; break;
      case Step::Kind::Div: --top; stack[top - 1] /= stack[top]; break;
      case Step::Kind::Call:
        top -= s.arity;
        stack[top] = apply_math(s.fn, stack + top);
        ++top;
        break;
    }
  }
  return top == 1 ? stack[0] : 0.0;
}

bool ScalarExpr::reads(int slot) const {
  return std::any_of(steps_.begin(), steps_.end(), [&](const Step& s) { return s.kind == Step::Kind::Name && s.slot == slot; });
}

}  // namespace gpen::sim
