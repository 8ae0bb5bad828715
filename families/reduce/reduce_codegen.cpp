// Writes the bindings of a reduction spec into families/reduce/device/reduce_unit.cu.in:
// the values at a point (the stencil's expression printer), each result's
// operation and identity, the sizes. The algorithm stays in families/reduce/device/reduce.cuh.
#include <fmt/format.h>

#include "gpen/families/reduce/device/reduce_args.h"
#include "gpen/families/reduce/reduce_plan.hpp"
#include "gpen/generator/associative_op.hpp"
#include "gpen/generator/cuda_printer.hpp"
#include "gpen/generator/ir_common.hpp"
#include "gpen/generator/templates.hpp"

namespace gpen {
namespace {

const char* type_name(Dtype d) { return d == Dtype::Float32 ? "float" : "double"; }

std::string banner(const Spec& spec, const TunableChoice& choice) {
  std::string s = banner_head(spec, choice) + fmt::format(
      "//   dtype:     {} inputs, {}-D arrays, x contiguous; combined in {}\n"
      "//   reduced:   along {}\n",
      to_string(spec.dtype), spec.dims, to_string(accumulator_dtype(spec)), reduced_axis_names(spec));
  for (const auto* f : spec.inputs()) s += fmt::format("//   input:     {} (ghost {})\n", f->name, f->ghost);
  for (const auto& o : spec.outputs)
    s += fmt::format("//   result:    {} = '{}' (identity {}) of {}\n", spec.fields[o.field].name, to_source_text(*o.op->op_ast), o.op->identity_text,
                     to_source_text(*o.ast));
  const IrWork w = ir_work(spec.output_exprs());
  s += fmt::format("//   work:      {:.0f} reads ({:.0f} distinct), {:.0f} operations ({:.0f} with common subexpressions once) a point\n", w.reads,
                   w.distinct_reads, w.ops, w.distinct_ops);
  return s;
}

// `if constexpr (R == 0) { ... } else if constexpr ... else { ... }`: the
// body of result r for each r, a return on every path.
template <class Body>
std::string per_result(std::size_t n, const std::string& indent, Body body) {
  std::string s;
  for (std::size_t r = 0; r < n; ++r) {
    const bool last = r + 1 == n;
    const std::string opens = last ? (r == 0 ? "" : "} else ") : r == 0 ? "if constexpr (R == 0) " : fmt::format("}} else if constexpr (R == {}) ", r);
    s += indent + opens + "{\n" + body(r, indent + "  ");
  }
  return s + indent + "}\n";
}

std::string ops(const Spec& spec) {
  const Dtype acc = accumulator_dtype(spec);
  const Spec scope = associative_op_scope(acc);
  std::string s = "\n  // Each result's operation and identity, in the accumulator's type.\n  struct Ops {\n    using real = acc;\n\n";
  s += "    template <int R>\n    static __device__ __forceinline__ acc identity() {\n";
  s += per_result(spec.outputs.size(), "      ", [&](std::size_t r, const std::string& in) {
    return fmt::format("{}return {};  // {}\n", in, real_value(spec.outputs[r].op->identity, acc), spec.fields[spec.outputs[r].field].name);
  });
  s += "    }\n\n    template <int R>\n    static __device__ __forceinline__ acc combine(acc a, acc b) {\n";
  s += per_result(spec.outputs.size(), "      ", [&](std::size_t r, const std::string& in) {
    CudaPrinter printer(scope, std::vector<std::string>{"a", "b"});
    const std::string result = printer.emit({spec.outputs[r].op->op_ir}).front();
    return fmt::format("{}// {}: {}\n", in, spec.fields[spec.outputs[r].field].name, to_source_text(*spec.outputs[r].op->op_ast)) + printer.body(in) +
           fmt::format("{}return {};\n", in, result);
  });
  return s + "    }\n  };";
}

std::string bindings(const Spec& spec, const ReducePlan& plan) {
  const auto inputs = spec.inputs();
  std::string s;
  s += fmt::format("  using real = {};\n", type_name(spec.dtype));
  s += fmt::format("  using acc = {};\n", type_name(accumulator_dtype(spec)));
  s += fmt::format("  static constexpr int kNumIn = {};\n", inputs.size());
  s += fmt::format("  static constexpr int kNumOut = {};\n", spec.outputs.size());
  s += fmt::format("  static constexpr int kNumParams = {};\n", spec.params.size());
  s += binding_lines(reduce_tunable_rows(), plan);  // kBlockX, kBlockY, kBatch
  s += fmt::format("  static constexpr bool kReduceX = {}, kReduceY = {}, kReduceZ = {};\n", plan.reduced[0], plan.reduced[1], plan.reduced[2]);
  std::string ghosts, names;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const int g = inputs[i]->ghost;
    ghosts += fmt::format("{}{{{}, {}, {}}}", i ? ", " : "", g, spec.dims > 1 ? g : 0, spec.dims > 2 ? g : 0);
    names += fmt::format("{}{}", i ? ", " : "", inputs[i]->name);
  }
  s += fmt::format("  static constexpr int kInGhost[kNumIn][3] = {{{}}};  // {}\n", ghosts, names);
  std::string own;
  for (std::size_t i = 0; i < inputs.size(); ++i) own += fmt::format("{}{}", i ? ", " : "", i);
  s += fmt::format("  static constexpr int kInPitchOf[kNumIn] = {{{}}};  // each input's accesses through its own pitch\n", own);
  s += "\n  // Input slots by name.\n";
  for (const auto* f : inputs) s += fmt::format("  static constexpr int f_{} = {};\n", f->name, f->slot);

  CudaPrinter printer(spec, {0, 1, 2});
  const std::vector<std::string> values = printer.emit(share_common_subexpressions(spec.output_exprs()));
  s += "\n  // The value each result combines at a point.\n";
  s += "  template <class In>\n";
  s += "  static __device__ __forceinline__ void compute(const In& in, const real* p, acc* v) {\n";
  for (std::size_t i = 0; i < spec.params.size(); ++i) s += fmt::format("    const real p_{} = p[{}];\n", spec.params[i].name, i);
  s += printer.body("    ");
  for (std::size_t i = 0; i < spec.outputs.size(); ++i)
    s += fmt::format("    v[{}] = static_cast<acc>({});  // {}\n", spec.fields[spec.outputs[i].field].slot, values[i], spec.fields[spec.outputs[i].field].name);
  s += "  }\n";
  return s + ops(spec);
}

std::string asserts(const Spec& spec, const ReducePlan& plan) {
  const ReduceArgsLayout l = reduce_args_layout(static_cast<int>(spec.inputs().size()), static_cast<int>(spec.outputs.size()),
                                                static_cast<int>(spec.params.size()), static_cast<int>(size_of(spec.dtype)));
  std::string s = "static_assert(Bindings::kBlockX * Bindings::kBlockY <= 1024, \"a block has at most 1024 threads\");\n";
  s += "static_assert(Bindings::kBlockX * Bindings::kBlockY % 32 == 0, \"whole warps: they combine by shuffles\");\n";
  s += fmt::format("static_assert(sizeof(gpen::ReduceArgs<Bindings>) == {}, \"kernel arguments as the host writes them\");", l.size);
  (void)plan;
  return s;
}

}  // namespace

Variant plan_reduce_unit(const Spec& spec, const TunableChoice& choice) {
  ReducePlan p = plan_reduce(spec, choice);
  return planned_variant(spec, choice, std::move(p), "reduce");
}

std::string print_reduce_unit(const Spec& spec, const Variant& g) {
  const ReducePlan& p = g.plan_as<ReducePlan>();
  return instantiate("reduce_unit.cu.in", {{"banner", banner(spec, g.choice)}, {"bindings", bindings(spec, p)}, {"asserts", asserts(spec, p)}, {"kernel", g.kernel_name}});
}

}  // namespace gpen
