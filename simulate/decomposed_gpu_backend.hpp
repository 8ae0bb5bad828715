// A program on subdomains of its grid, every rank on this process's GPU
// (issue 30): a GpuBackend a rank on its subdomain, each driven by a
// thread of its own through the local transport (local_links.hpp), as
// one process a GPU drives it through NCCL under mpirun. Its fields equal
// the undecomposed run's bit for bit; `gpen simulate --ranks` without
// mpirun runs it.
#pragma once

#include <memory>
#include <vector>

#include "gpu_backend.hpp"
#include "local_links.hpp"

namespace gpen::sim {

class DecomposedGpuBackend : public Backend {
 public:
  // Refuses (UsageError) what decompose() refuses. `options` go to every
  // rank's loop (their `links` and `fields` must be empty).
  DecomposedGpuBackend(const Program& p, RankGrid grid, const Context& ctx, const GpuOptions& options = {});

  // Interiors of the whole grid, as GpuBackend takes and gives them.
  void set_field(std::size_t f, const std::vector<double>& interior) override;
  std::vector<double> field(std::size_t f) const override;
  std::size_t field_count() const override { return p_.fields.size(); }
  void fill_boundaries() override;
  void step(double dt) override;
  double max_speed() override;
  bool steps_on_device() const override;
  void set_clock(double t) override;
  void launch_step(double stop) override;
  Clock wait_step() override;
  std::vector<double> diagnostics() override;
  std::optional<NonFinite> first_non_finite() const override;
  std::string name() const override;

  const Decomposition& decomposition() const { return group_->decomposition(); }
  GpuBackend& rank(int r) { return *ranks_.at(static_cast<std::size_t>(r)); }

 private:
  // fn(rank) on every rank's thread.
  void on_ranks(const std::function<void(GpuBackend&, int)>& fn) const;

  const Program& p_;
  std::unique_ptr<LocalRanks> group_;  // outlives the ranks' loops, which hold its links
  std::vector<std::unique_ptr<GpuBackend>> ranks_;
};

}  // namespace gpen::sim
