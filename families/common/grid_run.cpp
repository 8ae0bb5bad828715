#include "gpen/families/common/grid_run.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpen/families/common/workload.hpp"
#include "gpen/generator/error.hpp"
#include "gpen/generator/tunables.hpp"

namespace gpen {


std::vector<long long> parse_size_numbers(const std::string& text, std::size_t most, const std::string& form) {
  auto usage = [&](const std::string& why) { return UsageError(fmt::format("--size {}: {}", text, why)); };
  std::vector<long long> n;
  std::size_t at = 0;
  for (;;) {
    const std::size_t x = std::min(text.find('x', at), text.size());
    const std::string part = text.substr(at, x - at);
    if (n.size() == most || part.empty() || part.find_first_not_of("0123456789") != std::string::npos)
      throw usage(fmt::format("not {}, numbers of points (digits only) joined by 'x'", form));
    // Leading zeros are no digits of the number; past 10 digits it is past the limit.
    const std::string digits = part.substr(std::min(part.find_first_not_of('0'), part.size()));
    if (digits.empty()) throw usage(fmt::format("{} points along an axis; at least 1", part));
    if (digits.size() > 10 || std::stoll(digits) > kMaxSizeAxis)
      throw usage(fmt::format("{} points along an axis; at most {} (2^31 - 1: the kernels count an axis in int)", part, kMaxSizeAxis));
    n.push_back(std::stoll(digits));
    if (x == text.size()) return n;
    at = x + 1;
  }
}

std::array<long long, 3> parse_size(const std::string& text, int dims) {
  static const char* const forms[] = {"N", "N or NXxNY", "N or NXxNYxNZ"};
  const std::vector<long long> n = parse_size_numbers(text, 3, forms[std::clamp(dims, 1, 3) - 1]);
  if (n.size() != 1 && static_cast<int>(n.size()) != dims)
    throw UsageError(fmt::format("--size {}: {} axes, the spec's arrays have {}; expected {} (one number: that many points along every axis)", text,
                                 n.size(), dims, forms[std::clamp(dims, 1, 3) - 1]));
  std::array<long long, 3> s{1, 1, 1};
  for (int ax = 0; ax < dims; ++ax) s[ax] = n.size() == 1 ? n[0] : n[ax];  // "256" means 256^dims
  // Each axis fits in 31 bits; three of them may not fit in 63.
  long long points = 1;
  for (long long a : s)
    if (__builtin_mul_overflow(points, a, &points))
      throw UsageError(fmt::format("--size {}: {:.4g} points, more than a 64-bit count holds", text,
                                   static_cast<double>(s[0]) * static_cast<double>(s[1]) * static_cast<double>(s[2])));
  return s;
}

double measure_copy_gbs(const Context& ctx, std::size_t bytes, int repeat) {
  (void)ctx;
  DeviceMemory a(bytes), b(bytes);
  GPEN_CU(cuMemsetD8(a.get(), 1, bytes), "filling the copy buffer");
  Stream s;
  Event e0, e1;
  std::vector<float> t;
  for (int r = 0; r < repeat + 2; ++r) {
    e0.record(s.get());
    GPEN_CU(cuMemcpyDtoDAsync(b.get(), a.get(), bytes, s.get()), "timing a device-to-device copy");
    e1.record(s.get());
    const float ms = e1.since(e0);
    if (r >= 2) t.push_back(ms);
  }
  return 2.0 * bytes / (median_of(t) * 1e-3) / 1e9;
}

VariantFacts variant_facts(const Kernel& kernel, const Spec& spec) {
  VariantFacts f;
  f.spec = spec.name;
  f.variant = describe(spec.tunables, kernel.source().choice);
  f.tunables = kernel.source().choice;
  f.unit = kernel.source().name;
  f.cache = to_string(kernel.compiled().source);
  f.cache_ms = kernel.compiled().ms;
  f.load_ms = kernel.module_load_ms();
  f.usage = kernel.compiled().kernel.usage;
  return f;
}

RunReport measure_variant(const Context& ctx, Workload& w, const Variant& variant, const MeasureOptions& opt) {
  const Spec& spec = w.spec();
  const std::unique_ptr<Kernel> k = make_kernel(spec, variant, ctx);
  const Kernel& kernel = *k;
  RunReport rep;
  static_cast<VariantFacts&>(rep) = variant_facts(kernel, spec);

  Stream stream;
  // The verified result is the first launch on freshly poisoned outputs,
  // before any timing run.
  w.poison_outputs(stream.get());
  kernel.launch(w.bindings(), w.params(), stream.get());
  stream.synchronize();
  if (opt.check == MeasureOptions::Check::Cpu) rep.check = w.verify_on_cpu();
  if (opt.check == MeasureOptions::Check::Reference) rep.check = w.compare_to_reference(stream.get());

  const LaunchTimes t = time_launches(kernel, w, opt.warmup, opt.repeat, stream.get());
  rep.median_ms = t.median_ms;
  rep.min_ms = t.min_ms;
  rep.bytes = w.bytes();
  rep.teff_gbs = rep.median_ms > 0 ? rep.bytes / (rep.median_ms * 1e-3) / 1e9 : 0;
  return rep;
}

RunReport run_spec(const Context& ctx, const Spec& spec, const TunableChoice& choice, const RunOptions& opt) {
  WorkloadOptions wo;
  wo.params = opt.params;
  wo.seed = opt.seed;
  wo.periodic = opt.periodic;
  Workload w(ctx, spec, opt.size, wo);
  MeasureOptions mo;
  mo.warmup = opt.warmup;
  mo.repeat = opt.repeat;
  mo.check = opt.verify ? MeasureOptions::Check::Cpu : MeasureOptions::Check::None;
  return measure_variant(ctx, w, plan_unit(spec, choice), mo);
}

}  // namespace gpen
