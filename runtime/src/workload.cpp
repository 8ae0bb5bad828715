#include "gpen/runtime/workload.hpp"

#include "gpen/runtime/sbp_reference.hpp"
#include "gpen/runtime/scan_reference.hpp"
#include "gpen/runtime/stencil_kernel.hpp"

#include <algorithm>

namespace gpen {
namespace {

// The first failing comparison, else the least accurate one.
Comparison worst_of(const std::vector<Comparison>& cs) {
  Comparison w = cs.front();
  for (const auto& c : cs)
    if ((w.pass && !c.pass) || (w.pass == c.pass && c.rel_l2 > w.rel_l2)) w = c;
  return w;
}

}  // namespace

double median_of(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

Workload::Workload(const Context& ctx, const Spec& spec, std::array<long long, 3> size, WorkloadOptions opt)
    : ctx_(ctx), spec_(spec), size_(size), opt_(std::move(opt)) {
  std::uint64_t seed = opt_.seed;
  for (const auto* f : spec.inputs()) {
    in_host_.emplace_back(spec.dims, size, f->ghost);
    fill_random(in_host_.back(), seed++, spec.dtype);
    if (opt_.periodic) fill_periodic(in_host_.back());  // the GPU fill below must agree
  }
  // Enough sets that one pass over them is four times the L2, at most 16.
  std::size_t sets = 1;
  if (opt_.rotate_for_l2 && bytes() > 0)
    sets = static_cast<std::size_t>(std::clamp(4.0 * ctx.info().l2_bytes / bytes(), 1.0, 16.0));
  std::optional<PeriodicFill> fill;
  if (opt_.periodic) fill.emplace(spec.dtype, ctx);
  for (std::size_t s = 0; s < sets; ++s) {
    Set set;
    for (std::size_t i = 0; i < in_host_.size(); ++i) {
      set.in.emplace_back(spec.dtype, spec.dims, size, spec.inputs()[i]->ghost);
      set.in.back().upload(in_host_[i].data);
      if (fill) fill->launch(set.in.back());
    }
    for (const auto* f : spec.output_fields()) set.out.emplace_back(spec.dtype, spec.dims, size, f->ghost);
    sets_.push_back(std::move(set));
  }
  // Bindings point into each set's vectors, which no longer move.
  for (auto& set : sets_) {
    for (std::size_t i = 0; i < set.in.size(); ++i) set.bind[spec.inputs()[i]->name] = &set.in[i];
    for (std::size_t i = 0; i < set.out.size(); ++i) set.bind[spec.output_fields()[i]->name] = &set.out[i];
  }
  for (auto& set : sets_)
    for (auto& o : set.out) GPEN_CU(cuMemsetD8(o.get(), 0xFF, o.bytes()), "poisoning an output with NaN");
  GPEN_CU(cuCtxSynchronize(), "preparing the workload");
}

double Workload::bytes() const {
  const double points = static_cast<double>(size_[0]) * size_[1] * size_[2];
  return points * size_of(spec_.dtype) * static_cast<double>(spec_.inputs().size() + spec_.output_fields().size());
}

void Workload::poison_outputs(CUstream stream) {
  // All bits set is a NaN in float32 and float64 alike.
  for (auto& o : sets_[0].out) GPEN_CU(cuMemsetD8Async(o.get(), 0xFF, o.bytes(), stream), "poisoning an output with NaN");
}

Comparison Workload::verify_on_cpu() {
  const auto outs = spec_.output_fields();
  if (cpu_reference_.empty()) {
    std::vector<const HostArray*> ins;
    std::vector<HostArray*> ptrs;
    for (const auto& h : in_host_) ins.push_back(&h);
    for (const auto* f : outs) cpu_reference_.emplace_back(spec_.dims, size_, f->ghost);
    for (auto& r : cpu_reference_) ptrs.push_back(&r);
    std::vector<double> params;
    for (const auto& p : spec_.params) params.push_back(opt_.params.count(p.name) ? opt_.params.at(p.name) : p.value);
    if (spec_.is_scan()) {
      cpu_scale_.emplace_back(spec_.dims, size_, 0);
      reference_scan(spec_, in_host_[0], cpu_reference_[0], cpu_scale_[0]);
    } else if (spec_.is_sbp()) {
      reference_sbp(spec_, in_host_[0], opt_.params, cpu_reference_[0]);
    } else {
      reference_stencil(spec_, ins, params, ptrs);
    }
  }
  GPEN_CU(cuCtxSynchronize(), "waiting for the launch to verify");
  std::vector<Comparison> cs;
  for (std::size_t i = 0; i < outs.size(); ++i) {
    HostArray got(spec_.dims, size_, outs[i]->ghost), poison(spec_.dims, size_, outs[i]->ghost);
    got.data = sets_[0].out[i].download();
    if (spec_.is_scan()) {
      cs.push_back(compare_scan(spec_, got, cpu_reference_[i], cpu_scale_[i]));
      continue;
    }
    fill_nan(poison);
    cs.push_back(compare(got, cpu_reference_[i], poison, tolerance_for(spec_.dtype)));
  }
  return worst_of(cs);
}

void Workload::keep_as_reference(CUstream stream) {
  reference_.clear();
  for (const auto& o : sets_[0].out) {
    reference_.emplace_back(o.dtype(), o.dims(), o.shape(), o.ghost());
    GPEN_CU(cuMemcpyDtoDAsync(reference_.back().get(), o.get(), o.bytes(), stream), "keeping a reference output");
  }
  if (!comparer_) comparer_.emplace(spec_.dtype, ctx_);
}

Comparison Workload::compare_to_reference(CUstream stream) const {
  GPEN_INTERNAL_CHECK(!reference_.empty(), "compare_to_reference before keep_as_reference");
  std::vector<Comparison> cs;
  for (std::size_t i = 0; i < reference_.size(); ++i)
    cs.push_back(comparer_->compare(sets_[0].out[i], reference_[i], tolerance_for(spec_.dtype), stream));
  return worst_of(cs);
}

LaunchTimes time_launches(const Kernel& kernel, const Workload& w, int warmup, int repeat, CUstream stream) {
  Event e0, e1;
  std::vector<float> times;
  for (int r = 0; r < warmup + repeat; ++r) {
    const FieldBindings& b = w.bindings(static_cast<std::size_t>(r) % w.sets());
    e0.record(stream);
    kernel.launch(b, w.params(), stream);
    e1.record(stream);
    const float ms = e1.since(e0);
    if (r >= warmup) times.push_back(ms);
  }
  LaunchTimes t;
  t.median_ms = median_of(times);
  t.min_ms = times.empty() ? 0 : *std::min_element(times.begin(), times.end());
  return t;
}

}  // namespace gpen
