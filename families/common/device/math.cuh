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
// one for one, so the same bits (tests/families/common/test_gpu_math64.cpp
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

// The polynomial of e^r and k, shared by both forms below.
struct ExpF64Parts {
  double p;  // e^r
  int k;     // x = k ln 2 + r
  unsigned h;  // |x|'s high word: CUDA's code compares it as a float, and
              // for these (non-negative) bits the integer order is the float order
};
__device__ __forceinline__ ExpF64Parts exp_f64_parts(double x) {
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
  return {p, __double2loint(t), static_cast<unsigned>(__double2hiint(x)) & 0x7fffffffu};
}

// p 2^k, k added to p's exponent (no test of its range).
__device__ __forceinline__ double exp_f64_scale(double p, int k) {
  return __hiloint2double(__double2hiint(p) + k * 0x100000, __double2loint(p));
}

__device__ __forceinline__ double exp_f64(double x) {
  const ExpF64Parts e = exp_f64_parts(x);
  if (e.h >= 0x4086232bu) {  // |x| >= 708.39 (4.1917929649353027344f), or NaN
    double y = x < 0.0 ? 0.0 : x + __longlong_as_double(0x7ff0000000000000LL);
    if (e.h < 0x40874800u) {  // |x| < 745.13 (4.2275390625f): 2^k in two steps
      const int k1 = e.k / 2, k2 = e.k - k1;
      y = exp_f64_scale(e.p, k1) * exp_f64_scale(1.0, k2);
    }
    return y;
  }
  return exp_f64_scale(e.p, e.k);
}

}  // namespace gpen

// float64 sqrt, division and exp without their branches (pairwise
// kernels, "math": "accurate"; pairwise.cuh): each computes the common
// case of CUDA's operation and sets `slow` where its argument lies outside
// it. Where `slow` stays false the result is CUDA's, bit for bit: sqrt and
// division are correctly rounded (IEEE), and these are the steps and the
// range tests of the sequences ptxas emits for them (a seed, Newton steps,
// a last correction); exp is exp_f64's common path. The caller evaluates
// the pair again with the branching forms where any `slow` is set, so a
// pair's several IEEE operations cost one test, and the operations of
// several pairs can interleave (a branch a call serializes them).
namespace gpen {

// Common case: x in [2^-970, 2^1024) (not 0, negative, subnormal, inf or NaN).
__device__ __forceinline__ double sqrt_rn(double x, bool& slow) {
  slow |= static_cast<unsigned>(__double2hiint(x)) - 0x03500000u >= 0x7ca00000u;
  double y;
  asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
  // y y as ptxas' sequence has it. For x near 2^1024 y y is subnormal,
  // exact only while the seed's low word is 0 (MUFU.RSQ64H with a zeroed
  // low word, as the SASS of gpen's kernels shows): with other low words a
  // review's emulation misrounded some x there, where fma(-(x y), y, 1)
  // did not.
  const double e = fma(x, -(y * y), 1.0);
  y = fma(fma(e, 0.375, 0.5), y * e, y);                   // rsqrt(x) to about 2^-60
  const double q = x * y;
  const double h = __hiloint2double(__double2hiint(y) - 0x00100000, __double2loint(y));  // y / 2 by its exponent, as ptxas does
  return fma(fma(-q, q, x), h, q);                         // q + (x - q^2) / (2 sqrt(x)), rounded once
}

// Common case: |a| >= 2^-969, |b| below about 2^1017, and the quotient a
// normal number (not 0, subnormal, inf or NaN) below about 2^1017.
__device__ __forceinline__ double div_rn(double a, double b, bool& slow) {
  double y;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(b));
  double e = fma(y, -b, 1.0);
  y = fma(y, fma(e, e, e), y);
  y = fma(y, fma(y, -b, 1.0), y);                          // 1 / b to about 2^-64
  const double q = a * y;
  const double r = fma(y, fma(q, -b, a), q);               // q + (a - q b) / b, rounded once
  // ptxas' tests, on the high words' bits (it compares them as floats).
  const unsigned ha = __double2hiint(a) & 0x7fffffff, hb = __double2hiint(b) & 0x7fffffff, hr = __double2hiint(r) & 0x7fffffff;
  slow |= !(ha >= 0x03600000u && hb < 0x7f800000u && hr - 0x00100001u <= 0x7f800000u - 0x00100001u);
  return r;
}

// Common case: |x| < 708.39.
__device__ __forceinline__ double exp_f64(double x, bool& slow) {
  const ExpF64Parts e = exp_f64_parts(x);
  slow |= e.h >= 0x4086232bu;
  return exp_f64_scale(e.p, e.k);
}

}  // namespace gpen
