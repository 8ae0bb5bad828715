// The runtime half that the grid families (stencil, scan, SBP) share:
// arrays on a grid, sized NX[xNY[xNZ]], checked by a Workload against a CPU
// reference.
#pragma once

#include <array>
#include <memory>
#include <string>

#include "gpen/families/common/grid_run.hpp"
#include "gpen/families/common/runtime_family.hpp"
#include "gpen/families/common/tuning_key.hpp"

namespace gpen {

class GridFamily : public RuntimeFamily {
 public:
  void check_size(const Spec& spec, const std::string& size) const override { parse_size(size, spec.dims); }
  TuningKey tuning_key(const Spec& spec, const std::string& size, const DeviceInfo& d) const override {
    return gpen::tuning_key(spec, parse_size(size, spec.dims), d);
  }
  std::string small_size(const Spec& spec, const std::array<long long, 3>& grid) const override { return size_text(grid, spec.dims); }
  std::unique_ptr<Problem> make_problem(const Context& ctx, const Spec& spec, const std::string& size, const ProblemOptions& o) const override {
    return make_grid_problem(ctx, spec, size, o);
  }
  Comparison compare(const Spec& spec, const HostArray& got, const HostArray& want, const HostArray*, const HostArray& poison) const override {
    return gpen::compare(got, want, poison, tolerance_for(spec.dtype));
  }
};

}  // namespace gpen
