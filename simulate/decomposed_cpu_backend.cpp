#include "decomposed_cpu_backend.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpen/generator/associative_op.hpp"
#include "gpen/generator/error.hpp"
#include "halo.hpp"
#include "integrator.hpp"
#include "rank_links.hpp"

namespace gpen::sim {

DecomposedCpuBackend::DecomposedCpuBackend(const Program& p, RankGrid grid) : p_(p), d_(decompose(p, grid)) {
  for (int r = 0; r < d_.count(); ++r) ranks_.push_back(std::make_unique<CpuBackend>(p, d_.subdomain(r).extent));
}

void DecomposedCpuBackend::set_field(std::size_t f, const std::vector<double>& interior) {
  for (int r = 0; r < d_.count(); ++r) ranks_[static_cast<std::size_t>(r)]->set_field(f, interior_part(interior, p_.size, d_.subdomain(r)));
}

std::vector<double> DecomposedCpuBackend::field(std::size_t f) const {
  std::vector<double> out(static_cast<std::size_t>(p_.size[0] * p_.size[1] * p_.size[2]));
  for (int r = 0; r < d_.count(); ++r) place_interior_part(out, p_.size, d_.subdomain(r), ranks_[static_cast<std::size_t>(r)]->field(f));
  return out;
}

void DecomposedCpuBackend::fill_boundaries() {
  for (std::size_t f = 0; f < p_.fields.size(); ++f) {
    std::vector<HostArray> parts;
    for (auto& r : ranks_) parts.push_back(std::move(r->arrays()[f]));
    exchange_halos(p_.fields[f], d_, parts);
    for (std::size_t r = 0; r < ranks_.size(); ++r) ranks_[r]->arrays()[f] = std::move(parts[r]);
  }
}

void DecomposedCpuBackend::step(double dt) {
  for (std::size_t st = 0; st < scheme(p_.integrator).stages.size(); ++st) {
    for (auto& r : ranks_) r->stage(dt, st);
    fill_boundaries();
  }
}


double DecomposedCpuBackend::max_speed() {
  // The speed is the reduction's first result alone: fold that one.
  std::vector<std::vector<double>> per_rank;
  for (auto& r : ranks_) per_rank.push_back({r->max_speed()});
  return fold_over_ranks({p_.time_step.speed->use.spec.outputs.at(0).op.get()}, per_rank).at(0);
}

std::vector<double> DecomposedCpuBackend::diagnostics() {
  std::vector<std::vector<double>> per_rank;
  for (auto& r : ranks_) per_rank.push_back(r->diagnostics());
  return fold_over_ranks(output_ops(p_.diagnostics.reductions), per_rank);
}

std::optional<NonFinite> DecomposedCpuBackend::first_non_finite() const {
  // As the undecomposed run finds it: field by field, then z, y, x of the whole grid.
  const std::vector<std::vector<double>> all = fields();
  for (std::size_t f = 0; f < all.size(); ++f)
    for (std::size_t i = 0; i < all[f].size(); ++i)
      if (!std::isfinite(all[f][i])) {
        const long long at = static_cast<long long>(i), nx = p_.size[0], ny = p_.size[1];
        return NonFinite{static_cast<int>(f), {at % nx, at / nx % ny, at / (nx * ny)}, all[f][i]};
      }
  return std::nullopt;
}

std::string DecomposedCpuBackend::name() const {
  return fmt::format("cpu (reference, float64) on {}x{}x{} subdomains", d_.grid().ranks[0], d_.grid().ranks[1], d_.grid().ranks[2]);
}

}  // namespace gpen::sim
