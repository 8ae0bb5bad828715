#include "gpen/families/pairwise/pair_cost.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "gpen/generator/fast_math.hpp"
#include "gpen/generator/ir_common.hpp"

namespace gpen {
namespace {

// What a call executes on the H100 (sm_90, CUDA 13.0), from Nsight
// Compute's counts of bench/math_costs.cu (bench/math_costs.sh; the run is
// in bench/RESULTS.md): float32 (FMA) pipe, float64 pipe, MUFU, other.
// "Other" (integer, selects, branches) is the fewest seen: float64 exp
// (gpen::exp_f64) executes 17 alone but about 7 inside the Yukawa kernel
// (bench/pairwise_pipes.py), and counting too many would lower the issue
// bound and flatter the kernel.
// logaddexp is exp's and log's (log1p taken as log) with a compare and a
// max. Calls the table lacks count as one instruction of the dtype's pipe.
struct Cost {
  double pipe32, pipe64, mufu, other;
};
using Table = std::map<MathFn, Cost>;

const Table& accurate_costs(Dtype dtype) {
  static const Table f32 = {{MathFn::Sqrt, {4, 0, 1, 5}},   {MathFn::Rsqrt, {2, 0, 1, 1}}, {MathFn::Exp, {6, 0, 1, 3}},
                            {MathFn::Log, {15, 0, 0, 11}},  {MathFn::Sin, {14, 0, 1, 13}}, {MathFn::Cos, {15, 0, 1, 13}},
                            {MathFn::Tanh, {9, 0, 2, 6}},   {MathFn::Pow, {42, 0, 4, 42}}, {MathFn::Min, {0, 0, 0, 1}},
                            {MathFn::Max, {0, 0, 0, 1}},    {MathFn::Abs, {0, 0, 0, 0}},   {MathFn::Fma, {0, 0, 0, 0}},
                            {MathFn::LogAddExp, {22, 0, 1, 16}}};
  static const Table f64 = {{MathFn::Sqrt, {4, 8, 1, 5}},    {MathFn::Rsqrt, {3, 5, 1, 5}},  {MathFn::Exp, {2, 15, 0, 7}},
                            {MathFn::Log, {13, 30, 1, 40}},  {MathFn::Sin, {4, 16, 2, 23}},  {MathFn::Cos, {5, 16, 2, 23}},
                            {MathFn::Tanh, {6, 33, 6, 55}},  {MathFn::Pow, {27, 86, 1, 80}}, {MathFn::Min, {2, 1, 0, 5}},
                            {MathFn::Max, {2, 1, 0, 5}},     {MathFn::Abs, {0, 0, 0, 0}},    {MathFn::Fma, {0, 0, 0, 0}},
                            {MathFn::LogAddExp, {18, 48, 1, 51}}};
  return dtype == Dtype::Float32 ? f32 : f64;
}

// "math": "fast": the functions it prints otherwise (fast_function), each one here.
const Table& fast_costs(Dtype dtype) {
  static const Table f32 = {{MathFn::Sqrt, {0, 0, 1, 0}}, {MathFn::Rsqrt, {0, 0, 1, 0}}, {MathFn::Exp, {1, 0, 1, 0}}, {MathFn::Log, {1, 0, 1, 0}},
                            {MathFn::Sin, {1, 0, 1, 0}},  {MathFn::Cos, {1, 0, 1, 0}},   {MathFn::Pow, {5, 0, 2, 2}}};
  static const Table f64 = {{MathFn::Sqrt, {0, 7, 1, 5}}, {MathFn::Rsqrt, {0, 5, 1, 3}}};
  return dtype == Dtype::Float32 ? f32 : f64;
}

constexpr Cost kFastDivision32{1, 0, 1, 0}, kFastDivision64{0, 4, 1, 1};
constexpr Cost kDivision32{5, 0, 2, 3}, kDivision64{2, 8, 1, 5};
constexpr Cost kSqrtFromRsqrt32{1, 0, 0, 1}, kSqrtFromRsqrt64{0, 2, 0, 2};
constexpr Cost kExp2Fast32{0, 0, 1, 0};  // exp(x c): the product is the IR's multiply

// e with each subexpression of params and constants alone made one param:
// the compiler computes it once a thread, outside the loop over sources
// (a geometry factor 1 / (4 pi h^2), -kappa), so it costs a pair nothing.
IrPtr loop_body(const IrPtr& e, std::map<const Ir*, IrPtr>& done) {
  if (e->args.empty()) return e;
  if (auto it = done.find(e.get()); it != done.end()) return it->second;
  IrPtr out = ir_param(0);
  if (!ir_invariant(*e)) {
    auto copy = std::make_shared<Ir>(*e);
    for (auto& a : copy->args) a = loop_body(a, done);
    out = copy;
  }
  done.emplace(e.get(), out);
  return out;
}

void add(PairCost& c, const Cost& k) {
  c.fp32 += k.pipe32;
  c.fp64 += k.pipe64;
  c.mufu += k.mufu;
  c.other += k.other;
}

}  // namespace

PairCost pair_cost(const Spec& spec) {
  const bool f32 = spec.dtype == Dtype::Float32, fast = spec.math == MathPolicy::Fast;
  std::vector<IrPtr> roots = share_common_subexpressions(spec.output_exprs());
  std::map<const Ir*, IrPtr> hoisted;
  for (auto& r : roots) r = loop_body(r, hoisted);
  PairCost c;
  // Adds, multiplies and fused multiply-adds, fused where CUDA fuses them.
  double arithmetic = ir_work(roots).fma_pipe;
  // Each output's reduction: a sum adds (fused with a product at the root),
  // min and max take a select.
  for (std::size_t o = 0; o < spec.outputs.size(); ++o) {
    const Ir& root = *roots[o];
    // a / sqrt(s) and a / c print as products: they fuse with the sum's add as a product does.
    const bool product = root.kind == Ir::Kind::Mul || (root.kind == Ir::Kind::Div && ((fast && divides_by_sqrt(root)) ||
                                                                                        (root.args[1]->kind == Ir::Kind::Const && root.args[1]->number.exact)));
    if (spec.outputs[o].reduce != Reduce::Sum) add(c, accurate_costs(spec.dtype).at(MathFn::Min));
    else if (!product) arithmetic += 1;
  }
  // The calls and divisions, each distinct one once.
  std::set<const Ir*> seen, rsqrt_of;
  std::vector<const Ir*> todo;
  for (const auto& r : roots) todo.push_back(r.get());
  std::set<const Ir*> sqrt_divided;  // fast: the s of every a / sqrt(s)
  std::vector<const Ir*> nodes;
  while (!todo.empty()) {
    const Ir* e = todo.back();
    todo.pop_back();
    if (!seen.insert(e).second) continue;
    nodes.push_back(e);
    if (fast && divides_by_sqrt(*e)) {
      // The printer never prints this sqrt(s) for the division (a rsqrt(s)): s is what it reads.
      sqrt_divided.insert(e->args[1]->args[0].get());
      todo.push_back(e->args[0].get());
      todo.push_back(e->args[1]->args[0].get());
      continue;
    }
    for (const auto& a : e->args) todo.push_back(a.get());
  }
  const Cost rsqrt = f32 ? fast_costs(spec.dtype).at(MathFn::Rsqrt) : (fast ? fast_costs : accurate_costs)(spec.dtype).at(MathFn::Rsqrt);
  for (const Ir* e : nodes) {
    if (e->kind == Ir::Kind::Div) {
      const Ir& den = *e->args[1];
      if (den.kind == Ir::Kind::Const && den.number.exact) arithmetic += 1;  // a product with 1/c
      else if (fast && is_call(den, MathFn::Sqrt)) {
        arithmetic += 1;
        if (rsqrt_of.insert(den.args[0].get()).second) add(c, rsqrt);
      } else add(c, fast ? (f32 ? kFastDivision32 : kFastDivision64) : (f32 ? kDivision32 : kDivision64));
    } else if (e->kind == Ir::Kind::Linear && e->terms.size() > 1 &&
               std::all_of(e->terms.begin(), e->terms.end(), [](const Term& t) { return abs(t.coeff) == Rational(1); })) {
      arithmetic -= 1;  // ir_work counts n terms as n multiply-adds; of unit weights they are n - 1 adds (x_i - x_j)
    } else if (e->kind == Ir::Kind::Call) {
      if (fast && is_call(*e, MathFn::Sqrt) && sqrt_divided.count(e->args[0].get())) {
        add(c, f32 ? kSqrtFromRsqrt32 : kSqrtFromRsqrt64);
        if (rsqrt_of.insert(e->args[0].get()).second) add(c, rsqrt);
      } else if (is_call(*e, MathFn::Rsqrt)) {
        if (rsqrt_of.insert(e->args[0].get()).second) add(c, rsqrt);  // float32 pairwise: one MUFU under both policies
      } else if (fast && f32 && exp_invariant_factor(*e) >= 0) {
        add(c, kExp2Fast32);
      } else {
        const Table& t = fast && fast_function(e->fn, spec.dtype) ? fast_costs(spec.dtype) : accurate_costs(spec.dtype);
        const auto it = t.find(e->fn);
        if (it != t.end()) add(c, it->second);
        else arithmetic += 1;
      }
    }
  }
  (f32 ? c.fp32 : c.fp64) += arithmetic;
  return c;
}

}  // namespace gpen
