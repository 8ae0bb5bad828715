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
  run_points(values, 1, 1, params, results, magnitudes);
}

std::size_t IrTape::stretch() const { return std::clamp<std::size_t>(32768 / std::max<std::size_t>(1, ops_.size()), 1, 64); }

void IrTape::run_points(const double* values, std::size_t stride, std::size_t count, const double* params, double* results,
                        double* magnitudes) const {
  GPEN_INTERNAL_CHECK(count <= stride, "run_points of more points than its stride");
  // Small tapes of one point need no allocation; larger ones reuse their
  // thread's registers (a reference calls this for every stretch of every
  // row), at most about 256 KB with stretch() points (a tape's own size
  // where one point needs more).
  double stack_regs[256], stack_mags[256];
  thread_local std::vector<double> heap_regs, heap_mags;
  double *r = stack_regs, *m = stack_mags;
  if (ops_.size() * stride > 256) {
    if (heap_regs.size() < ops_.size() * stride) heap_regs.resize(ops_.size() * stride);
    if (magnitudes && heap_mags.size() < heap_regs.size()) heap_mags.resize(heap_regs.size());
    r = heap_regs.data();
    m = heap_mags.data();
  }
  for (std::size_t i = 0; i < ops_.size(); ++i) {
    const Op& o = ops_[i];
    double* out = r + i * stride;
    const double* a = o.a >= 0 ? r + static_cast<std::size_t>(o.a) * stride : nullptr;
    const double* b = o.b >= 0 ? r + static_cast<std::size_t>(o.b) * stride : nullptr;
    switch (o.kind) {
      case Ir::Kind::Const: std::fill(out, out + count, o.value); break;
      case Ir::Kind::Param: std::fill(out, out + count, params[o.slot]); break;
      case Ir::Kind::Field: std::copy(values + static_cast<std::size_t>(o.slot) * stride, values + static_cast<std::size_t>(o.slot) * stride + count, out); break;
      case Ir::Kind::Linear:
        // Term by term, as a point sums them: 0 + c0 v0 + c1 v1 + ...
        std::fill(out, out + count, 0.0);
        for (int t = o.terms_begin; t < o.terms_end; ++t) {
          const double c = terms_[t].first;
          const double* v = values + static_cast<std::size_t>(terms_[t].second) * stride;
          for (std::size_t p = 0; p < count; ++p) out[p] += c * v[p];
        }
        break;
      case Ir::Kind::Add: for (std::size_t p = 0; p < count; ++p) out[p] = a[p] + b[p]; break;
      case Ir::Kind::Sub: for (std::size_t p = 0; p < count; ++p) out[p] = a[p] - b[p]; break;
      case Ir::Kind::Mul: for (std::size_t p = 0; p < count; ++p) out[p] = a[p] * b[p]; break;
      case Ir::Kind::Div: for (std::size_t p = 0; p < count; ++p) out[p] = a[p] / b[p]; break;
      case Ir::Kind::Neg: for (std::size_t p = 0; p < count; ++p) out[p] = -a[p]; break;
      case Ir::Kind::Call: {
        const double* c = o.c >= 0 ? r + static_cast<std::size_t>(o.c) * stride : nullptr;
        for (std::size_t p = 0; p < count; ++p) {
          const double args[3] = {a ? a[p] : 0, b ? b[p] : 0, c ? c[p] : 0};
          out[p] = apply_math(o.fn, args);
        }
        break;
      }
    }
    if (magnitudes)
      for (std::size_t p = 0; p < count; ++p) m[i * stride + p] = magnitude(o, i, r, m, values, stride, p);
  }
  for (std::size_t k = 0; k < roots_.size(); ++k) {
    const std::size_t from = static_cast<std::size_t>(roots_[k]) * stride;
    std::copy(r + from, r + from + count, results + k * stride);
    if (magnitudes) std::copy(m + from, m + from + count, magnitudes + k * stride);
  }
}

double IrTape::magnitude(const Op& o, std::size_t i, const double* r, const double* m, const double* values, std::size_t stride, std::size_t p) const {
  auto R = [&](int op) { return r[static_cast<std::size_t>(op) * stride + p]; };
  auto M = [&](int op) { return m[static_cast<std::size_t>(op) * stride + p]; };
  switch (o.kind) {
    case Ir::Kind::Linear: {
      double s = 0;
      for (int t = o.terms_begin; t < o.terms_end; ++t) s += std::fabs(terms_[t].first * values[static_cast<std::size_t>(terms_[t].second) * stride + p]);
      return s;
    }
    case Ir::Kind::Add:
    case Ir::Kind::Sub: return M(o.a) + M(o.b);
    case Ir::Kind::Mul: return M(o.a) * M(o.b);
    case Ir::Kind::Div: return M(o.a) / std::fabs(R(o.b)) * std::max(1.0, M(o.b) / std::fabs(R(o.b)));
    case Ir::Kind::Neg: return M(o.a);
    case Ir::Kind::Call: {
      const double value = R(static_cast<int>(i));
      if (o.fn == MathFn::LogAddExp) {
        // Its slopes in a and b are weights summing to 1: the arguments'
        // errors pass through unamplified, and an argument of -inf is exact.
        double s = std::fabs(value);
        for (int a : {o.a, o.b})
          if (std::isfinite(R(a))) s += M(a);
        return s;
      }
      double amplify = 1;
      for (int a : {o.a, o.b, o.c})
        if (a >= 0 && R(a) != 0) amplify = std::max(amplify, M(a) / std::fabs(R(a)));
      return std::fabs(value) * amplify;
    }
    default: return std::fabs(R(static_cast<int>(i)));
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
