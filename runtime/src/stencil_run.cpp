#include "gpen/runtime/stencil_run.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "gpen/generator/tunables.hpp"

namespace gpen {

namespace {
double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}
}  // namespace

std::array<long long, 3> parse_size(const std::string& text, int dims) {
  std::array<long long, 3> s{1, 1, 1};
  std::stringstream ss(text);
  std::string part;
  int n = 0;
  while (std::getline(ss, part, 'x')) {
    if (n >= 3 || part.empty() || part.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument(fmt::format("size '{}' is not NX[xNY[xNZ]] with positive integers", text));
    s[n++] = std::stoll(part);
    if (s[n - 1] < 1) throw std::invalid_argument(fmt::format("size '{}' has an empty axis", text));
  }
  if (n == 1) for (int ax = 1; ax < dims; ++ax) s[ax] = s[0];  // "256" means 256^dims
  else if (n != dims) throw std::invalid_argument(fmt::format("size '{}' has {} axes, the spec's arrays have {}", text, n, dims));
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
  return 2.0 * bytes / (median(t) * 1e-3) / 1e9;
}

RunReport run_stencil(const Context& ctx, const Spec& spec, const TunableChoice& choice, const RunOptions& opt) {
  RunReport rep;
  rep.spec = spec.name;
  rep.variant = describe(spec.tunables, choice);
  StencilKernel kernel(spec, choice, ctx);
  rep.unit = kernel.source().name;
  rep.cache = to_string(kernel.compiled().source);
  rep.cache_ms = kernel.compiled().ms;
  rep.load_ms = kernel.module_load_ms();
  rep.usage = kernel.compiled().kernel.usage;

  // Host arrays in the spec's layout; inputs random (or periodic), outputs NaN.
  std::vector<HostArray> in_host, out_host;
  std::vector<DeviceBuffer> in_dev, out_dev;
  std::uint64_t seed = opt.seed;
  for (const auto* f : spec.inputs()) {
    in_host.emplace_back(spec.dims, opt.size, f->ghost);
    fill_random(in_host.back(), seed++, spec.dtype);
    if (opt.periodic) fill_periodic(in_host.back());
  }
  for (const auto* f : spec.output_fields()) {
    out_host.emplace_back(spec.dims, opt.size, f->ghost);
    fill_nan(out_host.back());
  }
  FieldBindings bind;
  for (std::size_t i = 0; i < in_host.size(); ++i) {
    in_dev.emplace_back(spec.dtype, spec.dims, opt.size, spec.inputs()[i]->ghost);
    in_dev.back().upload(in_host[i].data);
  }
  for (std::size_t i = 0; i < out_host.size(); ++i) {
    out_dev.emplace_back(spec.dtype, spec.dims, opt.size, spec.output_fields()[i]->ghost);
    out_dev.back().upload(out_host[i].data);  // poisoned: every unwritten point stays NaN
  }
  for (std::size_t i = 0; i < in_dev.size(); ++i) bind[spec.inputs()[i]->name] = &in_dev[i];
  for (std::size_t i = 0; i < out_dev.size(); ++i) bind[spec.output_fields()[i]->name] = &out_dev[i];

  Stream stream;
  if (opt.periodic) {
    // Ghosts filled on the GPU from random interiors: checks the fill too.
    PeriodicFill fill(spec.dtype, ctx);
    for (auto& d : in_dev) fill.launch(d, stream.get());
  }
  // The verified result is the first launch, before any timing run.
  kernel.launch(bind, opt.params, stream.get());
  stream.synchronize();
  if (opt.verify) {
    std::vector<HostArray> want;
    std::vector<const HostArray*> ins;
    std::vector<HostArray*> outs;
    for (const auto& h : in_host) ins.push_back(&h);
    for (const auto& h : out_host) want.emplace_back(h.dims, h.shape, h.ghost);
    for (auto& w : want) outs.push_back(&w);
    std::vector<double> params;
    for (const auto& p : spec.params) params.push_back(opt.params.count(p.name) ? opt.params.at(p.name) : p.value);
    reference_stencil(spec, ins, params, outs);
    Comparison worst;
    for (std::size_t i = 0; i < out_dev.size(); ++i) {
      HostArray got(out_host[i].dims, out_host[i].shape, out_host[i].ghost);
      got.data = out_dev[i].download();
      Comparison c = compare(got, want[i], out_host[i], tolerance_for(spec.dtype));
      // report the first failing output, else the least accurate one
      if (i == 0 || (worst.pass && !c.pass) || (worst.pass == c.pass && c.rel_l2 > worst.rel_l2)) worst = c;
    }
    rep.check = worst;
  }

  Event e0, e1;
  std::vector<float> times;
  for (int r = 0; r < opt.warmup + opt.repeat; ++r) {
    e0.record(stream.get());
    kernel.launch(bind, opt.params, stream.get());
    e1.record(stream.get());
    const float ms = e1.since(e0);
    if (r >= opt.warmup) times.push_back(ms);
  }
  rep.median_ms = median(times);
  rep.min_ms = times.empty() ? 0 : *std::min_element(times.begin(), times.end());
  const double points = static_cast<double>(opt.size[0]) * opt.size[1] * opt.size[2];
  rep.bytes = points * size_of(spec.dtype) * static_cast<double>(spec.inputs().size() + spec.output_fields().size());
  rep.teff_gbs = rep.median_ms > 0 ? rep.bytes / (rep.median_ms * 1e-3) / 1e9 : 0;
  return rep;
}

}  // namespace gpen
