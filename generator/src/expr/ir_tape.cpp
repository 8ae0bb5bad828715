#include <algorithm>
#include <cmath>
#include <map>

#include "gpen/generator/error.hpp"
#include "gpen/generator/ir.hpp"

namespace gpen {

IrTape::IrTape(const std::vector<IrPtr>& roots, std::function<int(const Access&)> slot_of) : slot_of_(std::move(slot_of)) {
  if (!slot_of_) slot_of_ = [](const Access& a) { return a.field; };
  std::map<const Ir*, int> seen;
  for (const auto& r : roots) roots_.push_back(add(*r, seen));
}

int IrTape::add(const Ir& e, std::map<const Ir*, int>& seen) {
  if (auto it = seen.find(&e); it != seen.end()) return it->second;
  Op op;
  op.kind = e.kind;
  op.fn = e.fn;
  int* operands[3] = {&op.a, &op.b, &op.c};
  for (std::size_t i = 0; i < e.args.size() && i < 3; ++i) *operands[i] = add(*e.args[i], seen);
  switch (e.kind) {
    case Ir::Kind::Const: op.value = e.number.value(); break;
    case Ir::Kind::Param: op.slot = e.param; break;
    case Ir::Kind::Field: op.slot = slot_of_(e.access); break;
    case Ir::Kind::Linear:
      op.terms_begin = static_cast<int>(terms_.size());
      for (const auto& t : e.terms) terms_.emplace_back(t.coeff.to_double(), slot_of_(t.access));
      op.terms_end = static_cast<int>(terms_.size());
      break;
    default: break;
  }
  ops_.push_back(op);
  seen.emplace(&e, static_cast<int>(ops_.size() - 1));
  return static_cast<int>(ops_.size() - 1);
}

void IrTape::run(const double* values, const double* params, double* results, double* magnitudes) const {
  // Small tapes (every shipped spec's) need no allocation.
  double stack_regs[256], stack_mags[256];
  std::vector<double> heap_regs, heap_mags;
  double *r = stack_regs, *m = stack_mags;
  if (ops_.size() > 256) {
    heap_regs.resize(ops_.size());
    heap_mags.resize(ops_.size());
    r = heap_regs.data();
    m = heap_mags.data();
  }
  for (std::size_t i = 0; i < ops_.size(); ++i) {
    const Op& o = ops_[i];
    switch (o.kind) {
      case Ir::Kind::Const: r[i] = o.value; break;
      case Ir::Kind::Param: r[i] = params[o.slot]; break;
      case Ir::Kind::Field: r[i] = values[o.slot]; break;
      case Ir::Kind::Linear: {
        double s = 0;
        for (int t = o.terms_begin; t < o.terms_end; ++t) s += terms_[t].first * values[terms_[t].second];
        r[i] = s;
        break;
      }
      case Ir::Kind::Add: r[i] = r[o.a] + r[o.b]; break;
      case Ir::Kind::Sub: r[i] = r[o.a] - r[o.b]; break;
      case Ir::Kind::Mul: r[i] = r[o.a] * r[o.b]; break;
      case Ir::Kind::Div: r[i] = r[o.a] / r[o.b]; break;
      case Ir::Kind::Neg: r[i] = -r[o.a]; break;
      case Ir::Kind::Call: {
        const double args[3] = {o.a >= 0 ? r[o.a] : 0, o.b >= 0 ? r[o.b] : 0, o.c >= 0 ? r[o.c] : 0};
        r[i] = apply_math(o.fn, args);
        break;
      }
    }
    if (magnitudes) m[i] = magnitude(o, r, m, values, i);
  }
  for (std::size_t k = 0; k < roots_.size(); ++k) results[k] = r[roots_[k]];
  if (magnitudes)
    for (std::size_t k = 0; k < roots_.size(); ++k) magnitudes[k] = m[roots_[k]];
}

double IrTape::magnitude(const Op& o, const double* r, const double* m, const double* values, std::size_t i) const {
  switch (o.kind) {
    case Ir::Kind::Linear: {
      double s = 0;
      for (int t = o.terms_begin; t < o.terms_end; ++t) s += std::fabs(terms_[t].first * values[terms_[t].second]);
      return s;
    }
    case Ir::Kind::Add:
    case Ir::Kind::Sub: return m[o.a] + m[o.b];
    case Ir::Kind::Mul: return m[o.a] * m[o.b];
    case Ir::Kind::Div: return m[o.a] / std::fabs(r[o.b]) * std::max(1.0, m[o.b] / std::fabs(r[o.b]));
    case Ir::Kind::Neg: return m[o.a];
    case Ir::Kind::Call: {
      if (o.fn == MathFn::LogAddExp) {
        // Its slopes in a and b are weights summing to 1: the arguments'
        // errors pass through unamplified, and an argument of -inf is exact.
        double s = std::fabs(r[i]);
        for (int a : {o.a, o.b})
          if (std::isfinite(r[a])) s += m[a];
        return s;
      }
      double amplify = 1;
      for (int a : {o.a, o.b, o.c})
        if (a >= 0 && r[a] != 0) amplify = std::max(amplify, m[a] / std::fabs(r[a]));
      return std::fabs(r[i]) * amplify;
    }
    default: return std::fabs(r[i]);
  }
}

std::size_t IrTape::calls(const std::vector<MathFn>& fns) const {
  return static_cast<std::size_t>(std::count_if(ops_.begin(), ops_.end(), [&](const Op& o) {
    return o.kind == Ir::Kind::Call && std::find(fns.begin(), fns.end(), o.fn) != fns.end();
  }));
}

std::size_t IrTape::divisions() const {
  return static_cast<std::size_t>(std::count_if(ops_.begin(), ops_.end(), [](const Op& o) { return o.kind == Ir::Kind::Div; }));
}

}  // namespace gpen
