// Writes the bindings of an SBP spec into families/sbp/device/sbp_unit.cu.in: the
// interior stencil and every closure row as straight-line sums, the axes and
// the tunables. The schedule stays in families/sbp/device/sbp.cuh.
#include <fmt/format.h>

#include "gpen/families/sbp/device/sbp_args.h"
#include "gpen/families/sbp/sbp_plan.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/generator/cuda_printer.hpp"
#include "gpen/generator/templates.hpp"

namespace gpen {
namespace {

std::string banner(const Spec& spec, const TunableChoice& choice) {
  const SbpDecl& d = spec.sbp();
  std::vector<std::string> axes;
  for (int a : d.axes) axes.push_back(axis_name(a));
  return banner_head(spec, choice) + fmt::format(
      "//   dtype:     {}, {}-D arrays, x contiguous, no ghost zones\n"
      "//   operator:  {} = sum over {} of D{} {} / h^{}; SBP, interior order {}, boundary order {}, {} closure rows a side\n"
      "//   source:    {}\n",
      to_string(spec.dtype), spec.dims, spec.output_fields()[0]->name,
      fmt::join(axes, ", "), d.derivative, spec.inputs()[0]->name, d.derivative, d.order, d.boundary_order, d.rows(),
      d.source_text.empty() ? "(not given)" : comment_text(d.source_text));
}

// "c0 * u(o0) + c1 * u(o1) ...": offsets from `first`, zero terms left out,
// three terms a line.
std::string sum(const std::vector<Rational>& c, int first, Dtype dtype, const std::string& indent) {
  std::string s;
  int terms = 0;
  for (std::size_t j = 0; j < c.size(); ++j) {
    if (c[j].is_zero()) continue;
    const Rational mag = abs(c[j]);
    const std::string u = fmt::format("u({})", first + static_cast<int>(j));
    const std::string term = mag == Rational(1) ? u : fmt::format("{} * {}", real_literal(mag.to_double(), dtype), u);
    const bool neg = c[j] < Rational(0);
    if (terms == 0) s += neg ? "-" + term : term;
    else s += fmt::format("{}{} {}", terms % 3 == 0 ? "\n" + indent : " ", neg ? "-" : "+", term);
    ++terms;
  }
  return terms ? s : "real(0)";
}

std::string fractions(const std::vector<Rational>& c) {
  std::vector<std::string> f;
  for (const auto& r : c) f.push_back(r.str());
  return fmt::format("{}", fmt::join(f, ", "));
}

// One function a side: row r of the closure as an if-chain of sums.
std::string closure(const char* name, const char* what, const std::vector<std::vector<Rational>>& rows, Dtype dtype) {
  std::string s = fmt::format("  // {}\n  template <class U>\n  static __device__ __forceinline__ real {}(int row, const U& u) {{\n", what, name);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    s += fmt::format("    // row {}: {}\n", r, fractions(rows[r]));
    const bool last = r + 1 == rows.size();
    s += last ? "    return " : fmt::format("    if (row == {}) return ", r);
    s += sum(rows[r], 0, dtype, last ? "           " : "                       ") + ";\n";
  }
  return s + "  }";
}

std::string bindings(const Spec& spec, const SbpPlan& plan) {
  const SbpDecl& d = spec.sbp();
  bool on[3] = {false, false, false};
  for (int a : d.axes) on[a] = true;
  std::string s;
  s += fmt::format("  using real = {};\n", spec.dtype == Dtype::Float32 ? "float" : "double");
  s += binding_lines(sbp_tunable_rows(), plan);  // kBlockX, kBlockY, kAlong, kAcross
  s += fmt::format("  static constexpr int kRadius = {}, kLeftRows = {}, kRightRows = {};\n", d.radius(), d.rows(), d.right.size());
  s += fmt::format("  static constexpr bool kOnAxis[3] = {{{}, {}, {}}};\n", on[0], on[1], on[2]);
  s += fmt::format("  static constexpr int kAxis = {}, kAcrossAxis = {}, kThirdAxis = {};\n\n", plan.axis, plan.across_axis, plan.third_axis);
  s += fmt::format("  // Interior: u(k) is the point k away along the axis.\n  //   {}\n", fractions(d.interior));
  s += "  template <class U>\n  static __device__ __forceinline__ real interior(const U& u) {\n";
  s += "    return " + sum(d.interior, -d.radius(), spec.dtype, "           ") + ";\n  }\n\n";
  s += closure("left", "Left closure: u(j) is the line's point j.", d.left, spec.dtype) + "\n\n";
  s += closure("right", d.right_given ? "Right closure (as given): u(j) is the line's point n-1-j."
                                      : "Right closure (the left one mirrored): u(j) is the line's point n-1-j.",
               d.right, spec.dtype);
  return s;
}

std::string asserts(const SbpPlan& plan) {
  std::string s = "static_assert(Bindings::kBlockX * Bindings::kBlockY <= 1024, \"a block has at most 1024 threads\");\n";
  // The size gpen's host code was built with (see scan_codegen.cpp).
  s += fmt::format("static_assert(sizeof(gpen::SbpArgs<Bindings::real>) == {}, \"kernel arguments as the host writes them\");\n", sizeof(SbpArgs<void>));
  s += fmt::format("static_assert(Bindings::kLeftRows >= Bindings::kRadius && Bindings::kRightRows >= Bindings::kRadius, \"{}\");",
                   "no interior row reaches past the boundary");
  if (plan.strategy == SbpStrategy::Pencil)
    s += fmt::format("\nstatic_assert(sizeof(Bindings::real) * (Bindings::kAlong + 2 * Bindings::kRadius) * Bindings::kAcross == {}, \"{}\");",
                     plan.shared_bytes, "the pencil's shared memory as planned");
  return s;
}

}  // namespace

Variant plan_sbp_unit(const Spec& spec, const TunableChoice& choice) {
  SbpPlan p = plan_sbp(spec, choice);
  const std::string what = std::string("sbp_") + to_string(p.strategy);
  return planned_variant(spec, choice, std::move(p), what);
}

std::string print_sbp_unit(const Spec& spec, const Variant& g) {
  const SbpPlan& p = g.plan_as<SbpPlan>();
  return instantiate("sbp_unit.cu.in",
                     {{"banner", banner(spec, g.choice)},
                      {"strategy", to_string(p.strategy)},
                      {"bindings", bindings(spec, p)},
                      {"asserts", asserts(p)},
                      {"kernel", g.kernel_name}});
}

}  // namespace gpen
