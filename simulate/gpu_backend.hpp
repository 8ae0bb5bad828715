// A program's time loop on the GPU: its stencils (the tuned variant for the
// size where `gpen tune` stored one) on the fields' buffers, the boundary
// conditions, the integrator's updates and the reductions, all in one
// stream. A step waits for nothing but the largest speed of the CFL
// condition (one value read back); diagnostics and snapshots read back
// what they show.
#pragma once

#include <memory>

#include "gpen/simulate/backend.hpp"
#include "gpen/simulate/program.hpp"
#include "gpen/runtime/device.hpp"

namespace gpen::sim {

class GpuBackend : public Backend {
 public:
  // Compiles (through the cache) and loads every kernel, allocates every
  // array: nothing is allocated or compiled once steps run.
  GpuBackend(const Program& p, const Context& ctx);
  ~GpuBackend() override;

  void set_fields(const std::vector<std::vector<double>>& interiors) override;
  std::vector<std::vector<double>> fields() const override;
  void step(double dt) override;
  double max_speed() override;
  std::vector<double> diagnostics() override;
  std::optional<NonFinite> first_non_finite() const override;
  std::string name() const override;

  CUstream stream() const;
  // Field f's whole padded array, ghosts included (tests: the boundaries).
  std::vector<double> padded_field(int f) const;
  // Device allocations made since the constructor returned (none, by design).
  std::size_t allocations_since_setup() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace gpen::sim
