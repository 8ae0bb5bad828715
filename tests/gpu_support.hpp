// What the GPU tests of the grid kinds share: one launch of a variant on
// random inputs and NaN-poisoned outputs, verified against the CPU
// reference (grid_run.hpp's run_spec, untimed).
#pragma once

#include <array>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "gpen/families/common/grid_run.hpp"

namespace gpen::test {

// Runs `s` with the tunables `set` at `size` (opt's params, periodic
// ghosts and seed kept) and CHECKs that it matched the reference, naming
// the spec, dtype, variant, size and the comparison when it did not.
inline RunReport check_verified(const Context& ctx, const Spec& s, const std::vector<std::string>& set, std::array<long long, 3> size,
                                RunOptions opt = {}) {
  opt.size = size;
  opt.repeat = 1;
  opt.warmup = 0;
  opt.verify = true;
  const RunReport r = run_spec(ctx, s, s.choose(set), opt);
  INFO(s.name << " " << to_string(s.dtype) << " " << r.variant << " size " << size[0] << "x" << size[1] << "x" << size[2]);
  REQUIRE(r.check.has_value());
  INFO(r.check->summary());
  CHECK(r.check->pass);
  return r;
}

}  // namespace gpen::test
