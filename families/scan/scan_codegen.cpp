// Writes the bindings of a scan spec into families/scan/device/scan_unit.cu.in: sizes,
// direction, the identity and the operation. The algorithm stays in
// families/scan/device/scan_<layout>.cuh.
#include <cmath>

#include <fmt/format.h>

#include "gpen/families/scan/device/scan_args.h"
#include "gpen/families/scan/scan_plan.hpp"
#include "gpen/generator/associative_op.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/generator/cuda_printer.hpp"
#include "gpen/generator/templates.hpp"

namespace gpen {
namespace {

std::string banner(const Spec& spec, const TunableChoice& choice, const ScanPlan& plan) {
  const ScanDecl& d = spec.scan();
  return banner_head(spec, choice) + fmt::format(
      "//   dtype:     {}, {}-D arrays, x contiguous\n"
      "//   scan:      {} = {} {} of {} along {} ({} layout), op '{}', identity {}\n",
      to_string(spec.dtype), spec.dims, spec.output_fields()[0]->name,
      d.reverse ? "reverse" : "forward", d.exclusive ? "exclusive scan" : "inclusive scan", spec.inputs()[0]->name, axis_name(d.axis),
      to_string(plan.layout), to_source_text(*d.op_ast), d.identity_text);
}

std::string bindings(const Spec& spec, const ScanPlan& plan) {
  const ScanDecl& d = spec.scan();
  std::string s;
  s += fmt::format("  using real = {};\n", spec.dtype == Dtype::Float32 ? "float" : "double");
  s += binding_lines(scan_tunable_rows(), plan);  // kBlockX ... kChained
  s += fmt::format("  static constexpr bool kExclusive = {};\n", d.exclusive ? "true" : "false");
  s += fmt::format("  static constexpr bool kReverse = {};\n\n", d.reverse ? "true" : "false");
  s += fmt::format("  static __device__ __forceinline__ real identity() {{ return {}; }}\n\n", real_value(d.identity, spec.dtype));
  const Spec scope = associative_op_scope(spec.dtype);
  CudaPrinter printer(scope, std::vector<std::string>{"a", "b"});
  const std::string result = printer.emit({d.op_ir}).front();
  s += fmt::format("  // {}\n", to_source_text(*d.op_ast));
  s += "  static __device__ __forceinline__ real combine(real a, real b) {\n";
  s += printer.body("    ");
  s += fmt::format("    return {};\n", result);
  s += "  }";
  return s;
}

std::string asserts(const ScanPlan& plan) {
  std::string s = "static_assert(Bindings::kBlockX * Bindings::kBlockY <= 1024, \"a block has at most 1024 threads\");\n";
  // The size gpen's host code was built with: a header swapped at run time
  // (GPEN_TEMPLATE_DIR) that lays the block out otherwise fails here.
  s += fmt::format("static_assert(sizeof(gpen::ScanArgs<Bindings::real>) == {}, \"kernel arguments as the host writes them\");", sizeof(ScanArgs<void>));
  if (plan.layout == ScanLayout::Rows) s += "\nstatic_assert(Bindings::kBlockX % 32 == 0, \"rows of a block are whole warps\");";
  return s;
}

}  // namespace

Variant plan_scan_unit(const Spec& spec, const TunableChoice& choice) {
  ScanPlan p = plan_scan(spec, choice);
  const std::string what = std::string("scan_") + to_string(p.layout);
  return planned_variant(spec, choice, std::move(p), what);
}

std::string print_scan_unit(const Spec& spec, const Variant& g) {
  const ScanPlan& p = g.plan_as<ScanPlan>();
  return instantiate("scan_unit.cu.in",
                     {{"banner", banner(spec, g.choice, p)},
                      {"layout", to_string(p.layout)},
                      {"bindings", bindings(spec, p)},
                      {"asserts", asserts(p)},
                      {"kernel", g.kernel_name}});
}

}  // namespace gpen
