// Writes the bindings of a pairwise spec into families/pairwise/device/pairwise_unit.cu.in:
// the Target and Source structs (only the values the outputs read), their
// loads, and the formula of every output with its reduction. The schedule
// stays in families/pairwise/device/pairwise.cuh.
#include <fmt/format.h>

#include "gpen/families/pairwise/device/pairwise_args.h"
#include "gpen/families/pairwise/pairwise_plan.hpp"
#include "gpen/families/pairwise/pairwise_scope.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/generator/cuda_printer.hpp"
#include "gpen/generator/ir_common.hpp"
#include "gpen/generator/templates.hpp"

namespace gpen {
namespace {

std::string domain(const Spec& spec) {
  const PairwiseDecl& d = spec.pairwise();
  std::string s = d.grid ? fmt::format("the cells of a {}-D grid (x fastest), targets and sources alike", spec.dims)
                  : d.same_set ? "N particles, each a target and a source"
                               : "N target particles, M source particles";
  if (d.same_set) s += d.skip_self ? "; the pair i == j left out" : "; the pair i == j included";
  if (d.grouped) s += "; sources from per-group range lists";
  return s;
}

std::string banner(const Spec& spec, const TunableChoice& choice) {
  std::string s = banner_head(spec, choice) + fmt::format(
      "//   dtype:     {}\n"
      "//   pairs:     {}\n",
      to_string(spec.dtype), domain(spec));
  for (const auto& l : spec.lets) s += fmt::format("//   let        {} = {}\n", l.name, to_source_text(*l.ast));
  for (std::size_t o = 0; o < spec.outputs.size(); ++o)
    s += fmt::format("//   output     {}_i = {} over j of {}\n", spec.fields[spec.outputs[o].field].name, to_string(spec.outputs[o].reduce),
                     to_source_text(*spec.outputs[o].ast));
  return s;
}

// A struct of the values one end of a pair reads; the source's padded to
// whole 16-byte words (one shared-memory load each).
std::string side_struct(const Spec& spec, const std::vector<int>& values, bool source) {
  const PairwiseDecl& d = spec.pairwise();
  std::vector<std::string> members;
  for (int v : values) members.push_back(d.values[v].member);
  std::string s = source ? "  // What a source reads, packed in 16-byte words of shared memory.\n  struct __align__(16) Source {\n"
                         : "  // What a target reads, once; kept in registers.\n  struct Target {\n";
  if (!members.empty()) s += fmt::format("    real {};\n", fmt::join(members, ", "));
  if (source) {
    const std::size_t per_word = 16 / size_of(spec.dtype);
    const std::size_t pad = (per_word - members.size() % per_word) % per_word;
    if (pad) s += fmt::format("    real pad_[{}];\n", pad);
  }
  return s + "  };\n";
}

std::string load(const Spec& spec, const std::vector<int>& values, bool source) {
  const PairwiseDecl& d = spec.pairwise();
  const char* type = source ? "Source" : "Target";
  const char* var = source ? "s" : "t";
  const char* idx = source ? "j" : "i";
  std::string s = fmt::format("  static __device__ __forceinline__ {} load_{}(const gpen::PairArgs& a, long long {}) {{\n    {} {};\n",
                              type, source ? "source" : "target", idx, type, var);
  bool cell = false;
  for (int v : values) {
    const PairValue& pv = d.values[v];
    if (pv.field >= 0) {
      s += fmt::format("    {}.{} = static_cast<const real*>(a.in[{}])[{}];\n", var, pv.member, spec.fields[pv.field].slot, idx);
    } else {
      if (!cell) s += fmt::format("    long long c[3];\n    gpen::pair_cell(a, {}, c);\n", idx);
      cell = true;
      s += fmt::format("    {}.{} = static_cast<real>(c[{}]);\n", var, pv.member, pv.axis);
    }
  }
  if (values.empty()) s += fmt::format("    (void)a;\n    (void){};\n", idx);
  return s + fmt::format("    return {};\n  }}\n", var);
}

std::string combine_expr(Reduce r, Dtype dtype, const std::string& x, const std::string& y) {
  const bool f32 = dtype == Dtype::Float32;
  if (r == Reduce::Sum) return fmt::format("{} + {}", x, y);
  return fmt::format("{}({}, {})", r == Reduce::Min ? (f32 ? "fminf" : "fmin") : (f32 ? "fmaxf" : "fmax"), x, y);
}

// `acc` reduced with `term`: acc += term, or acc = fmin(acc, term), ...
std::string accumulate(Reduce r, Dtype dtype, const std::string& acc, const std::string& term) {
  return r == Reduce::Sum ? fmt::format("{} += {};", acc, term) : fmt::format("{} = {};", acc, combine_expr(r, dtype, acc, term));
}

// The params as locals, and (void) for the arguments a formula leaves unread.
std::string unused_arguments(const Spec& spec, const std::vector<int>& target_values, const std::vector<int>& source_values) {
  std::string s;
  for (const auto& p : spec.params) s += fmt::format("    const real p_{} = prm.p_{};\n", p.name, p.name);
  if (target_values.empty()) s += "    (void)t;\n";
  if (source_values.empty()) s += "    (void)s;\n";
  if (spec.params.empty()) s += "    (void)prm;\n";
  return s;
}

// The statements of a pair's terms and each output's term.
struct PairTerms {
  std::string body;
  std::vector<std::string> results;
  int flagged_calls = 0;  // sqrt, exp and divisions printed in their flagged forms
};

// `roots`: the outputs' expressions, then the lets' (which keep their
// names); `flag` non-empty: float64 IEEE operations as flagged forms.
PairTerms print_terms(const Spec& spec, const std::vector<std::string>& names, std::vector<IrPtr> roots, const std::string& flag) {
  CudaPrinter printer(spec, names);
  // float32 rsqrt as one MUFU.RSQ under both policies: rsqrtf wraps it in a
  // scale-up and scale-down for subnormal x, three more instructions on the
  // hot path of every potential, for the same accuracy (2 ulp); no distance
  // of a simulation comes near 2^-126.
  if (spec.dtype == Dtype::Float32) printer.override_function(MathFn::Rsqrt, "gpen::fast_rsqrt");
  if (!flag.empty()) printer.flag_slow_paths(flag);
  const std::size_t outputs = roots.size() - spec.lets.size();
  for (std::size_t i = 0; i < spec.lets.size(); ++i) printer.name(roots[outputs + i], "l_" + spec.lets[i].name);
  roots.resize(outputs);
  PairTerms t;
  t.results = printer.emit(roots);
  t.body = printer.body("    ");
  t.flagged_calls = printer.flagged_calls();
  return t;
}

// How the pair's code names each value it reads: t.<member> at the
// target, s.<member> at the source.
std::vector<std::string> value_names(const PairwiseDecl& d) {
  std::vector<std::string> names;
  for (const auto& v : d.values) names.push_back((v.source ? "s." : "t.") + v.member);
  return names;
}

// The outputs' expressions, then the lets', structurally equal
// subexpressions made one node (as pair_cost counts them, and as the
// stencil and reduce kinds print them): a sqrt(s) written twice is one
// rsqrt under fast math. The lets ride along as roots so that their shared
// nodes keep their names.
std::vector<IrPtr> pair_roots(const Spec& spec) {
  std::vector<IrPtr> roots = spec.output_exprs();
  for (const auto& l : spec.lets) roots.push_back(l.ir);
  return share_common_subexpressions(roots);
}

std::string bindings(const Spec& spec, const PairwisePlan& plan) {
  const PairwiseDecl& d = spec.pairwise();
  const auto exprs = spec.output_exprs();
  const auto target_values = d.read_by(false, exprs), source_values = d.read_by(true, exprs);
  const std::size_t outs = spec.outputs.size();
  std::string s;
  s += fmt::format("  using real = {};\n", spec.dtype == Dtype::Float32 ? "float" : "double");
  s += binding_lines(pairwise_tunable_rows(), plan);  // kBlock, kTargetsPerThread, kUnroll, kBuffers, kCellBlock
  s += fmt::format("  static constexpr int kOutputs = {}, kDims = {};\n", outs, spec.dims);
  s += fmt::format("  static constexpr bool kSkipSelf = {};\n\n", d.skip_self);
  s += side_struct(spec, target_values, false);
  s += side_struct(spec, source_values, true);
  s += "  struct Params {\n";
  for (const auto& p : spec.params) s += fmt::format("    real p_{};\n", p.name);
  s += "  };\n\n";
  s += load(spec, target_values, false) + "\n" + load(spec, source_values, true) + "\n";
  s += "  static __device__ __forceinline__ Params params(const gpen::PairArgs& a) {\n    Params p;\n";
  for (std::size_t i = 0; i < spec.params.size(); ++i) s += fmt::format("    p.p_{} = static_cast<real>(a.params[{}]);\n", spec.params[i].name, i);
  s += spec.params.empty() ? "    (void)a;\n    return p;\n  }\n\n" : "    return p;\n  }\n\n";

  s += "  // The identity and the reduction of each output.\n";
  s += "  static __device__ __forceinline__ real identity(int o) {\n";
  for (std::size_t o = 0; o < outs; ++o)
    s += fmt::format("    {}return {};\n", o + 1 < outs ? fmt::format("if (o == {}) ", o) : "", real_value(reduce_identity(spec.outputs[o].reduce), spec.dtype));
  s += "  }\n  static __device__ __forceinline__ real combine(int o, real x, real y) {\n";
  for (std::size_t o = 0; o < outs; ++o)
    s += fmt::format("    {}return {};\n", o + 1 < outs ? fmt::format("if (o == {}) ", o) : "", combine_expr(spec.outputs[o].reduce, spec.dtype, "x", "y"));
  s += "  }\n  static __device__ __forceinline__ void init(real (&acc)[kOutputs]) {\n";
  for (std::size_t o = 0; o < outs; ++o) s += fmt::format("    acc[{}] = identity({});\n", o, o);
  s += "  }\n\n";

  const std::vector<std::string> names = value_names(d);
  const std::vector<IrPtr> roots = pair_roots(spec);
  const PairTerms exact = print_terms(spec, names, roots, "");
  s += "  // One pair: each output's term, reduced into its accumulator.\n";
  s += "  static __device__ __forceinline__ void pair(const Target& t, const Source& s, const Params& prm, real (&acc)[kOutputs]) {\n";
  s += unused_arguments(spec, target_values, source_values) + exact.body;
  for (std::size_t o = 0; o < outs; ++o) s += "    " + accumulate(spec.outputs[o].reduce, spec.dtype, fmt::format("acc[{}]", o), exact.results[o]) + "\n";
  s += "  }\n\n";
  // float64 accurate: the same terms without the branches of IEEE sqrt,
  // division and exp, where the formula has any (pairwise.cuh, pair_targets_with).
  const PairTerms flagged = spec.dtype == Dtype::Float64 && spec.math == MathPolicy::Accurate ? print_terms(spec, names, roots, "slow") : PairTerms{};
  s += fmt::format("  static constexpr bool kFlaggedPair = {};\n", flagged.flagged_calls > 0);
  if (flagged.flagged_calls > 0) {
    s += "  // The pair's terms without the branches of IEEE sqrt, division and exp\n"
         "  // (math.cuh): `slow` set where an argument lies outside their common\n"
         "  // case; where it stays unset, the bits pair() adds.\n";
    s += "  static __device__ __forceinline__ void terms(const Target& t, const Source& s, const Params& prm, real (&v)[kOutputs], bool& slow) {\n";
    s += unused_arguments(spec, target_values, source_values) + flagged.body;
    for (std::size_t o = 0; o < outs; ++o) s += fmt::format("    v[{}] = {};\n", o, flagged.results[o]);
    s += "  }\n  static __device__ __forceinline__ void accumulate(real (&acc)[kOutputs], const real (&v)[kOutputs]) {\n";
    for (std::size_t o = 0; o < outs; ++o)
      s += "    " + accumulate(spec.outputs[o].reduce, spec.dtype, fmt::format("acc[{}]", o), fmt::format("v[{}]", o)) + "\n";
    s += "  }\n";
  }
  s += "\n  static __device__ __forceinline__ void store(const gpen::PairArgs& a, long long i, const real (&acc)[kOutputs]) {\n";
  for (std::size_t o = 0; o < outs; ++o)
    s += fmt::format("    static_cast<real*>(a.out[{}])[i] = acc[{}];  // {}\n", spec.fields[spec.outputs[o].field].slot, o,
                     spec.fields[spec.outputs[o].field].name);
  return s + "  }";
}

std::string asserts(const PairwisePlan& plan) {
  // The sizes gpen's host code was built with (see scan_codegen.cpp).
  std::string s = fmt::format("static_assert(sizeof(gpen::PairArgs) == {} && sizeof(gpen::PairFoldArgs) == {}, \"kernel arguments as the host writes them\");\n",
                              sizeof(PairArgs), sizeof(PairFoldArgs));
  s += fmt::format("static_assert(sizeof(Bindings::Source) == {}, \"a source's packed size as planned\");\n", plan.source_bytes);
  s += "static_assert(Bindings::kBlock % 32 == 0 && Bindings::kBlock % Bindings::kUnroll == 0, \"whole warps; whole unrolled steps\");";
  return s;
}

std::string fold(const PairwisePlan& plan) {
  if (plan.fold_kernel_name.empty()) return "";
  return fmt::format(
      "\n// Folds partial results on the GPU: block on block's source blocks, the sources' slices.\n"
      "extern \"C\" __global__ void __launch_bounds__(256) {}(gpen::PairFoldArgs args) {{\n"
      "  gpen::pairwise_fold<Bindings>(args);\n"
      "}}\n",
      plan.fold_kernel_name);
}

}  // namespace

bool pair_has_flagged_terms(const Spec& spec) {
  if (spec.dtype != Dtype::Float64 || spec.math != MathPolicy::Accurate) return false;
  // While a spec is read (its tunables' offers), a let or output that did
  // not parse has no expression yet: the error about it is on its way.
  for (const auto& l : spec.lets)
    if (!l.ir) return false;
  for (const auto& e : spec.output_exprs())
    if (!e) return false;
  return print_terms(spec, value_names(spec.pairwise()), pair_roots(spec), "slow").flagged_calls > 0;
}

Variant plan_pairwise_unit(const Spec& spec, const TunableChoice& choice) {
  PairwisePlan p = plan_pairwise(spec, choice);
  const std::string what = std::string("pairwise_") + to_string(p.strategy);
  return planned_variant(spec, choice, std::move(p), what);
}

std::string print_pairwise_unit(const Spec& spec, const Variant& g) {
  const PairwisePlan& p = g.plan_as<PairwisePlan>();
  return instantiate("pairwise_unit.cu.in",
                     {{"banner", banner(spec, g.choice)},
                      {"strategy", to_string(p.strategy)},
                      {"bindings", bindings(spec, p)},
                      {"asserts", asserts(p)},
                      {"kernel", g.kernel_name},
                      {"fold", fold(p)}});
}

}  // namespace gpen
