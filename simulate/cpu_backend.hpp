// The CPU reference of a program's time loop, in double precision: each
// stencil's and reduction's CPU reference (evaluated from the specs'
// lowered expressions, not from CUDA), the boundaries' host model, the
// integrator's coefficients. What the GPU's loop is checked against, and a
// way to run a small program where there is no GPU.
#pragma once

#include "gpen/simulate/backend.hpp"
#include "gpen/families/common/host_array.hpp"
#include "gpen/simulate/program.hpp"

namespace gpen::sim {

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(const Program& p);
  // A subdomain of p's grid (decomposed_cpu_backend.hpp): arrays of
  // `extent` points, p's params and spacing.
  CpuBackend(const Program& p, std::array<long long, 3> extent);

  void set_field(std::size_t f, const std::vector<double>& interior) override;
  std::vector<double> field(std::size_t f) const override;
  std::size_t field_count() const override { return f_.size(); }
  void fill_boundaries() override;
  void step(double dt) override;
  bool steps_cancellable() const override { return true; }
  double max_speed() override;
  std::vector<double> diagnostics() override;
  std::optional<NonFinite> first_non_finite() const override;
  std::string name() const override { return "cpu (reference, float64)"; }

  const std::vector<HostArray>& arrays() const { return f_; }
  std::vector<HostArray>& arrays() { return f_; }
  // Stage `st` of a step without the boundary fill after it (step() is
  // every stage, each followed by fill_boundaries()).
  void stage(double dt, std::size_t st);

 private:
  void evaluate_rhs();  // k_ from f_, boundaries already filled
  std::vector<double> reduce(const ReduceUse& r) const;
  std::vector<double> param_values(const KernelUse& u) const;

  const Program& p_;
  std::array<long long, 3> size_;  // the arrays' interior: p's size, or a subdomain's
  std::vector<HostArray> f_;     // the fields
  std::vector<HostArray> k_;     // their right-hand sides
  std::vector<HostArray> d_;     // 2N: the register; rk4: the sum of the stages
  std::vector<HostArray> f0_;    // rk4: the fields at the step's start
  std::vector<std::vector<HostArray>> out_;  // per rhs kernel, per output: what it writes
};

}  // namespace gpen::sim
