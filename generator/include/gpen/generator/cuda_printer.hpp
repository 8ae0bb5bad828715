// IR -> CUDA C++ text for the body of a bindings' compute(): exact
// constants, parentheses from precedence, linear combinations hoisted into
// named temporaries with equal coefficients grouped.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "gpen/generator/ir.hpp"
#include "gpen/generator/spec.hpp"

namespace gpen {

// Shortest round-trip literal of `v` in the spec's precision ("0.2", "2.0",
// "0.2f"); the same text reads back to the same value.
std::string real_literal(double v, Dtype dtype);

// Free text of a spec (an SBP operator's source, say) as it may stand in a
// `//` comment of generated code: one line of printable characters (UTF-8
// allowed); control characters, line separators, bidirectional overrides,
// backslashes (which would splice the next line into the comment), "*/" and
// invalid UTF-8 shown as '?'; cut to `max_chars` characters with "...".
std::string comment_text(const std::string& text, std::size_t max_chars = 400);

// real_literal, or a bit pattern for +-inf, which have no literal.
std::string real_value(double v, Dtype dtype);

class CudaPrinter {
 public:
  // kernel_axis maps user axes to the kernel's (see StencilPlan). An access
  // of a field past the spec's inputs reads intermediate (field - inputs) of
  // the stage strategy, `in.template mid<G, dx, dy, dz>()`
  // (families/stencil/stencil_mixed.hpp).
  CudaPrinter(const Spec& spec, std::array<int, 3> kernel_axis);
  // Inputs are plain values: input slot k prints as value_names[k] (a scan's
  // operation, whose "fields" are its two arguments).
  CudaPrinter(const Spec& spec, std::vector<std::string> value_names);

  // Appends the statements that compute each root to the body and returns
  // the expressions that name their values. A node the roots reach along
  // more than one path is computed once, into a temporary: a DAG stays a
  // DAG, however often a let is used.
  std::vector<std::string> emit(const std::vector<IrPtr>& roots);

  // Prints calls of `fn` as `name` instead of the CUDA math function.
  void override_function(MathFn fn, const std::string& name) { overrides_.emplace_back(fn, name); }

  // float64, "math": "accurate": prints sqrt, exp and division by a
  // non-constant as math.cuh's flagged forms, gpen::sqrt_rn(x, flag),
  // gpen::exp_f64(x, flag), gpen::div_rn(a, b, flag): CUDA's results
  // without their branches, `flag` (a bool) set where an argument lies
  // outside the common case. flagged_calls() counts them.
  void flag_slow_paths(const std::string& flag) { slow_flag_ = flag; }
  int flagged_calls() const { return flagged_calls_; }

  // Prints `e` (a let) as a statement of its own, `const real <name> = ...;`,
  // the first time an expression uses it, and as `name` after that.
  void name(const IrPtr& e, const std::string& name);

  // Declarations of the named coefficients, then the statements, indented.
  std::string body(const std::string& indent) const;

 private:
  struct Printed {
    std::string text;
    int prec;  // 1: + -, 2: * /, 3: unary -, 4: atom
  };
  Printed print(const Ir& e);
  // Prints e's value once as `const real <name> = ...;` (a numbered
  // temporary when name is empty) and names it from then on.
  Printed hoist(const Ir& e, std::string name);
  std::string access(const Access& a) const;
  std::string linear(const Ir& e, const std::string& name = "");
  std::string coefficient(const Rational& c);
  bool fast() const { return spec_.math == MathPolicy::Fast; }
  // A leaf, or a node printed (or to be printed) into a named temporary or let.
  bool prints_as_name(const Ir& e) const;
  // "math": "fast": the name of a temporary holding rsqrt(s), computed once.
  std::string rsqrt_of(const Ir& s);

  const Spec& spec_;
  std::array<int, 3> kernel_axis_;
  std::vector<std::string> value_names_;
  std::vector<std::pair<Rational, std::string>> coeffs_;  // value -> name
  std::vector<std::string> statements_;
  std::map<const Ir*, std::string> hoisted_;  // shared nodes (lets) print once
  std::map<const Ir*, std::string> named_;    // see name(); not yet printed
  std::vector<std::pair<MathFn, std::string>> overrides_;
  std::set<const Ir*> shared_;  // nodes reached along more than one path from the roots
  std::set<const Ir*> divided_by_sqrt_;         // "fast": the s of every a / sqrt(s)
  std::map<const Ir*, std::string> rsqrt_of_;   // "fast": s -> the temporary holding rsqrt(s)
  std::string slow_flag_;  // see flag_slow_paths()
  int flagged_calls_ = 0;
  int temps_ = 0;
};

}  // namespace gpen
