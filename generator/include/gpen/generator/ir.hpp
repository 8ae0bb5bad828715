// Lowered expressions: names resolved to field accesses at fixed offsets,
// params and math functions; operator applications expanded into exact
// linear combinations. The generator prints CUDA from this, and the CPU
// reference evaluates it in double precision, so both read the same meaning
// from the spec through two independent back ends.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpen/generator/rational.hpp"

namespace gpen {

// A literal: exact when it was written as a finite decimal that fits.
struct Number {
  bool exact = true;
  Rational r;
  double d = 0;
  static Number of(Rational q) { return {true, q, q.to_double()}; }
  double value() const { return exact ? r.to_double() : d; }
};

// One input field read at an offset from the current point, in user axes
// (0 = x, 1 = y, 2 = z).
struct Access {
  int field = 0;
  std::array<int, 3> off{0, 0, 0};
  friend bool operator<(const Access& a, const Access& b) {
    return a.field != b.field ? a.field < b.field : a.off < b.off;
  }
  friend bool operator==(const Access& a, const Access& b) { return a.field == b.field && a.off == b.off; }
};

struct Term {
  Rational coeff;
  Access access;
};

enum class MathFn { Sqrt, Rsqrt, Exp, Log, Sin, Cos, Tanh, Pow, Abs, Min, Max, Fma, LogAddExp };

struct MathFnInfo {
  MathFn fn;
  const char* name;   // as written in specs
  int arity;
  const char* cuda_f64;
  const char* cuda_f32;
};
const std::vector<MathFnInfo>& math_functions();
const MathFnInfo* find_math_function(const std::string& name);
const MathFnInfo& info(MathFn fn);

struct Ir;
using IrPtr = std::shared_ptr<const Ir>;

struct Ir {
  enum class Kind { Const, Param, Field, Linear, Add, Sub, Mul, Div, Neg, Call };
  Kind kind;
  Number number;             // Const
  int param = -1;            // Param: index into spec params
  Access access;             // Field
  std::vector<Term> terms;   // Linear: sum of coeff * access, sorted, no zero coefficients
  MathFn fn = MathFn::Sqrt;  // Call
  std::vector<IrPtr> args;   // Add/Sub/Mul/Div: 2, Neg: 1, Call: arity
  int depth = 1;             // 1 + the deepest argument's depth
};

// Thrown by the ir_* functions past the limits of the IrBudget in force.
class IrTooLarge : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// While one is alive on this thread, the ir_* functions count the nodes and
// linear terms they build and the depth they reach, and throw IrTooLarge
// past its limits, before the work grows further: the lowering of one
// expression holds one (lower.cpp). Without one nothing is counted.
class IrBudget {
 public:
  IrBudget(std::size_t max_units, int max_depth);
  ~IrBudget();
  IrBudget(const IrBudget&) = delete;
  IrBudget& operator=(const IrBudget&) = delete;
  std::size_t used() const { return used_; }
  void spend(std::size_t units);
  // Throws now if `units` more would pass the limit: a check before work
  // whose size is known in advance (copies of an operand).
  void expect(std::size_t units) const;
  void check_depth(int depth) const;

 private:
  std::size_t max_units_;
  int max_depth_;
  std::size_t used_ = 0;
  IrBudget* outer_;
};

IrPtr ir_const(Number n);
IrPtr ir_param(int index);
IrPtr ir_field(Access a);
IrPtr ir_linear(std::vector<Term> terms);  // merges equal accesses, drops zeros
IrPtr ir_binary(Ir::Kind kind, IrPtr a, IrPtr b);  // folds linear + linear exactly
IrPtr ir_neg(IrPtr a);
IrPtr ir_call(MathFn fn, std::vector<IrPtr> args);

// e with every field access moved by `by` (user axes); a node shared in e
// is shifted once and stays shared (a DAG stays a DAG).
IrPtr ir_shift(const IrPtr& e, const std::array<int, 3>& by);

// Applies the stencil sum_k coeffs[k] * e(x + offsets[k]), offsets in user
// axes (a 1-D operator's along its axis, a 2-D one's along its two).
IrPtr ir_apply_points(const IrPtr& e, const std::vector<std::array<int, 3>>& offsets, const std::vector<Rational>& coeffs);

// Largest |offset| per user axis, per input field (indexed like the spec's inputs).
using Footprint = std::vector<std::array<int, 3>>;
void accumulate_footprint(const Ir& e, Footprint& fp);

// Every distinct access in e (for tests and the plan), each shared node visited once.
void collect_accesses(const Ir& e, std::vector<Access>& out);

// fn of args[0 .. arity-1] in double precision.
double apply_math(MathFn fn, const double* args);

// log(exp(a) + exp(b)) without overflow, as torch.logaddexp: -inf is its
// identity (logaddexp(-inf, -inf) = -inf, logaddexp(x, -inf) = x), +inf
// absorbs, NaN propagates. The CPU twin of gpen::logaddexp in
// families/common/device/math.cuh.
double logaddexp(double a, double b);

// Evaluates e in double precision. `read` returns an input value at an access.
double evaluate(const Ir& e, const std::function<double(const Access&)>& read, const std::vector<double>& params);

}  // namespace gpen

namespace gpen {

// Expressions flattened into a list of operations, shared nodes (lets) once,
// for evaluating them many times (the CPU references of pairwise specs):
// run() reads input slot k as values[k] and writes root r to results[r].
// With `magnitudes`, it also writes root r's magnitude there: the value of
// the expression with every operand replaced by its magnitude and every
// subtraction by an addition (Higham's running error analysis), so that
// u * magnitude bounds the rounding error of one operation in it, however
// much its terms cancel. Functions take |f(x)| * max(1, magnitude(x) / |x|).
class IrTape {
 public:
  // `slot_of` names the input slot run() reads an access from; by default
  // the access's field (pair values), for stencils one slot per offset.
  explicit IrTape(const std::vector<IrPtr>& roots, std::function<int(const Access&)> slot_of = {});
  void run(const double* values, const double* params, double* results, double* magnitudes = nullptr) const;
  // run() for `count` points at once (at most `stride`), operation by
  // operation over the points (the loops a compiler vectorizes): input slot
  // k of point p at values[k * stride + p], root r at results[r * stride +
  // p] (and magnitudes likewise). The same operations a point as run().
  void run_points(const double* values, std::size_t stride, std::size_t count, const double* params, double* results,
                  double* magnitudes = nullptr) const;
  std::size_t size() const { return ops_.size(); }
  // Points a run_points call should take: as many as keep its registers
  // (size() x points doubles) near 256 KB, 1 to 64.
  std::size_t stretch() const;
  // How many of its operations are calls of one of `fns`.
  std::size_t calls(const std::vector<MathFn>& fns) const;
  std::size_t divisions() const;

 private:
  struct Op {
    Ir::Kind kind;
    MathFn fn;
    int a = -1, b = -1, c = -1;  // operands: earlier ops
    int slot = -1;               // Field: input slot; Param: param index
    double value = 0;            // Const
    int terms_begin = 0, terms_end = 0;  // Linear: into terms_
  };
  int add(const Ir& e, std::map<const Ir*, int>& seen);
  // Operation i's magnitude at point p of run_points' registers r and m.
  double magnitude(const Op& o, std::size_t i, const double* r, const double* m, const double* values, std::size_t stride, std::size_t p) const;
  std::vector<Op> ops_;
  std::vector<std::pair<double, int>> terms_;  // Linear: coefficient, input slot
  std::vector<int> roots_;
  std::function<int(const Access&)> slot_of_;
};

}  // namespace gpen
