// gpen math helpers: the functions of the expression language that CUDA's
// math library lacks. Included by every family whose specs hold
// expressions (stencil_common.cuh, scan_common.cuh, pairwise.cuh); the
// generator prints calls of them as gpen::name (generator/src/expr/ir.cpp).
#pragma once

namespace gpen {

// log(exp(a) + exp(b)) without overflow, as torch.logaddexp; the operation
// of a log-cumsum-exp scan, whose identity is -inf:
//   logaddexp(-inf, -inf) = -inf   (the kernels pad with the identity and
//                                   combine it with itself)
//   logaddexp(x, -inf)    = x
//   logaddexp(inf, x)     = inf
//   logaddexp(NaN, x)     = NaN
// The usual max(a, b) + log1p(exp(-abs(a - b))) gives NaN at the first,
// since -inf - -inf is NaN; equal arguments take the branch instead. One
// select, no tests of the class of a or b: the register pressure of a
// scan that holds 16 values a thread stays that of a + b (checked by ptxas
// in tests/families/scan/test_scan.cpp). The CPU twin is gpen::logaddexp in ir.cpp.
__device__ __forceinline__ double logaddexp(double a, double b) {
  if (a == b) return a + 0.6931471805599453;     // + ln 2; for equal infinities a - b would be NaN
  return fmax(a, b) + log1p(exp(-fabs(a - b)));  // a NaN goes through a - b
}

__device__ __forceinline__ float logaddexp(float a, float b) {
  if (a == b) return a + 0.6931472f;
  return fmaxf(a, b) + log1pf(expf(-fabsf(a - b)));
}

}  // namespace gpen
