#include "decomposed_cpu_backend.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpen/generator/associative_op.hpp"
#include "gpen/generator/error.hpp"
#include "halo.hpp"
#include "integrator.hpp"

namespace gpen::sim {

namespace {
const char* const kAxis = "xyz";

// Field f's global interior (x fastest) cut to subdomain s's.
std::vector<double> part_of(const std::vector<double>& global, const std::array<long long, 3>& size, const Subdomain& s) {
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(s.extent[0] * s.extent[1] * s.extent[2]));
  for (long long k = 0; k < s.extent[2]; ++k)
    for (long long j = 0; j < s.extent[1]; ++j)
      for (long long i = 0; i < s.extent[0]; ++i)
        out.push_back(global.at(static_cast<std::size_t>((s.offset[0] + i) + size[0] * ((s.offset[1] + j) + size[1] * (s.offset[2] + k)))));
  return out;
}
}  // namespace

DecomposedCpuBackend::DecomposedCpuBackend(const Program& p, RankGrid grid) : p_(p), d_(decompose(p, grid)) {
  for (const RhsKernel& r : p.rhs)
    if (r.use.spec.kind == "sbp")
      for (int ax = 0; ax < p.dims; ++ax)
        if (grid.ranks[static_cast<std::size_t>(ax)] > 1)
          throw UsageError(fmt::format("--ranks: right-hand side '{}' is of kind \"sbp\", whose operators close the boundaries themselves: its "
                                       "axes cannot be split (ranks along {}: {}; give 1)",
                                       r.use.spec.name, kAxis[ax], grid.ranks[static_cast<std::size_t>(ax)]));
  for (int r = 0; r < d_.count(); ++r) ranks_.push_back(std::make_unique<CpuBackend>(p, d_.subdomain(r).extent));
}

void DecomposedCpuBackend::set_fields(const std::vector<std::vector<double>>& interiors) {
  for (int r = 0; r < d_.count(); ++r) {
    std::vector<std::vector<double>> mine;
    for (const auto& f : interiors) mine.push_back(part_of(f, p_.size, d_.subdomain(r)));
    auto& arrays = ranks_[static_cast<std::size_t>(r)]->arrays();
    for (std::size_t f = 0; f < arrays.size(); ++f) set_interior(arrays[f], mine.at(f));
  }
  fill_boundaries();
}

std::vector<std::vector<double>> DecomposedCpuBackend::fields() const {
  std::vector<std::vector<double>> out(p_.fields.size(), std::vector<double>(static_cast<std::size_t>(p_.size[0] * p_.size[1] * p_.size[2])));
  for (int r = 0; r < d_.count(); ++r) {
    const Subdomain& s = d_.subdomain(r);
    const auto& arrays = ranks_[static_cast<std::size_t>(r)]->arrays();
    for (std::size_t f = 0; f < arrays.size(); ++f)
      for (long long k = 0; k < s.extent[2]; ++k)
        for (long long j = 0; j < s.extent[1]; ++j)
          for (long long i = 0; i < s.extent[0]; ++i)
            out[f][static_cast<std::size_t>((s.offset[0] + i) + p_.size[0] * ((s.offset[1] + j) + p_.size[1] * (s.offset[2] + k)))] = arrays[f].at(i, j, k);
  }
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

namespace {
// The ranks' results of reductions `rs` (each rank's in CpuBackend's
// order: reduction by reduction, output by output) combined by each
// output's own operation, rank after rank.
std::vector<double> combined(const std::vector<const ReduceUse*>& rs, const std::vector<std::vector<double>>& per_rank) {
  std::vector<const AssociativeOp*> ops;
  for (const ReduceUse* r : rs)
    for (const auto& o : r->use.spec.outputs) ops.push_back(o.op.get());
  std::vector<double> v;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    double x = ops[i]->identity;
    for (const auto& rank : per_rank) x = apply_op(*ops[i], x, rank.at(i));
    v.push_back(x);
  }
  return v;
}
}  // namespace

double DecomposedCpuBackend::max_speed() {
  // The speed is the reduction's first result alone: fold that one.
  const AssociativeOp& op = *p_.time_step.speed->use.spec.outputs.at(0).op;
  double x = op.identity;
  for (auto& r : ranks_) x = apply_op(op, x, r->max_speed());
  return x;
}

std::vector<double> DecomposedCpuBackend::diagnostics() {
  std::vector<std::vector<double>> per_rank;
  for (auto& r : ranks_) per_rank.push_back(r->diagnostics());
  std::vector<const ReduceUse*> rs;
  for (const ReduceUse& r : p_.diagnostics.reductions) rs.push_back(&r);
  return combined(rs, per_rank);
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
