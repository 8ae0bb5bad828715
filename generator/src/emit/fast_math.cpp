#include "gpen/generator/fast_math.hpp"

#include <algorithm>

namespace gpen {

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
