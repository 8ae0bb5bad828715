#include "gpen/generator/fast_math.hpp"

#include <algorithm>

namespace gpen {

const char* fast_function(MathFn fn, Dtype dtype) {
  switch (fn) {
    case MathFn::Sqrt: return "gpen::fast_sqrt";
    case MathFn::Rsqrt: return "gpen::fast_rsqrt";
    default: break;
  }
  if (dtype == Dtype::Float64) return nullptr;  // no fast float64 exp, log, sin, cos, pow
  switch (fn) {
    case MathFn::Exp: return "gpen::fast_exp";
    case MathFn::Log: return "gpen::fast_log";
    case MathFn::Sin: return "__sinf";
    case MathFn::Cos: return "__cosf";
    case MathFn::Pow: return "__powf";
    default: return nullptr;
  }
}

bool ir_invariant(const Ir& e) {
  if (e.kind == Ir::Kind::Const || e.kind == Ir::Kind::Param) return true;
  if (e.kind == Ir::Kind::Field || e.kind == Ir::Kind::Linear) return false;
  return std::all_of(e.args.begin(), e.args.end(), [](const IrPtr& a) { return ir_invariant(*a); });
}

int exp_invariant_factor(const Ir& exp_call) {
  if (!is_call(exp_call, MathFn::Exp) || exp_call.args[0]->kind != Ir::Kind::Mul) return -1;
  const Ir& m = *exp_call.args[0];
  return ir_invariant(*m.args[1]) ? 1 : ir_invariant(*m.args[0]) ? 0 : -1;
}

}  // namespace gpen
