#include "gpen/generator/cuda_printer.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "gpen/generator/fast_math.hpp"
#include "gpen/generator/utf8.hpp"

namespace gpen {

std::string real_literal(double v, Dtype dtype) {
  std::string s = dtype == Dtype::Float32 ? fmt::format("{}", static_cast<float>(v)) : fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos && s.find("inf") == std::string::npos) s += ".0";
  return dtype == Dtype::Float32 ? s + "f" : s;
}

namespace {

// Characters a person reads as they are: no controls, no line or paragraph
// separators, and none of the bidirectional overrides that make code read
// otherwise than it compiles ("Trojan Source").
bool shown_as_is(char32_t cp) {
  if (cp < 0x20 || cp == 0x7f || cp == '\\' || (cp >= 0x80 && cp < 0xA0)) return false;
  if (cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) return false;
  return cp != 0x2028 && cp != 0x2029 && cp != 0xFEFF;
}

}  // namespace

std::string comment_text(const std::string& text, std::size_t max_chars) {
  std::string out;
  std::size_t i = 0, chars = 0;
  for (; i < text.size() && chars < max_chars; ++chars) {
    const Utf8Char c = utf8_char(text, i);
    const bool ends_comment = c.code_point == '*' && i + 1 < text.size() && text[i + 1] == '/';
    out += c.length > 0 && shown_as_is(c.code_point) && !ends_comment ? text.substr(i, c.length) : "?";
    i += c.length > 0 ? c.length : 1;
  }
  if (i < text.size()) out += "...";
  return out;
}

std::string real_value(double v, Dtype dtype) {
  if (std::isinf(v)) {
    const bool f32 = dtype == Dtype::Float32;
    if (v > 0) return f32 ? "__int_as_float(0x7f800000)" : "__longlong_as_double(0x7ff0000000000000LL)";
    return f32 ? "__int_as_float(0xff800000)" : "__longlong_as_double(0xfff0000000000000LL)";
  }
  return real_literal(v, dtype);
}

CudaPrinter::CudaPrinter(const Spec& spec, std::array<int, 3> kernel_axis) : spec_(spec), kernel_axis_(kernel_axis) {}
CudaPrinter::CudaPrinter(const Spec& spec, std::vector<std::string> value_names)
    : spec_(spec), kernel_axis_{0, 1, 2}, value_names_(std::move(value_names)) {}

std::vector<std::string> CudaPrinter::emit(const std::vector<IrPtr>& roots) {
  // Count each node's parents, visiting every node once.
  std::set<const Ir*> seen;
  std::vector<const Ir*> todo;
  auto reach = [&](const Ir* e) {
    if (!seen.insert(e).second) shared_.insert(e);
    else todo.push_back(e);
  };
  for (const auto& r : roots) reach(r.get());
  while (!todo.empty()) {
    const Ir* e = todo.back();
    todo.pop_back();
    for (const auto& a : e->args) reach(a.get());
    if (fast() && divides_by_sqrt(*e)) divided_by_sqrt_.insert(e->args[1]->args[0].get());
  }
  std::vector<std::string> out;
  for (const auto& r : roots) out.push_back(print(*r).text);
  return out;
}

void CudaPrinter::name(const IrPtr& e, const std::string& name) { named_.emplace(e.get(), name); }

std::string CudaPrinter::body(const std::string& indent) const {
  std::string s;
  for (const auto& [value, name] : coeffs_) {
    const double d = spec_.dtype == Dtype::Float32 ? value.to_float() : value.to_double();
    s += fmt::format("{}constexpr real {} = {};", indent, name, real_literal(d, spec_.dtype));
    if (!value.is_integer()) s += fmt::format("  // {}", value.str());
    s += "\n";
  }
  for (const auto& st : statements_) {
    std::string indented = indent;
    for (char c : st) indented += c == '\n' ? "\n" + indent : std::string(1, c);
    s += indented + "\n";
  }
  return s;
}

std::string CudaPrinter::access(const Access& a) const {
  if (!value_names_.empty()) return value_names_.at(a.field);
  std::array<int, 3> k{0, 0, 0};
  for (int ax = 0; ax < 3; ++ax)
    if (a.off[ax] != 0) k[kernel_axis_[ax]] = a.off[ax];
  const auto inputs = spec_.inputs();
  if (a.field >= static_cast<int>(inputs.size()))
    return fmt::format("in.template mid<{}, {}, {}, {}>()", a.field - static_cast<int>(inputs.size()), k[0], k[1], k[2]);
  return fmt::format("in.template at<f_{}, {}, {}, {}>()", inputs[a.field]->name, k[0], k[1], k[2]);
}

std::string CudaPrinter::coefficient(const Rational& c) {
  for (const auto& [v, name] : coeffs_)
    if (v == c) return name;
  coeffs_.emplace_back(c, fmt::format("kC{}", coeffs_.size()));
  return coeffs_.back().second;
}

// sum_t c_t * a_t, grouped by |c_t|: "kC1 * (a + b - c)". Groups in order of
// how far their reads reach, so the centre comes first and the rest by ring.
std::string CudaPrinter::linear(const Ir& e, const std::string& let_name) {
  if (auto it = hoisted_.find(&e); it != hoisted_.end()) return it->second;
  std::map<Rational, std::vector<Term>, bool (*)(const Rational&, const Rational&)> groups(
      [](const Rational& a, const Rational& b) { return a < b; });
  for (const auto& t : e.terms) groups[abs(t.coeff)].push_back(t);
  auto reach = [](const Term& t) { return std::abs(t.access.off[0]) + std::abs(t.access.off[1]) + std::abs(t.access.off[2]); };
  std::vector<std::vector<Term>> ordered;
  for (auto& [c, terms] : groups) {
    std::stable_sort(terms.begin(), terms.end(), [&](const Term& a, const Term& b) {
      // by field, ring, axis, then offset: x-, x+, y-, y+, ...
      auto key = [&](const Term& t) {
        int axis = 0;
        while (axis < 2 && t.access.off[axis] == 0) ++axis;
        return std::make_tuple(t.access.field, reach(t), axis, t.access.off);
      };
      return key(a) < key(b);
    });
    ordered.push_back(terms);
  }
  std::stable_sort(ordered.begin(), ordered.end(), [&](const auto& a, const auto& b) {
    auto lo = [&](const std::vector<Term>& g) { int m = 1 << 20; for (auto& t : g) m = std::min(m, reach(t)); return m; };
    return lo(a) < lo(b);
  });

  const std::string name = let_name.empty() ? fmt::format("t{}", temps_++) : let_name;
  std::vector<std::string> lines;
  for (const auto& g : ordered) {
    const int negatives = static_cast<int>(std::count_if(g.begin(), g.end(), [](const Term& t) { return t.coeff.num() < 0; }));
    const bool flip = 2 * negatives > static_cast<int>(g.size());  // factor out the sign most terms share
    const Rational mag = abs(g.front().coeff);
    std::string sum;
    for (std::size_t i = 0; i < g.size(); ++i) {
      const bool neg = (g[i].coeff.num() < 0) != flip;
      if (i == 0) sum += (neg ? "-" : "") + access(g[i].access);
      else sum += fmt::format("{} {} {}", i % 2 == 0 ? "\n       " : "", neg ? "-" : "+", access(g[i].access));
    }
    const std::string sign = flip ? "-" : "";
    if (mag == Rational(1)) lines.push_back(g.size() == 1 ? sign + sum : fmt::format("{}({})", sign, sum));
    else lines.push_back(fmt::format("{}{} * {}", sign, coefficient(mag), g.size() == 1 ? sum : "(" + sum + ")"));
  }
  std::string st = fmt::format("const real {} =", name);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string l = lines[i];
    const bool neg = !l.empty() && l[0] == '-';
    if (i == 0) st += " " + l;
    else st += fmt::format("\n    {} {}", neg ? "-" : "+", neg ? l.substr(1) : l);
  }
  statements_.push_back(st + ";");
  hoisted_.emplace(&e, name);
  return name;
}

CudaPrinter::Printed CudaPrinter::hoist(const Ir& e, std::string name) {
  if (e.kind == Ir::Kind::Linear) return {linear(e, name), 4};
  const Printed value = print(e);
  if (name.empty()) name = fmt::format("t{}", temps_++);  // numbered after the temporaries it reads
  statements_.push_back(fmt::format("const real {} = {};", name, value.text));
  hoisted_.emplace(&e, name);
  return {name, 4};
}

CudaPrinter::Printed CudaPrinter::print(const Ir& e) {
  if (auto it = hoisted_.find(&e); it != hoisted_.end()) return {it->second, 4};
  if (auto it = named_.find(&e); it != named_.end()) {
    const std::string name = it->second;
    named_.erase(it);  // print the value itself in hoist(), once
    shared_.erase(&e);
    return hoist(e, name);
  }
  const bool leaf = e.kind == Ir::Kind::Const || e.kind == Ir::Kind::Param || e.kind == Ir::Kind::Field;
  // The negation of a value that prints as a name (-l_w) is written out at
  // each use: the instruction that uses it takes the sign.
  const bool negated_name = e.kind == Ir::Kind::Neg && prints_as_name(*e.args[0]);
  if (!leaf && !negated_name && shared_.erase(&e)) return hoist(e, "");
  auto wrap = [](const Printed& p, int need) { return p.prec < need ? "(" + p.text + ")" : p.text; };
  switch (e.kind) {
    case Ir::Kind::Const: {
      const double v = e.number.value();
      std::string s = real_literal(std::fabs(v), spec_.dtype);
      if (e.number.exact && !e.number.r.is_integer()) {
        // keep the exact value visible next to its rounding
        s += fmt::format(" /* {} */", abs(e.number.r).str());
      }
      return v < 0 ? Printed{"-" + s, 3} : Printed{s, 4};
    }
    case Ir::Kind::Param: return {"p_" + spec_.params[e.param].name, 4};
    case Ir::Kind::Field: return {access(e.access), 4};
    case Ir::Kind::Linear: return {linear(e), 4};
    case Ir::Kind::Neg: {
      // Never "--x" (a decrement): a negative operand keeps its parentheses.
      const Printed x = print(*e.args[0]);
      return {"-" + (x.text[0] == '-' ? "(" + x.text + ")" : wrap(x, 3)), 3};
    }
    case Ir::Kind::Call: {
      if (fast()) {
        // sqrt(s) of a formula that also divides by it: s rsqrt(s), rsqrt(s) once.
        if (is_call(e, MathFn::Sqrt) && divided_by_sqrt_.count(e.args[0].get())) {
          const std::string rs = rsqrt_of(*e.args[0]);
          return {fmt::format("gpen::fast_sqrt({}, {})", print(*e.args[0]).text, rs), 4};
        }
        // float32 exp(x c), c the same at every point: 2^(x (c log2 e)), the
        // product c log2 e made once outside the loop, not at every call.
        if (const int c = spec_.dtype == Dtype::Float32 ? exp_invariant_factor(e) : -1; c >= 0) {
          const Ir& m = *e.args[0];
          const Printed x = print(*m.args[1 - c]), k = print(*m.args[c]);
          return {fmt::format("gpen::fast_exp2({} * ({} * 1.44269504088896341f))", x.prec < 2 ? "(" + x.text + ")" : x.text,
                              k.prec < 2 ? "(" + k.text + ")" : k.text), 4};
        }
      }
      std::string s = spec_.dtype == Dtype::Float32 ? info(e.fn).cuda_f32 : info(e.fn).cuda_f64;
      // "math": "fast": the hardware approximations (specs/README.md has their bounds).
      if (const char* f = fast() ? fast_function(e.fn, spec_.dtype) : nullptr) s = f;
      for (const auto& [fn, name] : overrides_)
        if (fn == e.fn) s = name;
      const bool flagged = !slow_flag_.empty() && (e.fn == MathFn::Sqrt || e.fn == MathFn::Exp);
      if (flagged) {
        s = e.fn == MathFn::Sqrt ? "gpen::sqrt_rn" : "gpen::exp_f64";
        ++flagged_calls_;
      }
      s += "(";
      for (std::size_t i = 0; i < e.args.size(); ++i) s += (i ? ", " : "") + print(*e.args[i]).text;
      return {s + (flagged ? ", " + slow_flag_ : "") + ")", 4};
    }
    default: {
      // x / c with an exact constant c: x times 1/c, rounded once. A
      // division by a constant is a reciprocal and a correction (and a slow
      // path) on the GPU; the product differs from it by at most an ulp, and
      // not at all where 1/c is a power of two.
      const Ir& den = *e.args[1];
      if (e.kind == Ir::Kind::Div && den.kind == Ir::Kind::Const && den.number.exact && !den.number.r.is_zero()) {
        const Printed l = print(*e.args[0]);
        return {fmt::format("{} * {}", wrap(l, 2), coefficient(Rational(1) / den.number.r)), 2};
      }
      if (e.kind == Ir::Kind::Div && fast()) {
        // a / sqrt(s) as a rsqrt(s); any other division by the reciprocal's approximation.
        const Printed l = print(*e.args[0]);
        if (is_call(den, MathFn::Sqrt)) return {fmt::format("{} * {}", wrap(l, 2), rsqrt_of(*den.args[0])), 2};
        return {fmt::format("gpen::fast_div({}, {})", l.text, print(den).text), 4};
      }
      if (e.kind == Ir::Kind::Div && !slow_flag_.empty()) {
        ++flagged_calls_;
        const Printed l = print(*e.args[0]);
        return {fmt::format("gpen::div_rn({}, {}, {})", l.text, print(den).text, slow_flag_), 4};
      }
      const bool additive = e.kind == Ir::Kind::Add || e.kind == Ir::Kind::Sub;
      const int prec = additive ? 1 : 2;
      const char* op = e.kind == Ir::Kind::Add ? "+" : e.kind == Ir::Kind::Sub ? "-" : e.kind == Ir::Kind::Mul ? "*" : "/";
      const Printed l = print(*e.args[0]);
      const Printed r = print(*e.args[1]);
      // The right operand keeps its parentheses at equal precedence: floating
      // point is not associative, so a + (b + c) stays as written.
      return {fmt::format("{} {} {}", wrap(l, prec), op, wrap(r, prec + 1)), prec};
    }
  }
}

bool CudaPrinter::prints_as_name(const Ir& e) const {
  return e.kind == Ir::Kind::Const || e.kind == Ir::Kind::Param || e.kind == Ir::Kind::Field || hoisted_.count(&e) || named_.count(&e);
}

std::string CudaPrinter::rsqrt_of(const Ir& s) {
  if (auto it = rsqrt_of_.find(&s); it != rsqrt_of_.end()) return it->second;
  // s is printed twice (here and in sqrt's s rsqrt(s)): a temporary of its
  // own, unless it is a name already or a shared node (which hoists itself).
  const std::string arg = prints_as_name(s) || shared_.count(&s) ? print(s).text : hoist(s, "").text;
  const std::string name = fmt::format("t{}", temps_++);
  statements_.push_back(fmt::format("const real {} = gpen::fast_rsqrt({});", name, arg));
  rsqrt_of_.emplace(&s, name);
  return name;
}

}  // namespace gpen
