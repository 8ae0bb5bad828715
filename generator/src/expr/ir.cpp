#include "gpen/generator/ir.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "gpen/generator/error.hpp"

namespace gpen {

const std::vector<MathFnInfo>& math_functions() {
  static const std::vector<MathFnInfo> all = {
      {MathFn::Sqrt, "sqrt", 1, "sqrt", "sqrtf"},   {MathFn::Rsqrt, "rsqrt", 1, "rsqrt", "rsqrtf"},
      {MathFn::Exp, "exp", 1, "gpen::exp_f64", "expf"},  // CUDA's exp, bit for bit (math.cuh)
      {MathFn::Log, "log", 1, "log", "logf"},
      {MathFn::Sin, "sin", 1, "sin", "sinf"},       {MathFn::Cos, "cos", 1, "cos", "cosf"},
      {MathFn::Tanh, "tanh", 1, "tanh", "tanhf"},   {MathFn::Pow, "pow", 2, "pow", "powf"},
      {MathFn::Abs, "abs", 1, "fabs", "fabsf"},     {MathFn::Min, "min", 2, "fmin", "fminf"},
      {MathFn::Max, "max", 2, "fmax", "fmaxf"},     {MathFn::Fma, "fma", 3, "fma", "fmaf"},
      // helpers in families/common/device/math.cuh: one overloaded, logf and friends in its float one
      {MathFn::LogAddExp, "logaddexp", 2, "gpen::logaddexp", "gpen::logaddexp"},
  };
  return all;
}

const MathFnInfo* find_math_function(const std::string& name) {
  for (const auto& f : math_functions())
    if (name == f.name) return &f;
  return nullptr;
}

const MathFnInfo& info(MathFn fn) {
  for (const auto& f : math_functions())
    if (f.fn == fn) return f;
  GPEN_INTERNAL_CHECK(false, "unknown math function");
}

namespace {
thread_local IrBudget* current_budget = nullptr;
}  // namespace

IrBudget::IrBudget(std::size_t max_units, int max_depth) : max_units_(max_units), max_depth_(max_depth), outer_(current_budget) {
  current_budget = this;
}
IrBudget::~IrBudget() { current_budget = outer_; }

void IrBudget::spend(std::size_t units) {
  expect(units);
  used_ += units;
}

void IrBudget::expect(std::size_t units) const {
  if (units > max_units_ - used_)
    throw IrTooLarge(fmt::format("the lowered expression grows past {} nodes and terms (operators applied to products copy them once per offset)", max_units_));
}

void IrBudget::check_depth(int depth) const {
  if (depth > max_depth_) throw IrTooLarge(fmt::format("the lowered expression nests deeper than {} levels", max_depth_));
}

namespace {
std::shared_ptr<Ir> make(Ir::Kind k) {
  if (current_budget) current_budget->spend(1);
  auto n = std::make_shared<Ir>();
  n->kind = k;
  return n;
}
// Sets e's depth from its arguments, within the budget's limit.
IrPtr with_depth(std::shared_ptr<Ir> e) {
  for (const auto& a : e->args) e->depth = std::max(e->depth, a->depth + 1);
  if (current_budget) current_budget->check_depth(e->depth);
  return e;
}
bool is_linear(const IrPtr& e) { return e->kind == Ir::Kind::Linear || e->kind == Ir::Kind::Field; }
std::vector<Term> terms_of(const IrPtr& e) {
  if (e->kind == Ir::Kind::Field) return {Term{Rational(1), e->access}};
  return e->terms;
}
}  // namespace

IrPtr ir_const(Number n) {
  auto e = make(Ir::Kind::Const);
  e->number = n;
  return e;
}
IrPtr ir_param(int index) {
  auto e = make(Ir::Kind::Param);
  e->param = index;
  return e;
}
IrPtr ir_field(Access a) {
  auto e = make(Ir::Kind::Field);
  e->access = a;
  return e;
}
IrPtr ir_linear(std::vector<Term> terms) {
  if (current_budget) current_budget->spend(terms.size());
  std::map<Access, Rational> sum;
  for (const auto& t : terms) sum[t.access] += t.coeff;
  auto e = make(Ir::Kind::Linear);
  for (const auto& [a, c] : sum)
    if (!c.is_zero()) e->terms.push_back({c, a});
  if (e->terms.empty()) return ir_const(Number::of(0));
  if (e->terms.size() == 1 && e->terms[0].coeff == Rational(1)) return ir_field(e->terms[0].access);
  return e;
}
IrPtr ir_binary(Ir::Kind kind, IrPtr a, IrPtr b) {
  if ((kind == Ir::Kind::Add || kind == Ir::Kind::Sub) && is_linear(a) && is_linear(b)) {
    auto t = terms_of(a);
    for (auto tb : terms_of(b)) {
      if (kind == Ir::Kind::Sub) tb.coeff = -tb.coeff;
      t.push_back(tb);
    }
    return ir_linear(std::move(t));
  }
  // exact constant times a linear combination stays a linear combination
  if (kind == Ir::Kind::Mul && a->kind == Ir::Kind::Const && a->number.exact && is_linear(b)) std::swap(a, b);
  if ((kind == Ir::Kind::Mul || kind == Ir::Kind::Div) && is_linear(a) && b->kind == Ir::Kind::Const &&
      b->number.exact && !b->number.r.is_zero()) {
    auto t = terms_of(a);
    for (auto& x : t) x.coeff = kind == Ir::Kind::Mul ? x.coeff * b->number.r : x.coeff / b->number.r;
    return ir_linear(std::move(t));
  }
  auto e = make(kind);
  e->args = {std::move(a), std::move(b)};
  return with_depth(std::move(e));
}
IrPtr ir_neg(IrPtr a) {
  if (is_linear(a)) {
    auto t = terms_of(a);
    for (auto& x : t) x.coeff = -x.coeff;
    return ir_linear(std::move(t));
  }
  if (a->kind == Ir::Kind::Const && a->number.exact) return ir_const(Number::of(-a->number.r));
  auto e = make(Ir::Kind::Neg);
  e->args = {std::move(a)};
  return with_depth(std::move(e));
}
IrPtr ir_call(MathFn fn, std::vector<IrPtr> args) {
  auto e = make(Ir::Kind::Call);
  e->fn = fn;
  e->args = std::move(args);
  return with_depth(std::move(e));
}

namespace {
IrPtr shift(const IrPtr& e, const std::array<int, 3>& by, std::map<const Ir*, IrPtr>& done) {
  if (e->kind == Ir::Kind::Const || e->kind == Ir::Kind::Param) return e;
  if (auto it = done.find(e.get()); it != done.end()) return it->second;
  auto move = [&](Access& a) {
    for (int ax = 0; ax < 3; ++ax) a.off[ax] += by[ax];
  };
  IrPtr out;
  switch (e->kind) {
    case Ir::Kind::Field: {
      Access a = e->access;
      move(a);
      out = ir_field(a);
      break;
    }
    case Ir::Kind::Linear: {
      auto t = e->terms;
      for (auto& x : t) move(x.access);
      out = ir_linear(std::move(t));
      break;
    }
    case Ir::Kind::Neg: out = ir_neg(shift(e->args[0], by, done)); break;
    case Ir::Kind::Call: {
      std::vector<IrPtr> args;
      for (const auto& a : e->args) args.push_back(shift(a, by, done));
      out = ir_call(e->fn, std::move(args));
      break;
    }
    default: out = ir_binary(e->kind, shift(e->args[0], by, done), shift(e->args[1], by, done));
  }
  done.emplace(e.get(), out);
  return out;
}
}  // namespace

IrPtr ir_shift(const IrPtr& e, const std::array<int, 3>& by) {
  std::map<const Ir*, IrPtr> done;
  return shift(e, by, done);
}

IrPtr ir_apply_points(const IrPtr& e, const std::vector<std::array<int, 3>>& offsets, const std::vector<Rational>& coeffs) {
  if (is_linear(e)) {
    if (current_budget) current_budget->spend(terms_of(e).size() * offsets.size());  // before the terms exist
    std::vector<Term> out;
    for (std::size_t k = 0; k < offsets.size(); ++k)
      for (auto t : terms_of(e)) {
        t.coeff = t.coeff * coeffs[k];
        for (int ax = 0; ax < 3; ++ax) t.access.off[ax] += offsets[k][ax];
        out.push_back(t);
      }
    return ir_linear(std::move(out));
  }
  if (current_budget) {
    // Each offset copies e: refuse before copying what would not fit.
    std::set<const Ir*> seen;
    std::size_t units = 0;
    std::vector<const Ir*> todo = {e.get()};
    while (!todo.empty()) {
      const Ir* n = todo.back();
      todo.pop_back();
      if (!seen.insert(n).second) continue;
      units += 1 + n->terms.size();
      for (const auto& a : n->args) todo.push_back(a.get());
    }
    current_budget->expect(units * offsets.size());
  }
  IrPtr sum;
  for (std::size_t k = 0; k < offsets.size(); ++k) {
    if (coeffs[k].is_zero()) continue;
    // One copy of e a point, the centre's too (shifted by 0): the centre
    // term is not the node e itself, so a spec's DAG keeps its shape.
    IrPtr term = ir_binary(Ir::Kind::Mul, ir_const(Number::of(coeffs[k])), ir_shift(e, offsets[k]));
    sum = sum ? ir_binary(Ir::Kind::Add, sum, term) : term;
  }
  return sum ? sum : ir_const(Number::of(0));
}

void accumulate_footprint(const Ir& e, Footprint& fp) {
  std::vector<Access> acc;
  collect_accesses(e, acc);
  for (const auto& a : acc)
    for (int ax = 0; ax < 3; ++ax) fp.at(a.field)[ax] = std::max(fp.at(a.field)[ax], std::abs(a.off[ax]));
}

namespace {
void collect(const Ir& e, std::vector<Access>& out, std::set<Access>& have, std::set<const Ir*>& seen) {
  if (!seen.insert(&e).second) return;
  auto add = [&](const Access& a) {
    if (have.insert(a).second) out.push_back(a);
  };
  if (e.kind == Ir::Kind::Field) add(e.access);
  for (const auto& t : e.terms) add(t.access);
  for (const auto& a : e.args) collect(*a, out, have, seen);
}
}  // namespace

void collect_accesses(const Ir& e, std::vector<Access>& out) {
  std::set<Access> have(out.begin(), out.end());
  std::set<const Ir*> seen;
  collect(e, out, have, seen);
}

double logaddexp(double a, double b) {
  if (a == b) return a + 0.6931471805599453;  // + ln 2; for equal infinities a - b would be NaN
  return std::fmax(a, b) + std::log1p(std::exp(-std::fabs(a - b)));  // a NaN goes through a - b
}

double apply_math(MathFn fn, const double* a) {
  switch (fn) {
    case MathFn::Sqrt: return std::sqrt(a[0]);
    case MathFn::Rsqrt: return 1.0 / std::sqrt(a[0]);
    case MathFn::Exp: return std::exp(a[0]);
    case MathFn::Log: return std::log(a[0]);
    case MathFn::Sin: return std::sin(a[0]);
    case MathFn::Cos: return std::cos(a[0]);
    case MathFn::Tanh: return std::tanh(a[0]);
    case MathFn::Pow: return std::pow(a[0], a[1]);
    case MathFn::Abs: return std::fabs(a[0]);
    case MathFn::Min: return std::fmin(a[0], a[1]);
    case MathFn::Max: return std::fmax(a[0], a[1]);
    case MathFn::Fma: return std::fma(a[0], a[1], a[2]);
    case MathFn::LogAddExp: return logaddexp(a[0], a[1]);
  }
  GPEN_INTERNAL_CHECK(false, "unhandled math function");
}

double evaluate(const Ir& e, const std::function<double(const Access&)>& read, const std::vector<double>& params) {
  auto arg = [&](int i) { return evaluate(*e.args[i], read, params); };
  switch (e.kind) {
    case Ir::Kind::Const: return e.number.value();
    case Ir::Kind::Param: return params.at(e.param);
    case Ir::Kind::Field: return read(e.access);
    case Ir::Kind::Linear: {
      double s = 0;
      for (const auto& t : e.terms) s += t.coeff.to_double() * read(t.access);
      return s;
    }
    case Ir::Kind::Add: return arg(0) + arg(1);
    case Ir::Kind::Sub: return arg(0) - arg(1);
    case Ir::Kind::Mul: return arg(0) * arg(1);
    case Ir::Kind::Div: return arg(0) / arg(1);
    case Ir::Kind::Neg: return -arg(0);
    case Ir::Kind::Call: {
      double a[3] = {0, 0, 0};
      for (std::size_t i = 0; i < e.args.size(); ++i) a[i] = arg(static_cast<int>(i));
      return apply_math(e.fn, a);
    }
  }
  GPEN_INTERNAL_CHECK(false, "unhandled IR node in evaluate");
}

}  // namespace gpen
