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

// "math": "fast" (specs/README.md has each one's bound; the generator
// prints calls of these, generator/src/emit/cuda_printer.cpp). Subnormal
// arguments and results flush to zero: without .ftz each float32
// instruction is wrapped in a scale-up and scale-down (three more
// instructions), and no value of a simulation's formula comes near 2^-126.
namespace gpen {

// float32: one special-function (MUFU) instruction each, a multiply for exp and log.
__device__ __forceinline__ float fast_exp2(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ float fast_exp(float x) { return fast_exp2(x * 1.44269504088896341f); }
__device__ __forceinline__ float fast_log(float x) {
  float r;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r * 0.693147180559945309f;
}
__device__ __forceinline__ float fast_sqrt(float x) {
  float r;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ float fast_rsqrt(float x) {
  float r;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
// x / y as x times the reciprocal: 2 ulp (div.approx.ftz.f32 is the same
// two instructions, MUFU.RCP and a multiply).
__device__ __forceinline__ float fast_div(float x, float y) {
  float r;
  asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
  return r;
}
// sqrt(x) from rsqrt(x) computed anyway (a formula that divides by sqrt(x) too).
__device__ __forceinline__ float fast_sqrt(float x, float rsqrt_x) { return x == 0.0f ? x : x * rsqrt_x; }

// float64: a seed from the special-function unit (the high word's
// approximation, MUFU.RSQ64H / MUFU.RCP64H: about 2^-22) and one
// third-order correction, y (1 + e/2 + 3 e^2/8) for rsqrt, y (1 + e + e^2)
// for the reciprocal, e the seed's residual: about 2^-60 before the last
// rounding, within 2 ulp. Five and four FP64 instructions, against IEEE
// sqrt's and division's longer sequences with their slow-path tests.
// 0 and infinities give NaN (rsqrt, division by them); sqrt(0) is 0.
__device__ __forceinline__ double fast_rsqrt(double x) {
  double y;
  asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
  const double e = fma(-x * y, y, 1.0);
  return fma(y * e, fma(e, 0.375, 0.5), y);
}
__device__ __forceinline__ double fast_rcp(double x) {
  double y;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
  const double e = fma(-x, y, 1.0);
  return fma(y, fma(e, e, e), y);
}
__device__ __forceinline__ double fast_div(double x, double y) { return x * fast_rcp(y); }
__device__ __forceinline__ double fast_sqrt(double x, double rsqrt_x) { return x == 0.0 ? x : x * rsqrt_x; }
__device__ __forceinline__ double fast_sqrt(double x) { return fast_sqrt(x, fast_rsqrt(x)); }

}  // namespace gpen
