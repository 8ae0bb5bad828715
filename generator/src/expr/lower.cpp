#include "gpen/generator/lower.hpp"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "gpen/generator/diagnostics.hpp"
#include "gpen/generator/limits.hpp"
#include "gpen/generator/spec.hpp"

namespace gpen {
namespace {

class Lowering {
 public:
  Lowering(const Spec& spec, const JsonSource& src, std::string pointer, std::size_t visible_lets, std::string scope_noun)
      : spec_(spec), src_(src), pointer_(std::move(pointer)), visible_lets_(visible_lets), scope_noun_(std::move(scope_noun)) {}

  // Arithmetic that overflows (exact coefficients past 64 bits) or an
  // expression that grows past its budget is blamed on the innermost node
  // where it happened.
  IrPtr lower(const Ast& a) {
    try {
      return lower_node(a);
    } catch (const std::overflow_error&) {
      fail(a, "the exact coefficients of this part overflow 64-bit fractions", "coefficients with smaller numerators and denominators");
    } catch (const IrTooLarge& e) {
      fail(a, e.what(), fmt::format("an expression that lowers to at most {} nodes and terms, nested at most {} deep: split it with lets, or apply operators to fields rather than to products",
                                    kMaxIrUnits, kMaxIrDepth));
    }
  }

 private:
  IrPtr lower_node(const Ast& a) {
    switch (a.kind) {
      case Ast::Kind::Number: return number(a);
      case Ast::Kind::Name: return name(a);
      case Ast::Kind::Unary: {
        IrPtr x = lower(*a.args[0]);
        return a.text == "-" ? ir_neg(x) : x;
      }
      case Ast::Kind::Binary: {
        const Ir::Kind k = a.text == "+"   ? Ir::Kind::Add
                           : a.text == "-" ? Ir::Kind::Sub
                           : a.text == "*" ? Ir::Kind::Mul
                                           : Ir::Kind::Div;
        return ir_binary(k, lower(*a.args[0]), lower(*a.args[1]));
      }
      case Ast::Kind::Call: return call(a);
    }
    fail(a, "internal: unknown syntax node", "");
  }

  [[noreturn]] void fail(const Ast& at, const std::string& msg, const std::string& expected) const {
    src_.fail_at(pointer_, src_.locate_in_string(pointer_, at.offset), msg, expected);
  }

  std::vector<std::string> values_in_scope() const {
    std::vector<std::string> n;
    for (const auto* f : spec_.inputs()) n.push_back(f->name);
    for (const auto& p : spec_.params) n.push_back(p.name);
    for (std::size_t i = 0; i < visible_lets_; ++i) n.push_back(spec_.lets[i].name);
    return n;
  }
  std::string names_in_scope() const {
    const auto n = values_in_scope();
    return n.empty() ? "(none declared)" : fmt::format("{}", fmt::join(n, ", "));
  }

  IrPtr number(const Ast& a) {
    if (auto r = Rational::parse(a.text)) return ir_const(Number::of(*r));
    Number n;
    n.exact = false;
    n.d = std::strtod(a.text.c_str(), nullptr);
    const bool f32 = spec_.dtype == Dtype::Float32;
    if (std::isinf(n.d) || (f32 && std::fabs(n.d) > FLT_MAX))
      fail(a, fmt::format("the number {} is beyond the range of {}", quoted_text(a.text, 40), to_string(spec_.dtype)),
           f32 ? "a finite float32, at most about 3.4e38 in magnitude" : "a finite float64, at most about 1.8e308 in magnitude");
    // A number that is not 0 but rounds to 0 in the dtype (below half its
    // smallest subnormal) would silently drop its term.
    const std::string mantissa = a.text.substr(0, a.text.find_first_of("eE"));
    const bool nonzero = mantissa.find_first_of("123456789") != std::string::npos;
    if (nonzero && (n.d == 0 || (f32 && static_cast<float>(n.d) == 0.0f)))
      fail(a, fmt::format("the number {} is not 0 but rounds to 0 in {}", quoted_text(a.text, 40), to_string(spec_.dtype)),
           f32 ? "0, or a float32 of magnitude at least about 1.4e-45" : "0, or a float64 of magnitude at least about 4.9e-324");
    return ir_const(n);
  }

  IrPtr name(const Ast& a) {
    for (const auto* f : spec_.inputs())
      if (f->name == a.text) return ir_field(Access{f->slot, {0, 0, 0}});
    for (std::size_t i = 0; i < spec_.params.size(); ++i)
      if (spec_.params[i].name == a.text) return ir_param(static_cast<int>(i));
    for (std::size_t i = 0; i < spec_.lets.size(); ++i) {
      if (spec_.lets[i].name != a.text) continue;
      if (i >= visible_lets_) fail(a, fmt::format("'{}' is used before (or inside) its own let", a.text), "a let declared earlier in /lets");
      return spec_.lets[i].ir;
    }
    if (const FieldDecl* f = spec_.find_field(a.text)) {
      (void)f;
      fail(a, fmt::format("output field '{}' cannot be read in an expression", a.text), "an input field, a param or a let: " + names_in_scope());
    }
    if (a.text == "x" || a.text == "y" || a.text == "z") {
      fail(a, fmt::format("axis '{}' can only be the second argument of an operator, as in D(u, {})", a.text, a.text), "a value: " + names_in_scope());
    }
    for (const auto& op : spec_.operators)
      if (op.name == a.text) fail(a, fmt::format("operator '{}' must be applied: {}(field, axis)", a.text, a.text), "a value: " + names_in_scope());
    if (find_math_function(a.text)) fail(a, fmt::format("function '{}' must be called with arguments", a.text), "a value: " + names_in_scope());
    fail(a, fmt::format("unknown identifier '{}'{}", a.text, did_you_mean(a.text, values_in_scope())), scope_noun_ + ": " + names_in_scope());
  }

  IrPtr call(const Ast& a) {
    for (const auto& op : spec_.operators) {
      if (op.name != a.text) continue;
      const bool two = !op.offsets2d.empty();
      if (a.args.size() != (two ? 3u : 2u))
        fail(a, fmt::format("{}operator '{}' takes {} arguments, got {}", two ? "2-D " : "", a.text, two ? 3 : 2, a.args.size()),
             fmt::format(two ? "{}(expression, axis, axis)" : "{}(expression, axis)", a.text));
      auto axis_of = [&](const Ast& axis, const char* which) {
        int ax = -1;
        if (axis.kind == Ast::Kind::Name) ax = axis.text == "x" ? 0 : axis.text == "y" ? 1 : axis.text == "z" ? 2 : -1;
        if (ax < 0) fail(axis, fmt::format("the {} argument of '{}' must be an axis", which, a.text), axis_list());
        if (ax >= spec_.dims) fail(axis, fmt::format("axis '{}' is beyond the {}-D arrays of this spec", axis.text, spec_.dims), axis_list());
        return ax;
      };
      const int ax = axis_of(*a.args[1], "second");
      const int bx = two ? axis_of(*a.args[2], "third") : -1;
      if (bx == ax) fail(*a.args[2], fmt::format("the 2-D operator '{}' is applied along two different axes, got {} twice", a.text, a.args[2]->text),
                         "two different axes, as in " + a.text + "(u, x, y)");
      // The operator's points in user axes: along ax, and along bx too for a 2-D one.
      std::vector<std::array<int, 3>> points(op.coeffs.size(), {0, 0, 0});
      for (std::size_t k = 0; k < points.size(); ++k) {
        points[k][ax] = two ? op.offsets2d[k][0] : op.offsets[k];
        if (two) points[k][bx] = op.offsets2d[k][1];
      }
      return ir_apply_points(lower(*a.args[0]), points, op.coeffs);
    }
    const MathFnInfo* fn = find_math_function(a.text);
    if (!fn) {
      std::vector<std::string> known;
      for (const auto& f : math_functions()) known.push_back(f.name);
      for (const auto& op : spec_.operators) known.push_back(op.name);
      fail(a, fmt::format("unknown function '{}'{}", a.text, did_you_mean(a.text, known)),
           fmt::format("a math function or a declared operator: {}", fmt::join(known, ", ")));
    }
    if (static_cast<int>(a.args.size()) != fn->arity) {
      fail(a, fmt::format("'{}' takes {} argument{}, got {}", a.text, fn->arity, fn->arity == 1 ? "" : "s", a.args.size()),
           fmt::format("{} argument{}", fn->arity, fn->arity == 1 ? "" : "s"));
    }
    std::vector<IrPtr> args;
    for (const auto& x : a.args) args.push_back(lower(*x));
    return ir_call(fn->fn, std::move(args));
  }

  std::string axis_list() const {
    const char* names[] = {"x", "x or y", "x, y or z"};
    return fmt::format("an axis of the {}-D arrays: {}", spec_.dims, names[spec_.dims - 1]);
  }

  const Spec& spec_;
  const JsonSource& src_;
  std::string pointer_;
  std::size_t visible_lets_;
  std::string scope_noun_;
};

}  // namespace

IrPtr lower_expression(const Spec& spec, const Ast& ast, const JsonSource& src, const std::string& pointer,
                       std::size_t visible_lets, const std::string& scope_noun) {
  const IrBudget budget(kMaxIrUnits, kMaxIrDepth);
  return Lowering(spec, src, pointer, visible_lets, scope_noun).lower(ast);
}

AstPtr parse_expression_at(const std::string& text, const JsonSource& src, const std::string& pointer) {
  try {
    return parse_expression(text);
  } catch (const ExprSyntaxError& e) {
    src.fail_at(pointer, src.locate_in_string(pointer, e.offset), e.message, e.expected);
  }
}

}  // namespace gpen
