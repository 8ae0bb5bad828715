// Writes the bindings of a stencil spec into families/stencil/device/stencil_unit.cu.in.
// The algorithm stays in families/stencil/device/stencil_<strategy>.cuh; only the
// expression, the constants and the tile sizes are generated here.
#include <algorithm>

#include <fmt/format.h>

#include "gpen/families/stencil/device/stencil_args.h"
#include "gpen/families/stencil/stencil_mixed.hpp"
#include "gpen/families/stencil/stencil_plan.hpp"
#include "gpen/generator/codegen.hpp"
#include "gpen/generator/cuda_printer.hpp"
#include "gpen/generator/ir_common.hpp"
#include "gpen/generator/templates.hpp"

namespace gpen {
namespace {

std::string triple(const std::array<int, 3>& a) { return fmt::format("{{{}, {}, {}}}", a[0], a[1], a[2]); }

std::string table(const std::vector<std::array<int, 3>>& rows, const std::vector<const FieldDecl*>& fields) {
  if (rows.empty()) return "{{0, 0, 0}}";
  std::string s = "{";
  for (std::size_t i = 0; i < rows.size(); ++i) s += fmt::format("{}{}", i ? ", " : "", triple(rows[i]));
  s += "};  // ";
  for (std::size_t i = 0; i < fields.size(); ++i) s += (i ? ", " : "") + fields[i]->name;
  return s;
}

// What a unit computes: the outputs' expressions with common subexpressions
// once and, for the stage strategy with mixed_passes 2, the mixed
// derivatives through intermediates (stencil_mixed.hpp).
MixedSplit unit_expressions(const Spec& spec, const StencilPlan& plan) {
  const std::vector<IrPtr> shared = share_common_subexpressions(spec.output_exprs());
  if (plan.mids.empty()) return {shared, {}};
  MixedSplit split = split_mixed_derivatives(shared, static_cast<int>(spec.inputs().size()), plan.kernel_axis, plan.xz_queue);
  GPEN_INTERNAL_CHECK(split.mids.size() == plan.mids.size(), "the unit's intermediates are the plan's");
  for (std::size_t g = 0; g < split.mids.size(); ++g)
    GPEN_INTERNAL_CHECK((std::array<int, 2>{split.mids[g].outer_axis, split.mids[g].reach}) == plan.mids[g], "the unit's intermediates are the plan's");
  return split;
}

std::string mid_name(const Spec& spec, const MixedIntermediate& g) {
  std::string parts = fmt::format("{} along {}", spec.inputs()[g.field]->name, "xyz"[g.inner_axis]);
  for (const auto& [field, axis] : g.also) parts += fmt::format(" + {} along {}", spec.inputs()[field]->name, "xyz"[axis]);
  return fmt::format("{} read along {}", parts, g.outer_axis == 0 ? "x" : "z");
}

std::string banner(const Spec& spec, const TunableChoice& choice, const StencilPlan& plan, const MixedSplit& exprs) {
  const char* axes[] = {"x -> x", "x -> x, y -> z (marched)", "x -> x, y -> y, z -> z (marched)"};
  std::string s = banner_head(spec, choice) + fmt::format(
      "//   dtype:     {}, {}-D arrays, x contiguous; axes {}\n",
      to_string(spec.dtype), spec.dims, axes[spec.dims - 1]);
  for (const auto* f : spec.inputs()) s += fmt::format("//   input:     {} (ghost {})\n", f->name, f->ghost);
  for (const auto* f : spec.output_fields()) {
    std::string images;
    for (int ax = 0; ax < spec.dims; ++ax)
      if (f->periodic_images >> ax & 1u) images += images.empty() ? std::string(1, "xyz"[ax]) : std::string(", ") + "xyz"[ax];
    s += fmt::format("//   output:    {} (ghost {}{})\n", f->name, f->ghost, images.empty() ? "" : "; stores its periodic ghost images along " + images);
  }
  const IrWork w = ir_work(spec.output_exprs());
  s += fmt::format("//   work:      {:.0f} reads ({:.0f} distinct), {:.0f} operations ({:.0f} with common subexpressions once) a point\n", w.reads,
                   w.distinct_reads, w.ops, w.distinct_ops);
  s += fmt::format("//   FMA pipe:  {:.0f} adds, multiplies and fused multiply-adds a point (a sum fuses one product), {:.0f} divisions and math calls\n",
                   w.fma_pipe, w.divisions_and_calls);
  if (plan.shared_bytes) s += fmt::format("//   shared:    {} bytes per block\n", plan.shared_bytes);
  if (!exprs.mids.empty()) {
    std::vector<Access> reads;
    for (const auto& r : exprs.roots) collect_accesses(*r, reads);
    const auto mid_reads = std::count_if(reads.begin(), reads.end(), [&](const Access& a) { return a.field >= static_cast<int>(spec.inputs().size()); });
    std::size_t mid_terms = 0;
    for (const auto& g : exprs.mids) mid_terms += g.terms.size();
    s += fmt::format("//   two-pass:  {} intermediates of mixed derivatives; a point reads {} distinct values ({} of intermediates), and {} to compute them\n",
                     exprs.mids.size(), reads.size(), mid_reads, mid_terms);
  }
  if (plan.strategy == StencilStrategy::Stage) {
    int at_point = 0;
    for (std::size_t f = 0; f < plan.radius.size(); ++f) at_point += plan.in_registers(f);
    s += fmt::format("//   shared:    {} bytes per block (dynamic): each input's planes {} .. k + rz and {} ahead{}{}\n", plan.dynamic_shared_bytes,
                     plan.ring_behind ? "k - rz" : "k", plan.ring_ahead, plan.mid_shared_bytes ? fmt::format(", {} of intermediates", plan.mid_shared_bytes) : "",
                     at_point ? fmt::format(", none for the {} read at the point (in registers, from global memory)", at_point) : "");
  } else if (plan.dynamic_shared_bytes)
    s += fmt::format("//   shared:    {} bytes per block (dynamic): a ring of {} planes\n", plan.dynamic_shared_bytes, plan.ring_slots());
  return s;
}

// The stage strategy's intermediates: their count and halos, and mid<G>(in),
// intermediate G at the reader's point.
std::string intermediates(const Spec& spec, const StencilPlan& plan, const MixedSplit& exprs) {
  std::string s = "\n  // Intermediates of mixed derivatives (two passes): the kernel axis each is read along, and how far.\n";
  s += fmt::format("  static constexpr int kNumMid = {};\n", exprs.mids.size());
  std::string axes, names;
  for (std::size_t g = 0; g < exprs.mids.size(); ++g) {
    axes += fmt::format("{}{{{}, {}}}", g ? ", " : "", exprs.mids[g].outer_axis, exprs.mids[g].reach);
    names += fmt::format("{}{}: {}", g ? ", " : "", g, mid_name(spec, exprs.mids[g]));
  }
  if (exprs.mids.empty()) return s + "  static constexpr int kMidAxis[1][2] = {{0, 0}};\n";
  s += fmt::format("  static constexpr int kMidAxis[kNumMid][2] = {{{}}};  // {}\n", axes, names);
  s += "\n  template <int G, class In>\n";
  s += "  static __device__ __forceinline__ real mid(const In& in) {\n";
  s += "    static_assert(G >= 0 && G < kNumMid, \"an intermediate of this unit\");\n";
  for (std::size_t g = 0; g < exprs.mids.size(); ++g) {
    CudaPrinter printer(spec, plan.kernel_axis);
    const std::string value = printer.emit({ir_linear(exprs.mids[g].terms)})[0];
    const bool last = g + 1 == exprs.mids.size();
    // if constexpr (G == 0) { ... } else if constexpr (G == 1) { ... } else { ... }: a return on every path
    const std::string opens = last ? (g == 0 ? "" : "} else ") : g == 0 ? "if constexpr (G == 0) " : fmt::format("}} else if constexpr (G == {}) ", g);
    s += fmt::format("    {}{{  // {}\n", opens, mid_name(spec, exprs.mids[g]));
    s += printer.body("      ");
    s += fmt::format("      return {};\n", value);
  }
  return s + "    }\n  }\n";
}

std::string bindings(const Spec& spec, const StencilPlan& plan, const MixedSplit& exprs) {
  const auto inputs = spec.inputs();
  const auto outputs = spec.output_fields();
  std::string s;
  s += fmt::format("  using real = {};\n", spec.dtype == Dtype::Float32 ? "float" : "double");
  s += fmt::format("  static constexpr int kNumIn = {};\n", inputs.size());
  s += fmt::format("  static constexpr int kNumOut = {};\n", outputs.size());
  s += fmt::format("  static constexpr int kNumParams = {};\n", spec.params.size());
  s += binding_lines(stencil_tunable_rows(), plan);  // kBlockX ... kRingAhead
  s += fmt::format("  static constexpr int kRingSlots = {};\n", plan.ring_slots());
  s += "  // Per field and kernel axis (x, y, z): ghost widths, and how far the outputs read.\n";
  s += fmt::format("  static constexpr int kInGhost[kNumIn > 0 ? kNumIn : 1][3] = {}\n", table(plan.in_ghost, inputs));
  s += fmt::format("  static constexpr int kRadius[kNumIn > 0 ? kNumIn : 1][3] = {}\n", table(plan.radius, inputs));
  s += fmt::format("  static constexpr int kOutGhost[kNumOut][3] = {}\n", table(plan.out_ghost, outputs));
  s += fmt::format("  static constexpr int kOutWrap[kNumOut] = {{{}}};  // periodic ghost images each output stores, a bit per kernel axis\n",
                   fmt::join(plan.out_wrap, ", "));
  s += fmt::format("  static constexpr int kMaxRadiusZ = {};\n", plan.max_radius_z);
  s += plan.shared_pitches ? "  // The field whose pitch each field's accesses use: the first of its kind with its ghosts (the launch checks theirs alike).\n"
                           : "  // The field whose pitch each field's accesses use: its own.\n";
  s += fmt::format("  static constexpr int kInPitchOf[kNumIn > 0 ? kNumIn : 1] = {{{}}};\n",
                   inputs.empty() ? "0" : fmt::format("{}", fmt::join(pitch_sources(plan.in_ghost, !plan.shared_pitches), ", ")));
  s += fmt::format("  static constexpr int kOutPitchOf[kNumOut] = {{{}}};\n", fmt::join(pitch_sources(plan.out_ghost, !plan.shared_pitches), ", "));
  s += "\n  // Input slots by name.\n";
  for (const auto* f : inputs) s += fmt::format("  static constexpr int f_{} = {};\n", f->name, f->slot);

  if (plan.strategy == StencilStrategy::Stage) s += intermediates(spec, plan, exprs);

  CudaPrinter printer(spec, plan.kernel_axis);
  // A subexpression written in several outputs or lets is computed once:
  // the printer gives a node met along several paths a temporary of its own.
  const std::vector<std::string> results = printer.emit(exprs.roots);

  s += "\n  template <class In>\n";
  s += "  static __device__ __forceinline__ void compute(const In& in, const real* p, real* out) {\n";
  for (std::size_t i = 0; i < spec.params.size(); ++i)
    s += spec.params[i].device ? fmt::format("    const real p_{0} = gpen_param_{0};  // written on the device\n", spec.params[i].name)
                               : fmt::format("    const real p_{} = p[{}];\n", spec.params[i].name, i);
  s += printer.body("    ");
  for (std::size_t i = 0; i < spec.outputs.size(); ++i) {
    const auto& o = spec.outputs[i];
    s += fmt::format("    out[{}] = {};  // {}\n", spec.fields[o.field].slot, results[i], spec.fields[o.field].name);
  }
  s += "  }";
  return s;
}

std::string asserts(const Spec& spec, const StencilPlan& plan) {
  std::string s;
  for (const auto* f : spec.inputs())
    for (int ax = 0; ax < 3; ++ax)
      if (plan.radius[f->slot][ax] > 0)
        s += fmt::format("static_assert(Bindings::kInGhost[{0}][{1}] >= Bindings::kRadius[{0}][{1}], \"ghost of {2} covers its stencil along kernel axis {3}\");\n",
                         f->slot, ax, f->name, "xyz"[ax]);
  s += "static_assert(Bindings::kBlockX * Bindings::kBlockY <= 1024, \"a block has at most 1024 threads\");\n";
  // The layout gpen's host code writes (stencil_kernel.cpp): a header
  // swapped at run time (GPEN_TEMPLATE_DIR) that lays it out otherwise fails here.
  const StencilArgsLayout l = stencil_args_layout(static_cast<int>(spec.inputs().size()), static_cast<int>(spec.output_fields().size()),
                                                  static_cast<int>(spec.params.size()), static_cast<int>(size_of(spec.dtype)));
  s += fmt::format("static_assert(sizeof(gpen::StencilArgs<Bindings>) == {}, \"kernel arguments as the host writes them\");\n", l.size);
  if (plan.strategy == StencilStrategy::Tile || plan.strategy == StencilStrategy::Rolling) {
    s += fmt::format("static_assert(sizeof(gpen::PlaneTiles<Bindings>::real) * gpen::PlaneTiles<Bindings>::kTotal == {}, \"shared memory as planned\");\n", plan.shared_bytes);
    s += fmt::format("static_assert({} <= {}, \"static shared memory limit\");", plan.shared_bytes, kMaxStaticShared);
  } else if (plan.strategy == StencilStrategy::Stage) {
    s += fmt::format("static_assert(sizeof(Bindings::real) * gpen::stage_values<Bindings>() == {}, \"the staged planes' shared memory as planned\");",
                     plan.dynamic_shared_bytes);
  } else if (plan.ring_ahead > 0) {
    s += fmt::format("static_assert(sizeof(Bindings::real) * gpen::ring_values<Bindings>() == {}, \"the ring's shared memory as planned\");", plan.dynamic_shared_bytes);
  } else {
    s.pop_back();
  }
  return s;
}

std::string entries(const StencilPlan& plan) {
  const std::string bounds = plan.min_blocks > 0 ? fmt::format("__launch_bounds__({}, {}) ", plan.threads(), plan.min_blocks) : "";
  std::string s = fmt::format(
      "extern \"C\" __global__ void {}{}(gpen::StencilArgs<Bindings> args) {{\n"
      "  gpen::stencil_{}<Bindings>(args);\n"
      "}}",
      bounds, plan.kernel_name, to_string(plan.strategy));
  if (!plan.clamped_kernel_name.empty()) {
    s += fmt::format(
        "\n\n// For arrays whose rows are not whole runs of kVectorX values, or with fewer\n"
        "// than kRowsY rows: scalar accesses, clamped loads. The host picks it then.\n"
        "extern \"C\" __global__ void {}{}(gpen::StencilArgs<Bindings> args) {{\n"
        "  gpen::stencil_march<Bindings, false>(args);\n"
        "}}",
        bounds, plan.clamped_kernel_name);
  }
  return s;
}

}  // namespace

Variant plan_stencil_unit(const Spec& spec, const TunableChoice& choice) {
  StencilPlan p = plan_stencil(spec, choice);
  const std::string what = to_string(p.strategy);
  return planned_variant(spec, choice, std::move(p), what);
}

double stencil_ops_per_point(const Spec& spec, const Variant& g) {
  const MixedSplit exprs = unit_expressions(spec, g.plan_as<StencilPlan>());
  double ops = ir_work(exprs.roots).distinct_ops;
  for (const auto& m : exprs.mids) ops += static_cast<double>(m.terms.size());
  return ops;
}

// The params read from the unit's globals (ParamDecl::device): the host
// finds them by name (Kernel::global) and other kernels write them.
std::string device_params(const Spec& spec) {
  std::string s;
  for (const ParamDecl& q : spec.params)
    if (q.device)
      s += fmt::format("__device__ {} gpen_param_{};  // {}: written on the device before each launch\n", spec.dtype == Dtype::Float32 ? "float" : "double",
                       q.name, q.name);
  return s.empty() ? s : "// Params the launch does not pass: other kernels write them.\n" + s + "\n";
}

std::string print_stencil_unit(const Spec& spec, const Variant& g) {
  const StencilPlan& p = g.plan_as<StencilPlan>();
  const MixedSplit exprs = unit_expressions(spec, p);
  return instantiate("stencil_unit.cu.in",
                     {{"banner", banner(spec, g.choice, p, exprs)},
                      {"globals", device_params(spec)},
                      {"strategy", to_string(p.strategy)},
                      {"bindings", bindings(spec, p, exprs)},
                      {"asserts", asserts(spec, p)},
                      {"threads", std::to_string(p.threads())},
                      {"entries", entries(p)}});
}


}  // namespace gpen
