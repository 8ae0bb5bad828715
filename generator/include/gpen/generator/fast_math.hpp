// The rewrites "math": "fast" makes as it prints (cuda_printer.cpp), named
// once for the printer and for the models that count what it prints (the
// pairwise family's unit bound, pair_cost.cpp).
#pragma once

#include "gpen/generator/ir.hpp"
#include "gpen/generator/spec.hpp"

namespace gpen {

// The function "math": "fast" prints for `fn` in `dtype`
// (families/common/device/math.cuh), or nullptr where it keeps CUDA's.
const char* fast_function(MathFn fn, Dtype dtype);

// Whether e is the same at every point (or pair): constants and params only.
bool ir_invariant(const Ir& e);

inline bool is_call(const Ir& e, MathFn fn) { return e.kind == Ir::Kind::Call && e.fn == fn; }

// float32 exp(x c) with c invariant prints as 2^(x (c log2 e)), the product
// c log2 e made once outside the loop: the argument's operand that is c (0
// or 1), or -1 where exp's argument is no such product.
int exp_invariant_factor(const Ir& exp_call);

// a / sqrt(s) prints as a rsqrt(s), and sqrt(s) of such an s as s rsqrt(s),
// rsqrt(s) made once.
inline bool divides_by_sqrt(const Ir& e) { return e.kind == Ir::Kind::Div && is_call(*e.args[1], MathFn::Sqrt); }

}  // namespace gpen
