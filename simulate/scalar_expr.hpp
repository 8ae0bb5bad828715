// An expression of named numbers (coordinates, a program's params, the grid
// spacing), parsed from one JSON string of a program and checked against
// the names it may use: a program's initial values and the values it gives
// its kernels' params. Evaluated on the CPU in double precision; no field
// reads, no operators (those are the stencils').
#pragma once

#include <string>
#include <vector>

#include "gpen/generator/ir.hpp"
#include "gpen/generator/json_reader.hpp"

namespace gpen::sim {

class ScalarExpr {
 public:
  // The string at `pointer`: parsed, each name looked up in `names` (its
  // index is the slot operator() reads), each call checked to be a math
  // function of the expression language with its number of arguments.
  // Errors are SpecErrors at the offending token; `noun` says in them what
  // a name may be ("a coordinate (x, y, z), a param or pi").
  static ScalarExpr parse(const JsonReader& r, const std::string& pointer, const std::vector<std::string>& names, const std::string& noun);
  static ScalarExpr constant(double v);

  // The value with slot s holding values[s].
  double operator()(const double* values) const;
  // Whether it reads slot s.
  bool reads(int slot) const;
  const std::string& text() const { return text_; }

  // Postfix: each step pushes a value or combines the top ones.
  struct Step {
    enum class Kind { Number, Name, Neg, Add, Sub, Mul, Div, Call } kind;
    double number = 0;
    int slot = 0;
    MathFn fn = MathFn::Sqrt;
    int arity = 0;
  };

 private:
  std::vector<Step> steps_;
  std::string text_;
  int depth_ = 0;  // the most values on the stack at once
};

}  // namespace gpen::sim
