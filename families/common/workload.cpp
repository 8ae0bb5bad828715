#include "gpen/families/common/workload.hpp"

#include "gpen/families/common/runtime_family.hpp"
#include "gpen/families/common/ghost_fill.hpp"

#include <unistd.h>

#include <algorithm>
#include <new>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

std::uint64_t bytes_times(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? kBytesPastLimit : r;
}

std::uint64_t bytes_plus(std::uint64_t a, std::uint64_t b) {
  std::uint64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? kBytesPastLimit : r;
}

std::uint64_t padded_elements(int dims, const std::array<long long, 3>& shape, int ghost) {
  std::uint64_t n = 1;
  for (int ax = 0; ax < 3; ++ax)
    n = bytes_times(n, static_cast<std::uint64_t>(shape[ax]) + (ax < dims ? 2 * static_cast<std::uint64_t>(ghost) : 0));
  return n;
}

std::string bytes_text(std::uint64_t bytes) {
  if (bytes == kBytesPastLimit) return fmt::format("{} bytes or more (16 EiB)", bytes);
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  double v = static_cast<double>(bytes) / 1024;
  int u = 0;
  while (v >= 1024 && u < 5) v /= 1024, ++u;
  return fmt::format("{} bytes ({:.1f} {})", bytes, v, units[u]);
}

std::string size_text(const std::array<long long, 3>& size, int dims) {
  return fmt::format("{}", fmt::join(size.begin(), size.begin() + std::clamp(dims, 1, 3), "x"));
}

MemoryNeed workload_memory(const Spec& spec, const std::array<long long, 3>& size) {
  MemoryNeed need;
  need.what = fmt::format("{} ({}) at {}", spec.name, to_string(spec.dtype), size_text(size, spec.dims));
  for (const auto* f : spec.inputs()) {
    const std::uint64_t n = padded_elements(spec.dims, size, f->ghost);
    need.host = bytes_plus(need.host, bytes_times(n, sizeof(double)));
    need.device = bytes_plus(need.device, bytes_times(n, size_of(spec.dtype)));
  }
  for (const auto* f : spec.output_fields())
    need.device = bytes_plus(need.device, bytes_times(padded_elements(spec.dims, field_shape(*f, size), f->ghost), size_of(field_dtype(spec, *f))));
  return need;
}

std::string memory_problem(const MemoryNeed& need, const MemoryHave& have) {
  const bool gpu = need.device > have.device_free, host = need.host > have.host_total;
  if (!gpu && !host) return {};
  std::string s = fmt::format("{} does not fit in {}", need.what,
                              gpu && host ? "the GPU's memory nor the host's" : gpu ? "the GPU's memory" : "the host's memory");
  if (need.device > 0)
    s += fmt::format("\n  GPU:  needs {}; {} free of {}", bytes_text(need.device), bytes_text(have.device_free), bytes_text(have.device_total));
  s += fmt::format("\n  host: needs {} of {}", bytes_text(need.host), bytes_text(have.host_total));
  return s;
}

std::uint64_t host_memory_total() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? bytes_times(static_cast<std::uint64_t>(pages), static_cast<std::uint64_t>(page)) : kBytesPastLimit;
}

MemoryHave memory_have(const Context& ctx) {
  MemoryHave h;
  h.host_total = host_memory_total();
  h.device_free = ctx.free_memory();
  h.device_total = ctx.info().total_memory;
  return h;
}

void check_memory(const MemoryNeed& need, const Context& ctx) {
  const std::string problem = memory_problem(need, memory_have(ctx));
  if (!problem.empty()) throw std::runtime_error(problem);
}

double median_of(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

Workload::Workload(const Context& ctx, const Spec& spec, std::array<long long, 3> size, WorkloadOptions opt)
    : ctx_(ctx), spec_(spec), size_(size), opt_(std::move(opt)) {
  // Enough sets that one pass over them is four times the L2, at most 16.
  std::size_t sets = 1;
  if (opt_.rotate_for_l2 && bytes() > 0)
    sets = static_cast<std::size_t>(std::clamp(4.0 * ctx.info().l2_bytes / bytes(), 1.0, 16.0));
  MemoryNeed need = workload_memory(spec, size);
  need.device = bytes_times(need.device, sets);
  check_memory(need, ctx);
  try {
    for (const auto* f : spec.inputs()) in_host_.emplace_back(spec.dims, size, f->ghost);
  } catch (const std::bad_alloc&) {
    throw std::runtime_error(fmt::format("{}: the host could not allocate {} for the inputs", need.what, bytes_text(need.host)));
  }
  // Each input its own generator (seed, seed + 1, ...), so the inputs are
  // filled side by side: seconds each at 512^3.
  parallel_for(static_cast<long long>(in_host_.size()), [&](long long i) {
    fill_random(in_host_[static_cast<std::size_t>(i)], opt_.seed + static_cast<std::uint64_t>(i), spec.dtype);
    if (opt_.periodic) fill_periodic(in_host_[static_cast<std::size_t>(i)]);  // the GPU fill below must agree
  });
  std::optional<PeriodicFill> fill;
  if (opt_.periodic) fill.emplace(spec.dtype, ctx);
  for (std::size_t s = 0; s < sets; ++s) {
    Set set;
    for (std::size_t i = 0; i < in_host_.size(); ++i) {
      set.in.emplace_back(spec.dtype, spec.dims, size, spec.inputs()[i]->ghost);
      set.in.back().upload(in_host_[i].data);
      if (fill) fill->launch(set.in.back());
    }
    for (const auto* f : spec.output_fields()) set.out.emplace_back(field_dtype(spec, *f), spec.dims, field_shape(*f, size), f->ghost);
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
  auto points = [](const std::array<long long, 3>& s) { return static_cast<double>(s[0]) * s[1] * s[2]; };
  double b = points(size_) * size_of(spec_.dtype) * static_cast<double>(spec_.inputs().size());
  for (const auto* f : spec_.output_fields()) b += points(field_shape(*f, size_)) * size_of(field_dtype(spec_, *f));
  return b;
}

void Workload::poison_outputs(CUstream stream) {
  // All bits set is a NaN in float32 and float64 alike.
  for (auto& o : sets_[0].out) GPEN_CU(cuMemsetD8Async(o.get(), 0xFF, o.bytes(), stream), "poisoning an output with NaN");
}

Comparison Workload::verify_on_cpu() {
  const auto outs = spec_.output_fields();
  // The reference, and each output downloaded beside its poisoned twin, in double.
  MemoryNeed need{workload_memory(spec_, size_).what + ", verified on the CPU", 0, 0};
  for (const auto* f : outs) need.host = bytes_plus(need.host, bytes_times(padded_elements(spec_.dims, field_shape(*f, size_), f->ghost), 3 * sizeof(double)));
  if (const std::string problem = memory_problem(need, memory_have(ctx_)); !problem.empty()) throw std::runtime_error(problem);
  const RuntimeFamily& family = runtime_family_of(spec_);
  if (cpu_reference_.empty()) {
    // Kept only once whole: a reference cancelled part way (Ctrl-C, gpen
    // tune's deadline) is computed again by the next check.
    std::vector<HostArray> reference, scale;
    for (const auto* f : outs) reference.emplace_back(spec_.dims, field_shape(*f, size_), f->ghost);
    family.reference(spec_, in_host_, opt_.params, reference, scale);
    cpu_reference_ = std::move(reference);
    cpu_scale_ = std::move(scale);
  }
  GPEN_CU(cuCtxSynchronize(), "waiting for the launch to verify");
  std::vector<Comparison> cs;
  for (std::size_t i = 0; i < outs.size(); ++i) {
    HostArray got(spec_.dims, field_shape(*outs[i], size_), outs[i]->ghost), poison(spec_.dims, field_shape(*outs[i], size_), outs[i]->ghost);
    got.data = sets_[0].out[i].download();
    fill_nan(poison);
    cs.push_back(family.compare(spec_, got, cpu_reference_[i], i < cpu_scale_.size() ? &cpu_scale_[i] : nullptr, poison));
  }
  return worst_of(cs);
}

void Workload::keep_as_reference(CUstream stream) {
  reference_.clear();
  for (const auto& o : sets_[0].out) {
    reference_.emplace_back(o.dtype(), o.dims(), o.shape(), o.ghost());
    GPEN_CU(cuMemcpyDtoDAsync(reference_.back().get(), o.get(), o.bytes(), stream), "keeping a reference output");
  }
  // Every output of a spec has one dtype (a reduction's: its accumulator's).
  if (!comparer_) comparer_.emplace(field_dtype(spec_, *spec_.output_fields().front()), ctx_);
}

Comparison Workload::compare_to_reference(CUstream stream) const {
  GPEN_INTERNAL_CHECK(!reference_.empty(), "compare_to_reference before keep_as_reference");
  std::vector<Comparison> cs;
  for (std::size_t i = 0; i < reference_.size(); ++i)
    cs.push_back(comparer_->compare(sets_[0].out[i], reference_[i], tolerance_for(spec_.dtype), stream));  // the inputs' precision
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
