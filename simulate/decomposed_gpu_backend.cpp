#include "decomposed_gpu_backend.hpp"

#include <cstring>

#include <fmt/format.h>

#include "gpen/families/common/kernel.hpp"

namespace gpen::sim {

DecomposedGpuBackend::DecomposedGpuBackend(const Program& p, RankGrid grid, const Context& ctx, const GpuOptions& options) : p_(p) {
  if (options.links || !options.fields.empty())
    throw BindingError("DecomposedGpuBackend: the ranks' links and arrays are its own (GpuOptions::links and ::fields must be empty)");
  const Decomposition d = decompose(p, grid);
  ctx.make_current();
  group_ = std::make_unique<LocalRanks>(p, d, ctx);
  for (int r = 0; r < d.count(); ++r) {
    GpuOptions o = options;
    o.links = group_->links(r);
    ranks_.push_back(std::make_unique<GpuBackend>(p, ctx, o));
  }
}

void DecomposedGpuBackend::on_ranks(const std::function<void(GpuBackend&, int)>& fn) const {
  group_->run([&](int r) { fn(*ranks_[static_cast<std::size_t>(r)], r); });
}

void DecomposedGpuBackend::set_field(std::size_t f, const std::vector<double>& interior) {
  on_ranks([&](GpuBackend& b, int r) { b.set_field(f, interior_part(interior, p_.size, decomposition().subdomain(r))); });
}

std::vector<double> DecomposedGpuBackend::field(std::size_t f) const {
  std::vector<double> out(static_cast<std::size_t>(p_.size[0] * p_.size[1] * p_.size[2]));
  for (std::size_t r = 0; r < ranks_.size(); ++r) place_interior_part(out, p_.size, decomposition().subdomain(static_cast<int>(r)), ranks_[r]->field(f));
  return out;
}

void DecomposedGpuBackend::fill_boundaries() {
  on_ranks([](GpuBackend& b, int) { b.fill_boundaries(); });
}

void DecomposedGpuBackend::step(double dt) {
  on_ranks([dt](GpuBackend& b, int) { b.step(dt); });
}

double DecomposedGpuBackend::max_speed() {
  std::vector<double> speed(ranks_.size());
  on_ranks([&](GpuBackend& b, int r) { speed[static_cast<std::size_t>(r)] = b.max_speed(); });
  return speed[0];  // every rank's: the fold over all
}

bool DecomposedGpuBackend::steps_on_device() const { return ranks_[0]->steps_on_device(); }

void DecomposedGpuBackend::set_clock(double t) {
  for (auto& b : ranks_) b->set_clock(t);
}

void DecomposedGpuBackend::launch_step(double stop) {
  on_ranks([stop](GpuBackend& b, int) { b.launch_step(stop); });
}

Backend::Clock DecomposedGpuBackend::wait_step() {
  std::vector<Clock> c;
  for (auto& b : ranks_) c.push_back(b->wait_step());
  // The same bits on every rank (a NaN step's too: no step, said by the Simulation).
  auto same = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  for (const Clock& x : c)
    if (!same(x.t, c[0].t) || !same(x.dt, c[0].dt) || x.valid != c[0].valid)
      throw std::logic_error(fmt::format("the ranks' steps differ: t {} and {}, dt {} and {}", c[0].t, x.t, c[0].dt, x.dt));
  return c[0];
}

std::vector<double> DecomposedGpuBackend::diagnostics() {
  std::vector<std::vector<double>> v(ranks_.size());
  on_ranks([&](GpuBackend& b, int r) { v[static_cast<std::size_t>(r)] = b.diagnostics(); });
  return v[0];
}

std::optional<NonFinite> DecomposedGpuBackend::first_non_finite() const {
  std::vector<std::optional<NonFinite>> v(ranks_.size());
  on_ranks([&](GpuBackend& b, int r) { v[static_cast<std::size_t>(r)] = b.first_non_finite(); });
  return v[0];
}

std::string DecomposedGpuBackend::name() const {
  const RankGrid& g = decomposition().grid();
  return fmt::format("{} (GPU) on {}x{}x{} subdomains, a thread each", group_->context().info().name, g.ranks[0], g.ranks[1], g.ranks[2]);
}

}  // namespace gpen::sim
