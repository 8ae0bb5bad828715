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

// float64 exp, the operations of CUDA's exp (libdevice __nv_exp, CUDA 13)
// one for one, so the same bits (tests/families/common/test_gpu_exp64.cpp
// compares them over the whole range): x = k ln 2 + r with k the nearest
// integer to x log2 e (ln 2 in two parts), e^r by a degree-11 polynomial,
// 2^k added to the exponent; |x| >= 708.39 takes the overflow, underflow
// and two-step scaling path. The polynomial's coefficients sit in constant
// memory, where a DFMA reads them as an operand: written as literals (as
// CUDA's are), ptxas moves each into a register pair before every use
// once a kernel runs short of uniform registers, two more instructions a
// coefficient (22 a call in the accurate Yukawa kernel, a quarter of what
// it issues; bench/RESULTS.md).
namespace gpen {

static __constant__ double kExpPoly[13] = {  // static: one copy a unit, also where units are linked (-rdc)
    0x1.ade1569ce2bdfp-26, 0x1.28af3fca213eap-22, 0x1.71dee62401315p-19, 0x1.a01997c89eb71p-16, 0x1.a01a014761f65p-13,
    0x1.6c16c1852b7afp-10, 0x1.1111111122322p-7,  0x1.55555555502a1p-5,  0x1.5555555555511p-3,  0x1.000000000000bp-1,
    0x1.71547652b82fep0,   0x1.62e42fefa39efp-1,  0x1.abc9e3b39803fp-56};

__device__ __forceinline__ double exp_f64(double x) {
  const double* c = kExpPoly;
  const double t = fma(x, c[10], 6755399441055744.0);  // 1.5 2^52: k in t's low word
  const double k = t - 6755399441055744.0;
  double r = fma(k, -c[11], x);
  r = fma(k, -c[12], r);
  double p = fma(r, c[0], c[1]);
#pragma unroll
  for (int j = 2; j < 10; ++j) p = fma(r, p, c[j]);
  p = fma(r, p, 1.0);
  p = fma(r, p, 1.0);
  const int i = __double2loint(t);
  const float h = fabsf(__int_as_float(__double2hiint(x)));  // |x|'s high word as CUDA's code compares it
  if (!(h < 4.1917929649353027344f)) {                       // |x| >= 708.39, or NaN
    double y = x < 0.0 ? 0.0 : x + __longlong_as_double(0x7ff0000000000000LL);
    if (h < 4.2275390625f) {  // |x| < 745.13: 2^k in two steps
      const int k1 = i / 2, k2 = i - k1;
      const double q = __hiloint2double(__double2hiint(p) + k1 * 0x100000, __double2loint(p));
      y = q * __hiloint2double(k2 * 0x100000 + 0x3ff00000, 0);
    }
    return y;
  }
  return __hiloint2double(__double2hiint(p) + i * 0x100000, __double2loint(p));
}

}  // namespace gpen
