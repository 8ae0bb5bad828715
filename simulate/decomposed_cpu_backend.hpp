// A program's CPU reference run on subdomains (issue 30): a CpuBackend a
// rank on its part of the grid, all in this process, the stages in
// lockstep, the ghost zones after each stage from the host model of the
// exchange (halo.hpp) instead of each part's own boundary fill. The
// semantics every decomposed run (P GPUs, or P subdomains on one) is
// checked against: its fields equal the undecomposed run's bit for bit.
#pragma once

#include <memory>
#include <vector>

#include "cpu_backend.hpp"
#include "decomposition.hpp"

namespace gpen::sim {

class DecomposedCpuBackend : public Backend {
 public:
  // Refuses (UsageError) what decompose() refuses.
  DecomposedCpuBackend(const Program& p, RankGrid grid);

  // Interiors of the whole grid, as CpuBackend takes and gives them.
  void set_field(std::size_t f, const std::vector<double>& interior) override;
  std::vector<double> field(std::size_t f) const override;
  std::size_t field_count() const override { return p_.fields.size(); }
  void fill_boundaries() override;
  void step(double dt) override;
  bool steps_cancellable() const override { return true; }
  // The ranks' results folded by each reduction's own operation, rank
  // after rank: a maximum or minimum repeats the undecomposed run's bits,
  // a sum agrees to rounding (its terms are added in another order).
  double max_speed() override;
  std::vector<double> diagnostics() override;
  std::optional<NonFinite> first_non_finite() const override;
  std::string name() const override;

  const Decomposition& decomposition() const { return d_; }

 private:
  const Program& p_;
  Decomposition d_;
  std::vector<std::unique_ptr<CpuBackend>> ranks_;
};

}  // namespace gpen::sim
